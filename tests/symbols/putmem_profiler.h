/* What the putmem profiler (putmem_profiler.c) counted on this PE. */
#ifndef TESTS_SYMBOLS_PUTMEM_PROFILER_H
#define TESTS_SYMBOLS_PUTMEM_PROFILER_H
long putmem_profiler_calls(void);
long putmem_profiler_bytes(void);
#endif
