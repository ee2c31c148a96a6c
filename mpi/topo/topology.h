// Process topologies: a Cartesian grid, a graph (every process knows the whole graph) or a
// distributed graph (each process knows its own in- and out-edges), and the neighbor lists each
// one defines for the neighborhood collectives. A Topology is immutable once made; communicators
// share it (mpi/comm/communicator.h). Pure data: no communication here. May call mpi/base.
#pragma once

#include <vector>

#include "mpi.h"
#include "mpi/base/error.h"

namespace gasket::mpi::topo {

// MPI_Dims_create: fills the zero entries of dims[0..ndims) so that the product is nnodes, the
// filled entries non-increasing and as close to each other as possible (the lexicographically
// smallest non-increasing choice). Positive entries are kept; negative ones are MPI_ERR_DIMS, as is
// an nnodes the kept entries do not divide.
Error dims_create(int nnodes, int ndims, int dims[], const char* call);

struct Cartesian {
  std::vector<int> dims;
  std::vector<bool> periods;

  int ndims() const { return static_cast<int>(dims.size()); }
  int size() const;  // the product of dims (1 for zero dimensions)
  // Row-major: the last dimension varies fastest.
  std::vector<int> coords_of(int rank) const;
  // The rank at coords (periodic dimensions wrap); -1 when a non-periodic coordinate is outside.
  int rank_of(const int coords[]) const;
  // MPI_Cart_shift from `rank`: the ranks disp steps back and ahead along dim, MPI_PROC_NULL past
  // a non-periodic border.
  void shift(int rank, int dim, int disp, int* source, int* dest) const;
};

struct Graph {
  std::vector<int> index;  // MPI_Graph_create's: index[i] = edges of nodes 0..i
  std::vector<int> edges;

  int nnodes() const { return static_cast<int>(index.size()); }
  int degree(int rank) const { return index[rank] - (rank == 0 ? 0 : index[rank - 1]); }
  const int* neighbors(int rank) const { return edges.data() + (rank == 0 ? 0 : index[rank - 1]); }
};

// One process's part of a distributed graph: its in-edges (sources) and out-edges
// (destinations), with weights when the graph is weighted.
struct DistGraph {
  std::vector<int> sources, source_weights;
  std::vector<int> destinations, destination_weights;
  bool weighted = false;
};

enum class Kind { kCartesian = MPI_CART, kGraph = MPI_GRAPH, kDistGraph = MPI_DIST_GRAPH };

class Topology {
 public:
  // Checked constructors (errors name the call, the rank and the value). comm_size bounds the
  // grid / the number of nodes.
  static Error cartesian(int ndims, const int dims[], const int periods[], int comm_size, int rank,
                         const char* call, Cartesian* out);
  static Error graph(int nnodes, const int index[], const int edges[], int comm_size, int rank, const char* call,
                     Graph* out);

  // `rank`: this process's rank in the communicator the topology is attached to.
  Topology(Cartesian cart, int rank);
  Topology(Graph graph, int rank);
  Topology(DistGraph dist);

  Kind kind() const { return kind_; }
  const Cartesian& cartesian() const { return cart_; }
  const Graph& graph() const { return graph_; }
  const DistGraph& dist_graph() const { return dist_; }

  // The neighborhood collectives' neighbors, in the standard's order: block i of the receive
  // buffer comes from sources()[i], block i of the send buffer goes to destinations()[i].
  // Cartesian: for each dimension the -1 then the +1 neighbor (MPI_PROC_NULL past a border).
  const std::vector<int>& sources() const { return sources_; }
  const std::vector<int>& destinations() const { return destinations_; }
  // Which message a block is: the block sent to destination i is channel send_channel(i); receive
  // block i takes the message of channel recv_channel(i) from sources()[i]. On a graph every
  // channel is 0 (repeated edges pair up in order); on a Cartesian grid the block sent the -1 way
  // is what the neighbor receives from its +1 side, which tells the two apart when both sides are
  // one process (a periodic dimension of size 1 or 2).
  int send_channel(int i) const { return kind_ == Kind::kCartesian ? i : 0; }
  int recv_channel(int i) const { return kind_ == Kind::kCartesian ? i ^ 1 : 0; }
  int channels() const { return kind_ == Kind::kCartesian ? static_cast<int>(sources_.size()) : 1; }

 private:
  Kind kind_;
  Cartesian cart_;
  Graph graph_;
  DistGraph dist_;
  std::vector<int> sources_, destinations_;
};

}  // namespace gasket::mpi::topo
