/* Regression: libgasket_mpi.so exported its group helper under the plain C name
 * `select`, so a program calling libc's select() after MPI_Init got gasket's helper and aborted
 * with "the group is MPI_GROUP_NULL". Here select() must be libc's: a 10 ms sleep returning 0, and
 * MPI keeps working after it. */
#include <mpi.h>
#include <stdio.h>
#include <sys/select.h>
#include <sys/time.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  struct timeval tv = {0, 10000};
  double start = MPI_Wtime();
  int ready = select(0, NULL, NULL, NULL, &tv);
  double slept = MPI_Wtime() - start;
  if (ready != 0 || slept < 0.009) {
    printf("rank %d: select(0, NULL, NULL, NULL, 10 ms) returned %d after %.4f s (libc: 0 after >= 0.01 s)\n",
           rank, ready, slept);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

  /* flush/all/any/some/probe/gather are internal too: a program may define its own. */
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (sum != size * (size - 1) / 2) {
    printf("rank %d: allreduce after select gave %d, expected %d\n", rank, sum, size * (size - 1) / 2);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) printf("libc_select_after_mpi_init: ok on %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
