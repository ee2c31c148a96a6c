/* A communicator freed right after a collective, and a new one created at once, take over the
 * same slot of the same-node collective cells while slower ranks may still be finishing the last
 * collective on the old one. Every loop below once hung (a stale waiter looked for its own flag
 * in a cell the new communicator had already overwritten) or must give exact results. */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "tests/mpi/check.h"

enum { kIterations = 400 };

/* dup, barrier, free */
static void dup_barrier_free(void) {
  for (int i = 0; i < kIterations; ++i) {
    MPI_Comm c;
    CHECK_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &c), MPI_SUCCESS);
    CHECK_EQ(MPI_Barrier(c), MPI_SUCCESS);
    CHECK_EQ(MPI_Comm_free(&c), MPI_SUCCESS);
    CHECK(c == MPI_COMM_NULL);
  }
}

/* split (two halves, changing with the iteration), barrier, free */
static void split_barrier_free(int rank) {
  for (int i = 0; i < kIterations; ++i) {
    MPI_Comm c;
    CHECK_EQ(MPI_Comm_split(MPI_COMM_WORLD, (rank + i) % 2, rank, &c), MPI_SUCCESS);
    CHECK_EQ(MPI_Barrier(c), MPI_SUCCESS);
    CHECK_EQ(MPI_Comm_free(&c), MPI_SUCCESS);
  }
}

/* dup, allreduce (values change every iteration so a stale cell shows), free */
static void dup_allreduce_free(int rank, int size) {
  for (int i = 0; i < kIterations; ++i) {
    MPI_Comm c;
    CHECK_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &c), MPI_SUCCESS);
    long in[4], out[4];
    for (int k = 0; k < 4; ++k) in[k] = (long)(rank + 1) * (i + k + 1);
    CHECK_EQ(MPI_Allreduce(in, out, 4, MPI_LONG, MPI_SUM, c), MPI_SUCCESS);
    for (int k = 0; k < 4; ++k) CHECK_EQ(out[k], (long)size * (size + 1) / 2 * (i + k + 1));
    CHECK_EQ(MPI_Comm_free(&c), MPI_SUCCESS);
  }
}

/* dup, barrier, bcast from a rotating root, free: the root leaves the bcast without waiting */
static void dup_bcast_free(int rank, int size) {
  for (int i = 0; i < kIterations; ++i) {
    MPI_Comm c;
    CHECK_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &c), MPI_SUCCESS);
    int root = i % size, value = rank == root ? 1000 + i : -1;
    CHECK_EQ(MPI_Barrier(c), MPI_SUCCESS);
    CHECK_EQ(MPI_Bcast(&value, 1, MPI_INT, root, c), MPI_SUCCESS);
    CHECK_EQ(value, 1000 + i);
    CHECK_EQ(MPI_Comm_free(&c), MPI_SUCCESS);
  }
}

/* A communicator of the world freed after `last` (0: barrier, 1: allreduce), then one created on
 * MPI_COMM_SELF (no other rank takes part, so a fast rank gets there while slower ones are still
 * in the world copy's collective: the case MPI-IO's file close/open hit) used at once. */
static void world_then_self(int rank, int size, int last) {
  for (int i = 0; i < kIterations; ++i) {
    MPI_Comm c, self;
    CHECK_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &c), MPI_SUCCESS);
    if (last == 0) {
      CHECK_EQ(MPI_Barrier(c), MPI_SUCCESS);
    } else {
      long in = (long)(rank + 1) * (i + 1), out = 0;
      CHECK_EQ(MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, c), MPI_SUCCESS);
      CHECK_EQ(out, (long)size * (size + 1) / 2 * (i + 1));
    }
    CHECK_EQ(MPI_Comm_free(&c), MPI_SUCCESS);
    CHECK_EQ(MPI_Comm_dup(MPI_COMM_SELF, &self), MPI_SUCCESS);
    long mine = -(long)i - 7, sum = 0;
    CHECK_EQ(MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, self), MPI_SUCCESS);
    CHECK_EQ(sum, mine);
    CHECK_EQ(MPI_Barrier(self), MPI_SUCCESS);
    CHECK_EQ(MPI_Comm_free(&self), MPI_SUCCESS);
  }
}

/* The same with the halves of the world (made once) creating the next communicator: only half
 * of the old members take part in the new one. */
static void world_then_half(int rank, int size, MPI_Comm half) {
  int hsize;
  MPI_Comm_size(half, &hsize);
  for (int i = 0; i < kIterations; ++i) {
    MPI_Comm c, h;
    CHECK_EQ(MPI_Comm_dup(MPI_COMM_WORLD, &c), MPI_SUCCESS);
    long in = rank + i, out = 0;
    CHECK_EQ(MPI_Allreduce(&in, &out, 1, MPI_LONG, MPI_SUM, c), MPI_SUCCESS);
    CHECK_EQ(out, (long)size * (size - 1) / 2 + (long)size * i);
    CHECK_EQ(MPI_Comm_free(&c), MPI_SUCCESS);
    CHECK_EQ(MPI_Comm_dup(half, &h), MPI_SUCCESS);
    long one = 1, count = 0;
    CHECK_EQ(MPI_Allreduce(&one, &count, 1, MPI_LONG, MPI_SUM, h), MPI_SUCCESS);
    CHECK_EQ(count, hsize);
    CHECK_EQ(MPI_Comm_free(&h), MPI_SUCCESS);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  dup_barrier_free();
  split_barrier_free(rank);
  dup_allreduce_free(rank, size);
  dup_bcast_free(rank, size);
  world_then_self(rank, size, 0);
  world_then_self(rank, size, 1);
  MPI_Comm half;
  CHECK_EQ(MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half), MPI_SUCCESS);
  world_then_half(rank, size, half);
  CHECK_EQ(MPI_Comm_free(&half), MPI_SUCCESS);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("cells_reuse: %d iterations of 7 loops at %d ranks passed\n", kIterations, size);
  MPI_Finalize();
  return 0;
}
