/* The lean paths of small point-to-point messages (mpi/p2p): a receive that takes its message
 * straight from the head of the sender's same-node ring (no posting), and the rings' hot area
 * (a sender starts over at the ring's front while its receiver keeps up). Every received byte,
 * status field and error class is checked:
 *  - sizes around the same-node eager limit (0 B .. 32 KiB + 1, the last a rendezvous), each
 *    received from the ring head when the receiver comes late;
 *  - matching order when ring-head receives mix with posted ones, specific and wildcard tags and
 *    rendezvous messages: the receiver computes what MPI's rules give (one sender is
 *    deterministic) and compares;
 *  - MPI_ANY_SOURCE / MPI_ANY_TAG receives;
 *  - truncation: MPI_ERR_TRUNCATE from MPI_Wait (source, tag, count, the bytes that fit, nothing
 *    written past the buffer) and MPI_ERR_IN_STATUS from MPI_Waitall with the failed status's
 *    MPI_ERROR, eager and rendezvous; the message after it arrives intact;
 *  - a synchronous send taken from the ring head completes; a send cancelled after its receiver
 *    took it is not cancelled;
 *  - streams that wrap the hot area many times: windows with a prompt and a late receiver, and
 *    a ping-pong of sizes 1 B .. 4 KiB.
 * The receiver comes late by sleeping before it posts (no MPI call meanwhile, so the messages
 * stay in the ring); the results do not depend on that timing, only which path serves them.
 * Ranks pair up as (rank, rank ^ 1): run on an even number of ranks. Argument: the thread level
 * (check.h), MULTIPLE when absent. */
#include <string.h>
#include <unistd.h>

#include "check.h"

enum { kEagerLimit = 32768 };

static void check_status(const MPI_Status* st, int source, int tag, int bytes) {
  CHECK_EQ(st->MPI_SOURCE, source);
  CHECK_EQ(st->MPI_TAG, tag);
  int count = -1;
  MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
  CHECK_EQ(count, bytes);
}

/* The receiver of a phase comes late: the sender's messages wait in the ring meanwhile. */
static void come_late(void) { usleep(20000); }

/* Sizes around the eager limit, one message each, received late in sending order. */
static void sizes_at_ring_head(int rank, int peer) {
  static const int sizes[] = {0, 1, 7, 8, 9, 40, 63, 64, 65, 1000, 4095, 4096, 8192, 16384, 16385,
                              kEagerLimit - 1, kEagerLimit, kEagerLimit + 1, 8, 0};
  enum { kN = sizeof sizes / sizeof sizes[0] };
  static unsigned char out[kN][kEagerLimit + 1], in[kN][kEagerLimit + 2];
  MPI_Request req[kN];
  MPI_Status sts[kN];
  for (int round = 0; round < 2; ++round) {
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank < peer) {
      for (int k = 0; k < kN; ++k) {
        fill_message(out[k], sizes[k], rank, k);
        MPI_OK(MPI_Isend(out[k], sizes[k], MPI_BYTE, peer, 100 + k, MPI_COMM_WORLD, &req[k]));
      }
      MPI_OK(MPI_Waitall(kN, req, MPI_STATUSES_IGNORE));
      for (int k = 0; k < kN; ++k) CHECK_EQ(req[k], MPI_REQUEST_NULL);
    } else {
      come_late();
      memset(in, 0xee, sizeof in);
      for (int k = 0; k < kN; ++k) {
        /* a buffer one byte larger than the message: nothing lands past the message */
        MPI_OK(MPI_Irecv(in[k], sizes[k] + 1, MPI_BYTE, peer, 100 + k, MPI_COMM_WORLD, &req[k]));
      }
      if (round == 0) {
        MPI_OK(MPI_Waitall(kN, req, sts));
      } else {
        for (int k = 0; k < kN; ++k) MPI_OK(MPI_Wait(&req[k], &sts[k]));
      }
      for (int k = 0; k < kN; ++k) {
        CHECK_EQ(req[k], MPI_REQUEST_NULL);
        check_status(&sts[k], peer, 100 + k, sizes[k]);
        check_message(in[k], sizes[k], peer, k);
        CHECK_EQ(in[k][sizes[k]], 0xee);
      }
    }
  }
}

