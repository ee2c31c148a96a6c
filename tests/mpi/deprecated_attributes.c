/* The deprecated MPI-1 attribute procedures (MPI_Keyval_create/free, MPI_Attr_put/get/delete):
 * values cached and read back, copied by MPI_Comm_dup through MPI_DUP_FN, the delete callback
 * run on MPI_Attr_delete and on MPI_Comm_free, predefined attributes, bad keyvals. */
#include "check.h"

static int deleted = 0;
static int count_delete(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)comm, (void)keyval;
  CHECK_EQ(*(int*)extra, 42);
  deleted += (int)(long)value;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  int extra = 42, copied_key, plain_key, flag = 0;
  void* value = NULL;
  MPI_OK(MPI_Keyval_create(MPI_DUP_FN, count_delete, &copied_key, &extra));
  MPI_OK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &plain_key, NULL));
  MPI_Comm comm;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  MPI_OK(MPI_Attr_put(comm, copied_key, (void*)(long)(rank + 1)));
  MPI_OK(MPI_Attr_put(comm, plain_key, (void*)7L));
  MPI_OK(MPI_Attr_get(comm, copied_key, &value, &flag));
  CHECK(flag && (long)value == rank + 1);

  MPI_Comm dup; /* MPI_DUP_FN copies, MPI_NULL_COPY_FN does not */
  MPI_OK(MPI_Comm_dup(comm, &dup));
  MPI_OK(MPI_Attr_get(dup, copied_key, &value, &flag));
  CHECK(flag && (long)value == rank + 1);
  MPI_OK(MPI_Attr_get(dup, plain_key, &value, &flag));
  CHECK_EQ(flag, 0);

  MPI_OK(MPI_Attr_delete(comm, copied_key)); /* runs the delete callback */
  CHECK_EQ(deleted, rank + 1);
  MPI_OK(MPI_Attr_get(comm, copied_key, &value, &flag));
  CHECK_EQ(flag, 0);
  MPI_OK(MPI_Comm_free(&dup)); /* and so does freeing the duplicate holding a copy */
  CHECK_EQ(deleted, 2 * (rank + 1));

  int* tag_ub = NULL; /* the predefined attributes answer through the old name too */
  MPI_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag && *tag_ub >= 32767);

  MPI_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  int cls = -1, freed = plain_key;
  MPI_OK(MPI_Keyval_free(&plain_key));
  CHECK_EQ(plain_key, MPI_KEYVAL_INVALID);
  MPI_OK(MPI_Keyval_free(&copied_key));
  MPI_Error_class(MPI_Attr_put(comm, freed, NULL), &cls);
  CHECK_EQ(cls, MPI_ERR_KEYVAL);
  MPI_Error_class(MPI_Attr_put(comm, MPI_TAG_UB, NULL), &cls); /* predefined: read-only */
  CHECK_EQ(cls, MPI_ERR_KEYVAL);
  MPI_OK(MPI_Comm_free(&comm));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("deprecated_attributes: %d ranks OK\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
