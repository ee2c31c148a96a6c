/* Point-to-point synchronisation and locks: ping-pong with put_signal, the wait_until/test families
 * (all/any/some and _vector), signal_fetch, and a distributed counter under shmem_set_lock. */
#include <string.h>
#include "check.h"

static long lock; /* symmetric (data segment) when available; the heap copy below otherwise */

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();

  /* ping-pong between PE 0 and PE n-1 with put_signal */
  enum { ROUNDS = 100, LEN = 64 };
  char* buf = shmem_calloc(LEN, 1);
  uint64_t* sig = shmem_calloc(1, sizeof(uint64_t));
  int peer = me == 0 ? n - 1 : 0;
  char msg[LEN];
  shmem_barrier_all();
  if (me == 0 || me == n - 1) {
    for (uint64_t r = 1; r <= ROUNDS; ++r) {
      if ((me == 0) == (r % 2 == 1)) {
        memset(msg, (int)(r & 0x7f), LEN);
        shmem_putmem_signal(buf, msg, LEN, sig, r, SHMEM_SIGNAL_SET, peer);
      } else {
        uint64_t got = shmem_signal_wait_until(sig, SHMEM_CMP_GE, r);
        CHECK_EQ(got, r);
        CHECK_EQ(buf[LEN - 1], (char)(r & 0x7f));
        CHECK_EQ(shmem_signal_fetch(sig), r);
      }
    }
  }
  shmem_barrier_all();

  /* signal ADD: every PE adds to PE 0's counter after writing its slot */
  long* slots = shmem_calloc(n, sizeof(long));
  uint64_t* arrivals = shmem_calloc(1, sizeof(uint64_t));
  shmem_barrier_all();
  long val = 100 + me;
  shmem_long_put_signal(&slots[me], &val, 1, arrivals, 1, SHMEM_SIGNAL_ADD, 0);
  if (me == 0) {
    shmem_signal_wait_until(arrivals, SHMEM_CMP_EQ, (uint64_t)n);
    for (int p = 0; p < n; ++p) CHECK_EQ(slots[p], 100 + p);
  }
  shmem_barrier_all();

  /* wait_until families on an array of flags that the others set */
  int* flags = shmem_calloc(n, sizeof(int));
  shmem_barrier_all();
  CHECK_EQ(shmem_int_test(&flags[0], SHMEM_CMP_NE, 0), 0);
  CHECK_EQ(shmem_test_any(flags, n, NULL, SHMEM_CMP_NE, 0), SIZE_MAX);
  size_t idx[64];
  CHECK_EQ(shmem_test_some(flags, n, idx, NULL, SHMEM_CMP_NE, 0), 0);
  shmem_barrier_all();
  shmem_int_atomic_set(&flags[me], me + 1, (me + 1) % n);
  size_t any = shmem_wait_until_any(flags, n, NULL, SHMEM_CMP_NE, 0);
  CHECK_EQ(any, (size_t)((me + n - 1) % n));
  shmem_barrier_all();
  for (int p = 0; p < n; ++p) shmem_int_atomic_set(&flags[me], 7, p);
  shmem_wait_until_all(flags, n, NULL, SHMEM_CMP_EQ, 7);
  int status[64] = {0};
  status[0] = 1; /* excluded */
  size_t some = shmem_int_wait_until_some(flags, n, idx, status, SHMEM_CMP_EQ, 7);
  CHECK_EQ(some, (size_t)n - 1);
  CHECK_EQ(idx[0], 1);
  int want[64];
  for (int p = 0; p < n; ++p) want[p] = 7;
  shmem_int_wait_until_all_vector(flags, n, NULL, SHMEM_CMP_EQ, want);
  CHECK_EQ(shmem_int_test_all_vector(flags, n, NULL, SHMEM_CMP_EQ, want), 1);
  want[n - 1] = 8;
  CHECK_EQ(shmem_int_test_all_vector(flags, n, NULL, SHMEM_CMP_EQ, want), 0);
  /* any satisfied index (the _any routines rotate through them: tests/shmem:test_any_fair) */
  size_t ge = shmem_int_test_any_vector(flags, n, NULL, SHMEM_CMP_GE, want);
  CHECK(ge < (size_t)n - 1, "test_any_vector returned %zu", ge);
  CHECK_EQ(shmem_int_test_some_vector(flags, n, idx, NULL, SHMEM_CMP_LT, want), 1);
  CHECK_EQ(idx[0], (size_t)n - 1);
  CHECK_EQ(shmem_int_wait_until_any_vector(flags, n, NULL, SHMEM_CMP_LT, want), (size_t)n - 1);
  CHECK_EQ(shmem_int_wait_until_some_vector(flags, n, idx, NULL, SHMEM_CMP_LT, want), 1);
  CHECK_EQ(shmem_test_all(flags, n, status, SHMEM_CMP_GT, 6), 1);
  shmem_barrier_all();

  /* distributed lock counter: increments of a plain (non-atomic) counter under the lock */
  long* hlock = shmem_calloc(1, sizeof(long));
  long* counter = shmem_calloc(1, sizeof(long));
  long* use_lock = shmem_addr_accessible(&lock, 0) ? &lock : hlock;
  shmem_barrier_all();
  enum { INCS = 20 };
  for (int i = 0; i < INCS; ++i) {
    shmem_set_lock(use_lock);
    long c = shmem_long_g(counter, 0);
    shmem_long_p(counter, c + 1, 0);
    shmem_clear_lock(use_lock);
  }
  shmem_barrier_all();
  CHECK_EQ(shmem_long_g(counter, 0), (long)INCS * n);
  /* test_lock: free -> taken (0), then busy (1) for the others */
  if (me == 0) {
    CHECK_EQ(shmem_test_lock(use_lock), 0);
  }
  shmem_barrier_all();
  if (me != 0) CHECK_EQ(shmem_test_lock(use_lock), 1);
  shmem_barrier_all();
  if (me == 0) shmem_clear_lock(use_lock);
  shmem_barrier_all();
  if (me == 0) printf("sync: ok on %d PEs\n", n);
  shmem_finalize();
  return 0;
}