/* Matching order: the sender sends kN messages of tags 0..2 (some rendezvous); the receiver posts
 * receives of specific tags in another order and MPI_ANY_TAG ones, some before the messages
 * arrive and some late. MPI's matching for one sender is deterministic: message m goes to the
 * first receive, in posting order, that matches it and took no earlier message. */
enum { kOrderN = 48 };
static int order_tag(int k) { return (k * 7 + k / 5) % 3; }
static int order_size(int k) { return k % 8 == 5 ? kEagerLimit + 100 : (k * 37) % 300; }
static int posted_tag(int j) { return j % 5 == 4 ? MPI_ANY_TAG : (j * 2 + j / 3) % 3; }

static void matching_order(int rank, int peer) {
  static unsigned char out[kOrderN][kEagerLimit + 100], in[kOrderN][kEagerLimit + 100];
  int ntag[3] = {0, 0, 0}, rtag[3] = {0, 0, 0};
  for (int k = 0; k < kOrderN; ++k) ntag[order_tag(k)]++;
  /* receives: as many per tag as messages, the wildcard ones standing in for a tag's */
  int rtags[kOrderN];
  int n = 0;
  for (int j = 0; n < kOrderN; ++j) {
    int t = posted_tag(j);
    if (t == MPI_ANY_TAG) {
      rtags[n++] = t;
      continue;
    }
    if (rtag[t] < ntag[t]) {
      rtag[t]++;
      rtags[n++] = t;
    }
  }
  /* expected[j]: the message receive j gets */
  int expected[kOrderN], taken[kOrderN];
  memset(taken, 0, sizeof taken);
  for (int k = 0; k < kOrderN; ++k) {
    for (int j = 0; j < kOrderN; ++j) {
      if (!taken[j] && (rtags[j] == MPI_ANY_TAG || rtags[j] == order_tag(k))) {
        taken[j] = 1;
        expected[j] = k;
        break;
      }
    }
  }
  for (int j = 0; j < kOrderN; ++j) CHECK(taken[j]); /* every receive gets a message */
  for (int variant = 0; variant < 3; ++variant) {
    MPI_Request req[kOrderN];
    MPI_Status sts[kOrderN];
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank < peer) {
      for (int k = 0; k < kOrderN; ++k) {
        fill_message(out[k], order_size(k), rank, k);
        MPI_OK(MPI_Isend(out[k], order_size(k), MPI_BYTE, peer, order_tag(k), MPI_COMM_WORLD, &req[k]));
      }
      MPI_OK(MPI_Waitall(kOrderN, req, MPI_STATUSES_IGNORE));
    } else {
      /* variant 0: all posted late; 1: the first third posted early; 2: posted one by one, late */
      int early = variant == 1 ? kOrderN / 3 : 0;
      for (int j = 0; j < early; ++j) {
        MPI_OK(MPI_Irecv(in[j], kEagerLimit + 100, MPI_BYTE, peer, rtags[j], MPI_COMM_WORLD, &req[j]));
      }
      come_late();
      for (int j = early; j < kOrderN; ++j) {
        MPI_OK(MPI_Irecv(in[j], kEagerLimit + 100, MPI_BYTE, peer, rtags[j], MPI_COMM_WORLD, &req[j]));
        if (variant == 2) MPI_OK(MPI_Wait(&req[j], &sts[j]));
      }
      if (variant != 2) MPI_OK(MPI_Waitall(kOrderN, req, sts));
      for (int j = 0; j < kOrderN; ++j) {
        int k = expected[j];
        if (sts[j].MPI_TAG != order_tag(k)) {
          fprintf(stderr, "variant %d: receive %d (tag %d) got tag %d, expected message %d of tag %d\n", variant,
                  j, rtags[j], sts[j].MPI_TAG, k, order_tag(k));
        }
        check_status(&sts[j], peer, order_tag(k), order_size(k));
        check_message(in[j], order_size(k), peer, k);
      }
    }
  }
}

