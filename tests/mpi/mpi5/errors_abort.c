/* MPI_ERRORS_ABORT (MPI 4.0 section 9.3): an error on a communicator with this handler aborts the
 * communicator's processes, as MPI_Abort on it would: rank 0 sends to an invalid rank, and the job
 * must end non-zero with a message naming the call. */
#include "tests/mpi/check.h"

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_ABORT));
  MPI_OK(MPI_Barrier(dup));
  if (rank == 0) {
    int x = 1;
    MPI_Send(&x, 1, MPI_INT, 1000, 0, dup);
    fprintf(stderr, "FAILED: MPI_Send to rank 1000 returned under MPI_ERRORS_ABORT\n");
    return 0;
  }
  MPI_Recv(NULL, 0, MPI_INT, 0, 99, dup, MPI_STATUS_IGNORE); /* never sent: the abort ends it */
  return 0;
}
