/* Small blocking collectives: MPI_Barrier, MPI_Bcast, MPI_Reduce and
 * MPI_Allreduce up to and just past the same-node cells' 2 KiB, interleaved in long loops so the
 * cells' two parities are reused thousands of times, with every result checked against a serial
 * reference computed by every rank:
 *  - barrier: every rank adds 1 to a counter on rank 0 (MPI_Fetch_and_op + flush) before the
 *    barrier and reads it after: nobody may leave before everyone's increment;
 *  - bcast: rotating roots (the benchmark's alternating pattern), 0 B to 2 KiB + 1, predefined,
 *    contiguous derived and strided (non-contiguous: the schedules) types;
 *  - allreduce/reduce: every predefined op on integers, exact sums of doubles, MINLOC/MAXLOC on
 *    MPI_2INT, MPI_IN_PLACE, and a non-commutative user op (affine maps composed) whose result
 *    is right only when the contributions combine in rank order;
 *  - the same on a split communicator whose rank order reverses the world's.
 * Runs on every path: the cells serve the local path, the schedules the backend paths. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

enum { kRounds = 60, kMaxBytes = 2049, kMaxInts = 2048 / 4 + 1 };

/* x -> a x + b (mod 2^64): composition is associative, not commutative. */
typedef struct {
  uint64_t a, b;
} Affine;

/* Applying `first`, then `then`. */
static Affine compose(Affine first, Affine then) {
  Affine r = {first.a * then.a, then.a * first.b + then.b};
  return r;
}

/* MPI's user function: inout = in op inout, `in` from the lower ranks. */
static void affine_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  Affine* x = in;
  Affine* y = inout;
  for (int i = 0; i < *len; ++i) y[i] = compose(x[i], y[i]);
}

static Affine affine_of(int rank, int round, int i) {
  Affine f = {2u * (uint64_t)rank + 3u + 2u * (uint64_t)i, (uint64_t)rank * 7u + (uint64_t)round + (uint64_t)i + 1u};
  return f;
}

static int value_of(int rank, int round, int i) { return (rank + 1) * 37 + round * 11 + i * 5 - 60; }

/* The serial reference of `op` over every rank's value_of (rank order). */
static int reference(MPI_Op op, int n, int round, int i) {
  int acc = value_of(0, round, i);
  for (int r = 1; r < n; ++r) {
    int v = value_of(r, round, i);
    if (op == MPI_SUM) acc += v;
    else if (op == MPI_PROD) acc = acc * (v % 2 == 0 ? 2 : -1);
    else if (op == MPI_MAX) acc = v > acc ? v : acc;
    else if (op == MPI_MIN) acc = v < acc ? v : acc;
    else if (op == MPI_BAND) acc &= v;
    else if (op == MPI_BOR) acc |= v;
    else if (op == MPI_BXOR) acc ^= v;
    else if (op == MPI_LAND) acc = acc && (v % 3 != 0);
    else if (op == MPI_LOR) acc = acc || (v % 3 == 0);
    else if (op == MPI_LXOR) acc = !acc != !(v % 3 == 0);
  }
  return acc;
}

/* What rank r contributes for `op`, so that reference() above is the answer (PROD: factors 2 or
 * -1, no overflow at 16 ranks; the logical ops: truth values, rank 0's as reference() starts). */
static int contribution(MPI_Op op, int rank, int round, int i) {
  int v = value_of(rank, round, i);
  if (op == MPI_PROD) return rank == 0 ? v : (v % 2 == 0 ? 2 : -1);
  if (op == MPI_LAND) return rank == 0 ? v : (v % 3 != 0);
  if (op == MPI_LOR || op == MPI_LXOR) return rank == 0 ? v : (v % 3 == 0);
  return v;
}

static void check_barrier(MPI_Comm comm, MPI_Win win, int round) {
  int n, one = 1, seen = -1, none = 0;
  MPI_OK(MPI_Comm_size(comm, &n));
  MPI_OK(MPI_Fetch_and_op(&one, &seen, MPI_INT, 0, 0, MPI_SUM, win));
  MPI_OK(MPI_Win_flush(0, win));
  MPI_OK(MPI_Barrier(comm));
  MPI_OK(MPI_Fetch_and_op(&none, &seen, MPI_INT, 0, 0, MPI_NO_OP, win));
  MPI_OK(MPI_Win_flush(0, win));
  /* every increment of rounds 0..round is in; faster ranks may have added next round's */
  CHECK(seen >= n * (round + 1));
  CHECK(seen < n * (round + 2));
}

