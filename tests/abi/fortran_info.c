/* The Fortran queries of the standard ABI (MPI 5.0 section 21.4) through libmpi_abi.so.1, built
 * against the MPI Forum's header: they must describe gasket's Fortran layer, compiled by gfortran,
 * whose answers gfortran_kinds.f90 prints at build time (gfortran_kinds.h):
 *  - MPI_Abi_get_fortran_info: the sizes of default INTEGER, REAL, DOUBLE PRECISION and LOGICAL,
 *    and for each optional type whether gfortran has its kind;
 *  - MPI_Type_size of the Fortran types: the same sizes, and MPI_UNDEFINED for an optional type
 *    gfortran lacks (section 21.4: how an application learns that a type is absent);
 *  - MPI_Abi_get_fortran_booleans: .TRUE. and .FALSE. of every LOGICAL kind, byte for byte, set;
 *  - the settings refused with MPI_ERR_ABI: the library's Fortran layer has set them already. */
#include <string.h>

#include "tests/abi/gfortran_kinds.h"
#include "tests/mpi/check.h"

static void info_value(MPI_Info info, const char* key, char* value) {
  int flag = 0;
  MPI_OK(MPI_Info_get_string(info, key, &(int){MPI_MAX_INFO_VAL}, value, &flag));
  if (!flag) fprintf(stderr, "MPI_Abi_get_fortran_info: no key %s\n", key);
  CHECK(flag);
}

static void check_size(MPI_Info info, const char* key, MPI_Datatype type, int gfortran_size) {
  char value[MPI_MAX_INFO_VAL];
  info_value(info, key, value);
  CHECK_EQ(atoi(value), gfortran_size);
  int size = -1;
  MPI_OK(MPI_Type_size(type, &size));
  CHECK_EQ(size, gfortran_size);
}

/* The optional types by their info key's name (mpi_<type><n>_supported). */
static const struct {
  const char* key;
  MPI_Datatype type;
  int bytes;
} kOptional[] = {
    {"mpi_logical1_supported", MPI_LOGICAL1, 1},   {"mpi_logical2_supported", MPI_LOGICAL2, 2},
    {"mpi_logical4_supported", MPI_LOGICAL4, 4},   {"mpi_logical8_supported", MPI_LOGICAL8, 8},
    {"mpi_logical16_supported", MPI_LOGICAL16, 16}, {"mpi_integer1_supported", MPI_INTEGER1, 1},
    {"mpi_integer2_supported", MPI_INTEGER2, 2},   {"mpi_integer4_supported", MPI_INTEGER4, 4},
    {"mpi_integer8_supported", MPI_INTEGER8, 8},   {"mpi_integer16_supported", MPI_INTEGER16, 16},
    {"mpi_real2_supported", MPI_REAL2, 2},         {"mpi_real4_supported", MPI_REAL4, 4},
    {"mpi_real8_supported", MPI_REAL8, 8},         {"mpi_real16_supported", MPI_REAL16, 16},
    {"mpi_complex4_supported", MPI_COMPLEX4, 4},   {"mpi_complex8_supported", MPI_COMPLEX8, 8},
    {"mpi_complex16_supported", MPI_COMPLEX16, 16}, {"mpi_complex32_supported", MPI_COMPLEX32, 32},
};

static int gfortran_supports(const char* key) {
  for (size_t i = 0; i < sizeof kGfortranOptional / sizeof kGfortranOptional[0]; ++i) {
    if (strcmp(kGfortranOptional[i].key, key) == 0) return kGfortranOptional[i].supported;
  }
  fprintf(stderr, "gfortran_kinds.h has no %s\n", key);
  CHECK(0);
  return 0;
}

static void check_info(void) {
  MPI_Info info = MPI_INFO_NULL;
  MPI_OK(MPI_Abi_get_fortran_info(&info));
  CHECK(info != MPI_INFO_NULL);
  check_size(info, "mpi_integer_size", MPI_INTEGER, GFORTRAN_INTEGER_SIZE);
  check_size(info, "mpi_real_size", MPI_REAL, GFORTRAN_REAL_SIZE);
  check_size(info, "mpi_double_precision_size", MPI_DOUBLE_PRECISION, GFORTRAN_DOUBLE_PRECISION_SIZE);
  check_size(info, "mpi_logical_size", MPI_LOGICAL, GFORTRAN_LOGICAL_SIZE);
  for (size_t i = 0; i < sizeof kOptional / sizeof kOptional[0]; ++i) {
    char value[MPI_MAX_INFO_VAL];
    int supported = gfortran_supports(kOptional[i].key), size = -1;
    info_value(info, kOptional[i].key, value);
    if (strcmp(value, supported ? "true" : "false") != 0) {
      fprintf(stderr, "MPI_Abi_get_fortran_info: %s is %s, gfortran says %d\n", kOptional[i].key, value, supported);
      CHECK(0);
    }
    MPI_OK(MPI_Type_size(kOptional[i].type, &size));
    CHECK_EQ(size, supported ? kOptional[i].bytes : MPI_UNDEFINED);
  }
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  int cls = -1;
  MPI_OK(MPI_Error_class(MPI_Abi_set_fortran_info(info), &cls));
  CHECK_EQ(cls, MPI_ERR_ABI);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  MPI_OK(MPI_Info_free(&info));
}

static void check_booleans(void) {
  for (size_t i = 0; i < sizeof kGfortranLogicals / sizeof kGfortranLogicals[0]; ++i) {
    int n = kGfortranLogicals[i].size, is_set = -1;
    unsigned char t[16], f[16];
    memset(t, 0xa5, sizeof t);
    memset(f, 0xa5, sizeof f);
    MPI_OK(MPI_Abi_get_fortran_booleans(n, t, f, &is_set));
    CHECK_EQ(is_set, 1);
    CHECK(memcmp(t, kGfortranLogicals[i].true_bytes, (size_t)n) == 0);
    CHECK(memcmp(f, kGfortranLogicals[i].false_bytes, (size_t)n) == 0);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int cls = -1;
    MPI_OK(MPI_Error_class(MPI_Abi_set_fortran_booleans(n, t, f), &cls));
    CHECK_EQ(cls, MPI_ERR_ABI);
    MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  }
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  check_info();
  check_booleans();
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("fortran_info: %d ranks: the Fortran layer is gfortran\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
