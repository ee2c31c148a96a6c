/* Resident memory around a large symmetric block: after shmem_init, after a
 * 200 MiB shmem_malloc, after writing all of it, after shmem_free, and after a 200 MiB
 * shmem_calloc. With a sparse heap the allocation costs nothing until written, and the free gives
 * the pages back. Plain OpenSHMEM: builds unchanged with any oshcc. */
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#include "bench_results.h"
#include "resident.h"

#define kBlockBytes ((size_t)200 << 20)

static void report(const char* step, long kib) {
  if (shmem_my_pe() != 0) return;
  printf("%-24s %8.1f MiB\n", step, kib / 1024.0);
  bench_result("resident_around_200mib_block", step, kib / 1024.0, "MiB");
}

int main(void) {
  shmem_init();
  if (shmem_my_pe() == 0) printf("PE 0 of %d, resident memory (VmRSS)\n", shmem_n_pes());
  report("after_init", resident_kib());
  char* block = shmem_malloc(kBlockBytes);
  if (block == NULL) {
    fprintf(stderr, "PE %d: shmem_malloc(%zu) failed\n", shmem_my_pe(), kBlockBytes);
    shmem_global_exit(1);
  }
  report("after_malloc", resident_kib());
  memset(block, 1, kBlockBytes);
  report("after_writing_it", resident_kib());
  shmem_free(block);
  report("after_free", resident_kib());
  block = shmem_calloc(kBlockBytes, 1);
  report("after_calloc", resident_kib());
  shmem_free(block);
  shmem_finalize();
  return 0;
}
