/* OpenSHMEM 1.6 shmem_realloc: the contents survive a move, including what peers put into the old
 * block just before the call (the entry barrier; without it the owner could copy the block while a
 * peer's put was still landing); shrinking keeps the prefix; NULL/0 cases; a block that cannot
 * grow stays valid and NULL comes back on every PE. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define BIG (1 << 20)

static unsigned char pattern(int pe, size_t i, int round) { return (unsigned char)(pe * 7 + i * 13 + round); }

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), n = shmem_n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  unsigned char* src = malloc(BIG);
  unsigned char* p = shmem_malloc(BIG);
  CHECK(src != NULL && p != NULL, "allocation failed");
  unsigned char* blockers[4];
  size_t size = BIG;
  for (int round = 0; round < 4; ++round) {
    blockers[round] = shmem_malloc(64); /* behind the block: growing it has to move it */
    for (size_t i = 0; i < BIG; ++i) src[i] = pattern(me, i, round);
    shmem_putmem(p, src, BIG, right); /* no quiet, no barrier: shmem_realloc's entry completes it */
    size += 4096;
    unsigned char* q = shmem_realloc(p, size);
    CHECK(q != NULL, "round %d: shmem_realloc to %zu bytes failed", round, size);
    for (size_t i = 0; i < BIG; ++i) {
      if (q[i] != pattern(left, i, round)) CHECK(0, "round %d: byte %zu is %u, expected %u", round, i, q[i], pattern(left, i, round));
    }
    CHECK_EQ(shmem_addr_accessible(q + size - 1, right), 1);
    p = q;
    shmem_barrier_all();
  }
  /* the new part is symmetric and usable remotely */
  shmem_putmem(p + size - 8, "abcdefg", 8, right);
  shmem_barrier_all();
  CHECK(memcmp(p + size - 8, "abcdefg", 8) == 0, "tail put");

  /* shrink: the prefix stays */
  unsigned char* small = shmem_realloc(p, 100);
  CHECK(small != NULL, "shrink failed");
  for (size_t i = 0; i < 100; ++i) CHECK_EQ(small[i], pattern(left, i, 3));

  /* NULL and zero */
  CHECK(shmem_realloc(NULL, 0) == NULL, "realloc(NULL, 0)");
  long* fresh = shmem_realloc(NULL, 8 * sizeof(long));
  CHECK(fresh != NULL, "realloc(NULL, 64)");
  CHECK_EQ(shmem_addr_accessible(fresh, right), 1);
  fresh[0] = me;
  shmem_barrier_all();
  CHECK_EQ(shmem_long_g(fresh, right), right);
  shmem_barrier_all();
  CHECK(shmem_realloc(fresh, 0) == NULL, "realloc(p, 0) frees and returns NULL");

  /* more than the heap holds: NULL on every PE, the block unchanged */
  CHECK(shmem_realloc(small, (size_t)1 << 50) == NULL, "a huge shmem_realloc succeeded");
  for (size_t i = 0; i < 100; ++i) CHECK_EQ(small[i], pattern(left, i, 3));
  shmem_free(small);
  for (int round = 0; round < 4; ++round) shmem_free(blockers[round]);
  free(src);
  if (me == 0) printf("realloc: %d PEs ok\n", n);
  shmem_finalize();
  return 0;
}
