/* With default settings, 64 windows of 512 KiB made by MPI_Win_allocate, and 64
 * made by MPI_Win_create over 512 KiB blocks of MPI_Alloc_mem, all live at once on every rank;
 * each rank puts into its right neighbour's copy of every window (the first 64 KiB and the last
 * word) and gets its left neighbour's data back; then everything is freed and made again. */
#include <stdint.h>
#include <string.h>

#include "check.h"

enum { kWindows = 64, kWindowBytes = 512 << 10, kHeadBytes = 64 << 10 };

static unsigned char pattern(int rank, int w, size_t k) { return (unsigned char)(rank * 13 + w * 5 + k * 3 + 1); }

/* Writes this rank's pattern into `right`'s copy of every window, then checks its own copies. */
static void exchange(MPI_Win* wins, unsigned char** bases, int rank, int size) {
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  static unsigned char head[kHeadBytes];
  for (int w = 0; w < kWindows; ++w) {
    for (size_t k = 0; k < kHeadBytes; ++k) head[k] = pattern(rank, w, k);
    int64_t tail = (int64_t)rank * 1000 + w;
    MPI_OK(MPI_Win_fence(0, wins[w]));
    MPI_OK(MPI_Put(head, kHeadBytes, MPI_BYTE, right, 0, kHeadBytes, MPI_BYTE, wins[w]));
    MPI_OK(MPI_Put(&tail, 1, MPI_INT64_T, right, kWindowBytes - 8, 1, MPI_INT64_T, wins[w]));
    MPI_OK(MPI_Win_fence(0, wins[w]));
  }
  for (int w = 0; w < kWindows; ++w) {
    for (size_t k = 0; k < kHeadBytes; ++k) {
      if (bases[w][k] != pattern(left, w, k)) {
        fprintf(stderr, "rank %d: window %d byte %zu is %u, rank %d wrote %u\n", rank, w, k, bases[w][k], left,
                pattern(left, w, k));
        CHECK(0);
      }
    }
    int64_t tail;
    memcpy(&tail, bases[w] + kWindowBytes - 8, 8);
    CHECK_EQ(tail, (int64_t)left * 1000 + w);
    /* And read the right neighbour's copy back: it holds this rank's data. */
    int64_t back = -1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, wins[w]));
    MPI_OK(MPI_Get(&back, 1, MPI_INT64_T, right, kWindowBytes - 8, 1, MPI_INT64_T, wins[w]));
    MPI_OK(MPI_Win_unlock(right, wins[w]));
    CHECK_EQ(back, (int64_t)rank * 1000 + w);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Win wins[kWindows];
  unsigned char* bases[kWindows];

  for (int round = 0; round < 2; ++round) {
    for (int w = 0; w < kWindows; ++w) {
      MPI_OK(MPI_Win_allocate(kWindowBytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &bases[w], &wins[w]));
    }
    exchange(wins, bases, rank, size);
    for (int w = 0; w < kWindows; ++w) MPI_OK(MPI_Win_free(&wins[w]));

    for (int w = 0; w < kWindows; ++w) {
      MPI_OK(MPI_Alloc_mem(kWindowBytes, MPI_INFO_NULL, &bases[w]));
      MPI_OK(MPI_Win_create(bases[w], kWindowBytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &wins[w]));
    }
    exchange(wins, bases, rank, size);
    for (int w = 0; w < kWindows; ++w) {
      MPI_OK(MPI_Win_free(&wins[w]));
      MPI_OK(MPI_Free_mem(bases[w]));
    }
  }
  MPI_Finalize();
  return 0;
}
