/* A 3-rank program doing MPI_Get_accumulate and MPI_Fetch_and_op on MPI_SHORT_INT
 * and MPI_LONG_INT windows (pair types with holes) did not finish in 300 s over pciddc tcp, while
 * MPI_2INT finished. Rounds, per pair type (MPI_2INT as the control), each with a new target:
 *   the target puts the start values into its own window (exclusive lock on itself);
 *   fence epoch: every rank MPI_Get_accumulate MAXLOC (value base + rank, index rank);
 *   lock_all epoch: every rank MPI_Fetch_and_op MINLOC (value base - rank, index rank);
 *   lock_all epoch: every rank reads both results with MPI_Get_accumulate MPI_NO_OP.
 * Each fetched pair must be the start value or another rank's contribution; the results must be
 * the maximum and the minimum. Rounds from argv[1] (default 20). */
#include <string.h>

#include "tests/hangs/loop.h"

#define PAIR_ROUNDS(NAME, TYPE, PAIR)                                                               \
  static void NAME(MPI_Win win, int rank, int size, int rounds) {                                    \
    for (int round = 0; round < rounds; ++round) {                                                   \
      int target = round % size;                                                                     \
      int base = 100 + round * 20;                                                                   \
      if (rank == target) {                                                                          \
        PAIR start[2];                                                                               \
        memset(start, 0, sizeof start);                                                              \
        start[0].v = base - 1;                                                                       \
        start[0].i = -1;                                                                             \
        start[1].v = base + 50;                                                                      \
        start[1].i = -1;                                                                             \
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win));                                      \
        MPI_OK(MPI_Put(start, 2, TYPE, rank, 0, 2, TYPE, win));                                      \
        MPI_OK(MPI_Win_unlock(rank, win));                                                           \
      }                                                                                              \
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));                                                           \
      MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));                                                \
      PAIR mine, fetched;                                                                            \
      memset(&mine, 0, sizeof mine);                                                                 \
      mine.v = base + rank;                                                                          \
      mine.i = rank;                                                                                 \
      MPI_OK(MPI_Get_accumulate(&mine, 1, TYPE, &fetched, 1, TYPE, target, 0, 1, TYPE, MPI_MAXLOC, win)); \
      MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));                                                \
      if (fetched.i == -1) {                                                                         \
        CHECK_EQ(fetched.v, base - 1);                                                               \
      } else {                                                                                       \
        CHECK(fetched.i >= 0 && fetched.i < size && fetched.i != rank);                              \
        CHECK_EQ(fetched.v, base + fetched.i);                                                       \
      }                                                                                              \
      mine.v = base - rank;                                                                          \
      MPI_OK(MPI_Win_lock_all(0, win));                                                              \
      MPI_OK(MPI_Fetch_and_op(&mine, &fetched, TYPE, target, 1, MPI_MINLOC, win));                   \
      MPI_OK(MPI_Win_flush(target, win));                                                            \
      MPI_OK(MPI_Win_unlock_all(win));                                                               \
      if (fetched.i == -1) {                                                                         \
        CHECK_EQ(fetched.v, base + 50);                                                              \
      } else {                                                                                       \
        CHECK(fetched.i >= 0 && fetched.i < size && fetched.i != rank);                              \
        CHECK_EQ(fetched.v, base - fetched.i);                                                       \
      }                                                                                              \
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));                                                           \
      PAIR result[2];                                                                                \
      MPI_OK(MPI_Win_lock_all(0, win));                                                              \
      MPI_OK(MPI_Get_accumulate(NULL, 0, TYPE, result, 2, TYPE, target, 0, 2, TYPE, MPI_NO_OP, win)); \
      MPI_OK(MPI_Win_unlock_all(win));                                                               \
      CHECK_EQ(result[0].v, base + size - 1);                                                        \
      CHECK_EQ(result[0].i, size - 1);                                                               \
      CHECK_EQ(result[1].v, base - (size - 1));                                                      \
      CHECK_EQ(result[1].i, size - 1);                                                               \
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* read before the next round's target rewrites */       \
    }                                                                                                \
  }

typedef struct { short v; int i; } ShortInt;
typedef struct { long v; int i; } LongInt;
typedef struct { int v; int i; } TwoInt;
PAIR_ROUNDS(short_int_rounds, MPI_SHORT_INT, ShortInt)
PAIR_ROUNDS(long_int_rounds, MPI_LONG_INT, LongInt)
PAIR_ROUNDS(two_int_rounds, MPI_2INT, TwoInt)

int main(int argc, char** argv) {
  int rank, size;
  int rounds = start_rounds(&argc, &argv, 20, &rank, &size);
  /* one window per type, its element the pair's own size (holes included) */
  void* memory[3];
  MPI_Win win[3];
  const int bytes[3] = {(int)sizeof(ShortInt), (int)sizeof(LongInt), (int)sizeof(TwoInt)};
  for (int t = 0; t < 3; ++t) {
    MPI_OK(MPI_Win_allocate(2 * bytes[t], bytes[t], MPI_INFO_NULL, MPI_COMM_WORLD, &memory[t], &win[t]));
  }
  short_int_rounds(win[0], rank, size, rounds);
  long_int_rounds(win[1], rank, size, rounds);
  two_int_rounds(win[2], rank, size, rounds);
  for (int t = 0; t < 3; ++t) MPI_OK(MPI_Win_free(&win[t]));
  if (rank == 0) printf("pair_type_fetch: %d rounds of MPI_SHORT_INT, MPI_LONG_INT, MPI_2INT ok on %d ranks\n", rounds, size);
  MPI_OK(MPI_Finalize());
  return 0;
}
