/* Collectives on intracommunicators against sequential references: barrier, bcast, gather(v),
 * scatter(v), allgather(v), alltoall(v,w), reduce, allreduce, reduce_scatter(_block), scan,
 * exscan, reduce_local; non-zero roots, odd counts, MPI_IN_PLACE, derived types, every predefined
 * op on its types, MINLOC/MAXLOC on every pair type, user ops (commutative, and a non-commutative
 * 2x2 matrix product combined in rank order), errors. Everything runs twice: blocking, then as
 * the non-blocking form + MPI_Wait; then several non-blocking collectives at once overlapped with
 * point-to-point, MPI_Comm_idup in flight, concurrent MPI_Comm_create_group calls told apart by
 * their tags. On MPI_COMM_WORLD and on an odd-sized communicator (all ranks but the last). */
#include <complex.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int nb; /* 0: blocking calls; 1: the non-blocking forms, then MPI_Wait */

#define RUN(blocking_call, nonblocking_call)               \
  do {                                                     \
    if (!nb) {                                             \
      MPI_OK(blocking_call);                               \
    } else {                                               \
      MPI_Request q_ = MPI_REQUEST_NULL;                   \
      MPI_OK(nonblocking_call);                            \
      MPI_OK(MPI_Wait(&q_, MPI_STATUS_IGNORE));            \
      CHECK(q_ == MPI_REQUEST_NULL);                       \
    }                                                      \
  } while (0)

static int val(int r, int i) { return r * 1000 + i; }

static void test_bcast(MPI_Comm comm, int rank, int size) {
  int counts[] = {0, 1, 7, 70001};
  for (int k = 0; k < 4; ++k) {
    int n = counts[k];
    int roots[] = {0, size - 1, size / 2};
    int* buf = malloc(sizeof(int) * (n + 1));
    for (int j = 0; j < 3; ++j) {
      int root = roots[j];
      for (int i = 0; i < n; ++i) buf[i] = rank == root ? val(root, i) : -1;
      RUN(MPI_Bcast(buf, n, MPI_INT, root, comm), MPI_Ibcast(buf, n, MPI_INT, root, comm, &q_));
      for (int i = 0; i < n; ++i) CHECK_EQ(buf[i], val(root, i));
    }
    free(buf);
  }
  /* a derived type: every other int of 2 * 5 */
  MPI_Datatype every_other;
  MPI_OK(MPI_Type_vector(5, 1, 2, MPI_INT, &every_other));
  MPI_OK(MPI_Type_commit(&every_other));
  int v[10];
  for (int i = 0; i < 10; ++i) v[i] = rank == 1 % size ? val(1, i) : -1;
  RUN(MPI_Bcast(v, 1, every_other, 1 % size, comm), MPI_Ibcast(v, 1, every_other, 1 % size, comm, &q_));
  for (int i = 0; i < 10; ++i) CHECK_EQ(v[i], (i % 2 == 0 || rank == 1 % size) ? val(1, i) : -1);
  MPI_OK(MPI_Type_free(&every_other));
}

static void test_gather_scatter(MPI_Comm comm, int rank, int size) {
  int root = size - 1, n = 3;
  int* all = malloc(sizeof(int) * (2 * size * size + size * n + 8));
  int mine[3], counts[64], displs[64];
  /* gather, then in place at the root */
  for (int in_place = 0; in_place < 2; ++in_place) {
    for (int i = 0; i < n; ++i) mine[i] = val(rank, i);
    for (int i = 0; i < size * n; ++i) all[i] = -1;
    if (in_place && rank == root) memcpy(all + root * n, mine, sizeof mine);
    const void* sb = in_place && rank == root ? MPI_IN_PLACE : mine;
    RUN(MPI_Gather(sb, n, MPI_INT, all, n, MPI_INT, root, comm), MPI_Igather(sb, n, MPI_INT, all, n, MPI_INT, root, comm, &q_));
    if (rank == root) {
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < n; ++i) CHECK_EQ(all[r * n + i], val(r, i));
    }
  }
  /* gatherv: rank r sends r + 1 ints, placed at displs with gaps */
  int total = 0;
  for (int r = 0; r < size; ++r) counts[r] = r + 1, displs[r] = total + r, total += r + 1 + r;
  for (int i = 0; i < total; ++i) all[i] = -1;
  int* mv = malloc(sizeof(int) * (rank + 1));
  for (int i = 0; i <= rank; ++i) mv[i] = val(rank, i);
  RUN(MPI_Gatherv(mv, rank + 1, MPI_INT, all, counts, displs, MPI_INT, 0, comm),
      MPI_Igatherv(mv, rank + 1, MPI_INT, all, counts, displs, MPI_INT, 0, comm, &q_));
  if (rank == 0) {
    for (int r = 0; r < size; ++r)
      for (int i = 0; i <= r; ++i) CHECK_EQ(all[displs[r] + i], val(r, i));
  }
  /* scatterv back (root 0), then scatter from the last rank, in place there */
  int back[64];
  RUN(MPI_Scatterv(all, counts, displs, MPI_INT, back, rank + 1, MPI_INT, 0, comm),
      MPI_Iscatterv(all, counts, displs, MPI_INT, back, rank + 1, MPI_INT, 0, comm, &q_));
  for (int i = 0; i <= rank; ++i) CHECK_EQ(back[i], val(rank, i));
  for (int in_place = 0; in_place < 2; ++in_place) {
    for (int r = 0; r < size; ++r)
      for (int i = 0; i < n; ++i) all[r * n + i] = val(r, i) + 7;
    for (int i = 0; i < n; ++i) mine[i] = -1;
    void* rb = in_place && rank == root ? MPI_IN_PLACE : mine;
    RUN(MPI_Scatter(all, n, MPI_INT, rb, n, MPI_INT, root, comm), MPI_Iscatter(all, n, MPI_INT, rb, n, MPI_INT, root, comm, &q_));
    if (!(in_place && rank == root))
      for (int i = 0; i < n; ++i) CHECK_EQ(mine[i], val(rank, i) + 7);
  }
  free(mv);
  free(all);
}

