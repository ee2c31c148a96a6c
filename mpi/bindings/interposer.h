/* The profiling tool of profiling_test: what it counted of the calls it intercepts. */
#ifndef GASKET_MPI_BINDINGS_INTERPOSER_H_
#define GASKET_MPI_BINDINGS_INTERPOSER_H_

#include <mpi.h>

struct ToolCounts {
  int sends;            /* MPI_Send calls */
  long long send_bytes; /* bytes they carried */
  int startalls;        /* MPI_Startall calls */
};

struct ToolCounts tool_counts(void);

#endif
