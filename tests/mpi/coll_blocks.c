/* Blocking MPI_Gather, MPI_Scatter, MPI_Allgather and MPI_Alltoall of equal blocks, every byte
 * checked against the value its sender wrote (sender, receiver, round and position encoded), and
 * blocking MPI_Reduce / MPI_Reduce_scatter / MPI_Reduce_scatter_block checked against serial
 * references (MPI_SUM of ints, and a non-commutative user op right only in rank order):
 *  - block sizes 0 B, 1 B, 7 B, 1 KiB, around the 2 KiB a member stages in its cell (n blocks of
 *    an alltoall or a scatter's root, one of a gather or allgather), 4 KiB + 1, 64 KiB, and around
 *    the 1 MiB a member may stage (an alltoall's n blocks just fitting and one byte past; a 1 MiB
 *    gather block);
 *  - the operations interleaved over rounds with rotating roots, so every buffer is rewritten
 *    while the previous users may still be reading the other one;
 *  - MPI_IN_PLACE where the standard allows it (alltoall, allgather, the root of gather/scatter);
 *  - MPI_Reduce of a non-commutative op on 24-byte elements at every root, in place and not, from
 *    2 KiB to past 4 MiB (at 2 ranks the pipelined pair reduce from 4 KiB);
 *  - a receive type of a different layout with the same signature (strided ints received from
 *    contiguous ones by an alltoall; scatters around 32 KiB blocks and gathers of 400 B, 8 KiB + 4
 *    and 64 KiB blocks with either side strided): the gaps must stay untouched;
 *  - on MPI_COMM_WORLD and on a split communicator whose rank order reverses the world's.
 * The same-node staged path serves the local path, the schedules the backend paths. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "block_pattern.h"
#include "check.h"

enum { kRounds = 6 };

/* A gather block carries the sender as receiver -1 (a scatter block: the root as sender). */
static void run_round(MPI_Comm comm, int round, int64_t block, unsigned char* send, unsigned char* recv) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  int count = (int)block;
  int64_t all = block * n;
  int in_place = round % 2 == 1;

  /* alltoall (in place every other round; only while n blocks fit an int count) */
  for (int d = 0; d < n; ++d) fill((in_place ? recv : send) + d * block, rank, d, round, block);
  if (!in_place) memset(recv, 0xee, (size_t)all);
  MPI_OK(MPI_Alltoall(in_place ? MPI_IN_PLACE : send, count, MPI_CHAR, recv, count, MPI_CHAR, comm));
  for (int s = 0; s < n; ++s) expect(recv + s * block, s, rank, round, block, "MPI_Alltoall");

  /* gather at a rotating root (the root in place every other round) */
  int root = round % n;
  fill(send, rank, -1, round, block);
  if (rank == root) {
    memset(recv, 0xee, (size_t)all);
    if (in_place) fill(recv + root * block, root, -1, round, block);
  }
  MPI_OK(MPI_Gather(rank == root && in_place ? MPI_IN_PLACE : send, count, MPI_CHAR, recv, count, MPI_CHAR, root,
                    comm));
  if (rank == root) {
    for (int s = 0; s < n; ++s) expect(recv + s * block, s, -1, round, block, "MPI_Gather");
  }

  /* scatter from the next root (in place at the root every other round) */
  root = (round + 1) % n;
  if (rank == root) {
    for (int d = 0; d < n; ++d) fill(send + d * block, root, d, round, block);
  }
  memset(recv, 0xee, (size_t)block);
  void* into = rank == root && in_place ? MPI_IN_PLACE : recv;
  MPI_OK(MPI_Scatter(send, count, MPI_CHAR, into, count, MPI_CHAR, root, comm));
  if (into != MPI_IN_PLACE) expect(recv, root, rank, round, block, "MPI_Scatter");

  /* allgather (in place every other round) */
  memset(recv, 0xee, (size_t)all);
  fill(in_place ? recv + rank * block : send, rank, -1, round, block);
  MPI_OK(MPI_Allgather(in_place ? MPI_IN_PLACE : send, count, MPI_CHAR, recv, count, MPI_CHAR, comm));
  for (int s = 0; s < n; ++s) expect(recv + s * block, s, -1, round, block, "MPI_Allgather");
}

