/* Every handle argument of every binding, table-driven: the rows come from
 * mpi.h (handle_checks_table.py: one row per binding and handle it reads). Each row is called,
 * with MPI_ERRORS_RETURN on every object, with the kind's null handle (where null is not a valid
 * value: MPI_INFO_NULL and MPI_REQUEST_NULL mostly are) and with a handle of the right kind that
 * was freed just before, and with a live handle of another kind (wrong kind: MPI_COMM_WORLD, or
 * MPI_CHAR where a communicator is expected; each has slot 1, which a live object of the expected
 * kind also has, so a table that ignored the kind would accept it); the call must return the
 * expected kind's error class (MPI_ERR_COMM, MPI_ERR_TYPE, ...). Regressions:
 * MPI_Type_dup(MPI_DATATYPE_NULL) segfaulted in datatype::make_dup; a communicator passed as a
 * datatype was taken as the datatype with the same index. Every failing row is listed before the
 * job ends. */
#include <string.h>
#include <unistd.h>

#include "check.h"

typedef MPI_Comm comm_t;
typedef MPI_Datatype type_t;
typedef MPI_Group group_t;
typedef MPI_Request request_t;
typedef MPI_Op op_t;
typedef MPI_Errhandler errhandler_t;
typedef MPI_Info info_t;
typedef MPI_Message message_t;
typedef MPI_Win win_t;
typedef MPI_File fh_t;
#define pointer_to(kind, value) (&(kind##_t){(value)})
#define bad_array(kind, value) ((kind##_t[4]){(value)})

enum Kind { COMM, TYPE, GROUP, REQUEST, OP, ERRHANDLER, INFO, MESSAGE, WIN, FH, N_KINDS };

typedef struct {
  MPI_Comm comm, out_comm, ring;
  MPI_Datatype type, out_type;
  MPI_Group group, out_group;
  MPI_Request request, out_request;
  MPI_Op op, out_op;
  MPI_Errhandler errhandler, out_errhandler;
  MPI_Info info, out_info;
  MPI_Message message, out_message;
  MPI_Win win, out_win;
  MPI_Session session, out_session;  /* a live session (MPI_ERRORS_RETURN) for the session calls' rows */
  MPI_File fh, out_fh;
  MPI_Comm comm_array[4];
  MPI_Datatype type_array[4];
  MPI_Request request_array[4];
  MPI_Info info_array[4];  /* MPI_Comm_spawn_multiple's array_of_info */
  int comm_keyval, win_keyval;
  long long numbers[256];
  int ones[256];            /* counts arrays of the datatype rows: a count of 0 would make */
  long long wide_ones[256]; /* MPI_DATATYPE_NULL valid (MPI 4.1: zero elements carry no type) */
  MPI_Status statuses[4];
  char text[MPI_MAX_INFO_VAL + 1];
  char buffer[1 << 16];
  long long window_memory[64];
  char file_name[4096];
} Handles;

typedef struct {
  const char* binding;
  const char* parameter;
  enum Kind kind;
  int (*call)(Handles* h, int bad);
} Row;

#include "tests/mpi/handle_checks_table.inc"

static const char* const kKindName[N_KINDS] = {"communicator", "datatype", "group", "request", "op",
                                               "errhandler", "info", "message", "window", "file"};
static const int kErrorClass[N_KINDS] = {MPI_ERR_COMM, MPI_ERR_TYPE, MPI_ERR_GROUP, MPI_ERR_REQUEST, MPI_ERR_OP,
                                         MPI_ERR_ARG, MPI_ERR_INFO, MPI_ERR_REQUEST, MPI_ERR_WIN, MPI_ERR_FILE};
static const int kNull[N_KINDS] = {MPI_COMM_NULL, MPI_DATATYPE_NULL, MPI_GROUP_NULL, MPI_REQUEST_NULL, MPI_OP_NULL,
                                   MPI_ERRHANDLER_NULL, MPI_INFO_NULL, MPI_MESSAGE_NULL, MPI_WIN_NULL, MPI_FILE_NULL};

