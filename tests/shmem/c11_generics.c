/* The C11 type-generic interface against the standard's type tables: for every generic and every
 * type of its table (shmem.h's X-macro lists, fixed-width and size types included) one call of the
 * plain and, where it exists, the ctx form, each checking the values it moved. A type missing from
 * a generic's _Generic list is a compile error here. */
#include <string.h>

#include "check.h"

static int me, npes, right, left;
static shmem_ctx_t ctx;
static char* area; /* symmetric scratch: 4 KiB */
static char* area2;
static uint64_t* sig;

#define AREA_BYTES 4096
#define EXPECT(T, N, got, want) \
  CHECK((got) == (T)(want), "%s: %s is %g, expected %g", #N, #got, (double)(got), (double)(T)(want))
/* completes what this PE issued on both contexts (non-fetching and _nbi operations) */
#define SETTLE() (shmem_quiet(), shmem_ctx_quiet(ctx))
/* a fetching _nbi call, completed, then its fetched value `f` checked */
#define NBI_STEP(T, N, call, want) \
  do {                             \
    call;                          \
    SETTLE();                      \
    EXPECT(T, N, f, want);         \
  } while (0)

/* Every PE writes to its right neighbour; values name the writer. */
#define RMA_CASE(T, N)                                                                        \
  static void rma_##N(void) {                                                                 \
    T* d = (T*)area;                                                                          \
    T src[8], back[8];                                                                        \
    for (int i = 0; i < 8; ++i) src[i] = (T)(me * 8 + i + 1);                                 \
    memset(area, 0, AREA_BYTES);                                                              \
    *sig = 0;                                                                                 \
    shmem_barrier_all();                                                                      \
    shmem_put(d, src, 2, right);                                                              \
    shmem_put(ctx, d + 2, src + 2, 2, right);                                                 \
    shmem_p(d + 4, src[4], right);                                                            \
    shmem_p(ctx, d + 5, src[5], right);                                                       \
    shmem_put_nbi(d + 6, src + 6, 1, right);                                                  \
    shmem_put_nbi(ctx, d + 7, src + 7, 1, right);                                             \
    shmem_iput(d + 8, src, 2, 1, 2, right);        /* d[8], d[10] */                          \
    shmem_iput(ctx, d + 9, src, 2, 1, 2, right);   /* d[9], d[11] */                          \
    shmem_ibput(d + 12, src, 4, 2, 2, 1, right);   /* d[12, 13] */                            \
    shmem_ibput(ctx, d + 14, src, 4, 2, 2, 1, right); /* d[14, 15] */                         \
    shmem_ctx_quiet(ctx);                                                                     \
    shmem_barrier_all();                                                                      \
    for (int i = 0; i < 8; ++i) EXPECT(T, N, d[i], left * 8 + i + 1);                         \
    for (int i = 0; i < 4; ++i) EXPECT(T, N, d[8 + i], left * 8 + i / 2 + 1);                 \
    for (int i = 0; i < 4; ++i) EXPECT(T, N, d[12 + i], left * 8 + i % 2 + 1);                \
    /* right's d[0..7] holds my src */                                                        \
    memset(back, 0, sizeof back);                                                             \
    shmem_get(back, d, 2, right);                                                             \
    shmem_get(ctx, back + 2, d + 2, 2, right);                                                \
    shmem_get_nbi(back + 4, d + 4, 1, right);                                                 \
    shmem_get_nbi(ctx, back + 5, d + 5, 1, right);                                            \
    SETTLE();                                                                                  \
    back[6] = shmem_g(d + 6, right);                                                          \
    back[7] = shmem_g(ctx, d + 7, right);                                                     \
    for (int i = 0; i < 8; ++i) EXPECT(T, N, back[i], src[i]);                                \
    shmem_iget(back, d, 1, 2, 2, right);        /* src[0], src[2] */                          \
    shmem_iget(ctx, back + 2, d, 1, 2, 2, right);                                             \
    for (int i = 0; i < 4; ++i) EXPECT(T, N, back[i], src[(i % 2) * 2]);                      \
    shmem_ibget(back, d, 2, 4, 2, 2, right);    /* src[0, 1, 4, 5] */                         \
    shmem_ibget(ctx, back + 4, d, 2, 4, 2, 2, right);                                         \
    for (int i = 0; i < 8; ++i) EXPECT(T, N, back[i], src[(i % 4 / 2) * 4 + i % 2]);          \
    shmem_barrier_all();                                                                      \
    shmem_put_signal(d + 16, src, 1, sig, 1, SHMEM_SIGNAL_ADD, right);                        \
    shmem_put_signal(ctx, d + 17, src + 1, 1, sig, 1, SHMEM_SIGNAL_ADD, right);               \
    shmem_put_signal_nbi(d + 18, src + 2, 1, sig, 1, SHMEM_SIGNAL_ADD, right);                \
    shmem_put_signal_nbi(ctx, d + 19, src + 3, 1, sig, 1, SHMEM_SIGNAL_ADD, right);           \
    SETTLE();                                                                                  \
    shmem_ctx_quiet(ctx);                                                                     \
    shmem_signal_wait_until(sig, SHMEM_CMP_EQ, 4);                                            \
    for (int i = 0; i < 4; ++i) EXPECT(T, N, d[16 + i], left * 8 + i + 1);                    \
    shmem_barrier_all();                                                                      \
    /* team collectives on the world team: sources in area, destinations in area2 */          \
    T* s = (T*)area;                                                                          \
    T* out = (T*)area2;                                                                       \
    for (int i = 0; i < npes; ++i) s[i] = (T)(me * 8 + i % 8);                                \
    shmem_barrier_all();                                                                      \
    /* (one destination each: a PE that left a collective may already write the next one's) */ \
    CHECK_EQ(shmem_broadcast(SHMEM_TEAM_WORLD, out, s, 2, npes - 1), 0);                      \
    CHECK_EQ(shmem_collect(SHMEM_TEAM_WORLD, out + 8, s, 1), 0);                              \
    CHECK_EQ(shmem_fcollect(SHMEM_TEAM_WORLD, out + 16, s, 1), 0);                            \
    CHECK_EQ(shmem_alltoall(SHMEM_TEAM_WORLD, out + 24, s, 1), 0);                            \
    CHECK_EQ(shmem_alltoalls(SHMEM_TEAM_WORLD, out + 32, s, 1, 1, 1), 0);                     \
    for (int i = 0; i < 2; ++i) EXPECT(T, N, out[i], (npes - 1) * 8 + i);                     \
    for (int p = 0; p < npes; ++p) {                                                          \
      EXPECT(T, N, out[8 + p], p * 8);                                                        \
      EXPECT(T, N, out[16 + p], p * 8);                                                       \
      EXPECT(T, N, out[24 + p], p * 8 + me % 8);                                              \
      EXPECT(T, N, out[32 + p], p * 8 + me % 8);                                              \
    }                                                                                         \
    shmem_barrier_all();                                                                      \
  }
