/* Argument checks and corner cases the standard defines (MPI 4.1): MPI_Reduce_local's
 * arguments (section 6.9.7), a keyval freed while attributes still use it (section 7.7.2), a
 * keyval of another object kind (sections 7.7.2-7.7.4: MPI_ERR_KEYVAL),
 * truncation on a matched receive (sections 3.2.5 and 3.8.3), window names (section 7.8). */
#include <string.h>

#include "../check.h"

static int rank, size;

static int class_of(int rc) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  return cls;
}

static void check_reduce_local(void) {
  int in[4] = {1, 2, 3, 4}, inout[4] = {10, 20, 30, 40};
  MPI_OK(MPI_Reduce_local(in, inout, 4, MPI_INT, MPI_SUM));
  for (int i = 0; i < 4; ++i) CHECK_EQ(inout[i], 11 * (i + 1));
  CHECK_EQ(class_of(MPI_Reduce_local(in, inout, -1, MPI_INT, MPI_SUM)), MPI_ERR_COUNT);
  CHECK_EQ(class_of(MPI_Reduce_local(in, inout, 4, MPI_DATATYPE_NULL, MPI_SUM)), MPI_ERR_TYPE);
  CHECK_EQ(class_of(MPI_Reduce_local(in, inout, 4, MPI_INT, MPI_OP_NULL)), MPI_ERR_OP);
  CHECK_EQ(class_of(MPI_Reduce_local(NULL, inout, 4, MPI_INT, MPI_SUM)), MPI_ERR_BUFFER);
  CHECK_EQ(class_of(MPI_Reduce_local(in, NULL, 4, MPI_INT, MPI_SUM)), MPI_ERR_BUFFER);
  CHECK_EQ(class_of(MPI_Reduce_local(MPI_IN_PLACE, inout, 4, MPI_INT, MPI_SUM)), MPI_ERR_BUFFER);
  CHECK_EQ(class_of(MPI_Reduce_local(in, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM)), MPI_ERR_BUFFER);
  CHECK_EQ(class_of(MPI_Reduce_local(inout, inout, 4, MPI_INT, MPI_SUM)), MPI_ERR_BUFFER); /* aliased */
  float f[2] = {1, 2}, g[2] = {3, 4};
  CHECK_EQ(class_of(MPI_Reduce_local(f, g, 2, MPI_FLOAT, MPI_BAND)), MPI_ERR_OP); /* not for floats */
  MPI_Datatype uncommitted;
  MPI_OK(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
  CHECK_EQ(class_of(MPI_Reduce_local(in, inout, 2, uncommitted, MPI_SUM)), MPI_ERR_TYPE);
  MPI_OK(MPI_Type_free(&uncommitted));
  /* Nothing changed by the refused calls; a count of 0 is fine, even with NULL buffers. */
  for (int i = 0; i < 4; ++i) CHECK_EQ(inout[i], 11 * (i + 1));
  MPI_OK(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM));
}

static int deletes = 0, copies = 0;
static int count_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm, (void)keyval, (void)value, (void)extra;
  ++deletes;
  return MPI_SUCCESS;
}
static int count_copy(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  (void)comm, (void)keyval, (void)extra;
  ++copies;
  *(void**)out = in;
  *flag = 1;
  return MPI_SUCCESS;
}

static void check_keyvals(void) {
  int value = 7, flag = 0;
  void* got = NULL;
  /* Freed while in use: the attributes keep working (copy on dup, delete on free and
   * delete_attr) until the last is gone. */
  int key, old;
  MPI_Comm a, b;
  MPI_OK(MPI_Comm_create_keyval(count_copy, count_delete, &key, NULL));
  old = key;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  MPI_OK(MPI_Comm_set_attr(a, key, &value));
  MPI_OK(MPI_Comm_free_keyval(&key));
  CHECK_EQ(key, MPI_KEYVAL_INVALID);
  MPI_OK(MPI_Comm_get_attr(a, old, &got, &flag));
  CHECK(flag && got == &value);
  MPI_OK(MPI_Comm_dup(a, &b));
  CHECK_EQ(copies, 1);
  MPI_OK(MPI_Comm_get_attr(b, old, &got, &flag));
  CHECK(flag && got == &value);
  MPI_OK(MPI_Comm_free(&b));
  CHECK_EQ(deletes, 1);
  MPI_OK(MPI_Comm_delete_attr(a, old));
  CHECK_EQ(deletes, 2);
  MPI_OK(MPI_Comm_free(&a));
  CHECK_EQ(deletes, 2);
}

/* MPI 4.1 section 7.7: a keyval is created for one kind of object (MPI_Comm_create_keyval,
 * MPI_Type_create_keyval, MPI_Win_create_keyval); using it with the calls of another kind is an
 * error of class MPI_ERR_KEYVAL (section 9.4: "invalid keyval has been passed"), in the set, get,
 * delete and free calls alike, and the refused call changes nothing. The predefined attributes
 * belong to their kind too: MPI_TAG_UB is not a window's, MPI_WIN_BASE not a communicator's. */
