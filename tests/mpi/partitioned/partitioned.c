/* Partitioned communication (MPI 4.1 chapter 4): every rank sends to the next and receives from
 * the previous one, for many rounds of one pair of persistent partitioned requests. Partitions are
 * marked ready by several threads at once (MPI_THREAD_MULTIPLE), each in reverse or shuffled order
 * with MPI_Pready, MPI_Pready_range and MPI_Pready_list; the receiver checks each partition byte
 * for byte as soon as MPI_Parrived reports it, and the whole buffer after MPI_Wait. Also: sender
 * and receiver partitioned differently (and with different, non-contiguous datatypes), sizes that
 * differ (both waits fail), MPI_PROC_NULL, and misuse answered with error codes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "tests/mpi/check.h"

enum { kThreads = 4, kRounds = 40 };

static int rank, size;

static int value_at(int round, int sender, int i) { return (round * 7919 + sender * 104729 + i * 31) ^ 0x5a5a; }

struct marker {
  MPI_Request request;
  int partitions;
  int thread;
  int round;
};

/* Marks the partitions p with p % kThreads == thread: reversed, shuffled, or as ranges and lists,
 * depending on the round. */
static void* mark(void* arg) {
  struct marker* m = arg;
  int mine[256], n = 0;
  for (int p = m->partitions - 1; p >= 0; --p) {
    if (p % kThreads == m->thread) mine[n++] = p;
  }
  unsigned seed = (unsigned)(m->round * 131 + m->thread * 17 + rank);
  switch (m->round % 3) {
    case 0: /* reverse order, one at a time */
      for (int i = 0; i < n; ++i) MPI_OK(MPI_Pready(mine[i], m->request));
      break;
    case 1: /* shuffled, as one-element ranges */
      for (int i = n - 1; i > 0; --i) {
        int j = (int)(rand_r(&seed) % (unsigned)(i + 1)), t = mine[i];
        mine[i] = mine[j];
        mine[j] = t;
      }
      for (int i = 0; i < n; ++i) MPI_OK(MPI_Pready_range(mine[i], mine[i], m->request));
      break;
    default: /* the whole list at once */
      MPI_OK(MPI_Pready_list(n, mine, m->request));
      break;
  }
  return NULL;
}

/* Same partitioning on both sides: 16 partitions of 1000 ints. */
static void same_partitions(void) {
  enum { kParts = 16, kCount = 1000 };
  int* out = malloc(sizeof(int) * kParts * kCount);
  int* in = malloc(sizeof(int) * kParts * kCount);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Request send, recv;
  MPI_OK(MPI_Psend_init(out, kParts, kCount, MPI_INT, next, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &send));
  MPI_OK(MPI_Precv_init(in, kParts, kCount, MPI_INT, prev, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &recv));
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kParts * kCount; ++i) out[i] = value_at(round, rank, i);
    memset(in, 0xff, sizeof(int) * kParts * kCount);
    MPI_Request both[2] = {recv, send};
    MPI_OK(MPI_Startall(2, both));
    pthread_t threads[kThreads];
    struct marker markers[kThreads];
    for (int t = 0; t < kThreads; ++t) {
      markers[t] = (struct marker){send, kParts, t, round};
      CHECK_EQ(pthread_create(&threads[t], NULL, mark, &markers[t]), 0);
    }
    /* Each partition is checked as soon as it is reported, in a shuffled polling order. */
    int seen[kParts] = {0}, n_seen = 0;
    unsigned seed = (unsigned)(round + rank * 1000);
    while (n_seen < kParts) {
      int p = (int)(rand_r(&seed) % kParts), flag = 0;
      if (seen[p]) continue;
      MPI_OK(MPI_Parrived(recv, p, &flag));
      if (!flag) continue;
      for (int i = p * kCount; i < (p + 1) * kCount; ++i) CHECK_EQ(in[i], value_at(round, prev, i));
      seen[p] = 1;
      ++n_seen;
    }
    for (int t = 0; t < kThreads; ++t) CHECK_EQ(pthread_join(threads[t], NULL), 0);
    MPI_Status status;
    MPI_OK(MPI_Wait(&recv, &status));
    CHECK_EQ(status.MPI_SOURCE, prev);
    CHECK_EQ(status.MPI_TAG, 5);
    int count = -1;
    MPI_OK(MPI_Get_count(&status, MPI_INT, &count));
    CHECK_EQ(count, kParts * kCount);
    MPI_OK(MPI_Wait(&send, MPI_STATUS_IGNORE));
    CHECK(recv != MPI_REQUEST_NULL && send != MPI_REQUEST_NULL); /* persistent: still there */
    for (int i = 0; i < kParts * kCount; ++i) CHECK_EQ(in[i], value_at(round, prev, i));
  }
  MPI_OK(MPI_Request_free(&send));
  MPI_OK(MPI_Request_free(&recv));
  CHECK_EQ(send, MPI_REQUEST_NULL);
  free(out);
  free(in);
}

