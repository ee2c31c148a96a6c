/* Large blocking MPI_Bcast and MPI_Allreduce (by default the same-node staged algorithms of
 * mpi/coll/shm.cc from 4 KiB at 2 or more ranks; with the argument "single_copy" the single-copy
 * ones from 64 KiB; with "schedules", below the switches and on other paths the
 * schedules, whose ring starts at 64 KiB): sizes around each switch and the staging chunks,
 * every predefined op on int and double, MAXLOC on MPI_2INT, a non-commutative user op (affine
 * maps composed in rank order), MPI_IN_PLACE, a contiguous derived type with fewer
 * elements than ranks (empty slices), a split communicator, and every rank's result compared
 * byte for byte with rank 0's (floating-point sums of inexact values included). */
#include <stdint.h>
#include <string.h>

#include "check.h"

static int rank, size;

/* Every rank's result equals rank 0's, byte for byte. */
static void same_everywhere(const void* buf, size_t bytes, MPI_Comm comm) {
  char* copy = malloc(bytes > 0 ? bytes : 1);
  memcpy(copy, buf, bytes);
  MPI_Bcast(copy, (int)bytes, MPI_BYTE, 0, comm);
  CHECK(memcmp(copy, buf, bytes) == 0);
  free(copy);
}

static int ival(int r, int i) { return (r * 131 + i * 7) % 97 - 40; }
static double dval(int r, int i) { return (double)((r * 17 + i * 3) % 23) - 11.0; }

static void int_ops(int count, int in_place, MPI_Comm comm) {
  int n, me;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
  int* in = malloc(sizeof(int) * (size_t)count);
  int* out = malloc(sizeof(int) * (size_t)count);
  for (int o = 0; o < (int)(sizeof ops / sizeof ops[0]); ++o) {
    for (int i = 0; i < count; ++i) (in_place ? out : in)[i] = ival(me, i);
    CHECK(MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, count, MPI_INT, ops[o], comm) == MPI_SUCCESS);
    for (int i = 0; i < count; ++i) {
      int want = ival(0, i);
      for (int r = 1; r < n; ++r) {
        int v = ival(r, i);
        switch (o) {
          case 0: want += v; break;
          case 1: want = (int)((unsigned)want * (unsigned)v); break;
          case 2: want = v > want ? v : want; break;
          case 3: want = v < want ? v : want; break;
          case 4: want = want && v; break;
          case 5: want = want || v; break;
          case 6: want = !want != !v; break;
          case 7: want &= v; break;
          case 8: want |= v; break;
          default: want ^= v; break;
        }
      }
      if (out[i] != want) {
        fprintf(stderr, "rank %d: int op %d count %d in_place %d element %d: %d, expected %d\n", me, o, count,
                in_place, i, out[i], want);
        CHECK(out[i] == want);
      }
    }
  }
  free(in);
  free(out);
}

static void double_ops(int count, int in_place, MPI_Comm comm) {
  int n, me;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
  double* in = malloc(sizeof(double) * (size_t)count);
  double* out = malloc(sizeof(double) * (size_t)count);
  for (int o = 0; o < 4; ++o) {
    for (int i = 0; i < count; ++i) (in_place ? out : in)[i] = dval(me, i);
    CHECK(MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, count, MPI_DOUBLE, ops[o], comm) == MPI_SUCCESS);
    for (int i = 0; i < count; ++i) {
      double want = dval(0, i); /* small integers: every order gives the same exact result */
      for (int r = 1; r < n; ++r) {
        double v = dval(r, i);
        want = o == 0 ? want + v : o == 1 ? want * v : o == 2 ? (v > want ? v : want) : (v < want ? v : want);
      }
      if (out[i] != want) {
        fprintf(stderr, "rank %d: double op %d count %d element %d: %g, expected %g\n", me, o, count, i, out[i], want);
        CHECK(out[i] == want);
      }
    }
  }
  /* inexact values: the same bytes on every rank */
  for (int i = 0; i < count; ++i) (in_place ? out : in)[i] = 1.0 / (3.0 + me + i % 101) + 1e-7 * me;
  CHECK(MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, count, MPI_DOUBLE, MPI_SUM, comm) == MPI_SUCCESS);
  same_everywhere(out, sizeof(double) * (size_t)count, comm);
  free(in);
  free(out);
}

