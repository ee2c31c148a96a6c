/* MPI 4.1 / 5.0 datatypes, error classes and queries:
 * - MPI_CXX_BOOL with MPI_LAND/LOR/LXOR, MPI_CXX_{FLOAT,DOUBLE,LONG_DOUBLE}_COMPLEX with MPI_SUM
 *   and MPI_PROD, MPI_LOGICAL1..16 with the logical ops (the reductions section 6.9.2 allows);
 *   MPI_MAX on a complex type is refused (MPI_ERR_OP);
 * - MPI_Type_get_value_index gives the predefined pair type, MPI_DATATYPE_NULL when none exists;
 * - MPI_ERR_PROC_ABORTED, MPI_ERR_ERRHANDLER, MPI_ERR_ABI are classes with strings;
 * - MPI_Abi_get_version is -1 -1 for this (non-ABI) library, MPI_Abi_get_info gives the sizes of
 *   MPI_Aint/Count/Offset, MPI_Abi_get_fortran_info the sizes of gasket's Fortran types, and the
 *   settings are refused with MPI_ERR_ABI (gasket has its own Fortran layer);
 * - MPI_x_toint / MPI_x_fromint give handles back; MPI_Get_hw_resource_info counts hwloc objects.
 * Every rank r contributes values made from r; the expected results are computed here. */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tests/mpi/check.h"

static int rank, size;

static void info_value(MPI_Info info, const char* key, char* value) {
  int flag = 0, len = MPI_MAX_INFO_VAL;
  MPI_OK(MPI_Info_get_string(info, key, &len, value, &flag));
  CHECK(flag);
}

static long info_long(MPI_Info info, const char* key) {
  char v[MPI_MAX_INFO_VAL];
  info_value(info, key, v);
  return strtol(v, NULL, 10);
}

static void logical_reductions(void) {
  /* bool: every rank true for LAND; only rank 0 true for LOR and LXOR (odd count of trues). */
  bool mine = true, all = false;
  MPI_OK(MPI_Allreduce(&mine, &all, 1, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD));
  CHECK(all);
  mine = rank == 0;
  MPI_OK(MPI_Allreduce(&mine, &all, 1, MPI_CXX_BOOL, MPI_LOR, MPI_COMM_WORLD));
  CHECK(all);
  MPI_OK(MPI_Allreduce(&mine, &all, 1, MPI_CXX_BOOL, MPI_LXOR, MPI_COMM_WORLD));
  CHECK(all);
  mine = rank != 0; /* size - 1 trues */
  MPI_OK(MPI_Allreduce(&mine, &all, 1, MPI_CXX_BOOL, MPI_LAND, MPI_COMM_WORLD));
  CHECK(!all);
  MPI_OK(MPI_Allreduce(&mine, &all, 1, MPI_CXX_BOOL, MPI_LXOR, MPI_COMM_WORLD));
  CHECK_EQ(all, (size - 1) % 2);
  /* LOGICALn: n-byte integers, non-zero true. Rank 1 false, the others true. */
  const MPI_Datatype logicals[] = {MPI_LOGICAL1, MPI_LOGICAL2, MPI_LOGICAL4, MPI_LOGICAL8, MPI_LOGICAL16};
  const int bytes[] = {1, 2, 4, 8, 16};
  for (int t = 0; t < 5; t++) {
    int type_size = 0;
    MPI_OK(MPI_Type_size(logicals[t], &type_size));
    CHECK_EQ(type_size, bytes[t]);
    unsigned char in[16] = {0}, out[16];
    in[0] = rank != 1;
    memset(out, 0xAA, sizeof out);
    MPI_OK(MPI_Allreduce(in, out, 1, logicals[t], MPI_LAND, MPI_COMM_WORLD));
    for (int b = 0; b < bytes[t]; b++) CHECK_EQ(out[b], 0);
    MPI_OK(MPI_Allreduce(in, out, 1, logicals[t], MPI_LOR, MPI_COMM_WORLD));
    CHECK_EQ(out[0], 1);
    for (int b = 1; b < bytes[t]; b++) CHECK_EQ(out[b], 0);
  }
}

