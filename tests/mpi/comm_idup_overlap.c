/* Several MPI_Comm_idup outstanding at once on overlapping communicators (MPI 4.1 section
 * 7.4.2): each rank belongs to the pairs {r - 1, r} and {r, r + 1} (made by MPI_Comm_create_group)
 * and to the world; it starts the duplications of all three in an order of its own (the pairs
 * in a cycle, so a duplication that waited for another would never finish), then completes them
 * with one MPI_Waitall. Every duplicate must then work and keep its messages apart from its
 * parent's and from the other duplicates'. Repeated, with the world's duplicate started first,
 * last and in the middle. */
#include "check.h"

static MPI_Comm pair_of(int first, int size, MPI_Group world_group) {
  int ranks[2] = {first % size, (first + 1) % size};
  MPI_Group g;
  MPI_Comm c;
  MPI_OK(MPI_Group_incl(world_group, ranks[0] == ranks[1] ? 1 : 2, ranks, &g));
  MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, first, &c));
  MPI_OK(MPI_Group_free(&g));
  return c;
}

/* The duplicate works: an allreduce of world ranks, and a message to the next rank on the
 * duplicate is not seen by a receive on the parent. */
static void check_dup(MPI_Comm parent, MPI_Comm dup, int world_rank) {
  int size, rank, presize, sum = 0, expected = 0;
  MPI_OK(MPI_Comm_size(dup, &size));
  MPI_OK(MPI_Comm_size(parent, &presize));
  CHECK_EQ(size, presize);
  MPI_OK(MPI_Comm_rank(dup, &rank));
  int result;
  MPI_OK(MPI_Comm_compare(parent, dup, &result));
  CHECK_EQ(result, MPI_CONGRUENT);
  int all[16];
  MPI_OK(MPI_Allgather(&world_rank, 1, MPI_INT, all, 1, MPI_INT, parent));
  for (int i = 0; i < size; i++) expected += all[i];
  MPI_OK(MPI_Allreduce(&world_rank, &sum, 1, MPI_INT, MPI_SUM, dup));
  CHECK_EQ(sum, expected);
  if (size > 1) {
    int to = (rank + 1) % size, from = (rank + size - 1) % size;
    int on_dup = 100 + world_rank, on_parent = 200 + world_rank, got_dup = -1, got_parent = -1;
    MPI_Request r[2];
    MPI_OK(MPI_Irecv(&got_parent, 1, MPI_INT, from, 0, parent, &r[0]));
    MPI_OK(MPI_Irecv(&got_dup, 1, MPI_INT, from, 0, dup, &r[1]));
    MPI_OK(MPI_Send(&on_dup, 1, MPI_INT, to, 0, dup));
    MPI_OK(MPI_Send(&on_parent, 1, MPI_INT, to, 0, parent));
    MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    CHECK_EQ(got_dup, 100 + all[from]);
    CHECK_EQ(got_parent, 200 + all[from]);
  }
}

int main(int argc, char** argv) {
  int rank, size, level;
  init_test_at_level_arg(&argc, &argv, &rank, &size, &level);
  MPI_Group world_group;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  /* the two pairs of this rank, the lower-numbered first on every rank (blocking calls on them
   * then never wait for each other in a cycle) */
  int low = rank == 0 ? 0 : rank - 1, high = rank == 0 ? size - 1 : rank;
  MPI_Comm parents[3];
  parents[0] = pair_of(low, size, world_group);
  parents[1] = pair_of(high, size, world_group);
  parents[2] = MPI_COMM_WORLD;
  for (int round = 0; round < 6; round++) {
    MPI_Comm dups[3];
    MPI_Request reqs[3];
    int order[3];
    for (int k = 0; k < 3; k++) order[k] = (k + round + (rank % 2)) % 3;
    for (int k = 0; k < 3; k++) MPI_OK(MPI_Comm_idup(parents[order[k]], &dups[order[k]], &reqs[k]));
    MPI_OK(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
    for (int k = 0; k < 3; k++) check_dup(parents[k], dups[k], rank);
    /* the duplicates of this round stay until the next one, so their contexts stay in use */
    if (round % 2) {
      for (int k = 0; k < 3; k++) MPI_OK(MPI_Comm_free(&dups[k]));
    } else {
      for (int k = 0; k < 3; k++) parents[k] = dups[k];
    }
  }
  MPI_OK(MPI_Group_free(&world_group));
  MPI_OK(MPI_Finalize());
  return 0;
}
