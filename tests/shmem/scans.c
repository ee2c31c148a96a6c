/* OpenSHMEM 1.6 scans: shmem_TYPENAME_sum_inscan / _sum_exscan and the generic forms, on the
 * world team, on a team in reverse PE order (team ranks, not PE numbers, order the prefix), in
 * place, over more elements than one bounce piece, with complex types, and with no elements. */
#include <complex.h>

#include "check.h"

#define BIG 10000 /* longs: more than the 64 KiB bounce piece */

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes();
  long* src = shmem_malloc(BIG * sizeof(long));
  long* dst = shmem_malloc(BIG * sizeof(long));
  double* dsrc = shmem_malloc(4 * sizeof(double));
  double* ddst = shmem_malloc(4 * sizeof(double));
  double _Complex* csrc = shmem_malloc(2 * sizeof(double _Complex));
  double _Complex* cdst = shmem_malloc(2 * sizeof(double _Complex));
  CHECK(src && dst && dsrc && ddst && csrc && cdst, "shmem_malloc failed");

  /* world: PE p contributes p + 1 (+ i * 1000 at element i) */
  for (long i = 0; i < BIG; ++i) src[i] = me + 1 + i * 1000;
  shmem_barrier_all();
  CHECK_EQ(shmem_long_sum_inscan(SHMEM_TEAM_WORLD, dst, src, BIG), 0);
  for (long i = 0; i < BIG; ++i) CHECK_EQ(dst[i], (long)(me + 1) * (me + 2) / 2 + (me + 1) * i * 1000);
  CHECK_EQ(shmem_long_sum_exscan(SHMEM_TEAM_WORLD, dst, src, BIG), 0);
  for (long i = 0; i < BIG; ++i) CHECK_EQ(dst[i], (long)me * (me + 1) / 2 + me * i * 1000);

  /* generic forms, double and complex */
  for (int i = 0; i < 4; ++i) dsrc[i] = 0.5 * (me + 1) + i;
  csrc[0] = (me + 1) + 2.0 * I;
  csrc[1] = 1.0 - (double)me * I;
  shmem_barrier_all();
  CHECK_EQ(shmem_sum_inscan(SHMEM_TEAM_WORLD, ddst, dsrc, 4), 0);
  for (int i = 0; i < 4; ++i) CHECK(ddst[i] == 0.25 * (me + 1) * (me + 2) + (me + 1) * i, "ddst[%d] = %g", i, ddst[i]);
  CHECK_EQ(shmem_sum_exscan(SHMEM_TEAM_WORLD, ddst, dsrc, 4), 0);
  for (int i = 0; i < 4; ++i) CHECK(ddst[i] == 0.25 * me * (me + 1) + me * i, "exscan ddst[%d] = %g", i, ddst[i]);
  CHECK_EQ(shmem_sum_inscan(SHMEM_TEAM_WORLD, cdst, csrc, 2), 0);
  CHECK(cdst[0] == (me + 1) * (me + 2) / 2 + 2.0 * (me + 1) * I, "cdst[0] = %g%+gi", creal(cdst[0]), cimag(cdst[0]));
  CHECK(cdst[1] == (me + 1) - (double)me * (me + 1) / 2 * I, "cdst[1] = %g%+gi", creal(cdst[1]), cimag(cdst[1]));
  CHECK_EQ(shmem_complexd_sum_exscan(SHMEM_TEAM_WORLD, cdst, csrc, 2), 0);
  CHECK(cdst[0] == me * (me + 1) / 2 + 2.0 * me * I, "exscan cdst[0] = %g%+gi", creal(cdst[0]), cimag(cdst[0]));

  /* in place: dest == source */
  for (int i = 0; i < 8; ++i) src[i] = 1;
  shmem_barrier_all();
  CHECK_EQ(shmem_long_sum_inscan(SHMEM_TEAM_WORLD, src, src, 8), 0);
  for (int i = 0; i < 8; ++i) CHECK_EQ(src[i], me + 1);
  shmem_barrier_all();
  CHECK_EQ(shmem_long_sum_exscan(SHMEM_TEAM_WORLD, src, src, 8), 0);
  for (int i = 0; i < 8; ++i) CHECK_EQ(src[i], (long)me * (me + 1) / 2);

  /* a team in reverse order: team rank r = n - 1 - me contributes r + 1 */
  shmem_team_t reversed;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, n - 1, -1, n, NULL, 0, &reversed), 0);
  const int r = shmem_team_my_pe(reversed);
  CHECK_EQ(r, n - 1 - me);
  src[0] = r + 1;
  shmem_barrier_all();
  CHECK_EQ(shmem_long_sum_inscan(reversed, dst, src, 1), 0);
  CHECK_EQ(dst[0], (long)(r + 1) * (r + 2) / 2);
  CHECK_EQ(shmem_long_sum_exscan(reversed, dst, src, 1), 0);
  CHECK_EQ(dst[0], (long)r * (r + 1) / 2);

  /* the even PEs only: others do not take part */
  shmem_team_t evens;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens), 0);
  if (me % 2 == 0) {
    src[0] = 10;
    CHECK_EQ(shmem_int_sum_inscan(evens, (int*)dst, (const int*)src, 0), 0); /* nothing */
    CHECK_EQ(shmem_long_sum_inscan(evens, dst, src, 1), 0);
    CHECK_EQ(dst[0], 10L * (me / 2 + 1));
    shmem_team_destroy(evens);
  } else {
    CHECK(evens == SHMEM_TEAM_INVALID, "odd PE %d is in the evens team", me);
  }

  /* no elements, NULL buffers */
  CHECK_EQ(shmem_double_sum_inscan(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_ulonglong_sum_exscan(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);

  shmem_team_destroy(reversed);
  shmem_barrier_all();
  shmem_free(cdst);
  shmem_free(csrc);
  shmem_free(ddst);
  shmem_free(dsrc);
  shmem_free(dst);
  shmem_free(src);
  if (me == 0) printf("scans: %d PEs ok\n", n);
  shmem_finalize();
  return 0;
}
