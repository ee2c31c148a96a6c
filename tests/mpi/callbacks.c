/* Every kind of user callback gasket runs calls back into MPI (under
 * MPI_THREAD_MULTIPLE the context lock was not re-entrant, so an attribute delete callback
 * calling MPI_Comm_free — as mpi4py's do — blocked forever):
 * - communicator attributes: copy (MPI_Comm_dup) and delete (MPI_Comm_free, MPI_Comm_delete_attr,
 *   MPI_Comm_set_attr replacing a value) callbacks calling MPI_Comm_free, MPI_Comm_rank,
 *   MPI_Type_size and a point-to-point exchange; a delete callback freeing its own communicator;
 * - datatype attributes: copy (MPI_Type_dup) and delete (MPI_Type_free, MPI_Type_delete_attr,
 *   MPI_Type_set_attr replacing a value) callbacks;
 * - window attributes: delete callbacks (MPI_Win_delete_attr, MPI_Win_free);
 * - user reduction ops (MPI_Allreduce, MPI_Reduce, MPI_Iallreduce, MPI_Scan, MPI_Reduce_local)
 *   calling MPI_Type_size, MPI_Comm_rank, MPI_Comm_dup/free and a send/receive (the non-blocking
 *   reduction's schedule was re-entered by the op's own progress and crashed);
 * - error handlers on communicators and windows (raised by a bad argument and by
 *   MPI_*_call_errhandler) calling MPI_Comm_rank, MPI_Error_string and MPI_Comm_free;
 * - generalized request query/free/cancel functions;
 * - the delete callback of an MPI_COMM_SELF attribute at MPI_Finalize (checked after it).
 * Under MULTIPLE a callback also blocks in MPI_Recv for a message that another thread of the same
 * rank sends: it completes only if callbacks run with the context lock released; and threads
 * free communicators whose delete callbacks free others, all at once.
 * Argument: the thread level (SINGLE, FUNNELED, SERIALIZED, MULTIPLE; default MULTIPLE). */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "check.h"

static int g_rank, g_size, g_level;
static int g_calls;  /* callbacks that ran (each checks its own MPI calls) */

/* What every callback does: MPI calls whose results it knows. */
static void call_into_mpi(void) {
  int rank = -1, size = 0;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_EQ(rank, g_rank);
  MPI_OK(MPI_Type_size(MPI_DOUBLE, &size));
  CHECK_EQ(size, 8);
  MPI_Comm dup;  /* mpi4py's delete callbacks free a communicator: make one and free it */
  MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &dup));
  MPI_OK(MPI_Comm_free(&dup));
  CHECK(dup == MPI_COMM_NULL);
  /* A point-to-point exchange with itself (waits inside a callback). */
  int out = 1000 + g_rank, in = -1;
  MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, 0, 7, &in, 1, MPI_INT, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE));
  CHECK_EQ(in, 1000 + g_rank);
  ++g_calls;
}

/* ---- MULTIPLE: a callback waits for a message another thread sends ---- */
static atomic_int g_want_message;
static void* send_when_asked(void* arg) {
  (void)arg;
  while (atomic_load(&g_want_message) == 0) sched_yield();
  int v = 4242;
  MPI_OK(MPI_Send(&v, 1, MPI_INT, 0, 99, MPI_COMM_SELF));
  return NULL;
}
static void receive_from_other_thread(void) {
  if (g_level != MPI_THREAD_MULTIPLE) return;
  pthread_t t;
  atomic_store(&g_want_message, 0);
  CHECK_EQ(pthread_create(&t, NULL, send_when_asked, NULL), 0);
  atomic_store(&g_want_message, 1);
  int v = 0;
  MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 99, MPI_COMM_SELF, MPI_STATUS_IGNORE));
  CHECK_EQ(v, 4242);
  CHECK_EQ(pthread_join(t, NULL), 0);
}

/* ---- communicator attributes ---- */
static int g_copies, g_deletes;
static int comm_copy(MPI_Comm old, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)keyval;
  CHECK(extra == &g_copies);
  int rank = -1;
  MPI_OK(MPI_Comm_rank(old, &rank));  /* the old communicator is usable inside */
  call_into_mpi();
  receive_from_other_thread();
  ++g_copies;
  *(void**)out = (char*)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}