SHMEM_GASKET_RMA_TYPES(RMA_CASE)

/* Standard AMOs on the right neighbour's word, which only this PE updates: each step's old value
 * is known. The _nbi results are read after a quiet. */
#define AMO_CASE(T, N)                                                                        \
  static void amo_##N(void) {                                                                 \
    T* w = (T*)area;                                                                          \
    T f = 0;                                                                                  \
    *w = 0;                                                                                   \
    shmem_barrier_all();                                                                      \
    shmem_atomic_inc(w, right);                                                               \
    shmem_atomic_inc(ctx, w, right);                                                          \
    SETTLE();                                                                                 \
    EXPECT(T, N, shmem_atomic_fetch_inc(w, right), 2);                                        \
    EXPECT(T, N, shmem_atomic_fetch_inc(ctx, w, right), 3);                                   \
    shmem_atomic_add(w, (T)2, right);                                                         \
    shmem_atomic_add(ctx, w, (T)2, right);                                                    \
    SETTLE();                                                                                 \
    EXPECT(T, N, shmem_atomic_fetch_add(w, (T)1, right), 8);                                  \
    EXPECT(T, N, shmem_atomic_fetch_add(ctx, w, (T)1, right), 9);                             \
    EXPECT(T, N, shmem_atomic_compare_swap(w, (T)10, (T)20, right), 10);                      \
    EXPECT(T, N, shmem_atomic_compare_swap(ctx, w, (T)20, (T)30, right), 20);                 \
    NBI_STEP(T, N, shmem_atomic_fetch_inc_nbi(&f, w, right), 30); \
    NBI_STEP(T, N, shmem_atomic_fetch_inc_nbi(ctx, &f, w, right), 31); \
    NBI_STEP(T, N, shmem_atomic_fetch_add_nbi(&f, w, (T)3, right), 32); \
    NBI_STEP(T, N, shmem_atomic_fetch_add_nbi(ctx, &f, w, (T)3, right), 35); \
    NBI_STEP(T, N, shmem_atomic_compare_swap_nbi(&f, w, (T)38, (T)40, right), 38); \
    NBI_STEP(T, N, shmem_atomic_compare_swap_nbi(ctx, &f, w, (T)40, (T)41, right), 40); \
    shmem_barrier_all();                                                                      \
    EXPECT(T, N, *w, 41);                                                                     \
    shmem_barrier_all();                                                                      \
  }
