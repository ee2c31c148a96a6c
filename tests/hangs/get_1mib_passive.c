/* Regression: an emulated 1 MiB MPI_Get whose reply never arrived (the origin in the
 * backend's wait for the reply, the target already in MPI_Barrier; ~2 in 55 runs under load over
 * pciddc shm). Rounds of: every rank locks its right neighbour's window (memory from malloc,
 * so the get is emulated on the backends), gets 1 MiB from it, unlocks, checks every byte, then
 * meets the others in MPI_Barrier — the target serves the get only from inside MPI calls.
 * Rounds from argv[1] (default 20). */
#include <stdint.h>
#include <string.h>

#include "tests/hangs/loop.h"

enum { kBytes = 1 << 20 };

static unsigned char pattern(int owner, int round, size_t i) {
  return (unsigned char)(owner * 31 + round * 7 + (int)(i % 251));
}

int main(int argc, char** argv) {
  int rank, size;
  int rounds = start_rounds(&argc, &argv, 20, &rank, &size);
  unsigned char* exposed = malloc(kBytes);
  unsigned char* got = malloc(kBytes);
  CHECK(exposed != NULL && got != NULL);
  MPI_Win win;
  MPI_OK(MPI_Win_create(exposed, kBytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  int right = (rank + 1) % size;
  for (int round = 0; round < rounds; ++round) {
    for (size_t i = 0; i < kBytes; ++i) exposed[i] = pattern(rank, round, i);
    memset(got, 0, kBytes);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* every window holds this round's bytes */
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    MPI_OK(MPI_Get(got, kBytes, MPI_BYTE, right, 0, kBytes, MPI_BYTE, win));
    MPI_OK(MPI_Win_unlock(right, win));
    for (size_t i = 0; i < kBytes; ++i) {
      if (got[i] != pattern(right, round, i)) {
        fprintf(stderr, "rank %d: round %d: byte %zu got from rank %d is %u, expected %u\n", rank, round, i,
                right, got[i], pattern(right, round, i));
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* nobody rewrites its window while it is read */
  }
  MPI_OK(MPI_Win_free(&win));
  free(exposed);
  free(got);
  if (rank == 0) printf("get_1mib_passive: %d rounds ok on %d ranks\n", rounds, size);
  MPI_OK(MPI_Finalize());
  return 0;
}
