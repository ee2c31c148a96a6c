/* shmem_init_thread with SHMEM_THREAD_MULTIPLE: two threads per PE put and add concurrently. */
#include <pthread.h>
#include "check.h"

static long* counter;
static void* work(void* arg) {
  (void)arg;
  for (int i = 0; i < 100; ++i) shmem_long_atomic_add(counter, 1, 0);
  return NULL;
}

int main(void) {
  int provided = -1;
  CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread");
  CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
  int n = shmem_n_pes();
  counter = shmem_calloc(1, sizeof(long));
  shmem_barrier_all();
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, work, NULL);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  shmem_barrier_all();
  CHECK_EQ(shmem_long_g(counter, 0), 200L * n);
  if (shmem_my_pe() == 0) printf("thread_init: ok on %d PEs\n", n);
  shmem_finalize();
  return 0;
}
