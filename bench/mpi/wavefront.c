/* A pipelined wavefront of small dependent messages (the shape of the Parallel Research Kernels'
 * MPI1 p2p kernel, written here from its description): an M x N grid, columns split in blocks
 * over the ranks; point (i, j) = (i-1, j) + (i, j-1) - (i-1, j-1). Each rank sweeps its block
 * row by row, receiving the value left of its first column from rank-1 (one double per row) and
 * sending its last column's value to rank+1; after each sweep the last rank sends the corner back
 * to rank 0, which starts the next sweep from it. Latency-bound: every row waits on a message.
 * Usage: wavefront [ITERATIONS M N] (default 10 1024 1024). Prints MFlop/s (2 flops per point)
 * and the check of the corner value; with BENCH_RESULTS=1 a RESULT line for bench/compare.
 * A standard MPI program: builds with gasket's, Open MPI's and MPICH's mpicc. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/common/bench_results.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int iterations = argc > 1 ? atoi(argv[1]) : 10;
  long m = argc > 2 ? atol(argv[2]) : 1024;
  long n = argc > 3 ? atol(argv[3]) : 1024;
  if (iterations < 1 || m < 2 || n < size) {
    if (rank == 0) fprintf(stderr, "wavefront: need ITERATIONS >= 1, M >= 2, N >= ranks (got %d %ld %ld)\n", iterations, m, n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  /* Columns [first, last] of the global grid; one halo column at local index 0. */
  long first = n * rank / size, last = n * (rank + 1) / size - 1;
  long width = last - first + 2;
  double* grid = calloc((size_t)(m * width), sizeof(double));
#define AT(i, j) grid[(i) * width + ((j) - first + 1)]
  for (long j = first > 0 ? first - 1 : 0; j <= last; ++j) AT(0, j) = (double)j; /* row 0, halo included */
  for (long i = 0; i < m; ++i)
    if (first == 0) AT(i, 0) = (double)i;
  double t0 = 0;
  for (int it = 0; it <= iterations; ++it) {
    if (it == 1) { /* iteration 0 warms up */
      MPI_Barrier(MPI_COMM_WORLD);
      t0 = MPI_Wtime();
    }
    for (long i = 1; i < m; ++i) {
      if (rank > 0) MPI_Recv(&AT(i, first - 1), 1, MPI_DOUBLE, rank - 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (long j = first > 0 ? first : 1; j <= last; ++j) AT(i, j) = AT(i - 1, j) + AT(i, j - 1) - AT(i - 1, j - 1);
      if (rank < size - 1) MPI_Send(&AT(i, last), 1, MPI_DOUBLE, rank + 1, 1, MPI_COMM_WORLD);
    }
    /* The corner closes the loop: rank 0's next sweep starts from -grid(M-1, N-1). */
    if (size == 1) {
      AT(0, 0) = -AT(m - 1, n - 1);
    } else if (rank == size - 1) {
      double corner = -AT(m - 1, n - 1);
      MPI_Send(&corner, 1, MPI_DOUBLE, 0, 2, MPI_COMM_WORLD);
    } else if (rank == 0) {
      MPI_Recv(&AT(0, 0), 1, MPI_DOUBLE, size - 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  double elapsed = MPI_Wtime() - t0, slowest = 0;
  MPI_Reduce(&elapsed, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  int ok = 1;
  if (rank == size - 1) {
    /* Each sweep adds (M-1)+(N-1) to the corner's distance from the start value. */
    double expected = (double)(iterations + 1) * (double)(m + n - 2);
    ok = AT(m - 1, n - 1) == expected;
    if (!ok) fprintf(stderr, "wavefront: corner %.17g, expected %.17g\n", AT(m - 1, n - 1), expected);
  }
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) {
    double mflops = 2.0 * (double)(m - 1) * (double)(n - 1) * iterations / slowest / 1e6;
    printf("wavefront %ld x %ld, %d ranks, %d iterations: %.1f MFlop/s (%.3f ms per sweep), check %s\n", m, n, size,
           iterations, mflops, slowest / iterations * 1e3, ok ? "ok" : "FAILED");
    char shape[64];
    snprintf(shape, sizeof shape, "%ldx%ld", m, n);
    bench_result("mpi wavefront", shape, mflops, "MFlop/s");
  }
  free(grid);
  MPI_Finalize();
  return ok ? 0 : 1;
}
