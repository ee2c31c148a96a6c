/* Non-blocking sends that complete as they start (mpi/p2p Engine::send_now_eager: a standard or
 * ready send of contiguous data within the same-node eager limit goes straight into the ring and
 * its request is complete at once) beside those that must take the protocol: every byte and
 * every status field is checked. Rank 0 sends to rank 1 (ranks beyond 1 exchange the same
 * pattern in pairs: 2 with 3, ...; an odd last rank only joins the barriers).
 *  1. Every size 0..130 bytes, in a window of non-blocking sends posted before the receives, for
 *     each send datatype: MPI_BYTE, MPI_INT, MPI_DOUBLE, a contiguous derived type (fast path);
 *     a vector with holes (packed: must not), and in synchronous, ready and buffered modes
 *     (Issend / Ibsend must not; Irsend may). Statuses: source, tag, MPI_Get_count, not cancelled.
 *  2. The requests of fast-path sends: MPI_Test at once, MPI_Request_get_status, MPI_Wait with a
 *     status (a send's: MPI_ANY_SOURCE/MPI_ANY_TAG, MPI_SUCCESS), MPI_Waitall with statuses and
 *     MPI_REQUEST_NULL entries, MPI_Request_free before completion is checked, MPI_Cancel of an
 *     unmatched send (cancelled: never received; not cancelled: received), persistent sends
 *     (MPI_Send_init + MPI_Start of small messages, restarted many times).
 *  3. Bad arguments with MPI_ERRORS_RETURN: rank, count, datatype, tag and a NULL request each
 *     return their error class, and nothing is sent.
 *  4. A long stream of small sends with the ring filling up (GASKET_MPI_SHM_SLOTS=2 variant):
 *     the sends that queue behind a full ring and those written straight in keep their order.
 *  5. At MPI_THREAD_MULTIPLE: two threads stream small sends with their own tags while two
 *     threads of the receiver take them; order per tag and every byte checked.
 * Argument: the thread level (check.h; MULTIPLE when absent). */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { kMaxBytes = 130, kStream = 5000, kThreadMessages = 2000 };

static int peer_of(int rank, int size) {
  int p = rank ^ 1;
  return p < size ? p : -1;
}

