/* Value checks for the OpenSHMEM conformance programs: a failed check prints the PE, the line and
 * the values, then ends the job with a non-zero status. */
#ifndef TESTS_SHMEM_CHECK_H
#define TESTS_SHMEM_CHECK_H
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                                \
  do {                                                                                  \
    if (!(cond)) {                                                                      \
      fprintf(stderr, "PE %d: %s:%d: check failed: %s: ", shmem_my_pe(), __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                                     \
      fprintf(stderr, "\n");                                                            \
      shmem_global_exit(1);                                                             \
    }                                                                                   \
  } while (0)
#define CHECK_EQ(a, b) CHECK((a) == (b), "%lld != %lld", (long long)(a), (long long)(b))

/* shmem_init, then this PE's number, the PE count and its neighbours on the ring of PEs. */
static inline void init_ring(int* me, int* npes, int* left, int* right) {
  shmem_init();
  *me = shmem_my_pe();
  *npes = shmem_n_pes();
  *right = (*me + 1) % *npes;
  *left = (*me + *npes - 1) % *npes;
}
#endif
