/* Handle and status conversion between C and Fortran (MPI 4.1 section 19.3.4-5): every kind's
 * c2f/f2c round trip, invalid and freed Fortran handles giving the null handle, and statuses
 * carried through the Fortran and F08 forms keeping source, tag, error and the element count. */
#include <string.h>

#include "check.h"

static void check_handle_round_trips(void) {
  CHECK_EQ(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)), MPI_COMM_WORLD);
  CHECK_EQ(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_SELF)), MPI_COMM_SELF);
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_Fint fdup = MPI_Comm_c2f(dup);
  CHECK_EQ(MPI_Comm_f2c(fdup), dup);
  MPI_OK(MPI_Comm_free(&dup));
  CHECK_EQ(MPI_Comm_f2c(fdup), MPI_COMM_NULL); /* freed */
  CHECK_EQ(MPI_Comm_f2c(-5), MPI_COMM_NULL);
  CHECK_EQ(MPI_Comm_f2c(123456), MPI_COMM_NULL);

  CHECK_EQ(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)), MPI_DOUBLE);
  MPI_Datatype vec;
  MPI_OK(MPI_Type_vector(2, 1, 3, MPI_INT, &vec));
  CHECK_EQ(MPI_Type_f2c(MPI_Type_c2f(vec)), vec); /* not yet committed: still a type */
  MPI_Fint fvec = MPI_Type_c2f(vec);
  MPI_OK(MPI_Type_free(&vec));
  CHECK_EQ(MPI_Type_f2c(fvec), MPI_DATATYPE_NULL);
  CHECK_EQ(MPI_Type_f2c(99999), MPI_DATATYPE_NULL);

  MPI_Group g;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
  MPI_Fint fg = MPI_Group_c2f(g);
  CHECK_EQ(MPI_Group_f2c(fg), g);
  MPI_OK(MPI_Group_free(&g));
  CHECK_EQ(MPI_Group_f2c(fg), MPI_GROUP_NULL);
  CHECK_EQ(MPI_Group_f2c(MPI_Group_c2f(MPI_GROUP_EMPTY)), MPI_GROUP_EMPTY);

  CHECK_EQ(MPI_Op_f2c(MPI_Op_c2f(MPI_SUM)), MPI_SUM);
  CHECK_EQ(MPI_Op_f2c(-1), MPI_OP_NULL);

  MPI_Info info;
  MPI_OK(MPI_Info_create(&info));
  MPI_Fint finfo = MPI_Info_c2f(info);
  CHECK_EQ(MPI_Info_f2c(finfo), info);
  MPI_OK(MPI_Info_free(&info));
  CHECK_EQ(MPI_Info_f2c(finfo), MPI_INFO_NULL);
  CHECK_EQ(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_ENV)), MPI_INFO_ENV);

  CHECK_EQ(MPI_Errhandler_f2c(MPI_Errhandler_c2f(MPI_ERRORS_RETURN)), MPI_ERRORS_RETURN);
  CHECK_EQ(MPI_Errhandler_f2c(4242), MPI_ERRHANDLER_NULL);

  int base = 7;
  MPI_Win win;
  MPI_OK(MPI_Win_create(&base, sizeof base, sizeof base, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_Fint fwin = MPI_Win_c2f(win);
  CHECK_EQ(MPI_Win_f2c(fwin), win);
  MPI_OK(MPI_Win_free(&win));
  CHECK_EQ(MPI_Win_f2c(fwin), MPI_WIN_NULL);

  CHECK_EQ(MPI_Message_f2c(MPI_Message_c2f(MPI_MESSAGE_NO_PROC)), MPI_MESSAGE_NO_PROC);
  CHECK_EQ(MPI_Message_f2c(77), MPI_MESSAGE_NULL);
  CHECK_EQ(MPI_Session_f2c(3), 0);
  CHECK_EQ(MPI_File_f2c(3), 0);
  CHECK_EQ(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)), MPI_REQUEST_NULL);
  CHECK_EQ(MPI_Request_f2c(31337), MPI_REQUEST_NULL);
}

/* A live request and a matched message convert both ways while they exist. */
static void check_request_and_message(int rank, int size) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double out[5] = {rank, rank + 0.5, 2, 3, 4}, in[5];
  MPI_Request r;
  MPI_OK(MPI_Irecv(in, 5, MPI_DOUBLE, left, 9, MPI_COMM_WORLD, &r));
  MPI_Fint fr = MPI_Request_c2f(r);
  CHECK_EQ(MPI_Request_f2c(fr), r);
  MPI_OK(MPI_Send(out, 3, MPI_DOUBLE, right, 9, MPI_COMM_WORLD));
  MPI_Status st;
  st.MPI_ERROR = 4321; /* MPI_Wait leaves MPI_ERROR as set: the conversions must carry it */
  MPI_OK(MPI_Wait(&r, &st));
  CHECK_EQ(MPI_Request_f2c(fr), MPI_REQUEST_NULL); /* completed and released */
  CHECK_EQ((int)in[0], left);

  /* The status through Fortran, F08, back to Fortran and C: the fields and the count survive. */
  MPI_Fint fst[MPI_F_STATUS_SIZE], fst2[MPI_F_STATUS_SIZE];
  MPI_F08_status f08;
  MPI_Status back;
  MPI_OK(MPI_Status_c2f(&st, fst));
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

  /* A message from MPI_Mprobe converts while it is pending, not after MPI_Mrecv. */
  MPI_OK(MPI_Send(out, 5, MPI_DOUBLE, right, 10, MPI_COMM_WORLD));
  MPI_Message m;
  MPI_OK(MPI_Mprobe(left, 10, MPI_COMM_WORLD, &m, &st));
  MPI_Fint fm = MPI_Message_c2f(m);
  CHECK_EQ(MPI_Message_f2c(fm), m);
  MPI_OK(MPI_Mrecv(in, 5, MPI_DOUBLE, &m, &st));
  CHECK_EQ(MPI_Message_f2c(fm), MPI_MESSAGE_NULL);
  CHECK(in[1] == left + 0.5);
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

int main(int argc, char** argv) {
  /* Before MPI_Init only the predefined handles exist. */
  CHECK_EQ(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)), MPI_COMM_WORLD);
  CHECK_EQ(MPI_Comm_f2c(3), MPI_COMM_NULL);
  CHECK_EQ(MPI_Type_f2c(MPI_INT), MPI_INT);
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  check_handle_round_trips();
  check_request_and_message(rank, size);
  check_status_errors();
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("conversion: %d ranks OK\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
