/* What OpenSHMEM 1.6's deprecation table still requires of every implementation, from a program
 * written for SGI SHMEM: the header directory mpp (<mpp/shmem.h>, <mpp/shmemx.h>), shmemx.h, and
 * the cache-management routines (shmem_clear_cache_inv, shmem_set_cache_inv,
 * shmem_clear_cache_line_inv, shmem_set_cache_line_inv, shmem_udcflush, shmem_udcflush_line).
 * The program must compile and link against them; the cache routines have no effect on a
 * coherent machine, so puts and gets around them keep their values. */
#include <mpp/shmem.h>
#include <mpp/shmemx.h>
#include <shmemx.h>

#include "check.h"

#define N 64

static long ring[N];
static long before_flush[N];

int main(void) {
  int me, npes, left, right;
  init_ring(&me, &npes, &left, &right);

  long mine[N];
  for (int i = 0; i < N; i++) mine[i] = 1000L * me + i;

  shmem_set_cache_inv();
  shmem_set_cache_line_inv(&ring[0]);
  shmem_long_put(ring, mine, N, right);
  shmem_barrier_all();
  shmem_udcflush_line(&ring[N / 2]);
  shmem_udcflush();
  for (int i = 0; i < N; i++) CHECK_EQ(ring[i], 1000L * left + i);

  /* a get after the invalidation calls reads the right neighbour's values */
  shmem_clear_cache_line_inv(&before_flush[0]);
  shmem_clear_cache_inv();
  shmem_long_get(before_flush, ring, N, right);
  for (int i = 0; i < N; i++) CHECK_EQ(before_flush[i], 1000L * me + i);

  /* the deprecated constants of the same table are the current ones */
  CHECK_EQ(_SHMEM_MAJOR_VERSION, SHMEM_MAJOR_VERSION);
  CHECK_EQ(_SHMEM_MINOR_VERSION, SHMEM_MINOR_VERSION);
  CHECK_EQ(_SHMEM_CMP_EQ, SHMEM_CMP_EQ);
  CHECK_EQ(_SHMEM_CMP_GE, SHMEM_CMP_GE);
  CHECK_EQ(_SHMEM_MAX_NAME_LEN, SHMEM_MAX_NAME_LEN);

  shmem_finalize();
  return 0;
}
