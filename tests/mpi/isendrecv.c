/* MPI_Isendrecv(_replace) and their _c forms: rings of contiguous, strided and rendezvous-sized
 * data completing through MPI_Wait/MPI_Test/MPI_Waitall with the receive's status; MPI_PROC_NULL;
 * bad arguments; and MPI_Status_set_elements_x. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, size, left, right;

static void check_status(const MPI_Status* st, int source, int tag, MPI_Datatype type, int count) {
  int n = -1;
  CHECK_EQ(st->MPI_SOURCE, source);
  CHECK_EQ(st->MPI_TAG, tag);
  MPI_OK(MPI_Get_count(st, type, &n));
  CHECK_EQ(n, count);
}

static void ring(int n, int tag) {
  double* out = malloc(n * sizeof(double));
  double* in = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) out[i] = rank * 1e6 + i, in[i] = -1;
  MPI_Request r;
  MPI_Status st;
  MPI_OK(MPI_Isendrecv(out, n, MPI_DOUBLE, right, tag, in, n, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, &r));
  int done = 0;
  while (!done) MPI_OK(MPI_Test(&r, &done, &st)); /* completes by polling alone */
  CHECK_EQ(r, MPI_REQUEST_NULL);
  check_status(&st, left, tag, MPI_DOUBLE, n);
  for (int i = 0; i < n; i++) CHECK(in[i] == left * 1e6 + i);
  free(out);
  free(in);
}

/* Strided data in place: every other int replaced by the left neighbour's, the gaps untouched. */
static void ring_replace_strided(void) {
  enum { N = 1000 };
  int buf[2 * N];
  MPI_Datatype every_other;
  MPI_OK(MPI_Type_vector(N, 1, 2, MPI_INT, &every_other));
  MPI_OK(MPI_Type_commit(&every_other));
  for (int i = 0; i < 2 * N; i++) buf[i] = i % 2 ? -7 : rank * 100000 + i;
  MPI_Request r;
  MPI_Status st;
  MPI_OK(MPI_Isendrecv_replace(buf, 1, every_other, right, 5, left, 5, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Wait(&r, &st));
  check_status(&st, left, 5, MPI_INT, N);
  for (int i = 0; i < 2 * N; i++) CHECK_EQ(buf[i], i % 2 ? -7 : left * 100000 + i);
  MPI_OK(MPI_Type_free(&every_other));
}

/* Several in flight at once, large (rendezvous) and small, completed together in any order. */
static void several_in_flight(void) {
  enum { BIG = 1 << 19 };
  long long* big = malloc(BIG * sizeof(long long));
  long long* big_in = malloc(BIG * sizeof(long long));
  long long* rep = malloc(BIG * sizeof(long long)); /* the replace form's own buffer */
  for (int i = 0; i < BIG; i++) big[i] = rep[i] = (long long)rank << 32 | i;
  int small = rank, small_in = -1;
  MPI_Request r[3];
  MPI_Status st[3];
  MPI_OK(MPI_Isendrecv_c(big, BIG, MPI_LONG_LONG, right, 1, big_in, BIG, MPI_LONG_LONG, left, 1, MPI_COMM_WORLD, &r[0]));
  MPI_OK(MPI_Isendrecv(&small, 1, MPI_INT, left, 2, &small_in, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &r[1]));
  MPI_OK(MPI_Isendrecv_replace_c(rep, BIG, MPI_LONG_LONG, left, 3, right, 3, MPI_COMM_WORLD, &r[2]));
  MPI_OK(MPI_Waitall(3, r, st));
  check_status(&st[0], left, 1, MPI_LONG_LONG, BIG);
  check_status(&st[1], right, 2, MPI_INT, 1);
  check_status(&st[2], right, 3, MPI_LONG_LONG, BIG);
  CHECK_EQ(small_in, right);
  for (int i = 0; i < BIG; i++) {
    CHECK_EQ(big_in[i], (long long)left << 32 | i);
    CHECK_EQ(rep[i], (long long)right << 32 | i);
    CHECK_EQ(big[i], (long long)rank << 32 | i); /* a send buffer is not changed */
  }
  free(rep);
  free(big);
  free(big_in);
}

static void proc_null_and_errors(void) {
  int x = 1, y = 2;
  MPI_Request r;
  MPI_Status st;
  MPI_OK(MPI_Isendrecv(&x, 1, MPI_INT, MPI_PROC_NULL, 0, &y, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Wait(&r, &st));
  check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0);
  CHECK_EQ(y, 2);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int cls = -1;
  MPI_Error_class(MPI_Isendrecv(&x, 1, MPI_INT, size, 0, &y, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r), &cls);
  CHECK_EQ(cls, MPI_ERR_RANK);
  MPI_Error_class(MPI_Isendrecv_replace(&x, 1, MPI_INT, right, 0, left, 0, MPI_COMM_WORLD, NULL), &cls);
  CHECK_EQ(cls, MPI_ERR_ARG);
  MPI_Error_class(MPI_Isendrecv(&x, -1, MPI_INT, right, 0, &y, 1, MPI_INT, left, 0, MPI_COMM_WORLD, &r), &cls);
  CHECK_EQ(cls, MPI_ERR_COUNT);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void status_set_elements_x(void) {
  MPI_Status st;
  MPI_Count n = -1;
  int small = -1;
  MPI_OK(MPI_Status_set_elements_x(&st, MPI_INT, 5));
  MPI_OK(MPI_Get_elements_c(&st, MPI_INT, &n));
  CHECK_EQ(n, 5);
  MPI_OK(MPI_Status_set_elements_x(&st, MPI_DOUBLE, 3000000000LL)); /* beyond int */
  MPI_OK(MPI_Get_elements_c(&st, MPI_DOUBLE, &n));
  CHECK_EQ(n, 3000000000LL);
  MPI_OK(MPI_Get_elements(&st, MPI_DOUBLE, &small));
  CHECK_EQ(small, MPI_UNDEFINED);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  right = (rank + 1) % size, left = (rank + size - 1) % size;
  ring(1, 11);
  ring(1000, 12);
  ring(1 << 18, 13); /* 2 MiB: rendezvous */
  ring_replace_strided();
  several_in_flight();
  proc_null_and_errors();
  status_set_elements_x();
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("isendrecv: %d ranks OK\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
