// How a collective runs, shared by the collectives (coll.cc) and the neighborhood collectives
// (topo.cc): blocking (MPI_x), non-blocking (MPI_Ix: a started request) or persistent
// (MPI_x_init: an inactive persistent request whose operation, built once at init, MPI_Start runs
// again and again).
#pragma once

#include "mpi.h"
#include "mpi/api/call.h"

namespace gasket::mpi::api {

struct Form {
  enum Kind { kBlocking, kNonblocking, kPersistent } kind;
  MPI_Request* request;
  MPI_Info info;
  static Form blocking_form() { return Form{kBlocking, nullptr, MPI_INFO_NULL}; }
  static Form nonblocking_form(MPI_Request* request) { return Form{kNonblocking, request, MPI_INFO_NULL}; }
  static Form persistent_form(MPI_Info info, MPI_Request* request) { return Form{kPersistent, request, info}; }
  bool blocking() const { return kind == kBlocking; }
  // The request argument (non-blocking, persistent) and the info argument (persistent).
  Error check(Context& c, const char* call) const {
    if (kind != kBlocking && request == nullptr) return error(MPI_ERR_ARG, "%s: the request argument is NULL", call);
    return kind == kPersistent ? check_info(c, info, call) : Error::ok();
  }
};

}  // namespace gasket::mpi::api