static void complex_reductions(void) {
  /* rank r contributes (r + 1) + (r)i: the sum is sum(r+1) + sum(r) i; the product for 2 ranks
   * is (1)(2 + i) = 2 + i, computed here by folding. */
  double complex d = (rank + 1) + rank * I, dsum = 0, dprod = 0, expect_sum = 0, expect_prod = 1;
  for (int r = 0; r < size; r++) {
    expect_sum += (r + 1) + r * I;
    expect_prod *= (r + 1) + r * I;
  }
  MPI_OK(MPI_Allreduce(&d, &dsum, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
  CHECK(dsum == expect_sum);
  MPI_OK(MPI_Allreduce(&d, &dprod, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
  CHECK(dprod == expect_prod);
  float complex f = (rank + 1) + rank * I, fsum = 0;
  MPI_OK(MPI_Allreduce(&f, &fsum, 1, MPI_CXX_FLOAT_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
  CHECK(crealf(fsum) == (float)creal(expect_sum) && cimagf(fsum) == (float)cimag(expect_sum));
  long double complex l = (rank + 1) + rank * I, lprod = 0;
  MPI_OK(MPI_Allreduce(&l, &lprod, 1, MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_PROD, MPI_COMM_WORLD));
  CHECK(creall(lprod) == creal(expect_prod) && cimagl(lprod) == cimag(expect_prod));
  int type_size = 0;
  MPI_OK(MPI_Type_size(MPI_CXX_LONG_DOUBLE_COMPLEX, &type_size));
  CHECK_EQ(type_size, sizeof(long double complex));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int rc = MPI_Allreduce(&d, &dsum, 1, MPI_CXX_DOUBLE_COMPLEX, MPI_MAX, MPI_COMM_WORLD);
  int cls = -1;
  MPI_OK(MPI_Error_class(rc, &cls));
  CHECK_EQ(cls, MPI_ERR_OP);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static void value_index(void) {
  const MPI_Datatype pairs[][3] = {{MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},   {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
                                   {MPI_LONG, MPI_INT, MPI_LONG_INT},     {MPI_INT, MPI_INT, MPI_2INT},
                                   {MPI_SHORT, MPI_INT, MPI_SHORT_INT},   {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
                                   {MPI_REAL, MPI_REAL, MPI_2REAL},       {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
                                   {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION}};
  for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
    MPI_Datatype pair = MPI_DATATYPE_NULL;
    MPI_OK(MPI_Type_get_value_index(pairs[i][0], pairs[i][1], &pair));
    CHECK(pair == pairs[i][2]);
  }
  MPI_Datatype none = MPI_INT;
  MPI_OK(MPI_Type_get_value_index(MPI_CHAR, MPI_INT, &none));
  CHECK(none == MPI_DATATYPE_NULL);
  /* The pair type works with MPI_MAXLOC: the largest value and the rank holding it. */
  MPI_Datatype pair;
  MPI_OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &pair));
  struct { double v; int i; } in = {(double)(rank % 2 ? 10 * rank : -rank), rank}, out;
  MPI_OK(MPI_Allreduce(&in, &out, 1, pair, MPI_MAXLOC, MPI_COMM_WORLD));
  int best = size - 1 - ((size - 1) % 2 == 0); /* largest odd rank */
  CHECK_EQ(out.i, best);
  CHECK(out.v == 10.0 * best);
  CHECK(MPI_COMBINER_VALUE_INDEX != MPI_COMBINER_NAMED);
}

static void error_classes(void) {
  const int classes[] = {MPI_ERR_PROC_ABORTED, MPI_ERR_ERRHANDLER, MPI_ERR_ABI};
  const char* names[] = {"MPI_ERR_PROC_ABORTED", "MPI_ERR_ERRHANDLER", "MPI_ERR_ABI"};
  for (int i = 0; i < 3; i++) {
    CHECK(classes[i] <= MPI_ERR_LASTCODE);
    int cls = -1, len = 0;
    MPI_OK(MPI_Error_class(classes[i], &cls));
    CHECK_EQ(cls, classes[i]);
    char text[MPI_MAX_ERROR_STRING];
    MPI_OK(MPI_Error_string(classes[i], text, &len));
    CHECK(strncmp(text, names[i], strlen(names[i])) == 0);
  }
}

static void abi_queries(void) {
  int major = 0, minor = 0;
  MPI_OK(MPI_Abi_get_version(&major, &minor));
#ifdef GASKET_MPI /* the native library is not the ABI */
  CHECK_EQ(major, -1);
  CHECK_EQ(minor, -1);
#else /* built against the standard ABI's mpi.h: libmpi_abi.so.1 */
  CHECK_EQ(major, 1);
  CHECK_EQ(minor, 0);
#endif
  CHECK_EQ(MPI_ABI_VERSION, 1);
  CHECK_EQ(MPI_ABI_SUBVERSION, 0);
  /* Every procedure and constant of MPI 5.0 is provided: the header and the library say 5.0. */
  MPI_OK(MPI_Get_version(&major, &minor));
  CHECK_EQ(major, 5);
  CHECK_EQ(minor, 0);
  CHECK_EQ(MPI_VERSION, 5);
  CHECK_EQ(MPI_SUBVERSION, 0);
  MPI_Info info;
  MPI_OK(MPI_Abi_get_info(&info));
  CHECK_EQ(info_long(info, "mpi_aint_size"), sizeof(MPI_Aint));
  CHECK_EQ(info_long(info, "mpi_count_size"), sizeof(MPI_Count));
  CHECK_EQ(info_long(info, "mpi_offset_size"), sizeof(MPI_Offset));
  MPI_OK(MPI_Info_free(&info));
  MPI_OK(MPI_Abi_get_fortran_info(&info));
  int s = 0;
  MPI_OK(MPI_Type_size(MPI_INTEGER, &s));
  CHECK_EQ(info_long(info, "mpi_integer_size"), s);
  MPI_OK(MPI_Type_size(MPI_LOGICAL, &s));
  CHECK_EQ(info_long(info, "mpi_logical_size"), s);
  MPI_OK(MPI_Type_size(MPI_DOUBLE_PRECISION, &s));
  CHECK_EQ(info_long(info, "mpi_double_precision_size"), s);
  char v[MPI_MAX_INFO_VAL];
  info_value(info, "mpi_real2_supported", v); /* gfortran has no REAL*2 */
#ifdef GASKET_MPI /* natively MPI_REAL2 is MPI_DATATYPE_NULL; the ABI's is a fixed value */
  CHECK(MPI_REAL2 == MPI_DATATYPE_NULL);
#endif
  CHECK(strcmp(v, "false") == 0);
  info_value(info, "mpi_logical16_supported", v);
  CHECK(strcmp(v, "true") == 0);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_EQ(MPI_Abi_set_fortran_info(info), MPI_ERR_ABI);
  MPI_OK(MPI_Info_free(&info));
  unsigned char t[4], f[4];
  int is_set = 0;
  MPI_OK(MPI_Abi_get_fortran_booleans(4, t, f, &is_set));
  CHECK_EQ(is_set, 1);
  CHECK(t[0] == 1 && t[1] == 0 && t[2] == 0 && t[3] == 0);
  CHECK(f[0] == 0 && f[1] == 0 && f[2] == 0 && f[3] == 0);
  MPI_OK(MPI_Abi_get_fortran_booleans(3, t, f, &is_set));
  CHECK_EQ(is_set, 0);
  CHECK_EQ(MPI_Abi_set_fortran_booleans(4, t, f), MPI_ERR_ABI);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

  /* Handles through int and back. */
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK(MPI_Comm_fromint(MPI_Comm_toint(dup)) == dup);
  CHECK(MPI_Comm_fromint(MPI_Comm_toint(MPI_COMM_WORLD)) == MPI_COMM_WORLD);
  CHECK(MPI_Type_fromint(MPI_Type_toint(MPI_DOUBLE)) == MPI_DOUBLE);
  CHECK(MPI_Op_fromint(MPI_Op_toint(MPI_SUM)) == MPI_SUM);
  CHECK(MPI_Group_fromint(MPI_Group_toint(MPI_GROUP_EMPTY)) == MPI_GROUP_EMPTY);
  CHECK(MPI_Info_fromint(MPI_Info_toint(MPI_INFO_ENV)) == MPI_INFO_ENV);
  CHECK(MPI_Errhandler_fromint(MPI_Errhandler_toint(MPI_ERRORS_ABORT)) == MPI_ERRORS_ABORT);
  CHECK(MPI_Request_fromint(MPI_Request_toint(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL);
  CHECK(MPI_Message_fromint(MPI_Message_toint(MPI_MESSAGE_NO_PROC)) == MPI_MESSAGE_NO_PROC);
  CHECK(MPI_Win_fromint(MPI_Win_toint(MPI_WIN_NULL)) == MPI_WIN_NULL);
  CHECK(MPI_File_fromint(MPI_File_toint(MPI_FILE_NULL)) == MPI_FILE_NULL);
  CHECK(MPI_Session_fromint(MPI_Session_toint(MPI_SESSION_NULL)) == MPI_SESSION_NULL);
  int freed = MPI_Comm_toint(dup);
  MPI_OK(MPI_Comm_free(&dup));
  CHECK(MPI_Comm_fromint(freed) == MPI_COMM_NULL); /* names no live communicator any more */

  /* MPI_ERRORS_ABORT is a predefined handler: set, read back, freeing drops only the reference. */
  MPI_Errhandler eh;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_ABORT));
  MPI_OK(MPI_Comm_get_errhandler(dup, &eh));
  CHECK(eh == MPI_ERRORS_ABORT);
  MPI_OK(MPI_Errhandler_free(&eh));
  CHECK(eh == MPI_ERRHANDLER_NULL);
  MPI_OK(MPI_Comm_free(&dup));

  /* hwloc's counts: at least one of each, nested (PU >= Core >= Package). */
  MPI_Info hw;
  MPI_OK(MPI_Get_hw_resource_info(&hw));
  long packages = info_long(hw, "hwloc://Package"), cores = info_long(hw, "hwloc://Core");
  long pus = info_long(hw, "hwloc://PU"), numa = info_long(hw, "hwloc://NUMANode");
  CHECK(packages >= 1 && numa >= 1 && cores >= packages && pus >= cores);
  info_value(hw, "mpi_hw_resource_type", v);
  CHECK(strstr(v, "hwloc://Core") != NULL);
  MPI_OK(MPI_Info_free(&hw));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  logical_reductions();
  complex_reductions();
  value_index();
  error_classes();
  abi_queries();
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("ok: C++ and LOGICALn types, value-index pairs, error classes, ABI queries (%d ranks)\n", size);
  return 0;
}
