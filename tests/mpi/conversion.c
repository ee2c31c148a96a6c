/* Handle and status conversion between C and Fortran (MPI 4.1 section 19.3.4-5): every kind's
 * c2f/f2c round trip, invalid and freed Fortran handles giving the null handle, and statuses
 * carried through the Fortran and F08 forms keeping source, tag, error and the element count.
 * Built against the standard ABI's mpi.h (no GASKET_MPI), which has no MPI_Fint and leaves
 * c2f/f2c and the Fortran statuses to the Fortran layer (MPI 5.0 section 20.3), the round trips
 * go through MPI_x_toint/MPI_x_fromint instead; the checks of invalid and freed Fortran handles
 * and of the Fortran statuses are native-only (fromint of a value toint did not return, or of
 * a freed handle's, is erroneous). */
#include <string.h>

#include "check.h"

#ifndef GASKET_MPI
typedef int handle_int;
#define TO_INT(Kind, handle) MPI_##Kind##_toint(handle)
#define FROM_INT(Kind, value) MPI_##Kind##_fromint(value)
#define F2C_ONLY(...)
#else
typedef MPI_Fint handle_int;
#define TO_INT(Kind, handle) MPI_##Kind##_c2f(handle)
#define FROM_INT(Kind, value) MPI_##Kind##_f2c(value)
#define F2C_ONLY(...) __VA_ARGS__
#endif

static void check_handle_round_trips(void) {
  CHECK_EQ(FROM_INT(Comm, TO_INT(Comm, MPI_COMM_WORLD)), MPI_COMM_WORLD);
  CHECK_EQ(FROM_INT(Comm, TO_INT(Comm, MPI_COMM_SELF)), MPI_COMM_SELF);
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  handle_int fdup = TO_INT(Comm, dup);
  CHECK_EQ(FROM_INT(Comm, fdup), dup);
  MPI_OK(MPI_Comm_free(&dup));
  F2C_ONLY(CHECK_EQ(FROM_INT(Comm, fdup), MPI_COMM_NULL)); /* freed */
  F2C_ONLY(CHECK_EQ(FROM_INT(Comm, -5), MPI_COMM_NULL));
  F2C_ONLY(CHECK_EQ(FROM_INT(Comm, 123456), MPI_COMM_NULL));

  CHECK_EQ(FROM_INT(Type, TO_INT(Type, MPI_DOUBLE)), MPI_DOUBLE);
  MPI_Datatype vec;
  MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &vec));
  CHECK_EQ(FROM_INT(Type, TO_INT(Type, vec)), vec); /* not yet committed: still a type */
  handle_int fvec = TO_INT(Type, vec);
  MPI_OK(MPI_Type_free(&vec));
  F2C_ONLY(CHECK_EQ(FROM_INT(Type, fvec), MPI_DATATYPE_NULL));
  F2C_ONLY(CHECK_EQ(FROM_INT(Type, 99999), MPI_DATATYPE_NULL));

  MPI_Group g;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
  handle_int fg = TO_INT(Group, g);
  CHECK_EQ(FROM_INT(Group, fg), g);
  MPI_OK(MPI_Group_free(&g));
  F2C_ONLY(CHECK_EQ(FROM_INT(Group, fg), MPI_GROUP_NULL));
  CHECK_EQ(FROM_INT(Group, TO_INT(Group, MPI_GROUP_EMPTY)), MPI_GROUP_EMPTY);

  CHECK_EQ(FROM_INT(Op, TO_INT(Op, MPI_SUM)), MPI_SUM);
  F2C_ONLY(CHECK_EQ(FROM_INT(Op, -1), MPI_OP_NULL));

  MPI_Info info;
  MPI_OK(MPI_Info_create(&info));
  handle_int finfo = TO_INT(Info, info);
  CHECK_EQ(FROM_INT(Info, finfo), info);
  MPI_OK(MPI_Info_free(&info));
  F2C_ONLY(CHECK_EQ(FROM_INT(Info, finfo), MPI_INFO_NULL));
  CHECK_EQ(FROM_INT(Info, TO_INT(Info, MPI_INFO_ENV)), MPI_INFO_ENV);

  CHECK_EQ(FROM_INT(Errhandler, TO_INT(Errhandler, MPI_ERRORS_RETURN)), MPI_ERRORS_RETURN);
  F2C_ONLY(CHECK_EQ(FROM_INT(Errhandler, 4242), MPI_ERRHANDLER_NULL));

  int base = 7;
  MPI_Win win;
  MPI_OK(MPI_Win_create(&base, sizeof base, sizeof base, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  handle_int fwin = TO_INT(Win, win);
  CHECK_EQ(FROM_INT(Win, fwin), win);
  MPI_OK(MPI_Win_free(&win));
  F2C_ONLY(CHECK_EQ(FROM_INT(Win, fwin), MPI_WIN_NULL));

  CHECK_EQ(FROM_INT(Message, TO_INT(Message, MPI_MESSAGE_NO_PROC)), MPI_MESSAGE_NO_PROC);
  F2C_ONLY(CHECK_EQ(FROM_INT(Message, 77), MPI_MESSAGE_NULL));
  F2C_ONLY(CHECK_EQ(FROM_INT(Session, 3), 0));
  F2C_ONLY(CHECK_EQ(FROM_INT(File, 3), 0));
  CHECK_EQ(FROM_INT(Request, TO_INT(Request, MPI_REQUEST_NULL)), MPI_REQUEST_NULL);
  F2C_ONLY(CHECK_EQ(FROM_INT(Request, 31337), MPI_REQUEST_NULL));
}

#ifndef GASKET_MPI
/* The status of MPI_Wait itself: the fields and the count as the library left them. */
static void check_status(const MPI_Status* st, int left) {
  int count = -1;
  MPI_OK(MPI_Get_count(st, MPI_DOUBLE, &count));
  CHECK_EQ(count, 3);
  CHECK_EQ(st->MPI_SOURCE, left);
  CHECK_EQ(st->MPI_TAG, 9);
  CHECK_EQ(st->MPI_ERROR, 4321);
}
#else
/* The status through Fortran, F08, back to Fortran and C: the fields and the count survive. */
static void check_status(const MPI_Status* st, int left) {
  MPI_Fint fst[MPI_F_STATUS_SIZE], fst2[MPI_F_STATUS_SIZE];
  MPI_F08_status f08;
  MPI_Status back;
  MPI_OK(MPI_Status_c2f(st, fst));
  CHECK_EQ(fst[MPI_F_SOURCE], left);
  CHECK_EQ(fst[MPI_F_TAG], 9);
  CHECK_EQ(fst[MPI_F_ERROR], 4321);
  MPI_OK(MPI_Status_f2f08(fst, &f08));
  CHECK_EQ(f08.MPI_SOURCE, left);
  CHECK_EQ(f08.MPI_TAG, 9);
  MPI_OK(MPI_Status_f082f(&f08, fst2));
  CHECK(memcmp(fst, fst2, sizeof fst) == 0);
  MPI_OK(MPI_Status_f2c(fst2, &back));
  int count = -1;
  MPI_OK(MPI_Get_count(&back, MPI_DOUBLE, &count));
  CHECK_EQ(count, 3);
  CHECK_EQ(back.MPI_SOURCE, left);
  MPI_OK(MPI_Status_c2f08(&back, &f08));
  memset(&back, 0, sizeof back);
  MPI_OK(MPI_Status_f082c(&f08, &back));
  MPI_OK(MPI_Get_count(&back, MPI_DOUBLE, &count));
  CHECK_EQ(count, 3);
  CHECK_EQ(back.MPI_TAG, 9);
}

/* The IGNORE values and NULL are refused with MPI_ERR_ARG. */
static void check_status_errors(void) {
  MPI_Status st;
  MPI_Fint fst[MPI_F_STATUS_SIZE] = {0};
  MPI_F08_status f08;
  int cls = -1;
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Error_class(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &st), &cls);
  CHECK_EQ(cls, MPI_ERR_ARG);
  MPI_Error_class(MPI_Status_c2f(MPI_STATUS_IGNORE, fst), &cls);
  CHECK_EQ(cls, MPI_ERR_ARG);
  MPI_Error_class(MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &st), &cls);
  CHECK_EQ(cls, MPI_ERR_ARG);
  MPI_Error_class(MPI_Status_f2f08(fst, NULL), &cls);
  CHECK_EQ(cls, MPI_ERR_ARG);
  MPI_OK(MPI_Status_f2f08(fst, &f08));
  CHECK(MPI_F_STATUS_IGNORE != MPI_F_STATUSES_IGNORE);
  CHECK(MPI_F08_STATUS_IGNORE != MPI_F08_STATUSES_IGNORE);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}
