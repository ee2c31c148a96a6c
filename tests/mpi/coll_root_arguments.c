/* Arguments significant at one rank only must not steer the others: every rank of a blocking
 * collective takes the same algorithm whatever the others pass where the standard lets them
 * differ, and every byte arrives.
 *  - MPI_Gatherv / MPI_Scatterv: the counts and displacements are significant at the root alone
 *    (MPI 4.1, 6.5 and 6.6); the non-roots pass NULL for both (as mpi4py does), with blocks of
 *    0 B to 64 KiB and the root in place every other round.
 *  - MPI_Bcast: the datatypes need only the same type signature (MPI 4.1, 6.4): the root
 *    broadcasts n ints through a vector type with gaps while the others receive n contiguous
 *    ints, and the reverse, from 1 int to past the 1 MiB a member stages; the gaps stay untouched.
 * Every rank count and root in turn, on MPI_COMM_WORLD. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int value_of(int root, int round, int i) { return root * 1000003 + round * 7919 + i * 3 + 1; }

static void rooted_vectors(MPI_Comm comm, int round, int block) {
  int rank, n;
  MPI_OK(MPI_Comm_rank(comm, &rank));
  MPI_OK(MPI_Comm_size(comm, &n));
  int root = round % n, in_place = round % 2 == 1;
  char* mine = malloc((size_t)block + 1);
  char* all = malloc((size_t)block * n + 1);
  int* counts = NULL;
  int* displs = NULL;
  if (rank == root) {  /* blocks in reverse rank order: displacements that are not the default */
    counts = malloc(sizeof(int) * n);
    displs = malloc(sizeof(int) * n);
    for (int r = 0; r < n; ++r) counts[r] = block, displs[r] = (n - 1 - r) * block;
  }

  for (int i = 0; i < block; ++i) mine[i] = (char)(rank * 37 + round * 11 + i);
  if (rank == root) {
    memset(all, 0x5a, (size_t)block * n);
    if (in_place) memcpy(all + displs[rank], mine, (size_t)block);
  }
  MPI_OK(MPI_Gatherv(rank == root && in_place ? MPI_IN_PLACE : mine, block, MPI_CHAR, all, counts, displs, MPI_CHAR,
                     root, comm));
  if (rank == root) {
    for (int r = 0; r < n; ++r) {
      for (int i = 0; i < block; ++i) CHECK_EQ(all[displs[r] + i], (char)(r * 37 + round * 11 + i));
    }
  }

  if (rank == root) {
    for (int r = 0; r < n; ++r) {
      for (int i = 0; i < block; ++i) all[displs[r] + i] = (char)(r * 53 + round * 5 + i);
    }
  }
  memset(mine, 0x5a, (size_t)block);
  MPI_OK(MPI_Scatterv(all, counts, displs, MPI_CHAR, rank == root && in_place ? MPI_IN_PLACE : mine, block, MPI_CHAR,
                      root, comm));
  const char* got = rank == root && in_place ? all + displs[rank] : mine;
  for (int i = 0; i < block; ++i) CHECK_EQ(got[i], (char)(rank * 53 + round * 5 + i));
  free(counts);
  free(displs);
  free(mine);
  free(all);
}