static int comm_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm, (void)keyval, (void)value;
  CHECK(extra == &g_deletes || extra == &g_copies);
  call_into_mpi();
  receive_from_other_thread();
  ++g_deletes;
  return MPI_SUCCESS;
}
/* Frees the communicator it is attached to (the attribute value holds its handle). */
static int free_own_comm(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)keyval, (void)extra;
  MPI_Comm self = *(MPI_Comm*)value;
  CHECK(self == comm);
  MPI_OK(MPI_Comm_free(&self));
  ++g_deletes;
  return MPI_SUCCESS;
}

static void test_comm_attributes(void) {
  int key, key2;
  MPI_OK(MPI_Comm_create_keyval(comm_copy, comm_delete, &key, &g_copies));
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_delete, &key2, &g_deletes));
  MPI_Comm a;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  static char base[4];
  MPI_OK(MPI_Comm_set_attr(a, key, base));
  MPI_OK(MPI_Comm_set_attr(a, key2, base));
  MPI_Comm b;
  MPI_OK(MPI_Comm_dup(a, &b));  /* copy callback of key (key2's copies nothing) */
  CHECK_EQ(g_copies, 1);
  void* v = NULL;
  int flag = 0;
  MPI_OK(MPI_Comm_get_attr(b, key, &v, &flag));
  CHECK(flag && v == base + 1);
  MPI_OK(MPI_Comm_get_attr(b, key2, &v, &flag));
  CHECK(!flag);
  /* the new communicator works: a collective over it */
  int one = 1, sum = 0;
  MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, b));
  CHECK_EQ(sum, g_size);

  MPI_OK(MPI_Comm_set_attr(a, key2, base + 2));  /* replaces: delete callback of the old value */
  CHECK_EQ(g_deletes, 1);
  MPI_OK(MPI_Comm_get_attr(a, key2, &v, &flag));
  CHECK(flag && v == base + 2);
  MPI_OK(MPI_Comm_delete_attr(a, key2));
  CHECK_EQ(g_deletes, 2);
  MPI_OK(MPI_Comm_get_attr(a, key2, &v, &flag));
  CHECK(!flag);
  MPI_OK(MPI_Comm_free_keyval(&key));  /* attributes set with it keep their callbacks */
  MPI_OK(MPI_Comm_free(&a));           /* key's delete callback */
  CHECK_EQ(g_deletes, 3);
  MPI_OK(MPI_Comm_free(&b));
  CHECK_EQ(g_deletes, 4);
  CHECK(a == MPI_COMM_NULL && b == MPI_COMM_NULL);

  /* A delete callback that frees its own communicator (through MPI_Comm_delete_attr). */
  int key3;
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_own_comm, &key3, NULL));
  MPI_Comm c;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  MPI_Comm handle = c;
  MPI_OK(MPI_Comm_set_attr(c, key3, &handle));
  MPI_OK(MPI_Comm_delete_attr(c, key3));
  CHECK_EQ(g_deletes, 5);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int rank;
  CHECK_EQ(MPI_Comm_rank(c, &rank), MPI_ERR_COMM);  /* it is gone */
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  MPI_OK(MPI_Comm_free_keyval(&key2));
  MPI_OK(MPI_Comm_free_keyval(&key3));
}

/* ---- datatype attributes ---- */
static int g_type_copies, g_type_deletes;
static int type_copy(MPI_Datatype old, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)keyval, (void)extra;
  int size = 0;
  MPI_OK(MPI_Type_size(old, &size));  /* the old type is usable inside */
  CHECK_EQ(size, 12);
  call_into_mpi();
  receive_from_other_thread();
  ++g_type_copies;
  *(void**)out = (char*)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}
static int type_delete(MPI_Datatype type, int keyval, void* value, void* extra) {
  (void)keyval, (void)value, (void)extra;
  int size = 0;
  MPI_OK(MPI_Type_size(type, &size));
  CHECK_EQ(size, 12);
  call_into_mpi();
  receive_from_other_thread();
  ++g_type_deletes;
  return MPI_SUCCESS;
}

