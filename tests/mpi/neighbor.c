/* Neighborhood collectives, blocking and non-blocking: allgather(v), alltoall(v,w), with derived
 * datatypes on both sides, on Cartesian grids (periodic and not, periodic dimensions of size 1
 * and 2 where both neighbors are one process), a graph (repeated edges below 3 processes),
 * distributed graphs (adjacent and general) and a duplicate. Every received block is checked
 * against the values its neighbor must have sent; MPI_PROC_NULL blocks stay untouched. Also:
 * non-blocking neighborhood collectives overlapped with point-to-point, two in flight on one
 * communicator, and error classes under MPI_ERRORS_RETURN. */
#include <string.h>

#include "check.h"

#define MAXD 8
#define MAXN (4 * MAXD) /* neighbors per process */
#define C 3             /* elements per block */
#define SENTINEL (-1)

static int rank, size;

/* A process's neighbors and, for each receive block k, which send block of sources[k] lands
 * there (-1 for MPI_PROC_NULL). */
typedef struct {
  int in, out;
  int src[MAXN], dst[MAXN];
  int peer_block[MAXN];
} Nbrs;

static int val(int from, int block, int e) { return from * 10000 + block * 100 + e + 1; }

/* Cartesian: block 2d goes the -1 way and arrives in the neighbor's block 2d+1, and back. */
static void cart_nbrs(MPI_Comm comm, Nbrs* nb) {
  int nd;
  MPI_OK(MPI_Cartdim_get(comm, &nd));
  nb->in = nb->out = 2 * nd;
  for (int d = 0; d < nd; ++d) {
    MPI_OK(MPI_Cart_shift(comm, d, 1, &nb->src[2 * d], &nb->src[2 * d + 1]));
    nb->dst[2 * d] = nb->src[2 * d];
    nb->dst[2 * d + 1] = nb->src[2 * d + 1];
  }
  for (int k = 0; k < nb->in; ++k) nb->peer_block[k] = nb->src[k] == MPI_PROC_NULL ? -1 : k ^ 1;
}

/* Graphs: the i-th edge from S to me pairs with the i-th edge from S to me in S's list. The
 * destination lists of everyone are gathered with an allreduce. */
static void pair_edges(MPI_Comm comm, Nbrs* nb) {
  int n, me;
  MPI_OK(MPI_Comm_size(comm, &n));
  MPI_OK(MPI_Comm_rank(comm, &me));
  static int table[MAXD][MAXN + 1], mine[MAXD][MAXN + 1];
  memset(mine, 0, sizeof mine);
  mine[me][0] = nb->out;
  memcpy(&mine[me][1], nb->dst, (size_t)nb->out * sizeof(int));
  MPI_OK(MPI_Allreduce(mine, table, MAXD * (MAXN + 1), MPI_INT, MPI_SUM, comm));
  for (int k = 0; k < nb->in; ++k) {
    int s = nb->src[k], occurrence = 0;
    for (int i = 0; i < k; ++i) occurrence += nb->src[i] == s;
    nb->peer_block[k] = -1;
    for (int j = 0; j < table[s][0]; ++j) {
      if (table[s][1 + j] == me && occurrence-- == 0) {
        nb->peer_block[k] = j;
        break;
      }
    }
    CHECK(nb->peer_block[k] >= 0);
  }
}

static void graph_nbrs(MPI_Comm comm, Nbrs* nb) {
  int me;
  MPI_OK(MPI_Comm_rank(comm, &me));
  MPI_OK(MPI_Graph_neighbors_count(comm, me, &nb->in));
  MPI_OK(MPI_Graph_neighbors(comm, me, MAXN, nb->src));
  nb->out = nb->in;
  memcpy(nb->dst, nb->src, sizeof nb->src);
  pair_edges(comm, nb);
}

static void dist_nbrs(MPI_Comm comm, Nbrs* nb) {
  int weighted;
  MPI_OK(MPI_Dist_graph_neighbors_count(comm, &nb->in, &nb->out, &weighted));
  MPI_OK(MPI_Dist_graph_neighbors(comm, MAXN, nb->src, MPI_UNWEIGHTED, MAXN, nb->dst, MPI_UNWEIGHTED));
  pair_edges(comm, nb);
}

static void wait_ok(MPI_Request* r) {
  MPI_Status st;
  MPI_OK(MPI_Wait(r, &st));
  CHECK_EQ(*r, MPI_REQUEST_NULL);
}