static void test_allgather(MPI_Comm comm, int rank, int size) {
  int sizes[] = {1, 5, 20000}; /* 20000 ints per rank: the ring */
  for (int k = 0; k < 3; ++k) {
    int n = sizes[k];
    int* all = malloc(sizeof(int) * size * n);
    int* mine = malloc(sizeof(int) * n);
    for (int in_place = 0; in_place < 2; ++in_place) {
      for (int i = 0; i < n; ++i) mine[i] = val(rank, i);
      for (int i = 0; i < size * n; ++i) all[i] = -1;
      if (in_place) memcpy(all + rank * n, mine, sizeof(int) * n);
      const void* sb = in_place ? MPI_IN_PLACE : mine;
      RUN(MPI_Allgather(sb, n, MPI_INT, all, n, MPI_INT, comm), MPI_Iallgather(sb, n, MPI_INT, all, n, MPI_INT, comm, &q_));
      for (int r = 0; r < size; ++r)
        for (int i = 0; i < n; ++i) CHECK_EQ(all[r * n + i], val(r, i));
    }
    free(all);
    free(mine);
  }
  /* allgatherv: rank r contributes 2r + 1 ints, reversed placement */
  int counts[64], displs[64], total = 0;
  for (int r = size - 1; r >= 0; --r) counts[r] = 2 * r + 1, displs[r] = total, total += counts[r];
  int* all = malloc(sizeof(int) * total);
  int mine[128];
  for (int i = 0; i < counts[rank]; ++i) mine[i] = val(rank, i);
  for (int i = 0; i < total; ++i) all[i] = -1;
  RUN(MPI_Allgatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, comm),
      MPI_Iallgatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, comm, &q_));
  for (int r = 0; r < size; ++r)
    for (int i = 0; i < counts[r]; ++i) CHECK_EQ(all[displs[r] + i], val(r, i));
  free(all);
}

static void test_alltoall(MPI_Comm comm, int rank, int size) {
  int sizes[] = {1, 3, 9000}; /* 9000 ints per pair: pairwise rounds */
  for (int k = 0; k < 3; ++k) {
    int n = sizes[k];
    int* out = malloc(sizeof(int) * size * n);
    int* in = malloc(sizeof(int) * size * n);
    for (int in_place = 0; in_place < 2; ++in_place) {
      for (int d = 0; d < size; ++d)
        for (int i = 0; i < n; ++i) out[d * n + i] = val(rank, d * 100 + i), in[d * n + i] = -1;
      if (in_place) memcpy(in, out, sizeof(int) * size * n);
      const void* sb = in_place ? MPI_IN_PLACE : out;
      RUN(MPI_Alltoall(sb, n, MPI_INT, in, n, MPI_INT, comm), MPI_Ialltoall(sb, n, MPI_INT, in, n, MPI_INT, comm, &q_));
      for (int s = 0; s < size; ++s)
        for (int i = 0; i < n; ++i) CHECK_EQ(in[s * n + i], val(s, rank * 100 + i));
    }
    free(out);
    free(in);
  }
  /* alltoallv: rank s sends s + d + 1 ints to d */
  int sc[64], sd[64], rc[64], rd[64], st = 0, rt = 0;
  for (int p = 0; p < size; ++p) {
    sc[p] = rank + p + 1, sd[p] = st, st += sc[p];
    rc[p] = p + rank + 1, rd[p] = rt, rt += rc[p] + 1;
  }
  int* out = malloc(sizeof(int) * st);
  int* in = malloc(sizeof(int) * rt);
  for (int p = 0; p < size; ++p)
    for (int i = 0; i < sc[p]; ++i) out[sd[p] + i] = val(rank, p * 100 + i);
  for (int i = 0; i < rt; ++i) in[i] = -1;
  RUN(MPI_Alltoallv(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, comm),
      MPI_Ialltoallv(out, sc, sd, MPI_INT, in, rc, rd, MPI_INT, comm, &q_));
  for (int p = 0; p < size; ++p) {
    for (int i = 0; i < rc[p]; ++i) CHECK_EQ(in[rd[p] + i], val(p, rank * 100 + i));
    CHECK_EQ(in[rd[p] + rc[p]], -1);
  }
  /* alltoallw: ints to even ranks, doubles to odd ones, byte displacements */
  MPI_Datatype types[64];
  int wc[64], wd[64];
  double* wout = malloc(sizeof(double) * size * 2);
  double* win = malloc(sizeof(double) * size * 2);
  for (int p = 0; p < size; ++p) {
    types[p] = MPI_DOUBLE, wc[p] = 2, wd[p] = p * 2 * (int)sizeof(double);
    wout[2 * p] = rank * 10 + p, wout[2 * p + 1] = -(rank * 10 + p);
    win[2 * p] = win[2 * p + 1] = 0.5;
  }
  RUN(MPI_Alltoallw(wout, wc, wd, types, win, wc, wd, types, comm),
      MPI_Ialltoallw(wout, wc, wd, types, win, wc, wd, types, comm, &q_));
  for (int p = 0; p < size; ++p) {
    CHECK(win[2 * p] == p * 10 + rank);
    CHECK(win[2 * p + 1] == -(p * 10 + rank));
  }
  free(wout);
  free(win);
  free(out);
  free(in);
}

