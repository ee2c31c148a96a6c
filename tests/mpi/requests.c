/* Persistent requests (every mode), wait/test families (all/any/some), MPI_Request_get_status,
 * MPI_Request_free, cancel of receives and of sends (unmatched: gone; matched: delivered),
 * generalized requests, MPI_PROC_NULL, sendrecv and sendrecv_replace — data and status fields
 * checked. */
#include <string.h>

#include "check.h"

static void persistent(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  enum { kN = 30000 };
  int* out = malloc(sizeof(int) * kN);
  int* in = malloc(sizeof(int) * kN);
  int bufsize = kN * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
  void* attached = malloc((size_t)bufsize);
  MPI_OK(MPI_Buffer_attach(attached, bufsize));
  for (int variant = 0; variant < 4; ++variant) {
    int count = variant % 2 ? kN : 3;
    MPI_Request req[2];
    MPI_OK(MPI_Recv_init(in, kN, MPI_INT, left, 7, MPI_COMM_WORLD, &req[0]));
    switch (variant) {
      case 0: MPI_OK(MPI_Send_init(out, count, MPI_INT, right, 7, MPI_COMM_WORLD, &req[1])); break;
      case 1: MPI_OK(MPI_Ssend_init(out, count, MPI_INT, right, 7, MPI_COMM_WORLD, &req[1])); break;
      case 2: MPI_OK(MPI_Bsend_init(out, count, MPI_INT, right, 7, MPI_COMM_WORLD, &req[1])); break;
      case 3: MPI_OK(MPI_Rsend_init(out, count, MPI_INT, right, 7, MPI_COMM_WORLD, &req[1])); break;
    }
    /* inactive persistent requests complete at once with an empty status */
    MPI_Status st;
    MPI_OK(MPI_Wait(&req[0], &st));
    CHECK(req[0] != MPI_REQUEST_NULL);
    CHECK_EQ(st.MPI_SOURCE, MPI_ANY_SOURCE);
    CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
    for (int iter = 0; iter < 10; ++iter) {
      for (int i = 0; i < count; ++i) out[i] = rank * 100000 + iter * 1000 + i;
      MPI_OK(MPI_Start(&req[0]));
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* ready mode: every receive is posted */
      MPI_OK(MPI_Startall(1, &req[1]));
      MPI_Status sts[2];
      MPI_OK(MPI_Waitall(2, req, sts));
      CHECK(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL);
      CHECK_EQ(sts[0].MPI_SOURCE, left);
      CHECK_EQ(sts[0].MPI_TAG, 7);
      int got;
      MPI_Get_count(&sts[0], MPI_INT, &got);
      CHECK_EQ(got, count);
      for (int i = 0; i < count; ++i) CHECK_EQ(in[i], left * 100000 + iter * 1000 + i);
    }
    MPI_OK(MPI_Request_free(&req[0]));
    MPI_OK(MPI_Request_free(&req[1]));
    CHECK_EQ(req[0], MPI_REQUEST_NULL);
  }
  void* back;
  int back_size;
  MPI_OK(MPI_Buffer_detach(&back, &back_size));
  free(attached);
  free(out);
  free(in);
}

