/* A profiling tool as OpenSHMEM 1.5 chapter 10 describes one: it defines shmem_putmem (overriding
 * the library's weak definition), counts the calls and bytes, and reaches the library through
 * pshmem_putmem. */
#include <pshmem.h>
#include <shmem.h>

#include "tests/symbols/putmem_profiler.h"

static long profiled_calls;
static long profiled_bytes;

void shmem_putmem(void* dest, const void* source, size_t nelems, int pe) {
  profiled_calls++;
  profiled_bytes += (long)nelems;
  pshmem_putmem(dest, source, nelems, pe);
}

long putmem_profiler_calls(void) { return profiled_calls; }
long putmem_profiler_bytes(void) { return profiled_bytes; }
