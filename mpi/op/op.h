// Reduction operations: the predefined MPI_Op's applied to buffers of predefined basic types.
// Used by the collectives (mpi/coll) and by RMA accumulates (mpi/win). May call mpi/base only.
#pragma once

#include <cstdint>

#include "mpi.h"

namespace gasket::mpi::op {

// inout[i] = in[i] (op) inout[i] for `n` elements of the predefined type `type` (pair types for
// MPI_MINLOC/MPI_MAXLOC); MPI_REPLACE stores in[i]. False when `op` is not defined for `type`.
bool apply_predefined(MPI_Op op, MPI_Datatype type, const void* in, void* inout, int64_t n);

}  // namespace gasket::mpi::op
