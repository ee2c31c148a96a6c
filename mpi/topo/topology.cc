#include "mpi/topo/topology.h"

#include <climits>

namespace gasket::mpi::topo {

namespace {

std::vector<int> divisors(int n) {
  std::vector<int> small, large;
  for (int d = 1; static_cast<long long>(d) * d <= n; ++d) {
    if (n % d != 0) continue;
    small.push_back(d);
    if (d != n / d) large.push_back(n / d);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;  // ascending
}

// d^k >= n, without overflow.
bool reaches(int d, int k, int n) {
  long long p = 1;
  for (int i = 0; i < k && p < n; ++i) p *= d;
  return p >= n;
}

// The most balanced factorisation: every non-increasing choice of k factors of n (none above
// cap) is tried after `current`, and *best keeps the one whose largest / smallest factor ratio is
// the smallest (5040 over 3: 21 x 16 x 15, ratio 1.4, not 20 x 18 x 14); among equal ratios the
// lexicographically smallest, found first. The next factor is at least the k-th root of what is
// left (the factors do not increase): smaller choices are skipped at once.
void balance(int n, int k, int cap, const std::vector<int>& divs, std::vector<int>* current, std::vector<int>* best) {
  if (k == 0) {
    if (n != 1) return;
    auto ratio_below = [](const std::vector<int>& a, const std::vector<int>& b) {  // max/min of a < of b
      return static_cast<long long>(a.front()) * b.back() < static_cast<long long>(b.front()) * a.back();
    };
    if (best->empty() || ratio_below(*current, *best)) *best = *current;
    return;
  }
  for (int d : divs) {
    if (d > cap) break;
    if (n % d != 0 || !reaches(d, k, n)) continue;
    current->push_back(d);
    balance(n / d, k - 1, d, divs, current, best);
    current->pop_back();
  }
}

}  // namespace

Error dims_create(int nnodes, int ndims, int dims[], const char* call) {
  if (nnodes <= 0) return error(MPI_ERR_DIMS, "%s: nnodes %d is not positive", call, nnodes);
  if (ndims < 0) return error(MPI_ERR_DIMS, "%s: ndims %d is negative", call, ndims);
  if (ndims > 0 && dims == nullptr) return error(MPI_ERR_ARG, "%s: dims is NULL", call);
  int fixed = 1, free = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return error(MPI_ERR_DIMS, "%s: dims[%d] = %d is negative", call, i, dims[i]);
    if (dims[i] == 0) {
      ++free;
    } else if (nnodes % dims[i] != 0 || (nnodes / dims[i]) % fixed != 0) {
      return error(MPI_ERR_DIMS, "%s: the given dimensions do not divide nnodes %d (dims[%d] = %d)", call, nnodes, i,
                   dims[i]);
    } else {
      fixed *= dims[i];
    }
  }
  int rest = nnodes / fixed;
  if (free == 0) {
    if (rest != 1) {
      return error(MPI_ERR_DIMS, "%s: the given dimensions multiply to %d, not nnodes %d", call, fixed, nnodes);
    }
    return Error::ok();
  }
  std::vector<int> current, factors;
  balance(rest, free, INT_MAX, divisors(rest), &current, &factors);  // rest, 1, 1... always works
  for (int i = 0, f = 0; i < ndims; ++i) {
    if (dims[i] == 0) dims[i] = factors[static_cast<size_t>(f++)];
  }
  return Error::ok();
}

int Cartesian::size() const {
  int n = 1;
  for (int d : dims) n *= d;
  return n;
}

std::vector<int> Cartesian::coords_of(int rank) const {
  std::vector<int> coords(dims.size());
  for (int i = ndims() - 1; i >= 0; --i) {
    coords[static_cast<size_t>(i)] = rank % dims[static_cast<size_t>(i)];
    rank /= dims[static_cast<size_t>(i)];
  }
  return coords;
}

int Cartesian::rank_of(const int coords[]) const {
  int rank = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    int c = coords[i];
    if (periods[i]) {
      c = ((c % dims[i]) + dims[i]) % dims[i];
    } else if (c < 0 || c >= dims[i]) {
      return -1;
    }
    rank = rank * dims[i] + c;
  }
  return rank;
}

