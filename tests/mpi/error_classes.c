/* Error classes, codes and strings added by the application (MPI_Add_error_*, MPI 4.1's
 * MPI_Remove_error_*), MPI_LASTUSEDCODE following them, a user code through an error handler; and
 * MPI_Type_match_size and MPI_Type_create_f90_*. */
#include <string.h>

#include "check.h"

static int last_used(void) {
  int* value = NULL;
  int flag = 0;
  MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &value, &flag));
  CHECK(flag && value != NULL);
  return *value;
}

static int seen_code = -1;
static void remember_code(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  seen_code = *code;
}

static int class_of(int rc) {
  int cls = -1;
  MPI_OK(MPI_Error_class(rc, &cls));
  return cls;
}

static void check_user_errors(void) {
  char text[MPI_MAX_ERROR_STRING];
  int len = -1;
  CHECK_EQ(last_used(), MPI_ERR_LASTCODE);
  int cls, code, code_in_arg;
  MPI_OK(MPI_Add_error_class(&cls));
  CHECK(cls > MPI_ERR_LASTCODE);
  MPI_OK(MPI_Add_error_code(cls, &code));
  MPI_OK(MPI_Add_error_code(MPI_ERR_ARG, &code_in_arg)); /* a code of a predefined class */
  CHECK(code != cls && code_in_arg != code);
  CHECK_EQ(last_used(), code_in_arg > code ? code_in_arg : code);
  CHECK_EQ(class_of(cls), cls);
  CHECK_EQ(class_of(code), cls);
  CHECK_EQ(class_of(code_in_arg), MPI_ERR_ARG);

  MPI_OK(MPI_Error_string(code, text, &len)); /* no string yet: the empty one */
  CHECK_EQ(len, 0);
  MPI_OK(MPI_Add_error_string(code, "the widget overflowed"));
  MPI_OK(MPI_Add_error_string(cls, "widget errors"));
  MPI_OK(MPI_Error_string(code, text, &len));
  CHECK(strcmp(text, "the widget overflowed") == 0);
  CHECK_EQ(len, (int)strlen("the widget overflowed"));
  MPI_OK(MPI_Error_string(cls, text, &len));
  CHECK(strcmp(text, "widget errors") == 0);

  /* A user code reaches a user's error handler unchanged. */
  MPI_Errhandler eh;
  MPI_OK(MPI_Comm_create_errhandler(remember_code, &eh));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
  MPI_OK(MPI_Comm_call_errhandler(MPI_COMM_WORLD, code));
  CHECK_EQ(seen_code, code);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Errhandler_free(&eh));

  /* Bad input: MPI_ERR_ARG. */
  int unused;
  CHECK_EQ(class_of(MPI_Add_error_code(cls + 1000, &unused)), MPI_ERR_ARG);   /* not a class */
  CHECK_EQ(class_of(MPI_Add_error_code(code, &unused)), MPI_ERR_ARG);        /* a code, not a class */
  CHECK_EQ(class_of(MPI_Add_error_string(MPI_ERR_RANK, "mine")), MPI_ERR_ARG); /* predefined */
  CHECK_EQ(class_of(MPI_Remove_error_class(cls)), MPI_ERR_ARG);              /* still has a code */
  CHECK_EQ(class_of(MPI_Remove_error_code(cls)), MPI_ERR_ARG);               /* a class, not a code */
  CHECK_EQ(class_of(MPI_Remove_error_class(MPI_ERR_ARG)), MPI_ERR_ARG);      /* predefined */
  CHECK(MPI_Error_class(cls + 1000, &unused) == MPI_ERR_ARG);

  /* Removal (MPI 4.1): the string, then the codes, then the class; MPI_LASTUSEDCODE comes back. */
  MPI_OK(MPI_Remove_error_string(code));
  MPI_OK(MPI_Error_string(code, text, &len));
  CHECK_EQ(len, 0);
  CHECK_EQ(class_of(MPI_Remove_error_string(code)), MPI_ERR_ARG); /* already removed */
  MPI_OK(MPI_Remove_error_string(cls));
  MPI_OK(MPI_Remove_error_code(code));
  MPI_OK(MPI_Remove_error_code(code_in_arg));
  CHECK(MPI_Error_class(code, &unused) == MPI_ERR_ARG);
  MPI_OK(MPI_Remove_error_class(cls));
  CHECK(MPI_Error_class(cls, &unused) == MPI_ERR_ARG);
  CHECK_EQ(last_used(), MPI_ERR_LASTCODE);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* An MPI_Type_create_f90_* result: its combiner and arguments, and the size of its type. */
