/* Collectives whose send buffer overlaps the receive buffer (not MPI_IN_PLACE) fail at the call
 * with MPI_ERR_BUFFER (MPI 4.1 section 2.3: an OUT argument may not be aliased with another
 * argument): every collective with both buffers, in its blocking, non-blocking, persistent and
 * large-count (_c) forms, the neighborhood collectives too; the same buffer, a send buffer
 * starting inside the receive buffer, and a receive block inside a strided send type. Buffers
 * that only touch, send and receive blocks interleaved in one area, and MPI_IN_PLACE, are accepted
 * and give the right values (a receive block moved onto a send block there is refused); the rooted forms
 * refuse at the root (on MPI_COMM_SELF, and on the world where the root then calls again
 * correctly and the others' one call matches it). The job then finalizes cleanly. */
#include <string.h>

#include "check.h"

#define N 8

static int rank, size;

#define EXPECT_ALIAS(call)                                                       \
  do {                                                                           \
    int rc_ = (call), class_ = -1;                                               \
    CHECK(rc_ != MPI_SUCCESS);                                                   \
    MPI_Error_class(rc_, &class_);                                               \
    if (class_ != MPI_ERR_BUFFER) fprintf(stderr, "rank %d: %s\n", rank, #call); \
    CHECK_EQ(class_, MPI_ERR_BUFFER);                                            \
  } while (0)

/* A blocking, non-blocking and persistent allreduce with the same send/recv buffers must fail. */
static void allreduce_forms(int* send, int* recv, int count) {
  MPI_Request r = MPI_REQUEST_NULL;
  EXPECT_ALIAS(MPI_Allreduce(send, recv, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  EXPECT_ALIAS(MPI_Iallreduce(send, recv, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
  CHECK(r == MPI_REQUEST_NULL);
  EXPECT_ALIAS(MPI_Allreduce_init(send, recv, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  CHECK(r == MPI_REQUEST_NULL);
  EXPECT_ALIAS(MPI_Allreduce_c(send, recv, count, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
}

int main(int argc, char** argv) {
  int level;
  init_test_at_level_arg(&argc, &argv, &rank, &size, &level);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  static int buf[4 * 16 * N];
  MPI_Request r = MPI_REQUEST_NULL;
  int counts[16], displs[16];
  MPI_Count counts_c[16];
  MPI_Aint displs_c[16];
  MPI_Datatype types[16];
  for (int i = 0; i < size; i++) {
    counts[i] = N, displs[i] = i * N, counts_c[i] = N, displs_c[i] = i * N;
    types[i] = MPI_INT;
  }

  /* ---- reductions ---- */
  allreduce_forms(buf, buf, N);          /* the same buffer */
  allreduce_forms(buf, buf + 1, N);      /* the send buffer starts before, ends inside */
  allreduce_forms(buf + N - 1, buf, N);  /* starts inside the receive buffer */
  EXPECT_ALIAS(MPI_Scan(buf, buf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  EXPECT_ALIAS(MPI_Iexscan(buf, buf + 2, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
  EXPECT_ALIAS(MPI_Scan_init(buf, buf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  EXPECT_ALIAS(MPI_Reduce_scatter_block(buf, buf + N, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));  /* recv inside send */
  EXPECT_ALIAS(MPI_Reduce_scatter(buf, buf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  EXPECT_ALIAS(MPI_Ireduce_scatter_c(buf, buf, counts_c, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r));
  CHECK(r == MPI_REQUEST_NULL);

  /* touching, not overlapping: accepted, with the right sums */
  for (int i = 0; i < N; i++) buf[i] = rank + i;
  MPI_OK(MPI_Allreduce(buf, buf + N, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < N; i++) CHECK_EQ(buf[N + i], size * (size - 1) / 2 + size * i);
  MPI_OK(MPI_Allreduce(buf + N, buf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < N; i++) CHECK_EQ(buf[i], size * (size * (size - 1) / 2 + size * i));
  /* MPI_IN_PLACE is the way to share one buffer */
  for (int i = 0; i < N; i++) buf[i] = 1;
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, buf, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  for (int i = 0; i < N; i++) CHECK_EQ(buf[i], size);

  /* a strided send type whose holes hold the receive buffer: its true extent overlaps */
  MPI_Datatype strided;
  MPI_OK(MPI_Type_vector(2, 1, 4, MPI_INT, &strided));
  MPI_OK(MPI_Type_commit(&strided));
  EXPECT_ALIAS(MPI_Allreduce(buf, buf + 1, 1, strided, MPI_SUM, MPI_COMM_WORLD));
  MPI_OK(MPI_Type_free(&strided));

  /* ---- gathers and all-to-alls ---- */
  int* recv = buf + 16 * N;
  EXPECT_ALIAS(MPI_Allgather(recv + rank * N, N, MPI_INT, recv, N, MPI_INT, MPI_COMM_WORLD));  /* own slot */
  EXPECT_ALIAS(MPI_Iallgather(recv, N, MPI_INT, recv, N, MPI_INT, MPI_COMM_WORLD, &r));
  EXPECT_ALIAS(MPI_Allgatherv(recv + 1, N, MPI_INT, recv, counts, displs, MPI_INT, MPI_COMM_WORLD));
  EXPECT_ALIAS(MPI_Allgather_init(recv, N, MPI_INT, recv, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  EXPECT_ALIAS(MPI_Alltoall(recv, N, MPI_INT, recv, N, MPI_INT, MPI_COMM_WORLD));
  EXPECT_ALIAS(MPI_Ialltoallv(recv, counts, displs, MPI_INT, recv + N / 2, counts, displs, MPI_INT, MPI_COMM_WORLD, &r));
  EXPECT_ALIAS(MPI_Alltoallw(recv, counts, displs, types, recv, counts, displs, types, MPI_COMM_WORLD));
  EXPECT_ALIAS(MPI_Alltoall_c(recv, N, MPI_INT, recv, N, MPI_INT, MPI_COMM_WORLD));
  EXPECT_ALIAS(MPI_Allgatherv_c(recv, N, MPI_INT, recv, counts_c, displs_c, MPI_INT, MPI_COMM_WORLD));
  CHECK(r == MPI_REQUEST_NULL);
  /* send right after the receive area: accepted */
  int* after = recv + size * N;
  for (int i = 0; i < N; i++) after[i] = rank * 100 + i;
  MPI_OK(MPI_Allgather(after, N, MPI_INT, recv, N, MPI_INT, MPI_COMM_WORLD));
  for (int p = 0; p < size; p++) {
    for (int i = 0; i < N; i++) CHECK_EQ(recv[p * N + i], p * 100 + i);
  }

  /* send and receive blocks interleaved in one area (rank p's block to send, then the block from
   * rank p): the two areas' spans meet, no block overlaps another: accepted, with the right values;
   * the last receive block moved one int down onto the send block before it: refused */
  int* mix = buf + 32 * N;
  int sdispls[16], rdispls[16];
  for (int p = 0; p < size; p++) {
    sdispls[p] = 2 * p * N, rdispls[p] = (2 * p + 1) * N;
    for (int i = 0; i < N; i++) mix[sdispls[p] + i] = rank * 1000 + p * 10 + i, mix[rdispls[p] + i] = -1;
  }
  MPI_OK(MPI_Alltoallv(mix, counts, sdispls, MPI_INT, mix, counts, rdispls, MPI_INT, MPI_COMM_WORLD));
  for (int p = 0; p < size; p++) {
    for (int i = 0; i < N; i++) {
      CHECK_EQ(mix[sdispls[p] + i], rank * 1000 + p * 10 + i);
      CHECK_EQ(mix[rdispls[p] + i], p * 1000 + rank * 10 + i);
    }
  }
  rdispls[size - 1] -= 1;
  EXPECT_ALIAS(MPI_Alltoallv(mix, counts, sdispls, MPI_INT, mix, counts, rdispls, MPI_INT, MPI_COMM_WORLD));

  /* ---- rooted: on MPI_COMM_SELF every call is the root's ---- */
  EXPECT_ALIAS(MPI_Gather(buf, N, MPI_INT, buf, N, MPI_INT, 0, MPI_COMM_SELF));
  EXPECT_ALIAS(MPI_Igatherv(buf + 1, N, MPI_INT, buf, counts, displs, MPI_INT, 0, MPI_COMM_SELF, &r));
  EXPECT_ALIAS(MPI_Scatter(buf, N, MPI_INT, buf, N, MPI_INT, 0, MPI_COMM_SELF));
  EXPECT_ALIAS(MPI_Scatterv_init(buf, counts, displs, MPI_INT, buf, N, MPI_INT, 0, MPI_COMM_SELF, MPI_INFO_NULL, &r));
  EXPECT_ALIAS(MPI_Reduce(buf, buf, N, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF));
  EXPECT_ALIAS(MPI_Ireduce_c(buf, buf + 3, N, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF, &r));
  CHECK(r == MPI_REQUEST_NULL);
  /* on the world: the root's aliased call fails alone; its correct call then meets the others' */
  int root = size - 1;
  for (int i = 0; i < N; i++) buf[i] = rank + i;
  if (rank == root) {
    EXPECT_ALIAS(MPI_Reduce(buf, buf, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
    EXPECT_ALIAS(MPI_Gather(recv + root * N, N, MPI_INT, recv, N, MPI_INT, root, MPI_COMM_WORLD));
  }
  MPI_OK(MPI_Reduce(buf, buf + N, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
  MPI_OK(MPI_Gather(buf, N, MPI_INT, recv, N, MPI_INT, root, MPI_COMM_WORLD));
  if (rank == root) {
    for (int i = 0; i < N; i++) CHECK_EQ(buf[N + i], size * (size - 1) / 2 + size * i);
    for (int p = 0; p < size; p++) {
      for (int i = 0; i < N; i++) CHECK_EQ(recv[p * N + i], p + i);
    }
  }
  /* a non-root's receive buffer is not significant: the same pointer is fine there */
  MPI_OK(MPI_Gather(buf, N, MPI_INT, rank == 0 ? recv : buf, N, MPI_INT, 0, MPI_COMM_WORLD));

  /* ---- neighborhood collectives on a periodic ring ---- */
  MPI_Comm ring;
  int dims[1] = {size}, periods[1] = {1};
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  MPI_OK(MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN));
  EXPECT_ALIAS(MPI_Neighbor_allgather(recv, N, MPI_INT, recv, N, MPI_INT, ring));
  EXPECT_ALIAS(MPI_Ineighbor_alltoall(recv + N, N, MPI_INT, recv, N, MPI_INT, ring, &r));
  EXPECT_ALIAS(MPI_Neighbor_alltoallv_init(recv, counts, displs, MPI_INT, recv, counts, displs, MPI_INT, ring,
                                           MPI_INFO_NULL, &r));
  EXPECT_ALIAS(MPI_Neighbor_allgather_c(recv, N, MPI_INT, recv, N, MPI_INT, ring));
  CHECK(r == MPI_REQUEST_NULL);
  /* disjoint: each rank gets its two neighbours' blocks */
  for (int i = 0; i < N; i++) buf[i] = rank * 10 + i;
  MPI_OK(MPI_Neighbor_allgather(buf, N, MPI_INT, recv, N, MPI_INT, ring));
  for (int i = 0; i < N; i++) {
    CHECK_EQ(recv[i], ((rank + size - 1) % size) * 10 + i);
    CHECK_EQ(recv[N + i], ((rank + 1) % size) * 10 + i);
  }
  MPI_OK(MPI_Comm_free(&ring));
  MPI_OK(MPI_Finalize());
  return 0;
}