static void maxloc(int count, MPI_Comm comm) {
  int n, me;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  int* in = malloc(2 * sizeof(int) * (size_t)count);
  int* out = malloc(2 * sizeof(int) * (size_t)count);
  for (int i = 0; i < count; ++i) in[2 * i] = (me + i) % n, in[2 * i + 1] = me;
  CHECK(MPI_Allreduce(in, out, count, MPI_2INT, MPI_MAXLOC, comm) == MPI_SUCCESS);
  for (int i = 0; i < count; ++i) {
    /* the value n - 1 is held by the rank r with (r + i) % n == n - 1 */
    CHECK_EQ(out[2 * i], n - 1);
    CHECK_EQ(out[2 * i + 1], ((n - 1 - i) % n + n) % n);
  }
  free(in);
  free(out);
}

/* Affine maps x -> a x + b over uint64 (wrapping): composition is associative, not commutative.
 * inout = in o inout (in applied after inout), so the result is x0 o x1 o ... o x_{n-1}. */
static void compose(void* invec, void* inoutvec, int* len, MPI_Datatype* type) {
  (void)type;
  const uint64_t* f = invec;
  uint64_t* g = inoutvec;
  for (int i = 0; i < *len; ++i) {
    uint64_t a = f[2 * i] * g[2 * i], b = f[2 * i] * g[2 * i + 1] + f[2 * i + 1];
    g[2 * i] = a, g[2 * i + 1] = b;
  }
}

static void non_commutative(int count, int in_place, MPI_Comm comm) {
  int n, me;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  MPI_Datatype map;
  MPI_Type_contiguous(2, MPI_UINT64_T, &map);
  MPI_Type_commit(&map);
  MPI_Op op;
  MPI_Op_create(compose, 0, &op);
  uint64_t* in = malloc(2 * sizeof(uint64_t) * (size_t)count);
  uint64_t* out = malloc(2 * sizeof(uint64_t) * (size_t)count);
  uint64_t* mine = in_place ? out : in;
  for (int i = 0; i < count; ++i) mine[2 * i] = 2 * (uint64_t)(me + i) + 3, mine[2 * i + 1] = (uint64_t)(me * 1000 + i);
  CHECK(MPI_Allreduce(in_place ? MPI_IN_PLACE : in, out, count, map, op, comm) == MPI_SUCCESS);
  for (int i = 0; i < count; ++i) {
    uint64_t a = 1, b = 0; /* identity, composed with x_{n-1} first */
    for (int r = n - 1; r >= 0; --r) {
      uint64_t fa = 2 * (uint64_t)(r + i) + 3, fb = (uint64_t)(r * 1000 + i);
      uint64_t na = fa * a, nb = fa * b + fb;
      a = na, b = nb;
    }
    if (out[2 * i] != a || out[2 * i + 1] != b) {
      fprintf(stderr, "rank %d: composed map %d of %d (in_place %d): (%llu, %llu), expected (%llu, %llu)\n", me, i,
              count, in_place, (unsigned long long)out[2 * i], (unsigned long long)out[2 * i + 1],
              (unsigned long long)a, (unsigned long long)b);
      CHECK(0);
    }
  }
  free(in);
  free(out);
  MPI_Op_free(&op);
  MPI_Type_free(&map);
}

/* A contiguous type of `ints` ints, `count` of them: fewer elements than ranks leaves slices empty. */
static void big_elements(int ints, int count, MPI_Comm comm) {
  int n, me;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  MPI_Datatype t;
  MPI_Type_contiguous(ints, MPI_INT, &t);
  MPI_Type_commit(&t);
  int total = ints * count;
  int* in = malloc(sizeof(int) * (size_t)total);
  int* out = malloc(sizeof(int) * (size_t)total);
  for (int i = 0; i < total; ++i) in[i] = ival(me, i);
  CHECK(MPI_Allreduce(in, out, count, t, MPI_MAX, comm) == MPI_SUCCESS);
  for (int i = 0; i < total; ++i) {
    int want = ival(0, i);
    for (int r = 1; r < n; ++r) want = ival(r, i) > want ? ival(r, i) : want;
    CHECK_EQ(out[i], want);
  }
  for (int root = 0; root < n; ++root) {
    for (int i = 0; i < total; ++i) out[i] = me == root ? ival(root, i) : -1;
    CHECK(MPI_Bcast(out, count, t, root, comm) == MPI_SUCCESS);
    for (int i = 0; i < total; ++i) CHECK_EQ(out[i], ival(root, i));
  }
  free(in);
  free(out);
  MPI_Type_free(&t);
}

