/* A rank sends to itself in every send mode (MPI_Issend, MPI_Isend, MPI_Ibsend, MPI_Send_init +
 * MPI_Start) and receives with matched probes (MPI_Improbe/MPI_Mrecv, MPI_Mprobe/MPI_Imrecv), as
 * Python's pickle-5 helpers do, at sizes from 0 bytes to 1 MiB (eager and rendezvous): the
 * matched receive completes the synchronous send, every request completes, every byte arrives.
 * Then the same from a second thread to the main thread. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { kMaxBytes = 1 << 20 };
enum { kIssend, kIsend, kIbsend, kPersistent, kModes };

static void one_exchange(int rank, int mode, int n, int blocking_probe, unsigned char* s, unsigned char* r) {
  int tag = 100 + mode;
  fill_message(s, n, rank, mode * 31 + n);
  memset(r, 0, (size_t)n);
  MPI_Request req;
  switch (mode) {
    case kIssend: MPI_OK(MPI_Issend(s, n, MPI_BYTE, rank, tag, MPI_COMM_WORLD, &req)); break;
    case kIsend: MPI_OK(MPI_Isend(s, n, MPI_BYTE, rank, tag, MPI_COMM_WORLD, &req)); break;
    case kIbsend: MPI_OK(MPI_Ibsend(s, n, MPI_BYTE, rank, tag, MPI_COMM_WORLD, &req)); break;
    default:
      MPI_OK(MPI_Send_init(s, n, MPI_BYTE, rank, tag, MPI_COMM_WORLD, &req));
      MPI_OK(MPI_Start(&req));
      break;
  }
  MPI_Message msg = MPI_MESSAGE_NULL;
  MPI_Status st;
  if (blocking_probe) {
    MPI_OK(MPI_Mprobe(rank, tag, MPI_COMM_WORLD, &msg, &st));
  } else {
    int flag = 0;
    while (!flag) MPI_OK(MPI_Improbe(rank, tag, MPI_COMM_WORLD, &flag, &msg, &st));
  }
  CHECK_EQ(st.MPI_SOURCE, rank);
  CHECK_EQ(st.MPI_TAG, tag);
  int cnt = -1;
  MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
  CHECK_EQ(cnt, n);
  if (blocking_probe) {
    MPI_Request rreq;
    MPI_OK(MPI_Imrecv(r, n, MPI_BYTE, &msg, &rreq));
    MPI_OK(MPI_Wait(&rreq, &st));
  } else {
    MPI_OK(MPI_Mrecv(r, n, MPI_BYTE, &msg, &st));
  }
  CHECK(msg == MPI_MESSAGE_NULL);
  MPI_OK(MPI_Get_count(&st, MPI_BYTE, &cnt));
  CHECK_EQ(cnt, n);
  check_message(r, n, rank, mode * 31 + n);
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  if (mode == kPersistent) MPI_OK(MPI_Request_free(&req));
  CHECK(req == MPI_REQUEST_NULL);
}

static void all_exchanges(int rank) {
  unsigned char* s = malloc(kMaxBytes);
  unsigned char* r = malloc(kMaxBytes);
  for (int n = 0; n <= kMaxBytes; n = n ? n * 4 : 1) {
    for (int mode = 0; mode < kModes; ++mode) {
      for (int blocking_probe = 0; blocking_probe < 2; ++blocking_probe) one_exchange(rank, mode, n, blocking_probe, s, r);
    }
  }
  free(s);
  free(r);
}

/* A second thread Issends to this rank; the main thread takes the message with a matched probe. */
struct ThreadSend {
  int rank;
  unsigned char* data;
  int n;
};

static void* thread_issend(void* arg) {
  struct ThreadSend* t = arg;
  MPI_Request req;
  MPI_OK(MPI_Issend(t->data, t->n, MPI_BYTE, t->rank, 9, MPI_COMM_WORLD, &req));
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  return NULL;
}

static void from_other_thread(int rank) {
  for (int n = 1; n <= kMaxBytes; n *= 16) {
    struct ThreadSend t = {rank, malloc((size_t)n), n};
    unsigned char* r = malloc((size_t)n);
    fill_message(t.data, n, rank, n);
    pthread_t th;
    CHECK_EQ(pthread_create(&th, NULL, thread_issend, &t), 0);
    MPI_Message msg;
    MPI_Status st;
    int flag = 0;
    while (!flag) MPI_OK(MPI_Improbe(rank, 9, MPI_COMM_WORLD, &flag, &msg, &st));
    MPI_OK(MPI_Mrecv(r, n, MPI_BYTE, &msg, &st));
    CHECK_EQ(pthread_join(th, NULL), 0);
    check_message(r, n, rank, n);
    free(r);
    free(t.data);
  }
}

int main(int argc, char** argv) {
  int rank, size, level;
  init_test_at_level_arg(&argc, &argv, &rank, &size, &level);
  int bsize = 2 * (kMaxBytes + MPI_BSEND_OVERHEAD);
  void* bbuf = malloc((size_t)bsize);
  MPI_OK(MPI_Buffer_attach(bbuf, bsize));
  all_exchanges(rank);
  if (level == MPI_THREAD_MULTIPLE) from_other_thread(rank);
  void* detached;
  MPI_OK(MPI_Buffer_detach(&detached, &bsize));
  free(bbuf);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("self_matched_probe: %d ranks, every mode and size completed\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
