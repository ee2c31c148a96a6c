/* The large-count forms of point-to-point (MPI 4.1): every _c send mode, receive, persistent and
 * matched form moves data checked byte for byte; MPI_Get_count_c / MPI_Get_elements_c /
 * MPI_Type_size_c answer MPI_Count; the int forms answer MPI_UNDEFINED beyond INT_MAX.
 * --negative-count: a fatal MPI_Send_c with count -2^33.
 * --huge (2 ranks, one run: about 2 GiB per rank): 2^31 + 8 MPI_BYTE elements, more than an int
 * can count, sent with MPI_Send_c and received with MPI_Recv_c, then MPI_Isend_c / MPI_Irecv_c. */
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

static unsigned char pattern(int64_t i, int k) { return (unsigned char)((i * 131 + (i >> 16) + k * 7) & 0xff); }

static void fill(unsigned char* b, int64_t n, int k) {
  for (int64_t i = 0; i < n; ++i) b[i] = pattern(i, k);
}
static void verify(const unsigned char* b, int64_t n, int k) {
  for (int64_t i = 0; i < n; ++i) {
    if (b[i] != pattern(i, k)) {
      fprintf(stderr, "byte %lld of %lld (k=%d): %u != %u\n", (long long)i, (long long)n, k, b[i], pattern(i, k));
      CHECK(0);
    }
  }
}

/* The received status in every count form. */
static void check_counts(const MPI_Status* st, MPI_Datatype type, MPI_Count expected) {
  MPI_Count c = -1, e = -1, x = -1;
  int ci = -1, ei = -1;
  MPI_OK(MPI_Get_count_c(st, type, &c));
  MPI_OK(MPI_Get_elements_c(st, type, &e));
  MPI_OK(MPI_Get_elements_x(st, type, &x));
  MPI_OK(MPI_Get_count(st, type, &ci));
  MPI_OK(MPI_Get_elements(st, type, &ei));
  CHECK_EQ(c, expected);
  CHECK_EQ(e, expected);
  CHECK_EQ(x, expected);
  CHECK_EQ(ci, expected > INT_MAX ? MPI_UNDEFINED : expected);
  CHECK_EQ(ei, expected > INT_MAX ? MPI_UNDEFINED : expected);
}

enum { kInts = 5000 };

/* Pairs (even, odd): every _c form once (sends, receives, persistent, matched, sendrecv), each
 * message checked. */
