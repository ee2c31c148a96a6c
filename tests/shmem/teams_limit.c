/* Team creation beyond the implementation's limit (OpenSHMEM 1.5/1.6 shmem_team_split_strided,
 * _2d): the split returns non-zero and leaves the new team SHMEM_TEAM_INVALID on every PE, and
 * the job goes on (it used to end the job). The limit is 1022 teams besides SHMEM_TEAM_WORLD and
 * SHMEM_TEAM_SHARED (shmem-api/README.md); the teams made up to it all work. */
#include "check.h"

#define ATTEMPTS 2000
#define DOCUMENTED_LIMIT 1022

static shmem_team_t teams[ATTEMPTS];

/* A sum reduction over `team` (every PE of the job is in it): the sum of 1..npes. */
static void check_team_works(shmem_team_t team, int npes) {
  static long src, dst;
  src = shmem_team_my_pe(team) + 1;
  dst = -1;
  CHECK_EQ(shmem_long_sum_reduce(team, &dst, &src, 1), 0);
  CHECK_EQ(dst, (long)npes * (npes + 1) / 2);
}

int main(void) {
  int me, npes, left, right;
  init_ring(&me, &npes, &left, &right);
  int made = 0, status = 0;
  for (; made < ATTEMPTS; ++made) {
    /* A team of every PE in reverse order (stride -1), so each one is a real split. */
    status = shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -1, npes, NULL, 0, &teams[made]);
    if (status != 0) break;
    CHECK(teams[made] != SHMEM_TEAM_INVALID, "split %d succeeded but gave SHMEM_TEAM_INVALID", made);
  }
  CHECK(status != 0, "%d splits all succeeded: no limit was reached", ATTEMPTS);
  CHECK(teams[made] == SHMEM_TEAM_INVALID, "a failed split must leave SHMEM_TEAM_INVALID");
  CHECK_EQ(made, DOCUMENTED_LIMIT);
  /* Every PE saw the same count. */
  static int counts[1];
  static int sum[1];
  counts[0] = made;
  CHECK_EQ(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, sum, counts, 1), 0);
  CHECK_EQ(sum[0], made * npes);
  /* The first and the last team made work (cells and SyncArea algorithms alike). */
  check_team_works(teams[0], npes);
  check_team_works(teams[made - 1], npes);
  CHECK_EQ(shmem_team_translate_pe(teams[made - 1], 0, SHMEM_TEAM_WORLD), npes - 1);
  /* One slot free: a 2d split needs two and fails with both teams invalid; a strided one fits. */
  shmem_team_destroy(teams[made / 2]);
  shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, npes, NULL, 0, &x, NULL, 0, &y) != 0, "2d split without two free slots");
  CHECK(x == SHMEM_TEAM_INVALID && y == SHMEM_TEAM_INVALID, "failed 2d split must give SHMEM_TEAM_INVALID");
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &teams[made / 2]), 0);
  check_team_works(teams[made / 2], npes);
  /* Destroying every team frees every slot again. */
  for (int t = 0; t < made; ++t) shmem_team_destroy(teams[t]);
  for (int t = 0; t < made; ++t) {
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &teams[t]), 0);
  }
  check_team_works(teams[made - 1], npes);
  for (int t = 0; t < made; ++t) shmem_team_destroy(teams[t]);
  shmem_finalize();
  if (me == 0) printf("teams_limit: ok on %d PEs (%d teams)\n", npes, made);
  return 0;
}
