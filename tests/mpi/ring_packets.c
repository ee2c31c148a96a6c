/* Same-node ring packing (mpi/p2p/shm_rings.h: variable-size packets, pad markers at the end of
 * the ring, the sender clearing the next packet's flag) and the protocol thresholds around it:
 * every byte of every message is checked, and the order per source.
 *  1. Sizes around every threshold (line multiples, the ring's 64-byte lines, the same-node
 *     eager limit 32 KiB, the rendezvous sizes 64/128 KiB, the split-pull 256 KiB) from every
 *     rank to every other, all in flight at once, received in order with the same tag.
 *  2. A stream of thousands of messages of changing sizes (more than the ring holds: it wraps
 *     many times, with pads at odd offsets) to the next rank, the first half received by posted
 *     receives, the rest unexpected (MPI_ANY_SOURCE / MPI_ANY_TAG, order checked by sequence).
 *  3. A window of 64 small non-blocking sends and receives repeated (the streaming benchmark's
 *     pattern), then MPI_Ssend / MPI_Issend between them (synchronous mode), then a cancelled send.
 *  4. Blocking MPI_Send / MPI_Recv of every size from 0 to 130 bytes around the ring (a packet
 *     that fits its first 64-byte line is copied in place, a longer one in two parts: the line
 *     boundary is at 40 data bytes for a blocking send, 32 for a request's, which carries its id;
 *     part 1 has 31/32/33).
 * Argument: the thread level (check.h; MULTIPLE when absent). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static unsigned char pattern(int src, int dst, int index, size_t byte) {
  return (unsigned char)(src * 131 + dst * 37 + index * 11 + byte * 7 + (byte >> 8));
}

static void fill(unsigned char* buf, size_t n, int src, int dst, int index) {
  for (size_t i = 0; i < n; ++i) buf[i] = pattern(src, dst, index, i);
}

static void expect(const unsigned char* buf, size_t n, int src, int dst, int index) {
  for (size_t i = 0; i < n; ++i) {
    if (buf[i] != pattern(src, dst, index, i)) {
      fprintf(stderr, "rank %d: message %d from rank %d (%zu bytes): byte %zu is %u, expected %u\n", dst, index, src,
              n, i, buf[i], pattern(src, dst, index, i));
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
}

static const size_t kSizes[] = {0,     1,     7,     8,     31,    32,    33,    39,    40,     41,     63,     64,     65,
                                104,   127,   128,   1000,  4095,  4096,   4097,   32704,  32760,  32767,
                                32768, 32769, 40000, 65535, 65536, 65537,  131071, 131072, 131073, 262143,
                                262144, 262145, 300001};
enum { kNumSizes = sizeof kSizes / sizeof kSizes[0] };

static void thresholds(int rank, int size) {
  int n_msgs = (size - 1) * kNumSizes;
  MPI_Request* req = malloc(sizeof(MPI_Request) * 2 * (size_t)n_msgs);
  unsigned char** sbuf = malloc(sizeof(unsigned char*) * (size_t)n_msgs);
  unsigned char** rbuf = malloc(sizeof(unsigned char*) * (size_t)n_msgs);
  int k = 0;
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    for (int i = 0; i < kNumSizes; ++i, ++k) {
      rbuf[k] = malloc(kSizes[i] + 1);
      MPI_OK(MPI_Irecv(rbuf[k], (int)kSizes[i], MPI_BYTE, peer, 5, MPI_COMM_WORLD, &req[2 * k]));
      sbuf[k] = malloc(kSizes[i] + 1);
      fill(sbuf[k], kSizes[i], rank, peer, i);
      MPI_OK(MPI_Isend(sbuf[k], (int)kSizes[i], MPI_BYTE, peer, 5, MPI_COMM_WORLD, &req[2 * k + 1]));
    }
  }
  MPI_Status* st = malloc(sizeof(MPI_Status) * 2 * (size_t)n_msgs);
  MPI_OK(MPI_Waitall(2 * n_msgs, req, st));
  k = 0;
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    for (int i = 0; i < kNumSizes; ++i, ++k) {
      int count = -1;
      MPI_OK(MPI_Get_count(&st[2 * k], MPI_BYTE, &count));
      CHECK_EQ(count, kSizes[i]);
      CHECK_EQ(st[2 * k].MPI_SOURCE, peer);
      expect(rbuf[k], kSizes[i], peer, rank, i);
      free(rbuf[k]);
      free(sbuf[k]);
    }
  }
  free(st);
  free(req);
  free(sbuf);
  free(rbuf);
}

/* Message `i` of the stream: its size (1 .. 3000 bytes, changing so pads land at odd offsets;
 * every 97th is 20000 bytes, within the eager limit), its tag (i % 7) and its bytes (the
 * sequence number leads when it fits). */
