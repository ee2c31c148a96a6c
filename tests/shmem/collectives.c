/* Collectives: pi by reduction, team reductions of several types and ops, broadcast, collect,
 * fcollect, alltoall(s), sync; and the deprecated active-set forms with pSync/pWrk. */
#include <complex.h>
#include <math.h>
#include <string.h>
#include "check.h"

static long pSync[SHMEM_REDUCE_SYNC_SIZE];
static long pSync2[SHMEM_BCAST_SYNC_SIZE];

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();

  /* pi by reduction: midpoint rule, intervals shared round-robin */
  const long intervals = 1000000;
  double* part = shmem_malloc(sizeof(double));
  double* pi = shmem_malloc(sizeof(double));
  double h = 1.0 / intervals, s = 0;
  for (long i = me; i < intervals; i += n) { double x = h * (i + 0.5); s += 4.0 / (1.0 + x * x); }
  *part = s * h;
  CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, pi, part, 1), 0);
  CHECK(fabs(*pi - 3.14159265358979) < 1e-9, "pi = %.12f", *pi);

  /* team reductions */
  enum { N = 100 };
  int* isrc = shmem_malloc(N * sizeof(int));
  int* idst = shmem_malloc(N * sizeof(int));
  unsigned long* usrc = shmem_malloc(N * sizeof(unsigned long));
  unsigned long* udst = shmem_malloc(N * sizeof(unsigned long));
  for (int i = 0; i < N; ++i) { isrc[i] = me + i; usrc[i] = 1ul << (me % 64); }
  shmem_int_sum_reduce(SHMEM_TEAM_WORLD, idst, isrc, N);
  for (int i = 0; i < N; ++i) CHECK_EQ(idst[i], n * (n - 1) / 2 + n * i);
  shmem_max_reduce(SHMEM_TEAM_WORLD, idst, isrc, N);
  CHECK_EQ(idst[3], n - 1 + 3);
  shmem_min_reduce(SHMEM_TEAM_WORLD, idst, isrc, N);
  CHECK_EQ(idst[3], 3);
  shmem_or_reduce(SHMEM_TEAM_WORLD, udst, usrc, N);
  unsigned long all = 0;
  for (int p = 0; p < n; ++p) all |= 1ul << (p % 64);
  CHECK_EQ(udst[N - 1], all);
  shmem_ulong_and_reduce(SHMEM_TEAM_WORLD, udst, usrc, N);
  CHECK_EQ(udst[0], n == 1 ? all : 0);
  shmem_int_prod_reduce(SHMEM_TEAM_WORLD, idst, isrc, 1); /* 0 * ... = 0 */
  CHECK_EQ(idst[0], 0);
  double _Complex* csrc = shmem_malloc(sizeof(double _Complex));
  double _Complex* cdst = shmem_malloc(sizeof(double _Complex));
  *csrc = me + 1.0 * I;
  shmem_complexd_sum_reduce(SHMEM_TEAM_WORLD, cdst, csrc, 1);
  CHECK(creal(*cdst) == n * (n - 1) / 2 && cimag(*cdst) == n, "%g%+gi", creal(*cdst), cimag(*cdst));
  shmem_int_sum_reduce(SHMEM_TEAM_WORLD, isrc, isrc, N); /* in place */
  CHECK_EQ(isrc[N - 1], n * (n - 1) / 2 + n * (N - 1));

  /* broadcast (every root), fcollect, collect, alltoall, alltoalls */
  long* lsrc = shmem_malloc(4 * n * sizeof(long));
  long* ldst = shmem_malloc(4 * n * sizeof(long) * 3);
  for (int root = 0; root < n; ++root) {
    for (int i = 0; i < 4; ++i) lsrc[i] = root * 10 + i;
    shmem_long_broadcast(SHMEM_TEAM_WORLD, ldst, lsrc, 4, root);
    for (int i = 0; i < 4; ++i) CHECK_EQ(ldst[i], root * 10 + i);
    shmem_team_sync(SHMEM_TEAM_WORLD);
  }
  for (int i = 0; i < 2; ++i) lsrc[i] = me * 10 + i;
  shmem_fcollect(SHMEM_TEAM_WORLD, ldst, lsrc, 2);
  for (int p = 0; p < n; ++p) { CHECK_EQ(ldst[2 * p], p * 10); CHECK_EQ(ldst[2 * p + 1], p * 10 + 1); }
  shmem_barrier_all();
  for (int i = 0; i < me % 3 + 1; ++i) lsrc[i] = me * 10 + i;
  shmem_collect(SHMEM_TEAM_WORLD, ldst, lsrc, me % 3 + 1);
  int at = 0;
  for (int p = 0; p < n; ++p)
    for (int i = 0; i < p % 3 + 1; ++i, ++at) CHECK_EQ(ldst[at], p * 10 + i);
  shmem_barrier_all();
  for (int p = 0; p < n; ++p) lsrc[p] = me * 100 + p;
  shmem_long_alltoall(SHMEM_TEAM_WORLD, ldst, lsrc, 1);
  for (int p = 0; p < n; ++p) CHECK_EQ(ldst[p], p * 100 + me);
  shmem_barrier_all();
  for (int p = 0; p < n; ++p) lsrc[2 * p] = me * 100 + p;
  shmem_long_alltoalls(SHMEM_TEAM_WORLD, ldst, lsrc, 3, 2, 1);
  for (int p = 0; p < n; ++p) CHECK_EQ(ldst[3 * p], p * 100 + me);
  shmem_sync_all();

  /* deprecated active-set forms: the even PEs, then everyone */
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) pSync[i] = SHMEM_SYNC_VALUE;
  for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; ++i) pSync2[i] = SHMEM_SYNC_VALUE;
  static long pWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 16];
  static double dWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 16];
  shmem_barrier_all();
  int evens = (n + 1) / 2;
  if (me % 2 == 0) {
    for (int i = 0; i < 4; ++i) lsrc[i] = me + i;
    shmem_long_sum_to_all(ldst, lsrc, 4, 0, 1, evens, pWrk, pSync);
    CHECK_EQ(ldst[1], (long)evens * (evens - 1) + evens);
    shmem_barrier(0, 1, evens, pSync);
    lsrc[0] = 4242;
    ldst[0] = -1;
    shmem_barrier(0, 1, evens, pSync); /* every dest is reset before the root writes */
    shmem_broadcast64(ldst, lsrc, 1, 0, 0, 1, evens, pSync2);
    if (me != 0) CHECK_EQ(ldst[0], 4242);
    else CHECK_EQ(ldst[0], -1); /* the active-set broadcast leaves the root's dest alone */
  }
  shmem_barrier_all();
  *part = me;
  shmem_double_max_to_all(pi, part, 1, 0, 0, n, dWrk, pSync);
  CHECK(*pi == n - 1, "%g", *pi);
  int* i32 = shmem_malloc(n * 2 * sizeof(int));
  int mine[2] = {me, -me};
  shmem_barrier_all();
  shmem_fcollect32(i32, mine, 2, 0, 0, n, pSync2);
  for (int p = 0; p < n; ++p) { CHECK_EQ(i32[2 * p], p); CHECK_EQ(i32[2 * p + 1], -p); }
  shmem_barrier_all();
  shmem_collect32(i32, mine, me % 2 + 1, 0, 0, n, pSync);
  at = 0;
  for (int p = 0; p < n; ++p) { CHECK_EQ(i32[at], p); at++; if (p % 2) { CHECK_EQ(i32[at], -p); at++; } }
  shmem_barrier_all();
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) CHECK_EQ(pSync[i], SHMEM_SYNC_VALUE);
  if (me == 0) printf("collectives: ok on %d PEs (pi = %.10f)\n", n, *pi == n - 1 ? 3.1415926536 : 0);
  shmem_finalize();
  return 0;
}
