/* Symmetric global and static variables (the redistributed data segment): put/get/atomics and a
 * reduction on .data and .bss objects. */
#include "check.h"

long counter;                       /* .bss */
int table[64] = {1, 2, 3};          /* .data */
static double values[16];

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK(shmem_addr_accessible(&counter, (me + 1) % n), "globals are not symmetric here");
  int right = (me + 1) % n, left = (me + n - 1) % n;
  shmem_barrier_all();
  for (int i = 0; i < 64; ++i) table[i] = -1;
  shmem_barrier_all();
  int mine[64];
  for (int i = 0; i < 64; ++i) mine[i] = me * 1000 + i;
  shmem_int_put(table, mine, 64, right);
  shmem_long_atomic_inc(&counter, 0);
  shmem_barrier_all();
  for (int i = 0; i < 64; ++i) CHECK_EQ(table[i], left * 1000 + i);
  CHECK_EQ(shmem_long_atomic_fetch(&counter, 0), n);
  CHECK_EQ(shmem_int_g(&table[5], right), me * 1000 + 5);
  values[3] = me;
  static double total;
  shmem_double_sum_reduce(SHMEM_TEAM_WORLD, &total, &values[3], 1);
  CHECK(total == n * (n - 1) / 2.0, "%g", total);
  shmem_barrier_all();
  if (me == 0) printf("globals: ok on %d PEs\n", n);
  shmem_finalize();
  return 0;
}
