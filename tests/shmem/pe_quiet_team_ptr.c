/* OpenSHMEM 1.6 shmem_pe_quiet / shmem_ctx_pe_quiet, shmem_query_initialized and shmem_team_ptr. */
#include <stdint.h>
#include <string.h>

#include "check.h"

enum { kWords = 8192 }; /* 64 KiB: beyond the backends' eager sizes */

int main(void) {
  int initialized = -1;
  CHECK(shmem_query_initialized(&initialized) == 0 && initialized == 0, "before shmem_init: %d", initialized);
  shmem_init();
  CHECK(shmem_query_initialized(&initialized) == 0 && initialized == 1, "after shmem_init: %d", initialized);
  const int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  long* data = shmem_calloc(kWords, sizeof(long));
  uint64_t* flag = shmem_calloc(1, sizeof(uint64_t));
  long* src = malloc(kWords * sizeof(long));
  CHECK(data != NULL && flag != NULL && src != NULL, "allocation failed");

  /* Non-blocking puts to the right neighbour completed by shmem_pe_quiet on that PE alone, then
   * a flag: the neighbour reads the data once the flag arrives. */
  for (uint64_t round = 1; round <= 10; ++round) {
    for (int i = 0; i < kWords; ++i) src[i] = (long)(me * 1000003L + round * 10007 + i);
    shmem_long_put_nbi(data, src, kWords, right);
    if (round % 2) shmem_pe_quiet(&right, 1);
    else shmem_ctx_pe_quiet(SHMEM_CTX_DEFAULT, &right, 1);
    shmem_uint64_atomic_set(flag, round, right);
    shmem_uint64_wait_until(flag, SHMEM_CMP_EQ, round);
    for (int i = 0; i < kWords; ++i) {
      CHECK(data[i] == (long)(left * 1000003L + round * 10007 + i), "round %llu word %d: %ld", (unsigned long long)round, i, data[i]);
    }
    shmem_barrier_all();
  }
  shmem_pe_quiet(NULL, 0); /* nothing to complete */

  /* A team context: PEs numbered in the team of even PEs. */
  shmem_team_t evens = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (n + 1) / 2, NULL, 0, &evens), 0);
  if (evens != SHMEM_TEAM_INVALID) {
    const int tme = shmem_team_my_pe(evens), tn = shmem_team_n_pes(evens);
    const int tright = (tme + 1) % tn, tleft = (tme + tn - 1) % tn;
    shmem_ctx_t ctx;
    CHECK_EQ(shmem_team_create_ctx(evens, 0, &ctx), 0);
    for (int i = 0; i < kWords; ++i) src[i] = (long)(tme * 31 + i);
    shmem_ctx_long_put_nbi(ctx, data, src, kWords, tright);
    const int both[2] = {tright, tleft};
    shmem_ctx_pe_quiet(ctx, both, 2);
    shmem_ctx_uint64_atomic_set(ctx, flag, 100, tright);
    shmem_uint64_wait_until(flag, SHMEM_CMP_EQ, 100);
    for (int i = 0; i < kWords; ++i) CHECK_EQ(data[i], (long)(tleft * 31 + i));
    shmem_ctx_destroy(ctx);
    shmem_team_sync(evens);

    /* shmem_team_ptr names the team's PE; it agrees with shmem_ptr on the world PE. */
    for (int p = 0; p < tn; ++p) {
      void* via_team = shmem_team_ptr(evens, data, p);
      CHECK(via_team == shmem_ptr(data, 2 * p), "team PE %d: %p != shmem_ptr %p", p, via_team, shmem_ptr(data, 2 * p));
    }
    CHECK(shmem_team_ptr(evens, data, tn) == NULL, "team PE %d is out of range", tn);
    shmem_team_destroy(evens);
  }
  shmem_barrier_all();

  /* On the world team: a non-NULL pointer reaches the PE's copy by loads and stores. */
  CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, data, me) == data, "own PE must be reachable");
  CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, data, -1) == NULL, "PE -1");
  CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, data, n) == NULL, "PE n");
  CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, data, 0) == NULL, "SHMEM_TEAM_INVALID");
  long* peer = shmem_team_ptr(SHMEM_TEAM_WORLD, data, right);
  CHECK(peer == shmem_ptr(data, right), "world team PE %d: %p != shmem_ptr %p", right, (void*)peer, shmem_ptr(data, right));
  shmem_barrier_all();
  if (peer != NULL) peer[1] = 4242 + me;
  shmem_barrier_all();
  if (shmem_ptr(data, left) != NULL) CHECK_EQ(data[1], 4242 + left);

  free(src);
  shmem_free(flag);
  shmem_free(data);
  if (me == 0) printf("pe_quiet_team_ptr: %d PEs ok\n", n);
  shmem_finalize();
  CHECK(shmem_query_initialized(&initialized) == 0 && initialized == 0, "after shmem_finalize: %d", initialized);
  return 0;
}