static void every_form(int rank) {
  int peer = rank ^ 1, sender = rank % 2 == 0;
  int64_t n = kInts * (int64_t)sizeof(int);
  unsigned char* buf = malloc((size_t)n);
  MPI_Status st;
  MPI_Request req;
  int k = 0;

  /* blocking modes; MPI_Rsend_c needs the receive posted: Irecv_c, then a zero-byte go-ahead */
  for (k = 0; k < 4; ++k) {
    if (sender) {
      fill(buf, n, k);
      if (k == 0) MPI_OK(MPI_Send_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD));
      if (k == 1) MPI_OK(MPI_Ssend_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD));
      if (k == 2) {
        MPI_OK(MPI_Recv_c(NULL, 0, MPI_INT, peer, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Rsend_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD));
      }
      if (k == 3) {
        int bsize = (int)n + MPI_BSEND_OVERHEAD;
        void* attached = malloc((size_t)bsize);
        MPI_OK(MPI_Buffer_attach(attached, bsize));
        MPI_OK(MPI_Bsend_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD));
        MPI_OK(MPI_Buffer_detach(&attached, &bsize));
        free(attached);
      }
    } else {
      memset(buf, 0, (size_t)n);
      if (k == 2) {
        MPI_OK(MPI_Irecv_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD, &req));
        MPI_OK(MPI_Send_c(NULL, 0, MPI_INT, peer, 100, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&req, &st));
      } else {
        MPI_OK(MPI_Recv_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD, &st));
      }
      verify(buf, n, k);
      check_counts(&st, MPI_INT, kInts);
    }
  }

  /* non-blocking modes */
  for (k = 4; k < 8; ++k) {
    if (sender) {
      fill(buf, n, k);
      int bsize = (int)n + MPI_BSEND_OVERHEAD;
      void* attached = NULL;
      if (k == 4) MPI_OK(MPI_Isend_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD, &req));
      if (k == 5) MPI_OK(MPI_Issend_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD, &req));
      if (k == 6) {
        MPI_OK(MPI_Recv_c(NULL, 0, MPI_INT, peer, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Irsend_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD, &req));
      }
      if (k == 7) {
        attached = malloc((size_t)bsize);
        MPI_OK(MPI_Buffer_attach(attached, bsize));
        MPI_OK(MPI_Ibsend_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD, &req));
      }
      MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
      if (attached != NULL) {
        MPI_OK(MPI_Buffer_detach(&attached, &bsize));
        free(attached);
      }
    } else {
      memset(buf, 0, (size_t)n);
      MPI_OK(MPI_Irecv_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD, &req));
      if (k == 6) MPI_OK(MPI_Send_c(NULL, 0, MPI_INT, peer, 100, MPI_COMM_WORLD));
      MPI_OK(MPI_Wait(&req, &st));
      verify(buf, n, k);
      check_counts(&st, MPI_INT, kInts);
    }
  }

  /* persistent forms, each started twice; the receiver's matching MPI_Recv_init_c */
  for (k = 8; k < 12; ++k) {
    if (sender) {
      if (k == 8) MPI_OK(MPI_Send_init_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD, &req));
      if (k == 9) MPI_OK(MPI_Ssend_init_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD, &req));
      if (k == 10) MPI_OK(MPI_Rsend_init_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD, &req));
      if (k == 11) MPI_OK(MPI_Bsend_init_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD, &req));
      int bsize = (int)n + MPI_BSEND_OVERHEAD;
      void* attached = malloc((size_t)bsize);
      MPI_OK(MPI_Buffer_attach(attached, bsize));
      for (int round = 0; round < 2; ++round) {
        fill(buf, n, k + 10 * round);
        MPI_OK(MPI_Recv_c(NULL, 0, MPI_INT, peer, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
      }
      MPI_OK(MPI_Buffer_detach(&attached, &bsize));
      free(attached);
    } else {
      MPI_OK(MPI_Recv_init_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD, &req));
      for (int round = 0; round < 2; ++round) {
        memset(buf, 0, (size_t)n);
        MPI_OK(MPI_Start(&req));
        MPI_OK(MPI_Send_c(NULL, 0, MPI_INT, peer, 100, MPI_COMM_WORLD));
        MPI_OK(MPI_Wait(&req, &st));
        verify(buf, n, k + 10 * round);
        check_counts(&st, MPI_INT, kInts);
      }
    }
    MPI_OK(MPI_Request_free(&req));
  }

  /* matched receives: MPI_Mrecv_c (k = 12), MPI_Imrecv_c (k = 13) */
  for (k = 12; k < 14; ++k) {
    if (sender) {
      fill(buf, n, k);
      MPI_OK(MPI_Send_c(buf, kInts, MPI_INT, peer, k, MPI_COMM_WORLD));
      continue;
    }
    MPI_Message msg;
    memset(buf, 0, (size_t)n);
    MPI_OK(MPI_Mprobe(peer, k, MPI_COMM_WORLD, &msg, &st));
    check_counts(&st, MPI_INT, kInts);
    if (k == 12) {
      MPI_OK(MPI_Mrecv_c(buf, kInts, MPI_INT, &msg, &st));
    } else {
      MPI_OK(MPI_Imrecv_c(buf, kInts, MPI_INT, &msg, &req));
      MPI_OK(MPI_Wait(&req, &st));
    }
    verify(buf, n, k);
    check_counts(&st, MPI_INT, kInts);
  }

  /* both directions at once: each rank's data carries its rank in the pattern */
  unsigned char* in = malloc((size_t)n);
  k = 14;
  fill(buf, n, k + 100 * rank);
  memset(in, 0, (size_t)n);
  MPI_OK(MPI_Sendrecv_c(buf, kInts, MPI_INT, peer, k, in, kInts, MPI_INT, peer, k, MPI_COMM_WORLD, &st));
  verify(in, n, k + 100 * peer);
  check_counts(&st, MPI_INT, kInts);
  k = 15;
  fill(buf, n, k + 100 * rank);
  MPI_OK(MPI_Sendrecv_replace_c(buf, kInts, MPI_INT, peer, k, peer, k, MPI_COMM_WORLD, &st));
  verify(buf, n, k + 100 * peer);
  check_counts(&st, MPI_INT, kInts);
  free(in);
  free(buf);
}