/* ---- reductions of every predefined op on its types ---- */

enum { F_ARITH = 1, F_LOGIC = 2, F_BITS = 4, F_MINMAX = 8 };

static long long elem_value(MPI_Op op, int r, int i, int size) {
  if (op == MPI_PROD) return (r % 3 == i % 3) ? 2 : 1; /* small products */
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return ((r + i) % 3) != 0;
  if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return (r * 37 + i * 11) & 0x7f;
  return (r * 7 + i * 3) % 23 + 1;
}

static long long combine_ll(MPI_Op op, long long a, long long b) {
  if (op == MPI_SUM) return a + b;
  if (op == MPI_PROD) return a * b;
  if (op == MPI_MAX) return a > b ? a : b;
  if (op == MPI_MIN) return a < b ? a : b;
  if (op == MPI_LAND) return a && b;
  if (op == MPI_LOR) return a || b;
  if (op == MPI_LXOR) return (!a) != (!b);
  if (op == MPI_BAND) return a & b;
  if (op == MPI_BOR) return a | b;
  if (op == MPI_BXOR) return a ^ b;
  return 0;
}

/* Every op of `flags` on `count` elements of a C type T reached through MPI type `mt`; values
 * are small integers, so float sums and products are exact too. */
#define REDUCE_TYPE(T, mt, flags)                                                                        \
  do {                                                                                                   \
    static const MPI_Op ops_[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR, MPI_LXOR,      \
                                  MPI_BAND, MPI_BOR, MPI_BXOR};                                          \
    static const int need_[] = {F_ARITH, F_ARITH, F_MINMAX, F_MINMAX, F_LOGIC, F_LOGIC, F_LOGIC,         \
                                F_BITS, F_BITS, F_BITS};                                                 \
    enum { N_ = 13 };                                                                                    \
    for (int o_ = 0; o_ < 10; ++o_) {                                                                    \
      if (!((flags) & need_[o_])) continue;                                                              \
      MPI_Op op_ = ops_[o_];                                                                             \
      T in_[N_], out_[N_];                                                                               \
      for (int i = 0; i < N_; ++i) in_[i] = (T)elem_value(op_, rank, i, size), out_[i] = (T)0;           \
      int root_ = size - 1;                                                                              \
      RUN(MPI_Reduce(in_, out_, N_, mt, op_, root_, comm), MPI_Ireduce(in_, out_, N_, mt, op_, root_, comm, &q_)); \
      T all_[N_];                                                                                        \
      RUN(MPI_Allreduce(in_, all_, N_, mt, op_, comm), MPI_Iallreduce(in_, all_, N_, mt, op_, comm, &q_)); \
      for (int i = 0; i < N_; ++i) {                                                                     \
        long long ref_ = elem_value(op_, 0, i, size);                                                    \
        for (int r = 1; r < size; ++r) ref_ = combine_ll(op_, ref_, elem_value(op_, r, i, size));        \
        if (rank == root_) CHECK_EQ((long long)out_[i], ref_);                                           \
        CHECK_EQ((long long)all_[i], ref_);                                                              \
      }                                                                                                  \
    }                                                                                                    \
  } while (0)

