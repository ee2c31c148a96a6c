/* The per-call cost of three small operations, built twice from this file: against the native
 * mpi.h (libgasket_mpi.so) and against the standard ABI's (libmpi_abi.so.1). 2 ranks or more;
 * rank 0 prints one line per operation: "<operation> <median us per call>" over SAMPLES samples
 * of ITERS calls each.
 *   pingpong_8B   MPI_Send/MPI_Recv of 8 bytes between ranks 0 and 1, half the round trip
 *   isend_wait_8B MPI_Isend+MPI_Wait / MPI_Irecv+MPI_Wait of 8 bytes, half the round trip
 *   allreduce_8B  MPI_Allreduce of one double (MPI_SUM) over every rank */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { ITERS = 2000, SAMPLES = 21 };

static int compare(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static double median(double* v, int n) {
  qsort(v, (size_t)n, sizeof *v, compare);
  return v[n / 2];
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double samples[SAMPLES], word = 1.0, sum = 0.0;
  const char* names[3] = {"pingpong_8B", "isend_wait_8B", "allreduce_8B"};
  for (int op = 0; op < 3; ++op) {
    for (int s = -1; s < SAMPLES; ++s) { /* sample -1 warms up */
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int i = 0; i < ITERS; ++i) {
        if (op == 2) {
          MPI_Allreduce(&word, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        } else if (rank < 2) {
          int peer = 1 - rank;
          MPI_Request r;
          for (int leg = 0; leg < 2; ++leg) {
            int sending = leg == rank;
            if (op == 0 && sending) MPI_Send(&word, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD);
            if (op == 0 && !sending) MPI_Recv(&word, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (op == 1 && sending) MPI_Isend(&word, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r);
            if (op == 1 && !sending) MPI_Irecv(&word, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &r);
            if (op == 1) MPI_Wait(&r, MPI_STATUS_IGNORE);
          }
        }
      }
      double per_call = (MPI_Wtime() - t0) / ITERS * 1e6 / (op == 2 ? 1 : 2);
      if (s >= 0) samples[s] = per_call;
    }
    if (op == 2 && sum != size) {
      fprintf(stderr, "allreduce: %g, expected %d\n", sum, size);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) printf("%s %.3f\n", names[op], median(samples, SAMPLES));
  }
  MPI_Finalize();
  return 0;
}