/* `ints` ints at every other int: a vector type resized to its stride (committed). */
static MPI_Datatype every_other_int(int ints) {
  MPI_Datatype vec, strided;
  MPI_OK(MPI_Type_vector(ints, 1, 2, MPI_INT, &vec));
  MPI_OK(MPI_Type_create_resized(vec, 0, (MPI_Aint)(2 * ints * sizeof(int)), &strided));
  MPI_OK(MPI_Type_commit(&strided));
  MPI_OK(MPI_Type_free(&vec));
  return strided;
}

/* Contiguous ints sent, received into every other int: the same signature, another layout; the
 * gaps keep their sentinel. */
static void strided_alltoall(MPI_Comm comm, int round, int ints) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  MPI_Datatype strided = every_other_int(ints);
  int* out = malloc(sizeof(int) * (size_t)(ints * n));
  int* in = malloc(sizeof(int) * (size_t)(2 * ints * n));
  for (int d = 0; d < n; ++d) {
    for (int i = 0; i < ints; ++i) out[d * ints + i] = rank * 100000 + d * 1000 + i + round;
  }
  for (int i = 0; i < 2 * ints * n; ++i) in[i] = -7;
  MPI_OK(MPI_Alltoall(out, ints, MPI_INT, in, 1, strided, comm));
  for (int s = 0; s < n; ++s) {
    for (int i = 0; i < ints; ++i) {
      CHECK_EQ(in[s * 2 * ints + 2 * i], s * 100000 + rank * 1000 + i + round);
      CHECK_EQ(in[s * 2 * ints + 2 * i + 1], -7);
    }
  }
  free(in);
  free(out);
  MPI_OK(MPI_Type_free(&strided));
}

/* MPI_Scatter of `ints` ints per rank from a rotating root (in place every other round), the
 * root's blocks and the receivers' block each contiguous or every other int (`strided_root`,
 * `strided_receivers`): the same signature in another layout; the gaps keep their sentinel. */
static void strided_scatter(MPI_Comm comm, int round, int ints, int strided_root, int strided_receivers) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  MPI_Datatype strided = every_other_int(ints);
  int root = round % n, in_place = rank == root && round % 2 == 1;
  int* sent = malloc(sizeof(int) * (size_t)(2 * ints * n));
  int* got = malloc(sizeof(int) * (size_t)(2 * ints));
  int step = strided_root ? 2 : 1;
  for (int i = 0; i < 2 * ints * n; ++i) sent[i] = -7;
  for (int i = 0; i < 2 * ints; ++i) got[i] = -7;
  if (rank == root) {
    for (int d = 0; d < n; ++d) {
      for (int i = 0; i < ints; ++i) sent[(d * ints + i) * step] = root * 100000 + d * 1000 + i + round;
    }
  }
  MPI_OK(MPI_Scatter(sent, strided_root ? 1 : ints, strided_root ? strided : MPI_INT, in_place ? MPI_IN_PLACE : got,
                     strided_receivers ? 1 : ints, strided_receivers ? strided : MPI_INT, root, comm));
  if (!in_place) {
    int gap = strided_receivers ? 2 : 1;
    for (int i = 0; i < ints; ++i) {
      CHECK_EQ(got[i * gap], root * 100000 + rank * 1000 + i + round);
      if (strided_receivers) CHECK_EQ(got[i * gap + 1], -7);
    }
    if (!strided_receivers) CHECK_EQ(got[ints], -7);
  }
  if (rank == root) {
    for (int i = 0; i < 2 * ints * n; ++i) {
      if (strided_root && i % 2 == 1) CHECK_EQ(sent[i], -7);
    }
  }
  free(got);
  free(sent);
  MPI_OK(MPI_Type_free(&strided));
}

/* MPI_Gather of `ints` ints per rank to a rotating root (in place at the root every other round),
 * the senders' block and the root's blocks each contiguous or every other int (`strided_senders`,
 * `strided_root`): the root's own block is copied across, or packed and unpacked when a layout is
 * strided; the gaps keep their sentinel. */
