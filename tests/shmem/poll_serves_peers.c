/* Regression: a PE that polls -- shmem_test_all/any/some and their _vector forms, a loop
 * of shmem_atomic_fetch on its own variable, shmem_test_lock on a lock it holds the word of -- must
 * keep serving the operations its peers aim at it that need its help: atomics emulated by the core
 * (pciddc: active messages run by the target) or by UCX (shm/tcp: run in the target's worker
 * progress). Each round PE 0 polls with one entry point while every other PE does a fetching atomic
 * on PE 0 (it returns only once PE 0 served it), then sets its flag at PE 0 with an atomic set.
 * Before the fix PE 0 polled forever and its peers waited for it; an alarm now ends a hung PE with
 * a message naming the polling call. */
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "check.h"

enum { kTestAll, kTestAny, kTestSome, kTestAllVector, kTestAnyVector, kTestSomeVector, kFetchSelf, kTestLock, kModes };
static const char* const kModeNames[kModes] = {
    "shmem_long_test_all",        "shmem_long_test_any",        "shmem_long_test_some",
    "shmem_long_test_all_vector", "shmem_long_test_any_vector", "shmem_long_test_some_vector",
    "shmem_long_atomic_fetch on PE 0 itself", "shmem_test_lock"};
enum { kHangSeconds = 60 };

static const char* volatile polling = "setup";
static void on_alarm(int sig) {
  (void)sig;
  static const char head[] = "poll_serves_peers: hung for 60 s in ";
  (void)!write(2, head, sizeof head - 1);
  (void)!write(2, polling, strlen(polling));
  (void)!write(2, "\n", 1);
  _exit(3);
}

static long lock;  /* symmetric (static data); its word lives on PE 0 */

/* PE 0: polls with `mode` until every other PE's flag holds `round`. */
static void poll_flags(int mode, long* flags, int n, long round) {
  int status[64];
  long values[64];
  size_t indices[64];
  for (int p = 0; p < n; ++p) {
    status[p] = p == 0;  /* PE 0 sets no flag of its own */
    values[p] = round;
  }
  size_t left = (size_t)n - 1;
  switch (mode) {
    case kTestAll:
      while (!shmem_long_test_all(flags, (size_t)n, status, SHMEM_CMP_EQ, round)) {}
      break;
    case kTestAllVector:
      while (!shmem_long_test_all_vector(flags, (size_t)n, status, SHMEM_CMP_EQ, values)) {}
      break;
    case kTestAny:
    case kTestAnyVector:
      while (left > 0) {
        size_t i = mode == kTestAny ? shmem_long_test_any(flags, (size_t)n, status, SHMEM_CMP_EQ, round)
                                    : shmem_long_test_any_vector(flags, (size_t)n, status, SHMEM_CMP_EQ, values);
        if (i == SIZE_MAX) continue;
        CHECK(i > 0 && i < (size_t)n && status[i] == 0, "%s returned index %zu", kModeNames[mode], i);
        status[i] = 1;
        --left;
      }
      break;
    case kTestSome:
    case kTestSomeVector:
      while (left > 0) {
        size_t k = mode == kTestSome ? shmem_long_test_some(flags, (size_t)n, indices, status, SHMEM_CMP_EQ, round)
                                     : shmem_long_test_some_vector(flags, (size_t)n, indices, status, SHMEM_CMP_EQ, values);
        for (size_t j = 0; j < k; ++j) status[indices[j]] = 1;
        left -= k;
      }
      break;
    case kFetchSelf:
      for (int p = 1; p < n; ++p) {
        while (shmem_long_atomic_fetch(&flags[p], 0) != round) {}
      }
      break;
    case kTestLock:
      /* PE 1 holds the lock and releases it only after its atomics on PE 0 are served. */
      while (shmem_test_lock(&lock) != 0) {}
      shmem_clear_lock(&lock);
      shmem_long_wait_until_all(flags, (size_t)n, status, SHMEM_CMP_EQ, round);
      break;
  }
  for (int p = 1; p < n; ++p) CHECK_EQ(flags[p], round);
}

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK(n <= 64, "at most 64 PEs (%d)", n);
  long* flags = shmem_calloc((size_t)n, sizeof(long));  /* flags[p] on PE 0: PE p's round */
  long* arrivals = shmem_calloc(1, sizeof(long));       /* on PE 0: the peers' fetching atomics */
  CHECK(flags != NULL && arrivals != NULL, "shmem_calloc");
  signal(SIGALRM, on_alarm);
  alarm(kHangSeconds);
  for (int mode = 0; mode < kModes; ++mode) {
    long round = mode + 1;
    polling = kModeNames[mode];
    if (mode == kTestLock && me == 1) shmem_set_lock(&lock);
    shmem_barrier_all();
    if (me == 0) {
      poll_flags(mode, flags, n, round);
    } else {
      shmem_long_atomic_fetch_inc(arrivals, 0);
      shmem_long_atomic_set(&flags[me], round, 0);
      if (mode == kTestLock && me == 1) shmem_clear_lock(&lock);
    }
    shmem_barrier_all();
    if (me == 0) CHECK(*arrivals == round * (n - 1), "after %s: %ld fetching atomics served, expected %ld",
                       kModeNames[mode], *arrivals, round * (n - 1));
  }
  alarm(0);
  if (me == 0) printf("poll_serves_peers: ok on %d PEs, %d polling calls\n", n, (int)kModes);
  shmem_free(arrivals);
  shmem_free(flags);
  shmem_finalize();
  return 0;
}