/* n ints from the root, through a vector (stride 2) on the ranks where `strided` says so. */
static void bcast_mixed_layouts(MPI_Comm comm, int round, int ints, int root_strided) {
  int rank, n;
  MPI_OK(MPI_Comm_rank(comm, &rank));
  MPI_OK(MPI_Comm_size(comm, &n));
  int root = round % n;
  int strided = (rank == root) == root_strided;
  int* buf = malloc(sizeof(int) * (size_t)ints * 2);
  MPI_Datatype vector;
  MPI_OK(MPI_Type_vector(ints, 1, 2, MPI_INT, &vector));
  MPI_OK(MPI_Type_commit(&vector));
  for (int i = 0; i < 2 * ints; ++i) buf[i] = -7;
  if (rank == root) {
    for (int i = 0; i < ints; ++i) buf[strided ? 2 * i : i] = value_of(root, round, i);
  }
  MPI_OK(strided ? MPI_Bcast(buf, 1, vector, root, comm) : MPI_Bcast(buf, ints, MPI_INT, root, comm));
  for (int i = 0; i < ints; ++i) {
    int at = strided ? 2 * i : i;
    if (buf[at] != value_of(root, round, i)) {
      fprintf(stderr, "rank %d: MPI_Bcast of %d ints from %d (%s here): int %d is %d, expected %d\n", rank, ints,
              root, strided ? "strided" : "contiguous", i, buf[at], value_of(root, round, i));
      CHECK(0);
    }
    if (strided) CHECK_EQ(buf[at + 1], -7);
  }
  if (!strided) {
    for (int i = ints; i < 2 * ints; ++i) CHECK_EQ(buf[i], -7);
  }
  MPI_OK(MPI_Type_free(&vector));
  free(buf);
}

/* `ints` ints from every rank; the odd ranks receive them strided (every other int). */
static void allgather_mixed_layouts(MPI_Comm comm, int round, int ints) {
  int rank, n;
  MPI_OK(MPI_Comm_rank(comm, &rank));
  MPI_OK(MPI_Comm_size(comm, &n));
  int strided = rank % 2 == 1;
  int* mine = malloc(sizeof(int) * (size_t)ints);
  int* all = malloc(sizeof(int) * (size_t)ints * n * 2);
  for (int i = 0; i < ints; ++i) mine[i] = value_of(rank, round, i);
  for (int i = 0; i < 2 * ints * n; ++i) all[i] = -7;
  MPI_Datatype vector, block;
  MPI_OK(MPI_Type_vector(ints, 1, 2, MPI_INT, &vector));
  MPI_OK(MPI_Type_create_resized(vector, 0, (MPI_Aint)sizeof(int) * 2 * ints, &block));
  MPI_OK(MPI_Type_commit(&block));
  MPI_OK(strided ? MPI_Allgather(mine, ints, MPI_INT, all, 1, block, comm)
                 : MPI_Allgather(mine, ints, MPI_INT, all, ints, MPI_INT, comm));
  for (int r = 0; r < n; ++r) {
    for (int i = 0; i < ints; ++i) {
      int at = strided ? 2 * (r * ints + i) : r * ints + i;
      if (all[at] != value_of(r, round, i)) {
        fprintf(stderr, "rank %d: MPI_Allgather of %d ints (%s here): int %d of rank %d is %d, expected %d\n", rank,
                ints, strided ? "strided" : "contiguous", i, r, all[at], value_of(r, round, i));
        CHECK(0);
      }
      if (strided) CHECK_EQ(all[at + 1], -7);
    }
  }
  MPI_OK(MPI_Type_free(&vector));
  MPI_OK(MPI_Type_free(&block));
  free(mine);
  free(all);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int n;
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
  static const int blocks[] = {0, 1, 7, 1024, 4097, 65536};
  int round = 0;
  for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; ++b) {
    for (int r = 0; r < 2 * n; ++r) rooted_vectors(MPI_COMM_WORLD, round++, blocks[b]);
  }
  static const int ints[] = {1, 2, 100, 1024, 16384, 300000};
  for (size_t k = 0; k < sizeof ints / sizeof ints[0]; ++k) {
    for (int r = 0; r < n; ++r) {
      bcast_mixed_layouts(MPI_COMM_WORLD, round++, ints[k], 1);
      bcast_mixed_layouts(MPI_COMM_WORLD, round++, ints[k], 0);
    }
  }
  for (size_t k = 0; k < sizeof ints / sizeof ints[0]; ++k) allgather_mixed_layouts(MPI_COMM_WORLD, round++, ints[k] / n + 1);
  int rank;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  if (rank == 0) printf("coll_root_arguments: %d ranks: ok\n", n);
  MPI_OK(MPI_Finalize());
  return 0;
}
