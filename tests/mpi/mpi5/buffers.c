/* Buffers of buffered sends per communicator and per session (MPI 4.1 section 3.6.1), and
 * MPI_BUFFER_AUTOMATIC. What the standard says, checked:
 * - a buffered send on a communicator uses the communicator's buffer when it has one, else the
 *   buffer of the session it was made from, else the process's (MPI_Buffer_attach);
 * - an attached range too small for a message fails the send with MPI_ERR_BUFFER;
 * - MPI_BUFFER_AUTOMATIC never runs out; detaching it gives MPI_BUFFER_AUTOMATIC back;
 * - detach gives the address and size attached, after the buffered messages left;
 * - a second attach to the same owner is MPI_ERR_BUFFER;
 * - MPI_Buffer_flush / MPI_Comm_flush_buffer / MPI_Session_flush_buffer return once the buffer
 *   is empty; the iflush forms give a request that completes then.
 * Rank r sends to r+1 and receives from r-1 (a ring), so every rank sends and receives. */
#include <stdint.h>
#include <string.h>

#include "tests/mpi/check.h"

enum { kMessage = 256, kMessages = 40 };

static int rank, size;

static void ring_bsend(MPI_Comm comm, int count, int tag, int expect) {
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  char out[kMessage], in[kMessage];
  for (int i = 0; i < count; i++) {
    memset(out, (char)(rank * 16 + i), sizeof out);
    CHECK_EQ(MPI_Bsend(out, kMessage, MPI_CHAR, next, tag, comm), expect);
  }
  if (expect != MPI_SUCCESS) return;
  for (int i = 0; i < count; i++) {
    MPI_OK(MPI_Recv(in, kMessage, MPI_CHAR, prev, tag, comm, MPI_STATUS_IGNORE));
    for (int b = 0; b < kMessage; b++) CHECK_EQ(in[b], (char)(prev * 16 + i));
  }
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int one = kMessage + MPI_BSEND_OVERHEAD;

  /* The process's buffer: room for one message only. */
  static char process_buf[kMessage + MPI_BSEND_OVERHEAD];
  MPI_OK(MPI_Buffer_attach(process_buf, one));
  CHECK_EQ(MPI_Buffer_attach(process_buf, one), MPI_ERR_BUFFER); /* already attached */

  /* A communicator with a buffer for every message of the ring: its sends use it. */
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
  int big = kMessages * one;
  char* comm_buf = malloc((size_t)big);
  MPI_OK(MPI_Comm_attach_buffer(dup, comm_buf, big));
  CHECK_EQ(MPI_Comm_attach_buffer(dup, comm_buf, big), MPI_ERR_BUFFER);
  ring_bsend(dup, kMessages, 1, MPI_SUCCESS);
  MPI_OK(MPI_Comm_flush_buffer(dup));
  /* MPI_COMM_WORLD has no buffer of its own: the process's, which holds one message. */
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  char m[kMessage];
  memset(m, 7, sizeof m);
  MPI_OK(MPI_Bsend(m, kMessage, MPI_CHAR, next, 2, MPI_COMM_WORLD));
  MPI_Request flush;
  MPI_OK(MPI_Buffer_iflush(&flush));
  MPI_OK(MPI_Recv(m, kMessage, MPI_CHAR, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Wait(&flush, MPI_STATUS_IGNORE));
  CHECK(flush == MPI_REQUEST_NULL);
  /* A message larger than the process's whole buffer does not fit (the communicator's is not
   * used), whatever the library's real overhead up to MPI_BSEND_OVERHEAD. */
  static char two[kMessage + MPI_BSEND_OVERHEAD + 1];
  CHECK_EQ(MPI_Bsend(two, (int)sizeof two, MPI_CHAR, next, 3, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  MPI_OK(MPI_Buffer_flush());

  /* Detach gives back what was attached. */
  void* addr = NULL;
  int got = -1;
  MPI_OK(MPI_Comm_detach_buffer(dup, &addr, &got));
  CHECK(addr == comm_buf);
  CHECK_EQ(got, big);
  MPI_Count got_c = -1;
  MPI_OK(MPI_Buffer_detach_c(&addr, &got_c));
  CHECK(addr == process_buf);
  CHECK_EQ(got_c, one);

  /* MPI_BUFFER_AUTOMATIC on the communicator: no message is ever refused for room. */
  MPI_OK(MPI_Comm_attach_buffer_c(dup, MPI_BUFFER_AUTOMATIC, 0));
  ring_bsend(dup, kMessages, 4, MPI_SUCCESS);
  MPI_OK(MPI_Comm_iflush_buffer(dup, &flush));
  MPI_OK(MPI_Wait(&flush, MPI_STATUS_IGNORE));
  MPI_Count auto_size = -1;
  MPI_OK(MPI_Comm_detach_buffer_c(dup, &addr, &auto_size));
  CHECK(addr == MPI_BUFFER_AUTOMATIC);
  CHECK_EQ(auto_size, 0);
  /* No buffer anywhere now: a buffered send has no room. */
  CHECK_EQ(MPI_Bsend(m, kMessage, MPI_CHAR, next, 5, dup), MPI_ERR_BUFFER);

  /* A session's buffer serves the communicators made from its process sets. */
  MPI_Session session;
  MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
  MPI_Group world_group;
  MPI_OK(MPI_Group_from_session_pset(session, "mpi://WORLD", &world_group));
  MPI_Comm scomm;
  MPI_OK(MPI_Comm_create_from_group(world_group, "org.gasket.tests.buffers", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                    &scomm));
  CHECK_EQ(MPI_Bsend(m, kMessage, MPI_CHAR, next, 6, scomm), MPI_ERR_BUFFER); /* none yet */
  char* session_buf = malloc((size_t)big);
  MPI_OK(MPI_Session_attach_buffer(session, session_buf, big));
  CHECK_EQ(MPI_Session_attach_buffer(session, session_buf, big), MPI_ERR_BUFFER);
  ring_bsend(scomm, kMessages, 7, MPI_SUCCESS);
  MPI_OK(MPI_Session_flush_buffer(session));
  MPI_OK(MPI_Session_iflush_buffer(session, &flush));
  MPI_OK(MPI_Wait(&flush, MPI_STATUS_IGNORE));
  /* The session's buffer is not MPI_COMM_WORLD's. */
  CHECK_EQ(MPI_Bsend(m, kMessage, MPI_CHAR, next, 8, MPI_COMM_WORLD), MPI_ERR_BUFFER);
  MPI_OK(MPI_Session_detach_buffer(session, &addr, &got));
  CHECK(addr == session_buf);
  CHECK_EQ(got, big);
  MPI_OK(MPI_Session_attach_buffer_c(session, MPI_BUFFER_AUTOMATIC, 0));
  ring_bsend(scomm, kMessages, 9, MPI_SUCCESS);
  MPI_OK(MPI_Session_detach_buffer_c(session, &addr, &got_c));
  CHECK(addr == MPI_BUFFER_AUTOMATIC);

  MPI_OK(MPI_Comm_free(&scomm));
  MPI_OK(MPI_Group_free(&world_group));
  MPI_OK(MPI_Session_finalize(&session));
  MPI_OK(MPI_Comm_free(&dup));
  free(comm_buf);
  free(session_buf);
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("ok: buffers per process, communicator and session (%d ranks)\n", size);
  return 0;
}