static void check_keyval_kinds(void) {
  int kc, kt, kw, value = 5, flag = -1;
  void* got = NULL;
  MPI_Comm comm;
  MPI_Datatype type;
  MPI_Win win;
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &kc, NULL));
  MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kt, NULL));
  MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &kw, NULL));
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  MPI_OK(MPI_Type_contiguous(2, MPI_INT, &type));
  MPI_OK(MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));

  const int not_comm[2] = {kt, kw}, not_type[2] = {kc, kw}, not_win[2] = {kc, kt};
  for (int i = 0; i < 2; ++i) {
    CHECK_EQ(class_of(MPI_Comm_set_attr(comm, not_comm[i], &value)), MPI_ERR_KEYVAL);
    CHECK_EQ(class_of(MPI_Comm_get_attr(comm, not_comm[i], &got, &flag)), MPI_ERR_KEYVAL);
    CHECK_EQ(class_of(MPI_Comm_delete_attr(comm, not_comm[i])), MPI_ERR_KEYVAL);
    CHECK_EQ(class_of(MPI_Attr_put(comm, not_comm[i], &value)), MPI_ERR_KEYVAL);
    CHECK_EQ(class_of(MPI_Attr_get(comm, not_comm[i], &got, &flag)), MPI_ERR_KEYVAL);
    CHECK_EQ(class_of(MPI_Type_set_attr(type, not_type[i], &value)), MPI_ERR_KEYVAL);
    CHECK_EQ(class_of(MPI_Type_get_attr(type, not_type[i], &got, &flag)), MPI_ERR_KEYVAL);
    CHECK_EQ(class_of(MPI_Type_delete_attr(type, not_type[i])), MPI_ERR_KEYVAL);
    CHECK_EQ(class_of(MPI_Win_set_attr(win, not_win[i], &value)), MPI_ERR_KEYVAL);
    CHECK_EQ(class_of(MPI_Win_get_attr(win, not_win[i], &got, &flag)), MPI_ERR_KEYVAL);
    CHECK_EQ(class_of(MPI_Win_delete_attr(win, not_win[i])), MPI_ERR_KEYVAL);
  }
  /* Set with its own keyval, an attribute is still refused by a keyval of another kind. */
  MPI_OK(MPI_Comm_set_attr(comm, kc, &value));
  MPI_OK(MPI_Type_set_attr(type, kt, &value));
  MPI_OK(MPI_Win_set_attr(win, kw, &value));
  CHECK_EQ(class_of(MPI_Type_delete_attr(type, kc)), MPI_ERR_KEYVAL);
  CHECK_EQ(class_of(MPI_Win_get_attr(win, kt, &got, &flag)), MPI_ERR_KEYVAL);
  CHECK_EQ(class_of(MPI_Comm_delete_attr(comm, kw)), MPI_ERR_KEYVAL);
  CHECK_EQ(class_of(MPI_Comm_get_attr(comm, MPI_WIN_BASE, &got, &flag)), MPI_ERR_KEYVAL);
  CHECK_EQ(class_of(MPI_Win_get_attr(win, MPI_TAG_UB, &got, &flag)), MPI_ERR_KEYVAL);
  CHECK_EQ(class_of(MPI_Type_get_attr(type, MPI_TAG_UB, &got, &flag)), MPI_ERR_KEYVAL);
  /* Freed by the free call of another kind: refused, the keyval left as it was. */
  int k = kt;
  CHECK_EQ(class_of(MPI_Comm_free_keyval(&k)), MPI_ERR_KEYVAL);
  CHECK_EQ(k, kt);
  CHECK_EQ(class_of(MPI_Keyval_free(&k)), MPI_ERR_KEYVAL);
  CHECK_EQ(k, kt);
  k = kw;
  CHECK_EQ(class_of(MPI_Type_free_keyval(&k)), MPI_ERR_KEYVAL);
  CHECK_EQ(k, kw);
  k = kc;
  CHECK_EQ(class_of(MPI_Win_free_keyval(&k)), MPI_ERR_KEYVAL);
  CHECK_EQ(k, kc);
  /* The refused calls changed nothing: each object holds its one attribute, by its own keyval. */
  got = NULL, flag = 0;
  MPI_OK(MPI_Comm_get_attr(comm, kc, &got, &flag));
  CHECK(flag && got == &value);
  got = NULL, flag = 0;
  MPI_OK(MPI_Type_get_attr(type, kt, &got, &flag));
  CHECK(flag && got == &value);
  got = NULL, flag = 0;
  MPI_OK(MPI_Win_get_attr(win, kw, &got, &flag));
  CHECK(flag && got == &value);
  MPI_OK(MPI_Comm_delete_attr(comm, kc));
  MPI_OK(MPI_Type_delete_attr(type, kt));
  MPI_OK(MPI_Win_delete_attr(win, kw));
  MPI_OK(MPI_Comm_free_keyval(&kc));
  MPI_OK(MPI_Type_free_keyval(&kt));
  MPI_OK(MPI_Win_free_keyval(&kw));
  CHECK(kc == MPI_KEYVAL_INVALID && kt == MPI_KEYVAL_INVALID && kw == MPI_KEYVAL_INVALID);
  MPI_OK(MPI_Win_free(&win));
  MPI_OK(MPI_Type_free(&type));
  MPI_OK(MPI_Comm_free(&comm));
}

