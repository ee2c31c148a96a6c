// INTERIM collectives over point-to-point (to be replaced by core/coll, issue 8), used by the
// bindings of MPI_Barrier/Bcast/Reduce/Allreduce and by communicator creation. Traffic runs on the
// communicator's collective context (context + 1).
#pragma once

#include <cstdint>

#include "mpi/base/error.h"
#include "mpi/comm/communicator.h"
#include "mpi/context/context.h"

namespace gasket::mpi::api {

Error coll_bcast(Context& c, Guard& g, void* buf, int64_t bytes, int root, const comm::Communicator& comm);
// all[r * bytes ...] = rank r's `mine`.
Error coll_allgather(Context& c, Guard& g, const void* mine, int64_t bytes, void* all, const comm::Communicator& comm);
// A context id unused by every member of `comm` (and now taken by each of them).
uint32_t agree_context(Context& c, Guard& g, const comm::Communicator& comm);

}  // namespace gasket::mpi::api