static void families(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  enum { kR = 6 };
  int in[kR], out[kR];
  MPI_Request req[kR];
  /* Waitany / Testany: receives of tags 0..kR-1, sent in reverse order. */
  for (int i = 0; i < kR; ++i) MPI_OK(MPI_Irecv(&in[i], 1, MPI_INT, left, i, MPI_COMM_WORLD, &req[i]));
  for (int i = kR - 1; i >= 0; --i) {
    out[i] = rank * 10 + i;
    MPI_OK(MPI_Send(&out[i], 1, MPI_INT, right, i, MPI_COMM_WORLD));
  }
  int seen = 0;
  for (int k = 0; k < kR; ++k) {
    int index;
    MPI_Status st;
    if (k % 2) {
      MPI_OK(MPI_Waitany(kR, req, &index, &st));
    } else {
      int flag = 0;
      while (!flag) MPI_OK(MPI_Testany(kR, req, &index, &flag, &st));
    }
    CHECK(index >= 0 && index < kR);
    CHECK_EQ(req[index], MPI_REQUEST_NULL);
    CHECK_EQ(st.MPI_TAG, index);
    CHECK_EQ(in[index], left * 10 + index);
    seen |= 1 << index;
  }
  CHECK_EQ(seen, (1 << kR) - 1);
  int index, flag;
  MPI_OK(MPI_Waitany(kR, req, &index, MPI_STATUS_IGNORE)); /* all null */
  CHECK_EQ(index, MPI_UNDEFINED);
  MPI_OK(MPI_Testany(kR, req, &index, &flag, MPI_STATUS_IGNORE));
  CHECK_EQ(flag, 1);
  CHECK_EQ(index, MPI_UNDEFINED);
  /* Waitsome / Testsome */
  for (int i = 0; i < kR; ++i) MPI_OK(MPI_Irecv(&in[i], 1, MPI_INT, left, 100 + i, MPI_COMM_WORLD, &req[i]));
  for (int i = 0; i < kR; ++i) MPI_OK(MPI_Send(&out[i], 1, MPI_INT, right, 100 + i, MPI_COMM_WORLD));
  int done = 0;
  while (done < kR) {
    int outcount, idx[kR];
    MPI_Status sts[kR];
    if (done % 2) {
      MPI_OK(MPI_Testsome(kR, req, &outcount, idx, sts));
    } else {
      MPI_OK(MPI_Waitsome(kR, req, &outcount, idx, sts));
      CHECK(outcount >= 1);
    }
    for (int j = 0; j < outcount; ++j) {
      CHECK_EQ(sts[j].MPI_TAG, 100 + idx[j]);
      CHECK_EQ(in[idx[j]], left * 10 + idx[j]);
    }
    done += outcount;
  }
  int outcount, idx[kR];
  MPI_OK(MPI_Waitsome(kR, req, &outcount, idx, MPI_STATUSES_IGNORE));
  CHECK_EQ(outcount, MPI_UNDEFINED);
  /* Testall turns true only when everything is done; Request_get_status does not free. */
  MPI_OK(MPI_Irecv(&in[0], 1, MPI_INT, left, 200, MPI_COMM_WORLD, &req[0]));
  MPI_OK(MPI_Testall(1, req, &flag, MPI_STATUSES_IGNORE));
  CHECK_EQ(flag, 0);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* nobody sends tag 200 before every Testall above */
  MPI_OK(MPI_Send(&out[0], 1, MPI_INT, right, 200, MPI_COMM_WORLD));
  flag = 0;
  MPI_Status st;
  while (!flag) MPI_OK(MPI_Request_get_status(req[0], &flag, &st));
  CHECK(req[0] != MPI_REQUEST_NULL);
  CHECK_EQ(st.MPI_TAG, 200);
  flag = 0;
  while (!flag) MPI_OK(MPI_Testall(1, req, &flag, &st));
  CHECK_EQ(req[0], MPI_REQUEST_NULL);
  CHECK_EQ(in[0], left * 10);
}

static void cancel_and_free(int rank, int size) {
  int x = 0;
  MPI_Request r;
  MPI_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 4241, MPI_COMM_WORLD, &r)); /* never sent */
  MPI_OK(MPI_Cancel(&r));
  MPI_Status st;
  MPI_OK(MPI_Wait(&r, &st));
  int flag = 0;
  MPI_OK(MPI_Test_cancelled(&st, &flag));
  CHECK_EQ(flag, 1);
  /* A message sent after a cancelled receive still reaches the next matching receive. */
  /* static: the freed send may still read it after this function returns (rendezvous) */
  static int v;
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  v = rank + 1;
  MPI_OK(MPI_Isend(&v, 1, MPI_INT, right, 4242, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Request_free(&r)); /* freed while (maybe) in flight: still delivered */
  MPI_OK(MPI_Recv(&x, 1, MPI_INT, left, 4242, MPI_COMM_WORLD, &st));
  CHECK_EQ(x, left + 1);
  MPI_OK(MPI_Test_cancelled(&st, &flag));
  CHECK_EQ(flag, 0);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); /* every freed send has been received: v may change */
}

