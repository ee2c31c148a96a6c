/* probe / iprobe / mprobe / improbe / mrecv / imrecv: every rank floods rank 0 (and its right
 * neighbour) with messages of sizes it cannot predict; receivers size buffers from the probe and
 * check contents, status and per-source order. Matched messages (mprobe) cannot be stolen by a
 * receive posted afterwards. */
#include <string.h>

#include "check.h"

enum { kMsgs = 120 };

static int msg_len(int src, int i) { return (i * 37 + src * 11) % 5 == 0 ? 20000 + i : 1 + (i * 7 + src) % 90; }

static void send_all(int rank, int dest) {
  for (int i = 0; i < kMsgs; ++i) {
    int n = msg_len(rank, i);
    int* b = malloc(sizeof(int) * (size_t)n);
    for (int k = 0; k < n; ++k) b[k] = rank * 7 + i * 3 + k;
    b[0] = i;
    MPI_OK(MPI_Send(b, n, MPI_INT, dest, i % 4, MPI_COMM_WORLD));
    free(b);
  }
}

static void check_msg(const int* b, int n, int src, int i) {
  CHECK_EQ(b[0], i);
  CHECK_EQ(n, msg_len(src, i));
  for (int k = 1; k < n; ++k) CHECK_EQ(b[k], src * 7 + i * 3 + k);
}

/* Every completion call that returns one status (recv, sendrecv, wait, test, waitany, testany,
 * request_get_status, and a null request's empty status) and every call returning several that
 * does not return MPI_ERR_IN_STATUS (waitall, testall, waitsome, testsome) leaves each status's
 * MPI_ERROR as the caller set it (MPI 4.1 section 3.2.5: the field is written if and only if
 * MPI_ERR_IN_STATUS is returned). Each case receives one message from the left neighbour and
 * checks its source and tag too. */
enum { kKeptCases = 11 };

