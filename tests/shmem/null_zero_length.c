/* A NULL pointer with zero length is legal in every RMA, signal, collective and
 * point-to-point synchronisation call (OpenSHMEM 1.6): nothing moves, the signal of a put_signal
 * still arrives, collectives still synchronise, and data around is untouched. */
#include <stdint.h>

#include "check.h"

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
  long* guard = shmem_calloc(4, sizeof(long));
  uint64_t* sig = shmem_calloc(1, sizeof(uint64_t));
  static long psync[SHMEM_SYNC_SIZE];
  for (int i = 0; i < SHMEM_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
  shmem_ctx_t ctx;
  CHECK_EQ(shmem_ctx_create(0, &ctx), 0);
  for (int i = 0; i < 4; ++i) guard[i] = 100 + i;
  shmem_barrier_all();

  /* RMA: untyped, typed, sized, ctx, nbi, strided and blocked strided */
  shmem_putmem(NULL, NULL, 0, right);
  shmem_getmem(NULL, NULL, 0, right);
  shmem_putmem_nbi(NULL, NULL, 0, right);
  shmem_getmem_nbi(NULL, NULL, 0, right);
  shmem_ctx_putmem(ctx, NULL, NULL, 0, right);
  shmem_ctx_getmem_nbi(ctx, NULL, NULL, 0, right);
  shmem_long_put(NULL, NULL, 0, right);
  shmem_double_get(NULL, NULL, 0, right);
  shmem_int_put_nbi(NULL, NULL, 0, right);
  shmem_ctx_short_get_nbi(ctx, NULL, NULL, 0, right);
  shmem_put32(NULL, NULL, 0, right);
  shmem_get64(NULL, NULL, 0, right);
  shmem_put128_nbi(NULL, NULL, 0, right);
  shmem_long_iput(NULL, NULL, 1, 1, 0, right);
  shmem_long_iget(NULL, NULL, 2, 3, 0, right);
  shmem_iput64(NULL, NULL, 1, 1, 0, right);
  shmem_long_ibput(NULL, NULL, 4, 4, 2, 0, right);
  shmem_long_ibget(NULL, NULL, 4, 4, 0, 3, right);
  shmem_ibget32(NULL, NULL, 4, 4, 2, 0, right);
  /* put_signal of nothing: the signal alone arrives */
  shmem_putmem_signal(NULL, NULL, 0, sig, 1, SHMEM_SIGNAL_ADD, right);
  shmem_long_put_signal_nbi(NULL, NULL, 0, sig, 1, SHMEM_SIGNAL_ADD, right);
  shmem_ctx_put64_signal(ctx, NULL, NULL, 0, sig, 1, SHMEM_SIGNAL_ADD, right);
  shmem_ctx_quiet(ctx);
  shmem_quiet();
  CHECK_EQ(shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 3), 3);
  shmem_pe_quiet(NULL, 0);

  /* team collectives: nothing moves, the members still synchronise */
  CHECK_EQ(shmem_broadcastmem(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0), 0);
  CHECK_EQ(shmem_long_broadcast(SHMEM_TEAM_WORLD, NULL, NULL, 0, n - 1), 0);
  CHECK_EQ(shmem_collectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_int_collect(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_fcollectmem(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_double_fcollect(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_alltoallmem(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_long_alltoall(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_alltoallsmem(SHMEM_TEAM_WORLD, NULL, NULL, 1, 1, 0), 0);
  CHECK_EQ(shmem_int_alltoalls(SHMEM_TEAM_WORLD, NULL, NULL, 2, 2, 0), 0);
  CHECK_EQ(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_double_max_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_uint_xor_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
  CHECK_EQ(shmem_complexd_prod_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0), 0);
  /* deprecated active-set forms */
  shmem_broadcast64(NULL, NULL, 0, 0, 0, 0, n, psync);
  shmem_barrier(0, 0, n, psync);
  shmem_collect32(NULL, NULL, 0, 0, 0, n, psync);
  shmem_barrier(0, 0, n, psync);
  shmem_fcollect64(NULL, NULL, 0, 0, 0, n, psync);
  shmem_barrier(0, 0, n, psync);
  shmem_alltoall32(NULL, NULL, 0, 0, 0, n, psync);
  shmem_barrier(0, 0, n, psync);
  shmem_alltoalls64(NULL, NULL, 1, 1, 0, 0, 0, n, psync);
  shmem_barrier(0, 0, n, psync);
  static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
  shmem_long_sum_to_all(NULL, NULL, 0, 0, 0, n, pwrk, psync);
  shmem_barrier(0, 0, n, psync);

  /* point-to-point synchronisation over no ivars */
  shmem_long_wait_until_all(NULL, 0, NULL, SHMEM_CMP_EQ, 1);
  CHECK_EQ(shmem_long_wait_until_any(NULL, 0, NULL, SHMEM_CMP_EQ, 1), SIZE_MAX);
  CHECK_EQ(shmem_long_wait_until_some(NULL, 0, NULL, NULL, SHMEM_CMP_EQ, 1), 0);
  shmem_long_wait_until_all_vector(NULL, 0, NULL, SHMEM_CMP_EQ, NULL);
  CHECK_EQ(shmem_long_test_all(NULL, 0, NULL, SHMEM_CMP_EQ, 1), 1);
  CHECK_EQ(shmem_long_test_any(NULL, 0, NULL, SHMEM_CMP_EQ, 1), SIZE_MAX);
  CHECK_EQ(shmem_long_test_some_vector(NULL, 0, NULL, NULL, SHMEM_CMP_EQ, NULL), 0);

  shmem_barrier_all();
  for (int i = 0; i < 4; ++i) CHECK_EQ(guard[i], 100 + i);
  CHECK_EQ(*sig, 3);
  shmem_ctx_destroy(ctx);
  shmem_free(sig);
  shmem_free(guard);
  if (me == 0) printf("null_zero_length: %d PEs ok\n", n);
  shmem_finalize();
  return 0;
}