static void test_predefined_ops(MPI_Comm comm, int rank, int size) {
  const int INT_OPS = F_ARITH | F_LOGIC | F_BITS | F_MINMAX;
  REDUCE_TYPE(signed char, MPI_SIGNED_CHAR, INT_OPS);
  REDUCE_TYPE(unsigned char, MPI_UNSIGNED_CHAR, INT_OPS);
  REDUCE_TYPE(short, MPI_SHORT, INT_OPS);
  REDUCE_TYPE(unsigned short, MPI_UNSIGNED_SHORT, INT_OPS);
  REDUCE_TYPE(int, MPI_INT, INT_OPS);
  REDUCE_TYPE(unsigned, MPI_UNSIGNED, INT_OPS);
  REDUCE_TYPE(long, MPI_LONG, INT_OPS);
  REDUCE_TYPE(unsigned long, MPI_UNSIGNED_LONG, INT_OPS);
  REDUCE_TYPE(long long, MPI_LONG_LONG, INT_OPS);
  REDUCE_TYPE(unsigned long long, MPI_UNSIGNED_LONG_LONG, INT_OPS);
  REDUCE_TYPE(int8_t, MPI_INT8_T, INT_OPS);
  REDUCE_TYPE(int16_t, MPI_INT16_T, INT_OPS);
  REDUCE_TYPE(int32_t, MPI_INT32_T, INT_OPS);
  REDUCE_TYPE(int64_t, MPI_INT64_T, INT_OPS);
  REDUCE_TYPE(uint8_t, MPI_UINT8_T, INT_OPS);
  REDUCE_TYPE(uint16_t, MPI_UINT16_T, INT_OPS);
  REDUCE_TYPE(uint32_t, MPI_UINT32_T, INT_OPS);
  REDUCE_TYPE(uint64_t, MPI_UINT64_T, INT_OPS);
  REDUCE_TYPE(MPI_Aint, MPI_AINT, INT_OPS);
  REDUCE_TYPE(MPI_Offset, MPI_OFFSET, INT_OPS);
  REDUCE_TYPE(MPI_Count, MPI_COUNT, INT_OPS);
  REDUCE_TYPE(float, MPI_FLOAT, F_ARITH | F_MINMAX);
  REDUCE_TYPE(double, MPI_DOUBLE, F_ARITH | F_MINMAX);
  REDUCE_TYPE(long double, MPI_LONG_DOUBLE, F_ARITH | F_MINMAX);
  REDUCE_TYPE(bool, MPI_C_BOOL, F_LOGIC);
  REDUCE_TYPE(unsigned char, MPI_BYTE, F_BITS);

  /* complex: sum and product (products of 1 and 1 + i: exact) */
#define REDUCE_COMPLEX(T, mt)                                                                            \
  do {                                                                                                   \
    T in_[3], sum_[3], prod_[3], rs_ = 0, rp_ = 1;                                                       \
    for (int i = 0; i < 3; ++i) in_[i] = (T)((rank % 2) + 1.0 * I * (rank % 2 ? 1 : 0)) + (T)i;          \
    RUN(MPI_Allreduce(in_, sum_, 3, mt, MPI_SUM, comm), MPI_Iallreduce(in_, sum_, 3, mt, MPI_SUM, comm, &q_)); \
    RUN(MPI_Allreduce(in_, prod_, 3, mt, MPI_PROD, comm), MPI_Iallreduce(in_, prod_, 3, mt, MPI_PROD, comm, &q_)); \
    for (int i = 0; i < 3; ++i) {                                                                        \
      rs_ = 0, rp_ = 1;                                                                                  \
      for (int r = 0; r < size; ++r) {                                                                   \
        T x_ = (T)((r % 2) + 1.0 * I * (r % 2 ? 1 : 0)) + (T)i;                                          \
        rs_ += x_, rp_ *= x_;                                                                            \
      }                                                                                                  \
      CHECK(sum_[i] == rs_);                                                                             \
      CHECK(prod_[i] == rp_);                                                                            \
    }                                                                                                    \
  } while (0)
  REDUCE_COMPLEX(float complex, MPI_C_FLOAT_COMPLEX);
  REDUCE_COMPLEX(double complex, MPI_C_DOUBLE_COMPLEX);
  REDUCE_COMPLEX(long double complex, MPI_C_LONG_DOUBLE_COMPLEX);
}

/* MINLOC / MAXLOC on every pair type: value (r * 5 + i * 3) % 7, index r (ties: smallest). */
#define LOC_TYPE(V, mt)                                                                                  \
  do {                                                                                                   \
    struct { V v; int i; } in_[5], mn_[5], mx_[5];                                                       \
    for (int i = 0; i < 5; ++i) in_[i].v = (V)((rank * 5 + i * 3) % 7), in_[i].i = rank;                 \
    RUN(MPI_Allreduce(in_, mn_, 5, mt, MPI_MINLOC, comm), MPI_Iallreduce(in_, mn_, 5, mt, MPI_MINLOC, comm, &q_)); \
    RUN(MPI_Reduce(in_, mx_, 5, mt, MPI_MAXLOC, 0, comm), MPI_Ireduce(in_, mx_, 5, mt, MPI_MAXLOC, 0, comm, &q_)); \
    for (int i = 0; i < 5; ++i) {                                                                        \
      int bmin = 0, bmax = 0;                                                                            \
      for (int r = 1; r < size; ++r) {                                                                   \
        if ((r * 5 + i * 3) % 7 < (bmin * 5 + i * 3) % 7) bmin = r;                                      \
        if ((r * 5 + i * 3) % 7 > (bmax * 5 + i * 3) % 7) bmax = r;                                      \
      }                                                                                                  \
      CHECK_EQ((long long)mn_[i].v, (bmin * 5 + i * 3) % 7);                                             \
      CHECK_EQ(mn_[i].i, bmin);                                                                          \
      if (rank == 0) {                                                                                   \
        CHECK_EQ((long long)mx_[i].v, (bmax * 5 + i * 3) % 7);                                           \
        CHECK_EQ(mx_[i].i, bmax);                                                                        \
      }                                                                                                  \
    }                                                                                                    \
  } while (0)

static void test_loc(MPI_Comm comm, int rank, int size) {
  LOC_TYPE(float, MPI_FLOAT_INT);
  LOC_TYPE(double, MPI_DOUBLE_INT);
  LOC_TYPE(long, MPI_LONG_INT);
  LOC_TYPE(int, MPI_2INT);
  LOC_TYPE(short, MPI_SHORT_INT);
  LOC_TYPE(long double, MPI_LONG_DOUBLE_INT);
}

/* ---- user operations ---- */