static void completion_keeps_error_field(int rank, int size) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  MPI_Comm comm;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  for (int k = 0; k < kKeptCases; ++k) {
    int v = 1000 * k + rank, got = -1, flag = 0, index = -1, outcount = -1, indices[2];
    MPI_Request send, recv[2];
    MPI_Status st[2];
    const int sentinel = 7000 + k;
    st[0].MPI_ERROR = st[1].MPI_ERROR = sentinel;
    if (k != 1) MPI_OK(MPI_Isend(&v, 1, MPI_INT, next, 200 + k, comm, &send));
    if (k >= 2) MPI_OK(MPI_Irecv(&got, 1, MPI_INT, prev, 200 + k, comm, &recv[0]));
    recv[1] = MPI_REQUEST_NULL;
    switch (k) {
      case 0: MPI_OK(MPI_Recv(&got, 1, MPI_INT, prev, 200, comm, &st[0])); break;
      case 1:
        MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, next, 201, &got, 1, MPI_INT, prev, 201, comm, &st[0]));
        break;
      case 2: MPI_OK(MPI_Wait(&recv[0], &st[0])); break;
      case 3: while (!flag) MPI_OK(MPI_Test(&recv[0], &flag, &st[0])); break;
      case 4: MPI_OK(MPI_Waitany(2, recv, &index, &st[0])); CHECK_EQ(index, 0); break;
      case 5:
        while (!flag) MPI_OK(MPI_Testany(2, recv, &index, &flag, &st[0]));
        CHECK_EQ(index, 0);
        break;
      case 6: MPI_OK(MPI_Waitall(2, recv, st)); break;
      case 7: while (!flag) MPI_OK(MPI_Testall(2, recv, &flag, st)); break;
      case 8: MPI_OK(MPI_Waitsome(2, recv, &outcount, indices, st)); CHECK_EQ(outcount, 1); break;
      case 9:
        do MPI_OK(MPI_Testsome(2, recv, &outcount, indices, st)); while (outcount == 0);
        CHECK_EQ(outcount, 1);
        break;
      case 10:
        while (!flag) MPI_OK(MPI_Request_get_status(recv[0], &flag, &st[0]));
        CHECK_EQ(st[0].MPI_ERROR, sentinel);
        MPI_OK(MPI_Wait(&recv[0], MPI_STATUS_IGNORE));
        /* A null request's empty status: source and tag are the wildcards, MPI_ERROR kept. */
        MPI_OK(MPI_Wait(&recv[1], &st[1]));
        CHECK_EQ(st[1].MPI_SOURCE, MPI_ANY_SOURCE);
        CHECK_EQ(st[1].MPI_TAG, MPI_ANY_TAG);
        break;
    }
    CHECK_EQ(got, 1000 * k + prev);
    CHECK_EQ(st[0].MPI_SOURCE, prev);
    CHECK_EQ(st[0].MPI_TAG, 200 + k);
    CHECK_EQ(st[0].MPI_ERROR, sentinel);
    CHECK_EQ(st[1].MPI_ERROR, sentinel);
    if (k != 1) MPI_OK(MPI_Wait(&send, MPI_STATUS_IGNORE));
  }
  MPI_OK(MPI_Comm_free(&comm));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) {
    send_all(rank, 0);
  } else {
    int next[64] = {0};
    int total = kMsgs * (size - 1);
    for (int m = 0; m < total; ++m) {
      MPI_Status st;
      int n, mode = m % 4;
      int* b;
      if (mode == 0) { /* probe + recv from the probed source and tag */
        MPI_OK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        MPI_Get_count(&st, MPI_INT, &n);
        b = malloc(sizeof(int) * (size_t)n);
        MPI_Status st2;
        MPI_OK(MPI_Recv(b, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2));
        CHECK_EQ(st2.MPI_SOURCE, st.MPI_SOURCE);
      } else if (mode == 1) { /* iprobe loop */
        int flag = 0;
        while (!flag) MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        MPI_Get_count(&st, MPI_INT, &n);
        b = malloc(sizeof(int) * (size_t)n);
        MPI_OK(MPI_Recv(b, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      } else if (mode == 2) { /* mprobe + a decoy receive posted before mrecv + mrecv */
        MPI_Message msg;
        MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
        CHECK(msg != MPI_MESSAGE_NULL);
        MPI_Get_count(&st, MPI_INT, &n);
        b = malloc(sizeof(int) * (size_t)n);
        MPI_Status st2;
        MPI_OK(MPI_Mrecv(b, n, MPI_INT, &msg, &st2));
        CHECK_EQ(msg, MPI_MESSAGE_NULL);
        CHECK_EQ(st2.MPI_SOURCE, st.MPI_SOURCE);
        CHECK_EQ(st2.MPI_TAG, st.MPI_TAG);
      } else { /* improbe loop + imrecv */
        MPI_Message msg;
        int flag = 0;
        while (!flag) MPI_OK(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
        MPI_Get_count(&st, MPI_INT, &n);
        b = malloc(sizeof(int) * (size_t)n);
        MPI_Request r;
        MPI_OK(MPI_Imrecv(b, n, MPI_INT, &msg, &r));
        MPI_Status st2;
        MPI_OK(MPI_Wait(&r, &st2));
        CHECK_EQ(st2.MPI_SOURCE, st.MPI_SOURCE);
        int n2;
        MPI_Get_count(&st2, MPI_INT, &n2);
        CHECK_EQ(n2, n);
      }
      int src = st.MPI_SOURCE;
      CHECK(src >= 1 && src < size);
      CHECK_EQ(st.MPI_TAG, next[src] % 4);
      check_msg(b, n, src, next[src]);
      next[src]++;
      free(b);
    }
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  /* An mprobe'd message is out of the queue: a wildcard receive posted next gets the next one. */
  if (size >= 2 && rank < 2) {
    if (rank == 1) {
      int a = 1, b = 2; /* non-blocking: the second must be sent before the first is received */
      MPI_Request r[2];
      MPI_OK(MPI_Isend(&a, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[0]));
      MPI_OK(MPI_Isend(&b, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, &r[1]));
      MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
    } else {
      MPI_Message m;
      MPI_Status st;
      MPI_OK(MPI_Mprobe(1, 0, MPI_COMM_WORLD, &m, &st));
      int x = 0, y = 0;
      MPI_OK(MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      MPI_OK(MPI_Mrecv(&x, 1, MPI_INT, &m, &st));
      CHECK_EQ(x, 1);
      CHECK_EQ(y, 2);
    }
  }
  /* Calls completing one operation leave the status's MPI_ERROR as the caller set it (MPI 4.1
   * section 3.2.5): probe, iprobe, mprobe, improbe, mrecv. */
  {
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int v = 40 + rank, got = -1, flag = 0;
    MPI_Request r;
    MPI_Message m;
    MPI_Status st;
    MPI_Comm comm; /* its own: the wildcard receive above cannot take these */
    MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    MPI_OK(MPI_Isend(&v, 1, MPI_INT, next, 7, comm, &r));
    st.MPI_ERROR = 12345;
    MPI_OK(MPI_Probe(prev, 7, comm, &st));
    CHECK_EQ(st.MPI_ERROR, 12345);
    st.MPI_ERROR = 12346;
    while (!flag) MPI_OK(MPI_Iprobe(prev, 7, comm, &flag, &st));
    CHECK_EQ(st.MPI_ERROR, 12346);
    st.MPI_ERROR = 12347;
    MPI_OK(MPI_Mprobe(prev, 7, comm, &m, &st));
    CHECK_EQ(st.MPI_ERROR, 12347);
    CHECK_EQ(st.MPI_SOURCE, prev);
    st.MPI_ERROR = 12348;
    MPI_OK(MPI_Mrecv(&got, 1, MPI_INT, &m, &st));
    CHECK_EQ(st.MPI_ERROR, 12348);
    CHECK_EQ(got, 40 + prev);
    CHECK_EQ(st.MPI_TAG, 7);
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Isend(&v, 1, MPI_INT, next, 8, comm, &r));
    flag = 0;
    st.MPI_ERROR = 12349;
    while (!flag) MPI_OK(MPI_Improbe(prev, 8, comm, &flag, &m, &st));
    CHECK_EQ(st.MPI_ERROR, 12349);
    MPI_OK(MPI_Mrecv(&got, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
    CHECK_EQ(got, 40 + prev);
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_free(&comm));
  }
  completion_keeps_error_field(rank, size);
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("probe: ok on %d ranks\n", size);
  return 0;
}
