/* A PE that leaves with exit(status) without shmem_finalize. Usage:
 * exit_without_finalize STATUS -- the other PEs wait for a flag from the last PE, then finalize.
 * With a non-zero STATUS the last PE exits at once without setting the flags (an error path): the
 * job must end at once with "PE n ... exited with status STATUS" (the finalize at exit used to
 * enter a barrier the waiting peers never join, and the job hung). With 0 it sets the flags first
 * and is finalized at exit together with its peers' shmem_finalize: the job succeeds. The alarm
 * turns a hang into SIGALRM, which matches neither expectation. */
#include <unistd.h>
#include "check.h"

int main(int argc, char** argv) {
  CHECK(argc == 2, "usage: %s STATUS", argv[0]);
  int status = atoi(argv[1]);
  alarm(60);
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  long* flag = shmem_calloc(1, sizeof(long));
  shmem_barrier_all();
  if (me == n - 1) {
    if (status == 0) {
      for (int pe = 0; pe < n - 1; ++pe) shmem_long_atomic_set(flag, 1, pe);
    }
    exit(status);
  }
  shmem_long_wait_until(flag, SHMEM_CMP_EQ, 1);
  if (me == 0) printf("exit_without_finalize: PE %d exited with status %d after setting the flags\n", n - 1, status);
  shmem_finalize();
  return 0;
}
