/* The symmetric heap's size from the environment as OpenSHMEM 1.6 words it: SHMEM_SYMMETRIC_SIZE
 * is "a positive decimal value (integer or floating point) with an optional character suffix",
 * the heap at least the integer ceiling of the product, and the deprecated SMA_SYMMETRIC_SIZE is
 * still supported. The jobs set 16.5m (17301504 bytes): 8 MiB fits and is usable on every PE,
 * 17 MiB more than the whole heap does not (NULL on every PE). A fractional size used to end
 * every PE at init with "bad size". */
#include <stdint.h>

#include "check.h"

#define MIB (1024L * 1024L)

int main(void) {
  int me, npes, left, right;
  init_ring(&me, &npes, &left, &right);

  long* block = shmem_malloc(8 * MIB);
  CHECK(block != NULL, "shmem_malloc(8 MiB) with a 16.5m heap returned NULL");
  const long n = 8 * MIB / (long)sizeof(long);
  long* mine = malloc(8 * MIB);
  for (long i = 0; i < n; i++) mine[i] = (long)me * n + i;
  shmem_long_put(block, mine, n, right);
  shmem_barrier_all();
  for (long i = 0; i < n; i += 4099) CHECK_EQ(block[i], (long)left * n + i);
  CHECK_EQ(block[n - 1], (long)left * n + n - 1);

  void* too_big = shmem_malloc(17 * MIB);
  CHECK(too_big == NULL, "shmem_malloc(17 MiB) succeeded in a heap of 16.5m");

  free(mine);
  shmem_free(block);
  shmem_finalize();
  return 0;
}