static void test_type_attributes(void) {
  int key;
  MPI_OK(MPI_Type_create_keyval(type_copy, type_delete, &key, NULL));
  MPI_Datatype t, dup;
  MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
  static char base[4];
  MPI_OK(MPI_Type_set_attr(t, key, base));
  MPI_OK(MPI_Type_dup(t, &dup));
  CHECK_EQ(g_type_copies, 1);
  void* v = NULL;
  int flag = 0;
  MPI_OK(MPI_Type_get_attr(dup, key, &v, &flag));
  CHECK(flag && v == base + 1);
  MPI_OK(MPI_Type_set_attr(t, key, base + 2));  /* replaces: the delete callback runs */
  CHECK_EQ(g_type_deletes, 1);
  MPI_OK(MPI_Type_delete_attr(t, key));
  CHECK_EQ(g_type_deletes, 2);
  MPI_OK(MPI_Type_get_attr(t, key, &v, &flag));
  CHECK(!flag);
  MPI_OK(MPI_Type_free_keyval(&key));
  MPI_OK(MPI_Type_free(&dup));  /* its attribute's delete callback */
  CHECK_EQ(g_type_deletes, 3);
  MPI_OK(MPI_Type_free(&t));
  CHECK(t == MPI_DATATYPE_NULL && dup == MPI_DATATYPE_NULL);
}

/* ---- window attributes ---- */
static int g_win_deletes;
static int win_delete(MPI_Win win, int keyval, void* value, void* extra) {
  (void)keyval, (void)extra;
  CHECK(value == &g_win_deletes);
  MPI_Group group;  /* the window is still usable */
  MPI_OK(MPI_Win_get_group(win, &group));
  int n = 0;
  MPI_OK(MPI_Group_size(group, &n));
  CHECK_EQ(n, g_size);
  MPI_OK(MPI_Group_free(&group));
  call_into_mpi();
  receive_from_other_thread();
  ++g_win_deletes;
  return MPI_SUCCESS;
}

static void test_win_attributes(void) {
  int key;
  MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, win_delete, &key, NULL));
  MPI_Win win;
  int* base;
  MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  MPI_OK(MPI_Win_set_attr(win, key, &g_win_deletes));
  MPI_OK(MPI_Win_delete_attr(win, key));
  CHECK_EQ(g_win_deletes, 1);
  MPI_OK(MPI_Win_set_attr(win, key, &g_win_deletes));
  MPI_OK(MPI_Win_free(&win));
  CHECK_EQ(g_win_deletes, 2);
  CHECK(win == MPI_WIN_NULL);
  MPI_OK(MPI_Win_free_keyval(&key));
}

/* ---- user reduction ops ---- */
static int g_op_calls;
static void checked_sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  int size = 0, rank = -1;
  MPI_OK(MPI_Type_size(*type, &size));
  CHECK_EQ(size, 4);
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  CHECK_EQ(rank, g_rank);
  /* Communication too (it runs inside the reduction's progress, which it must not step). Not
   * receive_from_other_thread: the op runs with the lock held (the engine is mid-progress). */
  call_into_mpi();
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
  ++g_op_calls;
}

