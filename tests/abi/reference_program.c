/* A program built against the MPI Forum's standard ABI header itself (mpi-5.0-abi-mpi.h, copied
 * as mpi.h by the BUILD file; no gasket header) and run on libmpi_abi.so.1: point-to-point with
 * MPI_ANY_SOURCE/MPI_ANY_TAG and MPI_PROC_NULL, MPI_Status fields, requests, collectives with a
 * user operation, derived datatypes, a communicator split, an error handler callback, error
 * classes, attributes with copy callbacks, the thread level. Every value is checked. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int checks;

#define CHECK(cond)                                                                   \
  do {                                                                                \
    ++checks;                                                                         \
    if (!(cond)) {                                                                    \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);        \
      fflush(stderr);                                                                 \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                   \
    }                                                                                 \
  } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS)

/* A user operation: elementwise max of |a| over ints; checks the datatype handle it is given. */
static int op_calls;
static void absmax(void* in, void* inout, int* len, MPI_Datatype* type) {
  ++op_calls;
  if (*type != MPI_INT) {
    fprintf(stderr, "absmax: datatype %p is not MPI_INT\n", (void*)*type);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int* a = in;
  int* b = inout;
  for (int i = 0; i < *len; ++i) {
    int x = abs(a[i]), y = abs(b[i]);
    b[i] = x > y ? x : y;
  }
}

/* An error handler: records the communicator and the error's class. */
static MPI_Comm handler_comm = MPI_COMM_NULL;
static int handler_class = -1, handler_calls;
static void on_error(MPI_Comm* comm, int* code, ...) {
  ++handler_calls;
  handler_comm = *comm;
  MPI_Error_class(*code, &handler_class);
}

/* Attribute callbacks: the copy doubles the value, the delete counts. */
static int deletes;
static int copy_attr(MPI_Comm comm, int keyval, void* extra, void* in, void* out, int* flag) {
  if (comm == MPI_COMM_NULL || *(int*)extra != 77) return MPI_ERR_OTHER;
  *(void**)out = (void*)((char*)in + 1);
  *flag = 1;
  return MPI_SUCCESS;
}
static int delete_attr(MPI_Comm comm, int keyval, void* value, void* extra) {
  ++deletes;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  int provided = -1, rank, size, major = 0, minor = -1;
  OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided));
  CHECK(provided == MPI_THREAD_FUNNELED || provided == MPI_THREAD_SERIALIZED || provided == MPI_THREAD_MULTIPLE);
  OK(MPI_Abi_get_version(&major, &minor));
  CHECK(major == 1 && minor == 0);
  /* The library's MPI version: the header's, 5.0, which is the ABI's. */
  OK(MPI_Get_version(&major, &minor));
  CHECK(major == 5 && minor == 0);
  CHECK(MPI_VERSION == 5 && MPI_SUBVERSION == 0);
  OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 2);

  /* Point-to-point: every rank sends to 0 with its own tag; 0 receives with the wildcards. */
  if (rank == 0) {
    int seen = 0;
    for (int i = 1; i < size; ++i) {
      int value = -1, count = -1;
      MPI_Status st;
      memset(&st, 0xff, sizeof st);
      OK(MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      CHECK(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < size);
      CHECK(st.MPI_TAG == 100 + st.MPI_SOURCE);
      CHECK(value == st.MPI_SOURCE * 10);
      OK(MPI_Get_count(&st, MPI_INT, &count));
      CHECK(count == 1);
      int src = -1, tag = -1;
      OK(MPI_Status_get_source(&st, &src));
      OK(MPI_Status_get_tag(&st, &tag));
      CHECK(src == st.MPI_SOURCE && tag == st.MPI_TAG);
      seen |= 1 << st.MPI_SOURCE;
    }
    CHECK(seen == ((1 << size) - 2));
  } else {
    int value = rank * 10;
    OK(MPI_Send(&value, 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD));
  }
  {
    MPI_Status st;
    int count = -1;
    OK(MPI_Recv(NULL, 0, MPI_INT, MPI_PROC_NULL, 5, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG);
    OK(MPI_Get_count(&st, MPI_INT, &count));
    CHECK(count == 0);
  }

  /* Later messages must not meet rank 0's wildcard receives. */
  OK(MPI_Barrier(MPI_COMM_WORLD));

  /* Requests: a ring of Isend/Irecv completed by Waitall with statuses. */
  {
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double out[4], in[4] = {0};
    for (int i = 0; i < 4; ++i) out[i] = rank + 0.25 * i;
    MPI_Request reqs[2];
    MPI_Status sts[2];
    OK(MPI_Irecv(in, 4, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &reqs[0]));
    OK(MPI_Isend(out, 4, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &reqs[1]));
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL);
    OK(MPI_Waitall(2, reqs, sts));
    CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL);
    CHECK(sts[0].MPI_SOURCE == left && sts[0].MPI_TAG == 7);
    for (int i = 0; i < 4; ++i) CHECK(in[i] == left + 0.25 * i);
  }

  /* Collectives: a predefined and a user operation, broadcast, allgather. */
  {
    int sum = 0;
    OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(sum == size * (size - 1) / 2);
    MPI_Op op;
    OK(MPI_Op_create(absmax, 1, &op));
    CHECK(op != MPI_OP_NULL);
    int mine[2] = {rank % 2 ? -rank : rank, -7}, result[2] = {0, 0};
    OK(MPI_Allreduce(mine, result, 2, MPI_INT, op, MPI_COMM_WORLD));
    CHECK(result[0] == size - 1 && result[1] == 7);
    int calls = 0;
    OK(MPI_Allreduce(&op_calls, &calls, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(calls >= 1);
    OK(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL);
    long word = rank == 0 ? 0x5eed : 0;
    OK(MPI_Bcast(&word, 1, MPI_LONG, 0, MPI_COMM_WORLD));
    CHECK(word == 0x5eed);
    int* all = malloc(sizeof(int) * (size_t)size);
    OK(MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; ++i) CHECK(all[i] == i);
    /* MPI_IN_PLACE */
    for (int i = 0; i < size; ++i) all[i] = i == rank ? rank * 3 : -1;
    OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < size; ++i) CHECK(all[i] == i * 3);
    free(all);
  }

  /* Datatypes: a strided vector sent to a contiguous receive; a struct; the envelope. */
  {
    MPI_Datatype column, pair;
    OK(MPI_Type_vector(3, 1, 4, MPI_INT, &column));
    OK(MPI_Type_commit(&column));
    int ni, na, nd, combiner, tsize;
    OK(MPI_Type_get_envelope(column, &ni, &na, &nd, &combiner));
    CHECK(combiner == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nd == 1);
    OK(MPI_Type_size(column, &tsize));
    CHECK(tsize == 3 * (int)sizeof(int));
    int matrix[12], got[3] = {0};
    for (int i = 0; i < 12; ++i) matrix[i] = rank * 100 + i;
    int peer = rank ^ 1;
    if (peer < size) {
      OK(MPI_Sendrecv(matrix + 1, 1, column, peer, 3, got, 3, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      for (int i = 0; i < 3; ++i) CHECK(got[i] == peer * 100 + 1 + 4 * i);
    }
    struct { int i; double d; } s = {rank, rank * 0.5}, r = {-1, -1.0};
    int lens[2] = {1, 1};
    MPI_Aint disps[2] = {0, (MPI_Aint)((char*)&s.d - (char*)&s)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    OK(MPI_Type_create_struct(2, lens, disps, types, &pair));
    OK(MPI_Type_commit(&pair));
    MPI_Datatype got_types[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
    int got_ints[3];
    MPI_Aint got_addrs[2];
    OK(MPI_Type_get_contents(pair, 3, 2, 2, got_ints, got_addrs, got_types));
    CHECK(got_types[0] == MPI_INT && got_types[1] == MPI_DOUBLE && got_ints[0] == 2);
    OK(MPI_Sendrecv(&s, 1, pair, (rank + 1) % size, 4, &r, 1, pair, (rank + size - 1) % size, 4, MPI_COMM_WORLD,
                    MPI_STATUS_IGNORE));
    CHECK(r.i == (rank + size - 1) % size && r.d == r.i * 0.5);
    OK(MPI_Type_free(&column));
    OK(MPI_Type_free(&pair));
    CHECK(column == MPI_DATATYPE_NULL && pair == MPI_DATATYPE_NULL);
  }

  /* A split: odd and even ranks, in reverse order; MPI_UNDEFINED gives MPI_COMM_NULL. */
  {
    MPI_Comm half, none, dup;
    int hrank, hsize, cmp = -1;
    OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, -rank, &half));
    OK(MPI_Comm_size(half, &hsize));
    OK(MPI_Comm_rank(half, &hrank));
    CHECK(hsize == (size + 1 - rank % 2) / 2);
    CHECK(hrank == hsize - 1 - rank / 2);
    int sum = 0;
    OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half));
    int expect = 0;
    for (int i = rank % 2; i < size; i += 2) expect += i;
    CHECK(sum == expect);
    OK(MPI_Comm_split(MPI_COMM_WORLD, MPI_UNDEFINED, 0, &none));
    CHECK(none == MPI_COMM_NULL);
    OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp));
    CHECK(cmp == MPI_CONGRUENT);
    OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &cmp));
    CHECK(cmp == MPI_IDENT);

    /* An error handler callback on the duplicate: a send to a rank out of range. */
    MPI_Errhandler eh, got = MPI_ERRHANDLER_NULL;
    OK(MPI_Comm_create_errhandler(on_error, &eh));
    OK(MPI_Comm_set_errhandler(dup, eh));
    OK(MPI_Comm_get_errhandler(dup, &got));
    CHECK(got == eh);
    OK(MPI_Errhandler_free(&got));
    int rc = MPI_Send(&rank, 1, MPI_INT, size + 5, 0, dup);
    int cls = -1;
    CHECK(rc != MPI_SUCCESS);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_RANK);
    CHECK(handler_calls == 1 && handler_comm == dup && handler_class == MPI_ERR_RANK);
    OK(MPI_Errhandler_free(&eh));
    /* MPI_ERRORS_RETURN: the class comes back. */
    OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    OK(MPI_Comm_get_errhandler(dup, &got));
    CHECK(got == MPI_ERRORS_RETURN);
    rc = MPI_Send(&rank, 1, MPI_INT, 0, -5, dup);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_TAG);
    rc = MPI_Send(&rank, 1, MPI_DATATYPE_NULL, 0, 0, dup);
    OK(MPI_Error_class(rc, &cls));
    CHECK(cls == MPI_ERR_TYPE);
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    OK(MPI_Error_string(rc, text, &len));
    CHECK(len > 0 && (int)strlen(text) == len);

    /* Attributes: a predefined one, a keyval with callbacks copied by MPI_Comm_dup. */
    int* tag_ub = NULL;
    int flag = 0;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    CHECK(flag && *tag_ub >= 32767);
    int* host = NULL;
    OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &host, &flag));
    CHECK(flag && (*host == MPI_PROC_NULL || (*host >= 0 && *host < size)));
    static int extra = 77;
    int keyval = MPI_KEYVAL_INVALID;
    OK(MPI_Comm_create_keyval(copy_attr, delete_attr, &keyval, &extra));
    CHECK(keyval != MPI_KEYVAL_INVALID);
    static char base[4];
    OK(MPI_Comm_set_attr(dup, keyval, base));
    MPI_Comm dup2;
    OK(MPI_Comm_dup(dup, &dup2));
    void* value = NULL;
    OK(MPI_Comm_get_attr(dup2, keyval, &value, &flag));
    CHECK(flag && value == base + 1);
    OK(MPI_Comm_free(&dup2));
    CHECK(dup2 == MPI_COMM_NULL && deletes == 1);
    OK(MPI_Comm_free_keyval(&keyval));
    CHECK(keyval == MPI_KEYVAL_INVALID);
    OK(MPI_Comm_free(&dup));
    CHECK(deletes == 2);
    OK(MPI_Comm_free(&half));
  }

  /* Handles as integers: predefined ones keep their ABI value. */
  CHECK(MPI_Comm_toint(MPI_COMM_WORLD) == 0x101);
  CHECK(MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_SELF)) == MPI_COMM_SELF);
  CHECK(MPI_Type_toint(MPI_INT) == 0x209);

  int level = -1;
  OK(MPI_Query_thread(&level));
  CHECK(level == provided);
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_Finalize());
  if (rank == 0) printf("reference ABI header program: %d ranks, %d checks passed\n", size, checks);
  return 0;
}
