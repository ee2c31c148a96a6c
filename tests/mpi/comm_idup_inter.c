/* MPI_Comm_idup of an intercommunicator is non-blocking (MPI 4.1 section 7.4.2): it returns
 * before the other members have called it. World is split in two groups (even and odd ranks)
 * joined by an intercommunicator; every member but each group's leader starts the duplication,
 * then sends a synchronous message to the other group's leader, which receives those messages
 * from every non-leader of the other group before it starts its own duplication. A duplication
 * that waited for the leaders would never return. Then two duplications of the duplicate are in
 * flight at once, started in opposite orders by the two groups' leaders. Every duplicate must be
 * congruent to its parent, carry messages between the groups and keep them apart from the
 * parent's. */
#include "check.h"

static int world_rank, world_size;

/* Each member sends its local rank + 100 * (group + 1) to every remote rank on `dup` while the
 * same tag is pending on `parent` with another value; the duplicate's receives see only theirs. */
static void check_dup(MPI_Comm parent, MPI_Comm dup, int group) {
  int result, size, rsize, rank, dsize, drsize;
  MPI_OK(MPI_Comm_compare(parent, dup, &result));
  CHECK_EQ(result, MPI_CONGRUENT);
  MPI_OK(MPI_Comm_size(parent, &size));
  MPI_OK(MPI_Comm_remote_size(parent, &rsize));
  MPI_OK(MPI_Comm_size(dup, &dsize));
  MPI_OK(MPI_Comm_remote_size(dup, &drsize));
  CHECK_EQ(dsize, size);
  CHECK_EQ(drsize, rsize);
  MPI_OK(MPI_Comm_rank(dup, &rank));
  int on_parent = -1, on_dup = rank + 100 * (group + 1);
  MPI_Request reqs[2], sends[64];
  CHECK(rsize <= 64);
  /* One message on the parent from remote rank 0 to local rank 0, sent after the duplicate's. */
  for (int r = 0; r < rsize; ++r) MPI_OK(MPI_Isend(&on_dup, 1, MPI_INT, r, 5, dup, &sends[r]));
  if (rank == 0) MPI_OK(MPI_Irecv(&on_parent, 1, MPI_INT, 0, 5, parent, &reqs[0]));
  for (int r = 0; r < rsize; ++r) {
    int in = -1;
    MPI_Status st;
    MPI_OK(MPI_Recv(&in, 1, MPI_INT, r, 5, dup, &st));
    CHECK_EQ(in, r + 100 * (2 - group));
    CHECK_EQ(st.MPI_SOURCE, r);
  }
  MPI_OK(MPI_Waitall(rsize, sends, MPI_STATUSES_IGNORE));
  int marker = 7000 + group;
  if (rank == 0) {
    MPI_OK(MPI_Isend(&marker, 1, MPI_INT, 0, 5, parent, &reqs[1]));
    MPI_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
    CHECK_EQ(on_parent, 7000 + (1 - group));
  }
  /* An allreduce over the duplicate: each group gets the sum of the other group's values. */
  int mine = world_rank, sum = -1, expected = 0;
  MPI_OK(MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, dup));
  for (int w = 0; w < world_size; ++w) if (w % 2 != group) expected += w;
  CHECK_EQ(sum, expected);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  CHECK(world_size >= 2);
  MPI_Comm local, inter;
  int group = even_odd_intercomm(world_rank, 11, &local, &inter);
  int lrank, rsize;
  MPI_OK(MPI_Comm_rank(inter, &lrank));
  MPI_OK(MPI_Comm_remote_size(inter, &rsize));

  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Request req;
  if (lrank == 0) {
    for (int r = 1; r < rsize; ++r) {
      int from = -1;
      MPI_OK(MPI_Recv(&from, 1, MPI_INT, r, 3, inter, MPI_STATUS_IGNORE));
      CHECK_EQ(from, r);
    }
    MPI_OK(MPI_Comm_idup(inter, &dup, &req));
  } else {
    MPI_OK(MPI_Comm_idup(inter, &dup, &req));
    MPI_OK(MPI_Ssend(&lrank, 1, MPI_INT, 0, 3, inter));
  }
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(dup != MPI_COMM_NULL);
  check_dup(inter, dup, group);

  /* Two duplications in flight on one intercommunicator (started in the same order everywhere,
   * as collective calls must be), completed in opposite orders by the two groups. */
  MPI_Comm d2[2];
  MPI_Request r2[2];
  MPI_OK(MPI_Comm_idup(dup, &d2[0], &r2[0]));
  MPI_OK(MPI_Comm_idup_with_info(dup, MPI_INFO_NULL, &d2[1], &r2[1]));
  MPI_OK(MPI_Wait(&r2[group], MPI_STATUS_IGNORE));
  MPI_OK(MPI_Wait(&r2[1 - group], MPI_STATUS_IGNORE));
  check_dup(dup, d2[0], group);
  check_dup(dup, d2[1], group);
  int result;
  MPI_OK(MPI_Comm_compare(d2[0], d2[1], &result));
  CHECK_EQ(result, MPI_CONGRUENT);

  MPI_OK(MPI_Comm_free(&d2[0]));
  MPI_OK(MPI_Comm_free(&d2[1]));
  MPI_OK(MPI_Comm_free(&dup));
  MPI_OK(MPI_Comm_free(&inter));
  MPI_OK(MPI_Comm_free(&local));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (world_rank == 0) printf("comm_idup_inter: ok\n");
  MPI_Finalize();
  return 0;
}