static void bcasts(int bytes, MPI_Comm comm) {
  int n, me;
  MPI_Comm_size(comm, &n);
  MPI_Comm_rank(comm, &me);
  unsigned char* buf = malloc((size_t)bytes);
  for (int root = 0; root < n; ++root) {
    for (int i = 0; i < bytes; ++i) buf[i] = me == root ? (unsigned char)(i * 13 + root) : 0xee;
    CHECK(MPI_Bcast(buf, bytes, MPI_BYTE, root, comm) == MPI_SUCCESS);
    for (int i = 0; i < bytes; ++i) {
      if (buf[i] != (unsigned char)(i * 13 + root)) {
        fprintf(stderr, "rank %d: bcast of %d bytes from %d: byte %d is %d\n", me, bytes, root, i, buf[i]);
        CHECK(0);
      }
    }
    /* the root reuses its buffer at once: the next broadcast must not see old bytes */
    if (me == root) memset(buf, 0x5a, (size_t)bytes);
  }
  free(buf);
}

static void suite(MPI_Comm comm) {
  /* The switches: 4 KiB (staged, GASKET_MPI_COLL_STAGED) and 64 KiB (single copy with the argument
   * "single_copy", the schedules' ring): one element below, at, above; 1 MiB (one staging half)
   * and odd counts past it (a second, partial chunk); 4 MiB + 1 element (five chunks, double and
   * bcast) */
  int int_counts[] = {1023, 1024, 1025, 16383, 16384, 16385, 262144, 262147};
  int double_counts[] = {511, 512, 513, 8191, 8192, 8193, 131072, 131075, (1 << 19) + 1};
  for (int k = 0; k < 9; ++k) {
    if (k < 8) int_ops(int_counts[k], k % 2, comm);
    double_ops(double_counts[k], (k + 1) % 2, comm);
  }
  maxloc(16384, comm);
  maxloc(65537, comm);
  non_commutative(4096, 0, comm);   /* 64 KiB */
  non_commutative(65539, 1, comm);  /* ~1 MiB, in place */
  non_commutative(4095, 1, comm);   /* below the switch */
  non_commutative(65539, 0, comm);  /* two chunks, not in place */
  non_commutative(3 * 65536 + 5, 1, comm); /* four chunks: every staging buffer reused, in place */
  big_elements(16387, 1, comm);
  big_elements(16384, 3, comm);
  /* and 32 KiB and 1 MiB: the pulled broadcast's range (from 4 ranks, at most two per CPU) */
  int bcast_sizes[] = {4095, 4096, 4097, 32767, 32768, 65535, 65536, 65537, (1 << 20) - 1, 1 << 20, (1 << 20) + 3,
                       (4 << 20) + 1};
  for (size_t k = 0; k < sizeof bcast_sizes / sizeof bcast_sizes[0]; ++k) bcasts(bcast_sizes[k], comm);
}

int main(int argc, char** argv) {
  /* "single_copy": the same-node single-copy algorithms from 64 KiB (GASKET_MPI_COLL_SINGLE_COPY);
   * "schedules": never (the point-to-point schedules run the same checks); neither: the defaults */
  if (argc > 1 && strcmp(argv[1], "single_copy") == 0) {
    setenv("GASKET_MPI_COLL_SINGLE_COPY", "64K", 1);
    setenv("GASKET_MPI_COLL_STAGED", "0", 1);
  }
  if (argc > 1 && strcmp(argv[1], "schedules") == 0) {
    setenv("GASKET_MPI_COLL_SINGLE_COPY", "0", 1);
    setenv("GASKET_MPI_COLL_STAGED", "0", 1);
  }
  /* "mixed_oversubscribed": rank 0 of the launcher believes the job oversubscribed (whole-buffer
   * bcast pieces), the others do not; the pieces must still match (the root's choice travels in
   * its cell: before, the receivers read the wrong buffers) */
  if (argc > 1 && strcmp(argv[1], "mixed_oversubscribed") == 0) {
    const char* job_rank = getenv("GASKET_JOB_RANK");
    setenv("GASKET_OVERSUBSCRIBED", job_rank != NULL && strcmp(job_rank, "0") == 0 ? "yes" : "no", 1);
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  suite(MPI_COMM_WORLD);
  /* a split communicator (its own cell slot), reversed rank order */
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half);
  suite(half);
  MPI_Comm_free(&half);
  /* several rounds back to back: exposures released, buffers reused at once */
  for (int i = 0; i < 20; ++i) {
    double_ops(131072, i % 2, MPI_COMM_WORLD);
  }
  /* allreduces (staged inputs read until the round after next) and pipelined bcasts interleaved:
   * a staging buffer rewritten too early shows up as a wrong composed map or byte */
  for (int i = 0; i < 12; ++i) {
    non_commutative(65536 + 7 * i, i % 2, MPI_COMM_WORLD);
    bcasts((1 << 20) + 5 * i, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("coll_large: %d ranks\n", size);
  MPI_Finalize();
  return 0;
}
