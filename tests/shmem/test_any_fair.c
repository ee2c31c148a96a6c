/* shmem_test_any / shmem_wait_until_any and their _vector forms are fair: successive calls
 * return every satisfied index in turn, not always the first one; excluded indices never. */
#include <string.h>

#include "check.h"

#define NIVARS 5

/* Calls `expr` (an _any call returning an index) 2 * NIVARS times; every index not excluded must
 * come back, and only those. */
#define EXPECT_ALL_RETURNED(name, status, expr)                                             \
  do {                                                                                    \
    int seen[NIVARS] = {0};                                                               \
    for (int k = 0; k < 2 * NIVARS; ++k) {                                                \
      size_t i = (expr);                                                                  \
      CHECK(i < NIVARS, "%s returned %zu", name, i);                                      \
      CHECK((status) == NULL || (status)[i] == 0, "%s returned excluded index %zu", name, i); \
      seen[i] = 1;                                                                        \
    }                                                                                     \
    for (int i = 0; i < NIVARS; ++i) {                                                    \
      int wanted = (status) == NULL || (status)[i] == 0;                                  \
      CHECK(seen[i] == wanted, "%s: index %d %s", name, i, wanted ? "never returned" : "returned"); \
    }                                                                                     \
  } while (0)

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n;
  long* ivars = shmem_calloc(NIVARS, sizeof(long));
  int* iv32 = shmem_calloc(NIVARS, sizeof(int));
  CHECK(ivars != NULL && iv32 != NULL, "shmem_calloc failed");
  shmem_barrier_all();
  /* the left neighbour satisfies every ivar */
  for (int i = 0; i < NIVARS; ++i) {
    shmem_long_p(&ivars[i], 7, right);
    shmem_int_p(&iv32[i], 7, right);
  }
  shmem_quiet();
  shmem_barrier_all();
  long values[NIVARS];
  int ivalues[NIVARS];
  for (int i = 0; i < NIVARS; ++i) values[i] = 7, ivalues[i] = 7;
  const int none[NIVARS] = {0, 0, 0, 0, 0};
  const int skip[NIVARS] = {0, 1, 0, 0, 1};
  EXPECT_ALL_RETURNED("test_any", (const int*)NULL, shmem_long_test_any(ivars, NIVARS, NULL, SHMEM_CMP_EQ, 7));
  EXPECT_ALL_RETURNED("test_any status", skip, shmem_long_test_any(ivars, NIVARS, skip, SHMEM_CMP_EQ, 7));
  EXPECT_ALL_RETURNED("test_any_vector", none, shmem_long_test_any_vector(ivars, NIVARS, none, SHMEM_CMP_EQ, values));
  EXPECT_ALL_RETURNED("wait_until_any", (const int*)NULL, shmem_int_wait_until_any(iv32, NIVARS, NULL, SHMEM_CMP_GE, 7));
  EXPECT_ALL_RETURNED("wait_until_any_vector", skip,
                      shmem_int_wait_until_any_vector(iv32, NIVARS, skip, SHMEM_CMP_EQ, ivalues));
  /* the generic form, through the typed routine */
  EXPECT_ALL_RETURNED("generic test_any", (const int*)NULL, shmem_test_any(ivars, NIVARS, NULL, SHMEM_CMP_NE, 0));

  /* Consumer loop: the right neighbour's ivars are set one by one; each wait_until_any answer is
   * consumed (reset) and every index arrives exactly once. */
  shmem_barrier_all();
  memset(iv32, 0, NIVARS * sizeof(int));
  shmem_barrier_all();
  for (int i = NIVARS - 1; i >= 0; --i) shmem_int_atomic_set(&iv32[i], 1, right);
  int got[NIVARS] = {0};
  for (int k = 0; k < NIVARS; ++k) {
    size_t i = shmem_int_wait_until_any(iv32, NIVARS, got, SHMEM_CMP_EQ, 1);
    CHECK(i < NIVARS && got[i] == 0, "consumer: index %zu", i);
    got[i] = 1;
  }
  CHECK_EQ(shmem_int_test_any(iv32, NIVARS, got, SHMEM_CMP_EQ, 1), SIZE_MAX);
  shmem_barrier_all();
  shmem_free(iv32);
  shmem_free(ivars);
  if (me == 0) printf("test_any_fair: %d PEs ok\n", n);
  shmem_finalize();
  return 0;
}
