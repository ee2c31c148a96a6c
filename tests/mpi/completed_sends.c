/* Sends that complete as they start (mpi/p2p/README.md): an MPI_Isend or
 * MPI_Irsend of contiguous data that the channel takes at once gets no request of its own, but
 * the handle of the pool's built-in complete send. Every request entry point must treat that
 * handle as it treated the full request:
 *  - arrays mixing such handles, ordinary sends (synchronous, non-contiguous, rendezvous),
 *    receives, MPI_REQUEST_NULL and a receive still pending, completed by each of MPI_Waitall
 *    (with and without statuses), Testall, Waitany, Testany, Waitsome, Testsome, Wait and Test:
 *    every status field by field, every handle MPI_REQUEST_NULL afterwards, every byte received,
 *    and a Test* that finds the array incomplete leaves the handles as they were;
 *  - MPI_Request_get_status (the handle stays usable), MPI_Request_free then MPI_Wait on
 *    MPI_REQUEST_NULL, MPI_Cancel then MPI_Test_cancelled false (and the message arrives),
 *    MPI_Start refused as for any non-persistent request, f2c/c2f, a bad handle later in an array
 *    (MPI_ERR_REQUEST, the earlier handles left as they were);
 *  - at MPI_THREAD_MULTIPLE, two threads per rank streaming such sends with their own tags.
 * Ranks pair up as (rank, rank ^ 1): run on an even number of ranks. Argument: the thread level
 * (check.h), MULTIPLE when absent. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

/* The handle of every send that completed as it started: the request kind's last slot
 * (mpi/p2p/request.h, kCompletedSend; the layout is mpi.h's). The standard ABI's mpi.h
 * (no GASKET_MPI) does not name it: there it is the handle the first such send returned,
 * which every later one must return too. A request slot never given out is no request. */
#ifndef GASKET_MPI
static MPI_Request completed_send = MPI_REQUEST_NULL;
#define COMPLETED_SEND completed_send
#define NO_REQUEST INVALID_HANDLE(MPI_Request, 123457)
#else
#define COMPLETED_SEND GASKET_HANDLE(REQUEST, GASKET_HANDLE_SLOT_MASK)
#define NO_REQUEST GASKET_HANDLE(REQUEST, 123457)
#endif

enum { kSmall = 4, kLarge = 40000 }; /* ints: eager on every path / rendezvous (160 KB) */

static int value(int src, int tag, int i) { return src * 1000003 + tag * 7919 + i; }
static void fill(int* b, int n, int src, int tag) {
  for (int i = 0; i < n; ++i) b[i] = value(src, tag, i);
}
static void check_filled(const int* b, int n, int src, int tag) {
  for (int i = 0; i < n; ++i) CHECK_EQ(b[i], value(src, tag, i));
}

static void poison(MPI_Status* st) { memset(st, 0x5a, sizeof *st); }

/* What the status of a completed send says (MPI 4.1 section 3.7.3: source and tag undefined,
 * gasket's MPI_ANY_SOURCE / MPI_ANY_TAG, as for any send), and of a receive. */
static void check_send_status(MPI_Status* st) {
  CHECK_EQ(st->MPI_SOURCE, MPI_ANY_SOURCE);
  CHECK_EQ(st->MPI_TAG, MPI_ANY_TAG);
  int n = -1, flag = -1;
  MPI_OK(MPI_Get_count(st, MPI_INT, &n));
  CHECK_EQ(n, 0);
  MPI_OK(MPI_Test_cancelled(st, &flag));
  CHECK_EQ(flag, 0);
}
static void check_recv_status(MPI_Status* st, int source, int tag, int count) {
  CHECK_EQ(st->MPI_SOURCE, source);
  CHECK_EQ(st->MPI_TAG, tag);
  int n = -1, flag = -1;
  MPI_OK(MPI_Get_count(st, MPI_INT, &n));
  CHECK_EQ(n, count);
  MPI_OK(MPI_Test_cancelled(st, &flag));
  CHECK_EQ(flag, 0);
}
/* What a null handle reports: the empty status. */
static void check_empty_status(MPI_Status* st) {
  CHECK_EQ(st->MPI_SOURCE, MPI_ANY_SOURCE);
  CHECK_EQ(st->MPI_TAG, MPI_ANY_TAG);
  int n = -1;
  MPI_OK(MPI_Get_count(st, MPI_INT, &n));
  CHECK_EQ(n, 0);
}