/* The sender: 8 partitions of 48 elements of a strided type (2 doubles, one apart); the receiver:
 * 12 partitions of 32 pairs of doubles. Same 768 doubles. */
static void different_partitions(void) {
  enum { kDoubles = 768 };
  MPI_Datatype strided, pair;
  MPI_OK(MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &strided)); /* extent 3 doubles, 2 of data */
  MPI_OK(MPI_Type_commit(&strided));
  MPI_OK(MPI_Type_contiguous(2, MPI_DOUBLE, &pair));
  MPI_OK(MPI_Type_commit(&pair));
  double* out = malloc(sizeof(double) * kDoubles / 2 * 3);
  double* in = malloc(sizeof(double) * kDoubles);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Request send, recv;
  MPI_OK(MPI_Psend_init(out, 8, 48, strided, next, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &send));
  MPI_OK(MPI_Precv_init(in, 12, 32, pair, prev, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &recv));
  for (int round = 0; round < 10; ++round) {
    for (int e = 0; e < kDoubles / 2; ++e) { /* element e holds data 2e and 2e + 1; the gap is junk */
      out[3 * e] = value_at(round, rank, 2 * e);
      out[3 * e + 1] = -1.0;
      out[3 * e + 2] = value_at(round, rank, 2 * e + 1);
    }
    memset(in, 0, sizeof(double) * kDoubles);
    MPI_OK(MPI_Start(&recv));
    MPI_OK(MPI_Start(&send));
    for (int p = 7; p >= 0; --p) {
      MPI_OK(MPI_Pready(p, send));
      /* Receive partition j needs send partitions covering its bytes: 12 receive partitions of 64
       * doubles over 8 of 96; once send partitions p..7 are ready, receive partitions from
       * ceil(p * 96 / 64) on have arrived (eventually). */
      int first = (p * 96 + 63) / 64;
      for (int j = first; j < 12; ++j) {
        int flag = 0;
        while (!flag) MPI_OK(MPI_Parrived(recv, j, &flag));
        for (int i = j * 64; i < (j + 1) * 64; ++i) CHECK(in[i] == (double)value_at(round, prev, i));
      }
    }
    MPI_OK(MPI_Wait(&send, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&recv, MPI_STATUS_IGNORE));
    for (int i = 0; i < kDoubles; ++i) CHECK(in[i] == (double)value_at(round, prev, i));
  }
  MPI_OK(MPI_Request_free(&send));
  MPI_OK(MPI_Request_free(&recv));
  MPI_OK(MPI_Type_free(&strided));
  MPI_OK(MPI_Type_free(&pair));
  free(out);
  free(in);
}

/* Sizes that differ: the round fails on both sides with MPI_ERR_TRUNCATE (the send is larger),
 * reported by the waits; MPI_Pready_range itself succeeds, also when the peers have learnt each
 * other's sizes before it (`settle`: two barriers let the hellos of the init calls arrive). */
static void size_mismatch(MPI_Comm comm, int settle) {
  int out[40], in[32];
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Request send, recv;
  MPI_OK(MPI_Psend_init(out, 4, 10, MPI_INT, next, 7, comm, MPI_INFO_NULL, &send));
  MPI_OK(MPI_Precv_init(in, 4, 8, MPI_INT, prev, 7, comm, MPI_INFO_NULL, &recv));
  MPI_OK(MPI_Start(&recv));
  MPI_OK(MPI_Start(&send));
  if (settle) {
    MPI_OK(MPI_Barrier(comm));
    MPI_OK(MPI_Barrier(comm));
  }
  MPI_OK(MPI_Pready_range(0, 3, send));
  int code = MPI_Wait(&send, MPI_STATUS_IGNORE), eclass;
  MPI_OK(MPI_Error_class(code, &eclass));
  CHECK_EQ(eclass, MPI_ERR_TRUNCATE);
  code = MPI_Wait(&recv, MPI_STATUS_IGNORE);
  MPI_OK(MPI_Error_class(code, &eclass));
  CHECK_EQ(eclass, MPI_ERR_TRUNCATE);
  MPI_OK(MPI_Request_free(&send));
  MPI_OK(MPI_Request_free(&recv));
}

