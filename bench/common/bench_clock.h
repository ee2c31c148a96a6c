/* Timing helpers of the plain C benchmarks that also build against other implementations (no
 * gasket headers): a monotonic clock in microseconds and an in-place sort of samples. */
#ifndef GASKET_BENCH_CLOCK_H
#define GASKET_BENCH_CLOCK_H

#include <stdlib.h>
#include <time.h>

static inline double bench_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static inline int bench_cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* The longest a benchmark's sample should last: on a fast path a sample is its planned operations
 * (well under this); on a slow one (tcp between hosts, an emulated path) fewer operations, so the
 * whole benchmark still ends in bench/compare's time limit instead of being taken for a hang. */
#define BENCH_SAMPLE_BUDGET_US 20000.0

/* Operations per sample: `planned`, or fewer when one operation (`one_op_us`, the time of a
 * warm-up) is slow enough that `planned` of them would outlast BENCH_SAMPLE_BUDGET_US; at least 1. */
static inline long bench_sample_iterations(long planned, double one_op_us) {
  double fit = one_op_us > 0 ? BENCH_SAMPLE_BUDGET_US / one_op_us : (double)planned;
  long n = fit < (double)planned ? (long)fit : planned;
  return n < 1 ? 1 : n;
}

/* Sorts `n` samples ascending (the median is then samples[n / 2]). */
static inline void bench_sort(double* samples, int n) { qsort(samples, (size_t)n, sizeof(double), bench_cmp_double); }

#endif
