/* OpenSHMEM latencies: put/get/p/g from 8 B to 4 MiB to heap and to global memory, atomics per
 * operation, barrier and reduction. Plain OpenSHMEM 1.4 C: builds unchanged with any oshcc
 * (gasket's, or Debian Open MPI's) so both can be run side by side.
 *   oshrun -n 2 shmem_bench [max_bytes [ops]] (PE 0 targets PE n-1; medians of SAMPLES samples;
 *                                            max_bytes 0: barrier and reduction only; ops: a
 *                                            comma-separated list of rows, e.g. "ibget,get",
 *                                            leaves out the others and the collectives)
 * Each sample is short (at most ~2000 operations, about a millisecond) and the median of many is
 * printed: on a shared machine a longer sample almost always contains a preemption of one PE by
 * another process (a stall of milliseconds that every other PE waits out in a barrier), and its
 * mean then reports the scheduler rather than the library. */
#include <shmem.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_clock.h"
#include "bench_results.h"

/* OpenSHMEM 1.6 rows (blocked strided ibput/ibget, signal_add/set) where the library has them. */
#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 6 || defined(SHMEM_GASKET_HAS_1_6_RMA)
#define HAVE_SHMEM_1_6_RMA 1
#else
#define HAVE_SHMEM_1_6_RMA 0
#endif

/* OpenSHMEM 1.6 scans (shmem_long_sum_inscan/_exscan) where the library has them. */
#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 6 || defined(SHMEM_GASKET_HAS_1_6_SCAN)
#define HAVE_SHMEM_1_6_SCAN 1
#else
#define HAVE_SHMEM_1_6_SCAN 0
#endif

#define MAX_BYTES (4 << 20)
static char global_buf[MAX_BYTES];
static char global_src[MAX_BYTES];
static long global_long;
static long global_atomic;
static long pSync[2][SHMEM_REDUCE_SYNC_SIZE]; /* alternated: back-to-back reductions */
static long pWrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + 8];
static long red_src, red_dst;

#define SAMPLES 15
#define COLL_ITERATIONS 1000 /* per sample */
/* Operations per sample. */
static int iterations(size_t bytes) { return bytes <= 4096 ? 2000 : bytes <= 65536 ? 200 : 10; }
/* Sorts `reps` and returns the median. */
static double median(double* reps, int n) {
  bench_sort(reps, n);
  return reps[n / 2];
}

enum Op { PUT, GET, P, G, FADD, ADD, CSWAP, SWAP, FETCH, SET, INC, IBPUT, IBGET, SIGNAL_ADD, SIGNAL_SET, NOPS };
static const char* kNames[] = {"put", "get", "p", "g", "fetch_add", "add", "compare_swap", "swap", "fetch", "set",
                               "inc", "ibput", "ibget", "signal_add", "signal_set"};
/* ibput/ibget: blocks of kBlockLongs 8-byte elements, every other block (stride 2 blocks). */
enum { kBlockLongs = 8 };
/* The rows asked for (argv[2]), or null for all of them. */
static const char* only_ops;
static int wanted(enum Op op) {
  if (only_ops == NULL) return 1;
  size_t len = strlen(kNames[op]);
  for (const char* p = only_ops; (p = strstr(p, kNames[op])) != NULL; p += len) {
    if ((p == only_ops || p[-1] == ',') && (p[len] == ',' || p[len] == '\0')) return 1;
  }
  return 0;
}
static int sized(enum Op op) { return op <= GET || op == IBPUT || op == IBGET; }

/* The 1.6 operations, out of line: the 1.4 ones' loop in measure stays as it was. */
static __attribute__((noinline)) void issue_1_6(enum Op op, char* dst, char* src, size_t bytes, long* word, int i,
                                                int peer) {
#if HAVE_SHMEM_1_6_RMA
  switch (op) {
    case IBPUT:
      shmem_ibput64(dst, src, 2 * kBlockLongs, 2 * kBlockLongs, kBlockLongs, bytes / (8 * kBlockLongs), peer);
      shmem_quiet();
      break;
    case IBGET: shmem_ibget64(src, dst, 2 * kBlockLongs, 2 * kBlockLongs, kBlockLongs, bytes / (8 * kBlockLongs), peer); break;
    case SIGNAL_ADD: shmem_signal_add((uint64_t*)word, 1, peer); shmem_quiet(); break;
    case SIGNAL_SET: shmem_signal_set((uint64_t*)word, (uint64_t)i, peer); shmem_quiet(); break;
    default: break;
  }
#else
  (void)op, (void)dst, (void)src, (void)bytes, (void)word, (void)i, (void)peer;
#endif
}

