// How a collective runs (blocking, non-blocking, persistent: mpi/bindings/collective_form.h, the
// argument the generated bindings pass), shared by the collectives (coll.cc) and the neighborhood
// collectives (topo.cc), and the checks of its request and info arguments.
#pragma once

#include "mpi.h"
#include "mpi/api/call.h"
#include "mpi/bindings/collective_form.h"

namespace gasket::mpi::api {

using Form = large_count::CollectiveForm;

// The request argument (non-blocking, persistent) and the info argument (persistent).
inline Error check_form(Context& c, const Form& form, const char* call) {
  if (form.kind != Form::kBlocking && form.request == nullptr) {
    return error(MPI_ERR_ARG, "%s: the request argument is NULL", call);
  }
  return form.kind == Form::kPersistent ? check_info(c, form.info, call) : Error::ok();
}

}  // namespace gasket::mpi::api
