/* Communicator info hints (MPI_Comm_dup_with_info, MPI_Comm_idup_with_info, MPI_Comm_set_info,
 * MPI_Comm_get_info) and MPI 4.0's MPI_Info_get_string (buflen in/out, truncation, flag). */
#include <string.h>

#include "check.h"

/* The value of `key` in comm's hints ("" and flag 0 when absent). */
static int hint(MPI_Comm comm, const char* key, char* value, int len) {
  MPI_Info used;
  int flag = 0;
  MPI_OK(MPI_Comm_get_info(comm, &used));
  value[0] = '\0';
  MPI_OK(MPI_Info_get_string(used, key, &len, value, &flag));
  MPI_OK(MPI_Info_free(&used));
  return flag;
}

static int nhints(MPI_Comm comm) {
  MPI_Info used;
  int n = -1;
  MPI_OK(MPI_Comm_get_info(comm, &used));
  MPI_OK(MPI_Info_get_nkeys(used, &n));
  MPI_OK(MPI_Info_free(&used));
  return n;
}

/* The communicator works: the sum of the ranks arrives everywhere. */
static void check_usable(MPI_Comm comm, int size) {
  int rank, sum = -1;
  MPI_OK(MPI_Comm_rank(comm, &rank));
  MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK_EQ(sum, size * (size - 1) / 2);
}

static void check_info_get_string(void) {
  MPI_Info info;
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "color", "turquoise"));
  char buf[64];
  int flag = -1, len = 0;
  MPI_OK(MPI_Info_get_string(info, "color", &len, NULL, &flag)); /* the length query */
  CHECK_EQ(flag, 1);
  CHECK_EQ(len, 10);
  len = 4; /* truncated to 3 characters and the null */
  memset(buf, 'x', sizeof buf);
  MPI_OK(MPI_Info_get_string(info, "color", &len, buf, &flag));
  CHECK(strcmp(buf, "tur") == 0);
  CHECK_EQ(len, 10);
  len = sizeof buf;
  MPI_OK(MPI_Info_get_string(info, "color", &len, buf, &flag));
  CHECK(strcmp(buf, "turquoise") == 0);
  CHECK_EQ(len, 10);
  len = 17;
  strcpy(buf, "unchanged");
  MPI_OK(MPI_Info_get_string(info, "shape", &len, buf, &flag)); /* absent: nothing changes */
  CHECK_EQ(flag, 0);
  CHECK_EQ(len, 17);
  CHECK(strcmp(buf, "unchanged") == 0);
  MPI_OK(MPI_Info_free(&info));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  char v[MPI_MAX_INFO_VAL + 1];
  check_info_get_string();

  MPI_Info info;
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
  MPI_OK(MPI_Info_set(info, "gasket_test_hint", "first"));
  MPI_Comm with_info, dup, idup;
  MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &with_info));
  MPI_OK(MPI_Info_free(&info)); /* the communicator keeps its own copy */
  check_usable(with_info, size);
  CHECK_EQ(nhints(with_info), 2);
  CHECK(hint(with_info, "mpi_assert_no_any_tag", v, sizeof v) && strcmp(v, "true") == 0);
  CHECK(hint(with_info, "gasket_test_hint", v, sizeof v) && strcmp(v, "first") == 0);
  CHECK(!hint(MPI_COMM_WORLD, "gasket_test_hint", v, sizeof v)); /* the parent is untouched */

  /* MPI_Comm_dup keeps the hints; MPI_Comm_set_info changes some and keeps the rest. */
  MPI_OK(MPI_Comm_dup(with_info, &dup));
  CHECK(hint(dup, "gasket_test_hint", v, sizeof v) && strcmp(v, "first") == 0);
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "gasket_test_hint", "second"));
  MPI_OK(MPI_Info_set(info, "mpi_assert_allow_overtaking", "false"));
  MPI_OK(MPI_Comm_set_info(dup, info));
  CHECK_EQ(nhints(dup), 3);
  CHECK(hint(dup, "gasket_test_hint", v, sizeof v) && strcmp(v, "second") == 0);
  CHECK(hint(dup, "mpi_assert_no_any_tag", v, sizeof v) && strcmp(v, "true") == 0);
  CHECK(hint(with_info, "gasket_test_hint", v, sizeof v) && strcmp(v, "first") == 0);
  MPI_OK(MPI_Comm_set_info(dup, MPI_INFO_NULL)); /* no hints: nothing changes */
  CHECK_EQ(nhints(dup), 3);

  /* MPI_Comm_idup_with_info: the hints given, not the parent's, once the request completes. */
  MPI_Request r;
  MPI_OK(MPI_Comm_idup_with_info(dup, info, &idup, &r));
  MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  check_usable(idup, size);
  CHECK_EQ(nhints(idup), 2);
  CHECK(hint(idup, "mpi_assert_allow_overtaking", v, sizeof v) && strcmp(v, "false") == 0);
  CHECK(!hint(idup, "mpi_assert_no_any_tag", v, sizeof v));
  MPI_OK(MPI_Comm_free(&idup));
  MPI_OK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &idup, &r));
  MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  CHECK_EQ(nhints(idup), 0); /* MPI_INFO_NULL: none */

  /* Bad arguments: a freed info object, a communicator that is not one. */
  MPI_Info freed = info;
  MPI_OK(MPI_Info_free(&info));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
  int cls = -1;
  MPI_Error_class(MPI_Comm_set_info(dup, freed), &cls);
  CHECK_EQ(cls, MPI_ERR_INFO);
  MPI_Comm none;
  MPI_Error_class(MPI_Comm_dup_with_info(MPI_COMM_NULL, MPI_INFO_NULL, &none), &cls);
  CHECK_EQ(cls, MPI_ERR_COMM);
  MPI_Error_class(MPI_Comm_get_info(dup, NULL), &cls);
  CHECK_EQ(cls, MPI_ERR_ARG);

  MPI_OK(MPI_Comm_free(&idup));
  MPI_OK(MPI_Comm_free(&dup));
  MPI_OK(MPI_Comm_free(&with_info));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("comm_info: %d ranks OK\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
