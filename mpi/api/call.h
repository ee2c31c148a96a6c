// What every C binding shares: reaching the context (or a clear error before MPI_Init / after
// MPI_Finalize), taking the lock, and turning an Error into the return code through the
// communicator's error handler. The bindings are thin: argument checks, then the C++ below.
#pragma once

#include "mpi.h"
#include "mpi/base/error.h"
#include "mpi/context/context.h"

namespace gasket::mpi::api {

// The context, or a fatal error naming `call` when MPI is not initialised (MPI has no handler
// to call then: the standard makes it erroneous).
[[noreturn]] void not_started(const char* call);
inline Context& context(const char* call) {
  Context* c = Context::get();
  if (c == nullptr) not_started(call);
  return *c;
}

// Runs body(Context&, Guard&) -> Error under the lock; errors go to `comm`'s handler.
// call_ref: the body may change `comm` (e.g. to the communicator of the request it completes).
template <typename Body>
int call_ref(const char* name, MPI_Comm& comm, Body body) {
  Context& c = context(name);
  Error e = [&] {  // made in place (no move of its message), the lock released before report
    Guard g(c);
    return body(c, g);
  }();
  return e.is_ok() ? MPI_SUCCESS : c.report(comm, e);
}
template <typename Body>
int call(const char* name, MPI_Comm comm, Body body) {
  return call_ref(name, comm, body);
}

// Info objects and error handlers may be made and freed before MPI_Init and after MPI_Finalize
// (MPI 4.1 section 11.4.1; their tables are ProcessTables): the body runs on the context even
// when none is started (Context::dormant); an error then ends the process, as the initial error
// handler MPI_ERRORS_ARE_FATAL does.
int fail_unstarted(const Error& e);
template <typename Body>
int info_call(const char* name, Body body) {
  (void)name;
  Context& c = Context::dormant();
  Error e;
  {
    Guard g(c);
    e = body(c, g);
  }
  if (e.is_ok()) return MPI_SUCCESS;
  return c.started() ? c.report(MPI_COMM_WORLD, e) : fail_unstarted(e);
}

// Argument checks shared by the bindings (each names the call and this rank). The four on every
// data call's path pass inline; a failure, and everything a failure needs, is made out of line
// (the *_failed functions, which also decide the cases the fast test leaves open).
Error comm_failed(Context& c, MPI_Comm handle, const char* call, comm::Communicator** comm);
inline Error check_comm(Context& c, MPI_Comm handle, const char* call, comm::Communicator** comm) {
  *comm = c.comms().find(handle);
  return *comm != nullptr ? Error::ok() : comm_failed(c, handle, call, comm);
}
Error count_failed(MPI_Count count, const char* call, const comm::Communicator& comm);
inline Error check_count(MPI_Count count, const char* call, const comm::Communicator& comm) {
  return count >= 0 ? Error::ok() : count_failed(count, call, comm);
}
// The type of `count` elements of a data argument: MPI_DATATYPE_NULL is no data at count 0.
Error type_failed(Context& c, MPI_Datatype handle, MPI_Count count, const char* call, const comm::Communicator& comm,
                  const datatype::Datatype** type);
inline Error check_type(Context& c, MPI_Datatype handle, MPI_Count count, const char* call,
                        const comm::Communicator& comm, const datatype::Datatype** type) {
  *type = c.types().find_committed(handle);
  return *type != nullptr ? Error::ok() : type_failed(c, handle, count, call, comm, type);
}
inline Error check_type(Context& c, MPI_Datatype handle, const char* call, const comm::Communicator& comm,
                        const datatype::Datatype** type) {
  return check_type(c, handle, 1, call, comm, type);  // a type whatever the count
}
// MPI_BOTTOM (null) is valid only with a type of absolute addresses (a non-zero lower bound).
Error buffer_failed(MPI_Count count, const datatype::Datatype& type, const char* call, const comm::Communicator& comm);
inline Error check_buffer(const void* buf, MPI_Count count, const datatype::Datatype& type, const char* call,
                          const comm::Communicator& comm) {
  bool bottom_without_addresses = buf == nullptr && count > 0 && type.size > 0 && type.true_lb == 0;
  return !bottom_without_addresses ? Error::ok() : buffer_failed(count, type, call, comm);
}
// A destination (no wildcard) or a source (MPI_ANY_SOURCE allowed); MPI_PROC_NULL is valid.
Error check_rank(int rank, bool is_source, const char* call, const comm::Communicator& comm);
Error check_tag(int tag, bool is_receive, const char* call, const comm::Communicator& comm);
// An info argument: MPI_INFO_NULL or an info object not freed (MPI_ERR_INFO otherwise).
Error check_info(Context& c, MPI_Info info, const char* call);
// A user's error handler argument: predefined, or created and not freed (MPI_ERR_ARG otherwise).
Error check_errhandler(Context& c, MPI_Errhandler handle, const char* call);

// From MPI_Init: a spawned process's intercommunicator to its parents (mpi/api/dynproc.cc);
// nothing for a process that was not spawned.
Error connect_to_parent();

// MPI_Comm/Type/Win_get_name of the kind's null handle (`null_name`): a predefined handle, so
// its own name, as Open MPI answers (the standard names every predefined handle).
int name_of_null(const char* call, const char* null_name, char* name, int* resultlen);

// Source, tag, count and cancellation; never MPI_ERROR, which stays the caller's (MPI 4.1 section
// 3.2.5: only a call returning several statuses sets it, and only when it returns
// MPI_ERR_IN_STATUS: set_errors_in_status).
void fill_status(MPI_Status* status, int source, int tag, int64_t bytes, bool cancelled);
// What a null or inactive request reports: the empty status of MPI 4.1 section 3.7.3 but its
// error field, which completion calls leave as the caller's (3.2.5: only a call returning several
// statuses writes it, and only when it returns MPI_ERR_IN_STATUS).
void empty_status(MPI_Status* status);
// The whole empty status, error MPI_SUCCESS: what MPI_Request_get_status and
// MPI_Request_get_status_any report when no request is active (a query of one status).
void empty_status_queried(MPI_Status* status);

}  // namespace gasket::mpi::api
