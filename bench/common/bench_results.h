/* Machine-readable results for bench/compare, usable from C and C++ benchmark programs that must
 * also compile against other MPI / OpenSHMEM implementations (plain C99, no gasket headers).
 * With BENCH_RESULTS=1 in the environment, bench_result() prints one line
 *   RESULT <TAB> figure <TAB> x <TAB> value <TAB> unit
 * next to the program's human-readable table; otherwise it prints nothing. */
#ifndef GASKET_BENCH_RESULTS_H
#define GASKET_BENCH_RESULTS_H

#include <stdio.h>
#include <stdlib.h>

static inline int bench_results_enabled(void) {
  const char* v = getenv("BENCH_RESULTS");
  return v != NULL && v[0] == '1';
}

/* BENCH_CONDITION (set by bench/compare/with_burners.sh: "4 CPU burners") names the condition of
 * the run, appended to the figure so a loaded run's rows stand beside the quiet ones. */
static inline void bench_result(const char* figure, const char* x, double value, const char* unit) {
  if (!bench_results_enabled()) return;
  const char* condition = getenv("BENCH_CONDITION");
  if (condition != NULL && condition[0] != '\0') {
    printf("RESULT\t%s, %s\t%s\t%.6g\t%s\n", figure, condition, x, value, unit);
  } else {
    printf("RESULT\t%s\t%s\t%.6g\t%s\n", figure, x, value, unit);
  }
}

static inline void bench_result_bytes(const char* figure, unsigned long bytes, double value,
                                      const char* unit) {
  char x[32];
  snprintf(x, sizeof x, "%lu", bytes);
  bench_result(figure, x, value, unit);
}

#endif