/* Operation `op` once (its `i`th time in a sample). */
static inline void run_op(enum Op op, char* dst, char* src, size_t bytes, long* word, int i, int peer) {
  switch (op) {
    case PUT: shmem_putmem(dst, src, bytes, peer); shmem_quiet(); break;
    case GET: shmem_getmem(src, dst, bytes, peer); break;
    case P: shmem_long_p(word, i, peer); shmem_quiet(); break;
    case G: (void)shmem_long_g(word, peer); break;
    case FADD: (void)shmem_long_atomic_fetch_add(word, 1, peer); break;
    case ADD: shmem_long_atomic_add(word, 1, peer); shmem_quiet(); break;
    case CSWAP: (void)shmem_long_atomic_compare_swap(word, -1, 0, peer); break;
    case SWAP: (void)shmem_long_atomic_swap(word, i, peer); break;
    case FETCH: (void)shmem_long_atomic_fetch(word, peer); break;
    case SET: shmem_long_atomic_set(word, i, peer); shmem_quiet(); break;
    case INC: shmem_long_atomic_inc(word, peer); shmem_quiet(); break;
    default: issue_1_6(op, dst, src, bytes, word, i, peer); break;
  }
}

/* Median over SAMPLES samples of the mean latency of `iters` operations by PE 0 on PE `peer`
 * (fewer operations per sample when the fastest of three timed warm-up calls is slow: bench_clock.h). */
static double measure(enum Op op, char* dst, char* src, size_t bytes, long* word, int peer) {
  double reps[SAMPLES];
  double warm_us = 1e30;
  for (int i = 0; i < 3; ++i) {
    double t0 = bench_now_us();
    run_op(op, dst, src, bytes, word, i, peer);
    double t = bench_now_us() - t0;
    if (t < warm_us) warm_us = t;
  }
  int iters = (int)bench_sample_iterations(sized(op) ? iterations(bytes) : iterations(8), warm_us);
  for (int r = 0; r < SAMPLES; ++r) {
    double t0 = bench_now_us();
    for (int i = 0; i < iters; ++i) run_op(op, dst, src, bytes, word, i, peer);
    reps[r] = (bench_now_us() - t0) / iters;
  }
  return median(reps, SAMPLES);
}

/* One row of a sized operation: to the heap and to global memory. */
static void size_row(enum Op op, size_t b, char* heap_dst, char* heap_src, long* heap_long, int peer) {
  if (!wanted(op)) return;
  double h = measure(op, heap_dst, heap_src, b, heap_long, peer);
  double g = measure(op, global_buf, global_src, b, &global_long, peer);
  printf("%-10s %10zu %12.3f %12.3f\n", kNames[op], b, h, g);
  char fig[64];
  snprintf(fig, sizeof fig, "shmem_%s_latency_heap", kNames[op]);
  bench_result_bytes(fig, (unsigned long)b, h, "us");
  snprintf(fig, sizeof fig, "shmem_%s_latency_global", kNames[op]);
  bench_result_bytes(fig, (unsigned long)b, g, "us");
}