SHMEM_GASKET_AMO_TYPES(AMO_CASE)

#define AMO_EXT_CASE(T, N)                                                                    \
  static void amo_ext_##N(void) {                                                             \
    T* w = (T*)area;                                                                          \
    T f = 0;                                                                                  \
    *w = (T)1;                                                                                \
    shmem_barrier_all();                                                                      \
    EXPECT(T, N, shmem_atomic_fetch(w, right), 1);                                            \
    shmem_atomic_set(w, (T)2, right);                                                         \
    SETTLE();                                                                                 \
    EXPECT(T, N, shmem_atomic_fetch(ctx, w, right), 2);                                       \
    shmem_atomic_set(ctx, w, (T)3, right);                                                    \
    SETTLE();                                                                                 \
    EXPECT(T, N, shmem_atomic_swap(w, (T)4, right), 3);                                       \
    EXPECT(T, N, shmem_atomic_swap(ctx, w, (T)5, right), 4);                                  \
    NBI_STEP(T, N, shmem_atomic_fetch_nbi(&f, w, right), 5); \
    NBI_STEP(T, N, shmem_atomic_swap_nbi(&f, w, (T)6, right), 5); \
    NBI_STEP(T, N, shmem_atomic_swap_nbi(ctx, &f, w, (T)7, right), 6); \
    NBI_STEP(T, N, shmem_atomic_fetch_nbi(ctx, &f, w, right), 7); \
    shmem_barrier_all();                                                                      \
    EXPECT(T, N, *w, 7);                                                                      \
    shmem_barrier_all();                                                                      \
  }
SHMEM_GASKET_AMO_EXT_TYPES(AMO_EXT_CASE)

