/* Every send mode (standard, synchronous, ready, buffered) x blocking / non-blocking, at eager and
 * rendezvous sizes, checked for data and status; synchronous completion waits for the receive;
 * MPI_Bsend's buffer exhaustion returns MPI_ERR_BUFFER; MPI_Buffer_detach hands the buffer back. */
#include <string.h>

#include "check.h"

enum { kStandard, kSync, kReady, kBuffered, kModes };
static const char* const kNames[] = {"standard", "synchronous", "ready", "buffered"};

static void send_mode(int mode, int blocking, const void* buf, int n, int dest, int tag) {
  if (blocking) {
    switch (mode) {
      case kStandard: MPI_OK(MPI_Send(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD)); break;
      case kSync: MPI_OK(MPI_Ssend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD)); break;
      case kReady: MPI_OK(MPI_Rsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD)); break;
      case kBuffered: MPI_OK(MPI_Bsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD)); break;
    }
    return;
  }
  MPI_Request r = MPI_REQUEST_NULL;
  switch (mode) {
    case kStandard: MPI_OK(MPI_Isend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &r)); break;
    case kSync: MPI_OK(MPI_Issend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &r)); break;
    case kReady: MPI_OK(MPI_Irsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &r)); break;
    case kBuffered: MPI_OK(MPI_Ibsend(buf, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &r)); break;
  }
  CHECK(r != MPI_REQUEST_NULL);
  MPI_Status st;
  MPI_OK(MPI_Wait(&r, &st));
  CHECK_EQ(r, MPI_REQUEST_NULL);
}

/* Pairs (0,1), (2,3), ...: the even rank sends, the odd one receives (pre-posted for ready mode). */
static void modes(int rank, int size) {
  static const int sizes[] = {0, 8, 1000, 70000, 1 << 20};
  int partner = rank ^ 1;
  if (partner >= size) return;
  int bufsize = 2 * ((1 << 20) + MPI_BSEND_OVERHEAD);
  char* attached = malloc((size_t)bufsize);
  MPI_OK(MPI_Buffer_attach(attached, bufsize));
  unsigned char* data = malloc(1 << 20);
  unsigned char* in = malloc((1 << 20) + 1);
  for (int mode = 0; mode < kModes; ++mode) {
    for (int blocking = 0; blocking < 2; ++blocking) {
      for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        int n = sizes[s], tag = mode * 100 + blocking * 10 + (int)s;
        if (rank % 2 == 0) {
          for (int i = 0; i < n; ++i) data[i] = (unsigned char)(i * 13 + tag);
          /* ready mode needs the receive posted: wait for the partner's go-ahead */
          MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, partner, 9999, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
          send_mode(mode, blocking, data, n, partner, tag);
          if (mode == kBuffered) memset(data, 0, (size_t)n); /* the buffered copy must not change */
        } else {
          memset(in, 0xff, (1 << 20) + 1);
          MPI_Request r;
          MPI_OK(MPI_Irecv(in, 1 << 20, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &r));
          MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, partner, 9999, MPI_COMM_WORLD));
          MPI_Status st;
          MPI_OK(MPI_Wait(&r, &st));
          CHECK_EQ(st.MPI_SOURCE, partner);
          CHECK_EQ(st.MPI_TAG, tag);
          int count;
          MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
          CHECK_EQ(count, n);
          for (int i = 0; i < n; ++i) {
            if (in[i] != (unsigned char)(i * 13 + tag)) {
              fprintf(stderr, "%s %s send, %d bytes: byte %d wrong\n", kNames[mode], blocking ? "blocking" : "non-blocking", n, i);
              CHECK(0);
            }
          }
          CHECK_EQ(in[n], 0xff);
        }
      }
    }
  }
  void* back;
  int back_size;
  MPI_OK(MPI_Buffer_detach(&back, &back_size));
  CHECK(back == attached);
  CHECK_EQ(back_size, bufsize);
  free(attached);
  free(data);
  free(in);
}