#endif

/* A live request and a matched message convert both ways while they exist. */
static void check_request_and_message(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double out[5] = {rank, rank + 0.5, 2, 3, 4}, in[5];
  MPI_Request r;
  MPI_OK(MPI_Irecv(in, 5, MPI_DOUBLE, left, 9, MPI_COMM_WORLD, &r));
  handle_int fr = TO_INT(Request, r);
  CHECK_EQ(FROM_INT(Request, fr), r);
  MPI_OK(MPI_Send(out, 3, MPI_DOUBLE, right, 9, MPI_COMM_WORLD));
  MPI_Status st;
  st.MPI_ERROR = 4321; /* MPI_Wait leaves MPI_ERROR as set: the conversions must carry it */
  MPI_OK(MPI_Wait(&r, &st));
  F2C_ONLY(CHECK_EQ(FROM_INT(Request, fr), MPI_REQUEST_NULL)); /* completed and released */
  CHECK_EQ((int)in[0], left);

  check_status(&st, left);

  /* A message from MPI_Mprobe converts while it is pending, not after MPI_Mrecv. */
  MPI_OK(MPI_Send(out, 5, MPI_DOUBLE, right, 10, MPI_COMM_WORLD));
  MPI_Message m;
  MPI_OK(MPI_Mprobe(left, 10, MPI_COMM_WORLD, &m, &st));
  handle_int fm = TO_INT(Message, m);
  CHECK_EQ(FROM_INT(Message, fm), m);
  MPI_OK(MPI_Mrecv(in, 5, MPI_DOUBLE, &m, &st));
  F2C_ONLY(CHECK_EQ(FROM_INT(Message, fm), MPI_MESSAGE_NULL));
  CHECK(in[1] == left + 0.5);
}

int main(int argc, char** argv) {
  /* Before MPI_Init only the predefined handles exist. */
  CHECK_EQ(FROM_INT(Comm, TO_INT(Comm, MPI_COMM_WORLD)), MPI_COMM_WORLD);
  F2C_ONLY(CHECK_EQ(FROM_INT(Comm, 3), MPI_COMM_NULL));
  F2C_ONLY(CHECK_EQ(FROM_INT(Type, MPI_INT), MPI_INT));
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  check_handle_round_trips();
  check_request_and_message(rank, size);
  F2C_ONLY(check_status_errors());
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("conversion: %d ranks OK\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
