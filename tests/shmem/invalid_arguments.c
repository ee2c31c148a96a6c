/* OpenSHMEM 1.5 corners where bad or empty arguments are not errors: shmem_malloc(0) and
 * shmem_calloc(0, n) return NULL; shmem_align takes every power of two the heap can hold; team
 * splits with invalid arguments return non-zero and SHMEM_TEAM_INVALID on every PE;
 * shmem_ctx_quiet/fence/destroy (and 1.6 shmem_ctx_pe_quiet) on SHMEM_CTX_INVALID do nothing; the team
 * queries answer -1 (or non-zero and an invalid handle) for SHMEM_TEAM_INVALID and destroying it
 * does nothing. */
#include <stdint.h>
#include <string.h>

#include "check.h"

/* The symmetric heap is at least 128 MiB (GASKET_HEAP_SIZE=auto); a quarter of that always fits. */
#define kLargestTestedAlignment ((size_t)32 << 20)

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;

  /* ---- zero-size allocations ---- */
  CHECK(shmem_malloc(0) == NULL, "shmem_malloc(0)");
  CHECK(shmem_calloc(0, 8) == NULL, "shmem_calloc(0, 8)");
  CHECK(shmem_calloc(8, 0) == NULL, "shmem_calloc(8, 0)");
  CHECK(shmem_malloc_with_hints(0, 0) == NULL, "shmem_malloc_with_hints(0, 0)");
  shmem_free(NULL);

  /* ---- shmem_align: each power of two, the block symmetric and usable by a peer ---- */
  for (size_t alignment = 1; alignment <= kLargestTestedAlignment; alignment *= 2) {
    long* p = shmem_align(alignment, 4 * sizeof(long));
    CHECK(p != NULL, "shmem_align(%zu) returned NULL", alignment);
    CHECK(((uintptr_t)p & (alignment - 1)) == 0, "shmem_align(%zu) returned %p", alignment, (void*)p);
    const long mine[4] = {me, (long)alignment, me + 1, -me};
    shmem_long_put(p, mine, 4, right);
    shmem_barrier_all();
    CHECK(p[0] == left && p[1] == (long)alignment && p[2] == left + 1 && p[3] == -left,
          "alignment %zu: got %ld %ld %ld %ld from PE %d", alignment, p[0], p[1], p[2], p[3], left);
    shmem_free(p);
  }

  /* ---- team splits with invalid arguments ---- */
  struct { int start, stride, size; } bad[] = {
      {0, 1, 0},      /* size 0 */
      {0, 1, -1},     /* negative size */
      {n, 1, 1},      /* start past the end */
      {-1, 1, 1},     /* negative start */
      {0, 1, n + 1},  /* more PEs than the parent */
      {1, n, 2},      /* the second member past the end */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
    shmem_team_t t = SHMEM_TEAM_WORLD;
    int rc = shmem_team_split_strided(SHMEM_TEAM_WORLD, bad[i].start, bad[i].stride, bad[i].size, NULL, 0, &t);
    CHECK(rc != 0 && t == SHMEM_TEAM_INVALID, "split start %d stride %d size %d: rc %d, team %p", bad[i].start,
          bad[i].stride, bad[i].size, rc, (void*)t);
  }
  shmem_team_t t = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_strided(SHMEM_TEAM_INVALID, 0, 1, 1, NULL, 0, &t) != 0 && t == SHMEM_TEAM_INVALID,
        "split of SHMEM_TEAM_INVALID");
  shmem_team_t x = SHMEM_TEAM_WORLD, y = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &x, NULL, 0, &y) != 0 && x == SHMEM_TEAM_INVALID &&
            y == SHMEM_TEAM_INVALID, "2d split of SHMEM_TEAM_INVALID");
  x = y = SHMEM_TEAM_WORLD;
  CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, 0, NULL, 0, &x, NULL, 0, &y) != 0 && x == SHMEM_TEAM_INVALID &&
            y == SHMEM_TEAM_INVALID, "2d split with xrange 0");
  /* The failed splits used no team slot: a valid split still works and reduces correctly. */
  shmem_team_t all = SHMEM_TEAM_INVALID;
  CHECK_EQ(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, n, NULL, 0, &all), 0);
  CHECK(all != SHMEM_TEAM_INVALID, "valid split after the invalid ones");
  int* v = shmem_malloc(sizeof(int));
  int* sum = shmem_malloc(sizeof(int));
  *v = me + 1;
  CHECK_EQ(shmem_int_sum_reduce(all, sum, v, 1), 0);
  CHECK_EQ(*sum, n * (n + 1) / 2);
  shmem_team_destroy(all);

  /* ---- SHMEM_TEAM_INVALID: queries answer -1 or non-zero, destroy does nothing ---- */
  CHECK_EQ(shmem_team_my_pe(SHMEM_TEAM_INVALID), -1);
  CHECK_EQ(shmem_team_n_pes(SHMEM_TEAM_INVALID), -1);
  shmem_team_config_t config = {.num_contexts = 7};
  CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &config) != 0, "get_config of SHMEM_TEAM_INVALID");
  CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_INVALID, 0, SHMEM_TEAM_WORLD), -1);
  CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, 0, SHMEM_TEAM_INVALID), -1);
  CHECK_EQ(shmem_team_translate_pe(SHMEM_TEAM_WORLD, n, SHMEM_TEAM_WORLD), -1); /* PE out of the source team */
  shmem_ctx_t team_ctx = SHMEM_CTX_DEFAULT;
  CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &team_ctx) != 0 && team_ctx == SHMEM_CTX_INVALID,
        "team_create_ctx of SHMEM_TEAM_INVALID");
  shmem_team_t of_ctx = SHMEM_TEAM_WORLD;
  CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &of_ctx) != 0 && of_ctx == SHMEM_TEAM_INVALID, "ctx_get_team of SHMEM_CTX_INVALID");
  CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &of_ctx) == 0 && of_ctx == SHMEM_TEAM_WORLD, "ctx_get_team of SHMEM_CTX_DEFAULT");
  shmem_team_destroy(SHMEM_TEAM_INVALID);

  /* ---- SHMEM_CTX_INVALID: ordering calls are no-ops ---- */
  shmem_ctx_quiet(SHMEM_CTX_INVALID);
  shmem_ctx_fence(SHMEM_CTX_INVALID);
  shmem_ctx_pe_quiet(SHMEM_CTX_INVALID, &right, 1);
  shmem_ctx_destroy(SHMEM_CTX_INVALID); /* no operation either */

  shmem_free(sum);
  shmem_free(v);
  if (me == 0) printf("invalid_arguments: %d PEs ok\n", n);
  shmem_finalize();
  return 0;
}
