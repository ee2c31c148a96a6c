/* MPI hello world for bench/compare: start-up time of the whole job and rank 0's resident memory
 * after MPI_Init. Builds unchanged with any mpicc. */
#include <mpi.h>
#include <stdio.h>

#include "bench_results.h"
#include "resident.h"

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  long kib = resident_kib();
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) {
    printf("hello from %d ranks; rank 0 resident after MPI_Init: %.1f MiB\n", size, kib / 1024.0);
    bench_result("resident_after_init", "mpi", kib / 1024.0, "MiB");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
