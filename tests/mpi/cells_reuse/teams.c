/* OpenSHMEM teams share the same-node cells with MPI: a team destroyed right after a team sync
 * or reduction, and a new team (of all PEs, then of a half made once) created and used at once,
 * must neither hang a slower PE still in the old team's collective nor change its data. */
#include <stdio.h>

#include <shmem.h>

#include "tests/shmem/check.h"

enum { kIterations = 300 };

static long src[4], dst[4];

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  /* a team of this PE alone (x-teams of range 1): the next team is split from it with no other
   * PE taking part, so a fast PE gets there while slower ones are still in the world team's
   * collective */
  shmem_team_t half, all;
  CHECK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, 1, NULL, 0, &half, NULL, 0, &all), 0);
  CHECK_EQ(shmem_team_n_pes(half), 1);
  shmem_team_destroy(all);
  int hsize = 1;
  for (int i = 0; i < kIterations; ++i) {
    shmem_team_t t;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t), 0);
    if (i % 2 == 0) {
      shmem_team_sync(t);
    } else {
      for (int k = 0; k < 4; ++k) src[k] = (long)(me + 1) * (i + k);
      CHECK_EQ(shmem_long_sum_reduce(t, dst, src, 4), 0);
      for (int k = 0; k < 4; ++k) CHECK_EQ(dst[k], (long)n * (n + 1) / 2 * (i + k));
    }
    shmem_team_destroy(t);
    shmem_team_t h;
    CHECK_EQ(shmem_team_split_strided(half, 0, 1, hsize, NULL, 0, &h), 0);
    for (int k = 0; k < 4; ++k) src[k] = -(long)i - k;
    CHECK_EQ(shmem_long_sum_reduce(h, dst, src, 4), 0);
    for (int k = 0; k < 4; ++k) CHECK_EQ(dst[k], (long)hsize * (-(long)i - k));
    shmem_team_sync(h);
    shmem_team_destroy(h);
  }
  shmem_team_destroy(half);
  shmem_barrier_all();
  if (me == 0) printf("cells_reuse teams: %d iterations at %d PEs passed\n", kIterations, n);
  shmem_finalize();
  return 0;
}
