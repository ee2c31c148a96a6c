/* OpenSHMEM 1.6 blocked strided RMA: shmem_<type>_ibput/ibget for every type of the RMA table,
 * the sized shmem_ibput<N>/ibget<N>, their ctx forms and the C11 generics. Each PE puts to its
 * right neighbour and gets from its left one; every element of the destination (blocks and the
 * gaps between them) is compared with a reference computed locally. */
#include <stdint.h>
#include <string.h>

#include "check.h"

enum { kLen = 40, kBsize = 3, kBlocks = 4, kDst = 4, kSrc = 5 };

static int me, npes, left, right;
static void* sym_src; /* kLen elements of the widest type (16 bytes) */
static void* sym_dst;
static shmem_ctx_t ctx;

/* The value element i of `pe`'s source holds, and what element j of a destination filled from
 * `pe` must hold after the transfer (0 in the gaps between blocks). Values stay below 128, so
 * they fit every type of the table. */
static int source_value(int pe, int i) { return (pe * 7 + i + 1) % 120; }
static int expected_value(int pe, int j, ptrdiff_t dst, ptrdiff_t sst, size_t bsize, size_t nblocks) {
  for (size_t b = 0; b < nblocks; ++b) {
    ptrdiff_t k = j - (ptrdiff_t)b * dst;
    if (k >= 0 && k < (ptrdiff_t)bsize) return source_value(pe, (int)(b * sst + k));
  }
  return 0;
}

/* Every round: fill, barrier, transfer, barrier, compare, barrier (nobody refills early). */
#define TYPED_ROUND(T, N, what, dst, sst, bsize, nblocks, transfer)                               \
  do {                                                                                           \
    T* src = (T*)sym_src;                                                                        \
    T* out = (T*)sym_dst;                                                                        \
    T local[kLen];                                                                               \
    for (int i = 0; i < kLen; ++i) src[i] = (T)source_value(me, i), out[i] = (T)0, local[i] = (T)0; \
    shmem_barrier_all();                                                                         \
    transfer;                                                                                    \
    shmem_barrier_all();                                                                         \
    const T* got = (what) ? out : local; /* put: filled by left; get: from left */              \
    for (int j = 0; j < kLen; ++j) {                                                             \
      T want = (T)expected_value(left, j, dst, sst, bsize, nblocks);                             \
      CHECK(got[j] == want, "%s %s: element %d is %lld, expected %lld", #N, (what) ? "ibput" : "ibget", j, \
            (long long)got[j], (long long)want);                                                 \
    }                                                                                            \
    shmem_barrier_all();                                                                         \
  } while (0)

