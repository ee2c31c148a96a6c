/* MPI_File_read_at_all alone, in a loop: the 3-D darray view of doubles of io_bench.c, written
 * once (write_at_all + sync), then read back `calls` times from the page cache, each call between
 * two barriers. io_bench.c measures one read after each write + fsync, where the disk's write-back
 * and the job's start-up move the figure by 2x; this loop shows the call's own cost (its
 * agreements, its system calls, its copies). A standard MPI program: it builds with Open MPI and
 * MPICH too. Prints per rank count "read_at_all_loop bytes MB/s" (the slowest rank's median of
 * call + closing barrier) and the ranks' median time inside the call, and checks the bytes read.
 *   io_read_bench [edge (default 160)] [calls (default 50)] [directory (default $TMPDIR or /tmp)] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/io/io_darray.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int edge = argc > 1 ? atoi(argv[1]) : 160, calls = argc > 2 ? atoi(argv[2]) : 50;
  const char* dir = argc > 3 ? argv[3] : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (edge < 1 || calls < 1) {
    if (rank == 0) fprintf(stderr, "io_read_bench: edge %d and calls %d must be positive\n", edge, calls);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int job = (int)getpid();
  MPI_Bcast(&job, 1, MPI_INT, 0, MPI_COMM_WORLD);
  char path[4096];
  snprintf(path, sizeof path, "%s/io_read_bench.%d", dir, job);

  long n_local;
  MPI_Datatype ft = darray_of_doubles(edge, rank, size, &n_local);
  double* mine = malloc(sizeof(double) * (size_t)n_local);
  double* back = malloc(sizeof(double) * (size_t)n_local);
  for (long i = 0; i < n_local; ++i) mine[i] = rank * 1e9 + (double)i;
  memset(back, 0, sizeof(double) * (size_t)n_local);

  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
  MPI_File_write_at_all(fh, 0, mine, (int)n_local, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_sync(fh);

  double* in_call = malloc(sizeof(double) * (size_t)calls);
  double* with_barrier = malloc(sizeof(double) * (size_t)calls);
  int wrong = 0;
  for (int k = 0; k < calls; ++k) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_File_read_at_all(fh, 0, back, (int)n_local, MPI_DOUBLE, MPI_STATUS_IGNORE);
    double t1 = MPI_Wtime();
    MPI_Barrier(MPI_COMM_WORLD);
    in_call[k] = t1 - t0;
    with_barrier[k] = MPI_Wtime() - t0;
    if (k == 0 && memcmp(back, mine, sizeof(double) * (size_t)n_local) != 0) wrong = 1;
  }
  MPI_File_close(&fh);

  double mine_times[2] = {median_of(in_call, calls), median_of(with_barrier, calls)}, slowest[2], sum[2];
  MPI_Reduce(mine_times, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine_times, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  int any_wrong = 0;
  MPI_Reduce(&wrong, &any_wrong, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    long total = 8L * edge * edge * edge;
    printf("# io_read_bench: %d ranks, %d^3 doubles (%ld bytes) in a darray view, %d calls; mean over ranks of the "
           "median time in the call %.1f us (slowest rank %.1f us)\n",
           size, edge, total, calls, 1e6 * sum[0] / size, 1e6 * slowest[0]);
    printf("read_at_all_loop %ld %.1f\n", total, total / 1e6 / slowest[1]);
    if (any_wrong) printf("# WRONG: data read back differs from data written\n");
  }
  MPI_Type_free(&ft);
  free(mine);
  free(back);
  free(in_call);
  free(with_barrier);
  MPI_Finalize();
  return any_wrong;
}