/* MPI_Neighbor_<name>(args), or MPI_Ineighbor_<name>(args, &request) and a wait. */
#define NEIGHBOR(nonblocking, name, ...)                  \
  do {                                                    \
    if (nonblocking) {                                    \
      MPI_Request r_;                                     \
      MPI_OK(MPI_Ineighbor_##name(__VA_ARGS__, &r_));     \
      wait_ok(&r_);                                       \
    } else {                                              \
      MPI_OK(MPI_Neighbor_##name(__VA_ARGS__));           \
    }                                                     \
  } while (0)

/* Checks receive block k (n elements at p, stride `stride` ints). */
static void check_block(const Nbrs* nb, int k, const int* p, int n, int stride, int same_block) {
  for (int e = 0; e < n; ++e) {
    int want = nb->src[k] == MPI_PROC_NULL ? SENTINEL : val(nb->src[k], same_block ? 0 : nb->peer_block[k], e);
    CHECK_EQ(p[e * stride], want);
  }
}

static void fill(int* buf, int n, int v) {
  for (int i = 0; i < n; ++i) buf[i] = v;
}

static void allgather(MPI_Comm comm, const Nbrs* nb, int nonblocking, MPI_Datatype strided3) {
  int me, send[2 * C], recv[MAXN * C];
  MPI_OK(MPI_Comm_rank(comm, &me));
  for (int e = 0; e < C; ++e) send[e] = val(me, 0, e);
  fill(recv, MAXN * C, SENTINEL);
  NEIGHBOR(nonblocking, allgather, send, C, MPI_INT, recv, C, MPI_INT, comm);
  for (int k = 0; k < nb->in; ++k) check_block(nb, k, recv + k * C, C, 1, 1);
  /* A derived send type: every other int. */
  for (int e = 0; e < C; ++e) send[2 * e] = val(me, 0, e), send[2 * e + 1] = -99;
  fill(recv, MAXN * C, SENTINEL);
  NEIGHBOR(nonblocking, allgather, send, 1, strided3, recv, C, MPI_INT, comm);
  for (int k = 0; k < nb->in; ++k) check_block(nb, k, recv + k * C, C, 1, 1);
}

static void allgatherv(MPI_Comm comm, const Nbrs* nb, int nonblocking, MPI_Datatype strided3) {
  /* Blocks in reverse order with a gap of one int; received through the strided type (so each
   * block spans 2C ints). */
  int me, send[C], recv[MAXN * (2 * C + 1)], counts[MAXN], displs[MAXN];
  MPI_Aint lb, extent;
  MPI_OK(MPI_Comm_rank(comm, &me));
  MPI_OK(MPI_Type_get_extent(strided3, &lb, &extent));
  CHECK_EQ(extent, (2 * C - 1) * (MPI_Aint)sizeof(int));
  MPI_Datatype block;
  MPI_OK(MPI_Type_create_resized(strided3, 0, (2 * C + 1) * sizeof(int), &block));
  MPI_OK(MPI_Type_commit(&block));
  for (int e = 0; e < C; ++e) send[e] = val(me, 0, e);
  fill(recv, MAXN * (2 * C + 1), SENTINEL);
  for (int k = 0; k < nb->in; ++k) counts[k] = 1, displs[k] = nb->in - 1 - k;
  NEIGHBOR(nonblocking, allgatherv, send, C, MPI_INT, recv, counts, displs, block, comm);
  for (int k = 0; k < nb->in; ++k) {
    const int* p = recv + displs[k] * (2 * C + 1);
    check_block(nb, k, p, C, 2, 1);
    for (int e = 0; e < C; ++e) CHECK_EQ(p[2 * e + 1], SENTINEL); /* the holes of the type */
  }
  MPI_OK(MPI_Type_free(&block));
}

static void alltoall(MPI_Comm comm, const Nbrs* nb, int nonblocking) {
  int me, send[MAXN * C], recv[MAXN * C];
  MPI_OK(MPI_Comm_rank(comm, &me));
  for (int j = 0; j < nb->out; ++j) {
    for (int e = 0; e < C; ++e) send[j * C + e] = val(me, j, e);
  }
  fill(recv, MAXN * C, SENTINEL);
  NEIGHBOR(nonblocking, alltoall, send, C, MPI_INT, recv, C, MPI_INT, comm);
  for (int k = 0; k < nb->in; ++k) check_block(nb, k, recv + k * C, C, 1, 0);
}

/* Block j carries j % 3 + 1 elements; blocks stored in reverse order with gaps. */
static int vcount(int block) { return block % 3 + 1; }

static void alltoallv(MPI_Comm comm, const Nbrs* nb, int nonblocking) {
  int me, send[MAXN * (C + 2)], recv[MAXN * (C + 2)];
  int scounts[MAXN], sdispls[MAXN], rcounts[MAXN], rdispls[MAXN];
  MPI_OK(MPI_Comm_rank(comm, &me));
  fill(send, MAXN * (C + 2), -99);
  for (int j = 0; j < nb->out; ++j) {
    scounts[j] = vcount(j);
    sdispls[j] = (nb->out - 1 - j) * (C + 2) + 1;
    for (int e = 0; e < scounts[j]; ++e) send[sdispls[j] + e] = val(me, j, e);
  }
  for (int k = 0; k < nb->in; ++k) {
    rcounts[k] = nb->peer_block[k] < 0 ? 2 : vcount(nb->peer_block[k]);
    rdispls[k] = (nb->in - 1 - k) * (C + 2) + 2;
  }
  fill(recv, MAXN * (C + 2), SENTINEL);
  NEIGHBOR(nonblocking, alltoallv, send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, MPI_INT, comm);
  for (int k = 0; k < nb->in; ++k) {
    check_block(nb, k, recv + rdispls[k], rcounts[k], 1, 0);
    CHECK_EQ(recv[rdispls[k] + rcounts[k]], SENTINEL);
    CHECK_EQ(recv[rdispls[k] - 1], SENTINEL);
  }
}

/* Even blocks: one strided3 on the send side, C MPI_INTs on the receive side; odd blocks: C
 * MPI_INTs sent, one contiguous type of C ints received. Byte displacements. */
static void alltoallw(MPI_Comm comm, const Nbrs* nb, int nonblocking, MPI_Datatype strided3, MPI_Datatype three) {
  int me, send[MAXN * 2 * C], recv[MAXN * C];
  int scounts[MAXN], rcounts[MAXN];
  MPI_Aint sdispls[MAXN], rdispls[MAXN];
  MPI_Datatype stypes[MAXN], rtypes[MAXN];
  MPI_OK(MPI_Comm_rank(comm, &me));
  fill(send, MAXN * 2 * C, -99);
  for (int j = 0; j < nb->out; ++j) {
    int* p = send + j * 2 * C;
    sdispls[j] = (MPI_Aint)(j * 2 * C * sizeof(int));
    if (j % 2 == 0) {
      stypes[j] = strided3, scounts[j] = 1;
      for (int e = 0; e < C; ++e) p[2 * e] = val(me, j, e);
    } else {
      stypes[j] = MPI_INT, scounts[j] = C;
      for (int e = 0; e < C; ++e) p[e] = val(me, j, e);
    }
  }
  for (int k = 0; k < nb->in; ++k) {
    rdispls[k] = (MPI_Aint)((nb->in - 1 - k) * C * sizeof(int));
    if (k % 2 == 0) {
      rtypes[k] = MPI_INT, rcounts[k] = C;
    } else {
      rtypes[k] = three, rcounts[k] = 1;
    }
  }
  fill(recv, MAXN * C, SENTINEL);
  NEIGHBOR(nonblocking, alltoallw, send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm);
  for (int k = 0; k < nb->in; ++k) check_block(nb, k, recv + (nb->in - 1 - k) * C, C, 1, 0);
}

/* Two neighborhood collectives in flight with point-to-point around MPI_COMM_WORLD and on the
 * topology's communicator itself; completed in reverse order. */
static void overlap(MPI_Comm comm, const Nbrs* nb) {
  int me, send[MAXN * C], a2a[MAXN * C], ag[MAXN * C], mine[C];
  MPI_OK(MPI_Comm_rank(comm, &me));
  for (int j = 0; j < nb->out; ++j) {
    for (int e = 0; e < C; ++e) send[j * C + e] = val(me, j, e);
  }
  for (int e = 0; e < C; ++e) mine[e] = val(me, 0, e);
  fill(a2a, MAXN * C, SENTINEL);
  fill(ag, MAXN * C, SENTINEL);
  MPI_Request r[6];
  MPI_OK(MPI_Ineighbor_alltoall(send, C, MPI_INT, a2a, C, MPI_INT, comm, &r[0]));
  MPI_OK(MPI_Ineighbor_allgather(mine, C, MPI_INT, ag, C, MPI_INT, comm, &r[1]));
  int csize, right = (rank + 1) % size, left = (rank + size - 1) % size, from_left = -1, on_comm = -1;
  MPI_OK(MPI_Comm_size(comm, &csize));
  int cright = (me + 1) % csize, cleft = (me + csize - 1) % csize, tag_value = 7000 + me;
  MPI_OK(MPI_Irecv(&from_left, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &r[2]));
  MPI_OK(MPI_Irecv(&on_comm, 1, MPI_INT, cleft, 0, comm, &r[3]));
  MPI_OK(MPI_Isend(&rank, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &r[4]));
  MPI_OK(MPI_Isend(&tag_value, 1, MPI_INT, cright, 0, comm, &r[5]));
  /* Spin on the point-to-point ones first, then the collectives in reverse order. */
  int flag = 0;
  while (!flag) MPI_OK(MPI_Testall(4, r + 2, &flag, MPI_STATUSES_IGNORE));
  wait_ok(&r[1]);
  wait_ok(&r[0]);
  CHECK_EQ(from_left, left);
  CHECK_EQ(on_comm, 7000 + cleft);
  for (int k = 0; k < nb->in; ++k) {
    check_block(nb, k, a2a + k * C, C, 1, 0);
    check_block(nb, k, ag + k * C, C, 1, 1);
  }
}

static void run_all(MPI_Comm comm, const Nbrs* nb, MPI_Datatype strided3, MPI_Datatype three) {
  CHECK(nb->in <= MAXN && nb->out <= MAXN);
  for (int nonblocking = 0; nonblocking < 2; ++nonblocking) {
    allgather(comm, nb, nonblocking, strided3);
    allgatherv(comm, nb, nonblocking, strided3);
    alltoall(comm, nb, nonblocking);
    alltoallv(comm, nb, nonblocking);
    alltoallw(comm, nb, nonblocking, strided3, three);
  }
  overlap(comm, nb);
}

static void errors(MPI_Comm cart, MPI_Datatype strided3) {
  int x[4 * MAXN] = {0}, y[4 * MAXN], counts[MAXN] = {0}, displs[MAXN] = {0};
  MPI_Request r;
  CHECK_EQ(MPI_Neighbor_alltoall(x, -1, MPI_INT, y, 1, MPI_INT, cart), MPI_ERR_COUNT);
  CHECK_EQ(MPI_Neighbor_allgather(x, 1, MPI_INT, y, -2, MPI_INT, cart), MPI_ERR_COUNT);
  CHECK_EQ(MPI_Neighbor_allgather(MPI_IN_PLACE, 1, MPI_INT, y, 1, MPI_INT, cart), MPI_ERR_BUFFER);
  CHECK_EQ(MPI_Neighbor_alltoall(x, 1, MPI_DATATYPE_NULL, y, 1, MPI_INT, cart), MPI_ERR_TYPE);
  CHECK_EQ(MPI_Ineighbor_alltoall(x, 1, MPI_INT, y, 1, MPI_INT, cart, NULL), MPI_ERR_ARG);
  CHECK_EQ(MPI_Neighbor_allgatherv(x, 1, MPI_INT, y, NULL, displs, MPI_INT, cart), MPI_ERR_ARG);
  counts[1] = -3;
  CHECK_EQ(MPI_Neighbor_alltoallv(x, counts, displs, MPI_INT, y, counts, displs, MPI_INT, cart), MPI_ERR_COUNT);
  MPI_Datatype uncommitted;
  MPI_OK(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
  CHECK_EQ(MPI_Ineighbor_allgather(x, 1, uncommitted, y, 2, MPI_INT, cart, &r), MPI_ERR_TYPE);
  MPI_OK(MPI_Type_free(&uncommitted));
  CHECK_EQ(MPI_Neighbor_alltoall(NULL, 1, MPI_INT, y, 1, MPI_INT, cart), MPI_ERR_BUFFER);
  CHECK_EQ(MPI_Neighbor_alltoall(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);
  CHECK_EQ(MPI_Neighbor_alltoall(x, 1, MPI_INT, y, 1, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM);
  /* A block larger than its receive block: truncated, reported when the operation completes. */
  CHECK_EQ(MPI_Neighbor_alltoall(x, 2, MPI_INT, y, 1, MPI_INT, cart), MPI_ERR_TRUNCATE);
  MPI_OK(MPI_Ineighbor_allgather(x, 1, strided3, y, 2, MPI_INT, cart, &r));
  CHECK_EQ(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
  CHECK_EQ(r, MPI_REQUEST_NULL);
  /* The communicator still works afterwards. */
  Nbrs nb;
  cart_nbrs(cart, &nb);
  alltoall(cart, &nb, 0);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= MAXD);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Datatype strided3, three;
  MPI_OK(MPI_Type_vector(C, 1, 2, MPI_INT, &strided3));
  MPI_OK(MPI_Type_commit(&strided3));
  MPI_OK(MPI_Type_contiguous(C, MPI_INT, &three));
  MPI_OK(MPI_Type_commit(&three));
  Nbrs nb;
  MPI_Comm comm;

  /* Cartesian grids: 1-D periodic and not, 2-D (first dimension periodic), 3-D not periodic,
   * and size x 1 x 2-ish grids whose periodic dimensions of size 1 (and 2) make a process its
   * own neighbor (or both neighbors one process). */
  struct { int nd, dims[3], periods[3]; } grids[] = {
      {1, {0}, {1}}, {1, {0}, {0}}, {2, {0, 0}, {1, 0}}, {3, {0, 0, 0}, {0, 0, 0}}, {2, {0, 1}, {1, 1}},
      {3, {0, 0, 2}, {1, 0, 1}},
  };
  for (size_t i = 0; i < sizeof grids / sizeof grids[0]; ++i) {
    if (grids[i].dims[2] == 2 && size % 2 != 0) continue; /* needs an even number of processes */
    MPI_OK(MPI_Dims_create(size, grids[i].nd, grids[i].dims));
    MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, grids[i].nd, grids[i].dims, grids[i].periods, 0, &comm));
    cart_nbrs(comm, &nb);
    run_all(comm, &nb, strided3, three);
    if (i == 0) {
      MPI_Comm dup;
      MPI_OK(MPI_Comm_dup(comm, &dup));
      run_all(dup, &nb, strided3, three);
      errors(dup, strided3);
      MPI_OK(MPI_Comm_free(&dup));
    }
    MPI_OK(MPI_Comm_free(&comm));
  }

  /* A graph: ring plus chords to the opposite process (symmetric: even sizes only). */
  int index[MAXD], edges[3 * MAXD], e = 0;
  for (int i = 0; i < size; ++i) {
    edges[e++] = (i + 1) % size;
    edges[e++] = (i + size - 1) % size;
    if (size >= 4 && size % 2 == 0) edges[e++] = (i + size / 2) % size;
    index[i] = e;
  }
  MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &comm));
  graph_nbrs(comm, &nb);
  run_all(comm, &nb, strided3, three);
  MPI_OK(MPI_Comm_free(&comm));

  /* A distributed graph given by its adjacency: in from rank-1 and rank-3, out to rank+1 and
   * rank+3 (repeated edges and self-loops at small sizes). */
  int src[2] = {(rank + size - 1) % size, (rank + 3 * size - 3) % size};
  int dst[2] = {(rank + 1) % size, (rank + 3) % size};
  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, MPI_UNWEIGHTED, 2, dst, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                        0, &comm));
  dist_nbrs(comm, &nb);
  run_all(comm, &nb, strided3, three);
  MPI_OK(MPI_Comm_free(&comm));

  /* A general distributed graph: rank i gives s = i+1's edges s -> s+1, s -> s+2 and, on rank 0,
   * r -> 0 for every odd r; uneven in- and out-degrees. */
  int s = (rank + 1) % size, n = 1, sources[1 + MAXD], degrees[1 + MAXD], dests[2 + MAXD];
  sources[0] = s, degrees[0] = 2, dests[0] = (s + 1) % size, dests[1] = (s + 2) % size;
  for (int r = 1; rank == 0 && r < size; r += 2) sources[n] = r, degrees[n] = 1, dests[n + 1] = 0, ++n;
  MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comm));
  dist_nbrs(comm, &nb);
  run_all(comm, &nb, strided3, three);
  MPI_OK(MPI_Comm_free(&comm));

  /* Over a communicator whose ranks run backwards through MPI_COMM_WORLD's: a periodic ring and
   * the general distributed graph again (ranks, not PEs, name the neighbors). */
  MPI_Comm backwards;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &backwards));
  int ring = size, periodic = 1;
  MPI_OK(MPI_Cart_create(backwards, 1, &ring, &periodic, 0, &comm));
  cart_nbrs(comm, &nb);
  run_all(comm, &nb, strided3, three);
  MPI_OK(MPI_Comm_free(&comm));
  MPI_OK(MPI_Dist_graph_create(backwards, n, sources, degrees, dests, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &comm));
  dist_nbrs(comm, &nb);
  run_all(comm, &nb, strided3, three);
  MPI_OK(MPI_Comm_free(&comm));
  MPI_OK(MPI_Comm_free(&backwards));

  MPI_OK(MPI_Type_free(&strided3));
  MPI_OK(MPI_Type_free(&three));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("neighbor: %d ranks OK\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
