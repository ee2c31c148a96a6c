/* Misuse that must end the job at once with a message naming the shmem_* call. Modes starting
 * with "debug_" run with SHMEM_DEBUG on (the checks it adds); the collective modes make the bad
 * call on every PE. */
#include <stdlib.h>
#include <string.h>
#include "check.h"

static long psync[SHMEM_SYNC_SIZE];
static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (!strncmp(mode, "debug_", 6)) setenv("SHMEM_DEBUG", "1", 1);
  shmem_init();
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
    if (!strcmp(mode, "bad_ctx")) shmem_ctx_long_put((shmem_ctx_t)99, a, local, 1, 0);
    if (!strcmp(mode, "ibput_stride")) shmem_long_ibput(a, local, -2, 1, 2, 2, 0);
    if (!strcmp(mode, "pe_quiet_range")) {
      const int pes[2] = {0, 5};
      shmem_pe_quiet(pes, 2);
    }
    if (!strcmp(mode, "debug_wait_not_symmetric")) shmem_long_wait_until(&local[0], SHMEM_CMP_EQ, 0);
  } else if (!strcmp(mode, "bad_ctx_pe")) {
    shmem_team_t t;
    shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 1, 1, NULL, 0, &t);
  }
  /* collectives: every PE makes the bad call */
  int n = shmem_n_pes();
  if (!strcmp(mode, "reduce_src_not_symmetric")) shmem_long_sum_reduce(SHMEM_TEAM_WORLD, a, local, 1);
  if (!strcmp(mode, "psync_not_symmetric")) {
    long ps[SHMEM_SYNC_SIZE] = {0};
    shmem_long_sum_to_all(a, a, 1, 0, 0, n, pwrk, ps);
  }
  if (!strcmp(mode, "active_set_range")) shmem_barrier(n + 3, 0, 2, psync);
  if (!strcmp(mode, "free_not_heap")) shmem_free(local);
  if (!strcmp(mode, "broadcast_root")) shmem_long_broadcast(SHMEM_TEAM_WORLD, a, a, 1, n + 3);
  if (!strcmp(mode, "debug_reduce_dest_not_symmetric")) shmem_long_max_reduce(SHMEM_TEAM_WORLD, local, a, 1);
  if (!strcmp(mode, "debug_to_all_dest_not_symmetric")) shmem_long_min_to_all(local, a, 1, 0, 0, n, pwrk, psync);
  shmem_barrier_all();
  shmem_finalize();
  return 0;
}
