/* MPI_Comm_create and MPI_Comm_split of an intercommunicator (MPI 4.1 section 7.4.2): the new
 * communicator is an intercommunicator between the chosen parts of the two groups; a process
 * outside its side's group (or colour), or any process when either side chose nobody, gets
 * MPI_COMM_NULL. World is split into the even ranks and the odd ranks, joined by
 * MPI_Intercomm_create; every new intercommunicator is checked by its sizes, its groups and a
 * message each way between the leaders and an MPI_Allreduce across it. */
#include <stdlib.h>

#include "check.h"

static int world_rank, world_size;

/* world ranks of the local and remote groups of `inter`, in their order */
static void groups_of(MPI_Comm inter, int* local, int* nlocal, int* remote, int* nremote) {
  MPI_Group wg, lg, rg;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  MPI_OK(MPI_Comm_group(inter, &lg));
  MPI_OK(MPI_Comm_remote_group(inter, &rg));
  MPI_OK(MPI_Group_size(lg, nlocal));
  MPI_OK(MPI_Group_size(rg, nremote));
  int idx[16];
  for (int i = 0; i < 16; i++) idx[i] = i;
  MPI_OK(MPI_Group_translate_ranks(lg, *nlocal, idx, wg, local));
  MPI_OK(MPI_Group_translate_ranks(rg, *nremote, idx, wg, remote));
  MPI_OK(MPI_Group_free(&wg));
  MPI_OK(MPI_Group_free(&lg));
  MPI_OK(MPI_Group_free(&rg));
}

/* `inter` joins the world ranks local[] and remote[] (in that order); this rank is among local */
static void check_inter(MPI_Comm inter, const int* local, int nlocal, const int* remote, int nremote) {
  CHECK(inter != MPI_COMM_NULL);
  int flag, lsize, rsize, rank;
  MPI_OK(MPI_Comm_test_inter(inter, &flag));
  CHECK(flag);
  MPI_OK(MPI_Comm_size(inter, &lsize));
  MPI_OK(MPI_Comm_remote_size(inter, &rsize));
  CHECK_EQ(lsize, nlocal);
  CHECK_EQ(rsize, nremote);
  int got_local[16], got_remote[16], gl, gr;
  groups_of(inter, got_local, &gl, got_remote, &gr);
  for (int i = 0; i < nlocal; i++) CHECK_EQ(got_local[i], local[i]);
  for (int i = 0; i < nremote; i++) CHECK_EQ(got_remote[i], remote[i]);
  MPI_OK(MPI_Comm_rank(inter, &rank));
  CHECK_EQ(local[rank], world_rank);
  /* leaders swap their world ranks */
  if (rank == 0) {
    int theirs = -1;
    MPI_OK(MPI_Sendrecv(&world_rank, 1, MPI_INT, 0, 5, &theirs, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE));
    CHECK_EQ(theirs, remote[0]);
  }
  /* an allreduce over an intercommunicator gives the remote group's sum */
  int sum = 0, expected = 0;
  for (int i = 0; i < nremote; i++) expected += remote[i];
  MPI_OK(MPI_Allreduce(&world_rank, &sum, 1, MPI_INT, MPI_SUM, inter));
  CHECK_EQ(sum, expected);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &world_rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &world_size));
  MPI_Comm half, inter;
  int side = even_odd_intercomm(world_rank, 9, &half, &inter);
  int half_rank, half_size;
  MPI_OK(MPI_Comm_rank(half, &half_rank));
  MPI_OK(MPI_Comm_size(half, &half_size));
  int n_even = (world_size + 1) / 2, n_odd = world_size / 2;
  int n_side[2] = {n_even, n_odd};

  /* MPI_Comm_create: the even side keeps all but its first member (all when alone), the odd side
   * its first member only. */
  MPI_Group local_group, chosen;
  MPI_OK(MPI_Comm_group(inter, &local_group));
  int keep[16], nkeep = 0;
  if (side == 0) {
    for (int r = n_even > 1 ? 1 : 0; r < n_even; r++) keep[nkeep++] = r;
  } else {
    keep[nkeep++] = 0;
  }
  MPI_OK(MPI_Group_incl(local_group, nkeep, keep, &chosen));
  MPI_Comm created = MPI_COMM_WORLD;
  MPI_OK(MPI_Comm_create(inter, chosen, &created));
  int kept_even[16], kept_odd[16], ne = 0, no = 0;
  for (int r = n_even > 1 ? 1 : 0; r < n_even; r++) kept_even[ne++] = 2 * r;
  kept_odd[no++] = 1;
  int in_mine = 0;
  for (int i = 0; i < nkeep; i++) in_mine |= keep[i] == half_rank;
  if (!in_mine) {
    CHECK(created == MPI_COMM_NULL);
  } else if (side == 0) {
    check_inter(created, kept_even, ne, kept_odd, no);
    MPI_OK(MPI_Comm_free(&created));
  } else {
    check_inter(created, kept_odd, no, kept_even, ne);
    MPI_OK(MPI_Comm_free(&created));
  }
  MPI_OK(MPI_Group_free(&chosen));

  /* MPI_Comm_create where the odd side chooses nobody: MPI_COMM_NULL everywhere */
  for (int r = 0; r < n_even; r++) keep[r] = r;
  MPI_OK(MPI_Group_incl(local_group, side == 0 ? n_even : 0, keep, &chosen));
  created = MPI_COMM_WORLD;
  MPI_OK(MPI_Comm_create(inter, chosen, &created));
  CHECK(created == MPI_COMM_NULL);
  MPI_OK(MPI_Group_free(&chosen));

  /* MPI_Comm_create with each side's whole group: the same groups as the parent */
  created = MPI_COMM_WORLD;
  MPI_OK(MPI_Comm_create(inter, local_group, &created));
  {
    int evens[16], odds[16];
    for (int r = 0; r < n_even; r++) evens[r] = 2 * r;
    for (int r = 0; r < n_odd; r++) odds[r] = 2 * r + 1;
    if (side == 0) check_inter(created, evens, n_even, odds, n_odd);
    else check_inter(created, odds, n_odd, evens, n_even);
    MPI_OK(MPI_Comm_free(&created));
  }
  MPI_OK(MPI_Group_free(&local_group));

  /* MPI_Comm_split: colour = half rank % 2 with the key reversing the order; colour 1 exists on
   * the odd side only when it has two or more members; the last even member gives
   * MPI_UNDEFINED (when it is not the only one). */
  int color = half_rank % 2;
  if (side == 0 && half_rank == n_even - 1 && n_even > 1) color = MPI_UNDEFINED;
  MPI_Comm split = MPI_COMM_WORLD;
  MPI_OK(MPI_Comm_split(inter, color, -half_rank, &split));
  /* members per side and colour, in key order (descending half rank) */
  int members[2][2][16], count[2][2] = {{0, 0}, {0, 0}};
  for (int s = 0; s < 2; s++) {
    for (int r = n_side[s] - 1; r >= 0; r--) {
      int c = r % 2;
      if (s == 0 && r == n_even - 1 && n_even > 1) continue;
      members[s][c][count[s][c]++] = 2 * r + s;
    }
  }
  if (color == MPI_UNDEFINED || count[1 - side][color] == 0) {
    CHECK(split == MPI_COMM_NULL);
  } else {
    check_inter(split, members[side][color], count[side][color], members[1 - side][color], count[1 - side][color]);
    MPI_OK(MPI_Comm_free(&split));
  }

  MPI_OK(MPI_Comm_free(&inter));
  MPI_OK(MPI_Comm_free(&half));
  MPI_OK(MPI_Finalize());
  return 0;
}
