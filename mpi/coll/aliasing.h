// Aliased buffers of a collective (MPI 4.1 section 2.3: an OUT or INOUT argument may not be
// aliased with any other argument; MPI_IN_PLACE is the way to share a buffer): the bytes a
// process sends and the bytes it receives into must not overlap. Compared as the byte ranges
// the data occupies (true lower bound to true upper bound of each block, so the holes of a
// derived type count as used and zero-count blocks as empty), the way Open MPI and MPICH refuse
// the same call at their argument checks (MPICH compares start addresses; ranges also catch a
// send buffer starting inside the receive buffer).
#pragma once

#include <cstdint>
#include <vector>

#include "mpi/base/error.h"
#include "mpi/datatype/datatype.h"

namespace gasket::mpi::coll {

struct ByteRange {
  const char* lo = nullptr;
  const char* hi = nullptr;  // one past the last byte; lo == hi: empty
};

// The bytes `count` elements of `type` at `buf` occupy.
ByteRange occupied(const void* buf, int64_t count, const datatype::Datatype& type);

// The smallest range holding both (an empty range adds nothing).
ByteRange cover(ByteRange a, ByteRange b);
// Whether two ranges share a byte.
bool meet(ByteRange a, ByteRange b);

// MPI_ERR_BUFFER naming the call and rank when a range of `sent` overlaps a range of `received`.
Error check_not_aliased(std::vector<ByteRange> sent, std::vector<ByteRange> received, const char* call, int rank);

}  // namespace gasket::mpi::coll