/* Arguments significant at one process only (the root's receive type of a gather, send type of a
 * scatter, the leader's peer communicator): a check there leaves the others waiting in the
 * collective, as the standard allows; the harness does not call these. */
static int significant_at_one_process(const Row* row) {
  const char* b = row->binding + 4 + (row->binding[4] == 'I');
  const char* p = row->parameter;
  if (!strncmp(b, "Gather", 6) || !strncmp(b, "gather", 6)) return !strcmp(p, "recvtype");
  if (!strncmp(b, "Scatter", 7) || !strncmp(b, "scatter", 7)) return !strcmp(p, "sendtype");
  return !strcmp(row->binding, "MPI_Intercomm_create") && !strcmp(p, "peer_comm");
}

/* Null is an error except where the standard makes it a valid value. */
static int null_is_invalid(const Row* row) {
  const char* b = row->binding;
  /* MPI_Comm/Type/Win_get_name answer a null handle's name (tests/mpi/conformance). */
  if (strstr(b, "_get_name") != NULL) return 0;
  if (row->kind == INFO) return strncmp(b, "MPI_Info_", 9) == 0;
  /* MPI_FILE_NULL names the default file error handler (open, delete). */
  if (row->kind == FH) return strncmp(b, "MPI_File_", 9) || !strstr(b, "_errhandler");
  if (row->kind == REQUEST) {
    return !strcmp(b, "MPI_Start") || !strcmp(b, "MPI_Startall") || !strcmp(b, "MPI_Request_free") ||
           !strcmp(b, "MPI_Cancel") || !strcmp(b, "MPI_Grequest_complete");
  }
  return 1;
}

static void user_op(void* in, void* inout, int* len, MPI_Datatype* type) { (void)in, (void)inout, (void)len, (void)type; }
static void user_handler(MPI_Comm* comm, int* code, ...) { (void)comm, (void)code; }

/* A live handle of another kind than `kind`, whose slot a live object of `kind` has. */
static int wrong_kind_handle(enum Kind kind) { return kind == COMM ? MPI_CHAR : MPI_COMM_WORLD; }

/* A handle of `kind` made and freed now (collectively where making one is collective). */
static int freed_handle(Handles* h, enum Kind kind) {
  int v = 0;
  switch (kind) {
    case COMM: { MPI_Comm c; MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c)); v = c; MPI_OK(MPI_Comm_free(&c)); break; }
    case TYPE: { MPI_Datatype t; MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t)); v = t; MPI_OK(MPI_Type_free(&t)); break; }
    case GROUP: { MPI_Group g; MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &g)); v = g; MPI_OK(MPI_Group_free(&g)); break; }
    case REQUEST: {
      MPI_Request r;
      MPI_OK(MPI_Send_init(h->buffer, 1, MPI_INT, 0, 99, MPI_COMM_SELF, &r));
      v = r;
      MPI_OK(MPI_Request_free(&r));
      break;
    }
    case OP: { MPI_Op o; MPI_OK(MPI_Op_create(user_op, 1, &o)); v = o; MPI_OK(MPI_Op_free(&o)); break; }
    case ERRHANDLER: {
      MPI_Errhandler e;
      MPI_OK(MPI_Comm_create_errhandler(user_handler, &e));
      v = e;
      MPI_OK(MPI_Errhandler_free(&e));
      break;
    }
    case INFO: { MPI_Info i; MPI_OK(MPI_Info_create(&i)); v = i; MPI_OK(MPI_Info_free(&i)); break; }
    case MESSAGE: {  /* a message received already */
      int x = 5, y = 0, flag = 0;
      MPI_Request r;
      MPI_Message m;
      MPI_OK(MPI_Isend(&x, 1, MPI_INT, 0, 98, MPI_COMM_SELF, &r));
      while (!flag) MPI_OK(MPI_Improbe(0, 98, MPI_COMM_SELF, &flag, &m, MPI_STATUS_IGNORE));
      v = m;
      MPI_OK(MPI_Mrecv(&y, 1, MPI_INT, &m, MPI_STATUS_IGNORE));
      MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      CHECK_EQ(y, 5);
      break;
    }
    case WIN: {
      MPI_Win w;
      MPI_OK(MPI_Win_create(h->window_memory, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
      v = w;
      MPI_OK(MPI_Win_free(&w));
      break;
    }
    case FH: {
      MPI_File f;
      MPI_OK(MPI_File_open(MPI_COMM_WORLD, h->file_name, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &f));
      v = f;
      MPI_OK(MPI_File_close(&f));
      break;
    }
    default: CHECK(0);
  }
  return v;
}