/* Sizes 0..130 of `type` (count elements each, bytes = count * its size) in one window. */
static void window_of_sizes(int rank, int peer, MPI_Datatype type, int mode, int tag) {
  int type_size;
  MPI_Aint lb, extent;
  MPI_OK(MPI_Type_size(type, &type_size));
  MPI_OK(MPI_Type_get_extent(type, &lb, &extent));
  int max_count = kMaxBytes / type_size;
  int n = max_count + 1;
  MPI_Request* req = malloc(sizeof(MPI_Request) * (size_t)n);
  unsigned char** bufs = malloc(sizeof(unsigned char*) * (size_t)n);
  for (int count = 0; count < n; ++count) {
    size_t span = (size_t)extent * (size_t)count + 1;
    bufs[count] = malloc(span);
    if (rank < peer) {
      fill_message(bufs[count], (int)span, rank, count + tag);
      if (mode == 0) MPI_OK(MPI_Isend(bufs[count], count, type, peer, tag, MPI_COMM_WORLD, &req[count]));
      if (mode == 1) MPI_OK(MPI_Issend(bufs[count], count, type, peer, tag, MPI_COMM_WORLD, &req[count]));
      if (mode == 2) MPI_OK(MPI_Ibsend(bufs[count], count, type, peer, tag, MPI_COMM_WORLD, &req[count]));
    } else {
      memset(bufs[count], 0xee, span);
    }
  }
  if (rank < peer) {
    MPI_OK(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
    for (int i = 0; i < n; ++i) CHECK_EQ(req[i], MPI_REQUEST_NULL);
  } else {
    MPI_Status st;
    unsigned char* expected = malloc((size_t)extent * (size_t)max_count + 1);
    for (int count = 0; count < n; ++count) {
      MPI_OK(MPI_Recv(bufs[count], count, type, peer, tag, MPI_COMM_WORLD, &st));
      CHECK_EQ(st.MPI_SOURCE, peer);
      CHECK_EQ(st.MPI_TAG, tag);
      int got;
      MPI_OK(MPI_Get_count(&st, type, &got));
      CHECK_EQ(got, count);
      int cancelled = 1;
      MPI_OK(MPI_Test_cancelled(&st, &cancelled));
      CHECK_EQ(cancelled, 0);
      /* The bytes the type covers, packed, equal the sender's (a type with holes leaves them). */
      int packed_bytes = count * type_size, pos = 0;
      unsigned char* sent = malloc((size_t)extent * (size_t)count + 1);
      fill_message(sent, (int)((size_t)extent * (size_t)count + 1), peer, count + tag);
      MPI_OK(MPI_Pack(sent, count, type, expected, packed_bytes + 1, &pos, MPI_COMM_WORLD));
      unsigned char* received = malloc((size_t)packed_bytes + 1);
      pos = 0;
      MPI_OK(MPI_Pack(bufs[count], count, type, received, packed_bytes + 1, &pos, MPI_COMM_WORLD));
      CHECK(memcmp(expected, received, (size_t)packed_bytes) == 0);
      free(sent);
      free(received);
    }
    free(expected);
  }
  for (int count = 0; count < n; ++count) free(bufs[count]);
  free(bufs);
  free(req);
}

static void every_size_and_type(int rank, int peer) {
  MPI_Datatype three_ints, holes;
  MPI_OK(MPI_Type_contiguous(3, MPI_INT, &three_ints));
  MPI_OK(MPI_Type_commit(&three_ints));
  MPI_OK(MPI_Type_vector(2, 1, 2, MPI_SHORT, &holes));  /* 4 bytes in an extent of 6 */
  MPI_OK(MPI_Type_commit(&holes));
  const MPI_Datatype types[] = {MPI_BYTE, MPI_INT, MPI_DOUBLE, three_ints, holes};
  for (int t = 0; t < 5; ++t) window_of_sizes(rank, peer, types[t], 0, 10 + t);
  /* Synchronous and buffered modes never take the shortcut; ready mode may (receives posted). */
  window_of_sizes(rank, peer, MPI_BYTE, 1, 20);
  int attached = (kMaxBytes + 1) * (kMaxBytes + MPI_BSEND_OVERHEAD + 64);
  void* bsend = malloc((size_t)attached);
  MPI_OK(MPI_Buffer_attach(bsend, attached));
  window_of_sizes(rank, peer, MPI_INT, 2, 21);
  MPI_OK(MPI_Buffer_detach(&bsend, &attached));
  free(bsend);
  unsigned char rbuf[kMaxBytes + 1], sbuf[kMaxBytes + 1];
  for (int n = 0; n <= kMaxBytes; ++n) {
    if (rank < peer) {
      MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 22, MPI_COMM_WORLD, MPI_STATUS_IGNORE));  /* its receive is posted */
      fill_message(sbuf, n, rank, n);
      MPI_Request r;
      MPI_OK(MPI_Irsend(sbuf, n, MPI_BYTE, peer, 23, MPI_COMM_WORLD, &r));
      MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
      MPI_Request r;
      MPI_OK(MPI_Irecv(rbuf, n, MPI_BYTE, peer, 23, MPI_COMM_WORLD, &r));
      MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 22, MPI_COMM_WORLD));
      MPI_Status st;
      MPI_OK(MPI_Wait(&r, &st));
      int got;
      MPI_OK(MPI_Get_count(&st, MPI_BYTE, &got));
      CHECK_EQ(got, n);
      check_message(rbuf, n, peer, n);
    }
  }
  MPI_OK(MPI_Type_free(&three_ints));
  MPI_OK(MPI_Type_free(&holes));
}