typedef struct { unsigned a, b, c, d; } Mat; /* [[a b] [c d]] */
static Mat mat_mul(Mat x, Mat y) {
  Mat m = {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
  return m;
}
static Mat mat_of(int r, int i) {
  Mat m = {(unsigned)(r + 1), (unsigned)(i + 2), 1u, (unsigned)(r * i % 3)};
  return m;
}
static void mat_op(void* in, void* inout, int* len, MPI_Datatype* type) {
  Mat* a = in;
  Mat* b = inout;
  for (int i = 0; i < *len; ++i) b[i] = mat_mul(a[i], b[i]); /* inout = in * inout */
}
static void int_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}
static int mat_eq(Mat x, Mat y) { return x.a == y.a && x.b == y.b && x.c == y.c && x.d == y.d; }

static void test_user_ops(MPI_Comm comm, int rank, int size) {
  MPI_Op matop, sum;
  MPI_Datatype mat;
  int commute;
  MPI_OK(MPI_Type_contiguous(4, MPI_UNSIGNED, &mat));
  MPI_OK(MPI_Type_commit(&mat));
  MPI_OK(MPI_Op_create(mat_op, 0, &matop));
  MPI_OK(MPI_Op_create(int_sum, 1, &sum));
  MPI_OK(MPI_Op_commutative(matop, &commute));
  CHECK_EQ(commute, 0);
  MPI_OK(MPI_Op_commutative(sum, &commute));
  CHECK_EQ(commute, 1);
  MPI_OK(MPI_Op_commutative(MPI_SUM, &commute));
  CHECK_EQ(commute, 1);

  enum { N = 5 };
  Mat in[N * 64], out[N * 64], ref[N], pre[N];
  int root = size / 2;
  for (int i = 0; i < N * size; ++i) in[i] = mat_of(rank, i);
  for (int i = 0; i < N * size; ++i) {
    Mat p = mat_of(0, i);
    for (int r = 1; r < size; ++r) p = mat_mul(p, mat_of(r, i));
    if (i < N) ref[i] = p;
  }
  RUN(MPI_Reduce(in, out, N, mat, matop, root, comm), MPI_Ireduce(in, out, N, mat, matop, root, comm, &q_));
  if (rank == root)
    for (int i = 0; i < N; ++i) CHECK(mat_eq(out[i], ref[i]));
  RUN(MPI_Allreduce(in, out, N, mat, matop, comm), MPI_Iallreduce(in, out, N, mat, matop, comm, &q_));
  for (int i = 0; i < N; ++i) CHECK(mat_eq(out[i], ref[i]));
  /* scan and exscan in rank order */
  RUN(MPI_Scan(in, out, N, mat, matop, comm), MPI_Iscan(in, out, N, mat, matop, comm, &q_));
  for (int i = 0; i < N; ++i) {
    Mat p = mat_of(0, i);
    for (int r = 1; r <= rank; ++r) p = mat_mul(p, mat_of(r, i));
    CHECK(mat_eq(out[i], p));
    pre[i] = p;
  }
  RUN(MPI_Exscan(in, out, N, mat, matop, comm), MPI_Iexscan(in, out, N, mat, matop, comm, &q_));
  for (int i = 0; i < N && rank > 0; ++i) {
    Mat p = mat_of(0, i);
    for (int r = 1; r < rank; ++r) p = mat_mul(p, mat_of(r, i));
    CHECK(mat_eq(out[i], p));
  }
  (void)pre;
  /* reduce_scatter_block, non-commutative: rank r gets element block r */
  RUN(MPI_Reduce_scatter_block(in, out, N, mat, matop, comm), MPI_Ireduce_scatter_block(in, out, N, mat, matop, comm, &q_));
  for (int i = 0; i < N; ++i) {
    int e = rank * N + i;
    Mat p = mat_of(0, e);
    for (int r = 1; r < size; ++r) p = mat_mul(p, mat_of(r, e));
    CHECK(mat_eq(out[i], p));
  }
  /* commutative user op, in place */
  int v[7];
  for (int i = 0; i < 7; ++i) v[i] = val(rank, i);
  RUN(MPI_Allreduce(MPI_IN_PLACE, v, 7, MPI_INT, sum, comm), MPI_Iallreduce(MPI_IN_PLACE, v, 7, MPI_INT, sum, comm, &q_));
  for (int i = 0; i < 7; ++i) {
    int ref_sum = 0;
    for (int r = 0; r < size; ++r) ref_sum += val(r, i);
    CHECK_EQ(v[i], ref_sum);
  }
  /* an operation freed while a non-blocking collective still uses it */
  if (nb) {
    MPI_Op tmp_op;
    MPI_Request q;
    MPI_OK(MPI_Op_create(mat_op, 0, &tmp_op));
    MPI_OK(MPI_Iallreduce(in, out, N, mat, tmp_op, comm, &q));
    MPI_OK(MPI_Op_free(&tmp_op));
    MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; ++i) CHECK(mat_eq(out[i], ref[i]));
  }
  /* reduce_local: inout = in op inout */
  Mat a = mat_of(1, 1), b = mat_of(2, 3);
  MPI_OK(MPI_Reduce_local(&a, &b, 1, mat, matop));
  CHECK(mat_eq(b, mat_mul(mat_of(1, 1), mat_of(2, 3))));
  int x[3] = {1, 2, 3}, y[3] = {10, 20, 30};
  MPI_OK(MPI_Reduce_local(x, y, 3, MPI_INT, MPI_PROD));
  CHECK(y[0] == 10 && y[1] == 40 && y[2] == 90);
  MPI_OK(MPI_Op_free(&matop));
  MPI_OK(MPI_Op_free(&sum));
  CHECK(matop == MPI_OP_NULL);
  MPI_OK(MPI_Type_free(&mat));
}

