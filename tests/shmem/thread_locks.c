/* shmem_set_lock/shmem_clear_lock from two threads per PE (SHMEM_THREAD_MULTIPLE), the mt_lock
 * pattern (it hung intermittently on ucx). Inside the lock each thread reads a
 * counter on PE 0 with shmem_long_g and writes it back incremented with shmem_long_p: a plain
 * read-modify-write that only the lock keeps exact, so the final count checks mutual exclusion as
 * well as progress. shmem_test_lock is mixed in. An alarm turns a hang into a message. */
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include "check.h"

enum { kThreads = 2, kTurns = 50, kHangSeconds = 120 };

static long lock;     /* symmetric (static data) */
static long counter;  /* on PE 0 */

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "thread_locks: hung for 120 s\n";
  (void)!write(2, msg, sizeof msg - 1);
  _exit(3);
}

static void* work(void* arg) {
  long id = (long)arg;
  for (int i = 0; i < kTurns; ++i) {
    if ((i + id) % 3 == 0) {
      while (shmem_test_lock(&lock) != 0) {}
    } else {
      shmem_set_lock(&lock);
    }
    long v = shmem_long_g(&counter, 0);
    shmem_long_p(&counter, v + 1, 0);
    shmem_clear_lock(&lock);
  }
  return NULL;
}

int main(void) {
  int provided = -1;
  signal(SIGALRM, on_alarm);
  alarm(kHangSeconds);
  CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0, "init_thread");
  CHECK_EQ(provided, SHMEM_THREAD_MULTIPLE);
  int n = shmem_n_pes();
  shmem_barrier_all();
  pthread_t t[kThreads];
  for (long i = 0; i < kThreads; ++i) pthread_create(&t[i], NULL, work, (void*)i);
  for (int i = 0; i < kThreads; ++i) pthread_join(t[i], NULL);
  shmem_barrier_all();
  CHECK_EQ(shmem_long_g(&counter, 0), (long)n * kThreads * kTurns);
  if (shmem_my_pe() == 0) printf("thread_locks: ok on %d PEs, %d threads each\n", n, kThreads);
  shmem_finalize();
  return 0;
}