static void sender_requests(int rank, int peer) {
  unsigned char buf[64], rbuf[64];
  MPI_Status st;
  if (rank < peer) {
    /* Completion and status of a send that went straight into the ring. */
    fill_message(buf, 8, rank, 100);
    MPI_Request r;
    MPI_OK(MPI_Isend(buf, 8, MPI_BYTE, peer, 30, MPI_COMM_WORLD, &r));
    int flag = 0;
    while (!flag) MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK(r != MPI_REQUEST_NULL);  /* get_status leaves the request */
    flag = 0;
    st.MPI_ERROR = 4242; /* a call completing one request leaves MPI_ERROR alone */
    while (!flag) MPI_OK(MPI_Test(&r, &flag, &st));
    CHECK_EQ(r, MPI_REQUEST_NULL);
    CHECK_EQ(st.MPI_ERROR, 4242);
    int cancelled = 1;
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK_EQ(cancelled, 0);
    /* Waitall with statuses and null entries. */
    MPI_Request rs[4];
    MPI_Status sts[4];
    rs[0] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Isend(buf, 1, MPI_BYTE, peer, 31, MPI_COMM_WORLD, &rs[1]));
    rs[2] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Isend(buf, 0, MPI_BYTE, peer, 31, MPI_COMM_WORLD, &rs[3]));
    for (int i = 0; i < 4; ++i) sts[i].MPI_ERROR = 4243; /* written only with MPI_ERR_IN_STATUS */
    MPI_OK(MPI_Waitall(4, rs, sts));
    for (int i = 0; i < 4; ++i) {
      CHECK_EQ(rs[i], MPI_REQUEST_NULL);
      CHECK_EQ(sts[i].MPI_ERROR, 4243);
    }
    CHECK_EQ(sts[0].MPI_SOURCE, MPI_ANY_SOURCE);  /* a null request's empty status */
    CHECK_EQ(sts[0].MPI_TAG, MPI_ANY_TAG);
    /* Freed at once: the message still arrives. */
    fill_message(buf, 16, rank, 101);
    MPI_OK(MPI_Isend(buf, 16, MPI_BYTE, peer, 32, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Request_free(&r));
    CHECK_EQ(r, MPI_REQUEST_NULL);
    /* Cancel of a send nobody has matched yet: cancelled and never received, or received. */
    fill_message(buf, 24, rank, 102);
    MPI_OK(MPI_Isend(buf, 24, MPI_BYTE, peer, 33, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    MPI_OK(MPI_Send(&cancelled, 1, MPI_INT, peer, 34, MPI_COMM_WORLD));
    /* Persistent: restarted, each start the shortcut's. */
    MPI_OK(MPI_Send_init(buf, 40, MPI_BYTE, peer, 35, MPI_COMM_WORLD, &r));
    for (int k = 0; k < 200; ++k) {
      fill_message(buf, 40, rank, 200 + k);
      MPI_OK(MPI_Start(&r));
      MPI_OK(MPI_Wait(&r, &st));
      CHECK(r != MPI_REQUEST_NULL);
    }
    MPI_OK(MPI_Request_free(&r));
    CHECK_EQ(r, MPI_REQUEST_NULL);
  } else {
    MPI_OK(MPI_Recv(rbuf, 8, MPI_BYTE, peer, 30, MPI_COMM_WORLD, &st));
    check_message(rbuf, 8, peer, 100);
    MPI_OK(MPI_Recv(rbuf, 1, MPI_BYTE, peer, 31, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Recv(rbuf, 0, MPI_BYTE, peer, 31, MPI_COMM_WORLD, &st));
    int got;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &got));
    CHECK_EQ(got, 0);
    MPI_OK(MPI_Recv(rbuf, 16, MPI_BYTE, peer, 32, MPI_COMM_WORLD, &st));
    check_message(rbuf, 16, peer, 101);
    int cancelled = -1;
    MPI_OK(MPI_Recv(&cancelled, 1, MPI_INT, peer, 34, MPI_COMM_WORLD, &st));
    int there = -1;
    MPI_OK(MPI_Iprobe(peer, 33, MPI_COMM_WORLD, &there, &st));
    if (cancelled) {
      CHECK_EQ(there, 0);
    } else {
      MPI_OK(MPI_Recv(rbuf, 24, MPI_BYTE, peer, 33, MPI_COMM_WORLD, &st));
      check_message(rbuf, 24, peer, 102);
    }
    for (int k = 0; k < 200; ++k) {
      MPI_OK(MPI_Recv(rbuf, 40, MPI_BYTE, peer, 35, MPI_COMM_WORLD, &st));
      check_message(rbuf, 40, peer, 200 + k);
    }
  }
}

