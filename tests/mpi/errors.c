/* Error handlers: with MPI_ERRORS_RETURN each invalid argument returns its class (rank, tag,
 * communicator, count, datatype, request, root, buffer...); a user handler is called with the
 * code; MPI_Error_string / MPI_Error_class. With an argument naming a misuse, the default
 * MPI_ERRORS_ARE_FATAL must end the job with a message (tests/mpi/BUILD checks it). */
#include <string.h>

#include "check.h"

static int handler_calls, handler_code;
static void my_handler(MPI_Comm* comm, int* code, ...) {
  ++handler_calls;
  handler_code = *code;
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int x = 0;
  if (argc > 1) { /* fatal misuse: must end the job */
    if (rank == size - 1) {
      if (strcmp(argv[1], "rank") == 0) MPI_Send(&x, 1, MPI_INT, size + 3, 0, MPI_COMM_WORLD);
      if (strcmp(argv[1], "tag") == 0) MPI_Send(&x, 1, MPI_INT, 0, -7, MPI_COMM_WORLD);
      if (strcmp(argv[1], "truncate") == 0) MPI_Recv(&x, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      if (strcmp(argv[1], "abort") == 0) MPI_Abort(MPI_COMM_WORLD, 7);
    }
    if (rank == 0 && strcmp(argv[1], "truncate") == 0) {
      int two[2] = {1, 2};
      MPI_Send(two, 2, MPI_INT, size - 1, 1, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
  }
  MPI_Errhandler eh;
  MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh));
  CHECK_EQ(eh, MPI_ERRORS_ARE_FATAL);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Request r;
  CHECK_EQ(MPI_Send(&x, 1, MPI_INT, size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_EQ(MPI_Send(&x, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_EQ(MPI_Send(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
  CHECK_EQ(MPI_Irecv(&x, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD, &r), MPI_ERR_RANK);
  CHECK_EQ(MPI_Send(&x, 1, MPI_INT, 0, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
  CHECK_EQ(MPI_Isend(&x, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &r), MPI_ERR_TAG);
  CHECK_EQ(MPI_Recv(&x, 1, MPI_INT, 0, -3, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_TAG);
  CHECK_EQ(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
  CHECK_EQ(MPI_Recv(&x, -2, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
  CHECK_EQ(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  CHECK_EQ(MPI_Send(&x, 1, INVALID_HANDLE(MPI_Datatype, 12345), 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
  MPI_Datatype vec;
  MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
  CHECK_EQ(MPI_Send(&x, 1, vec, 0, 0, MPI_COMM_WORLD), MPI_ERR_TYPE); /* not committed */
  MPI_OK(MPI_Type_free(&vec));
  CHECK_EQ(MPI_Send(NULL, 4, MPI_INT, 0, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  CHECK_EQ(MPI_Wait(&(MPI_Request){INVALID_HANDLE(MPI_Request, 987654)}, MPI_STATUS_IGNORE), MPI_ERR_REQUEST);
  CHECK_EQ(MPI_Bcast(&x, 1, MPI_INT, size, MPI_COMM_WORLD), MPI_ERR_ROOT);
  CHECK_EQ(MPI_Type_free(&(MPI_Datatype){MPI_INT}), MPI_ERR_TYPE);
  /* An invalid communicator is reported through MPI_COMM_WORLD's handler (ERRORS_RETURN now). */
  CHECK_EQ(MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM);
  CHECK_EQ(MPI_Send(&x, 1, MPI_INT, 0, 0, INVALID_HANDLE(MPI_Comm, 777)), MPI_ERR_COMM);
  int n;
  CHECK_EQ(MPI_Comm_size(MPI_COMM_NULL, &n), MPI_ERR_COMM);

  char msg[MPI_MAX_ERROR_STRING];
  int len;
  MPI_OK(MPI_Error_string(MPI_ERR_RANK, msg, &len));
  CHECK(strstr(msg, "rank") != NULL);
  CHECK_EQ((int)strlen(msg), len);
  int cls;
  MPI_OK(MPI_Error_class(MPI_ERR_TRUNCATE, &cls));
  CHECK_EQ(cls, MPI_ERR_TRUNCATE);

  /* User handler: called with the code, the call returns it too. */
  MPI_Errhandler mine;
  MPI_OK(MPI_Comm_create_errhandler(my_handler, &mine));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, mine));
  CHECK_EQ(MPI_Send(&x, 1, MPI_INT, 1, 0, MPI_COMM_SELF), MPI_ERR_RANK);
  CHECK_EQ(handler_calls, 1);
  CHECK_EQ(handler_code, MPI_ERR_RANK);
  MPI_OK(MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_OTHER));
  CHECK_EQ(handler_calls, 2);
  CHECK_EQ(handler_code, MPI_ERR_OTHER);
  MPI_Errhandler got;
  MPI_OK(MPI_Comm_get_errhandler(MPI_COMM_SELF, &got));
  CHECK_EQ(got, mine);
  MPI_OK(MPI_Errhandler_free(&mine));
  CHECK_EQ(mine, MPI_ERRHANDLER_NULL);
  /* Valid calls still work after the errors. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size, v = rank, w = -1;
  MPI_OK(MPI_Sendrecv(&v, 1, MPI_INT, right, 0, &w, 1, MPI_INT, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_EQ(w, left);
  int flag;
  MPI_OK(MPI_Initialized(&flag));
  CHECK_EQ(flag, 1);
  MPI_OK(MPI_Finalized(&flag));
  CHECK_EQ(flag, 0);
  MPI_OK(MPI_Finalize());
  MPI_Finalized(&flag);
  CHECK(flag == 1);
  if (rank == 0) printf("errors: ok on %d ranks\n", size);
  return 0;
}