static void strided_gather(MPI_Comm comm, int round, int ints, int strided_senders, int strided_root) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  MPI_Datatype strided = every_other_int(ints);
  int root = round % n, in_place = rank == root && round % 2 == 1;
  int* sent = malloc(sizeof(int) * (size_t)(2 * ints));
  int* got = malloc(sizeof(int) * (size_t)(2 * ints * n));
  int gap = strided_senders ? 2 : 1, step = strided_root ? 2 : 1;
  for (int i = 0; i < 2 * ints; ++i) sent[i] = -7;
  for (int i = 0; i < 2 * ints * n; ++i) got[i] = -7;
  for (int i = 0; i < ints; ++i) sent[i * gap] = rank * 100000 + i + round;
  if (in_place) {
    for (int i = 0; i < ints; ++i) got[(root * ints + i) * step] = root * 100000 + i + round;
  }
  MPI_OK(MPI_Gather(in_place ? MPI_IN_PLACE : sent, strided_senders ? 1 : ints, strided_senders ? strided : MPI_INT,
                    got, strided_root ? 1 : ints, strided_root ? strided : MPI_INT, root, comm));
  if (rank == root) {
    for (int s = 0; s < n; ++s) {
      for (int i = 0; i < ints; ++i) {
        CHECK_EQ(got[(s * ints + i) * step], s * 100000 + i + round);
        if (strided_root) CHECK_EQ(got[(s * ints + i) * step + 1], -7);
      }
    }
    if (!strided_root) CHECK_EQ(got[n * ints], -7);
  }
  free(got);
  free(sent);
  MPI_OK(MPI_Type_free(&strided));
}

/* x -> a x + b (mod 2^64): composition is associative, not commutative. */
typedef struct {
  uint64_t a, b;
} Affine;

static Affine affine_of(int rank, int round, int64_t i) {
  Affine f = {2u * (uint64_t)rank + 3u + (uint64_t)i, (uint64_t)rank * 7u + (uint64_t)round + (uint64_t)i + 1u};
  return f;
}

/* MPI's user function: inout = in op inout (`in` from the lower ranks: applied first). */
static void affine_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  Affine* x = in;
  Affine* y = inout;
  for (int i = 0; i < *len; ++i) {
    Affine r = {x[i].a * y[i].a, y[i].a * x[i].b + y[i].b};
    y[i] = r;
  }
}

/* Rank order: rank 0's map applied first. */
static Affine affine_reference(int n, int round, int64_t i) {
  Affine acc = affine_of(0, round, i);
  for (int r = 1; r < n; ++r) {
    Affine f = affine_of(r, round, i);
    Affine next = {acc.a * f.a, f.a * acc.b + f.b};
    acc = next;
  }
  return acc;
}

/* A 24-byte element (its size does not divide the reduce's pieces): an affine map and a tally
 * summed alongside; the op composes the maps in rank order. */
typedef struct {
  Affine f;
  uint64_t tally;
} Tallied;

static void tallied_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  Tallied* x = in;
  Tallied* y = inout;
  for (int i = 0; i < *len; ++i) {
    int one = 1;
    affine_op(&x[i].f, &y[i].f, &one, type);
    y[i].tally += x[i].tally;
  }
}

static uint64_t tally_of(int rank, int round, int64_t i) { return (uint64_t)rank * 1000003u + (uint64_t)round * 7u + (uint64_t)i; }

/* MPI_Reduce of `count` Tallied at every root in turn, in place at the root in every other pair of
 * rounds (so that at 2 ranks both roots run in place and not). */
static void tallied_reduce(MPI_Comm comm, int round, int count, MPI_Op op, MPI_Datatype type) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  int root = round % n, in_place = rank == root && (round / 2) % 2 == 1;
  Tallied* in = malloc(sizeof(Tallied) * (size_t)count + 1);
  Tallied* out = malloc(sizeof(Tallied) * (size_t)count + 1);
  for (int64_t i = 0; i < count; ++i) {
    Tallied t = {affine_of(rank, round, i), tally_of(rank, round, i)};
    (in_place ? out : in)[i] = t;
  }
  MPI_OK(MPI_Reduce(in_place ? MPI_IN_PLACE : in, out, count, type, op, root, comm));
  if (rank == root) {
    for (int64_t i = 0; i < count; ++i) {
      Affine want = affine_reference(n, round, i);
      uint64_t tally = 0;
      for (int r = 0; r < n; ++r) tally += tally_of(r, round, i);
      if (out[i].f.a != want.a || out[i].f.b != want.b || out[i].tally != tally) {
        fprintf(stderr, "MPI_Reduce of %d Tallied, root %d%s, round %d: element %lld wrong\n", count, root,
                in_place ? " in place" : "", round, (long long)i);
        CHECK(0);
      }
    }
  }
  free(out);
  free(in);
}