int main(int argc, char** argv) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes(), peer = n - 1;
  size_t max_bytes = argc > 1 ? (size_t)atol(argv[1]) : MAX_BYTES;
  if (max_bytes > MAX_BYTES) max_bytes = MAX_BYTES;
  if (argc > 2) only_ops = argv[2];
  char* heap_dst = shmem_malloc(MAX_BYTES);
  char* heap_src = shmem_malloc(MAX_BYTES);
  long* heap_long = shmem_calloc(1, sizeof(long));
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) pSync[0][i] = pSync[1][i] = SHMEM_SYNC_VALUE;
  memset(heap_src, 1, MAX_BYTES);
  memset(global_src, 1, MAX_BYTES);
  shmem_barrier_all();
  if (me == 0 && max_bytes >= 8) { /* max_bytes 0: collectives only */
    printf("# OpenSHMEM latency, %d PEs, PE 0 -> PE %d (us, median of %d samples)\n", n, peer, SAMPLES);
    printf("%-10s %10s %12s %12s\n", "op", "bytes", "heap_us", "global_us");
    for (enum Op op = PUT; op <= GET; ++op) {
      for (size_t b = 8; b <= max_bytes; b *= 2) {
        size_row(op, b, heap_dst, heap_src, heap_long, peer);
      }
    }
    /* blocked strided: `bytes` moved in 64-byte blocks spread over twice that span */
    for (enum Op op = IBPUT; HAVE_SHMEM_1_6_RMA && op <= IBGET; ++op) {
      for (size_t b = 8 * kBlockLongs; b <= max_bytes / 2; b *= 4) {
        size_row(op, b, heap_dst, heap_src, heap_long, peer);
      }
    }
    for (enum Op op = P; op < NOPS; ++op) {
      if (op == IBPUT || op == IBGET || (!HAVE_SHMEM_1_6_RMA && op >= SIGNAL_ADD) || !wanted(op)) continue;
      long* hw = op >= FADD ? heap_long : heap_long;
      double h = measure(op, NULL, NULL, 8, hw, peer);
      double g = measure(op, NULL, NULL, 8, op >= FADD ? &global_atomic : &global_long, peer);
      printf("%-10s %10d %12.3f %12.3f\n", kNames[op], 8, h, g);
      bench_result("shmem_8byte_latency_heap", kNames[op], h, "us");
      bench_result("shmem_8byte_latency_global", kNames[op], g, "us");
    }
    fflush(stdout);
  }
  shmem_barrier_all();
  /* collectives: every PE */
  /* barrier_all, sum_to_all (active set + pSync), sync_all and, with OpenSHMEM 1.5 teams, the team
   * reduction (gasket: the same-node cells, core/coll/cells.h; sum_to_all keeps the pSync path),
   * with 1.6 the inclusive and exclusive scans */
#if HAVE_SHMEM_1_6_SCAN
  enum { kColl = 6 };
#elif SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
  enum { kColl = 4 };
#else
  enum { kColl = 3 };
#endif
  double best[6] = {0, 0, 0, 0, 0, 0};
  for (int which = 0; which < kColl && only_ops == NULL; ++which) {
    double reps[SAMPLES];
    int iters = COLL_ITERATIONS;
    for (int r = 0; r < SAMPLES; ++r) {
      shmem_barrier_all();
      double t0 = bench_now_us();
      for (int i = 0; i < iters; ++i) {
        if (which == 0) shmem_barrier_all();
        else if (which == 1) shmem_long_sum_to_all(&red_dst, &red_src, 1, 0, 0, n, pWrk, pSync[i & 1]);
        else if (which == 2) shmem_sync_all();
#if SHMEM_MAJOR_VERSION > 1 || SHMEM_MINOR_VERSION >= 5
        else if (which == 3) shmem_long_sum_reduce(SHMEM_TEAM_WORLD, &red_dst, &red_src, 1);
#endif
#if HAVE_SHMEM_1_6_SCAN
        else if (which == 4) shmem_long_sum_inscan(SHMEM_TEAM_WORLD, &red_dst, &red_src, 1);
        else shmem_long_sum_exscan(SHMEM_TEAM_WORLD, &red_dst, &red_src, 1);
#endif
      }
      reps[r] = (bench_now_us() - t0) / iters;
    }
    best[which] = median(reps, SAMPLES);
  }
  if (me == 0 && only_ops == NULL) {
    printf("%-10s %10s %12.3f\n", "barrier", "-", best[0]);
    printf("%-10s %10d %12.3f\n", "sum_to_all", 8, best[1]);
    printf("%-10s %10s %12.3f\n", "sync_all", "-", best[2]);
    if (kColl > 3) printf("%-10s %10d %12.3f\n", "sum_reduce", 8, best[3]);
    if (kColl > 4) printf("%-10s %10d %12.3f\n", "sum_inscan", 8, best[4]);
    if (kColl > 5) printf("%-10s %10d %12.3f\n", "sum_exscan", 8, best[5]);
    char x[32];
    snprintf(x, sizeof x, "%dPEs", n);
    bench_result("shmem_barrier_latency", x, best[0], "us");
    bench_result("shmem_sum_to_all_8B_latency", x, best[1], "us");
    if (kColl > 4) bench_result("shmem_sum_inscan_8B_latency", x, best[4], "us");
    if (kColl > 5) bench_result("shmem_sum_exscan_8B_latency", x, best[5], "us");
  }
  shmem_barrier_all();
  shmem_free(heap_long);
  shmem_free(heap_src);
  shmem_free(heap_dst);
  shmem_finalize();
  return 0;
}
