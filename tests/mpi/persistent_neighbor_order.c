/* Persistent neighborhood collectives and persistent reductions are matched by the order of their
 * initialization calls, not by the order of MPI_Start (MPI 4.1 sections 6.13 and 8.8). Every
 * rank initializes, in the same order, neighborhood allgathers and alltoalls on a periodic
 * Cartesian ring (where at 2 ranks the left and the right neighbor are the same process) and on
 * a distributed graph, and reductions (allreduce, reduce, scan, exscan, reduce_scatter_block,
 * reduce_scatter) on a duplicate of MPI_COMM_WORLD and on a split of it; then each rank starts
 * them in its own order, several rounds, with blocking collectives on the same communicators
 * while they are active. Every value is computed from the standard's definition of the call. */
#include "check.h"

enum { kOps = 12, kRounds = 6 };

static int rank, size;

static int mod(int a, int n) { return ((a % n) + n) % n; }

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(size <= 16);

  MPI_Comm ring, graph, wdup, half;
  int dims[1] = {size}, periods[1] = {1};
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  int left = mod(rank - 1, size), right = mod(rank + 1, size);
  /* Edges to rank + 1 and rank + 2 (at 2 ranks the second is a self edge). */
  int dests[2] = {mod(rank + 1, size), mod(rank + 2, size)};
  int sources[2] = {mod(rank - 1, size), mod(rank - 2, size)};
  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, MPI_UNWEIGHTED, 2, dests, MPI_UNWEIGHTED,
                                        MPI_INFO_NULL, 0, &graph));
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &wdup));
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));

  /* Buffers: fixed at initialization, refilled before each round's starts. */
  int ring_ag_send, ring_ag_recv[2], ring_a2a_send[2], ring_a2a_recv[2];
  int graph_ag_send, graph_ag_recv[2], graph_a2a_send[2], graph_a2a_recv[2];
  int ar_send, ar_recv, red_send[4], red_recv[4], scan_send[2], scan_recv[2], ex_send, ex_recv;
  int rsb_send[32], rsb_recv[2], rs_send[16 * 17 / 2], rs_recv[16], rs_counts[16];
  int half_send, half_recv;
  for (int i = 0; i < size; ++i) rs_counts[i] = i + 1;

  MPI_Request req[kOps];
  MPI_OK(MPI_Neighbor_allgather_init(&ring_ag_send, 1, MPI_INT, ring_ag_recv, 1, MPI_INT, ring, MPI_INFO_NULL, &req[0]));
  MPI_OK(MPI_Neighbor_alltoall_init(ring_a2a_send, 1, MPI_INT, ring_a2a_recv, 1, MPI_INT, ring, MPI_INFO_NULL, &req[1]));
  MPI_OK(MPI_Allreduce_init(&ar_send, &ar_recv, 1, MPI_INT, MPI_SUM, wdup, MPI_INFO_NULL, &req[2]));
  MPI_OK(MPI_Neighbor_allgather_init(&graph_ag_send, 1, MPI_INT, graph_ag_recv, 1, MPI_INT, graph, MPI_INFO_NULL,
                                     &req[3]));
  MPI_OK(MPI_Neighbor_alltoall_init(graph_a2a_send, 1, MPI_INT, graph_a2a_recv, 1, MPI_INT, graph, MPI_INFO_NULL,
                                    &req[4]));
  MPI_OK(MPI_Reduce_init(red_send, red_recv, 4, MPI_INT, MPI_MAX, size - 1, wdup, MPI_INFO_NULL, &req[5]));
  MPI_OK(MPI_Scan_init(scan_send, scan_recv, 2, MPI_INT, MPI_SUM, wdup, MPI_INFO_NULL, &req[6]));
  MPI_OK(MPI_Exscan_init(&ex_send, &ex_recv, 1, MPI_INT, MPI_SUM, wdup, MPI_INFO_NULL, &req[7]));
  MPI_OK(MPI_Reduce_scatter_block_init(rsb_send, rsb_recv, 2, MPI_INT, MPI_SUM, wdup, MPI_INFO_NULL, &req[8]));
  MPI_OK(MPI_Reduce_scatter_init(rs_send, rs_recv, rs_counts, MPI_INT, MPI_SUM, wdup, MPI_INFO_NULL, &req[9]));
  MPI_OK(MPI_Allreduce_init(&half_send, &half_recv, 1, MPI_INT, MPI_SUM, half, MPI_INFO_NULL, &req[10]));
  /* A second allgather on the ring, started beside the first: the same shape, told apart only by
   * the order of the inits. */
  int ring_ag2_send, ring_ag2_recv[2];
  MPI_OK(MPI_Neighbor_allgather_init(&ring_ag2_send, 1, MPI_INT, ring_ag2_recv, 1, MPI_INT, ring, MPI_INFO_NULL,
                                     &req[11]));

  for (int round = 0; round < kRounds; ++round) {
    int base = 1000 * round;
    ring_ag_send = base + 10 * rank + 1;
    ring_ag2_send = base + 10 * rank + 9;
    ring_a2a_send[0] = base + 10 * rank + 2; /* to the left (the -1 direction) */
    ring_a2a_send[1] = base + 10 * rank + 3; /* to the right */
    graph_ag_send = base + 10 * rank + 4;
    graph_a2a_send[0] = base + 10 * rank + 5; /* to dests[0] */
    graph_a2a_send[1] = base + 10 * rank + 6; /* to dests[1] */
    ar_send = base + rank + 1;
    for (int k = 0; k < 4; ++k) red_send[k] = base + 4 * rank + k;
    for (int k = 0; k < 2; ++k) scan_send[k] = base + rank + k;
    ex_send = base + rank + 1;
    for (int j = 0; j < 2 * size; ++j) rsb_send[j] = base + 7 * rank + j;
    for (int j = 0; j < size * (size + 1) / 2; ++j) rs_send[j] = base + 3 * rank + j;
    half_send = rank + round;
    for (int i = 0; i < 2; ++i) {
      ring_ag_recv[i] = ring_ag2_recv[i] = ring_a2a_recv[i] = graph_ag_recv[i] = graph_a2a_recv[i] = -1;
      scan_recv[i] = rsb_recv[i] = -1;
    }
    ar_recv = ex_recv = half_recv = -1;
    for (int k = 0; k < 4; ++k) red_recv[k] = -1;
    for (int k = 0; k < 16; ++k) rs_recv[k] = -1;

    /* Each rank its own start order: a rotation by rank + round, reversed on odd ranks. */
    int order[kOps];
    for (int k = 0; k < kOps; ++k) order[k] = (k + rank + round) % kOps;
    if (rank % 2) {
      for (int k = 0; k < kOps / 2; ++k) {
        int t = order[k];
        order[k] = order[kOps - 1 - k];
        order[kOps - 1 - k] = t;
      }
    }
    for (int k = 0; k < kOps; ++k) MPI_OK(MPI_Start(&req[order[k]]));
    if (round % 2) { /* blocking collectives on the same communicators while they are active */
      int mine = rank, got[2] = {-1, -1}, all = 0;
      MPI_OK(MPI_Neighbor_allgather(&mine, 1, MPI_INT, got, 1, MPI_INT, ring));
      CHECK(got[0] == left && got[1] == right);
      MPI_OK(MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, wdup));
      CHECK_EQ(all, size * (size - 1) / 2);
    }
    MPI_OK(MPI_Waitall(kOps, req, MPI_STATUSES_IGNORE));

    /* Cartesian neighbors: the -1 neighbor first, then the +1 one (section 8.6); the alltoall's
     * block from the left is what it sent to its right. */
    CHECK_EQ(ring_ag_recv[0], base + 10 * left + 1);
    CHECK_EQ(ring_ag_recv[1], base + 10 * right + 1);
    CHECK_EQ(ring_ag2_recv[0], base + 10 * left + 9);
    CHECK_EQ(ring_ag2_recv[1], base + 10 * right + 9);
    CHECK_EQ(ring_a2a_recv[0], base + 10 * left + 3);
    CHECK_EQ(ring_a2a_recv[1], base + 10 * right + 2);
    /* Graph: block i from sources[i]; sources[i] sent it as its block for dests[i] (its own
     * rank + 1 + i is this rank). */
    for (int i = 0; i < 2; ++i) {
      CHECK_EQ(graph_ag_recv[i], base + 10 * sources[i] + 4);
      CHECK_EQ(graph_a2a_recv[i], base + 10 * sources[i] + 5 + i);
    }
    CHECK_EQ(ar_recv, size * base + size * (size + 1) / 2);
    if (rank == size - 1) {
      for (int k = 0; k < 4; ++k) CHECK_EQ(red_recv[k], base + 4 * (size - 1) + k);
    }
    for (int k = 0; k < 2; ++k) CHECK_EQ(scan_recv[k], (rank + 1) * (base + k) + rank * (rank + 1) / 2);
    if (rank > 0) CHECK_EQ(ex_recv, rank * base + rank * (rank + 1) / 2);
    for (int e = 0; e < 2; ++e) {
      int j = 2 * rank + e;
      CHECK_EQ(rsb_recv[e], size * base + 7 * size * (size - 1) / 2 + size * j);
    }
    for (int e = 0; e <= rank; ++e) {
      int j = rank * (rank + 1) / 2 + e;
      CHECK_EQ(rs_recv[e], size * base + 3 * size * (size - 1) / 2 + size * j);
    }
    int half_expected = 0;
    for (int i = rank % 2; i < size; i += 2) half_expected += i + round;
    CHECK_EQ(half_recv, half_expected);
  }
  for (int k = 0; k < kOps; ++k) MPI_OK(MPI_Request_free(&req[k]));
  MPI_OK(MPI_Comm_free(&half));
  MPI_OK(MPI_Comm_free(&wdup));
  MPI_OK(MPI_Comm_free(&graph));
  MPI_OK(MPI_Comm_free(&ring));
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("persistent_neighbor_order: %d ranks passed\n", size);
  return 0;
}
