/* Regression: MPI_MESSAGE_NO_PROC was -1, which does not survive a round trip
 * through unsigned types (mpi4py holds handles as unsigned integers and compared 0xffffffff with
 * the sign-extended value). Every predefined handle is non-negative and keeps its value through
 * unsigned int and uintptr_t; the nulls are 0; no predefined handle of a kind equals its null; and
 * MPI_MESSAGE_NO_PROC still works: MPI_Mprobe from MPI_PROC_NULL returns it and MPI_Mrecv of it
 * completes with an empty status. */
#include <stdint.h>

#include "check.h"

#define HANDLE(h) {#h, (long long)(h)}
static const struct {
  const char* name;
  long long value;
} kPredefined[] = {
    HANDLE(MPI_COMM_NULL), HANDLE(MPI_COMM_WORLD), HANDLE(MPI_COMM_SELF), HANDLE(MPI_GROUP_NULL),
    HANDLE(MPI_GROUP_EMPTY), HANDLE(MPI_REQUEST_NULL), HANDLE(MPI_MESSAGE_NULL), HANDLE(MPI_MESSAGE_NO_PROC),
    HANDLE(MPI_INFO_NULL), HANDLE(MPI_INFO_ENV), HANDLE(MPI_ERRHANDLER_NULL), HANDLE(MPI_ERRORS_ARE_FATAL),
    HANDLE(MPI_ERRORS_RETURN), HANDLE(MPI_OP_NULL), HANDLE(MPI_MAX), HANDLE(MPI_NO_OP), HANDLE(MPI_WIN_NULL),
    HANDLE(MPI_DATATYPE_NULL), HANDLE(MPI_CHAR), HANDLE(MPI_INT), HANDLE(MPI_DOUBLE), HANDLE(MPI_LB),
    HANDLE(MPI_UB), HANDLE(MPI_2INT), HANDLE(MPI_PACKED),
};

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (size_t i = 0; i < sizeof kPredefined / sizeof kPredefined[0]; i++) {
    int h = (int)kPredefined[i].value;
    if (h < 0 || (long long)(unsigned)h != kPredefined[i].value || (long long)(uintptr_t)h != kPredefined[i].value ||
        (int)(unsigned)h != h) {
      fprintf(stderr, "rank %d: %s = %d does not survive unsigned conversions\n", rank, kPredefined[i].name, h);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  CHECK(MPI_COMM_NULL == 0 && MPI_DATATYPE_NULL == 0 && MPI_MESSAGE_NULL == 0 && MPI_REQUEST_NULL == 0);
  CHECK(MPI_MESSAGE_NO_PROC != MPI_MESSAGE_NULL);

  MPI_Message m = MPI_MESSAGE_NULL;
  MPI_Status st;
  MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &m, &st));
  CHECK_EQ(m, MPI_MESSAGE_NO_PROC);
  CHECK_EQ((unsigned)m, (unsigned)MPI_MESSAGE_NO_PROC);
  CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  int x = 42, count = -1;
  MPI_OK(MPI_Mrecv(&x, 1, MPI_INT, &m, &st));
  CHECK_EQ(m, MPI_MESSAGE_NULL);
  CHECK_EQ(x, 42);
  CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL);
  MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK_EQ(count, 0);
  if (rank == 0) printf("predefined_handle_values: ok\n");
  MPI_Finalize();
  return 0;
}
