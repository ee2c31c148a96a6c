/* An OpenSHMEM program of a workspace that depends on gasket: the last PE broadcasts an array to
 * every PE (shmem_long_broadcast on the world team); each PE checks every element. */
#include <shmem.h>
#include <stdio.h>

#define N 64

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes(), root = npes - 1;
  long* source = shmem_malloc(N * sizeof(long));
  long* dest = shmem_malloc(N * sizeof(long));
  for (int i = 0; i < N; i++) {
    source[i] = me == root ? 1000L * i + root : -1;
    dest[i] = -2;
  }
  shmem_barrier_all();
  shmem_long_broadcast(SHMEM_TEAM_WORLD, dest, source, N, root);
  int errors = 0;
  for (int i = 0; i < N; i++) {
    if (dest[i] != 1000L * i + root) {
      if (errors++ == 0) fprintf(stderr, "shmem_broadcast: PE %d dest[%d] = %ld, expected %ld\n", me, i, dest[i], 1000L * i + root);
    }
  }
  static int errors_in, total;
  errors_in = errors;
  shmem_barrier_all();
  shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &total, &errors_in, 1);
  if (me == 0 && total == 0) printf("shmem_broadcast: ok on %d PEs\n", npes);
  shmem_free(dest);
  shmem_free(source);
  shmem_finalize();
  return total != 0;
}
