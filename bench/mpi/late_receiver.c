/* Two benchmarks of the backend paths, printed as tables (a standard MPI program):
 *  flood: rank 1 sleeps 1 s before posting its receives while rank 0 issues 1000 MPI_Isends of
 *         400 B; the time rank 0 spends in the MPI_Isend calls (non-blocking calls should take
 *         microseconds, not the receiver's sleep);
 *  accumulate: MPI_Accumulate (MPI_SUM) of 8 B .. 1 MiB of MPI_INT as a strided derived type
 *         (every other int) from rank 0 to rank 1 under lock_all + flush, microseconds per call,
 *         median of 5 runs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static void flood(int rank) {
  enum { kCalls = 1000, kBytes = 400 };
  char* buf = calloc(kCalls, kBytes);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * kCalls);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    double t = MPI_Wtime();
    for (int i = 0; i < kCalls; ++i) MPI_Isend(buf + i * kBytes, kBytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &reqs[i]);
    double issued = MPI_Wtime() - t;
    MPI_Waitall(kCalls, reqs, MPI_STATUSES_IGNORE);
    printf("| flood | %d x MPI_Isend %d B | issue %.6f s | complete %.6f s |\n", kCalls, kBytes, issued, MPI_Wtime() - t);
  } else if (rank == 1) {
    sleep(1);
    for (int i = 0; i < kCalls; ++i) MPI_Irecv(buf + i * kBytes, kBytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &reqs[i]);
    MPI_Waitall(kCalls, reqs, MPI_STATUSES_IGNORE);
  }
  free(reqs);
  free(buf);
}

static void accumulate(int rank) {
  enum { kMaxInts = (1 << 20) / 4, kRuns = 5 };
  int* base;
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)2 * kMaxInts * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  memset(base, 0, (size_t)2 * kMaxInts * sizeof(int));
  int* src = calloc((size_t)kMaxInts, sizeof(int));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("| accumulate bytes | us per call (strided MPI_INT, median of %d) |\n|---|---|\n", kRuns);
  for (int bytes = 8; bytes <= (1 << 20); bytes *= 8) {
    int n = bytes / 4;
    MPI_Datatype strided;
    MPI_Type_vector(n, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    double runs[kRuns];
    for (int k = 0; k < kRuns; ++k) {
      MPI_Barrier(MPI_COMM_WORLD);
      double t = MPI_Wtime();
      if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        MPI_Accumulate(src, n, MPI_INT, 1, 0, 1, strided, MPI_SUM, win);
        MPI_Win_unlock(1, win);
      }
      runs[k] = (MPI_Wtime() - t) * 1e6;
      MPI_Barrier(MPI_COMM_WORLD);
    }
    qsort(runs, kRuns, sizeof runs[0], cmp);
    if (rank == 0) printf("| %d | %.1f |\n", bytes, runs[kRuns / 2]);
    MPI_Type_free(&strided);
  }
  free(src);
  MPI_Win_free(&win);
}

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  flood(rank);
  accumulate(rank);
  MPI_Finalize();
  return 0;
}
