/* Standard send/recv, blocking and non-blocking, eager and rendezvous sizes, every path: data and
 * status fields checked; ANY_SOURCE/ANY_TAG; non-overtaking order per source; truncation. */
#include <stdint.h>
#include <string.h>

#include "check.h"

static unsigned char pattern(int src, int i, int k) { return (unsigned char)(src * 31 + i * 7 + k); }

static void fill(unsigned char* b, size_t n, int src, int k) {
  for (size_t i = 0; i < n; ++i) b[i] = pattern(src, (int)i, k);
}
static void verify(const unsigned char* b, size_t n, int src, int k) {
  for (size_t i = 0; i < n; ++i) {
    if (b[i] != pattern(src, (int)i, k)) {
      fprintf(stderr, "byte %zu of a %zu-byte message from %d (k=%d): %u != %u\n", i, n, src, k, b[i],
              pattern(src, (int)i, k));
      CHECK(0);
    }
  }
}

/* Ring exchange at each size, blocking send/recv alternating by parity, then non-blocking. */
static void ring(int rank, int size) {
  static const size_t sizes[] = {0, 1, 8, 100, 1000, 4096, 8192, 20000, 65536, 300000, 1 << 20, 4 << 20};
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
    size_t n = sizes[s];
    unsigned char* out = malloc(n + 1);
    unsigned char* in = malloc(n + 1);
    fill(out, n, rank, (int)s);
    memset(in, 0xee, n + 1);
    MPI_Status st;
    if (rank % 2 == 0) {
      MPI_OK(MPI_Send(out, (int)n, MPI_BYTE, right, (int)s, MPI_COMM_WORLD));
      MPI_OK(MPI_Recv(in, (int)n + 1, MPI_BYTE, left, (int)s, MPI_COMM_WORLD, &st));
    } else {
      MPI_OK(MPI_Recv(in, (int)n + 1, MPI_BYTE, left, (int)s, MPI_COMM_WORLD, &st));
      MPI_OK(MPI_Send(out, (int)n, MPI_BYTE, right, (int)s, MPI_COMM_WORLD));
    }
    verify(in, n, left, (int)s);
    CHECK_EQ(in[n], 0xee);
    CHECK_EQ(st.MPI_SOURCE, left);
    CHECK_EQ(st.MPI_TAG, (int)s);
    int count;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK_EQ(count, n);

    MPI_Request req[2];
    memset(in, 0, n + 1);
    MPI_OK(MPI_Irecv(in, (int)n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req[0]));
    MPI_OK(MPI_Isend(out, (int)n, MPI_BYTE, right, 1000 + (int)s, MPI_COMM_WORLD, &req[1]));
    MPI_Status sts[2];
    MPI_OK(MPI_Waitall(2, req, sts));
    CHECK_EQ(req[0], MPI_REQUEST_NULL);
    CHECK_EQ(req[1], MPI_REQUEST_NULL);
    if (size == 2 || 1) {
      CHECK_EQ(sts[0].MPI_SOURCE, left);
      CHECK_EQ(sts[0].MPI_TAG, 1000 + (int)s);
    }
    verify(in, n, left, (int)s);
    free(out);
    free(in);
  }
}

/* Rendezvous-sized messages between buffers from malloc and from MPI_Alloc_mem, in all four
 * combinations (the protocol differs: a sender buffer in a segment or exposed for the receiver's
 * get, a receive buffer in a segment or exposed for the sender's puts, single copy on a node). */
