/* Regression (the ucx race of thread_init): atomics that every PE adds to PE 0 must all
 * be visible there once the adders have called shmem_quiet and passed shmem_barrier_all. On
 * ucx-shm at 4 PEs (oversubscribed) UCX's worker flush returned while some of one PE's
 * software-emulated adds were still unexecuted at PE 0, which read e.g. 82 of a PE's 100. Each PE
 * adds to its own slot, so a failure names the PE whose adds were late; several rounds make the
 * race near certain to show where it exists. */
#include "check.h"

enum { kRounds = 20, kAddsPerRound = 100 };

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  long* slots = shmem_calloc((size_t)n, sizeof(long));  /* slots[p] on PE 0: PE p's adds */
  CHECK(slots != NULL, "shmem_calloc of %d longs", n);
  shmem_barrier_all();
  for (int round = 1; round <= kRounds; ++round) {
    for (int i = 0; i < kAddsPerRound; ++i) shmem_long_atomic_add(&slots[me], 1, 0);
    shmem_quiet();
    shmem_barrier_all();
    if (me == 0) {
      for (int p = 0; p < n; ++p) {
        long seen = shmem_long_atomic_fetch(&slots[p], 0);
        CHECK(seen == (long)round * kAddsPerRound, "round %d: PE %d's adds: %ld of %ld visible at PE 0", round, p,
              seen, (long)round * kAddsPerRound);
      }
    }
    shmem_barrier_all();
  }
  if (me == 0) printf("quiet_completes_atomics: ok on %d PEs, %d rounds\n", n, kRounds);
  shmem_free(slots);
  shmem_finalize();
  return 0;
}