#define TEST_TYPE(T, N)                                                                           \
  static void test_##N(void) {                                                                   \
    TYPED_ROUND(T, N, 1, kDst, kSrc, kBsize, kBlocks,                                            \
                shmem_##N##_ibput(out, src, kDst, kSrc, kBsize, kBlocks, right));                \
    TYPED_ROUND(T, N, 1, kDst, kSrc, kBsize, kBlocks,                                            \
                shmem_ctx_##N##_ibput(ctx, out, src, kDst, kSrc, kBsize, kBlocks, right);        \
                shmem_ctx_quiet(ctx));                                                           \
    TYPED_ROUND(T, N, 0, kDst, kSrc, kBsize, kBlocks,                                            \
                shmem_##N##_ibget(local, src, kDst, kSrc, kBsize, kBlocks, left));               \
    TYPED_ROUND(T, N, 0, kDst, kSrc, kBsize, kBlocks,                                            \
                shmem_ctx_##N##_ibget(ctx, local, src, kDst, kSrc, kBsize, kBlocks, left));      \
  }
SHMEM_GASKET_RMA_TYPES(TEST_TYPE)

/* The C11 generics dispatch on the base C types. */
#define TEST_GENERIC(T, N)                                                                        \
  static void generic_##N(void) {                                                                \
    TYPED_ROUND(T, N, 1, kDst, kSrc, kBsize, kBlocks,                                            \
                shmem_ibput(out, src, kDst, kSrc, kBsize, kBlocks, right));                      \
    TYPED_ROUND(T, N, 1, kDst, kSrc, kBsize, kBlocks,                                            \
                shmem_ibput(ctx, out, src, kDst, kSrc, kBsize, kBlocks, right); shmem_ctx_quiet(ctx)); \
    TYPED_ROUND(T, N, 0, kDst, kSrc, kBsize, kBlocks,                                            \
                shmem_ibget(local, src, kDst, kSrc, kBsize, kBlocks, left));                     \
    TYPED_ROUND(T, N, 0, kDst, kSrc, kBsize, kBlocks,                                            \
                shmem_ibget(ctx, local, src, kDst, kSrc, kBsize, kBlocks, left));                \
  }
SHMEM_GASKET_RMA_BASE_TYPES(TEST_GENERIC)

/* Sized forms: elements of B/8 bytes, every byte of element i holding source_value(pe, i). */
static void sized_round(size_t elem, int is_put, int use_ctx, ptrdiff_t dst, ptrdiff_t sst, size_t bsize,
                        size_t nblocks) {
  unsigned char* src = sym_src;
  unsigned char* out = sym_dst;
  unsigned char local[kLen * 16];
  for (int i = 0; i < kLen; ++i) memset(src + i * elem, source_value(me, i), elem);
  memset(out, 0, kLen * elem);
  memset(local, 0, sizeof local);
  shmem_barrier_all();
  shmem_ctx_t c = use_ctx ? ctx : SHMEM_CTX_DEFAULT;
#define SIZED_CALL(B)                                                                            \
  if (elem == B / 8) {                                                                           \
    if (is_put && use_ctx) shmem_ctx_ibput##B(c, out, src, dst, sst, bsize, nblocks, right);     \
    else if (is_put) shmem_ibput##B(out, src, dst, sst, bsize, nblocks, right);                  \
    else if (use_ctx) shmem_ctx_ibget##B(c, local, src, dst, sst, bsize, nblocks, left);         \
    else shmem_ibget##B(local, src, dst, sst, bsize, nblocks, left);                             \
  }
  SHMEM_GASKET_SIZES(SIZED_CALL)
  shmem_ctx_quiet(c);
  shmem_barrier_all();
  const unsigned char* got = is_put ? out : local;
  for (int j = 0; j < kLen; ++j) {
    int want = expected_value(left, j, dst, sst, bsize, nblocks);
    for (size_t k = 0; k < elem; ++k) {
      CHECK(got[j * elem + k] == want, "%s%zu (ctx %d) dst %td sst %td bsize %zu: element %d byte %zu is %d, expected %d",
            is_put ? "shmem_ibput" : "shmem_ibget", elem * 8, use_ctx, dst, sst, bsize, j, k, got[j * elem + k], want);
    }
  }
  shmem_barrier_all();
}

int main(void) {
  init_ring(&me, &npes, &left, &right);
  sym_src = shmem_malloc(kLen * 16);
  sym_dst = shmem_malloc(kLen * 16);
  CHECK(sym_src != NULL && sym_dst != NULL, "shmem_malloc failed");
  CHECK_EQ(shmem_ctx_create(0, &ctx), 0);

#define RUN(T, N) test_##N();
  SHMEM_GASKET_RMA_TYPES(RUN)
#define RUN_GENERIC(T, N) generic_##N();
  SHMEM_GASKET_RMA_BASE_TYPES(RUN_GENERIC)

  for (int is_put = 0; is_put <= 1; ++is_put) {
    for (int use_ctx = 0; use_ctx <= 1; ++use_ctx) {
      for (size_t elem = 1; elem <= 16; elem *= 2) {
        sized_round(elem, is_put, use_ctx, kDst, kSrc, kBsize, kBlocks);
        sized_round(elem, is_put, use_ctx, 2, 3, 1, 7);          /* bsize 1: plain iput/iget */
        sized_round(elem, is_put, use_ctx, 8, 8, 8, 4);          /* blocks back to back */
        sized_round(elem, is_put, use_ctx, 10, 6, 6, 3);         /* source blocks adjacent */
        sized_round(elem, is_put, use_ctx, 6, 9, 3, 4);          /* whole-block strides */
        sized_round(elem, is_put, use_ctx, kDst, kSrc, 0, 5);    /* empty blocks: nothing moves */
        sized_round(elem, is_put, use_ctx, kDst, kSrc, kBsize, 0); /* no blocks */
      }
    }
  }
  /* Nothing to move: NULL buffers are legal. */
  shmem_ibput64(NULL, NULL, 1, 1, 4, 0, right);
  shmem_ibget32(NULL, NULL, 1, 1, 0, 3, left);
  shmem_int_ibput(NULL, NULL, 2, 2, 0, 0, right);

  shmem_ctx_destroy(ctx);
  shmem_free(sym_dst);
  shmem_free(sym_src);
  if (me == 0) printf("blocked_strided: %d PEs ok\n", npes);
  shmem_finalize();
  return 0;
}
