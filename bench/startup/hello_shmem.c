/* OpenSHMEM hello world for bench/compare: start-up time of the whole job and PE 0's resident
 * memory after shmem_init. Builds unchanged with any oshcc. */
#include <shmem.h>
#include <stdio.h>

#include "bench_results.h"
#include "resident.h"

int main(void) {
  shmem_init();
  long kib = resident_kib();
  if (shmem_my_pe() == 0) {
    printf("hello from %d PEs; PE 0 resident after shmem_init: %.1f MiB\n", shmem_n_pes(), kib / 1024.0);
    bench_result("resident_after_init", "shmem", kib / 1024.0, "MiB");
  }
  shmem_barrier_all();
  shmem_finalize();
  return 0;
}