static void fill(int* buf, int n, int rank, int round) {
  for (int i = 0; i < n; ++i) buf[i] = rank * 1000003 + round * 7919 + i;
}

static void check_filled(const int* buf, int n, int rank, int round) {
  for (int i = 0; i < n; ++i) CHECK_EQ(buf[i], rank * 1000003 + round * 7919 + i);
}

static int cancelled(MPI_Status* st) {
  int flag = -1;
  MPI_OK(MPI_Test_cancelled(st, &flag));
  return flag;
}

/* Sends a token to `to` and waits for one from `from` (non-blocking send: every rank does this at
 * once). Tells the right neighbour that this rank's cancels are answered (only then may a receive
 * matching its cancelled messages be posted), or the left one that its message was received. */
static void pass_token(int from, int to, int tag) {
  int token = 0;
  MPI_Request r;
  MPI_OK(MPI_Isend(&token, 1, MPI_INT, to, tag, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Recv(&token, 1, MPI_INT, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
}

/* Sends `n` ints of `out` non-contiguously (one int in every two of a scratch copy): a standard
 * send of contiguous data may complete as it starts (mpi/p2p: no request to cancel, its
 * message carries no id; tests/mpi/completed_sends.c), a non-contiguous one keeps its request
 * and can be cancelled while the receiver has not matched it. */
static void isend_spaced(const int* out, int n, int* scratch, int dest, int tag, MPI_Request* r) {
  for (int i = 0; i < n; ++i) scratch[2 * i] = out[i];
  MPI_Datatype spaced;
  MPI_OK(MPI_Type_vector(n, 1, 2, MPI_INT, &spaced));
  MPI_OK(MPI_Type_commit(&spaced));
  MPI_OK(MPI_Isend(scratch, 1, spaced, dest, tag, MPI_COMM_WORLD, r));
  MPI_OK(MPI_Type_free(&spaced));
}

/* Cancel of sends, to the right neighbour, eager and rendezvous sized, standard (non-contiguous:
 * isend_spaced) / synchronous / persistent: unmatched ones are gone at the receiver (the next
 * message with the same envelope is received instead); one the receiver matched completes
 * normally, and so does a contiguous standard send that completed as it started. */
static void cancel_sends(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  enum { kBig = 1 << 16 };
  int* out = malloc(sizeof(int) * kBig);
  int* in = malloc(sizeof(int) * kBig);
  int* scratch = malloc(sizeof(int) * 2 * kBig);
  const int counts[2] = {4, kBig}; /* eager, rendezvous */
  MPI_Status st;
  for (int c = 0; c < 2; ++c) {
    int n = counts[c];
    for (int mode = 0; mode < 3; ++mode) {
      int round = c * 10 + mode;
      /* unmatched: cancelled */
      MPI_Request r;
      fill(out, n, rank, round);
      if (mode == 0) isend_spaced(out, n, scratch, right, 50, &r);
      if (mode == 1) MPI_OK(MPI_Issend(out, n, MPI_INT, right, 50, MPI_COMM_WORLD, &r));
      if (mode == 2) {
        MPI_OK(MPI_Send_init(out, n, MPI_INT, right, 50, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Start(&r));
      }
      MPI_OK(MPI_Cancel(&r));
      MPI_OK(MPI_Wait(&r, &st));
      CHECK_EQ(cancelled(&st), 1);
      pass_token(left, right, 51);
      /* the next message with the same envelope is the one received (a persistent request
         sends it once more) */
      MPI_Request again;
      fill(out, n, rank, round + 100);
      if (mode == 2) {
        MPI_OK(MPI_Start(&r));
        again = r;
      } else {
        MPI_OK(MPI_Isend(out, n, MPI_INT, right, 50, MPI_COMM_WORLD, &again));
      }
      memset(in, 0, sizeof(int) * (size_t)n);
      MPI_OK(MPI_Recv(in, kBig, MPI_INT, left, 50, MPI_COMM_WORLD, &st));
      CHECK_EQ(st.MPI_SOURCE, left);
      int got = 0;
      MPI_OK(MPI_Get_count(&st, MPI_INT, &got));
      CHECK_EQ(got, n);
      check_filled(in, n, left, round + 100);
      MPI_OK(MPI_Wait(&again, &st));
      CHECK_EQ(cancelled(&st), 0);
      if (mode == 2) MPI_OK(MPI_Request_free(&r));

      /* matched (the receiver says so before the cancel): completes normally */
      fill(out, n, rank, round + 200);
      if (mode == 1) {
        MPI_OK(MPI_Issend(out, n, MPI_INT, right, 52, MPI_COMM_WORLD, &r));
      } else {
        MPI_OK(MPI_Isend(out, n, MPI_INT, right, 52, MPI_COMM_WORLD, &r));
      }
      MPI_OK(MPI_Recv(in, kBig, MPI_INT, left, 52, MPI_COMM_WORLD, &st));
      check_filled(in, n, left, round + 200);
      pass_token(right, left, 53);
      MPI_OK(MPI_Cancel(&r));
      MPI_OK(MPI_Wait(&r, &st));
      CHECK_EQ(cancelled(&st), 0);
    }
  }
  /* Many cancelled eager sends give the receiver's budget back (an accounting error ends the
     job), and later traffic still flows in order. */
  for (int i = 0; i < 300; ++i) {
    MPI_Request r;
    isend_spaced(out, 256, scratch, right, 54, &r);
    MPI_OK(MPI_Cancel(&r));
    MPI_OK(MPI_Wait(&r, &st));
    CHECK_EQ(cancelled(&st), 1);
  }
  pass_token(left, right, 51);
  for (int i = 0; i < 3; ++i) {
    MPI_Request r;
    fill(out, 256, rank, 300 + i);
    MPI_OK(MPI_Isend(out, 256, MPI_INT, right, 54, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Recv(in, 256, MPI_INT, left, 54, MPI_COMM_WORLD, &st));
    check_filled(in, 256, left, 300 + i);
    MPI_OK(MPI_Wait(&r, &st));
  }
  free(out);
  free(in);
  free(scratch);
}

static void proc_null(void) {
  int x = 5;
  MPI_Status st;
  MPI_OK(MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD));
  MPI_OK(MPI_Recv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st));
  CHECK_EQ(x, 5);
  CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK_EQ(count, 0);
  MPI_Request r;
  MPI_OK(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Wait(&r, &st));
  CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  int flag = 0;
  MPI_OK(MPI_Iprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &flag, &st));
  CHECK_EQ(flag, 1);
  CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  MPI_Message m;
  MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st));
  CHECK_EQ(m, MPI_MESSAGE_NO_PROC);
  MPI_OK(MPI_Mrecv(&x, 1, MPI_INT, &m, &st));
  CHECK_EQ(m, MPI_MESSAGE_NULL);
  CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  MPI_OK(MPI_Sendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  MPI_OK(MPI_Send_init(&x, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Start(&r));
  MPI_OK(MPI_Wait(&r, &st));
  MPI_OK(MPI_Request_free(&r));
}

static void sendrecv(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  enum { kN = 50000 };
  double* a = malloc(sizeof(double) * kN);
  double* b = malloc(sizeof(double) * kN);
  for (int i = 0; i < kN; ++i) a[i] = rank + i * 0.5;
  MPI_Status st;
  MPI_OK(MPI_Sendrecv(a, kN, MPI_DOUBLE, right, 3, b, kN, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &st));
  CHECK_EQ(st.MPI_SOURCE, left);
  for (int i = 0; i < kN; ++i) CHECK(b[i] == left + i * 0.5);
  for (int n = 1; n <= kN; n *= 100) {
    for (int i = 0; i < n; ++i) a[i] = rank * 2.0 + i;
    MPI_OK(MPI_Sendrecv_replace(a, n, MPI_DOUBLE, right, 4, left, 4, MPI_COMM_WORLD, &st));
    CHECK_EQ(st.MPI_SOURCE, left);
    CHECK_EQ(st.MPI_TAG, 4);
    for (int i = 0; i < n; ++i) CHECK(a[i] == left * 2.0 + i);
  }
  free(a);
  free(b);
}

/* Generalized request completed by the application; the query function fills the status. */
static int g_query_calls, g_free_calls;
static int query_fn(void* extra, MPI_Status* st) {
  ++g_query_calls;
  st->MPI_SOURCE = *(int*)extra;
  st->MPI_TAG = 99;
  MPI_Status_set_cancelled(st, 0);
  MPI_Status_set_elements(st, MPI_INT, 3);
  return MPI_SUCCESS;
}
static int free_fn(void* extra) {
  ++g_free_calls;
  return MPI_SUCCESS;
}
static int cancel_fn(void* extra, int complete) { return MPI_SUCCESS; }

static void generalized(void) {
  int extra = 17;
  MPI_Request r;
  MPI_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &extra, &r));
  int flag = 1;
  MPI_Status st;
  MPI_OK(MPI_Test(&r, &flag, &st));
  CHECK_EQ(flag, 0);
  MPI_OK(MPI_Grequest_complete(r));
  MPI_OK(MPI_Wait(&r, &st));
  CHECK_EQ(r, MPI_REQUEST_NULL);
  CHECK_EQ(st.MPI_SOURCE, 17);
  CHECK_EQ(st.MPI_TAG, 99);
  int count;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK_EQ(count, 3);
  CHECK_EQ(g_query_calls, 1);
  CHECK_EQ(g_free_calls, 1);
}

