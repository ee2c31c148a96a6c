#include "mpi/api/call.h"

#include <cstring>

#include "core/base/log.h"

namespace gasket::mpi::api {

void not_started(const char* call) {
  log::fatal("%s: MPI is %s", call,
             Context::state() == LibraryState::kFinalized ? "already finalised (MPI_Finalize was called)"
                                                          : "not initialised (call MPI_Init first)");
}

int fail_unstarted(const Error& e) {
  log::fatal("MPI error: %s (%s)", e.message().c_str(), error_class_string(e.error_class()));
}

Error comm_failed(Context& c, MPI_Comm handle, const char* call, comm::Communicator** comm) {
  return c.comms().lookup(handle, call, comm);
}

Error count_failed(MPI_Count count, const char* call, const comm::Communicator& comm) {
  return error(MPI_ERR_COUNT, "%s: rank %d: count %lld is negative", call, comm.rank, static_cast<long long>(count));
}

Error type_failed(Context& c, MPI_Datatype handle, MPI_Count count, const char* call, const comm::Communicator& comm,
                  const datatype::Datatype** type) {
  Error e = c.types().lookup_data(handle, count, call, type);  // MPI_DATATYPE_NULL at count 0 passes here
  if (!e.is_ok()) return Error(e.error_class(), e.message() + " (rank " + std::to_string(comm.rank) + ")");
  return Error::ok();
}

Error buffer_failed(MPI_Count count, const datatype::Datatype& type, const char* call, const comm::Communicator& comm) {
  return error(MPI_ERR_BUFFER, "%s: rank %d: the buffer is NULL for %lld elements of %s", call, comm.rank,
               static_cast<long long>(count), type.name.empty() ? "a derived type" : type.name.c_str());
}

Error check_rank(int rank, bool is_source, const char* call, const comm::Communicator& comm) {
  if (rank == MPI_PROC_NULL || (is_source && rank == MPI_ANY_SOURCE)) return Error::ok();
  int n = static_cast<int>(comm.peers().pes.size());
  if (rank < 0 || rank >= n) {
    return error(MPI_ERR_RANK, "%s: rank %d: %s rank %d is out of range (%s has %d %sranks)", call, comm.rank,
                 is_source ? "source" : "destination", rank, comm.name.empty() ? "the communicator" : comm.name.c_str(),
                 n, comm.is_inter() ? "remote " : "");
  }
  return Error::ok();
}

Error check_tag(int tag, bool is_receive, const char* call, const comm::Communicator& comm) {
  if (is_receive && tag == MPI_ANY_TAG) return Error::ok();
  if (tag < 0) {
    return error(MPI_ERR_TAG, "%s: rank %d: tag %d is invalid (tags are 0..MPI_TAG_UB%s)", call, comm.rank, tag,
                 is_receive ? " or MPI_ANY_TAG" : "");
  }
  return Error::ok();
}

Error check_info(Context& c, MPI_Info info, const char* call) {
  if (info == MPI_INFO_NULL || c.find_info(info) != nullptr) return Error::ok();
  return error(MPI_ERR_INFO, "%s: %d is not an info object (never created, or freed)", call, info);
}

Error check_errhandler(Context& c, MPI_Errhandler handle, const char* call) {
  comm::Errhandler* eh;
  Error e = c.comms().lookup_errhandler(handle, call, &eh);
  if (e.is_ok() && eh->refs <= 0) return error(MPI_ERR_ARG, "%s: error handler %d was freed", call, handle);
  return e;
}

int name_of_null(const char* call, const char* null_name, char* name, int* resultlen) {
  return api::call(call, MPI_COMM_WORLD, [&](Context&, Guard&) -> Error {
    if (name == nullptr || resultlen == nullptr) return error(MPI_ERR_ARG, "%s: a NULL argument", call);
    std::strcpy(name, null_name);
    *resultlen = static_cast<int>(std::strlen(null_name));
    return Error::ok();
  });
}

void fill_status(MPI_Status* status, int source, int tag, int64_t bytes, bool cancelled) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->gasket_cancelled = cancelled ? 1 : 0;
  status->gasket_bytes = bytes;
}

void empty_status(MPI_Status* status) { fill_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, false); }

void empty_status_queried(MPI_Status* status) {
  empty_status(status);
  if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = MPI_SUCCESS;
}

}  // namespace gasket::mpi::api