/* ---- scans, reduce_scatter, derived types, in place ---- */

static void test_scan_rs(MPI_Comm comm, int rank, int size) {
  enum { N = 9 };
  int in[N], out[N];
  for (int i = 0; i < N; ++i) in[i] = val(rank, i);
  RUN(MPI_Scan(in, out, N, MPI_INT, MPI_SUM, comm), MPI_Iscan(in, out, N, MPI_INT, MPI_SUM, comm, &q_));
  for (int i = 0; i < N; ++i) {
    int ref = 0;
    for (int r = 0; r <= rank; ++r) ref += val(r, i);
    CHECK_EQ(out[i], ref);
  }
  for (int i = 0; i < N; ++i) out[i] = (rank * 13 + i * 5) % 11;
  RUN(MPI_Exscan(MPI_IN_PLACE, out, N, MPI_INT, MPI_MAX, comm), MPI_Iexscan(MPI_IN_PLACE, out, N, MPI_INT, MPI_MAX, comm, &q_));
  for (int i = 0; i < N && rank > 0; ++i) {
    int ref = -1;
    for (int r = 0; r < rank; ++r) ref = (r * 13 + i * 5) % 11 > ref ? (r * 13 + i * 5) % 11 : ref;
    CHECK_EQ(out[i], ref);
  }
  /* reduce_scatter with counts r % 3 + 1; large enough once for the ring */
  for (int big = 0; big < 2; ++big) {
    int counts[64], total = 0, off = 0;
    for (int r = 0; r < size; ++r) counts[r] = (r % 3 + 1) * (big ? 5000 : 1), total += counts[r];
    for (int r = 0; r < rank; ++r) off += counts[r];
    int* sb = malloc(sizeof(int) * total);
    int* rb = malloc(sizeof(int) * total);
    for (int i = 0; i < total; ++i) sb[i] = val(rank, i % 997);
    RUN(MPI_Reduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, comm),
        MPI_Ireduce_scatter(sb, rb, counts, MPI_INT, MPI_SUM, comm, &q_));
    for (int i = 0; i < counts[rank]; ++i) {
      int ref = 0;
      for (int r = 0; r < size; ++r) ref += val(r, (off + i) % 997);
      CHECK_EQ(rb[i], ref);
    }
    /* in place */
    memcpy(rb, sb, sizeof(int) * total);
    RUN(MPI_Reduce_scatter(MPI_IN_PLACE, rb, counts, MPI_INT, MPI_MAX, comm),
        MPI_Ireduce_scatter(MPI_IN_PLACE, rb, counts, MPI_INT, MPI_MAX, comm, &q_));
    for (int i = 0; i < counts[rank]; ++i) CHECK_EQ(rb[i], val(size - 1, (off + i) % 997));
    free(sb);
    free(rb);
  }
  /* large allreduce (ring) and large reduce, in place at the root */
  int n = 50001;
  double* d = malloc(sizeof(double) * n);
  for (int i = 0; i < n; ++i) d[i] = rank + i % 17;
  RUN(MPI_Allreduce(MPI_IN_PLACE, d, n, MPI_DOUBLE, MPI_SUM, comm), MPI_Iallreduce(MPI_IN_PLACE, d, n, MPI_DOUBLE, MPI_SUM, comm, &q_));
  for (int i = 0; i < n; ++i) CHECK(d[i] == size * (size - 1) / 2.0 + size * (i % 17));
  for (int i = 0; i < n; ++i) d[i] = rank + i % 17;
  int root = size > 1 ? 1 : 0;
  const void* sb = rank == root ? MPI_IN_PLACE : d;
  RUN(MPI_Reduce(sb, d, n, MPI_DOUBLE, MPI_MAX, root, comm), MPI_Ireduce(sb, d, n, MPI_DOUBLE, MPI_MAX, root, comm, &q_));
  if (rank == root)
    for (int i = 0; i < n; ++i) CHECK(d[i] == size - 1 + i % 17);
  free(d);
  /* a derived type of one basic type: every other int (extent 7 ints), SUM only touches those */
  MPI_Datatype every_other;
  MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &every_other));
  MPI_OK(MPI_Type_commit(&every_other));
  int a[16], b[16];
  for (int i = 0; i < 16; ++i) a[i] = val(rank, i), b[i] = -5;
  RUN(MPI_Allreduce(a, b, 2, every_other, MPI_SUM, comm), MPI_Iallreduce(a, b, 2, every_other, MPI_SUM, comm, &q_));
  for (int i = 0; i < 16; ++i) {
    int ref = 0;
    for (int r = 0; r < size; ++r) ref += val(r, i);
    int touched = (i < 7 && i % 2 == 0) || (i >= 7 && i < 14 && i % 2 == 1);
    CHECK_EQ(b[i], touched ? ref : -5);
  }
  MPI_OK(MPI_Type_free(&every_other));
}