static void test_user_ops(void) {
  MPI_Op op;
  MPI_OK(MPI_Op_create(checked_sum, 1, &op));
  enum { kN = 5 };
  int in[kN], out[kN];
  for (int i = 0; i < kN; ++i) in[i] = g_rank + i;
  int rank_sum = g_size * (g_size - 1) / 2;
  MPI_OK(MPI_Allreduce(in, out, kN, MPI_INT, op, MPI_COMM_WORLD));
  for (int i = 0; i < kN; ++i) CHECK_EQ(out[i], rank_sum + g_size * i);
  memset(out, 0, sizeof out);
  MPI_OK(MPI_Reduce(in, out, kN, MPI_INT, op, 0, MPI_COMM_WORLD));
  if (g_rank == 0) for (int i = 0; i < kN; ++i) CHECK_EQ(out[i], rank_sum + g_size * i);
  MPI_Request r;
  MPI_OK(MPI_Iallreduce(in, out, kN, MPI_INT, op, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  for (int i = 0; i < kN; ++i) CHECK_EQ(out[i], rank_sum + g_size * i);
  MPI_OK(MPI_Scan(in, out, kN, MPI_INT, op, MPI_COMM_WORLD));
  for (int i = 0; i < kN; ++i) CHECK_EQ(out[i], g_rank * (g_rank + 1) / 2 + (g_rank + 1) * i);
  int acc[kN] = {0};
  MPI_OK(MPI_Reduce_local(in, acc, kN, MPI_INT, op));
  for (int i = 0; i < kN; ++i) CHECK_EQ(acc[i], in[i]);
  CHECK(g_op_calls > 0);
  MPI_OK(MPI_Op_free(&op));
}

/* ---- error handlers ---- */
static int g_handled[2];  /* [0]: communicator, [1]: window; the last code each saw */
static void comm_handler(MPI_Comm* comm, int* code, ...) {
  int rank = -1, len = 0;
  MPI_OK(MPI_Comm_rank(*comm, &rank));
  CHECK_EQ(rank, g_rank);
  char text[MPI_MAX_ERROR_STRING];
  MPI_OK(MPI_Error_string(*code, text, &len));
  CHECK(len > 0);
  call_into_mpi();
  receive_from_other_thread();
  g_handled[0] = *code;
}
static void win_handler(MPI_Win* win, int* code, ...) {
  MPI_Group group;
  MPI_OK(MPI_Win_get_group(*win, &group));
  MPI_OK(MPI_Group_free(&group));
  call_into_mpi();
  receive_from_other_thread();
  g_handled[1] = *code;
}

static void test_error_handlers(void) {
  MPI_Errhandler eh;
  MPI_Comm c;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  MPI_OK(MPI_Comm_create_errhandler(comm_handler, &eh));
  MPI_OK(MPI_Comm_set_errhandler(c, eh));
  int v = 0;
  CHECK_EQ(MPI_Send(&v, 1, MPI_INT, g_size + 3, 0, c), MPI_ERR_RANK);  /* the handler ran, returns */
  CHECK_EQ(g_handled[0], MPI_ERR_RANK);
  MPI_OK(MPI_Comm_call_errhandler(c, MPI_ERR_OTHER));
  CHECK_EQ(g_handled[0], MPI_ERR_OTHER);
  MPI_OK(MPI_Errhandler_free(&eh));
  MPI_OK(MPI_Comm_free(&c));

  MPI_Win win;
  int* base;
  MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  MPI_OK(MPI_Win_create_errhandler(win_handler, &eh));
  MPI_OK(MPI_Win_set_errhandler(win, eh));
  MPI_OK(MPI_Win_fence(0, win));
  CHECK_EQ(MPI_Put(&v, 1, MPI_INT, g_size + 3, 0, 1, MPI_INT, win), MPI_ERR_RANK);
  CHECK_EQ(g_handled[1], MPI_ERR_RANK);
  MPI_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
  CHECK_EQ(g_handled[1], MPI_ERR_OTHER);
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Errhandler_free(&eh));
  MPI_OK(MPI_Win_free(&win));
}

/* ---- generalized requests ---- */
static int g_queries, g_frees, g_cancels;
static int grequest_query(void* extra, MPI_Status* status) {
  CHECK(extra == &g_queries);
  call_into_mpi();
  receive_from_other_thread();
  MPI_OK(MPI_Status_set_elements(status, MPI_INT, 3));
  MPI_OK(MPI_Status_set_cancelled(status, 0));
  status->MPI_SOURCE = g_rank;
  status->MPI_TAG = 5;
  ++g_queries;
  return MPI_SUCCESS;
}
static int grequest_free(void* extra) {
  CHECK(extra == &g_queries);
  call_into_mpi();
  receive_from_other_thread();
  ++g_frees;
  return MPI_SUCCESS;
}
static int grequest_cancel(void* extra, int complete) {
  CHECK(extra == &g_queries);
  CHECK_EQ(complete, 0);
  call_into_mpi();
  receive_from_other_thread();
  ++g_cancels;
  return MPI_SUCCESS;
}

static void test_generalized_requests(void) {
  MPI_Request r;
  MPI_OK(MPI_Grequest_start(grequest_query, grequest_free, grequest_cancel, &g_queries, &r));
  MPI_OK(MPI_Cancel(&r));
  CHECK_EQ(g_cancels, 1);
  MPI_OK(MPI_Grequest_complete(r));
  MPI_Status st;
  MPI_OK(MPI_Wait(&r, &st));
  CHECK(r == MPI_REQUEST_NULL);
  CHECK_EQ(g_queries, 1);
  CHECK_EQ(g_frees, 1);
  int count = -1;
  MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK_EQ(count, 3);
  CHECK_EQ(st.MPI_TAG, 5);
  /* freed by the user before completion: the free function runs in MPI_Grequest_complete */
  MPI_OK(MPI_Grequest_start(grequest_query, grequest_free, grequest_cancel, &g_queries, &r));
  MPI_Request keep = r;
  MPI_OK(MPI_Request_free(&r));
  MPI_OK(MPI_Grequest_complete(keep));
  CHECK_EQ(g_frees, 2);
  CHECK_EQ(g_queries, 1);
}

/* ---- MULTIPLE: threads free communicators whose delete callbacks free others (mpi4py's
 * pattern) at once; the tables change under every callback ---- */
enum { kChurnThreads = 4, kChurnIters = 40 };
static int g_churn_key;
static atomic_int g_churn_frees;
static int free_attached_comm(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm, (void)keyval, (void)extra;
  MPI_Comm* inner = value;
  int size = 0;
  MPI_OK(MPI_Comm_size(*inner, &size));
  CHECK_EQ(size, 1);
  MPI_OK(MPI_Comm_free(inner));
  CHECK(*inner == MPI_COMM_NULL);
  free(inner);
  atomic_fetch_add(&g_churn_frees, 1);
  return MPI_SUCCESS;
}
static void* churn(void* arg) {
  MPI_Comm base = *(MPI_Comm*)arg;  /* this thread's own: its dups are not concurrent with others' */
  for (int it = 0; it < kChurnIters; ++it) {
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(base, &c));
    MPI_Comm* inner = malloc(sizeof *inner);
    MPI_OK(MPI_Comm_dup(base, inner));
    MPI_OK(MPI_Comm_set_attr(c, g_churn_key, inner));
    MPI_OK(MPI_Comm_free(&c));
    CHECK(c == MPI_COMM_NULL);
  }
  return NULL;
}
static void test_threads_freeing_comms(void) {
  if (g_level != MPI_THREAD_MULTIPLE) return;
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_attached_comm, &g_churn_key, NULL));
  MPI_Comm bases[kChurnThreads];
  pthread_t threads[kChurnThreads];
  for (int t = 0; t < kChurnThreads; ++t) MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &bases[t]));
  for (int t = 0; t < kChurnThreads; ++t) CHECK_EQ(pthread_create(&threads[t], NULL, churn, &bases[t]), 0);
  for (int t = 0; t < kChurnThreads; ++t) CHECK_EQ(pthread_join(threads[t], NULL), 0);
  CHECK_EQ(atomic_load(&g_churn_frees), kChurnThreads * kChurnIters);
  for (int t = 0; t < kChurnThreads; ++t) MPI_OK(MPI_Comm_free(&bases[t]));
  MPI_OK(MPI_Comm_free_keyval(&g_churn_key));
}

