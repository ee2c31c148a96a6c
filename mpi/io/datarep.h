// Data representations of MPI-IO (MPI 4.1 §14.5): the size a datatype's data takes in a file,
// and the layout in the file of an etype or filetype whose basic types change size there
// (external32's 4-byte MPI_LONG; a registered representation's extents). Nothing here calls MPI.
#pragma once

#include <cstdint>
#include <functional>

#include "mpi/base/error.h"
#include "mpi/datatype/datatype.h"

namespace gasket::mpi::io {

// The bytes one element of predefined type `handle` takes in the file; <= 0 when the
// representation gives none.
using BasicFileSize = std::function<int64_t(int handle, const datatype::Datatype& type)>;

// The datatype `handle` laid out in the file (§14.5.2): the same constructor over the file
// layout of its old types. Types made without byte displacements (contiguous, vector, indexed,
// indexed_block, subarray, darray, dup) are scaled to the file sizes of their elements; byte
// displacements (hvector, hindexed, hindexed_block, struct, resized bounds) are kept as given.
// Errors name `call` and the type the representation has no size for.
Error file_layout(const datatype::DatatypeTable& types, int handle, const BasicFileSize& basic_size, const char* call,
                  datatype::Datatype* out);

}  // namespace gasket::mpi::io
