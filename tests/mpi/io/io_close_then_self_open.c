/* Regression (io_close_then_self_open): MPI_File_close ended with a barrier on the file's private
 * communicator and freed it; rank 0, out of the barrier first, opened a file on MPI_COMM_SELF,
 * whose new communicator took over the freed one's same-node collective cells while another rank
 * was still reading them in the barrier: that rank waited forever (io_files hung in 1 of 7 runs).
 * Here the pattern repeats 100 times: open on MPI_COMM_WORLD, close, rank 0 opens alone. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../check.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[4200], own[4300];
  int job = (int)getpid();
  MPI_Bcast(&job, 1, MPI_INT, 0, MPI_COMM_WORLD);
  snprintf(path, sizeof path, "%s/io_close_then_self_open.%d", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp",
           job);
  snprintf(own, sizeof own, "%s.rank0", path);
  for (int round = 0; round < 100; ++round) {
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_write_at(fh, rank, &round, 1, MPI_BYTE, MPI_STATUS_IGNORE));
    MPI_OK(MPI_File_close(&fh));
    if (rank == 0) {
      MPI_OK(MPI_File_open(MPI_COMM_SELF, own, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                           MPI_INFO_NULL, &fh));
      MPI_OK(MPI_File_close(&fh));
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_OK(MPI_File_delete(path, MPI_INFO_NULL));
  MPI_Finalize();
  if (rank == 0) printf("io_close_then_self_open: %d ranks ok\n", size);
  return 0;
}