enum { kStreamMax = 20000 };
static size_t stream_size(int i) { return i % 97 == 96 ? kStreamMax : (size_t)(1 + (i * 389) % 3000); }

static void stream_message(unsigned char* m, int src, int dst, int i) {
  size_t n = stream_size(i);
  fill(m, n, src, dst, i);
  if (n >= sizeof i) memcpy(m, &i, sizeof i);
}

static void check_stream_message(const unsigned char* m, const MPI_Status* st, int src, int dst, int i) {
  int count = -1;
  MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
  CHECK_EQ(st->MPI_SOURCE, src);
  CHECK_EQ(st->MPI_TAG, i % 7);
  CHECK_EQ(count, stream_size(i));
  unsigned char* ref = malloc(kStreamMax);
  stream_message(ref, src, dst, i);
  if (memcmp(ref, m, (size_t)count) != 0) {
    int seq = -1;
    if (count >= 4) memcpy(&seq, m, sizeof seq);
    fprintf(stderr, "rank %d: stream message %d from rank %d has wrong bytes (its sequence number: %d)\n", dst, i,
            src, seq);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  free(ref);
}

static void stream(int rank, int size) {
  enum { kCount = 4000 };
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  size_t* at = malloc(sizeof(size_t) * (kCount + 1));
  at[0] = 0;
  for (int i = 0; i < kCount; ++i) at[i + 1] = at[i] + stream_size(i);
  unsigned char* out = malloc(at[kCount]);
  MPI_Request* sreq = malloc(sizeof(MPI_Request) * kCount);
  for (int i = 0; i < kCount; ++i) {
    stream_message(out + at[i], rank, next, i);
    MPI_OK(MPI_Isend(out + at[i], (int)stream_size(i), MPI_BYTE, next, i % 7, MPI_COMM_WORLD, &sreq[i]));
  }
  /* The first half into posted receives (exact sizes, any tag), the rest one by one, mostly unexpected. */
  unsigned char* posted = malloc(at[kCount / 2]);
  MPI_Request* rreq = malloc(sizeof(MPI_Request) * kCount / 2);
  for (int i = 0; i < kCount / 2; ++i) {
    MPI_OK(MPI_Irecv(posted + at[i], (int)stream_size(i), MPI_BYTE, prev, MPI_ANY_TAG, MPI_COMM_WORLD, &rreq[i]));
  }
  MPI_Status st;
  for (int i = 0; i < kCount / 2; ++i) {
    MPI_OK(MPI_Wait(&rreq[i], &st));
    check_stream_message(posted + at[i], &st, prev, rank, i);
  }
  unsigned char* in = malloc(kStreamMax);
  for (int i = kCount / 2; i < kCount; ++i) {
    MPI_OK(MPI_Recv(in, kStreamMax, MPI_BYTE, size == 2 ? MPI_ANY_SOURCE : prev, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_stream_message(in, &st, prev, rank, i);
  }
  MPI_OK(MPI_Waitall(kCount, sreq, MPI_STATUSES_IGNORE));
  free(in);
  free(rreq);
  free(posted);
  free(sreq);
  free(out);
  free(at);
}

static void windows(int rank, int size) {
  enum { kWindow = 64, kRounds = 300 };
  if (rank >= 2) return;
  int peer = 1 - rank;
  uint64_t buf[kWindow];
  MPI_Request req[kWindow];
  for (int round = 0; round < kRounds; ++round) {
    if (rank == 0) {
      for (int w = 0; w < kWindow; ++w) {
        buf[w] = (uint64_t)round * kWindow + w;
        MPI_OK(MPI_Isend(&buf[w], 8, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[w]));
      }
    } else {
      for (int w = 0; w < kWindow; ++w) MPI_OK(MPI_Irecv(&buf[w], 8, MPI_BYTE, peer, 2, MPI_COMM_WORLD, &req[w]));
    }
    MPI_OK(MPI_Waitall(kWindow, req, MPI_STATUSES_IGNORE));
    if (rank == 1)
      for (int w = 0; w < kWindow; ++w) CHECK_EQ(buf[w], (uint64_t)round * kWindow + w);
  }
  /* Synchronous mode: completes only once matched. */
  int value = rank == 0 ? 4242 : 0;
  if (rank == 0) {
    MPI_Request r;
    MPI_OK(MPI_Issend(&value, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, &r));
    int done = 1;
    MPI_OK(MPI_Test(&r, &done, MPI_STATUS_IGNORE));
    CHECK_EQ(done, 0);  /* the receiver posts only after the token below */
    int token = 0;
    MPI_OK(MPI_Send(&token, 1, MPI_INT, peer, 10, MPI_COMM_WORLD));  /* the receiver waits for this first */
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Ssend(&value, 1, MPI_INT, peer, 11, MPI_COMM_WORLD));
  } else {
    int token = -1;
    MPI_OK(MPI_Recv(&token, 1, MPI_INT, peer, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Recv(&value, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_EQ(value, 4242);
    value = 0;
    MPI_OK(MPI_Recv(&value, 1, MPI_INT, peer, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_EQ(value, 4242);
  }
  /* A send cancelled before any receive is posted is gone: the next message with its tag is the later one. */
  if (rank == 0) {
    int first = 1, second = 2;
    MPI_Request r;
    MPI_OK(MPI_Isend(&first, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Cancel(&r));
    MPI_Status st;
    MPI_OK(MPI_Wait(&r, &st));
    int cancelled = 0;
    MPI_OK(MPI_Test_cancelled(&st, &cancelled));
    MPI_OK(MPI_Send(&cancelled, 1, MPI_INT, peer, 13, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(&second, 1, MPI_INT, peer, 12, MPI_COMM_WORLD));
  } else {
    int cancelled = -1, got = 0;
    MPI_OK(MPI_Recv(&cancelled, 1, MPI_INT, peer, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Recv(&got, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_EQ(got, cancelled ? 2 : 1);
    if (!cancelled) {
      MPI_OK(MPI_Recv(&got, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_EQ(got, 2);
    }
  }
  (void)size;
}

static void blocking_sizes(int rank, int size) {
  enum { kMax = 130 };
  unsigned char buf[kMax + 1];
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int n = 0; n <= kMax; ++n) {
    if (size == 1) break;
    if (rank % 2 == 0) {
      fill(buf, (size_t)n, rank, next, n);
      MPI_OK(MPI_Send(buf, n, MPI_BYTE, next, 20, MPI_COMM_WORLD));
    }
    memset(buf, 0xee, sizeof buf);
    MPI_Status st;
    MPI_OK(MPI_Recv(buf, kMax, MPI_BYTE, prev, 20, MPI_COMM_WORLD, &st));
    int count = -1;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK_EQ(count, n);
    expect(buf, (size_t)n, prev, rank, n);
    CHECK_EQ(buf[n], 0xee);  /* nothing past the message */
    if (rank % 2 != 0) {
      fill(buf, (size_t)n, rank, next, n);
      MPI_OK(MPI_Send(buf, n, MPI_BYTE, next, 20, MPI_COMM_WORLD));
    }
  }
}

int main(int argc, char** argv) {
  init_at_level_arg(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  thresholds(rank, size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  stream(rank, size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  windows(rank, size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  blocking_sizes(rank, size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("ring_packets: %d ranks passed\n", size);
  MPI_Finalize();
  return 0;
}
