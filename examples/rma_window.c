/* MPI one-sided communication: each rank exposes an array in a window; in one fence epoch it puts
 * its rank into its right neighbour's array, accumulates (MPI_SUM) into rank 0's, and gets its left
 * neighbour's initial value; then a passive-target lock epoch reads rank 0's total.
 * mpicc -o rma_window rma_window.c && mpiexec -n 4 ./rma_window */
#include <mpi.h>
#include <stdio.h>

enum { FROM_LEFT, SUM, INITIAL, SLOTS };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  int exposed[SLOTS] = {-1, 0, 100 + rank};
  MPI_Win win;
  MPI_Win_create(exposed, sizeof exposed, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);

  int one = rank + 1, got_initial = -1;
  MPI_Win_fence(0, win);
  MPI_Put(&rank, 1, MPI_INT, right, FROM_LEFT, 1, MPI_INT, win);
  MPI_Accumulate(&one, 1, MPI_INT, 0, SUM, 1, MPI_INT, MPI_SUM, win);
  MPI_Get(&got_initial, 1, MPI_INT, left, INITIAL, 1, MPI_INT, win);
  MPI_Win_fence(0, win);

  int sum_at_root = -1;
  MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
  MPI_Get(&sum_at_root, 1, MPI_INT, 0, SUM, 1, MPI_INT, win);
  MPI_Win_unlock(0, win);

  int errors = 0;
  if (exposed[FROM_LEFT] != left) {
    fprintf(stderr, "rma_window: rank %d holds %d from its left, expected %d\n", rank, exposed[FROM_LEFT], left);
    errors++;
  }
  if (got_initial != 100 + left) {
    fprintf(stderr, "rma_window: rank %d got %d from rank %d, expected %d\n", rank, got_initial, left, 100 + left);
    errors++;
  }
  if (sum_at_root != size * (size + 1) / 2) {
    fprintf(stderr, "rma_window: rank %d read sum %d at rank 0, expected %d\n", rank, sum_at_root, size * (size + 1) / 2);
    errors++;
  }
  int total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && total == 0) printf("rma_window: ok on %d ranks\n", size);
  MPI_Win_free(&win);
  MPI_Finalize();
  return total != 0;
}
