/* An MPI program of a workspace that depends on gasket: an inclusive prefix sum (MPI_Scan) of
 * rank+1, checked on every rank against the closed form. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long mine = rank + 1, prefix = -1;
  MPI_Scan(&mine, &prefix, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  int bad = prefix != (long)(rank + 1) * (rank + 2) / 2, any_bad = 1;
  if (bad) fprintf(stderr, "mpi_scan: rank %d prefix %ld, expected %d\n", rank, prefix, (rank + 1) * (rank + 2) / 2);
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  if (rank == 0 && !any_bad) printf("mpi_scan: ok on %d ranks\n", size);
  MPI_Finalize();
  return any_bad;
}