static int int_of(int rank, int round, int64_t i) { return rank * 1000 + round * 17 + (int)(i % 1000) - 500; }

/* `count` elements: MPI_Reduce at a rotating root (in place every other round), MPI_Reduce_scatter
 * with uneven parts (rank q gets count * (q + 1) / total-weight, the rest to the last; in place
 * every other round, where a rank's own part of the input overlaps its result or lies past it)
 * and MPI_Reduce_scatter_block (in place every other round). */
static void reductions(MPI_Comm comm, int round, int count, MPI_Op affine, MPI_Datatype affine_type) {
  int rank, n;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &n);
  int in_place = round % 2 == 1, root = (round + 2) % n;
  int* in = malloc(sizeof(int) * (size_t)count + 1);
  int* out = malloc(sizeof(int) * (size_t)count + 1);
  for (int64_t i = 0; i < count; ++i) (rank == root && in_place ? out : in)[i] = int_of(rank, round, i);
  MPI_OK(MPI_Reduce(rank == root && in_place ? MPI_IN_PLACE : in, out, count, MPI_INT, MPI_SUM, root, comm));
  if (rank == root) {
    for (int64_t i = 0; i < count; ++i) {
      long long sum = 0;
      for (int r = 0; r < n; ++r) sum += int_of(r, round, i);
      CHECK_EQ(out[i], sum);
    }
  }
  /* reduce_scatter: uneven parts */
  int* counts = malloc(sizeof(int) * (size_t)n);
  int given = 0, first = 0;
  for (int q = 0; q < n; ++q) {
    counts[q] = q == n - 1 ? count - given : count / (2 * n) * (q % 2 + 1);
    given += counts[q];
  }
  for (int q = 0; q < rank; ++q) first += counts[q];
  for (int64_t i = 0; i < count; ++i) (in_place ? out : in)[i] = int_of(rank, round, i);
  MPI_OK(MPI_Reduce_scatter(in_place ? MPI_IN_PLACE : in, out, counts, MPI_INT, MPI_SUM, comm));
  for (int64_t i = 0; i < counts[rank]; ++i) {
    long long sum = 0;
    for (int r = 0; r < n; ++r) sum += int_of(r, round, first + i);
    CHECK_EQ(out[i], sum);
  }
  free(counts);
  free(out);
  free(in);
  /* reduce_scatter_block of a non-commutative op, `count` / n maps each */
  int each = count / n;
  Affine* maps = malloc(sizeof(Affine) * (size_t)(each * n) + 1);
  Affine* mine = malloc(sizeof(Affine) * (size_t)each + 1);
  for (int64_t i = 0; i < (int64_t)each * n; ++i) maps[i] = affine_of(rank, round, i);
  MPI_OK(MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : maps, in_place ? maps : mine, each, affine_type, affine,
                                  comm));
  const Affine* got = in_place ? maps : mine;
  for (int64_t i = 0; i < each; ++i) {
    Affine want = affine_reference(n, round, (int64_t)rank * each + i);
    CHECK(got[i].a == want.a && got[i].b == want.b);
  }
  free(mine);
  free(maps);
}

