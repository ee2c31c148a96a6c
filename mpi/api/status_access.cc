// MPI 4.1's status accessors (section 3.2.5): MPI_Status_get/set_source, _tag, _error read and
// write the public fields, as a program may do directly; they need no initialised library. And
// the non-destructive completion queries over arrays (section 3.7.5):
// MPI_Request_get_status_all/any/some report what MPI_Testall/any/some would, without freeing
// or deactivating any request and without setting any handle to MPI_REQUEST_NULL.
#include "mpi.h"
#include "mpi/api/call.h"
#include "mpi/api/requests.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
using gasket::mpi::p2p::Request;
using gasket::mpi::p2p::RequestKind;
namespace api = gasket::mpi::api;

namespace gasket::mpi::api {

bool peek(const p2p::Request* r, MPI_Status* status) {
  if (inactive(r)) {
    empty_status(status);
    return true;
  }
  if (r->complete && r->kind != RequestKind::kGeneralized) {
    fill_status(status, r->kind == RequestKind::kSend ? MPI_ANY_SOURCE : r->status_source,
                r->kind == RequestKind::kSend ? MPI_ANY_TAG : r->status_tag, r->status_bytes, r->cancelled);
  }
  return r->complete;
}

}  // namespace gasket::mpi::api

namespace {

MPI_Status* at(MPI_Status* statuses, int i) { return statuses == MPI_STATUSES_IGNORE ? nullptr : statuses + i; }

}  // namespace

extern "C" {

int PMPI_Status_get_source(const MPI_Status* status, int* source) {
  if (status == nullptr || source == nullptr) return MPI_ERR_ARG;
  *source = status->MPI_SOURCE;
  return MPI_SUCCESS;
}
int PMPI_Status_get_tag(const MPI_Status* status, int* tag) {
  if (status == nullptr || tag == nullptr) return MPI_ERR_ARG;
  *tag = status->MPI_TAG;
  return MPI_SUCCESS;
}
int PMPI_Status_get_error(const MPI_Status* status, int* err) {
  if (status == nullptr || err == nullptr) return MPI_ERR_ARG;
  *err = status->MPI_ERROR;
  return MPI_SUCCESS;
}
int PMPI_Status_set_source(MPI_Status* status, int source) {
  if (status == nullptr) return MPI_ERR_ARG;
  status->MPI_SOURCE = source;
  return MPI_SUCCESS;
}
int PMPI_Status_set_tag(MPI_Status* status, int tag) {
  if (status == nullptr) return MPI_ERR_ARG;
  status->MPI_TAG = tag;
  return MPI_SUCCESS;
}
int PMPI_Status_set_error(MPI_Status* status, int err) {
  if (status == nullptr) return MPI_ERR_ARG;
  status->MPI_ERROR = err;
  return MPI_SUCCESS;
}

int PMPI_Request_get_status_all(int count, const MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  const char* call = "MPI_Request_get_status_all";
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (flag == nullptr) return error(MPI_ERR_ARG, "%s: the flag argument is NULL", call);
    api::RequestList rs;
    Error e = rs.gather(c, count, requests, call);
    if (!e.is_ok()) return e;
    c.engine().progress();
    *flag = 1;
    for (Request* r : rs) {
      if (!api::inactive(r) && !r->complete) *flag = 0;
    }
    if (*flag) {  // statuses only when every one is complete, as MPI_Testall
      for (int i = 0; i < count; ++i) api::peek(rs[static_cast<size_t>(i)], at(statuses, i));
    }
    return Error::ok();
  });
}

int PMPI_Request_get_status_any(int count, const MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  const char* call = "MPI_Request_get_status_any";
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (flag == nullptr || index == nullptr) return error(MPI_ERR_ARG, "%s: the index or flag argument is NULL", call);
    api::RequestList rs;
    Error e = rs.gather(c, count, requests, call);
    if (!e.is_ok()) return e;
    c.engine().progress();
    bool any_active;
    size_t found = rs.first_complete(&any_active);
    if (found < rs.size()) {
      *index = static_cast<int>(found);
      api::peek(rs[found], status);
      *flag = 1;
      return Error::ok();
    }
    *index = MPI_UNDEFINED;
    // No active request at all: flag true, index MPI_UNDEFINED and an empty status.
    *flag = any_active ? 0 : 1;
    if (!any_active) api::empty_status_queried(status);
    return Error::ok();
  });
}

int PMPI_Request_get_status_some(int incount, const MPI_Request requests[], int* outcount, int indices[],
                                 MPI_Status statuses[]) {
  const char* call = "MPI_Request_get_status_some";
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (outcount == nullptr) return error(MPI_ERR_ARG, "%s: the outcount argument is NULL", call);
    api::RequestList rs;
    Error e = rs.gather(c, incount, requests, call);
    if (!e.is_ok()) return e;
    c.engine().progress();
    bool any_active = false;
    int n = 0;
    for (int i = 0; i < incount; ++i) {
      Request* r = rs[static_cast<size_t>(i)];
      if (api::inactive(r)) continue;
      any_active = true;
      if (!r->complete) continue;
      if (indices == nullptr) return error(MPI_ERR_ARG, "%s: array_of_indices is NULL", call);
      indices[n] = i;
      api::peek(r, at(statuses, n));
      ++n;
    }
    *outcount = any_active ? n : MPI_UNDEFINED;
    return Error::ok();
  });
}

}  // extern "C"
