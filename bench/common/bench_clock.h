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

/* Sorts `n` samples ascending (the median is then samples[n / 2]). */
static inline void bench_sort(double* samples, int n) { qsort(samples, (size_t)n, sizeof(double), bench_cmp_double); }

#endif
