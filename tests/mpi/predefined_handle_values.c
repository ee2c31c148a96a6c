/* Regression: MPI_MESSAGE_NO_PROC was -1, which does not survive a round trip
 * through unsigned types (mpi4py holds handles as unsigned integers and compared 0xffffffff with
 * the sign-extended value). Every predefined handle is non-negative and keeps its value through
 * unsigned int and uintptr_t; the nulls are 0; no predefined handle of a kind equals its null; and
 * MPI_MESSAGE_NO_PROC still works: MPI_Mprobe from MPI_PROC_NULL returns it and MPI_Mrecv of it
 * completes with an empty status. Built against the standard ABI's mpi.h (no GASKET_MPI),
 * the values checked are the ABI's instead (MPI_LB and MPI_UB, removed from MPI, are not in it). */
#include <stdint.h>

#include "check.h"

#ifndef GASKET_MPI
/* Built against the standard ABI's mpi.h: its handles are pointers whose values the standard
 * fixes (MPI 5.0 chapter 20, the values of its ABI header), nulls included. */
#define HANDLE(h, abi) {#h, (long long)(uintptr_t)(h), abi}
static const struct {
  const char* name;
  long long value, abi;
} kPredefined[] = {
    HANDLE(MPI_COMM_NULL, 0x100),        HANDLE(MPI_COMM_WORLD, 0x101),       HANDLE(MPI_COMM_SELF, 0x102),
    HANDLE(MPI_GROUP_NULL, 0x108),       HANDLE(MPI_GROUP_EMPTY, 0x109),      HANDLE(MPI_REQUEST_NULL, 0x180),
    HANDLE(MPI_MESSAGE_NULL, 0x128),     HANDLE(MPI_MESSAGE_NO_PROC, 0x129),  HANDLE(MPI_INFO_NULL, 0x130),
    HANDLE(MPI_INFO_ENV, 0x131),         HANDLE(MPI_ERRHANDLER_NULL, 0x140),  HANDLE(MPI_ERRORS_ARE_FATAL, 0x141),
    HANDLE(MPI_ERRORS_RETURN, 0x143),    HANDLE(MPI_OP_NULL, 0x20),           HANDLE(MPI_MAX, 0x23),
    HANDLE(MPI_NO_OP, 0x3d),             HANDLE(MPI_WIN_NULL, 0x110),         HANDLE(MPI_DATATYPE_NULL, 0x200),
    HANDLE(MPI_CHAR, 0x243),             HANDLE(MPI_INT, 0x209),              HANDLE(MPI_DOUBLE, 0x214),
    HANDLE(MPI_2INT, 0x22b),             HANDLE(MPI_PACKED, 0x207),
};

static void check_values(int rank) {
  for (size_t i = 0; i < sizeof kPredefined / sizeof kPredefined[0]; i++) {
    if (kPredefined[i].value != kPredefined[i].abi) {
      fprintf(stderr, "rank %d: %s = %#llx, the standard ABI's is %#llx\n", rank, kPredefined[i].name,
              kPredefined[i].value, kPredefined[i].abi);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
}
#else
/* gasket's native mpi.h: its handles are ints. */
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

static void check_values(int rank) {
  for (size_t i = 0; i < sizeof kPredefined / sizeof kPredefined[0]; i++) {
    int h = (int)kPredefined[i].value;
    if (h < 0 || (long long)(unsigned)h != kPredefined[i].value || (long long)(uintptr_t)h != kPredefined[i].value ||
        (int)(unsigned)h != h) {
      fprintf(stderr, "rank %d: %s = %d does not survive unsigned conversions\n", rank, kPredefined[i].name, h);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
  CHECK(MPI_COMM_NULL == 0 && MPI_DATATYPE_NULL == 0 && MPI_MESSAGE_NULL == 0 && MPI_REQUEST_NULL == 0);
}
#endif

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  check_values(rank);
  CHECK(MPI_MESSAGE_NO_PROC != MPI_MESSAGE_NULL);

  MPI_Message m = MPI_MESSAGE_NULL;
  MPI_Status st;
  MPI_OK(MPI_Mprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &m, &st));
  CHECK_EQ(m, MPI_MESSAGE_NO_PROC);
  CHECK_EQ((unsigned)(uintptr_t)m, (unsigned)(uintptr_t)MPI_MESSAGE_NO_PROC);
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