static int run(const Row* row, Handles* h, const char* what, int bad, int rank) {
  if (getenv("HANDLE_CHECKS_TRACE")) fprintf(stderr, "rank %d: %s(%s = %s %d)\n", rank, row->binding, row->parameter, what, bad);
  memset(h->numbers, 0, sizeof h->numbers);  /* counts, ranks, displacements: 0 (earlier rows wrote here) */
  int rc = row->call(h, bad), cls = -1;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  if (cls == kErrorClass[row->kind]) return 0;
  char text[MPI_MAX_ERROR_STRING] = "";
  int len = 0;
  if (rc != MPI_SUCCESS) MPI_Error_string(rc, text, &len);
  fprintf(stderr, "rank %d: %s(%s = %s %s %d): returned %d (class %d), expected class %d [%s]\n", rank,
          row->binding, row->parameter, what, kKindName[row->kind], bad, rc, cls, kErrorClass[row->kind], text);
  return 1;
}

int main(int argc, char** argv) {
  init_at_level_arg(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));

  static Handles h;
  for (int i = 0; i < 256; ++i) h.ones[i] = 1, h.wide_ones[i] = 1;
  h.comm = MPI_COMM_WORLD;
  int dims[1] = {size}, periods[1] = {1};
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &h.ring));
  h.type = MPI_INT;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &h.group));
  h.request = MPI_REQUEST_NULL;
  h.op = MPI_SUM;
  h.errhandler = MPI_ERRORS_RETURN;
  h.info = MPI_INFO_NULL;
  h.message = MPI_MESSAGE_NO_PROC;
  for (int i = 0; i < 4; i++) {
    h.comm_array[i] = MPI_COMM_WORLD, h.type_array[i] = MPI_INT, h.request_array[i] = MPI_REQUEST_NULL, h.info_array[i] = MPI_INFO_NULL;
  }
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &h.comm_keyval, NULL));
  MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &h.win_keyval, NULL));
  strcpy(h.text, "gasket");
  MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &h.session));
  MPI_OK(MPI_Win_create(h.window_memory, sizeof h.window_memory, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &h.win));
  MPI_OK(MPI_Win_set_errhandler(h.win, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Win_lock_all(0, h.win));  /* RMA rows run inside an epoch: only the bad handle is wrong */
  int job = (int)getpid();
  MPI_OK(MPI_Bcast(&job, 1, MPI_INT, 0, MPI_COMM_WORLD));
  snprintf(h.file_name, sizeof h.file_name, "%s/handle_checks.%d", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp",
           job);
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, h.file_name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                       MPI_INFO_NULL, &h.fh));

  int rows = (int)(sizeof kRows / sizeof kRows[0]), failures = 0, calls = 0;
  for (int i = 0; i < rows; i++) {
    const Row* row = &kRows[i];
    if (significant_at_one_process(row)) continue;
    if (null_is_invalid(row)) {
      failures += run(row, &h, "null", kNull[row->kind], rank);
      calls++;
    }
    failures += run(row, &h, "freed", freed_handle(&h, row->kind), rank);
    failures += run(row, &h, "wrong-kind", wrong_kind_handle(row->kind), rank);
    calls += 2;
  }
  MPI_OK(MPI_Win_unlock_all(h.win));
  MPI_OK(MPI_Win_free(&h.win));
  MPI_OK(MPI_Session_finalize(&h.session));
  MPI_OK(MPI_File_close(&h.fh));
  if (failures > 0) {
    fprintf(stderr, "rank %d: handle_checks: %d of %d calls did not return the handle's error class\n", rank,
            failures, calls);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("handle_checks: ok on %d ranks (%d bindings x handle arguments, %d calls)\n", size, rows, calls);
  MPI_Finalize();
  return 0;
}