/* ---- MPI_COMM_SELF's attributes at MPI_Finalize ---- */
static int g_finalize_deletes;
static int self_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)keyval, (void)extra;
  CHECK(comm == MPI_COMM_SELF);
  int finalized = 1;
  MPI_OK(MPI_Finalized(&finalized));
  CHECK_EQ(finalized, 0);
  call_into_mpi();
  receive_from_other_thread();
  int one = 1, sum = 0;  /* every rank is in MPI_Finalize: collectives still work */
  MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_EQ(sum, g_size);
  /* the last set is deleted first */
  CHECK_EQ((long)(size_t)value, 2 - g_finalize_deletes);
  ++g_finalize_deletes;
  return MPI_SUCCESS;
}

static int level_named(const char* name) {
  if (strcmp(name, "SINGLE") == 0) return MPI_THREAD_SINGLE;
  if (strcmp(name, "FUNNELED") == 0) return MPI_THREAD_FUNNELED;
  if (strcmp(name, "SERIALIZED") == 0) return MPI_THREAD_SERIALIZED;
  if (strcmp(name, "MULTIPLE") == 0) return MPI_THREAD_MULTIPLE;
  fprintf(stderr, "callbacks: unknown thread level '%s' (SINGLE, FUNNELED, SERIALIZED, MULTIPLE)\n", name);
  exit(2);
}

int main(int argc, char** argv) {
  int required = argc > 1 ? level_named(argv[1]) : MPI_THREAD_MULTIPLE;
  MPI_OK(MPI_Init_thread(&argc, &argv, required, &g_level));
  CHECK_EQ(g_level, required);
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &g_size));

  test_comm_attributes();
  test_type_attributes();
  test_win_attributes();
  test_user_ops();
  test_error_handlers();
  test_generalized_requests();
  test_threads_freeing_comms();

  int key;
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &key, NULL));
  MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, key, (void*)1));
  int key2;
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &key2, NULL));
  MPI_OK(MPI_Comm_set_attr(MPI_COMM_SELF, key2, (void*)2));
  MPI_OK(MPI_Finalize());
  if (g_finalize_deletes != 2) {
    fprintf(stderr, "rank %d: MPI_Finalize ran %d of MPI_COMM_SELF's 2 delete callbacks\n", g_rank,
            g_finalize_deletes);
    return 1;
  }
  if (g_rank == 0) printf("callbacks: %d callbacks called into MPI\n", g_calls);
  return 0;
}
