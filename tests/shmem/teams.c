/* Teams: a 2D split of the world (rows and columns) with reductions along each axis, a strided
 * split, PE translation, team contexts with team-relative PE numbers, SHMEM_TEAM_SHARED. */
#include "check.h"

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_WORLD), me);
  CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_WORLD), n);
  CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) >= 1, "shared team size %d", shmem_team_n_pes(SHMEM_TEAM_SHARED));
  CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_SHARED, shmem_team_my_pe(SHMEM_TEAM_SHARED), SHMEM_TEAM_WORLD), me);

  /* 2D split: rows of 2 */
  int xrange = 2;
  shmem_team_t row, column;
  shmem_team_config_t conf = {.num_contexts = 1};
  CHECK_EQ(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, &conf, SHMEM_TEAM_NUM_CONTEXTS, &row, NULL, 0, &column), 0);
  CHECK(row != SHMEM_TEAM_INVALID && column != SHMEM_TEAM_INVALID, "teams %p %p", (void*)row, (void*)column);
  int rx = shmem_team_my_pe(row), cy = shmem_team_my_pe(column);
  CHECK_EQ(rx, me % xrange);
  CHECK_EQ(cy, me / xrange);
  CHECK_EQ(shmem_team_n_pes(column), (n - me % xrange + xrange - 1) / xrange);
  shmem_team_config_t got;
  CHECK_EQ(shmem_team_get_config(row, SHMEM_TEAM_NUM_CONTEXTS, &got), 0);
  CHECK_EQ(got.num_contexts, 1);
  CHECK_EQ(shmem_team_translate_pe(row, 0, SHMEM_TEAM_WORLD), me - me % xrange);
  CHECK_EQ(shmem_team_translate_pe(column, 0, SHMEM_TEAM_WORLD), me % xrange);

  int* v = shmem_malloc(sizeof(int));
  int* sum = shmem_malloc(sizeof(int));
  *v = me;
  shmem_int_sum_reduce(row, sum, v, 1);
  int expect = 0;
  for (int p = me - me % xrange; p < me - me % xrange + xrange && p < n; ++p) expect += p;
  CHECK_EQ(*sum, expect);
  shmem_int_sum_reduce(column, sum, v, 1);
  expect = 0;
  for (int p = me % xrange; p < n; p += xrange) expect += p;
  CHECK_EQ(*sum, expect);

  /* a team context: PE numbers are ranks in the team */
  shmem_ctx_t ctx;
  CHECK_EQ(shmem_team_create_ctx(column, 0, &ctx), 0);
  shmem_team_t back;
  CHECK_EQ(shmem_ctx_get_team(ctx, &back), 0);
  CHECK(back == column, "ctx team");
  int ny = shmem_team_n_pes(column);
  shmem_team_sync(column);
  shmem_ctx_int_p(ctx, v, 1000 + me, (cy + 1) % ny);
  shmem_ctx_quiet(ctx);
  shmem_team_sync(column);
  int from = shmem_team_translate_pe(column, (cy + ny - 1) % ny, SHMEM_TEAM_WORLD);
  CHECK_EQ(*v, 1000 + from);
  shmem_ctx_destroy(ctx);

  /* strided split: the odd PEs; the others get SHMEM_TEAM_INVALID */
  shmem_team_t odd;
  shmem_barrier_all();
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, n / 2, NULL, 0, &odd), 0);
  if (me % 2 == 1) {
    CHECK_EQ(shmem_team_my_pe(odd), me / 2);
    CHECK_EQ(shmem_team_n_pes(odd), n / 2);
    *v = 1;
    shmem_int_sum_reduce(odd, sum, v, 1);
    CHECK_EQ(*sum, n / 2);
    /* a split of a split: every second odd PE */
    shmem_team_t sub;
    CHECK_EQ(shmem_team_split_strided(odd, 0, 2, (n / 2 + 1) / 2, NULL, 0, &sub), 0);
    if (shmem_team_my_pe(odd) % 2 == 0) {
      CHECK_EQ(shmem_team_translate_pe(sub, shmem_team_my_pe(sub), SHMEM_TEAM_WORLD), me);
      shmem_team_sync(sub);
      shmem_team_destroy(sub);
    } else {
      CHECK(sub == SHMEM_TEAM_INVALID, "not a member");
    }
    shmem_team_destroy(odd);
  } else {
    CHECK(odd == SHMEM_TEAM_INVALID, "even PE got a team");
    CHECK_EQ(shmem_team_my_pe(odd), -1);
  }
  shmem_team_destroy(row);
  shmem_team_destroy(column);
  /* slots are reused: many create/destroy cycles */
  for (int i = 0; i < 100; ++i) {
    shmem_team_t t;
    CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &t), 0);
    shmem_team_sync(t);
    shmem_team_destroy(t);
  }
  shmem_barrier_all();
  if (me == 0) printf("teams: ok on %d PEs\n", n);
  shmem_finalize();
  return 0;
}
