/* Info objects and session error handlers made before MPI_Init (MPI 4.1 section 11.4.1 lets
 * both be called at any time) stay valid through MPI_Init, serve as arguments once MPI runs, and
 * are still valid after MPI_Finalize. */
#include <string.h>

#include "../check.h"

static int handler_calls = 0, handler_code = -1;
static MPI_Session handler_session = MPI_SESSION_NULL;
static void record_session_error(MPI_Session* session, int* code, ...) {
  ++handler_calls;
  handler_code = *code;
  handler_session = *session;
}

static void check_value(MPI_Info info, const char* key, const char* expected) {
  char value[64];
  int flag = 0;
  MPI_OK(MPI_Info_get(info, key, sizeof value - 1, value, &flag));
  CHECK(flag);
  CHECK(strcmp(value, expected) == 0);
}

int main(int argc, char** argv) {
  MPI_Info info, copy;
  MPI_Errhandler eh;
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "colour", "blue"));
  MPI_OK(MPI_Info_dup(info, &copy));
  MPI_OK(MPI_Info_set(copy, "shape", "round"));
  MPI_OK(MPI_Session_create_errhandler(record_session_error, &eh));

  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size, nkeys = -1;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  check_value(info, "colour", "blue");
  MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
  CHECK_EQ(nkeys, 1);
  check_value(copy, "shape", "round");
  /* As arguments: a communicator's hints, a session's error handler. */
  MPI_Comm dup;
  MPI_Info hints;
  MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &dup));
  MPI_OK(MPI_Comm_get_info(dup, &hints));
  check_value(hints, "colour", "blue");
  MPI_OK(MPI_Info_free(&hints));
  MPI_OK(MPI_Comm_free(&dup));
  MPI_Session session;
  MPI_OK(MPI_Session_init(info, eh, &session));
  MPI_Errhandler got;
  MPI_OK(MPI_Session_get_errhandler(session, &got));
  CHECK_EQ(got, eh);
  MPI_OK(MPI_Errhandler_free(&got));
  MPI_OK(MPI_Session_call_errhandler(session, MPI_ERR_OTHER)); /* the handler ran: success */
  CHECK_EQ(handler_calls, 1);
  CHECK_EQ(handler_code, MPI_ERR_OTHER);
  CHECK_EQ(handler_session, session);
  MPI_OK(MPI_Session_finalize(&session));
  /* A handle made while MPI runs outlives it too. */
  MPI_Info during;
  MPI_OK(MPI_Info_create(&during));
  MPI_OK(MPI_Info_set(during, "made", "during"));
  MPI_OK(MPI_Info_free(&copy));
  MPI_OK(MPI_Finalize());

  check_value(info, "colour", "blue");
  check_value(during, "made", "during");
  MPI_OK(MPI_Info_free(&info));
  MPI_OK(MPI_Info_free(&during));
  CHECK(info == MPI_INFO_NULL && during == MPI_INFO_NULL);
  MPI_OK(MPI_Errhandler_free(&eh));
  CHECK(eh == MPI_ERRHANDLER_NULL);
  if (rank == 0) printf("before_init: %d ranks passed\n", size);
  return 0;
}
