/* The life of requests around the engine's pools (mpi/p2p: pooled requests, the reused nodes of
 * the unexpected queue, the request arrays of the wait/test calls), every received byte checked:
 *  - handles freed (MPI_Request_free while active, or completed) and reused at once by new
 *    requests of other kinds and sizes;
 *  - thousands of requests outstanding at once (beyond any inline array or ring), mixed sizes
 *    (eager and rendezvous), completed by one MPI_Waitall;
 *  - MPI_Waitall/Testall over arrays mixing MPI_REQUEST_NULL, MPI_PROC_NULL requests, inactive
 *    persistent requests and pending ones;
 *  - loops of MPI_Test, MPI_Testany and MPI_Testsome until everything completed;
 *  - unexpected messages of shrinking and growing sizes received out of order (a reused queue
 *    entry never shows an earlier message's bytes);
 *  - synchronous eager sends (contiguous and not) complete only once matched;
 *  - a stream of blocking receives behind a sender running ahead (packets left in the ring by a
 *    satisfied blocking receive), mixed with wildcard and non-blocking receives: order and bytes.
 * Ranks pair up as (rank, rank ^ 1): run on an even number of ranks. Argument: the thread level
 * (check.h), MULTIPLE when absent. */
#include <string.h>

#include "check.h"

/* Sizes that cross the same-node eager limit (32 KiB) and fill lines of the ring unevenly. */
static int size_of(int k) {
  static const int sizes[] = {8, 0, 1024, 1, 40000, 64, 8, 511, 3000, 8};
  return sizes[k % (int)(sizeof sizes / sizeof sizes[0])];
}

/* Handles freed while active or once complete, then reused: the new requests complete with
 * their own data and status. */