void Cartesian::shift(int rank, int dim, int disp, int* source, int* dest) const {
  std::vector<int> coords = coords_of(rank);
  int here = coords[static_cast<size_t>(dim)];
  auto at = [&](long long c) {
    // Wrap in 64 bits so that huge displacements cannot overflow.
    long long n = dims[static_cast<size_t>(dim)];
    if (periods[static_cast<size_t>(dim)]) c = ((c % n) + n) % n;
    if (c < 0 || c >= n) return MPI_PROC_NULL;
    coords[static_cast<size_t>(dim)] = static_cast<int>(c);
    return rank_of(coords.data());
  };
  *dest = at(static_cast<long long>(here) + disp);
  *source = at(static_cast<long long>(here) - disp);
}

Error Topology::cartesian(int ndims, const int dims[], const int periods[], int comm_size, int rank,
                          const char* call, Cartesian* out) {
  if (ndims < 0) return error(MPI_ERR_DIMS, "%s: rank %d: ndims %d is negative", call, rank, ndims);
  if (ndims > 0 && (dims == nullptr || periods == nullptr)) {
    return error(MPI_ERR_ARG, "%s: rank %d: dims or periods is NULL", call, rank);
  }
  long long n = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return error(MPI_ERR_DIMS, "%s: rank %d: dims[%d] = %d is not positive", call, rank, i, dims[i]);
    n *= dims[i];
    if (n > comm_size) {
      return error(MPI_ERR_DIMS, "%s: rank %d: the grid (dims[0..%d]) has more than the communicator's %d processes",
                   call, rank, i, comm_size);
    }
  }
  out->dims.assign(dims, dims + ndims);
  out->periods.clear();
  for (int i = 0; i < ndims; ++i) out->periods.push_back(periods[i] != 0);
  return Error::ok();
}

Error Topology::graph(int nnodes, const int index[], const int edges[], int comm_size, int rank, const char* call,
                      Graph* out) {
  if (nnodes < 0 || nnodes > comm_size) {
    return error(MPI_ERR_ARG, "%s: rank %d: nnodes %d is outside 0..%d (the communicator's size)", call, rank, nnodes,
                 comm_size);
  }
  if (nnodes > 0 && index == nullptr) return error(MPI_ERR_ARG, "%s: rank %d: index is NULL", call, rank);
  for (int i = 0; i < nnodes; ++i) {
    int previous = i == 0 ? 0 : index[i - 1];
    if (index[i] < previous) {
      return error(MPI_ERR_ARG, "%s: rank %d: index[%d] = %d is smaller than the one before (%d)", call, rank, i,
                   index[i], previous);
    }
  }
  int nedges = nnodes == 0 ? 0 : index[nnodes - 1];
  if (nedges > 0 && edges == nullptr) return error(MPI_ERR_ARG, "%s: rank %d: edges is NULL", call, rank);
  for (int i = 0; i < nedges; ++i) {
    if (edges[i] < 0 || edges[i] >= nnodes) {
      return error(MPI_ERR_ARG, "%s: rank %d: edges[%d] = %d is not a node (0..%d)", call, rank, i, edges[i],
                   nnodes - 1);
    }
  }
  out->index.assign(index, index + nnodes);
  out->edges.assign(edges, edges + nedges);
  return Error::ok();
}

Topology::Topology(Cartesian cart, int rank) : kind_(Kind::kCartesian), cart_(std::move(cart)) {
  for (int d = 0; d < cart_.ndims(); ++d) {
    int minus, plus;
    cart_.shift(rank, d, 1, &minus, &plus);
    sources_.push_back(minus);
    sources_.push_back(plus);
  }
  destinations_ = sources_;
}

Topology::Topology(Graph graph, int rank) : kind_(Kind::kGraph), graph_(std::move(graph)) {
  sources_.assign(graph_.neighbors(rank), graph_.neighbors(rank) + graph_.degree(rank));
  destinations_ = sources_;
}

Topology::Topology(DistGraph dist) : kind_(Kind::kDistGraph), dist_(std::move(dist)) {
  sources_ = dist_.sources;
  destinations_ = dist_.destinations;
}

}  // namespace gasket::mpi::topo