/* Misuse answered with error codes; MPI_PROC_NULL. */
static void misuse(MPI_Comm comm) {
  int buf[8] = {0};
  MPI_Request send, recv, nul;
  CHECK_EQ(MPI_Precv_init(buf, 2, 4, MPI_INT, MPI_ANY_SOURCE, 1, comm, MPI_INFO_NULL, &recv), MPI_ERR_RANK);
  CHECK_EQ(MPI_Precv_init(buf, 2, 4, MPI_INT, 0, MPI_ANY_TAG, comm, MPI_INFO_NULL, &recv), MPI_ERR_TAG);
  CHECK_EQ(MPI_Psend_init(buf, 0, 4, MPI_INT, 0, 1, comm, MPI_INFO_NULL, &send), MPI_ERR_ARG);
  CHECK_EQ(MPI_Psend_init(buf, 2, -1, MPI_INT, 0, 1, comm, MPI_INFO_NULL, &send), MPI_ERR_COUNT);
  MPI_OK(MPI_Psend_init(buf, 2, 4, MPI_INT, MPI_PROC_NULL, 1, comm, MPI_INFO_NULL, &nul));
  CHECK_EQ(MPI_Pready(0, nul), MPI_ERR_REQUEST); /* not started */
  MPI_OK(MPI_Start(&nul));
  CHECK_EQ(MPI_Pready(2, nul), MPI_ERR_ARG); /* out of range */
  MPI_OK(MPI_Pready_range(0, 1, nul));
  int flag = 0;
  CHECK_EQ(MPI_Parrived(nul, 0, &flag), MPI_ERR_REQUEST); /* a send request */
  MPI_OK(MPI_Wait(&nul, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Request_free(&nul));

  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int out[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  MPI_OK(MPI_Psend_init(out, 2, 4, MPI_INT, next, 9, comm, MPI_INFO_NULL, &send));
  MPI_OK(MPI_Precv_init(buf, 2, 4, MPI_INT, prev, 9, comm, MPI_INFO_NULL, &recv));
  MPI_OK(MPI_Start(&recv));
  MPI_OK(MPI_Start(&send));
  CHECK_EQ(MPI_Start(&send), MPI_ERR_REQUEST); /* already active */
  MPI_OK(MPI_Pready(1, send));
  CHECK_EQ(MPI_Pready(1, send), MPI_ERR_ARG); /* twice in one round */
  CHECK_EQ(MPI_Pready_range(1, 0, send), MPI_ERR_ARG);
  int list[2] = {0, 5};
  CHECK_EQ(MPI_Pready_list(2, list, send), MPI_ERR_ARG); /* 5 is out of range: nothing marked */
  CHECK_EQ(MPI_Pready(0, recv), MPI_ERR_REQUEST);       /* a receive request */
  CHECK_EQ(MPI_Parrived(recv, -1, &flag), MPI_ERR_ARG);
  MPI_OK(MPI_Pready_list(1, list, send));
  MPI_OK(MPI_Wait(&send, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Wait(&recv, MPI_STATUS_IGNORE));
  for (int i = 0; i < 8; ++i) CHECK_EQ(buf[i], i + 1);
  MPI_OK(MPI_Request_free(&send));
  MPI_OK(MPI_Request_free(&recv));
}

int main(int argc, char** argv) {
  int provided;
  MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  CHECK_EQ(provided, MPI_THREAD_MULTIPLE);
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  same_partitions();
  different_partitions();
  MPI_Comm errors;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &errors));
  MPI_OK(MPI_Comm_set_errhandler(errors, MPI_ERRORS_RETURN));
  size_mismatch(errors, 0);
  size_mismatch(errors, 1);
  misuse(errors);
  MPI_OK(MPI_Comm_free(&errors));
  MPI_OK(MPI_Finalize());
  return 0;
}