static void check_bcast(MPI_Comm comm, int round, MPI_Datatype contiguous3, MPI_Datatype strided) {
  static const int sizes[] = {0, 1, 8, 47, 48, 49, 64, 100, 1000, 2047, 2048, kMaxBytes};
  int me, n;
  MPI_OK(MPI_Comm_rank(comm, &me));
  MPI_OK(MPI_Comm_size(comm, &n));
  unsigned char bytes[kMaxBytes];
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
    int root = (round + (int)k) % n, len = sizes[k];
    for (int i = 0; i < len; ++i) bytes[i] = me == root ? (unsigned char)(i * 7 + round + root) : 0xee;
    MPI_OK(MPI_Bcast(bytes, len, MPI_UNSIGNED_CHAR, root, comm));
    for (int i = 0; i < len; ++i) CHECK_EQ(bytes[i], (unsigned char)(i * 7 + round + root));
  }
  /* doubles, and a contiguous derived type of 3 ints (cells) */
  double d[6];
  int root = round % n;
  for (int i = 0; i < 6; ++i) d[i] = me == root ? round * 0.5 + i : -1;
  MPI_OK(MPI_Bcast(d, 6, MPI_DOUBLE, root, comm));
  for (int i = 0; i < 6; ++i) CHECK(d[i] == round * 0.5 + i);
  int ints[3 * 5];
  for (int i = 0; i < 15; ++i) ints[i] = me == root ? value_of(root, round, i) : -1;
  MPI_OK(MPI_Bcast(ints, 5, contiguous3, root, comm));
  for (int i = 0; i < 15; ++i) CHECK_EQ(ints[i], value_of(root, round, i));
  /* strided: ints 0, 2, 4, ... of 2 x 4 blocks; the gaps stay untouched */
  int gaps[16];
  for (int i = 0; i < 16; ++i) gaps[i] = me == root || i % 2 == 1 ? value_of(root, round, i) : -1;
  MPI_OK(MPI_Bcast(gaps, 2, strided, root, comm));
  for (int i = 0; i < 16; ++i) CHECK_EQ(gaps[i], value_of(root, round, i));
}

/* The rotating-root loop of bench/mpi/coll.c, 8 bytes, many times in a row; every third call an
 * allreduce of 48 bytes, so a bcast's receivers publish right after a collective whose data the
 * slower ranks may still be reading out of their cells. */
static void check_bcast_loop(MPI_Comm comm, int calls) {
  int me, n;
  MPI_OK(MPI_Comm_rank(comm, &me));
  MPI_OK(MPI_Comm_size(comm, &n));
  for (int i = 0; i < calls; ++i) {
    if (i % 3 == 2) {
      long long in[6], out[6];
      for (int j = 0; j < 6; ++j) in[j] = (long long)i * (me + 1) + j;
      MPI_OK(MPI_Allreduce(in, out, 6, MPI_LONG_LONG, MPI_SUM, comm));
      for (int j = 0; j < 6; ++j) CHECK_EQ(out[j], (long long)i * n * (n + 1) / 2 + (long long)j * n);
      continue;
    }
    long long v = me == i % n ? 1000003LL * i + me : -1;
    MPI_OK(MPI_Bcast(&v, 1, MPI_LONG_LONG, i % n, comm));
    CHECK_EQ(v, 1000003LL * i + i % n);
  }
}

