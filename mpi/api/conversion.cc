// Handle conversion between C and Fortran (MPI 4.1 section 19.3.4) and the status conversions
// (19.3.5). Handles are ints and MPI_Fint is int: MPI_x_c2f is the identity; MPI_x_f2c checks that
// the value names a live object of its kind and gives the kind's null handle otherwise.
// MPI_Status is six MPI_Fints, laid out as the Fortran status and MPI_F08_status are.
#include <cstring>

#include "mpi.h"
#include "mpi/api/call.h"
#include "mpi/api/requests.h"

namespace api = gasket::mpi::api;
using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::error;
using gasket::mpi::Guard;

static_assert(sizeof(MPI_Status) == 6 * sizeof(MPI_Fint), "MPI_Status must be MPI_STATUS_SIZE MPI_Fints");
static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPI_F08_status must mirror MPI_Status");

namespace {

// Addresses no status has: what the C side recognises as Fortran's MPI_STATUS(ES)_IGNORE.
const MPI_Fint f_status_ignore[6] = {}, f_statuses_ignore[6] = {};
const MPI_F08_status f08_status_ignore = {}, f08_statuses_ignore = {};

// A Fortran handle as C's: `value` when `live` says it names an object (under the lock), else
// `null`. Before MPI_Init and after MPI_Finalize only the predefined handles of the kind, the
// first slots up to `last_predefined`'s (0: none), exist.
template <typename Live>
int from_fortran(MPI_Fint value, int null, int last_predefined, Live live) {
  if (value == null) return null;
  Context* c = Context::get();
  if (c == nullptr) {
    return gasket::mpi::same_kind(value, last_predefined) && value <= last_predefined ? value : null;
  }
  Guard g(*c);
  return live(*c) ? value : null;
}

// The status conversions: `to` and `from` are six MPI_Fints in the same order.
int copy_status(const char* call, const void* from, void* to, const void* ignore_from) {
  if (from == nullptr || to == nullptr || from == ignore_from) {
    const char* which = from == nullptr || from == ignore_from ? "the status to convert" : "the result";
    Error e = error(MPI_ERR_ARG, "%s: %s is NULL or a STATUS_IGNORE", call, which);
    Context* c = Context::get();
    return c != nullptr ? c->report(MPI_COMM_WORLD, e) : MPI_ERR_ARG;
  }
  std::memcpy(to, from, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

MPI_Fint* const MPI_F_STATUS_IGNORE = const_cast<MPI_Fint*>(f_status_ignore);
MPI_Fint* const MPI_F_STATUSES_IGNORE = const_cast<MPI_Fint*>(f_statuses_ignore);
MPI_F08_status* const MPI_F08_STATUS_IGNORE = const_cast<MPI_F08_status*>(&f08_status_ignore);
MPI_F08_status* const MPI_F08_STATUSES_IGNORE = const_cast<MPI_F08_status*>(&f08_statuses_ignore);

MPI_Fint PMPI_Comm_c2f(MPI_Comm comm) { return comm; }
MPI_Comm PMPI_Comm_f2c(MPI_Fint comm) {
  return from_fortran(comm, MPI_COMM_NULL, MPI_COMM_SELF, [&](Context& c) { return c.comms().find(comm) != nullptr; });
}

MPI_Fint PMPI_Type_c2f(MPI_Datatype datatype) { return datatype; }
MPI_Datatype PMPI_Type_f2c(MPI_Fint datatype) {
  return from_fortran(datatype, MPI_DATATYPE_NULL, MPI_LB, [&](Context& c) {
    const gasket::mpi::datatype::Datatype* t;
    return c.types().lookup(datatype, "MPI_Type_f2c", &t).is_ok();
  });
}

MPI_Fint PMPI_Group_c2f(MPI_Group group) { return group; }
MPI_Group PMPI_Group_f2c(MPI_Fint group) {
  return from_fortran(group, MPI_GROUP_NULL, MPI_GROUP_EMPTY, [&](Context& c) {
    std::shared_ptr<const gasket::mpi::comm::Group> g;
    return c.comms().lookup_group(group, "MPI_Group_f2c", &g).is_ok();
  });
}

MPI_Fint PMPI_Request_c2f(MPI_Request request) { return request; }
MPI_Request PMPI_Request_f2c(MPI_Fint request) {
  return from_fortran(request, MPI_REQUEST_NULL, 0, [&](Context& c) {
    gasket::mpi::p2p::Request* r;
    return api::lookup_request(c, request, "MPI_Request_f2c", &r).is_ok();
  });
}

MPI_Fint PMPI_Op_c2f(MPI_Op op) { return op; }
MPI_Op PMPI_Op_f2c(MPI_Fint op) {
  return from_fortran(op, MPI_OP_NULL, MPI_NO_OP, [&](Context& c) { return c.ops().valid(op); });
}

MPI_Fint PMPI_Info_c2f(MPI_Info info) { return info; }
MPI_Info PMPI_Info_f2c(MPI_Fint info) {
  return from_fortran(info, MPI_INFO_NULL, MPI_INFO_ENV, [&](Context& c) { return c.find_info(info) != nullptr; });
}

MPI_Fint PMPI_Win_c2f(MPI_Win win) { return win; }
MPI_Win PMPI_Win_f2c(MPI_Fint win) {
  return from_fortran(win, MPI_WIN_NULL, 0, [&](Context& c) { return c.wins().find(win) != nullptr; });
}

MPI_Fint PMPI_Errhandler_c2f(MPI_Errhandler errhandler) { return errhandler; }
MPI_Errhandler PMPI_Errhandler_f2c(MPI_Fint errhandler) {
  return from_fortran(errhandler, MPI_ERRHANDLER_NULL, MPI_ERRORS_RETURN, [&](Context& c) {
    gasket::mpi::comm::Errhandler* eh;
    return c.comms().lookup_errhandler(errhandler, "MPI_Errhandler_f2c", &eh).is_ok();
  });
}

MPI_Fint PMPI_Message_c2f(MPI_Message message) { return message; }
MPI_Message PMPI_Message_f2c(MPI_Fint message) {
  if (message == MPI_MESSAGE_NO_PROC) return message;
  return from_fortran(message, MPI_MESSAGE_NULL, 0, [&](Context& c) { return c.has_message(message); });
}

MPI_Fint PMPI_Session_c2f(MPI_Session session) { return session; }
MPI_Session PMPI_Session_f2c(MPI_Fint session) {
  return from_fortran(session, MPI_SESSION_NULL, 0, [&](Context& c) { return c.sessions().find(session) != nullptr; });
}
MPI_Fint PMPI_File_c2f(MPI_File file) { return file; }
MPI_File PMPI_File_f2c(MPI_Fint file) {
  return from_fortran(file, MPI_FILE_NULL, 0, [&](Context& c) { return c.files().find(file) != nullptr; });
}

int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  return copy_status("MPI_Status_c2f", c_status, f_status, MPI_STATUS_IGNORE);
}
int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  return copy_status("MPI_Status_f2c", f_status, c_status, MPI_F_STATUS_IGNORE);
}
int PMPI_Status_c2f08(const MPI_Status* c_status, MPI_F08_status* f08_status) {
  return copy_status("MPI_Status_c2f08", c_status, f08_status, MPI_STATUS_IGNORE);
}
int PMPI_Status_f082c(const MPI_F08_status* f08_status, MPI_Status* c_status) {
  return copy_status("MPI_Status_f082c", f08_status, c_status, MPI_F08_STATUS_IGNORE);
}
int PMPI_Status_f082f(const MPI_F08_status* f08_status, MPI_Fint* f_status) {
  return copy_status("MPI_Status_f082f", f08_status, f_status, MPI_F08_STATUS_IGNORE);
}
int PMPI_Status_f2f08(const MPI_Fint* f_status, MPI_F08_status* f08_status) {
  return copy_status("MPI_Status_f2f08", f_status, f08_status, MPI_F_STATUS_IGNORE);
}

}  // extern "C"
