/* shmem_global_exit(STATUS) from the last PE while the others wait for a flag nobody sets: the
 * job must end at once and oshrun/gasketrun exit with STATUS's low 8 bits, checked by
 * global_exit_status_test.sh. */
#include <unistd.h>
#include "check.h"

int main(int argc, char** argv) {
  CHECK(argc == 2, "usage: %s STATUS", argv[0]);
  alarm(60);  /* a hang becomes SIGALRM, never the expected status */
  shmem_init();
  long* flag = shmem_calloc(1, sizeof(long));
  shmem_barrier_all();
  if (shmem_my_pe() == shmem_n_pes() - 1) shmem_global_exit(atoi(argv[1]));
  shmem_long_wait_until(flag, SHMEM_CMP_EQ, 1);
  return 0;
}