/* A synchronous send does not complete before its receive is posted (eager and rendezvous). */
static void sync_semantics(int rank, int size) {
  if (size < 2 || rank > 1) return;
  for (int n = 8; n <= 100000; n *= 100) {
    char* b = calloc((size_t)n, 1);
    if (rank == 0) {
      MPI_Request r;
      MPI_OK(MPI_Issend(b, n, MPI_BYTE, 1, 77, MPI_COMM_WORLD, &r));
      int flag = 0;
      for (int i = 0; i < 2000; ++i) {
        MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
        CHECK_EQ(flag, 0);
      }
      MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, 1, 78, MPI_COMM_WORLD)); /* now post it */
      MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
      MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, 0, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      MPI_OK(MPI_Recv(b, n, MPI_BYTE, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    free(b);
  }
}

/* Buffered mode out of buffer space: MPI_ERR_BUFFER (with MPI_ERRORS_RETURN), nothing sent. */
static void bsend_exhaustion(int rank, int size) {
  if (size < 2 || rank > 1) return;
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  if (rank == 0) {
    int rc = MPI_Bsend("x", 1, MPI_BYTE, 1, 5, MPI_COMM_WORLD); /* nothing attached */
    CHECK_EQ(rc, MPI_ERR_BUFFER);
    int bufsize = 1000 + MPI_BSEND_OVERHEAD;
    char* attached = malloc((size_t)bufsize);
    MPI_OK(MPI_Buffer_attach(attached, bufsize));
    char big[4000] = {0};
    rc = MPI_Bsend(big, 4000, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
    CHECK_EQ(rc, MPI_ERR_BUFFER);
    MPI_Request r = MPI_REQUEST_NULL;
    rc = MPI_Ibsend(big, 4000, MPI_BYTE, 1, 5, MPI_COMM_WORLD, &r);
    CHECK_EQ(rc, MPI_ERR_BUFFER);
    big[0] = 42;
    MPI_OK(MPI_Bsend(big, 1000, MPI_BYTE, 1, 6, MPI_COMM_WORLD)); /* fits */
    void* back;
    int back_size;
    MPI_OK(MPI_Buffer_detach(&back, &back_size));
    free(attached);
  } else {
    char in[1000];
    MPI_Status st;
    MPI_OK(MPI_Recv(in, 1000, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK_EQ(st.MPI_TAG, 6); /* the refused messages never went out */
    CHECK_EQ(in[0], 42);
  }
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Many unexpected eager and rendezvous messages from everyone before any receive is posted. */
static void flood(int rank, int size) {
  enum { kPerPeer = 300 };
  int* out = malloc(sizeof(int) * 5000);
  for (int i = 0; i < 5000; ++i) out[i] = rank * 1000000 + i;
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * kPerPeer * (size_t)size);
  int nreq = 0;
  for (int p = 0; p < size; ++p) {
    if (p == rank) continue;
    for (int i = 0; i < kPerPeer; ++i) {
      int count = (i % 50 == 0) ? 5000 : 1 + i % 7;
      MPI_OK(MPI_Isend(out, count, MPI_INT, p, i, MPI_COMM_WORLD, &reqs[nreq++]));
    }
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  int* in = malloc(sizeof(int) * 5000);
  for (int p = 0; p < size; ++p) {
    if (p == rank) continue;
    for (int i = kPerPeer - 1; i >= 0; --i) { /* reverse tag order: searches the unexpected queue */
      MPI_Status st;
      MPI_OK(MPI_Recv(in, 5000, MPI_INT, p, i, MPI_COMM_WORLD, &st));
      int count;
      MPI_Get_count(&st, MPI_INT, &count);
      CHECK_EQ(count, (i % 50 == 0) ? 5000 : 1 + i % 7);
      CHECK_EQ(in[count - 1], p * 1000000 + count - 1);
    }
  }
  MPI_OK(MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE));
  free(out);
  free(in);
  free(reqs);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  modes(rank, size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  sync_semantics(rank, size);
  bsend_exhaustion(rank, size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  flood(rank, size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("send_modes: ok on %d ranks\n", size);
  return 0;
}
