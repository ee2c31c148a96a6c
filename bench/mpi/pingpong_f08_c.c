/* The C half of pingpong_f08: the same call loop in C, to price the Fortran binding alone.
 * Nanoseconds per MPI_Send of 8 bytes to MPI_PROC_NULL (no communication: the binding and the
 * library's argument checks only), minimum of 5 repetitions. */
#include <mpi.h>

double c_proc_null_send_ns(const void* buf, int iters) {
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) MPI_Send(buf, 8, MPI_BYTE, MPI_PROC_NULL, 1, MPI_COMM_WORLD);
    double t = (MPI_Wtime() - t0) / iters * 1e9;
    if (t < best) best = t;
  }
  return best;
}
