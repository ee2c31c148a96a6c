/* OpenSHMEM hello and atomics: every PE says hello, then each PE adds to a counter on every PE
 * (atomic add), takes a ticket from PE 0 (atomic fetch-and-increment) and swaps its number into
 * its right neighbour; each PE checks what it holds.
 * oshcc -o shmem_atomics shmem_atomics.c && oshrun -n 4 ./shmem_atomics */
#include <shmem.h>
#include <stdio.h>

static long counter = 0; /* symmetric: a global */
static int ticket = 0;
static int slot = -1;

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  printf("hello from PE %d of %d\n", me, npes);

  for (int pe = 0; pe < npes; pe++) shmem_long_atomic_add(&counter, me + 1, pe);
  int my_ticket = shmem_int_atomic_fetch_inc(&ticket, 0);
  int previous = shmem_int_atomic_swap(&slot, me, (me + 1) % npes);
  shmem_barrier_all();

  int errors = 0;
  const long expected_counter = (long)npes * (npes + 1) / 2;
  if (counter != expected_counter) {
    fprintf(stderr, "shmem_atomics: PE %d counter %ld, expected %ld\n", me, counter, expected_counter);
    errors++;
  }
  if (my_ticket < 0 || my_ticket >= npes || previous != -1) {
    fprintf(stderr, "shmem_atomics: PE %d ticket %d (expected 0..%d), swap returned %d (expected -1)\n", me,
            my_ticket, npes - 1, previous);
    errors++;
  }
  if (slot != (me + npes - 1) % npes) {
    fprintf(stderr, "shmem_atomics: PE %d slot %d, expected its left neighbour %d\n", me, slot, (me + npes - 1) % npes);
    errors++;
  }
  if (me == 0 && ticket != npes) {
    fprintf(stderr, "shmem_atomics: PE 0 handed out %d tickets, expected %d\n", ticket, npes);
    errors++;
  }
  static int total_errors, errors_in;
  errors_in = errors;
  shmem_barrier_all();
  shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &total_errors, &errors_in, 1);
  if (me == 0 && total_errors == 0) printf("shmem_atomics: ok on %d PEs (counter %ld)\n", npes, counter);
  shmem_finalize();
  return total_errors != 0;
}
