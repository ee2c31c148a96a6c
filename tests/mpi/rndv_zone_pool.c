/* Rendezvous messages whose receive buffers lie outside every segment (malloc'd), from many
 * senders at once: where the receiver cannot read the sender's data itself (pciddc, or a same-node
 * peer with GASKET_MPI_SINGLE_COPY=no) they land in the receiver's bounce zones, a pool shared by
 * all its senders (GASKET_MPI_RNDV_ZONES, 4 by default) — so most transfers wait for a zone.
 *   1. every rank but 0 starts 3 sends to rank 0 at once (sizes below and above a zone, and one
 *      not a multiple of its halves); rank 0 posts the receives in another order than the sends
 *      arrive (the last sender first, one MPI_ANY_SOURCE receive per sender);
 *   2. every rank sends one message to every other rank and receives one from each (all at once).
 * Every byte is checked (a pattern of sender, message and offset). With the argument `bounce`,
 * every one of these rendezvous must have gone through the zones (MPI_T counter
 * mpi_rendezvous_bounce), so the pool is what was exercised, not another path. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "tests/mpi/check.h"

enum { kPerSender = 3 };
static const int kSizes[kPerSender] = {40 * 1024 + 8, 300 * 1024, 1024 * 1024 + 4097};
enum { kExchangeBytes = 96 * 1024 + 24 };

static unsigned char pattern(int sender, int message, size_t offset) {
  return (unsigned char)(sender * 31 + message * 7 + offset * 13 + offset / 4099);
}

static unsigned char* filled(int sender, int message, size_t bytes) {
  unsigned char* b = malloc(bytes);
  CHECK(b != NULL);
  for (size_t i = 0; i < bytes; ++i) b[i] = pattern(sender, message, i);
  return b;
}

static void check_bytes(const unsigned char* b, int sender, int message, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) {
    if (b[i] != pattern(sender, message, i)) {
      fprintf(stderr, "byte %zu of message %d from rank %d: %d, expected %d\n", i, message, sender, b[i],
              pattern(sender, message, i));
      CHECK(b[i] == pattern(sender, message, i));
    }
  }
}

static unsigned long long bounce_count(MPI_T_pvar_session s, MPI_T_pvar_handle h) {
  unsigned long long v = 0;
  MPI_T_pvar_read(s, h, &v);
  return v;
}

int main(int argc, char** argv) {
  int provided, rank, size;
  MPI_Init(&argc, &argv);
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int expect_bounce = argc > 1 && strcmp(argv[1], "bounce") == 0;

  MPI_T_pvar_session session;
  MPI_T_pvar_handle bounce;
  int index = -1, count = 0;
  CHECK_EQ(MPI_T_pvar_session_create(&session), MPI_SUCCESS);
  CHECK_EQ(MPI_T_pvar_get_index("mpi_rendezvous_bounce", MPI_T_PVAR_CLASS_COUNTER, &index), MPI_SUCCESS);
  CHECK_EQ(MPI_T_pvar_handle_alloc(session, index, NULL, &bounce, &count), MPI_SUCCESS);
  CHECK_EQ(MPI_T_pvar_start(session, bounce), MPI_SUCCESS);
  unsigned long long bounced_before = bounce_count(session, bounce);

  /* 1. many senders, one receiver */
  int expected_here = 0;
  if (rank == 0) {
    int n = (size - 1) * kPerSender;
    MPI_Request* reqs = malloc(sizeof(MPI_Request) * (size_t)n);
    unsigned char** bufs = malloc(sizeof(unsigned char*) * (size_t)n);
    int k = 0;
    for (int src = size - 1; src >= 1; --src) {
      for (int m = kPerSender - 1; m >= 0; --m) {
        bufs[k] = malloc((size_t)kSizes[m]);
        /* each sender's largest message is taken by an MPI_ANY_SOURCE receive of that tag */
        int from = m == kPerSender - 1 ? MPI_ANY_SOURCE : src;
        MPI_Irecv(bufs[k], kSizes[m], MPI_BYTE, from, m * size + src, MPI_COMM_WORLD, &reqs[k]);
        ++k;
      }
    }
    MPI_Status* st = malloc(sizeof(MPI_Status) * (size_t)n);
    CHECK_EQ(MPI_Waitall(n, reqs, st), MPI_SUCCESS);
    k = 0;
    for (int src = size - 1; src >= 1; --src) {
      for (int m = kPerSender - 1; m >= 0; --m) {
        int got = -1;
        MPI_Get_count(&st[k], MPI_BYTE, &got);
        CHECK_EQ(got, kSizes[m]);
        CHECK_EQ(st[k].MPI_SOURCE, src);
        CHECK_EQ(st[k].MPI_TAG, m * size + src);
        check_bytes(bufs[k], src, m, (size_t)kSizes[m]);
        free(bufs[k]);
        ++k;
      }
    }
    free(st);
    free(bufs);
    free(reqs);
    expected_here = n;
  } else {
    MPI_Request reqs[kPerSender];
    unsigned char* bufs[kPerSender];
    for (int m = 0; m < kPerSender; ++m) {
      bufs[m] = filled(rank, m, (size_t)kSizes[m]);
      MPI_Isend(bufs[m], kSizes[m], MPI_BYTE, 0, m * size + rank, MPI_COMM_WORLD, &reqs[m]);
    }
    CHECK_EQ(MPI_Waitall(kPerSender, reqs, MPI_STATUSES_IGNORE), MPI_SUCCESS);
    for (int m = 0; m < kPerSender; ++m) free(bufs[m]);
  }

  /* 2. everyone to everyone */
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * 2 * (size_t)size);
  unsigned char** in = malloc(sizeof(unsigned char*) * (size_t)size);
  unsigned char* out = filled(rank, kPerSender, kExchangeBytes);
  int n = 0;
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    in[peer] = malloc(kExchangeBytes);
    MPI_Irecv(in[peer], kExchangeBytes, MPI_BYTE, peer, 7, MPI_COMM_WORLD, &reqs[n++]);
  }
  for (int i = 1; i < size; ++i) MPI_Isend(out, kExchangeBytes, MPI_BYTE, (rank + i) % size, 7, MPI_COMM_WORLD, &reqs[n++]);
  CHECK_EQ(MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE), MPI_SUCCESS);
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    check_bytes(in[peer], peer, kPerSender, kExchangeBytes);
    free(in[peer]);
  }
  expected_here += size - 1;
  free(out);
  free(in);
  free(reqs);

  unsigned long long bounced = bounce_count(session, bounce) - bounced_before;
  if (expect_bounce) {
    if (bounced != (unsigned long long)expected_here) {
      fprintf(stderr, "rank %d: %llu rendezvous through the bounce zones, expected %d\n", rank, bounced, expected_here);
    }
    CHECK_EQ(bounced, expected_here);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("rndv_zone_pool: %d ranks, %llu rendezvous through rank 0's bounce zones\n", size, bounced);
  MPI_T_pvar_handle_free(session, &bounce);
  MPI_T_pvar_session_free(&session);
  MPI_T_finalize();
  MPI_Finalize();
  return 0;
}
