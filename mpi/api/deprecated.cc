// The deprecated MPI-1 attribute procedures the MPI 4.1 list still carries (section 20.1): each is
// its MPI-2 replacement on communicators (same arguments; MPI_Copy_function and
// MPI_Delete_function have the MPI_Comm_*_attr_function signatures). They call PMPI_, so a tool
// sees the user's call once, by the name the user called.
#include "mpi.h"

extern "C" {

int PMPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  return PMPI_Comm_get_attr(comm, keyval, attribute_val, flag);
}
int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return PMPI_Comm_set_attr(comm, keyval, attribute_val);
}
int PMPI_Attr_delete(MPI_Comm comm, int keyval) { return PMPI_Comm_delete_attr(comm, keyval); }
int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval, void* extra_state) {
  return PMPI_Comm_create_keyval(copy_fn, delete_fn, keyval, extra_state);
}
int PMPI_Keyval_free(int* keyval) { return PMPI_Comm_free_keyval(keyval); }

}  // extern "C"
