/* Misuse that must end the job at once with a message naming the shmem_* call. */
#include <string.h>
#include "check.h"

int main(int argc, char** argv) {
  shmem_init();
  const char* mode = argc > 1 ? argv[1] : "";
  long* a = shmem_malloc(8 * sizeof(long));
  long local[8] = {0};
  shmem_barrier_all();
  if (shmem_my_pe() == 1) {
    if (!strcmp(mode, "pe_out_of_range")) shmem_long_put(a, local, 1, shmem_n_pes());
    if (!strcmp(mode, "not_symmetric")) shmem_long_put(local, a, 1, 0);
    if (!strcmp(mode, "bad_team")) shmem_team_sync((shmem_team_t)77);
    if (!strcmp(mode, "bad_cmp")) shmem_long_wait_until(a, 42, 0);
    if (!strcmp(mode, "bad_ctx_pe")) {
      shmem_team_t t;
      shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, 1, NULL, 0, &t);
      shmem_ctx_t c;
      shmem_team_create_ctx(t, 0, &c);
      shmem_ctx_long_p(c, a, 1, 1);
    }
    if (!strcmp(mode, "global_exit")) shmem_global_exit(5);
    if (!strcmp(mode, "bad_sig_op")) shmem_putmem_signal(a, local, 8, (uint64_t*)a, 1, 9, 0);
  } else if (!strcmp(mode, "bad_ctx_pe")) {
    shmem_team_t t;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, 1, NULL, 0, &t);
  }
  shmem_barrier_all();
  shmem_finalize();
  return 0;
}
