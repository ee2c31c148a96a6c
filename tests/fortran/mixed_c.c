/* The C half of mixed_suite: handles arrive from Fortran as MPI_Fint and go back with c2f. */
#include <stdio.h>

#include "mpi.h"

static int failures;
static void expect(int ok, const char* what) {
  if (!ok) {
    fprintf(stderr, "mixed_suite (C): FAILED: %s\n", what);
    ++failures;
  }
}

/* Fortran's view of mpi.h's values, in this order (mixed_suite.f90 sends the same list). */
int c_check_constants(const MPI_Fint* f, int n) {
  const int c[] = {MPI_COMM_WORLD, MPI_COMM_SELF, MPI_COMM_NULL, MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION,
                   MPI_LOGICAL, MPI_2REAL, MPI_INTEGER8, MPI_SUM, MPI_MAXLOC, MPI_ERRORS_RETURN, MPI_INFO_NULL,
                   MPI_REQUEST_NULL, MPI_GROUP_EMPTY, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL, MPI_UNDEFINED,
                   MPI_ERR_TRUNCATE, MPI_F_STATUS_SIZE, MPI_TAG_UB, MPI_MAX_OBJECT_NAME};
  expect(n == (int)(sizeof c / sizeof c[0]), "the constant lists have the same length");
  for (int i = 0; i < n && i < (int)(sizeof c / sizeof c[0]); ++i) {
    if (f[i] != c[i]) {
      fprintf(stderr, "mixed_suite (C): constant %d is %d in Fortran and %d in C\n", i, f[i], c[i]);
      ++failures;
    }
  }
  return failures;
}

/* A communicator and a datatype made in C for Fortran; the Fortran status converted to C's. */
int c_make_handles(MPI_Fint f_comm, MPI_Fint* f_dup, MPI_Fint* f_type, MPI_Fint* f_status) {
  MPI_Comm comm = MPI_Comm_f2c(f_comm);
  int rank, frank;
  expect(MPI_Comm_rank(comm, &rank) == MPI_SUCCESS, "the Fortran communicator works in C");
  MPI_Comm dup;
  MPI_Comm_dup(comm, &dup);
  MPI_Comm_set_name(dup, "made in C");
  *f_dup = MPI_Comm_c2f(dup);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INTEGER, &pair);
  MPI_Type_commit(&pair);
  *f_type = MPI_Type_c2f(pair);
  MPI_Status status;
  expect(MPI_Status_f2c(f_status, &status) == MPI_SUCCESS, "MPI_Status_f2c");
  MPI_Comm_rank(MPI_COMM_WORLD, &frank);
  int count = -1;
  MPI_Get_count(&status, MPI_INTEGER, &count);
  expect(count == 2, "MPI_Get_count of the Fortran status in C");
  expect(status.MPI_TAG == 9, "the Fortran status's tag");
  return failures;
}

/* Attributes across languages (MPI 4.1 section 19.3.7): one set from Fortran (MPI_COMM_SET_ATTR's
 * address-sized value, or MPI_ATTR_PUT's INTEGER) reads in C as a pointer to the stored value,
 * sign-extended to MPI_Aint. Returns 0 when `comm` has `keyval` set to `expected` that way. */
int c_attribute_points_to(MPI_Fint comm, MPI_Fint keyval, MPI_Aint expected) {
  void* p = NULL;
  int flag = 0;
  if (MPI_Comm_get_attr(MPI_Comm_f2c(comm), keyval, &p, &flag) != MPI_SUCCESS || !flag || p == NULL) return 1;
  if (*(MPI_Aint*)p != expected) return 2;
  p = NULL, flag = 0; /* the deprecated C form reads the same */
  if (MPI_Attr_get(MPI_Comm_f2c(comm), keyval, &p, &flag) != MPI_SUCCESS || !flag || *(MPI_Aint*)p != expected) return 3;
  return 0;
}

/* A C attribute is a pointer: Fortran reads the address as an integer. Returns that address. */
static double c_attribute_target = 2.5;
MPI_Aint c_attribute_set_pointer(MPI_Fint comm, MPI_Fint keyval) {
  if (MPI_Comm_set_attr(MPI_Comm_f2c(comm), keyval, &c_attribute_target) != MPI_SUCCESS) return 0;
  return (MPI_Aint)&c_attribute_target;
}