/* A small contiguous send to `peer` (whose ring this rank's earlier messages no longer fill):
 * it completes as it starts, on every path. */
static void isend_completed(const int* buf, int n, int peer, int tag, MPI_Request* r) {
  MPI_OK(MPI_Isend(buf, n, MPI_INT, peer, tag, MPI_COMM_WORLD, r));
#ifndef GASKET_MPI
  if (completed_send == MPI_REQUEST_NULL) completed_send = *r;
#endif
  CHECK(*r != MPI_REQUEST_NULL);
  CHECK_EQ(*r, COMPLETED_SEND);
}

/* ---- arrays mixing every kind of entry ---- */

enum Method { WAITALL, WAITALL_IGNORE, TESTALL, WAITANY, TESTANY, WAITSOME, TESTSOME, WAIT, TEST, kMethods };
static const char* const method_names[] = {"Waitall",  "Waitall(IGNORE)", "Testall", "Waitany", "Testany",
                                           "Waitsome", "Testsome",        "Wait",    "Test"};

enum Entry { SEND_AT_START, SEND_SYNC, SEND_SPACED, SEND_LARGE, RECV, NULL_ENTRY };
enum { kEntries = 14, kLate = 9 }; /* tags of the receives are their sends' tags */
static const enum Entry kinds[kEntries] = {SEND_AT_START, RECV, NULL_ENTRY, SEND_SYNC, SEND_SPACED, SEND_LARGE,
                                           SEND_AT_START, RECV, RECV,       RECV,      RECV,        RECV,
                                           RECV,          SEND_AT_START};
/* The tag each entry sends or receives. The receive of tag kLate (11) is pending until the peer
 * sends it late, as its own last entry (13), after the "go" (send_late); entry 12 receives the
 * tag-11 message each rank sends at once and frees (post). */
static const int tags[kEntries] = {1, 1, 0, 3, 4, 5, 6, 3, 4, 5, 6, kLate, 11, kLate};

static int count_of(int tag) { return tag == 5 ? kLarge : kSmall; }

struct Mixed {
  MPI_Request req[kEntries];
  MPI_Status st[kEntries];
  int done[kEntries];
  int* out[kEntries];
  int* in[kEntries];
  int* spaced;
  MPI_Datatype spaced_type;
};

/* Checks the completion of entry i with status `st` (NULL: statuses ignored). */
static void completed(struct Mixed* m, int i, MPI_Status* st, int peer) {
  CHECK_EQ(m->done[i], 0);
  m->done[i] = 1;
  CHECK_EQ(m->req[i], MPI_REQUEST_NULL);
  if (kinds[i] == RECV) {
    if (st) check_recv_status(st, peer, tags[i], count_of(tags[i]));
    check_filled(m->in[i], count_of(tags[i]), peer, tags[i]);
  } else if (kinds[i] == NULL_ENTRY) {
    if (st) check_empty_status(st);
  } else if (st) {
    check_send_status(st);
  }
}

/* Every entry but the last posted: receives, then sends (the completed-at-start ones checked)
 * and a tag-11 send freed at once; the late receive's message is not sent yet. */