static void reuse_after_free(int rank, int peer) {
  enum { kRounds = 50, kBytes = 2000 };
  static unsigned char out[kRounds][kBytes], in[kRounds][kBytes];
  for (int k = 0; k < kRounds; ++k) {
    int n = size_of(k) % kBytes;
    fill_message(out[k], n, rank, k);
    memset(in[k], 0, kBytes);
    MPI_Request s, r;
    MPI_OK(MPI_Irecv(in[k], kBytes, MPI_BYTE, peer, k, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Isend(out[k], n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &s));
    MPI_OK(MPI_Request_free(&s)); /* the engine releases it when it completes */
    CHECK_EQ(s, MPI_REQUEST_NULL);
    /* a new request at once (it may take the freed slot once the send completed) */
    MPI_Request again;
    int token = k;
    MPI_OK(MPI_Isend(&token, 1, MPI_INT, peer, 1000 + k, MPI_COMM_WORLD, &again));
    int got = -1;
    MPI_Status st;
    MPI_OK(MPI_Recv(&got, 1, MPI_INT, peer, 1000 + k, MPI_COMM_WORLD, &st));
    CHECK_EQ(got, k);
    CHECK_EQ(st.MPI_SOURCE, peer);
    MPI_OK(MPI_Wait(&again, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r, &st));
    int count;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK_EQ(count, n);
    CHECK_EQ(st.MPI_TAG, k);
    check_message(in[k], n, peer, k);
  }
  /* A completed request freed: its handle is no longer valid, and new ones keep working. */
  MPI_Request s;
  int x = rank;
  MPI_OK(MPI_Isend(&x, 1, MPI_INT, peer, 77, MPI_COMM_WORLD, &s));
  int y = -1;
  MPI_OK(MPI_Recv(&y, 1, MPI_INT, peer, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_EQ(y, peer);
  int flag = 0;
  MPI_OK(MPI_Request_get_status(s, &flag, MPI_STATUS_IGNORE));
  while (!flag) MPI_OK(MPI_Request_get_status(s, &flag, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Request_free(&s));
  CHECK_EQ(s, MPI_REQUEST_NULL);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* kMany receives and kMany sends outstanding at once, one Waitall over all 2 kMany. */
static void many_outstanding(int rank, int peer) {
  enum { kMany = 3000 };
  unsigned char** out = malloc(sizeof *out * kMany);
  unsigned char** in = malloc(sizeof *in * kMany);
  MPI_Request* req = malloc(sizeof *req * 2 * kMany);
  MPI_Status* sts = malloc(sizeof *sts * 2 * kMany);
  for (int k = 0; k < kMany; ++k) {
    int n = size_of(k);
    out[k] = malloc((size_t)n + 1);
    in[k] = calloc((size_t)n + 1, 1);
    fill_message(out[k], n, rank, k);
  }
  /* half the receives posted before the sends, half after (the others arrive unexpected) */
  for (int k = 0; k < kMany / 2; ++k) {
    MPI_OK(MPI_Irecv(in[k], size_of(k), MPI_BYTE, peer, k % 7, MPI_COMM_WORLD, &req[k]));
  }
  for (int k = 0; k < kMany; ++k) {
    MPI_OK(MPI_Isend(out[k], size_of(k), MPI_BYTE, peer, k % 7, MPI_COMM_WORLD, &req[kMany + k]));
  }
  for (int k = kMany / 2; k < kMany; ++k) {
    MPI_OK(MPI_Irecv(in[k], size_of(k), MPI_BYTE, peer, k % 7, MPI_COMM_WORLD, &req[k]));
  }
  MPI_OK(MPI_Waitall(2 * kMany, req, sts));
  for (int k = 0; k < kMany; ++k) {
    CHECK_EQ(req[k], MPI_REQUEST_NULL);
    CHECK_EQ(req[kMany + k], MPI_REQUEST_NULL);
    CHECK_EQ(sts[k].MPI_SOURCE, peer);
    CHECK_EQ(sts[k].MPI_TAG, k % 7);
    int count;
    MPI_OK(MPI_Get_count(&sts[k], MPI_BYTE, &count));
    CHECK_EQ(count, size_of(k));
    check_message(in[k], size_of(k), peer, k); /* same tag, same source: in order */
    free(out[k]);
    free(in[k]);
  }
  free(out);
  free(in);
  free(req);
  free(sts);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static void check_empty(const MPI_Status* st) {
  CHECK_EQ(st->MPI_SOURCE, MPI_ANY_SOURCE);
  CHECK_EQ(st->MPI_TAG, MPI_ANY_TAG);
  int count = -1;
  MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
  CHECK_EQ(count, 0);
}

/* Waitall / Testall over null, MPI_PROC_NULL, inactive persistent and pending requests. */
static void mixed_arrays(int rank, int peer) {
  enum { kN = 8 };
  int in[kN], out[kN];
  for (int round = 0; round < 2; ++round) {
    MPI_Request req[kN];
    MPI_Status sts[kN];
    for (int i = 0; i < kN; ++i) {
      in[i] = -1;
      out[i] = rank * 100 + round * 10 + i;
    }
    MPI_Request inactive;
    MPI_OK(MPI_Recv_init(&in[7], 1, MPI_INT, peer, 99, MPI_COMM_WORLD, &inactive));
    req[0] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Irecv(&in[1], 1, MPI_INT, peer, 1, MPI_COMM_WORLD, &req[1]));
    MPI_OK(MPI_Irecv(&in[2], 1, MPI_INT, MPI_PROC_NULL, 2, MPI_COMM_WORLD, &req[2]));
    req[3] = inactive;
    MPI_OK(MPI_Isend(&out[4], 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &req[4]));
    req[5] = MPI_REQUEST_NULL;
    MPI_OK(MPI_Isend(&out[6], 1, MPI_INT, MPI_PROC_NULL, 6, MPI_COMM_WORLD, &req[6]));
    MPI_OK(MPI_Irecv(&in[7], 1, MPI_INT, peer, 4, MPI_COMM_WORLD, &req[7]));
    /* the peer's message for req[1] is sent only after this side's Testall: not done yet */
    if (round == 1) {
      int flag = 1;
      MPI_OK(MPI_Testall(kN, req, &flag, sts));
      CHECK_EQ(flag, 0);
      CHECK(req[1] != MPI_REQUEST_NULL);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Send(&out[1], 1, MPI_INT, peer, 1, MPI_COMM_WORLD));
    if (round == 0) {
      MPI_OK(MPI_Waitall(kN, req, sts));
    } else {
      int flag = 0;
      while (!flag) MPI_OK(MPI_Testall(kN, req, &flag, sts));
    }
    for (int i = 0; i < kN; ++i) CHECK(req[i] == (i == 3 ? inactive : MPI_REQUEST_NULL));
    check_empty(&sts[0]);
    check_empty(&sts[3]);
    check_empty(&sts[5]);
    CHECK_EQ(sts[1].MPI_SOURCE, peer);
    CHECK_EQ(sts[1].MPI_TAG, 1);
    CHECK_EQ(in[1], peer * 100 + round * 10 + 1);
    CHECK_EQ(sts[2].MPI_SOURCE, MPI_PROC_NULL);
    CHECK_EQ(sts[2].MPI_TAG, MPI_ANY_TAG);
    CHECK_EQ(in[2], -1);
    CHECK_EQ(sts[7].MPI_SOURCE, peer);
    CHECK_EQ(sts[7].MPI_TAG, 4);
    CHECK_EQ(in[7], peer * 100 + round * 10 + 4);
    MPI_OK(MPI_Request_free(&inactive));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Loops of MPI_Test, MPI_Testany, MPI_Testsome over a window of receives of mixed sizes. */
static void test_loops(int rank, int peer) {
  enum { kW = 40, kMax = 40000 };
  static unsigned char in[kW][kMax + 1], out[kW][kMax + 1];
  MPI_Request req[kW];
  for (int method = 0; method < 3; ++method) {
    for (int k = 0; k < kW; ++k) {
      int n = size_of(k + method);
      fill_message(out[k], n, rank, k + method);
      memset(in[k], 0, (size_t)n + 1);
      MPI_OK(MPI_Irecv(in[k], n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &req[k]));
    }
    MPI_Request sends[kW];
    for (int k = kW - 1; k >= 0; --k) { /* reverse order: completions come in any order */
      MPI_OK(MPI_Isend(out[k], size_of(k + method), MPI_BYTE, peer, k, MPI_COMM_WORLD, &sends[k]));
    }
    int done = 0, seen[kW] = {0};
    while (done < kW) {
      if (method == 0) {
        for (int k = 0; k < kW; ++k) {
          if (req[k] == MPI_REQUEST_NULL) continue;
          int flag = 0;
          MPI_Status st;
          MPI_OK(MPI_Test(&req[k], &flag, &st));
          if (!flag) continue;
          CHECK_EQ(req[k], MPI_REQUEST_NULL);
          CHECK_EQ(st.MPI_TAG, k);
          ++seen[k];
          ++done;
        }
      } else if (method == 1) {
        int index = -1, flag = 0;
        MPI_Status st;
        MPI_OK(MPI_Testany(kW, req, &index, &flag, &st));
        CHECK_EQ(flag, 1 - (index == MPI_UNDEFINED)); /* something is still active */
        if (!flag) continue;
        CHECK_EQ(st.MPI_TAG, index);
        ++seen[index];
        ++done;
      } else {
        int outcount = -1, idx[kW];
        MPI_Status sts[kW];
        MPI_OK(MPI_Testsome(kW, req, &outcount, idx, sts));
        CHECK(outcount >= 0 && outcount <= kW - done);
        for (int j = 0; j < outcount; ++j) {
          CHECK_EQ(sts[j].MPI_TAG, idx[j]);
          ++seen[idx[j]];
        }
        done += outcount;
      }
    }
    for (int k = 0; k < kW; ++k) {
      CHECK_EQ(seen[k], 1);
      check_message(in[k], size_of(k + method), peer, k + method);
      CHECK_EQ(in[k][size_of(k + method)], 0); /* nothing written past the message */
    }
    MPI_OK(MPI_Waitall(kW, sends, MPI_STATUSES_IGNORE));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Unexpected messages, received in reverse order so that queue entries are reused by messages
 * of other sizes, rounds of large-then-small and small-then-large. */
static void unexpected_reuse(int rank, int peer) {
  enum { kM = 30, kMax = 3000 };
  static unsigned char in[kMax], out[kM][kMax];
  for (int round = 0; round < 4; ++round) {
    MPI_Request sends[kM]; /* non-blocking: a backend path's eager limit may be below kMax */
    for (int k = 0; k < kM; ++k) {
      int n = round % 2 ? (k + 1) * 97 : kMax - k * 97;
      fill_message(out[k], n, rank, round * kM + k);
      MPI_OK(MPI_Isend(out[k], n, MPI_BYTE, peer, k, MPI_COMM_WORLD, &sends[k]));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* every message waits unexpected */
    for (int k = kM - 1; k >= 0; --k) {
      int n = round % 2 ? (k + 1) * 97 : kMax - k * 97;
      memset(in, 0, sizeof in);
      MPI_Status st;
      MPI_OK(MPI_Recv(in, kMax, MPI_BYTE, MPI_ANY_SOURCE, k, MPI_COMM_WORLD, &st));
      int count;
      MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
      CHECK_EQ(count, n);
      CHECK_EQ(st.MPI_SOURCE, peer);
      check_message(in, n, peer, round * kM + k);
      for (int i = n; i < kMax; ++i) CHECK_EQ(in[i], 0);
    }
    MPI_OK(MPI_Waitall(kM, sends, MPI_STATUSES_IGNORE));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Synchronous eager sends complete only once the receiver matched them: the receiver posts only
 * after a message the sender sends after testing. */
static void sync_eager(int rank, int peer) {
  MPI_Datatype every_other;
  MPI_OK(MPI_Type_vector(16, 1, 2, MPI_INT, &every_other));
  MPI_OK(MPI_Type_commit(&every_other));
  int data[32], got[32];
  for (int contiguous = 0; contiguous < 2; ++contiguous) {
    if (rank < peer) {
      for (int i = 0; i < 32; ++i) data[i] = 1000 * contiguous + i;
      MPI_Request s;
      if (contiguous) {
        MPI_OK(MPI_Issend(data, 16, MPI_INT, peer, 5, MPI_COMM_WORLD, &s));
      } else {
        MPI_OK(MPI_Issend(data, 1, every_other, peer, 5, MPI_COMM_WORLD, &s));
      }
      for (int i = 0; i < 100; ++i) {
        int flag = 1;
        MPI_OK(MPI_Test(&s, &flag, MPI_STATUS_IGNORE));
        CHECK_EQ(flag, 0);
      }
      MPI_OK(MPI_Send(NULL, 0, MPI_BYTE, peer, 6, MPI_COMM_WORLD));
      MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    } else {
      MPI_OK(MPI_Recv(NULL, 0, MPI_BYTE, peer, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      memset(got, 0, sizeof got);
      MPI_OK(MPI_Recv(got, 16, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (int i = 0; i < 16; ++i) CHECK_EQ(got[i], 1000 * contiguous + (contiguous ? i : 2 * i));
    }
  }
  MPI_OK(MPI_Type_free(&every_other));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* The sender streams blocking sends of mixed sizes; the receiver takes them with blocking
 * receives (by tag, MPI_ANY_TAG, MPI_ANY_SOURCE) and now and then a non-blocking one, so packets
 * a blocking receive left in the ring meet every kind of receive, in order. */
static void blocking_stream(int rank, int peer) {
  enum { kN = 2000, kMax = 40000 };
  static unsigned char buf[kMax + 1];
  for (int k = 0; k < kN; ++k) {
    int n = size_of(k);
    if (rank < peer) {
      fill_message(buf, n, rank, k);
      MPI_OK(MPI_Send(buf, n, MPI_BYTE, peer, k % 3, MPI_COMM_WORLD));
      continue;
    }
    memset(buf, 0, (size_t)n + 1);
    MPI_Status st;
    int source = k % 5 == 1 ? MPI_ANY_SOURCE : peer, tag = k % 4 == 2 ? MPI_ANY_TAG : k % 3;
    if (k % 10 == 7) {
      MPI_Request r;
      MPI_OK(MPI_Irecv(buf, kMax, MPI_BYTE, source, tag, MPI_COMM_WORLD, &r));
      MPI_OK(MPI_Wait(&r, &st));
    } else {
      MPI_OK(MPI_Recv(buf, kMax, MPI_BYTE, source, tag, MPI_COMM_WORLD, &st));
    }
    int count;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK_EQ(count, n);
    CHECK_EQ(st.MPI_SOURCE, peer);
    CHECK_EQ(st.MPI_TAG, k % 3);
    check_message(buf, n, peer, k);
    CHECK_EQ(buf[n], 0);
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char** argv) {
  init_at_level_arg(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK_EQ(size % 2, 0);
  int peer = rank ^ 1;
  reuse_after_free(rank, peer);
  many_outstanding(rank, peer);
  mixed_arrays(rank, peer);
  test_loops(rank, peer);
  unexpected_reuse(rank, peer);
  sync_eager(rank, peer);
  blocking_stream(rank, peer);
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("request_lifecycle: ok on %d ranks\n", size);
  return 0;
}