/* MPI_Info objects: set/get/overwrite/delete, key order, dup, free; errors for missing keys. */
static void info(void) {
  MPI_Info in, copy;
  MPI_OK(MPI_Info_create(&in));
  MPI_OK(MPI_Info_set(in, "alpha", "1"));
  MPI_OK(MPI_Info_set(in, "beta", "two"));
  MPI_OK(MPI_Info_set(in, "alpha", "one"));
  int n, flag, len;
  MPI_OK(MPI_Info_get_nkeys(in, &n));
  CHECK_EQ(n, 2);
  char key[MPI_MAX_INFO_KEY + 1], value[MPI_MAX_INFO_VAL + 1];
  MPI_OK(MPI_Info_get_nthkey(in, 1, key));
  CHECK(strcmp(key, "beta") == 0);
  MPI_OK(MPI_Info_get(in, "alpha", MPI_MAX_INFO_VAL, value, &flag));
  CHECK(flag && strcmp(value, "one") == 0);
  MPI_OK(MPI_Info_get_valuelen(in, "beta", &len, &flag));
  CHECK(flag && len == 3);
  MPI_OK(MPI_Info_dup(in, &copy));
  MPI_OK(MPI_Info_delete(in, "alpha"));
  MPI_OK(MPI_Info_get(in, "alpha", MPI_MAX_INFO_VAL, value, &flag));
  CHECK_EQ(flag, 0);
  MPI_OK(MPI_Info_get(copy, "alpha", MPI_MAX_INFO_VAL, value, &flag));
  CHECK(flag && strcmp(value, "one") == 0);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_EQ(MPI_Info_delete(in, "alpha"), MPI_ERR_INFO_NOKEY);
  CHECK_EQ(MPI_Info_set(in, "", "x"), MPI_ERR_INFO_KEY);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  MPI_OK(MPI_Info_free(&in));
  MPI_OK(MPI_Info_free(&copy));
  CHECK_EQ(in, MPI_INFO_NULL);
  MPI_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &n));
  CHECK_EQ(n, 8);  /* command argv maxprocs soft host arch wdir thread_level (tests/launcher) */
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  persistent(rank, size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  families(rank, size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  cancel_and_free(rank, size);
  cancel_sends(rank, size);
  proc_null();
  sendrecv(rank, size);
  generalized();
  info();
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("requests: ok on %d ranks\n", size);
  return 0;
}