#define AMO_BIT_CASE(T, N)                                                                    \
  static void amo_bit_##N(void) {                                                             \
    T* w = (T*)area;                                                                          \
    T f = 0;                                                                                  \
    *w = (T)0x0f;                                                                             \
    shmem_barrier_all();                                                                      \
    shmem_atomic_or(w, (T)0x30, right);                  /* 0x3f */                           \
    shmem_atomic_and(w, (T)0x3c, right);                 /* 0x3c */                           \
    shmem_atomic_xor(w, (T)0x41, right);                 /* 0x7d */                           \
    shmem_atomic_or(ctx, w, (T)0x02, right);             /* 0x7f */                           \
    shmem_atomic_and(ctx, w, (T)0x7e, right);            /* 0x7e */                           \
    shmem_atomic_xor(ctx, w, (T)0x01, right);            /* 0x7f */                           \
    SETTLE();                                                                                 \
    EXPECT(T, N, shmem_atomic_fetch_and(w, (T)0x0f, right), 0x7f);                            \
    EXPECT(T, N, shmem_atomic_fetch_or(w, (T)0x10, right), 0x0f);                             \
    EXPECT(T, N, shmem_atomic_fetch_xor(w, (T)0x01, right), 0x1f);                            \
    EXPECT(T, N, shmem_atomic_fetch_and(ctx, w, (T)0x1c, right), 0x1e);                       \
    EXPECT(T, N, shmem_atomic_fetch_or(ctx, w, (T)0x01, right), 0x1c);                        \
    EXPECT(T, N, shmem_atomic_fetch_xor(ctx, w, (T)0x10, right), 0x1d);                       \
    NBI_STEP(T, N, shmem_atomic_fetch_and_nbi(&f, w, (T)0x0e, right), 0x0d);   /* 0x0d -> 0x0c */ \
    NBI_STEP(T, N, shmem_atomic_fetch_or_nbi(&f, w, (T)0x20, right), 0x0c);    /* -> 0x2c */ \
    NBI_STEP(T, N, shmem_atomic_fetch_xor_nbi(&f, w, (T)0x04, right), 0x2c);   /* -> 0x28 */ \
    NBI_STEP(T, N, shmem_atomic_fetch_and_nbi(ctx, &f, w, (T)0x2f, right), 0x28); /* -> 0x28 */ \
    NBI_STEP(T, N, shmem_atomic_fetch_or_nbi(ctx, &f, w, (T)0x01, right), 0x28);  /* -> 0x29 */ \
    NBI_STEP(T, N, shmem_atomic_fetch_xor_nbi(ctx, &f, w, (T)0x09, right), 0x29); /* -> 0x20 */ \
    shmem_barrier_all();                                                                      \
    EXPECT(T, N, *w, 0x20);                                                                   \
    shmem_barrier_all();                                                                      \
  }
SHMEM_GASKET_AMO_BIT_TYPES(AMO_BIT_CASE)

