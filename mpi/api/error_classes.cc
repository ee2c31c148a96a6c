// Error classes, codes and strings added by the application (MPI 4.1 section 9.5):
// MPI_Add_error_class/code/string and MPI_Remove_error_class/code/string. The table is the
// context's (mpi/context/user_errors.h); MPI_Error_class/MPI_Error_string (env.cc) answer for it.
#include "mpi.h"
#include "mpi/api/call.h"

namespace api = gasket::mpi::api;
using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::error;
using gasket::mpi::Guard;

extern "C" {

int PMPI_Add_error_class(int* errorclass) {
  return api::call("MPI_Add_error_class", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (errorclass == nullptr) return error(MPI_ERR_ARG, "MPI_Add_error_class: errorclass is NULL");
    *errorclass = c.user_errors().add_class();
    return Error::ok();
  });
}

int PMPI_Add_error_code(int errorclass, int* errorcode) {
  return api::call("MPI_Add_error_code", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (errorcode == nullptr) return error(MPI_ERR_ARG, "MPI_Add_error_code: errorcode is NULL");
    return c.user_errors().add_code(errorclass, "MPI_Add_error_code", errorcode);
  });
}

int PMPI_Add_error_string(int errorcode, const char* string) {
  return api::call("MPI_Add_error_string", MPI_COMM_WORLD, [&](Context& c, Guard&) {
    return c.user_errors().set_string(errorcode, string, "MPI_Add_error_string");
  });
}

int PMPI_Remove_error_class(int errorclass) {
  return api::call("MPI_Remove_error_class", MPI_COMM_WORLD, [&](Context& c, Guard&) {
    return c.user_errors().remove_class(errorclass, "MPI_Remove_error_class");
  });
}

int PMPI_Remove_error_code(int errorcode) {
  return api::call("MPI_Remove_error_code", MPI_COMM_WORLD, [&](Context& c, Guard&) {
    return c.user_errors().remove_code(errorcode, "MPI_Remove_error_code");
  });
}

int PMPI_Remove_error_string(int errorcode) {
  return api::call("MPI_Remove_error_string", MPI_COMM_WORLD, [&](Context& c, Guard&) {
    return c.user_errors().remove_string(errorcode, "MPI_Remove_error_string");
  });
}

}  // extern "C"