static void check_f90(MPI_Datatype t, int combiner, int n_ints, int first, int second, int bytes) {
  int ni, na, nd, comb, ints[2] = {-7, -7}, tsize;
  MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
  CHECK_EQ(comb, combiner);
  CHECK_EQ(ni, n_ints);
  CHECK_EQ(na + nd, 0);
  MPI_OK(MPI_Type_get_contents(t, 2, 0, 0, ints, NULL, NULL));
  CHECK_EQ(ints[0], first);
  if (n_ints == 2) CHECK_EQ(ints[1], second);
  MPI_OK(MPI_Type_size(t, &tsize));
  CHECK_EQ(tsize, bytes);
}

static void check_match_size(int size) {
  MPI_Datatype t;
  int bytes = -1;
  MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &t));
  MPI_OK(MPI_Type_size(t, &bytes));
  CHECK_EQ(bytes, 4);
  int one = 1, total = 0; /* the matched type works in communication */
  MPI_OK(MPI_Allreduce(&one, &total, 1, t, MPI_SUM, MPI_COMM_WORLD));
  CHECK_EQ(total, size);
  MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &t));
  CHECK_EQ(t, MPI_INTEGER8);
  MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, sizeof(double), &t));
  CHECK_EQ(t, MPI_REAL8);
  MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, sizeof(float), &t));
  CHECK_EQ(t, MPI_REAL4);
  MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 2 * sizeof(double), &t));
  CHECK_EQ(t, MPI_COMPLEX16);
  /* MPI_Type_create_f90_*: the smallest type holding the range / precision asked, reported as
   * MPI_COMBINER_F90_* with its arguments, one handle per argument list */
  MPI_OK(MPI_Type_create_f90_integer(3, &t));
  check_f90(t, MPI_COMBINER_F90_INTEGER, 1, 3, 0, 2);
  MPI_Datatype again;
  MPI_OK(MPI_Type_create_f90_integer(3, &again));
  CHECK_EQ(again, t);
  MPI_OK(MPI_Type_create_f90_integer(10, &t));
  check_f90(t, MPI_COMBINER_F90_INTEGER, 1, 10, 0, 8);
  MPI_OK(MPI_Type_create_f90_real(6, MPI_UNDEFINED, &t));
  check_f90(t, MPI_COMBINER_F90_REAL, 2, 6, MPI_UNDEFINED, (int)sizeof(float));
  MPI_OK(MPI_Type_create_f90_real(MPI_UNDEFINED, 100, &t));
  check_f90(t, MPI_COMBINER_F90_REAL, 2, MPI_UNDEFINED, 100, (int)sizeof(double));
  MPI_OK(MPI_Type_create_f90_complex(15, 300, &t));
  check_f90(t, MPI_COMBINER_F90_COMPLEX, 2, 15, 300, 2 * (int)sizeof(double));
  /* usable in communication like the type it stands for */
  double sent[2] = {1.5, -2.25}, got[2] = {0, 0};
  MPI_OK(MPI_Sendrecv(sent, 1, t, 0, 7, got, 1, t, 0, 7, MPI_COMM_SELF, MPI_STATUS_IGNORE));
  CHECK_EQ(got[0] == 1.5 && got[1] == -2.25, 1);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_EQ(class_of(MPI_Type_free(&t)), MPI_ERR_TYPE); /* predefined: cannot be freed */
  CHECK_EQ(class_of(MPI_Type_create_f90_integer(19, &t)), MPI_ERR_ARG);
  CHECK_EQ(class_of(MPI_Type_create_f90_real(40, 40, &t)), MPI_ERR_ARG);
  CHECK_EQ(class_of(MPI_Type_create_f90_complex(MPI_UNDEFINED, MPI_UNDEFINED, &t)), MPI_ERR_ARG);
  CHECK_EQ(class_of(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t)), MPI_ERR_ARG);
  CHECK_EQ(class_of(MPI_Type_match_size(MPI_TYPECLASS_REAL, 2, &t)), MPI_ERR_ARG);
  CHECK_EQ(class_of(MPI_Type_match_size(42, 4, &t)), MPI_ERR_ARG);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char** argv) {
  int cls = -1;
  MPI_OK(MPI_Error_class(MPI_ERR_TAG, &cls)); /* allowed before MPI_Init */
  CHECK_EQ(cls, MPI_ERR_TAG);
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  check_user_errors();
  check_match_size(size);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("error_classes: %d ranks OK\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