/* MPI_ANY_SOURCE and MPI_ANY_TAG receives of messages waiting in the ring. */
static void wildcards(int rank, int peer) {
  enum { kN = 12 };
  int out[kN], in[kN];
  MPI_Request req[kN];
  MPI_Status sts[kN];
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank < peer) {
    for (int k = 0; k < kN; ++k) {
      out[k] = rank * 1000 + k;
      MPI_OK(MPI_Isend(&out[k], 1, MPI_INT, peer, 300 + k, MPI_COMM_WORLD, &req[k]));
    }
    MPI_OK(MPI_Waitall(kN, req, MPI_STATUSES_IGNORE));
  } else {
    come_late();
    for (int k = 0; k < kN; ++k) {
      int source = k % 3 == 1 ? MPI_ANY_SOURCE : peer;
      int tag = k % 2 == 0 ? MPI_ANY_TAG : 300 + k;
      in[k] = -1;
      MPI_OK(MPI_Irecv(&in[k], 1, MPI_INT, source, tag, MPI_COMM_WORLD, &req[k]));
    }
    MPI_OK(MPI_Waitall(kN, req, sts));
    for (int k = 0; k < kN; ++k) {
      CHECK_EQ(in[k], peer * 1000 + k);
      CHECK_EQ(sts[k].MPI_SOURCE, peer);
      CHECK_EQ(sts[k].MPI_TAG, 300 + k);
    }
  }
}

/* A message longer than the receive buffer: MPI_ERR_TRUNCATE with the status of the message. */
static void truncation(int rank, int peer) {
  MPI_Comm comm;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  MPI_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  static const int sizes[] = {100, kEagerLimit + 500}; /* eager, rendezvous */
  static unsigned char out[3][kEagerLimit + 500], in[3][kEagerLimit + 500];
  for (int s = 0; s < 2; ++s) {
    int big = sizes[s];
    for (int form = 0; form < 2; ++form) { /* MPI_Wait, MPI_Waitall */
      MPI_OK(MPI_Barrier(comm));
      if (rank < peer) {
        MPI_Request req[3];
        fill_message(out[0], big, rank, 0);
        fill_message(out[1], 5, rank, 1);
        fill_message(out[2], 7, rank, 2);
        MPI_OK(MPI_Isend(out[0], big, MPI_BYTE, peer, 5, comm, &req[0]));
        MPI_OK(MPI_Isend(out[1], 5, MPI_BYTE, peer, 6, comm, &req[1]));
        MPI_OK(MPI_Isend(out[2], 7, MPI_BYTE, peer, 7, comm, &req[2]));
        MPI_OK(MPI_Waitall(3, req, MPI_STATUSES_IGNORE));
      } else {
        come_late();
        memset(in, 0xee, sizeof in);
        MPI_Request req[2];
        MPI_Status sts[2];
        MPI_OK(MPI_Irecv(in[0], 50, MPI_BYTE, peer, 5, comm, &req[0]));
        MPI_OK(MPI_Irecv(in[1], 5, MPI_BYTE, peer, 6, comm, &req[1]));
        int code, cls;
        if (form == 0) {
          code = MPI_Wait(&req[0], &sts[0]);
          MPI_OK(MPI_Error_class(code, &cls));
          CHECK_EQ(cls, MPI_ERR_TRUNCATE);
          MPI_OK(MPI_Wait(&req[1], &sts[1]));
        } else {
          code = MPI_Waitall(2, req, sts);
          MPI_OK(MPI_Error_class(code, &cls));
          CHECK_EQ(cls, MPI_ERR_IN_STATUS);
          MPI_OK(MPI_Error_class(sts[0].MPI_ERROR, &cls));
          CHECK_EQ(cls, MPI_ERR_TRUNCATE);
          CHECK_EQ(sts[1].MPI_ERROR, MPI_SUCCESS);
        }
        CHECK_EQ(req[0], MPI_REQUEST_NULL);
        check_status(&sts[0], peer, 5, 50);
        check_message(in[0], 50, peer, 0);
        CHECK_EQ(in[0][50], 0xee);
        check_status(&sts[1], peer, 6, 5);
        check_message(in[1], 5, peer, 1);
        /* the truncated message was consumed whole: the next one arrives intact */
        MPI_Status st;
        MPI_OK(MPI_Recv(in[2], 100, MPI_BYTE, peer, 7, comm, &st));
        check_status(&st, peer, 7, 7);
        check_message(in[2], 7, peer, 2);
      }
    }
  }
  MPI_OK(MPI_Comm_free(&comm));
}

