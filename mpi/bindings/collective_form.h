// How a collective runs: blocking (MPI_x), non-blocking (MPI_Ix: a started request) or persistent
// (MPI_x_init: an inactive persistent request whose operation, built once at init, MPI_Start runs
// again and again). The generated bindings of a collective listed with `forms` in large_count.txt
// pass one to the collective's single implementation (mpi/api/coll.cc, mpi/api/topo.cc).
#pragma once

#include "mpi.h"

namespace gasket::mpi::large_count {

struct CollectiveForm {
  enum Kind { kBlocking, kNonblocking, kPersistent } kind;
  MPI_Request* request;  // non-blocking and persistent forms
  MPI_Info info;         // persistent form
  static CollectiveForm blocking_form() { return CollectiveForm{kBlocking, nullptr, MPI_INFO_NULL}; }
  static CollectiveForm nonblocking_form(MPI_Request* request) {
    return CollectiveForm{kNonblocking, request, MPI_INFO_NULL};
  }
  static CollectiveForm persistent_form(MPI_Info info, MPI_Request* request) {
    return CollectiveForm{kPersistent, request, info};
  }
  bool blocking() const { return kind == kBlocking; }
};

}  // namespace gasket::mpi::large_count
