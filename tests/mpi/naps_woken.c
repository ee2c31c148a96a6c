/* The core's waiting policy under MPI: with a spin budget of one poll every wait naps at once, and
 * a nap lasts up to a second unless a peer's write rings the doorbell. A same-node ring slot, a
 * credit returned to a sender whose ring is full, a collective's cell flag: if any of them forgot
 * to ring, each wait would cost a second and these hundreds of rounds would run into the test's
 * timeout. Values are checked throughout. (Over a backend, waits yield instead.) */
#include <stdlib.h>

#include "tests/mpi/check.h"

enum { kRounds = 300, kBurst = 200 };

int main(int argc, char** argv) {
  setenv("GASKET_SPIN_COUNT", "1", 1);
  setenv("GASKET_NAP_LIMIT", "1000000", 1);
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* A token around the ring: every hop is a wait on a ring slot. */
  for (int round = 1; round <= kRounds; ++round) {
    int token = 0;
    if (rank == 0) {
      token = round;
      MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK_EQ(token, round + size - 1);
    } else {
      MPI_Recv(&token, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK_EQ(token, round + rank - 1);
      token += 1;
      MPI_Send(&token, 1, MPI_INT, right, 1, MPI_COMM_WORLD);
    }
  }

  /* Bursts longer than a same-node ring (16 slots): the sender's queue drains as the receiver
   * returns credits; synchronous sends wait on the receiver's acknowledgement. */
  for (int round = 0; round < 5; ++round) {
    for (int i = 0; i < kBurst; ++i) {
      int v = round * kBurst + i;
      if (rank == 0) {
        for (int dst = 1; dst < size; ++dst) MPI_Send(&v, 1, MPI_INT, dst, 2, MPI_COMM_WORLD);
      } else {
        int got = -1;
        MPI_Recv(&got, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ(got, v);
      }
    }
    int ack = rank;
    if (rank == 0) {
      for (int src = 1; src < size; ++src) {
        MPI_Recv(&ack, 1, MPI_INT, src, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ(ack, src);
      }
    } else {
      MPI_Ssend(&ack, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }
  }

  /* Collectives (same-node cells): every member waits on the others' flags. */
  for (int round = 1; round <= kRounds; ++round) {
    long mine = (long)round * (rank + 1), sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK_EQ(sum, (long)round * size * (size + 1) / 2);
    int root_value = rank == round % size ? round : -1;
    MPI_Bcast(&root_value, 1, MPI_INT, round % size, MPI_COMM_WORLD);
    CHECK_EQ(root_value, round);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