/* Point-to-point synchronisation: the left neighbour sets ivars[i] = i + 1 (i < 3). */
#define P2P_CASE(T, N)                                                                        \
  static void p2p_##N(void) {                                                                 \
    T* v = (T*)area;                                                                          \
    T want[3] = {(T)1, (T)2, (T)3};                                                           \
    size_t idx[3];                                                                            \
    memset(area, 0, 3 * sizeof(T));                                                           \
    shmem_barrier_all();                                                                      \
    for (int i = 0; i < 3; ++i) shmem_p(v + i, (T)(i + 1), right), shmem_fence();             \
    shmem_wait_until(v + 2, SHMEM_CMP_EQ, (T)3);                                              \
    shmem_wait_until_all(v, 1, NULL, SHMEM_CMP_EQ, (T)1);                                     \
    CHECK_EQ(shmem_wait_until_any(v, 3, NULL, SHMEM_CMP_EQ, (T)2), 1);                        \
    CHECK_EQ(shmem_wait_until_some(v, 3, idx, NULL, SHMEM_CMP_GE, (T)2), 2);                  \
    CHECK(idx[0] == 1 && idx[1] == 2, "%s: some %zu %zu", #N, idx[0], idx[1]);                \
    shmem_wait_until_all_vector(v, 3, NULL, SHMEM_CMP_EQ, want);                              \
    CHECK(shmem_wait_until_any_vector(v, 3, NULL, SHMEM_CMP_EQ, want) < 3, "%s", #N);         \
    CHECK_EQ(shmem_wait_until_some_vector(v, 3, idx, NULL, SHMEM_CMP_EQ, want), 3);           \
    CHECK_EQ(shmem_test(v, SHMEM_CMP_EQ, (T)1), 1);                                           \
    CHECK_EQ(shmem_test(v, SHMEM_CMP_NE, (T)1), 0);                                           \
    CHECK_EQ(shmem_test_all(v, 3, NULL, SHMEM_CMP_GT, (T)0), 1);                              \
    CHECK_EQ(shmem_test_any(v, 3, NULL, SHMEM_CMP_EQ, (T)3), 2);                              \
    CHECK_EQ(shmem_test_some(v, 3, idx, NULL, SHMEM_CMP_LT, (T)3), 2);                        \
    CHECK_EQ(shmem_test_all_vector(v, 3, NULL, SHMEM_CMP_EQ, want), 1);                       \
    CHECK(shmem_test_any_vector(v, 3, NULL, SHMEM_CMP_EQ, want) < 3, "%s", #N);               \
    CHECK_EQ(shmem_test_some_vector(v, 3, idx, NULL, SHMEM_CMP_EQ, want), 3);                 \
    shmem_barrier_all();                                                                      \
  }
SHMEM_GASKET_P2P_TYPES(P2P_CASE)

/* Team reductions over the world team: two elements per call. */
#define REDUCE_BIT_CASE(T, N)                                                                 \
  static void reduce_bit_##N(void) {                                                          \
    T* s = (T*)area;                                                                          \
    T* d = (T*)area2;                                                                         \
    s[0] = (T)(1 << (me % 7));                                                                \
    s[1] = (T)0x7f;                                                                           \
    T any = 0, parity = 0;                                                                    \
    for (int p = 0; p < npes; ++p) any |= (T)(1 << (p % 7)), parity ^= (T)(1 << (p % 7));     \
    shmem_barrier_all();                                                                      \
    CHECK_EQ(shmem_or_reduce(SHMEM_TEAM_WORLD, d, s, 2), 0);                                  \
    CHECK_EQ(shmem_and_reduce(SHMEM_TEAM_WORLD, d + 2, s, 2), 0);                             \
    CHECK_EQ(shmem_xor_reduce(SHMEM_TEAM_WORLD, d + 4, s, 2), 0);                             \
    EXPECT(T, N, d[0], any);                                                                  \
    EXPECT(T, N, d[1], 0x7f);                                                                 \
    EXPECT(T, N, d[2], npes == 1 ? 1 : 0);                                                    \
    EXPECT(T, N, d[3], 0x7f);                                                                 \
    EXPECT(T, N, d[4], parity);                                                               \
    EXPECT(T, N, d[5], npes % 2 ? 0x7f : 0);                                                  \
    shmem_barrier_all();                                                                      \
  }
SHMEM_GASKET_REDUCE_BIT_TYPES(REDUCE_BIT_CASE)

#define REDUCE_MINMAX_CASE(T, N)                                                              \
  static void reduce_minmax_##N(void) {                                                       \
    T* s = (T*)area;                                                                          \
    T* d = (T*)area2;                                                                         \
    s[0] = (T)(me + 1);                                                                       \
    s[1] = (T)(npes - me);                                                                    \
    shmem_barrier_all();                                                                      \
    CHECK_EQ(shmem_max_reduce(SHMEM_TEAM_WORLD, d, s, 2), 0);                                 \
    CHECK_EQ(shmem_min_reduce(SHMEM_TEAM_WORLD, d + 2, s, 2), 0);                             \
    EXPECT(T, N, d[0], npes);                                                                 \
    EXPECT(T, N, d[1], npes);                                                                 \
    EXPECT(T, N, d[2], 1);                                                                    \
    EXPECT(T, N, d[3], 1);                                                                    \
    shmem_barrier_all();                                                                      \
  }
SHMEM_GASKET_REDUCE_MINMAX_TYPES(REDUCE_MINMAX_CASE)

