/* Resident memory of this process (VmRSS, KiB) from /proc/self/status; -1 when unknown. Plain C,
 * shared by the hello programs of every programming model. */
#ifndef GASKET_BENCH_RESIDENT_H
#define GASKET_BENCH_RESIDENT_H

#include <stdio.h>
#include <string.h>

static inline long resident_kib(void) {
  FILE* f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  if (f == NULL) return -1;
  while (fgets(line, sizeof line, f) != NULL) {
    if (strncmp(line, "VmRSS:", 6) == 0) sscanf(line + 6, "%ld", &kib);
  }
  fclose(f);
  return kib;
}

#endif