/* Bad input is reported through the handler with the class and a message naming the values. */
static void test_errors(MPI_Comm world, int rank, int size) {
  MPI_Comm comm;
  MPI_OK(MPI_Comm_dup(world, &comm));
  MPI_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  int x = 1, y = 0, cls;
  int rc = MPI_Bcast(&x, 1, MPI_INT, size, comm);
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_ROOT);
  rc = MPI_Reduce(&x, &y, -1, MPI_INT, MPI_SUM, 0, comm);
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_COUNT);
  double dx = 1, dy;
  rc = MPI_Allreduce(&dx, &dy, 1, MPI_DOUBLE, MPI_BAND, comm);
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_OP);
  rc = MPI_Allreduce(&x, &y, 1, MPI_INT, INVALID_HANDLE(MPI_Op, 12345), comm);
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_OP);
  rc = MPI_Reduce(&x, &y, 1, MPI_INT, MPI_REPLACE, 0, comm);
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_OP);
  rc = MPI_Allgather(&x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, comm);
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_BUFFER);
  rc = MPI_Allreduce(NULL, &y, 1, MPI_INT, MPI_SUM, comm);
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_BUFFER);
  rc = MPI_Ibarrier(comm, NULL);
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_ARG);
  /* after the errors the communicator still works */
  MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, comm));
  CHECK_EQ(y, size);
  MPI_OK(MPI_Comm_free(&comm));
}

/* Several non-blocking collectives in flight at once on one communicator (and one on a dup),
 * overlapped with point-to-point around a ring; completed in reverse order, and by MPI_Test. */
static void test_overlap(MPI_Comm comm, int rank, int size) {
  MPI_Comm other;
  MPI_OK(MPI_Comm_dup(comm, &other));
  enum { N = 6000 };
  int* big = malloc(sizeof(int) * N);
  int* sum = malloc(sizeof(int) * N);
  int* all = malloc(sizeof(int) * size * 2);
  int b = rank == size - 1 ? 4242 : 0, mine[2] = {rank, -rank}, got = -1, tok = rank * 3;
  for (int i = 0; i < N; ++i) big[i] = rank + i;
  MPI_Request q[7];
  MPI_OK(MPI_Ibarrier(comm, &q[0]));
  MPI_OK(MPI_Iallreduce(big, sum, N, MPI_INT, MPI_SUM, comm, &q[1]));
  MPI_OK(MPI_Ibcast(&b, 1, MPI_INT, size - 1, comm, &q[2]));
  MPI_OK(MPI_Iallgather(mine, 2, MPI_INT, all, 2, MPI_INT, other, &q[3]));
  MPI_OK(MPI_Irecv(&got, 1, MPI_INT, (rank + size - 1) % size, 5, comm, &q[4]));
  MPI_OK(MPI_Isend(&tok, 1, MPI_INT, (rank + 1) % size, 5, comm, &q[5]));
  MPI_OK(MPI_Ibarrier(comm, &q[6]));
  for (int i = 6; i >= 0; --i) MPI_OK(MPI_Wait(&q[i], MPI_STATUS_IGNORE));
  for (int i = 0; i < N; ++i) CHECK_EQ(sum[i], size * (size - 1) / 2 + size * i);
  CHECK_EQ(b, 4242);
  for (int r = 0; r < size; ++r) CHECK(all[2 * r] == r && all[2 * r + 1] == -r);
  CHECK_EQ(got, ((rank + size - 1) % size) * 3);
  /* MPI_Test drives a collective to completion */
  int flag = 0, v = rank + 1, w = 0;
  MPI_Request r;
  MPI_OK(MPI_Iallreduce(&v, &w, 1, MPI_INT, MPI_PROD, comm, &r));
  while (!flag) MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
  int fact = 1;
  for (int i = 1; i <= size; ++i) fact *= i;
  CHECK_EQ(w, fact);
  /* Waitall over collectives of two communicators, started in different orders per rank parity */
  int s1 = rank, s2 = 2 * rank, r1 = 0, r2 = 0;
  if (rank % 2 == 0) {
    MPI_OK(MPI_Iallreduce(&s1, &r1, 1, MPI_INT, MPI_SUM, comm, &q[0]));
    MPI_OK(MPI_Iallreduce(&s2, &r2, 1, MPI_INT, MPI_SUM, other, &q[1]));
  } else {
    MPI_OK(MPI_Iallreduce(&s2, &r2, 1, MPI_INT, MPI_SUM, other, &q[1]));
    MPI_OK(MPI_Iallreduce(&s1, &r1, 1, MPI_INT, MPI_SUM, comm, &q[0]));
  }
  MPI_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
  CHECK_EQ(r1, size * (size - 1) / 2);
  CHECK_EQ(r2, size * (size - 1));
  /* MPI_Comm_idup completes later: collectives and a blocking dup run while it is in flight */
  MPI_Comm idup = MPI_COMM_NULL, dup2;
  MPI_Request iq;
  MPI_OK(MPI_Comm_idup(comm, &idup, &iq));
  MPI_OK(MPI_Allreduce(&s1, &r1, 1, MPI_INT, MPI_SUM, comm));
  MPI_OK(MPI_Comm_dup(other, &dup2));
  MPI_OK(MPI_Wait(&iq, MPI_STATUS_IGNORE));
  CHECK(idup != MPI_COMM_NULL);
  int cmp;
  MPI_OK(MPI_Comm_compare(idup, comm, &cmp));
  CHECK_EQ(cmp, MPI_CONGRUENT);
  /* the three communicators keep their traffic apart */
  int a1 = rank, a2 = -rank, a3 = 10 * rank, b1 = -1, b2 = -1, b3 = -1;
  MPI_Request rq[6];
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  MPI_OK(MPI_Irecv(&b1, 1, MPI_INT, left, 9, idup, &rq[0]));
  MPI_OK(MPI_Irecv(&b2, 1, MPI_INT, left, 9, dup2, &rq[1]));
  MPI_OK(MPI_Irecv(&b3, 1, MPI_INT, left, 9, comm, &rq[2]));
  MPI_OK(MPI_Isend(&a3, 1, MPI_INT, right, 9, comm, &rq[3]));
  MPI_OK(MPI_Isend(&a2, 1, MPI_INT, right, 9, dup2, &rq[4]));
  MPI_OK(MPI_Isend(&a1, 1, MPI_INT, right, 9, idup, &rq[5]));
  MPI_OK(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
  CHECK(b1 == left && b2 == -left && b3 == 10 * left);
  MPI_OK(MPI_Allreduce(&s1, &r1, 1, MPI_INT, MPI_SUM, idup));
  CHECK_EQ(r1, size * (size - 1) / 2);
  MPI_OK(MPI_Comm_free(&idup));
  MPI_OK(MPI_Comm_free(&dup2));
  free(big);
  free(sum);
  free(all);
  MPI_OK(MPI_Comm_free(&other));
}

static void suite(MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (nb = 0; nb < 2; ++nb) {
    RUN(MPI_Barrier(comm), MPI_Ibarrier(comm, &q_));
    test_bcast(comm, rank, size);
    test_gather_scatter(comm, rank, size);
    test_allgather(comm, rank, size);
    test_alltoall(comm, rank, size);
    test_predefined_ops(comm, rank, size);
    test_loc(comm, rank, size);
    test_user_ops(comm, rank, size);
    test_scan_rs(comm, rank, size);
  }
  test_errors(comm, rank, size);
  test_overlap(comm, rank, size);
}

/* Concurrent MPI_Comm_create_group calls on one parent over overlapping groups, from two
 * threads, told apart by their tags: thread t builds a communicator of all ranks (t = 0) or of
 * the even ranks (t = 1), then sums t + 1 over it. */
typedef struct {
  int t, rank, size;
} CgArg;
static void* create_group_thread(void* p) {
  CgArg* a = p;
  MPI_Group world, g;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int ranks[64], n = 0;
  for (int r = 0; r < a->size; ++r)
    if (a->t == 0 || r % 2 == 0) ranks[n++] = r;
  MPI_OK(MPI_Group_incl(world, n, ranks, &g));
  if (a->t == 0 || a->rank % 2 == 0) {
    MPI_Comm c;
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 100 + a->t, &c));
    int v = a->t + 1, sum = 0, csize;
    MPI_Comm_size(c, &csize);
    CHECK_EQ(csize, n);
    MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK_EQ(sum, n * (a->t + 1));
    MPI_OK(MPI_Comm_free(&c));
  }
  MPI_Group_free(&g);
  MPI_Group_free(&world);
  return NULL;
}
static void test_create_group_tags(int rank, int size) {
  pthread_t th[2];
  CgArg args[2] = {{0, rank, size}, {1, rank, size}};
  for (int t = 0; t < 2; ++t) CHECK(pthread_create(&th[t], NULL, create_group_thread, &args[t]) == 0);
  for (int t = 0; t < 2; ++t) pthread_join(th[t], NULL);
}