static void buffer_kinds(int rank, int size) {
  static const size_t sizes[] = {300000, 2 << 20};
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  for (size_t s = 0; s < 2; ++s) {
    size_t n = sizes[s];
    for (int kinds = 0; kinds < 4; ++kinds) {
      int send_alloc = kinds & 1, recv_alloc = kinds >> 1;
      unsigned char *out, *in;
      if (send_alloc) MPI_OK(MPI_Alloc_mem((MPI_Aint)n, MPI_INFO_NULL, &out)); else out = malloc(n);
      if (recv_alloc) MPI_OK(MPI_Alloc_mem((MPI_Aint)n, MPI_INFO_NULL, &in)); else in = malloc(n);
      int k = 50 + (int)s * 4 + kinds;
      fill(out, n, rank, k);
      memset(in, 0, n);
      MPI_Request req[2];
      MPI_Status st[2];
      MPI_OK(MPI_Irecv(in, (int)n, MPI_BYTE, left, k, MPI_COMM_WORLD, &req[0]));
      MPI_OK(MPI_Isend(out, (int)n, MPI_BYTE, right, k, MPI_COMM_WORLD, &req[1]));
      MPI_OK(MPI_Waitall(2, req, st));
      verify(in, n, left, k);
      int count;
      MPI_OK(MPI_Get_count(&st[0], MPI_BYTE, &count));
      CHECK_EQ(count, n);
      /* blocking receive of the same (the shortcut without a request takes a rendezvous too) */
      memset(in, 0, n);
      MPI_OK(MPI_Isend(out, (int)n, MPI_BYTE, right, k, MPI_COMM_WORLD, &req[1]));
      MPI_OK(MPI_Recv(in, (int)n, MPI_BYTE, left, k, MPI_COMM_WORLD, &st[0]));
      MPI_OK(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
      verify(in, n, left, k);
      if (send_alloc) MPI_OK(MPI_Free_mem(out)); else free(out);
      if (recv_alloc) MPI_OK(MPI_Free_mem(in)); else free(in);
    }
  }
}

/* Every rank sends kMsgs numbered messages of mixed sizes to rank 0, which receives with
 * MPI_ANY_SOURCE / MPI_ANY_TAG and checks that each source's messages arrive in order. */
static void ordering(int rank, int size) {
  enum { kMsgs = 200 };
  if (rank != 0) {
    for (int i = 0; i < kMsgs; ++i) {
      size_t n = (i % 10 == 9) ? 50000 : (size_t)(i % 5) * 8 + 8;  /* eager and rendezvous mixed */
      unsigned char* b = malloc(n);
      fill(b, n, rank, i);
      memcpy(b, &i, sizeof i);
      MPI_OK(MPI_Send(b, (int)n, MPI_BYTE, 0, i % 3, MPI_COMM_WORLD));
      free(b);
    }
    return;
  }
  int next[64] = {0};
  unsigned char* b = malloc(50000);
  for (int m = 0; m < kMsgs * (size - 1); ++m) {
    MPI_Status st;
    MPI_OK(MPI_Recv(b, 50000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    int i;
    memcpy(&i, b, sizeof i);
    CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size);
    CHECK_EQ(i, next[st.MPI_SOURCE]);
    CHECK_EQ(st.MPI_TAG, i % 3);
    int count;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK_EQ(count, (i % 10 == 9) ? 50000 : (i % 5) * 8 + 8);
    next[st.MPI_SOURCE]++;
  }
  free(b);
}

/* A specific-tag receive overtakes nothing of the same tag, but may pick a later tag first. */
static void tag_selection(int rank, int size) {
  if (size < 2 || rank > 1) return;
  if (rank == 0) {
    int a = 1, b = 2; /* non-blocking: tag 20 must go out before tag 10 is received */
    MPI_Request r[2];
    MPI_OK(MPI_Isend(&a, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Isend(&b, 1, MPI_INT, 1, 20, MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  } else {
    int x = 0, y = 0;
    MPI_Status st;
    MPI_OK(MPI_Recv(&y, 1, MPI_INT, 0, 20, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Recv(&x, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, &st));
    CHECK_EQ(x, 1);
    CHECK_EQ(y, 2);
  }
}

/* Truncation: the data that fits arrives, the call returns MPI_ERR_TRUNCATE (eager and rendezvous). */
static void truncation(int rank, int size) {
  if (size < 2 || rank > 1) return;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  static const int lens[] = {64, 100000, 3000000}; /* eager, rendezvous, split copy on a node */
  for (int k = 0; k < 3; ++k) {
    int n = lens[k];
    unsigned char* b = malloc((size_t)n);
    if (rank == 0) {
      fill(b, (size_t)n, 0, k);
      MPI_OK(MPI_Send(b, n, MPI_BYTE, 1, 5, MPI_COMM_WORLD));
    } else {
      memset(b, 0, (size_t)n);
      MPI_Status st;
      int rc = MPI_Recv(b, n / 2, MPI_BYTE, 0, 5, MPI_COMM_WORLD, &st);
      CHECK_EQ(rc, MPI_ERR_TRUNCATE);
      int cls;
      MPI_Error_class(rc, &cls);
      CHECK_EQ(cls, MPI_ERR_TRUNCATE);
      verify(b, (size_t)n / 2, 0, k);
      CHECK_EQ(b[n / 2], 0);
      int count;
      MPI_Get_count(&st, MPI_BYTE, &count);
      CHECK_EQ(count, n / 2);
    }
    free(b);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  ring(rank, size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  buffer_kinds(rank, size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  ordering(rank, size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  tag_selection(rank, size);
  truncation(rank, size);
  /* Self messages, eager and rendezvous. */
  for (int n = 8; n <= 1 << 20; n *= 64) {
    unsigned char* a = malloc((size_t)n);
    unsigned char* b = malloc((size_t)n);
    fill(a, (size_t)n, rank, n);
    MPI_Request r;
    MPI_OK(MPI_Irecv(b, n, MPI_BYTE, rank, 3, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Send(a, n, MPI_BYTE, rank, 3, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    verify(b, (size_t)n, rank, n);
    free(a);
    free(b);
  }
  int sum = 0, one = 1;
  MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_EQ(sum, size);
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("p2p_basic: ok on %d ranks\n", size);
  return 0;
}