#define REDUCE_ARITH_CASE(T, N)                                                               \
  static void reduce_arith_##N(void) {                                                        \
    T* s = (T*)area;                                                                          \
    T* d = (T*)area2;                                                                         \
    s[0] = (T)(me + 1);                                                                       \
    s[1] = (T)(me % 2 + 1);                                                                   \
    shmem_barrier_all();                                                                      \
    CHECK_EQ(shmem_sum_reduce(SHMEM_TEAM_WORLD, d, s, 2), 0);                                 \
    CHECK_EQ(shmem_prod_reduce(SHMEM_TEAM_WORLD, d + 2, s, 2), 0);                            \
    EXPECT(T, N, d[0], npes * (npes + 1) / 2);                                                \
    EXPECT(T, N, d[1], npes + npes / 2);                                                      \
    EXPECT(T, N, d[3], 1 << (npes / 2));                                                      \
    CHECK_EQ(shmem_sum_inscan(SHMEM_TEAM_WORLD, d + 4, s, 2), 0);                             \
    CHECK_EQ(shmem_sum_exscan(SHMEM_TEAM_WORLD, d + 6, s, 2), 0);                             \
    EXPECT(T, N, d[4], (me + 1) * (me + 2) / 2);                                              \
    EXPECT(T, N, d[6], me * (me + 1) / 2);                                                    \
    shmem_barrier_all();                                                                      \
  }
SHMEM_GASKET_REDUCE_ARITH_TYPES(REDUCE_ARITH_CASE)

#define RUN_RMA(T, N) rma_##N();
#define RUN_AMO(T, N) amo_##N();
#define RUN_AMO_EXT(T, N) amo_ext_##N();
#define RUN_AMO_BIT(T, N) amo_bit_##N();
#define RUN_P2P(T, N) p2p_##N();
#define RUN_REDUCE_BIT(T, N) reduce_bit_##N();
#define RUN_REDUCE_MINMAX(T, N) reduce_minmax_##N();
#define RUN_REDUCE_ARITH(T, N) reduce_arith_##N();

int main(void) {
  init_ring(&me, &npes, &left, &right);
  CHECK_EQ(shmem_ctx_create(0, &ctx), 0);
  area = shmem_malloc(AREA_BYTES);
  area2 = shmem_malloc(AREA_BYTES);
  sig = shmem_malloc(sizeof *sig);
  CHECK(area != NULL && area2 != NULL && sig != NULL, "shmem_malloc failed");
  SHMEM_GASKET_RMA_TYPES(RUN_RMA)
  SHMEM_GASKET_AMO_TYPES(RUN_AMO)
  SHMEM_GASKET_AMO_EXT_TYPES(RUN_AMO_EXT)
  SHMEM_GASKET_AMO_BIT_TYPES(RUN_AMO_BIT)
  SHMEM_GASKET_P2P_TYPES(RUN_P2P)
  SHMEM_GASKET_REDUCE_BIT_TYPES(RUN_REDUCE_BIT)
  SHMEM_GASKET_REDUCE_MINMAX_TYPES(RUN_REDUCE_MINMAX)
  SHMEM_GASKET_REDUCE_ARITH_TYPES(RUN_REDUCE_ARITH)
  /* shmem_sync: the one-argument team form beside the deprecated active-set form */
  static long psync[SHMEM_SYNC_SIZE];
  for (int i = 0; i < SHMEM_SYNC_SIZE; ++i) psync[i] = SHMEM_SYNC_VALUE;
  shmem_barrier_all();
  int* flag = (int*)area;
  *flag = 0;
  shmem_sync(SHMEM_TEAM_WORLD);
  shmem_int_p(flag, me + 1, right);
  SETTLE();      
  CHECK_EQ(shmem_sync(SHMEM_TEAM_WORLD), 0);
  CHECK_EQ(*flag, left + 1);
  shmem_sync(0, 0, npes, psync);
  shmem_ctx_destroy(ctx);
  shmem_free(sig);
  shmem_free(area2);
  shmem_free(area);
  if (me == 0) printf("c11_generics: %d PEs ok\n", npes);
  shmem_finalize();
  return 0;
}
