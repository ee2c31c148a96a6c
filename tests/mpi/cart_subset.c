/* MPI_Cart_create with a grid smaller than the communicator (MPI 4.1 section 8.5.1): the
 * processes beyond the grid get MPI_COMM_NULL, the others a communicator of the grid's size with
 * the grid's topology; a zero-dimensional grid holds one process. The same for MPI_Graph_create
 * with fewer nodes than processes. */
#include "check.h"

static void check_grid(MPI_Comm cart, int rank, int ndims, const int* dims, int nnodes) {
  if (rank >= nnodes) {
    CHECK(cart == MPI_COMM_NULL);
    return;
  }
  CHECK(cart != MPI_COMM_NULL);
  int size, crank, status, got_ndims;
  MPI_OK(MPI_Comm_size(cart, &size));
  MPI_OK(MPI_Comm_rank(cart, &crank));
  CHECK_EQ(size, nnodes);
  CHECK_EQ(crank, rank);  /* reorder = 0 keeps the ranks */
  MPI_OK(MPI_Topo_test(cart, &status));
  CHECK_EQ(status, MPI_CART);
  MPI_OK(MPI_Cartdim_get(cart, &got_ndims));
  CHECK_EQ(got_ndims, ndims);
  int got_dims[4], periods[4], coords[4];
  MPI_OK(MPI_Cart_get(cart, 4, got_dims, periods, coords));
  for (int d = 0; d < ndims; d++) CHECK_EQ(got_dims[d], dims[d]);
  /* the grid's members still work together */
  int sum = 0;
  MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, cart));
  CHECK_EQ(sum, nnodes * (nnodes - 1) / 2);
  MPI_OK(MPI_Comm_free(&cart));
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_Comm cart = MPI_COMM_WORLD;
  int periods[2] = {0, 1};

  /* one process fewer than the communicator, in one dimension */
  int dims1[1] = {size - 1};
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims1, periods, 0, &cart));
  check_grid(cart, rank, 1, dims1, size - 1);

  /* a 1 x 1 grid: every process but rank 0 gets MPI_COMM_NULL */
  int dims2[2] = {1, 1};
  cart = MPI_COMM_WORLD;
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims2, periods, 0, &cart));
  check_grid(cart, rank, 2, dims2, 1);

  /* half of the processes in two dimensions (size / 2 x 1) */
  int dims3[2] = {size / 2, 1};
  cart = MPI_COMM_WORLD;
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims3, periods, 0, &cart));
  check_grid(cart, rank, 2, dims3, size / 2);

  /* zero dimensions: a grid of one process */
  cart = MPI_COMM_WORLD;
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
  check_grid(cart, rank, 0, NULL, 1);

  /* a graph of one node fewer than the processes (a ring) */
  int nnodes = size - 1, index[8], edges[16];
  for (int i = 0; i < nnodes; i++) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i + nnodes - 1) % nnodes;
    edges[2 * i + 1] = (i + 1) % nnodes;
  }
  MPI_Comm graph = MPI_COMM_WORLD;
  MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, nnodes, index, edges, 0, &graph));
  if (rank >= nnodes) {
    CHECK(graph == MPI_COMM_NULL);
  } else {
    int gsize, status;
    CHECK(graph != MPI_COMM_NULL);
    MPI_OK(MPI_Comm_size(graph, &gsize));
    CHECK_EQ(gsize, nnodes);
    MPI_OK(MPI_Topo_test(graph, &status));
    CHECK_EQ(status, MPI_GRAPH);
    MPI_OK(MPI_Comm_free(&graph));
  }
  MPI_OK(MPI_Finalize());
  return 0;
}