/* A synchronous send taken from the ring head completes (the receiver acknowledges it); a send
 * whose message the receiver took cannot be cancelled any more. */
static void sync_and_cancel(int rank, int peer) {
  int v = rank + 10, got = -1, ack = 0;
  MPI_Request r;
  MPI_Status st;
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank < peer) {
    MPI_OK(MPI_Issend(&v, 1, MPI_INT, peer, 40, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Isend(&v, 1, MPI_INT, peer, 41, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Recv(&ack, 1, MPI_INT, peer, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    int cancelled = -1;
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK_EQ(cancelled, 0);
  } else {
    come_late();
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, peer, 40, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK_EQ(got, peer + 10);
    come_late();
    got = -1;
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, peer, 41, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK_EQ(got, peer + 10);
    MPI_OK(MPI_Send(&ack, 1, MPI_INT, peer, 42, MPI_COMM_WORLD));
  }
}

/* Streams that wrap the rings' hot area many times: windows of mixed small sizes with the
 * receiver prompt (receives posted first) or late, then a ping-pong of 1 B .. 4 KiB. */
static int stream_size(int k) {
  static const int sizes[] = {8, 1, 200, 1000, 64, 3000, 8, 17, 500, 4000, 2, 100};
  return sizes[k % (int)(sizeof sizes / sizeof sizes[0])];
}

static void hot_area_streams(int rank, int peer) {
  enum { kWindow = 64, kWindows = 24, kMax = 4096 };
  static unsigned char buf[kWindow][kMax];
  MPI_Request req[kWindow];
  MPI_Status sts[kWindow];
  for (int w = 0; w < kWindows; ++w) {
    int late = w % 3 == 2;
    if (rank < peer) {
      for (int i = 0; i < kWindow; ++i) {
        int k = w * kWindow + i;
        fill_message(buf[i], stream_size(k), rank, k);
        MPI_OK(MPI_Isend(buf[i], stream_size(k), MPI_BYTE, peer, 500, MPI_COMM_WORLD, &req[i]));
      }
      MPI_OK(MPI_Waitall(kWindow, req, MPI_STATUSES_IGNORE));
      int ack;
      MPI_OK(MPI_Recv(&ack, 1, MPI_INT, peer, 501, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_EQ(ack, w);
    } else {
      if (late) come_late();
      for (int i = 0; i < kWindow; ++i) {
        MPI_OK(MPI_Irecv(buf[i], kMax, MPI_BYTE, peer, 500, MPI_COMM_WORLD, &req[i]));
      }
      MPI_OK(MPI_Waitall(kWindow, req, sts));
      for (int i = 0; i < kWindow; ++i) {
        int k = w * kWindow + i;
        check_status(&sts[i], peer, 500, stream_size(k));
        check_message(buf[i], stream_size(k), peer, k);
      }
      MPI_OK(MPI_Send(&w, 1, MPI_INT, peer, 501, MPI_COMM_WORLD));
    }
  }
  static unsigned char msg[kMax];
  for (int k = 0; k < 3000; ++k) {
    int n = 1 + (k * 53) % kMax;
    if ((rank < peer) == (k % 2 == 0)) {
      fill_message(msg, n, rank, k);
      MPI_OK(MPI_Send(msg, n, MPI_BYTE, peer, 600, MPI_COMM_WORLD));
    } else {
      MPI_Status st;
      MPI_OK(MPI_Recv(msg, kMax, MPI_BYTE, peer, 600, MPI_COMM_WORLD, &st));
      check_status(&st, peer, 600, n);
      check_message(msg, n, peer, k);
    }
  }
}

int main(int argc, char** argv) {
  init_at_level_arg(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size % 2 == 0);
  int peer = rank ^ 1;
  sizes_at_ring_head(rank, peer);
  matching_order(rank, peer);
  wildcards(rank, peer);
  truncation(rank, peer);
  sync_and_cancel(rank, peer);
  hot_area_streams(rank, peer);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("p2p_ring_head: %d ranks passed\n", size);
  MPI_Finalize();
  return 0;
}
