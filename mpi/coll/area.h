// The same-node collective area of MPI: the core's cell area (core/coll/cells.h), reserved at
// MPI_Init, with one slot per communicator (agreed at communicator creation like the context id;
// MPI_COMM_WORLD has slot 0). The flags' tag is the communicator's context id.
#pragma once

#include "core/coll/cells.h"

namespace gasket::mpi::coll {

using CollectiveArea = gasket::coll::CellArea;

}  // namespace gasket::mpi::coll
