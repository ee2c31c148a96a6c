/* Communicators made from random groups, many times over (MPI 4.1 section 7.4.2): rank 0 draws
 * a random subset of the world in a random order and broadcasts it; MPI_Comm_create (collective
 * over the world) and MPI_Comm_create_group (over the members only) make communicators of it,
 * which are split again by a random colour; every communicator is checked by an allreduce of
 * world ranks and a ring of messages, some kept alive across iterations so that contexts in use
 * accumulate, others freed. Then, as other implementations' suites do, members-only
 * MPI_Comm_create_group calls on random groups with one tag, without synchronisation between
 * them. */
#include <stdlib.h>

#include "check.h"

#define ITERATIONS 60

/* The members' ranks and a ring of messages on `c`. */
static void check_comm(MPI_Comm c, const int* world_ranks, int n, int world_rank) {
  check_comm_members(c, world_ranks, n, world_rank);
  int rank, got = -1;
  MPI_OK(MPI_Comm_rank(c, &rank));
  int from = (rank + n - 1) % n;
  MPI_OK(MPI_Sendrecv(&world_rank, 1, MPI_INT, (rank + 1) % n, 3, &got, 1, MPI_INT, from, 3, c, MPI_STATUS_IGNORE));
  CHECK_EQ(got, world_ranks[from]);
}

int main(int argc, char** argv) {
  int rank, size, level;
  init_test_at_level_arg(&argc, &argv, &rank, &size, &level);
  MPI_Group world_group;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  srand(12345);
  MPI_Comm kept[ITERATIONS];
  int n_kept = 0;
  for (int it = 0; it < ITERATIONS; it++) {
    /* [n, members..., colours...] drawn by rank 0 */
    int draw[1 + 2 * 16];
    if (rank == 0) {
      int perm[16];
      for (int i = 0; i < size; i++) perm[i] = i;
      for (int i = size - 1; i > 0; i--) {
        int j = rand() % (i + 1), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
      }
      draw[0] = 1 + rand() % size;
      for (int i = 0; i < draw[0]; i++) draw[1 + i] = perm[i];
      for (int i = 0; i < draw[0]; i++) draw[1 + 16 + i] = rand() % 3 == 0 ? MPI_UNDEFINED : rand() % 2;
    }
    MPI_OK(MPI_Bcast(draw, 1 + 2 * 16, MPI_INT, 0, MPI_COMM_WORLD));
    int n = draw[0], *members = &draw[1], *colours = &draw[1 + 16], mine = -1;
    for (int i = 0; i < n; i++) {
      if (members[i] == rank) mine = i;
    }
    MPI_Group g;
    MPI_OK(MPI_Group_incl(world_group, n, members, &g));
    MPI_Comm created = MPI_COMM_WORLD;
    MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, g, &created));
    if (mine < 0) {
      CHECK(created == MPI_COMM_NULL);
    } else {
      check_comm(created, members, n, rank);
      MPI_Comm by_group;
      MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, it, &by_group));
      check_comm(by_group, members, n, rank);
      /* split by colour, key = -position: reversed order */
      MPI_Comm split = MPI_COMM_WORLD;
      MPI_OK(MPI_Comm_split(created, colours[mine], -mine, &split));
      if (colours[mine] == MPI_UNDEFINED) {
        CHECK(split == MPI_COMM_NULL);
      } else {
        int part[16], np = 0;
        for (int i = n - 1; i >= 0; i--) {
          if (colours[i] == colours[mine]) part[np++] = members[i];
        }
        check_comm(split, part, np, rank);
        MPI_OK(MPI_Comm_free(&split));
      }
      MPI_OK(MPI_Comm_free(&by_group));
      if (it % 3 == 0) {
        kept[n_kept++] = created;
      } else {
        MPI_OK(MPI_Comm_free(&created));
      }
    }
    MPI_OK(MPI_Group_free(&g));
  }
  for (int i = 0; i < n_kept; i++) MPI_OK(MPI_Comm_free(&kept[i]));

  /* Members only, one tag for all, no synchronisation between iterations: each iteration's
   * random group (the same seed everywhere) makes a communicator with MPI_Comm_create_group,
   * runs a barrier and an allreduce on it and frees it, while the processes not in it go on to
   * the next iterations. */
  for (int it = 0; it < 100; it++) {
    srand(1000 + it);
    int members[16], n = 0, mine = -1;
    for (int r = 0; r < size; r++) {
      if (rand() % 2) {
        if (r == rank) mine = n;
        members[n++] = r;
      }
    }
    if (mine < 0) continue;
    MPI_Group g;
    MPI_Comm c;
    MPI_OK(MPI_Group_incl(world_group, n, members, &g));
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 0, &c));
    MPI_OK(MPI_Barrier(c));
    check_comm(c, members, n, rank);
    MPI_OK(MPI_Comm_free(&c));
    MPI_OK(MPI_Group_free(&g));
  }
  MPI_OK(MPI_Group_free(&world_group));
  MPI_OK(MPI_Finalize());
  return 0;
}