/* With MPI_ERRORS_ARE_FATAL the message names the call, the rank and the keyval
 * (tests/mpi/conformance/BUILD checks it). */
static void wrong_kind_fatal(void) {
  int kt, value = 1;
  MPI_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, &kt, NULL));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  MPI_Comm_set_attr(MPI_COMM_WORLD, kt, &value);
  CHECK(0); /* not reached */
}

/* A matched receive of a message longer than its buffer: MPI_ERR_TRUNCATE, as MPI_Recv gives. */
static void check_matched_truncation(void) {
  if (size < 2 || rank >= 2) return;
  int data[16], small[4];
  for (int i = 0; i < 16; ++i) data[i] = 100 + i;
  if (rank == 0) {
    for (int k = 0; k < 4; ++k) MPI_OK(MPI_Send(data, 16, MPI_INT, 1, 40 + k, MPI_COMM_WORLD));
    return;
  }
  MPI_Message msg;
  MPI_Status st;
  MPI_Request rq;
  MPI_OK(MPI_Mprobe(0, 40, MPI_COMM_WORLD, &msg, &st));
  CHECK_EQ(class_of(MPI_Mrecv(small, 4, MPI_INT, &msg, &st)), MPI_ERR_TRUNCATE);
  CHECK_EQ(msg, MPI_MESSAGE_NULL);
  CHECK_EQ(st.MPI_SOURCE, 0);
  CHECK_EQ(st.MPI_TAG, 40);
  MPI_OK(MPI_Mprobe(0, 41, MPI_COMM_WORLD, &msg, &st));
  MPI_OK(MPI_Imrecv(small, 4, MPI_INT, &msg, &rq));
  CHECK_EQ(class_of(MPI_Wait(&rq, &st)), MPI_ERR_TRUNCATE);
  CHECK_EQ(st.MPI_TAG, 41);
  /* Among several completions: MPI_ERR_IN_STATUS, the error in the request's status. */
  MPI_Request two[2];
  MPI_Status sts[2];
  int flag = 0;
  MPI_OK(MPI_Improbe(0, 42, MPI_COMM_WORLD, &flag, &msg, &st));
  while (!flag) MPI_OK(MPI_Improbe(0, 42, MPI_COMM_WORLD, &flag, &msg, &st));
  MPI_OK(MPI_Imrecv(small, 4, MPI_INT, &msg, &two[0]));
  MPI_OK(MPI_Mprobe(0, 43, MPI_COMM_WORLD, &msg, &st));
  MPI_OK(MPI_Imrecv(data, 16, MPI_INT, &msg, &two[1]));
  CHECK_EQ(class_of(MPI_Waitall(2, two, sts)), MPI_ERR_IN_STATUS);
  CHECK_EQ(class_of(sts[0].MPI_ERROR), MPI_ERR_TRUNCATE);
  CHECK_EQ(sts[1].MPI_ERROR, MPI_SUCCESS);
  for (int i = 0; i < 16; ++i) CHECK_EQ(data[i], 100 + i);
}

static void check_window_names(void) {
  char name[MPI_MAX_OBJECT_NAME], longer[2 * MPI_MAX_OBJECT_NAME];
  int len = -1;
  MPI_Win win;
  MPI_OK(MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Win_get_name(win, name, &len)); /* never named: the empty string */
  CHECK_EQ(len, 0);
  CHECK_EQ(name[0], '\0');
  MPI_OK(MPI_Win_set_name(win, "halo window"));
  MPI_OK(MPI_Win_get_name(win, name, &len));
  CHECK(strcmp(name, "halo window") == 0 && len == 11);
  MPI_OK(MPI_Win_set_name(win, "")); /* renamed to nothing */
  MPI_OK(MPI_Win_get_name(win, name, &len));
  CHECK_EQ(len, 0);
  /* A longer name is cut to MPI_MAX_OBJECT_NAME - 1 characters (section 7.8). */
  memset(longer, 'w', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  MPI_OK(MPI_Win_set_name(win, longer));
  MPI_OK(MPI_Win_get_name(win, name, &len));
  CHECK_EQ(len, MPI_MAX_OBJECT_NAME - 1);
  CHECK_EQ((int)strlen(name), MPI_MAX_OBJECT_NAME - 1);
  CHECK_EQ(class_of(MPI_Win_set_name(win, NULL)), MPI_ERR_ARG);
  CHECK_EQ(class_of(MPI_Win_set_name(MPI_WIN_NULL, "x")), MPI_ERR_WIN);
  MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  if (argc > 1 && strcmp(argv[1], "--wrong-kind-fatal") == 0) wrong_kind_fatal();
  check_reduce_local();
  check_keyvals();
  check_keyval_kinds();
  check_matched_truncation();
  check_window_names();
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("argument_checks: %d ranks passed\n", size);
  return 0;
}