static void post(struct Mixed* m, int rank, int peer) {
  for (int i = 0; i < kEntries; ++i) {
    m->done[i] = 0;
    m->out[i] = malloc(sizeof(int) * kLarge);
    m->in[i] = calloc(kLarge, sizeof(int));
    fill(m->out[i], count_of(tags[i]), rank, tags[i]);
  }
  m->spaced = malloc(sizeof(int) * 2 * kSmall);
  for (int i = 0; i < kSmall; ++i) m->spaced[2 * i] = value(rank, 4, i);
  MPI_OK(MPI_Type_vector(kSmall, 1, 2, MPI_INT, &m->spaced_type));
  MPI_OK(MPI_Type_commit(&m->spaced_type));
  for (int i = 0; i < kEntries; ++i) {
    if (kinds[i] == RECV) MPI_OK(MPI_Irecv(m->in[i], kLarge, MPI_INT, peer, tags[i], MPI_COMM_WORLD, &m->req[i]));
    if (kinds[i] == NULL_ENTRY) m->req[i] = MPI_REQUEST_NULL;
  }
  /* Both ranks' receives are posted before any synchronous send waits for its match. */
  MPI_OK(MPI_Sendrecv(NULL, 0, MPI_INT, peer, 20, NULL, 0, MPI_INT, peer, 20, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < kEntries; ++i) {
    switch (kinds[i]) {
      case SEND_AT_START:
        if (tags[i] != kLate) isend_completed(m->out[i], kSmall, peer, tags[i], &m->req[i]);
        break;
      case SEND_SYNC: MPI_OK(MPI_Issend(m->out[i], kSmall, MPI_INT, peer, tags[i], MPI_COMM_WORLD, &m->req[i])); break;
      case SEND_SPACED:
        MPI_OK(MPI_Isend(m->spaced, 1, m->spaced_type, peer, tags[i], MPI_COMM_WORLD, &m->req[i]));
        CHECK(m->req[i] != COMPLETED_SEND);
        break;
      case SEND_LARGE:
        MPI_OK(MPI_Isend(m->out[i], kLarge, MPI_INT, peer, tags[i], MPI_COMM_WORLD, &m->req[i]));
        CHECK(m->req[i] != COMPLETED_SEND);
        break;
      default: break;
    }
  }
  /* Entry 13's receive (tag 11) takes the peer's message of tag 11, sent at once too. */
  static int eleven[kSmall];
  fill(eleven, kSmall, rank, 11);
  MPI_Request r11;
  isend_completed(eleven, kSmall, peer, 11, &r11);
  MPI_OK(MPI_Request_free(&r11));
  CHECK_EQ(r11, MPI_REQUEST_NULL);
}

/* The peer's late message: each rank tells the other "go", then sends its tag-kLate message as
 * entry 12 (completed at start). Before that, entry 11 (receive of kLate) cannot complete. */
static void send_late(struct Mixed* m, int peer) {
  int go = 1;
  MPI_OK(MPI_Sendrecv(&go, 1, MPI_INT, peer, 21, &go, 1, MPI_INT, peer, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  isend_completed(m->out[13], kSmall, peer, kLate, &m->req[13]);
}

static void release(struct Mixed* m) {
  for (int i = 0; i < kEntries; ++i) {
    CHECK_EQ(m->req[i], MPI_REQUEST_NULL);
    free(m->out[i]);
    free(m->in[i]);
  }
  free(m->spaced);
  MPI_OK(MPI_Type_free(&m->spaced_type));
}

/* A Test* call while entry 11 is pending: nothing completed by Testall; the completed-at-start
 * handles are still there. */
static void check_untouched(struct Mixed* m) {
  CHECK_EQ(m->req[0], COMPLETED_SEND);
  CHECK_EQ(m->req[6], COMPLETED_SEND);
  CHECK(m->req[11] != MPI_REQUEST_NULL && m->req[11] != COMPLETED_SEND);
}

static void mixed_array(int rank, int peer, enum Method method) {
  struct Mixed m;
  post(&m, rank, peer);
  int n = kEntries - 1; /* entry 13 (the late send) joins the array after the go */
  int flag = -1, index = -1, outcount = -1, indices[kEntries];
  MPI_Status st;
  switch (method) {
    case TESTALL:
      for (int i = 0; i < kEntries; ++i) poison(&m.st[i]);
      MPI_OK(MPI_Testall(n, m.req, &flag, m.st));
      CHECK_EQ(flag, 0);
      check_untouched(&m);
      break;
    default: break;
  }
  send_late(&m, peer);
  n = kEntries;
  switch (method) {
    case WAITALL:
    case TESTALL:
      for (int i = 0; i < kEntries; ++i) poison(&m.st[i]);
      if (method == WAITALL) {
        MPI_OK(MPI_Waitall(n, m.req, m.st));
      } else {
        do MPI_OK(MPI_Testall(n, m.req, &flag, m.st));
        while (!flag);
      }
      for (int i = 0; i < kEntries; ++i) completed(&m, i, &m.st[i], peer);
      break;
    case WAITALL_IGNORE:
      MPI_OK(MPI_Waitall(n, m.req, MPI_STATUSES_IGNORE));
      for (int i = 0; i < kEntries; ++i) completed(&m, i, NULL, peer);
      break;
    case WAITANY:
    case TESTANY:
      for (;;) {
        poison(&st);
        if (method == WAITANY) {
          MPI_OK(MPI_Waitany(n, m.req, &index, &st));
        } else {
          MPI_OK(MPI_Testany(n, m.req, &index, &flag, &st));
          if (!flag) continue;
        }
        if (index == MPI_UNDEFINED) break;
        CHECK(index >= 0 && index < n && kinds[index] != NULL_ENTRY);
        completed(&m, index, &st, peer);
      }
      check_empty_status(&st);
      m.done[2] = 1;
      break;
    case WAITSOME:
    case TESTSOME:
      for (;;) {
        for (int i = 0; i < kEntries; ++i) poison(&m.st[i]);
        if (method == WAITSOME) {
          MPI_OK(MPI_Waitsome(n, m.req, &outcount, indices, m.st));
        } else {
          MPI_OK(MPI_Testsome(n, m.req, &outcount, indices, m.st));
        }
        if (outcount == MPI_UNDEFINED) break;
        CHECK(outcount >= 0 && outcount <= n);
        CHECK(method == TESTSOME || outcount > 0);
        for (int k = 0; k < outcount; ++k) completed(&m, indices[k], &m.st[k], peer);
      }
      m.done[2] = 1;
      break;
    case WAIT:
    case TEST:
      for (int i = 0; i < n; ++i) {
        poison(&st);
        if (method == WAIT) {
          MPI_OK(MPI_Wait(&m.req[i], &st));
        } else {
          do MPI_OK(MPI_Test(&m.req[i], &flag, &st));
          while (!flag);
        }
        completed(&m, i, &st, peer);
      }
      break;
    default: break;
  }
  for (int i = 0; i < kEntries; ++i) CHECK_EQ(m.done[i], 1);
  release(&m);
  if (rank == 0) printf("completed_sends: %s over mixed arrays: ok\n", method_names[method]);
}

/* ---- one handle at a time ---- */

/* The peer receives `tag` from this rank and checks it (the other half of each case below). */
static void receive_checked(int peer, int tag) {
  int in[kSmall] = {0};
  MPI_Status st;
  MPI_OK(MPI_Recv(in, kSmall, MPI_INT, peer, tag, MPI_COMM_WORLD, &st));
  check_recv_status(&st, peer, tag, kSmall);
  check_filled(in, kSmall, peer, tag);
}

static void one_handle(int rank, int peer) {
  int out[kSmall];
  MPI_Request r;
  MPI_Status st;
  int flag;

  /* MPI_Request_get_status: complete at once, the handle unchanged and still usable. */
  fill(out, kSmall, rank, 30);
  isend_completed(out, kSmall, peer, 30, &r);
  for (int k = 0; k < 2; ++k) {
    flag = -1;
    poison(&st);
    MPI_OK(MPI_Request_get_status(r, &flag, &st));
    CHECK_EQ(flag, 1);
    check_send_status(&st);
    CHECK_EQ(r, COMPLETED_SEND);
  }
  poison(&st);
  MPI_OK(MPI_Wait(&r, &st));
  CHECK_EQ(r, MPI_REQUEST_NULL);
  check_send_status(&st);
  poison(&st);
  MPI_OK(MPI_Wait(&r, &st)); /* on MPI_REQUEST_NULL: the empty status */
  check_empty_status(&st);
  flag = -1;
  MPI_OK(MPI_Request_get_status(r, &flag, &st));
  CHECK_EQ(flag, 1);
  receive_checked(peer, 30);

  /* MPI_Request_free, then MPI_Wait on the null handle; the message arrives. */
  fill(out, kSmall, rank, 31);
  isend_completed(out, kSmall, peer, 31, &r);
  MPI_OK(MPI_Request_free(&r));
  CHECK_EQ(r, MPI_REQUEST_NULL);
  poison(&st);
  MPI_OK(MPI_Wait(&r, &st));
  check_empty_status(&st);
  receive_checked(peer, 31);

  /* MPI_Cancel: the send completed, so it is not cancelled, and the message arrives; the handle
   * is the same after the cancel. Then with MPI_Test. */
  for (int k = 0; k < 2; ++k) {
    fill(out, kSmall, rank, 32 + k);
    isend_completed(out, kSmall, peer, 32 + k, &r);
    MPI_OK(MPI_Cancel(&r));
    CHECK_EQ(r, COMPLETED_SEND);
    poison(&st);
    if (k == 0) {
      MPI_OK(MPI_Wait(&r, &st));
    } else {
      flag = -1;
      MPI_OK(MPI_Test(&r, &flag, &st));
      CHECK_EQ(flag, 1);
    }
    CHECK_EQ(r, MPI_REQUEST_NULL);
    check_send_status(&st); /* MPI_Test_cancelled: false */
    receive_checked(peer, 32 + k);
  }

  /* A ready send to a receive posted already completes at start too. */
  int in[kSmall] = {0};
  MPI_Request rr;
  MPI_OK(MPI_Irecv(in, kSmall, MPI_INT, peer, 34, MPI_COMM_WORLD, &rr));
  MPI_OK(MPI_Sendrecv(NULL, 0, MPI_INT, peer, 35, NULL, 0, MPI_INT, peer, 35, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  fill(out, kSmall, rank, 34);
  MPI_OK(MPI_Irsend(out, kSmall, MPI_INT, peer, 34, MPI_COMM_WORLD, &r));
  CHECK_EQ(r, COMPLETED_SEND);
  MPI_Request both[2] = {rr, r};
  MPI_Status sts[2];
  MPI_OK(MPI_Waitall(2, both, sts));
  check_recv_status(&sts[0], peer, 34, kSmall);
  check_filled(in, kSmall, peer, 34);
  check_send_status(&sts[1]);
  CHECK(both[0] == MPI_REQUEST_NULL && both[1] == MPI_REQUEST_NULL);

  /* Handle conversion keeps the value (Fortran and mpi4py hold it as an ordinary request). */
  fill(out, kSmall, rank, 36);
  isend_completed(out, kSmall, peer, 36, &r);
  CHECK_EQ(MPI_Request_fromint(MPI_Request_toint(r)), COMPLETED_SEND);
#ifdef GASKET_MPI /* the standard ABI leaves c2f/f2c to the Fortran layer */
  CHECK_EQ(MPI_Request_f2c(MPI_Request_c2f(r)), COMPLETED_SEND);
#endif

  /* Errors: MPI_Start refuses it as any non-persistent request; a bad handle after it in an
   * array fails the whole call with a bad handle's message and leaves it as it was. */
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int cls = -1;
  int e = MPI_Start(&r);
  MPI_OK(MPI_Error_class(e, &cls));
  CHECK_EQ(cls, MPI_ERR_REQUEST);
  CHECK_EQ(r, COMPLETED_SEND);
  MPI_Request bad = NO_REQUEST;
  MPI_Request with_bad[3] = {r, MPI_REQUEST_NULL, bad};
  e = MPI_Waitall(3, with_bad, MPI_STATUSES_IGNORE);
  MPI_OK(MPI_Error_class(e, &cls));
  CHECK_EQ(cls, MPI_ERR_REQUEST);
  CHECK_EQ(with_bad[0], COMPLETED_SEND);
  int index = -1;
  e = MPI_Testany(3, with_bad, &index, &flag, MPI_STATUS_IGNORE);
  MPI_OK(MPI_Error_class(e, &cls));
  CHECK_EQ(cls, MPI_ERR_REQUEST);
  CHECK_EQ(with_bad[0], COMPLETED_SEND);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  MPI_OK(MPI_Waitany(2, with_bad, &index, &st));
  CHECK_EQ(index, 0);
  check_send_status(&st);
  CHECK_EQ(with_bad[0], MPI_REQUEST_NULL);
  receive_checked(peer, 36);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* ---- two threads per rank at MULTIPLE ---- */

struct Stream {
  int rank, peer, tag;
  int at_start; /* sends that completed as they started */
};

static void* stream_thread(void* arg) {
  struct Stream* s = arg;
  enum { kWindow = 16, kWindows = 200 };
  int out[kWindow][kSmall], in[kWindow][kSmall];
  for (int w = 0; w < kWindows; ++w) {
    MPI_Request req[2 * kWindow];
    MPI_Status sts[2 * kWindow];
    for (int k = 0; k < kWindow; ++k) {
      memset(in[k], 0, sizeof in[k]);
      MPI_OK(MPI_Irecv(in[k], kSmall, MPI_INT, s->peer, s->tag, MPI_COMM_WORLD, &req[k]));
    }
    /* Sends with this thread's tag (one pattern per message: the order is checked too); some
     * freed at once, some asked for their status first. Each completes at start unless the
     * other thread's packets filled the ring (then it keeps an ordinary request). */
    for (int k = 0; k < kWindow; ++k) {
      fill(out[k], kSmall, s->rank, s->tag * 1000 + w * kWindow + k);
      MPI_Request* r = &req[kWindow + k];
      MPI_OK(MPI_Isend(out[k], kSmall, MPI_INT, s->peer, s->tag, MPI_COMM_WORLD, r));
      if (*r == COMPLETED_SEND) ++s->at_start;
      if (k % 4 == 1) {
        MPI_OK(MPI_Request_free(r));
        CHECK_EQ(*r, MPI_REQUEST_NULL);
      } else if (k % 4 == 3) {
        int flag = -1;
        MPI_OK(MPI_Request_get_status(*r, &flag, MPI_STATUS_IGNORE));
        CHECK(*r != MPI_REQUEST_NULL);
      }
    }
    for (int k = 0; k < 2 * kWindow; ++k) poison(&sts[k]);
    MPI_OK(MPI_Waitall(2 * kWindow, req, sts));
    for (int k = 0; k < kWindow; ++k) {
      check_recv_status(&sts[k], s->peer, s->tag, kSmall);
      check_filled(in[k], kSmall, s->peer, s->tag * 1000 + w * kWindow + k);
      if (k % 4 == 1) {
        check_empty_status(&sts[kWindow + k]);
      } else {
        check_send_status(&sts[kWindow + k]);
      }
      CHECK_EQ(req[k], MPI_REQUEST_NULL);
      CHECK_EQ(req[kWindow + k], MPI_REQUEST_NULL);
    }
  }
  return NULL;
}

static void threads(int rank, int peer) {
  pthread_t t[2];
  struct Stream s[2] = {{rank, peer, 40, 0}, {rank, peer, 41, 0}};
  for (int i = 0; i < 2; ++i) CHECK_EQ(pthread_create(&t[i], NULL, stream_thread, &s[i]), 0);
  for (int i = 0; i < 2; ++i) CHECK_EQ(pthread_join(t[i], NULL), 0);
  CHECK(s[0].at_start + s[1].at_start > 0);
}

int main(int argc, char** argv) {
  int rank, size, level;
  init_test_at_level_arg(&argc, &argv, &rank, &size, &level);
  CHECK_EQ(size % 2, 0);
  int peer = rank ^ 1;
  for (int method = 0; method < kMethods; ++method) mixed_array(rank, peer, (enum Method)method);
  one_handle(rank, peer);
  if (level == MPI_THREAD_MULTIPLE) threads(rank, peer);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("completed_sends: %d ranks, thread level %d: passed\n", size, level);
  MPI_Finalize();
  return 0;
}