/* Regression (type_size_beyond_int): MPI_Type_size of a 4 GiB type answered 0 (the size cast to
 * int); it must be MPI_UNDEFINED, with the true size from MPI_Type_size_c and _x. */
static void type_size_beyond_int(void) {
  MPI_Datatype page, four_gib;
  MPI_OK(MPI_Type_contiguous(4096, MPI_BYTE, &page));
  MPI_OK(MPI_Type_contiguous(1 << 20, page, &four_gib));
  MPI_OK(MPI_Type_commit(&four_gib));
  int size = 0;
  MPI_Count size_c = 0, size_x = 0;
  MPI_OK(MPI_Type_size(four_gib, &size));
  MPI_OK(MPI_Type_size_c(four_gib, &size_c));
  MPI_OK(MPI_Type_size_x(four_gib, &size_x));
  CHECK_EQ(size, MPI_UNDEFINED);
  CHECK_EQ(size_c, 1LL << 32);
  CHECK_EQ(size_x, 1LL << 32);
  MPI_OK(MPI_Type_size_c(MPI_DOUBLE, &size_c));
  CHECK_EQ(size_c, sizeof(double));
  MPI_OK(MPI_Type_free(&four_gib));
  MPI_OK(MPI_Type_free(&page));
}

/* A negative MPI_Count is refused with MPI_ERR_COUNT (its message, naming the call and the value,
 * is checked by large_count_negative_fatal through --negative-count). */
static void negative_count(int rank) {
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int x = 0;
  CHECK_EQ(MPI_Send_c(&x, -(1LL << 33), MPI_INT, rank, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_EQ(MPI_Irecv_c(&x, -1, MPI_INT, rank, 0, MPI_COMM_WORLD, &(MPI_Request){0}), MPI_ERR_COUNT);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* 2^31 + 8 bytes between ranks 0 and 1, blocking then non-blocking; the regression
 * get_elements_x_beyond_int: MPI_Get_elements_x went through the int form and truncated. */
static void huge(int rank) {
  const MPI_Count n = (1LL << 31) + 8;
  unsigned char* buf = malloc((size_t)n);
  CHECK(buf != NULL);
  for (int k = 0; k < 2; ++k) {
    if (rank == 0) {
      fill(buf, n, k);
      if (k == 0) {
        MPI_OK(MPI_Send_c(buf, n, MPI_BYTE, 1, k, MPI_COMM_WORLD));
      } else {
        MPI_Request req;
        MPI_OK(MPI_Isend_c(buf, n, MPI_BYTE, 1, k, MPI_COMM_WORLD, &req));
        MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
      }
    } else if (rank == 1) {
      MPI_Status st;
      memset(buf, 0, (size_t)n);
      if (k == 0) {
        MPI_OK(MPI_Recv_c(buf, n, MPI_BYTE, 0, k, MPI_COMM_WORLD, &st));
      } else {
        MPI_Request req;
        MPI_OK(MPI_Irecv_c(buf, n, MPI_BYTE, 0, k, MPI_COMM_WORLD, &req));
        MPI_OK(MPI_Wait(&req, &st));
      }
      verify(buf, n, k);
      check_counts(&st, MPI_BYTE, n);
    }
  }
  free(buf);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size % 2 == 0);
  int with_huge = argc > 1 && strcmp(argv[1], "--huge") == 0;
  if (argc > 1 && strcmp(argv[1], "--negative-count") == 0) {
    int x = 0;
    MPI_Send_c(&x, -(1LL << 33), MPI_INT, rank, 0, MPI_COMM_WORLD); /* fatal: ends the job */
  }
  every_form(rank);
  type_size_beyond_int();
  negative_count(rank);
  if (with_huge) huge(rank);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("large_count: ok on %d ranks%s\n", size, with_huge ? " (with 2^31 + 8 bytes)" : "");
  return 0;
}