static void bad_arguments(int rank, int size) {
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  char buf[8] = {0};
  MPI_Request r = MPI_REQUEST_NULL;
  int cls;
  MPI_Error_class(MPI_Isend(buf, 8, MPI_BYTE, size, 40, MPI_COMM_WORLD, &r), &cls);
  CHECK_EQ(cls, MPI_ERR_RANK);
  MPI_Error_class(MPI_Isend(buf, -1, MPI_BYTE, 0, 40, MPI_COMM_WORLD, &r), &cls);
  CHECK_EQ(cls, MPI_ERR_COUNT);
  MPI_Error_class(MPI_Isend(buf, 8, MPI_DATATYPE_NULL, 0, 40, MPI_COMM_WORLD, &r), &cls);
  CHECK_EQ(cls, MPI_ERR_TYPE);
  MPI_Error_class(MPI_Isend(buf, 8, MPI_BYTE, 0, -5, MPI_COMM_WORLD, &r), &cls);
  CHECK_EQ(cls, MPI_ERR_TAG);
  MPI_Error_class(MPI_Isend(buf, 8, MPI_BYTE, 0, 40, MPI_COMM_WORLD, NULL), &cls);
  CHECK_EQ(cls, MPI_ERR_ARG);
  CHECK_EQ(r, MPI_REQUEST_NULL);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  int there = -1;
  MPI_Status st;
  MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, 40, MPI_COMM_WORLD, &there, &st));
  CHECK_EQ(there, 0);  /* nothing was sent */
  (void)rank;
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Many more small sends than the ring holds, all posted before any receive. */
static void stream_past_the_ring(int rank, int peer) {
  enum { kWindow = 256 };
  unsigned char* bufs = malloc((size_t)kWindow * 32);
  MPI_Request req[kWindow];
  for (int k0 = 0; k0 < kStream; k0 += kWindow) {
    if (rank < peer) {
      for (int w = 0; w < kWindow; ++w) {
        int n = (k0 + w) % 33;
        fill_message(bufs + w * 32, n, rank, k0 + w);
        MPI_OK(MPI_Isend(bufs + w * 32, n, MPI_BYTE, peer, 50, MPI_COMM_WORLD, &req[w]));
      }
      MPI_OK(MPI_Waitall(kWindow, req, MPI_STATUSES_IGNORE));
    } else {
      MPI_Status st;
      for (int w = 0; w < kWindow; ++w) {
        int n = (k0 + w) % 33;
        MPI_OK(MPI_Recv(bufs + w * 32, 32, MPI_BYTE, peer, 50, MPI_COMM_WORLD, &st));
        int got;
        MPI_OK(MPI_Get_count(&st, MPI_BYTE, &got));
        CHECK_EQ(got, n);
        check_message(bufs + w * 32, n, peer, k0 + w);
      }
    }
  }
  free(bufs);
}

struct Streamer {
  int rank, peer, tag;
};

static void* stream_thread(void* arg) {
  const struct Streamer* s = arg;
  unsigned char buf[32];
  MPI_Status st;
  for (int k = 0; k < kThreadMessages; ++k) {
    int n = k % 33;
    if (s->rank < s->peer) {
      fill_message(buf, n, s->tag, k);
      MPI_Request r;
      MPI_OK(MPI_Isend(buf, n, MPI_BYTE, s->peer, s->tag, MPI_COMM_WORLD, &r));
      MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    } else {
      MPI_Request r;
      MPI_OK(MPI_Irecv(buf, 32, MPI_BYTE, s->peer, s->tag, MPI_COMM_WORLD, &r));
      MPI_OK(MPI_Wait(&r, &st));
      int got;
      MPI_OK(MPI_Get_count(&st, MPI_BYTE, &got));
      CHECK_EQ(got, n);
      check_message(buf, n, s->tag, k);
    }
  }
  return NULL;
}

static void threads(int rank, int peer) {
  pthread_t t[2];
  struct Streamer s[2] = {{rank, peer, 60}, {rank, peer, 61}};
  for (int i = 0; i < 2; ++i) CHECK_EQ(pthread_create(&t[i], NULL, stream_thread, &s[i]), 0);
  for (int i = 0; i < 2; ++i) CHECK_EQ(pthread_join(t[i], NULL), 0);
}

int main(int argc, char** argv) {
  int rank, size, level;
  init_test_at_level_arg(&argc, &argv, &rank, &size, &level);
  int peer = peer_of(rank, size);
  if (peer >= 0) {
    every_size_and_type(rank, peer);
    sender_requests(rank, peer);
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  bad_arguments(rank, size);
  if (peer >= 0) {
    stream_past_the_ring(rank, peer);
    if (level == MPI_THREAD_MULTIPLE) threads(rank, peer);
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("isend_eager: %d ranks, thread level %d: passed\n", size, level);
  MPI_Finalize();
  return 0;
}