static void run_all(MPI_Comm comm) {
  int n;
  MPI_Comm_size(comm, &n);
  const int64_t mib = 1 << 20;
  /* around the 2 KiB a member stages in its cell (an alltoall's or scatter root's n blocks, a
   * gather's or allgather's one: just fitting and one byte past), then the staging buffers */
  const int64_t cell = 2048;
  const int64_t blocks[] = {0, 1, 7, 1024, cell / n, cell / n + 1, cell, cell + 1, 4097, 65536, mib / n, mib / n + 1, mib};
  int64_t most = 0;
  for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; ++k) most = blocks[k] > most ? blocks[k] : most;
  unsigned char* send = malloc((size_t)(most * n));
  unsigned char* recv = malloc((size_t)(most * n));
  CHECK(send != NULL && recv != NULL);
  for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; ++k) {
    int rounds = blocks[k] >= 65536 ? 2 : kRounds;
    for (int round = 0; round < rounds; ++round) run_round(comm, round, blocks[k], send, recv);
  }
  for (int round = 0; round < kRounds; ++round) strided_alltoall(comm, round, 1 + 300 * round);
  /* scatter blocks around the 32 KiB from which 4 or more ranks pull them from the root's buffer,
   * each side contiguous or strided */
  const int scatter_ints[] = {(32 << 10) / 4 - 1, (32 << 10) / 4, (64 << 10) / 4 + 1};
  for (size_t k = 0; k < sizeof scatter_ints / sizeof scatter_ints[0]; ++k) {
    for (int round = 0; round < 2 * n; ++round) strided_scatter(comm, round, scatter_ints[k], round % 4 >= 2, round % 3 == 1);
  }
  /* gather blocks in a cell, past it, and of 64 KiB (staged at 3 ranks and more), either side
   * contiguous or strided (the root's own block across or packed) */
  const int gather_ints[] = {100, 2049, (64 << 10) / 4};
  for (size_t k = 0; k < sizeof gather_ints / sizeof gather_ints[0]; ++k) {
    for (int round = 0; round < 2 * n; ++round) strided_gather(comm, round, gather_ints[k], round % 4 >= 2, round % 3 == 1);
  }
  MPI_Op affine;
  MPI_Datatype affine_type;
  MPI_OK(MPI_Op_create(affine_op, 0, &affine));
  MPI_OK(MPI_Type_contiguous(2, MPI_UINT64_T, &affine_type));
  MPI_OK(MPI_Type_commit(&affine_type));
  /* ints: the cells' 2 KiB and past it, 64 KiB, a whole buffer and one element past */
  const int counts[] = {7, 512, 513, 16384, (1 << 20) / 4, (1 << 20) / 4 + 1};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; ++k) {
    for (int round = 0; round < (counts[k] > 16384 ? 2 : kRounds); ++round) {
      reductions(comm, round, counts[k], affine, affine_type);
    }
  }
  /* Tallied (24 B): past the cells, past 16 KiB, a quarter of which is not a whole element, the
   * most whole elements within a quarter of a staging buffer (256 KiB: the 2-rank sender stages
   * every piece at its own offset and runs ahead of the root into the next reduce) and one element
   * past it, and past 4 MiB by one element (pieces of a whole buffer and a last one of one element) */
  MPI_Op tallied;
  MPI_Datatype tallied_type;
  MPI_OK(MPI_Op_create(tallied_op, 0, &tallied));
  MPI_OK(MPI_Type_contiguous(3, MPI_UINT64_T, &tallied_type));
  MPI_OK(MPI_Type_commit(&tallied_type));
  const int tallies[] = {85, 171, 2731, 2732, 10923, (256 << 10) / 24, (256 << 10) / 24 + 1, (4 << 20) / 24 + 1};
  for (size_t k = 0; k < sizeof tallies / sizeof tallies[0]; ++k) {
    for (int round = 0; round < (tallies[k] > (256 << 10) / 24 + 1 ? 2 : tallies[k] > 10923 ? 4 : 2 * n + 4); ++round) {
      tallied_reduce(comm, round, tallies[k], tallied, tallied_type);
    }
  }
  MPI_OK(MPI_Type_free(&tallied_type));
  MPI_OK(MPI_Op_free(&tallied));
  MPI_OK(MPI_Type_free(&affine_type));
  MPI_OK(MPI_Op_free(&affine));
  free(recv);
  free(send);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  run_all(MPI_COMM_WORLD);
  MPI_Comm reversed;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &reversed));
  run_all(reversed);
  MPI_OK(MPI_Comm_free(&reversed));
  if (rank == 0) printf("coll_blocks: %d ranks: ok\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