/* One misuse on rank 1 under MPI_ERRORS_ARE_FATAL (the test checks the job's message). */
static void misuse(const char* what, int rank) {
  int x = 1, y = 0;
  double d = 1, e = 0;
  if (rank != 1) {
    MPI_Barrier(MPI_COMM_WORLD); /* waits for the job to end */
    return;
  }
  if (strcmp(what, "root") == 0) MPI_Bcast(&x, 1, MPI_INT, 2, MPI_COMM_WORLD);
  if (strcmp(what, "count") == 0) MPI_Reduce(&x, &y, -1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (strcmp(what, "op") == 0) MPI_Allreduce(&d, &e, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD);
  if (strcmp(what, "in_place") == 0) MPI_Allgather(&x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD);
  if (strcmp(what, "mixed") == 0) {
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE}, pair;
    MPI_Type_create_struct(2, lens, disps, types, &pair);
    MPI_Type_commit(&pair);
    char buf[32], out[32];
    MPI_Allreduce(buf, out, 1, pair, MPI_SUM, MPI_COMM_WORLD);
  }
}

int main(int argc, char** argv) {
  int provided;
  MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK_EQ(provided, MPI_THREAD_MULTIPLE);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 1) {
    misuse(argv[1], rank);
    MPI_Finalize();
    return 0;
  }
  suite(MPI_COMM_WORLD);
  /* an odd-sized communicator: all ranks but the last (size 1 when run on 2) */
  MPI_Comm part;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == size - 1 && size > 1 ? MPI_UNDEFINED : 0, size - rank, &part));
  if (part != MPI_COMM_NULL) {
    suite(part);
    MPI_OK(MPI_Comm_free(&part));
  }
  test_create_group_tags(rank, size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("coll: ok on %d ranks\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
