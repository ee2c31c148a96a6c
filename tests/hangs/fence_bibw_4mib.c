/* Regression: MPI_Win_fence on an allocated window at 4 MiB hung (osu_put_bibw -s fence,
 * ~2 in 16 runs under load). The same pattern: ranks in pairs (0-1, 2-3, ...), each puts a burst
 * of 4 MiB messages into its partner's MPI_Win_allocate window between two fences, both
 * directions at once, round after round; the bytes landed are checked every round. An odd last
 * rank only takes part in the fences. Rounds from argv[1] (default 10). */
#include <stdint.h>
#include <string.h>

#include "tests/hangs/loop.h"

enum { kBytes = 4 << 20, kBurst = 4 };

static uint32_t word(int from, int round, int slot, size_t i) {
  return (uint32_t)from * 0x9E3779B1u ^ (uint32_t)round * 0x85EBCA77u ^ (uint32_t)slot * 0xC2B2AE3Du ^ (uint32_t)i;
}

int main(int argc, char** argv) {
  int rank, size;
  int rounds = start_rounds(&argc, &argv, 10, &rank, &size);
  const size_t words = kBytes / sizeof(uint32_t);
  uint32_t* window = NULL;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate((MPI_Aint)kBytes * kBurst, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &window, &win));
  uint32_t* out = malloc((size_t)kBytes * kBurst);
  CHECK(out != NULL);
  int partner = (rank % 2 == 0) ? rank + 1 : rank - 1;
  if (partner >= size) partner = MPI_PROC_NULL;
  MPI_OK(MPI_Win_fence(0, win));
  for (int round = 0; round < rounds; ++round) {
    for (int slot = 0; slot < kBurst; ++slot) {
      for (size_t i = 0; i < words; ++i) out[slot * words + i] = word(rank, round, slot, i);
    }
    for (int slot = 0; slot < kBurst; ++slot) {
      MPI_OK(MPI_Put(out + slot * words, kBytes, MPI_BYTE, partner, (MPI_Aint)slot * kBytes, kBytes, MPI_BYTE, win));
    }
    MPI_OK(MPI_Win_fence(0, win));
    if (partner != MPI_PROC_NULL) {
      for (int slot = 0; slot < kBurst; ++slot) {
        for (size_t i = 0; i < words; ++i) {
          if (window[slot * words + i] != word(partner, round, slot, i)) {
            fprintf(stderr, "rank %d: round %d: word %zu of message %d from rank %d is %u, expected %u\n", rank,
                    round, i, slot, partner, window[slot * words + i], word(partner, round, slot, i));
            MPI_Abort(MPI_COMM_WORLD, 1);
          }
        }
      }
    }
    MPI_OK(MPI_Win_fence(0, win)); /* checked before the partner's next burst overwrites it */
  }
  MPI_OK(MPI_Win_free(&win));
  free(out);
  if (rank == 0) printf("fence_bibw_4mib: %d rounds ok on %d ranks\n", rounds, size);
  MPI_OK(MPI_Finalize());
  return 0;
}
