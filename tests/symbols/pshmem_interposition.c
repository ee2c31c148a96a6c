/* OpenSHMEM's profiling interface: a tool's shmem_putmem replaces the library's,
 * the tool reaches the library by pshmem_putmem, and the data still arrives. Each PE puts a
 * pattern into its right neighbour through shmem_putmem (counted by the tool) and once through
 * pshmem_putmem directly (not counted), then checks the bytes it received and the tool's counts. */
#include <pshmem.h>
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/symbols/putmem_profiler.h"

#define PUTS 5
#define WORDS 64

static long received[PUTS + 1][WORDS];

static void fail(int me, const char* what, long got, long expected) {
  fprintf(stderr, "PE %d: pshmem_interposition: %s is %ld, expected %ld\n", me, what, got, expected);
  shmem_global_exit(1);
}

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  long pattern[WORDS];
  for (int p = 0; p <= PUTS; p++) {
    for (int w = 0; w < WORDS; w++) pattern[w] = me * 100000L + p * 1000L + w;
    if (p < PUTS) {
      shmem_putmem(received[p], pattern, sizeof pattern, right);
    } else {
      pshmem_putmem(received[p], pattern, sizeof pattern, right);
    }
  }
  shmem_barrier_all();
  for (int p = 0; p <= PUTS; p++) {
    for (int w = 0; w < WORDS; w++) {
      long expected = left * 100000L + p * 1000L + w;
      if (received[p][w] != expected) fail(me, "a received word", received[p][w], expected);
    }
  }
  if (putmem_profiler_calls() != PUTS) fail(me, "the tool's count of shmem_putmem calls", putmem_profiler_calls(), PUTS);
  if (putmem_profiler_bytes() != PUTS * (long)sizeof pattern) {
    fail(me, "the tool's count of bytes", putmem_profiler_bytes(), PUTS * (long)sizeof pattern);
  }
  if (me == 0) printf("pshmem_interposition: ok on %d PEs (%d puts profiled)\n", n, PUTS);
  shmem_finalize();
  return 0;
}
