/* A profiling tool as the MPI standard's profiling interface describes one (MPI 4.1 section 15.2):
 * it defines MPI_Send and MPI_Startall itself, counts what it sees, and calls the library through
 * the PMPI_ names. Linked into profiling_test statically (Bazel) and as a shared library
 * (interpose_shared_test.sh). */
#include "interposer.h"

static struct ToolCounts counts; /* a tool's own state; the test reads it through tool_counts() */

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  int size = 0;
  PMPI_Type_size(datatype, &size);
  counts.sends += 1;
  counts.send_bytes += (long long)count * size;
  return PMPI_Send(buf, count, datatype, dest, tag, comm);
}

int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  counts.startalls += 1;
  return PMPI_Startall(count, array_of_requests);
}

struct ToolCounts tool_counts(void) { return counts; }
