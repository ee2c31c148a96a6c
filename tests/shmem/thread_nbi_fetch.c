/* Fetching _nbi atomics under SHMEM_THREAD_MULTIPLE, each thread completing its own with
 * shmem_quiet while the others issue and quiet theirs: every fetched value must be in the caller's
 * buffer when its quiet returns. On ucx the atomic runs natively and its value is staged until a
 * quiet; a quiet of another thread used to take a fetch staged but not yet issued (copying the
 * unwritten staging word out, the backend then writing into freed memory) or to complete one whose
 * owner's own quiet had already returned without it (core/rma.cc). Each PE's threads add to the
 * right neighbour's counter, which only they touch: the old values must be 0..total-1, once each. */
#include <pthread.h>
#include <string.h>

#include "check.h"

#define THREADS 4
#define ITERATIONS 1000

static long* counter;
static int32_t* counter32;
static int right;
static unsigned char* seen; /* THREADS * ITERATIONS flags per counter */
static unsigned char* seen32;

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < ITERATIONS; ++i) {
    long old = -1;
    int32_t old32 = -1;
    shmem_long_atomic_fetch_add_nbi(&old, counter, 1, right);
    shmem_int32_atomic_fetch_inc_nbi(&old32, counter32, right); /* a 4-byte destination */
    shmem_quiet();
    CHECK(old >= 0 && old < THREADS * ITERATIONS, "fetched %ld", old);
    CHECK(old32 >= 0 && old32 < THREADS * ITERATIONS, "fetched %d", (int)old32);
    CHECK(__atomic_exchange_n(&seen[old], 1, __ATOMIC_RELAXED) == 0, "value %ld fetched twice", old);
    CHECK(__atomic_exchange_n(&seen32[old32], 1, __ATOMIC_RELAXED) == 0, "value %d fetched twice", (int)old32);
  }
  return NULL;
}

int main(void) {
  int provided = -1;
  shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided);
  CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
  const int me = shmem_my_pe(), n = shmem_n_pes();
  right = (me + 1) % n;
  counter = shmem_calloc(1, sizeof(long));
  counter32 = shmem_calloc(1, sizeof(int32_t));
  seen = calloc(THREADS * ITERATIONS, 1);
  seen32 = calloc(THREADS * ITERATIONS, 1);
  CHECK(counter && counter32 && seen && seen32, "allocation failed");
  shmem_barrier_all();
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; ++t) CHECK_EQ(pthread_create(&threads[t], NULL, worker, NULL), 0);
  for (int t = 0; t < THREADS; ++t) pthread_join(threads[t], NULL);
  shmem_barrier_all();
  CHECK_EQ(*counter, THREADS * ITERATIONS);
  CHECK_EQ(*counter32, THREADS * ITERATIONS);
  for (int v = 0; v < THREADS * ITERATIONS; ++v) CHECK(seen[v] && seen32[v], "value %d never fetched", v);
  free(seen32);
  free(seen);
  shmem_free(counter32);
  shmem_free(counter);
  if (me == 0) printf("thread_nbi_fetch: %d PEs ok\n", n);
  shmem_finalize();
  return 0;
}