static void check_reductions(MPI_Comm comm, int round, MPI_Op affine, MPI_Datatype affine_type,
                             MPI_Datatype strided) {
  static const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR};
  static const int counts[] = {1, 2, 12, 13, 100, kMaxInts - 1, kMaxInts};
  int me, n;
  MPI_OK(MPI_Comm_rank(comm, &me));
  MPI_OK(MPI_Comm_size(comm, &n));
  int in[kMaxInts], out[kMaxInts];
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o) {
    MPI_Op op = ops[o];
    int count = counts[(o + (size_t)round) % (sizeof counts / sizeof counts[0])];
    for (int i = 0; i < count; ++i) in[i] = contribution(op, me, round, i), out[i] = -7;
    MPI_OK(MPI_Allreduce(in, out, count, MPI_INT, op, comm));
    for (int i = 0; i < count; ++i) CHECK_EQ(out[i], reference(op, n, round, i));
    /* in place */
    for (int i = 0; i < count; ++i) out[i] = contribution(op, me, round, i);
    MPI_OK(MPI_Allreduce(MPI_IN_PLACE, out, count, MPI_INT, op, comm));
    for (int i = 0; i < count; ++i) CHECK_EQ(out[i], reference(op, n, round, i));
    /* reduce to a rotating root, in place there */
    int root = (round + (int)o) % n;
    for (int i = 0; i < count; ++i) out[i] = me == root ? contribution(op, me, round, i) : -7;
    MPI_OK(MPI_Reduce(me == root ? MPI_IN_PLACE : in, out, count, MPI_INT, op, root, comm));
    for (int i = 0; i < count; ++i) CHECK_EQ(out[i], me == root ? reference(op, n, round, i) : -7);
  }
  /* exact sums of doubles (small integers) */
  double x[7], y[7];
  for (int i = 0; i < 7; ++i) x[i] = (double)value_of(me, round, i);
  MPI_OK(MPI_Allreduce(x, y, 7, MPI_DOUBLE, MPI_SUM, comm));
  for (int i = 0; i < 7; ++i) CHECK(y[i] == (double)reference(MPI_SUM, n, round, i));
  /* MINLOC / MAXLOC on MPI_2INT: ties broken by the smaller index */
  int pairs[4], got[4];
  pairs[0] = value_of(me, round, 0) % 5, pairs[1] = me;
  pairs[2] = value_of(me, round, 1) % 5, pairs[3] = me;
  MPI_OK(MPI_Allreduce(pairs, got, 2, MPI_2INT, MPI_MINLOC, comm));
  int best = 0;
  for (int r = 1; r < n; ++r) best = value_of(r, round, 0) % 5 < value_of(best, round, 0) % 5 ? r : best;
  CHECK_EQ(got[0], value_of(best, round, 0) % 5);
  CHECK_EQ(got[1], best);
  MPI_OK(MPI_Allreduce(pairs, got, 2, MPI_2INT, MPI_MAXLOC, comm));
  best = 0;
  for (int r = 1; r < n; ++r) best = value_of(r, round, 0) % 5 > value_of(best, round, 0) % 5 ? r : best;
  CHECK_EQ(got[0], value_of(best, round, 0) % 5);
  CHECK_EQ(got[1], best);
  /* non-commutative: composed in rank order; out of place, in place, reduce to a rotating root */
  enum { kMaps = 9 };
  Affine mine[kMaps], res[kMaps], want[kMaps];
  for (int i = 0; i < kMaps; ++i) {
    mine[i] = affine_of(me, round, i);
    want[i] = affine_of(0, round, i);
    for (int r = 1; r < n; ++r) want[i] = compose(want[i], affine_of(r, round, i));
  }
  MPI_OK(MPI_Allreduce(mine, res, kMaps, affine_type, affine, comm));
  for (int i = 0; i < kMaps; ++i) CHECK(res[i].a == want[i].a && res[i].b == want[i].b);
  memcpy(res, mine, sizeof res);
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, res, kMaps, affine_type, affine, comm));
  for (int i = 0; i < kMaps; ++i) CHECK(res[i].a == want[i].a && res[i].b == want[i].b);
  int root = round % n;
  memset(res, 0, sizeof res);
  MPI_OK(MPI_Reduce(mine, res, kMaps, affine_type, affine, root, comm));
  if (me == root) {
    for (int i = 0; i < kMaps; ++i) CHECK(res[i].a == want[i].a && res[i].b == want[i].b);
  }
  /* a strided type (the schedules): ints 0, 2, 4, 6 of each pair of blocks, gaps untouched */
  int s_in[16], s_out[16];
  for (int i = 0; i < 16; ++i) s_in[i] = value_of(me, round, i), s_out[i] = -3;
  MPI_OK(MPI_Allreduce(s_in, s_out, 2, strided, MPI_SUM, comm));
  for (int i = 0; i < 16; ++i) CHECK_EQ(s_out[i], i % 2 == 0 ? reference(MPI_SUM, n, round, i) : -3);
}

static void run(MPI_Comm comm, MPI_Win win, MPI_Op affine, MPI_Datatype affine_type, MPI_Datatype contiguous3,
                MPI_Datatype strided) {
  for (int round = 0; round < kRounds; ++round) {
    if (win != MPI_WIN_NULL) check_barrier(comm, win, round);
    else MPI_OK(MPI_Barrier(comm));
    check_bcast(comm, round, contiguous3, strided);
    check_reductions(comm, round, affine, affine_type, strided);
  }
  check_bcast_loop(comm, 3000);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int me, n;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &n));
  MPI_Op affine;
  MPI_OK(MPI_Op_create(affine_op, 0, &affine));
  MPI_Datatype affine_type, contiguous3, strided;
  MPI_OK(MPI_Type_contiguous(2, MPI_UINT64_T, &affine_type));
  MPI_OK(MPI_Type_commit(&affine_type));
  MPI_OK(MPI_Type_contiguous(3, MPI_INT, &contiguous3));
  MPI_OK(MPI_Type_commit(&contiguous3));
  /* 4 ints, every other one: extent 7 ints, resized to 8 so that two elements cover 16 ints */
  MPI_Datatype vec;
  MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &vec));
  MPI_OK(MPI_Type_create_resized(vec, 0, 8 * (MPI_Aint)sizeof(int), &strided));
  MPI_OK(MPI_Type_commit(&strided));
  MPI_OK(MPI_Type_free(&vec));

  int* counter;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &counter, &win));
  *counter = 0;
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_lock_all(0, win));
  run(MPI_COMM_WORLD, win, affine, affine_type, contiguous3, strided);
  MPI_OK(MPI_Win_unlock_all(win));

  /* a communicator whose rank order reverses the world's (two halves) */
  MPI_Comm half;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &half));
  run(half, MPI_WIN_NULL, affine, affine_type, contiguous3, strided);
  MPI_OK(MPI_Comm_free(&half));

  MPI_OK(MPI_Win_free(&win));
  MPI_OK(MPI_Type_free(&strided));
  MPI_OK(MPI_Type_free(&contiguous3));
  MPI_OK(MPI_Type_free(&affine_type));
  MPI_OK(MPI_Op_free(&affine));
  if (me == 0) printf("coll_small: %d ranks, %d rounds: ok\n", n, kRounds);
  MPI_OK(MPI_Finalize());
  return 0;
}
