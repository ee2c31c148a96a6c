/* A count of 0 with MPI_DATATYPE_NULL moves no data, and every call that moves data accepts it
 * as the other implementations do: point-to-point in every mode (to a peer and to
 * MPI_PROC_NULL), persistent and matched receives, the collectives with all counts 0 (blocking
 * and non-blocking), and partitioned communication of empty partitions. Each receive's status
 * must report the sender, the tag and 0 elements. */
#include <string.h>

#include "../check.h"

#define NT MPI_DATATYPE_NULL

static int rank, size;

#define check_empty_status(st, source, tag)     \
  do {                                           \
    int count_ = -1;                             \
    CHECK_EQ((st)->MPI_SOURCE, source);          \
    CHECK_EQ((st)->MPI_TAG, tag);                \
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &count_)); \
    CHECK_EQ(count_, 0);                         \
  } while (0)

static void check_point_to_point(void) {
  int peer = rank ^ 1;
  MPI_Status st;
  MPI_Request rq[2];
  if (peer >= size) peer = MPI_PROC_NULL;
  int expect_source = peer, expect_tag = peer == MPI_PROC_NULL ? MPI_ANY_TAG : 5;
  /* Blocking, in order: the lower rank sends first. */
  for (int round = 0; round < 2; ++round) {
    int to = round == 0 ? peer : MPI_PROC_NULL;
    int from_source = round == 0 ? expect_source : MPI_PROC_NULL;
    int from_tag = round == 0 ? expect_tag : MPI_ANY_TAG;
    if (rank % 2 == 0) {
      MPI_OK(MPI_Send(NULL, 0, NT, to, 5, MPI_COMM_WORLD));
      MPI_OK(MPI_Ssend(NULL, 0, NT, to, 5, MPI_COMM_WORLD));
      MPI_OK(MPI_Recv(NULL, 0, NT, to, 5, MPI_COMM_WORLD, &st));
      check_empty_status(&st, from_source, from_tag);
    } else {
      MPI_OK(MPI_Recv(NULL, 0, NT, to, 5, MPI_COMM_WORLD, &st));
      check_empty_status(&st, from_source, from_tag);
      MPI_OK(MPI_Recv(NULL, 0, NT, to, 5, MPI_COMM_WORLD, &st));
      check_empty_status(&st, from_source, from_tag);
      MPI_OK(MPI_Send(NULL, 0, NT, to, 5, MPI_COMM_WORLD));
    }
    MPI_OK(MPI_Irecv(NULL, 0, NT, to, 5, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Isend(NULL, 0, NT, to, 5, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Wait(&rq[0], &st));
    check_empty_status(&st, from_source, from_tag);
    MPI_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Issend(NULL, 0, NT, to, 5, MPI_COMM_WORLD, &rq[1]));
    MPI_OK(MPI_Sendrecv(NULL, 0, NT, to, 6, NULL, 0, NT, to, 5, MPI_COMM_WORLD, &st));
    check_empty_status(&st, from_source, from_tag);
    MPI_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Recv(NULL, 0, NT, to, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Sendrecv_replace(NULL, 0, NT, to, 5, to, 5, MPI_COMM_WORLD, &st));
    check_empty_status(&st, from_source, from_tag);
    MPI_OK(MPI_Isendrecv(NULL, 0, NT, to, 5, NULL, 0, NT, to, 5, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Wait(&rq[0], &st));
    check_empty_status(&st, from_source, from_tag);
    MPI_OK(MPI_Isendrecv_replace(NULL, 0, NT, to, 5, to, 5, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Wait(&rq[0], &st));
    check_empty_status(&st, from_source, from_tag);
    /* Ready mode: the receive is posted before the sender's barrier ends. */
    MPI_OK(MPI_Irecv(NULL, 0, NT, to, 7, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Rsend(NULL, 0, NT, to, 7, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&rq[0], &st));
    check_empty_status(&st, from_source, to == MPI_PROC_NULL ? MPI_ANY_TAG : 7);
    /* Persistent requests, started twice. */
    MPI_OK(MPI_Recv_init(NULL, 0, NT, to, 8, MPI_COMM_WORLD, &rq[0]));
    MPI_OK(MPI_Send_init(NULL, 0, NT, to, 8, MPI_COMM_WORLD, &rq[1]));
    for (int k = 0; k < 2; ++k) {
      MPI_OK(MPI_Startall(2, rq));
      MPI_OK(MPI_Wait(&rq[0], &st));
      check_empty_status(&st, from_source, to == MPI_PROC_NULL ? MPI_ANY_TAG : 8);
      MPI_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    }
    MPI_OK(MPI_Request_free(&rq[0]));
    MPI_OK(MPI_Request_free(&rq[1]));
    /* A matched receive of the empty message. */
    MPI_OK(MPI_Isend(NULL, 0, NT, to, 9, MPI_COMM_WORLD, &rq[1]));
    MPI_Message msg;
    MPI_OK(MPI_Mprobe(to, 9, MPI_COMM_WORLD, &msg, &st));
    MPI_OK(MPI_Mrecv(NULL, 0, NT, &msg, &st));
    check_empty_status(&st, from_source, to == MPI_PROC_NULL ? MPI_ANY_TAG : 9);
    MPI_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
  }
}

static void check_collectives(void) {
  int zeros[64] = {0}, displs[64] = {0};
  MPI_Datatype nulls[64];
  for (int i = 0; i < 64; ++i) nulls[i] = NT;
  MPI_Request rq;
  MPI_Comm c = MPI_COMM_WORLD;
  MPI_OK(MPI_Bcast(NULL, 0, NT, 0, c));
  MPI_OK(MPI_Gather(NULL, 0, NT, NULL, 0, NT, 0, c));
  MPI_OK(MPI_Gatherv(NULL, 0, NT, NULL, zeros, displs, NT, 0, c));
  MPI_OK(MPI_Scatter(NULL, 0, NT, NULL, 0, NT, 0, c));
  MPI_OK(MPI_Scatterv(NULL, zeros, displs, NT, NULL, 0, NT, 0, c));
  MPI_OK(MPI_Allgather(NULL, 0, NT, NULL, 0, NT, c));
  MPI_OK(MPI_Allgatherv(NULL, 0, NT, NULL, zeros, displs, NT, c));
  MPI_OK(MPI_Alltoall(NULL, 0, NT, NULL, 0, NT, c));
  MPI_OK(MPI_Alltoallv(NULL, zeros, displs, NT, NULL, zeros, displs, NT, c));
  MPI_OK(MPI_Alltoallw(NULL, zeros, displs, nulls, NULL, zeros, displs, nulls, c));
  MPI_OK(MPI_Ibcast(NULL, 0, NT, 0, c, &rq));
  MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Iallgather(NULL, 0, NT, NULL, 0, NT, c, &rq));
  MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Ialltoall(NULL, 0, NT, NULL, 0, NT, c, &rq));
  MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Bcast_init(NULL, 0, NT, 0, c, MPI_INFO_NULL, &rq));
  MPI_OK(MPI_Start(&rq));
  MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Request_free(&rq));
  /* A Cartesian ring's neighborhood exchanges. */
  MPI_Comm ring;
  int dims[1] = {size}, periods[1] = {1};
  MPI_OK(MPI_Cart_create(c, 1, dims, periods, 0, &ring));
  MPI_OK(MPI_Neighbor_allgather(NULL, 0, NT, NULL, 0, NT, ring));
  MPI_OK(MPI_Neighbor_alltoall(NULL, 0, NT, NULL, 0, NT, ring));
  MPI_OK(MPI_Neighbor_alltoallv(NULL, zeros, displs, NT, NULL, zeros, displs, NT, ring));
  MPI_OK(MPI_Comm_free(&ring));
  /* Data still flows around the calls above. */
  int value = rank, sum = -1;
  MPI_OK(MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, c));
  CHECK_EQ(sum, size * (size - 1) / 2);
}

/* Partitioned: empty partitions (of MPI_DATATYPE_NULL, and of a real type), readied one by one and as a
 * range. */
static void check_partitioned(MPI_Datatype type) {
  if (size < 2 || rank >= 2) return;
  MPI_Request rq;
  int flag = 0;
  if (rank == 0) {
    MPI_OK(MPI_Psend_init(NULL, 4, 0, type, 1, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
  } else {
    MPI_OK(MPI_Precv_init(NULL, 4, 0, type, 0, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
  }
  for (int round = 0; round < 2; ++round) {
    MPI_OK(MPI_Start(&rq));
    if (rank == 0) {
      MPI_OK(MPI_Pready(0, rq));
      MPI_OK(MPI_Pready(1, rq));
      MPI_OK(MPI_Pready_range(2, 3, rq));
    }
    for (int p = 0; rank == 1 && p < 4; ++p) { /* every empty partition arrives */
      do MPI_OK(MPI_Parrived(rq, p, &flag));
      while (!flag);
    }
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  }
  MPI_OK(MPI_Request_free(&rq));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  check_point_to_point();
  check_collectives();
  check_partitioned(NT);
  check_partitioned(MPI_INT);
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("zero_count_null_type: %d ranks passed\n", size);
  return 0;
}
