/* Regression test for the pSync barrier leaving word 0 of its pSync at 1 (seen in
 * world_collectives_cells): after shmem_barrier / shmem_sync on a user pSync return and
 * a barrier_all (which uses no user pSync) separates them from the next call, every word of the
 * pSync must be back at SHMEM_SYNC_VALUE on every PE, round after round. */
#include <shmem.h>

#include "check.h"

#define ROUNDS 2000

static long bsync[SHMEM_BARRIER_SYNC_SIZE];

static void check_bsync(int me, int r, const char* after) {
  for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i)
    CHECK(bsync[i] == SHMEM_SYNC_VALUE, "PE %d round %d: bsync[%d] = %ld after %s", me, r, i, bsync[i], after);
}

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) bsync[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all();
  for (int r = 0; r < ROUNDS; ++r) {
    if (r % 2 == 0) shmem_barrier(0, 0, n, bsync);
    else shmem_sync(0, 0, n, bsync);
    shmem_barrier_all(); /* every PE's call on bsync has returned */
    check_bsync(me, r, r % 2 == 0 ? "shmem_barrier" : "shmem_sync");
    shmem_barrier_all(); /* nobody starts round r+1 before every PE has checked */
  }
  if (me == 0) printf("psync_restored_after_barrier: %d PEs, %d rounds\n", n, ROUNDS);
  shmem_finalize();
  return 0;
}
