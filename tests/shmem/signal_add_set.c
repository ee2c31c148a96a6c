/* OpenSHMEM 1.6 shmem_signal_add / shmem_signal_set and their ctx forms, read back with
 * shmem_signal_fetch and shmem_signal_wait_until. */
#include <stdint.h>

#include "check.h"

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  uint64_t* sum = shmem_calloc(1, sizeof(uint64_t));
  uint64_t* ctx_sum = shmem_calloc(1, sizeof(uint64_t));
  uint64_t* flag = shmem_calloc(1, sizeof(uint64_t));
  long* data = shmem_calloc(64, sizeof(long));
  CHECK(sum != NULL && ctx_sum != NULL && flag != NULL && data != NULL, "shmem_calloc failed");
  shmem_ctx_t ctx;
  CHECK_EQ(shmem_ctx_create(0, &ctx), 0);

  /* Every PE adds me+1 to PE 0's sum, twice (plain and ctx forms): PE 0 waits for the total. */
  const uint64_t total = (uint64_t)n * (n + 1) / 2;
  shmem_signal_add(sum, (uint64_t)me + 1, 0);
  shmem_ctx_signal_add(ctx, ctx_sum, (uint64_t)(me + 1) << 32, 0);
  shmem_ctx_quiet(ctx);
  if (me == 0) {
    CHECK_EQ(shmem_signal_wait_until(sum, SHMEM_CMP_EQ, total), total);
    CHECK_EQ(shmem_signal_wait_until(ctx_sum, SHMEM_CMP_EQ, total << 32), total << 32);
    CHECK_EQ(shmem_signal_fetch(sum), total);
  }
  shmem_barrier_all();

  /* Set overwrites: data put, fence, then the signal; the receiver sees the data once it sees
   * the signal (fence orders the put before the set to the same PE). */
  for (uint64_t round = 1; round <= 20; ++round) {
    long src[64];
    for (int i = 0; i < 64; ++i) src[i] = (long)(me * 100000 + round * 100 + i);
    shmem_long_put(data, src, 64, right);
    shmem_fence();
    if (round % 2) shmem_signal_set(flag, round * 1000 + (uint64_t)me, right);
    else shmem_ctx_signal_set(SHMEM_CTX_DEFAULT, flag, round * 1000 + (uint64_t)me, right);
    uint64_t seen = shmem_signal_wait_until(flag, SHMEM_CMP_EQ, round * 1000 + (uint64_t)left);
    CHECK_EQ(seen, round * 1000 + (uint64_t)left);
    for (int i = 0; i < 64; ++i) CHECK_EQ(data[i], (long)(left * 100000 + round * 100 + i));
    shmem_barrier_all(); /* the left neighbour may now overwrite data and flag */
  }

  /* ctx form of set on a context, then a fetch after the barrier. */
  shmem_ctx_signal_set(ctx, flag, 7 + (uint64_t)me, right);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  CHECK_EQ(shmem_signal_fetch(flag), 7 + (uint64_t)left);

  shmem_ctx_destroy(ctx);
  shmem_free(data);
  shmem_free(flag);
  shmem_free(ctx_sum);
  shmem_free(sum);
  if (me == 0) printf("signal_add_set: %d PEs ok\n", n);
  shmem_finalize();
  return 0;
}
