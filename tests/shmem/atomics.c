/* Atomics: standard, extended and bitwise, generic and named, fetching nbi forms, ctx forms and the
 * deprecated names. Every PE hammers PE 0's counters; the totals are checked. */
#include "check.h"

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  long* counter = shmem_calloc(1, sizeof(long));
  unsigned int* bits = shmem_calloc(1, sizeof(unsigned int));
  uint64_t* u64 = shmem_calloc(1, sizeof(uint64_t));
  int* dep = shmem_calloc(1, sizeof(int));
  double* dval = shmem_calloc(1, sizeof(double));
  long long* owner = shmem_calloc(1, sizeof(long long));
  shmem_barrier_all();

  enum { ROUNDS = 200 };
  long seen_max = -1;
  for (int i = 0; i < ROUNDS; ++i) {
    long old = shmem_atomic_fetch_add(counter, 2L, 0);
    CHECK(old >= 0 && old < 2L * ROUNDS * n + n, "old %ld", old); /* others may hold an inc */
    if (old > seen_max) seen_max = old;
    shmem_atomic_inc(counter, 0);
    shmem_long_atomic_add(counter, -1, 0);
    shmem_uint64_atomic_fetch_inc(u64, 0);
    shmem_int_fadd(dep, 1, 0);  /* deprecated names */
    shmem_int_finc(dep, 0);
  }
  shmem_atomic_or(bits, 1u << me % 32, 0);
  shmem_barrier_all();
  CHECK_EQ(shmem_atomic_fetch(counter, 0), 2L * ROUNDS * n);
  CHECK_EQ(shmem_uint64_atomic_fetch(u64, 0), (uint64_t)ROUNDS * n);
  CHECK_EQ(shmem_int_fetch(dep, 0), 2 * ROUNDS * n);
  unsigned expect_bits = 0;
  for (int p = 0; p < n; ++p) expect_bits |= 1u << p % 32;
  CHECK_EQ(shmem_uint_atomic_fetch(bits, 0), expect_bits);
  shmem_barrier_all();

  /* compare-swap: exactly one PE wins ownership */
  long long prev = shmem_atomic_compare_swap(owner, 0LL, (long long)me + 1, 0);
  shmem_barrier_all();
  long long winner = shmem_atomic_fetch(owner, 0);
  CHECK(winner >= 1 && winner <= n, "winner %lld", winner);
  CHECK((prev == 0) == (winner == me + 1), "prev %lld winner %lld", prev, winner);
  int won = prev == 0, wins = 0;
  int* win_count = shmem_calloc(1, sizeof(int));
  shmem_barrier_all();
  if (won) shmem_int_atomic_inc(win_count, 0);
  shmem_barrier_all();
  wins = shmem_int_g(win_count, 0);
  CHECK_EQ(wins, 1);
  CHECK_EQ(shmem_long_cswap((long*)counter, -5, 7, 0) != -5, 1); /* fails: value is not -5 */

  /* swap, set and fetch on the right neighbour; float and double extended AMOs */
  int right = (me + 1) % n;
  shmem_barrier_all();
  shmem_atomic_set(dval, 1.5 * me, right);
  shmem_barrier_all();
  CHECK(*dval == 1.5 * ((me + n - 1) % n), "%g", *dval);
  shmem_barrier_all(); /* every PE has checked before the swaps overwrite */
  double old_d = shmem_atomic_swap(dval, -2.0, right);
  CHECK(old_d == 1.5 * me, "%g", old_d);
  shmem_barrier_all();
  CHECK(*dval == -2.0, "%g", *dval);

  /* bitwise fetch forms and nbi fetching forms */
  shmem_barrier_all();
  if (me == 0) *bits = 0xff;
  shmem_barrier_all();
  if (me == n - 1) {
    unsigned int f = shmem_atomic_fetch_and(bits, 0x0fu, 0);
    CHECK_EQ(f, 0xff);
    f = shmem_atomic_fetch_xor(bits, 0x3u, 0);
    CHECK_EQ(f, 0x0f);
    unsigned int got = 0;
    shmem_uint_atomic_fetch_or_nbi(&got, bits, 0x100u, 0);
    shmem_quiet();
    CHECK_EQ(got, 0x0c);
    long fetched = 0;
    shmem_long_atomic_fetch_add_nbi(&fetched, counter, 1, 0);
    shmem_quiet();
    CHECK_EQ(fetched, 2L * ROUNDS * n);
    long long sw = 0;
    shmem_longlong_atomic_swap_nbi(&sw, owner, 99, 0);
    shmem_quiet();
    CHECK_EQ(sw, winner);
  }
  shmem_barrier_all();
  CHECK_EQ(shmem_uint_atomic_fetch(bits, 0), 0x10c);

  /* fetching nbi atomics in flight together, completed by one quiet (a native backend atomic
   * completes there): 4-byte results land in adjacent words without touching their neighbours */
  int32_t* nbi32 = shmem_calloc(1, sizeof(int32_t));
  uint64_t* nbi64 = shmem_calloc(1, sizeof(uint64_t));
  shmem_barrier_all();
  int32_t f32[4] = {-1, -1, -1, 42};
  uint64_t f64[3] = {9, 9, 9};
  shmem_int32_atomic_fetch_add_nbi(&f32[0], nbi32, 5, right);
  shmem_fence(); /* ordered: every op below acts on the previous one's result */
  shmem_int32_atomic_compare_swap_nbi(&f32[1], nbi32, 5, 7, right);
  shmem_fence();
  shmem_ctx_int32_atomic_swap_nbi(SHMEM_CTX_DEFAULT, &f32[2], nbi32, -3, right);
  shmem_uint64_atomic_fetch_inc_nbi(&f64[0], nbi64, right);
  shmem_fence();
  shmem_uint64_atomic_fetch_or_nbi(&f64[1], nbi64, (uint64_t)1 << 40, right);
  shmem_fence();
  shmem_uint64_atomic_fetch_nbi(&f64[2], nbi64, right);
  shmem_quiet();
  CHECK_EQ(f32[0], 0);
  CHECK_EQ(f32[1], 5);
  CHECK_EQ(f32[2], 7);
  CHECK_EQ(f32[3], 42);
  CHECK_EQ(f64[0], 0);
  CHECK_EQ(f64[1], 1);
  CHECK(f64[2] == ((uint64_t)1 << 40 | 1), "%llx", (unsigned long long)f64[2]);
  shmem_barrier_all();
  CHECK_EQ(*nbi32, -3);
  shmem_free(nbi64);
  shmem_free(nbi32);
  /* a context of its own */
  shmem_ctx_t ctx;
  CHECK_EQ(shmem_ctx_create(0, &ctx), 0);
  shmem_ctx_long_atomic_add(ctx, counter, 1, 0);
  shmem_ctx_quiet(ctx);
  shmem_barrier_all();
  CHECK_EQ(shmem_ctx_long_atomic_fetch(ctx, counter, 0), 2L * ROUNDS * n + 1 + n);
  shmem_ctx_destroy(ctx);
  shmem_barrier_all();
  if (me == 0) printf("atomics: ok on %d PEs\n", n);
  shmem_finalize();
  return 0;
}
