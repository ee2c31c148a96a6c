// MPI datatypes: the predefined types and derived ones, each flattened at construction into a
// list of contiguous blocks (offset, length) for one element, plus its size, bounds and extent.
// Packing walks the blocks; a type whose data is one block the size of its extent moves with a
// single memcpy (no pack at all). Handles are table indices; predefined ones are the constants of
// mpi.h. Owned by the MPI context (mpi/context); may call mpi/base only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mpi/base/attribute_list.h"
#include "mpi/base/error.h"
#include "mpi/base/handle.h"

namespace gasket::mpi::datatype {

// A contiguous run of basic elements of one kind: `elem` bytes each natively, `ext` bytes each
// in external32 (they differ for MPI_LONG / MPI_UNSIGNED_LONG); `sign` for sign extension.
struct Block {
  int64_t offset;
  int64_t length;
  uint8_t elem = 1;
  uint8_t ext = 1;
  bool sign = false;
  bool swap = true;  // external32 reverses the bytes of each element (false for char-like data)
};

// How a type was made (MPI_Type_get_envelope's combiner); predefined types are kNamed.
enum class Combiner { kNamed, kDup, kContiguous, kVector, kHvector, kIndexed, kHindexed, kIndexedBlock,
                      kHindexedBlock, kStruct, kSubarray, kDarray, kResized, kF90Real, kF90Complex, kF90Integer };

struct Datatype {
  std::string name;
  AttributeList attributes;  // keyval -> value (MPI_Type_set_attr), in the order set
  int64_t size = 0;  // data bytes of one element
  int64_t lb = 0, ub = 0;  // extent = ub - lb
  int64_t true_lb = 0, true_ub = 0;
  std::vector<Block> blocks;  // in typemap order, adjacent blocks merged
  // Basic elements per element and, when every basic element has the same size, that size (for
  // MPI_Get_elements); 0 when mixed.
  int64_t basic_count = 0;
  int64_t basic_size = 0;
  // The predefined type every basic element is (a pair type such as MPI_2INT counts as one), or
  // 0 when mixed: the reductions apply predefined operations to derived types through it.
  int basic_type = 0;
  bool predefined = false;
  bool committed = false;
  Combiner combiner = Combiner::kNamed;
  // What MPI_Type_get_contents returns: the constructor's integer, address and (types made by
  // the _c constructors, MPI 4.1) large-count arguments.
  std::vector<int64_t> ints;
  std::vector<int64_t> aints;
  std::vector<int64_t> large_counts;
  std::vector<int> types;
  // Holders of a derived type: its user handle, each derived type built from it (its contents
  // name it), each handle MPI_Type_get_contents returned. MPI_Type_free drops one; the type
  // (and its handle) lives until the last is gone, as in MPICH.
  int references = 1;

  int64_t extent() const { return ub - lb; }
  // One block starting at true_lb whose length is the extent: count elements are contiguous.
  bool contiguous() const { return blocks.size() <= 1 && size == extent(); }
};

class DatatypeTable {
 public:
  DatatypeTable();
  // The type behind `handle`, or an error naming `call` (null, freed, or never a type).
  Error lookup(int handle, const char* call, const Datatype** type) const;
  // Also fails for types not committed (send/recv need committed types; MPI_Type_* do not).
  Error lookup_committed(int handle, const char* call, const Datatype** type) const;
  // The committed type of `count` elements of `handle`: MPI_DATATYPE_NULL names no data when the
  // count is 0 (an empty type, as the other implementations accept it), else as lookup_committed.
  Error lookup_data(int handle, int64_t count, const char* call, const Datatype** type) const;
  // The committed type behind `handle`, or null (the hot path; lookup_committed() explains).
  const Datatype* find_committed(int handle) const {
    const auto* entry = entry_of(types_, HandleKind::kDatatype, handle);
    const Datatype* t = entry != nullptr ? entry->get() : nullptr;
    return t != nullptr && t->committed ? t : nullptr;
  }
  // Registers `type` (which references the derived types in its contents) under a new handle.
  int add(Datatype type);
  // MPI_Type_create_f90_*: the one handle for (combiner, parameters), made on first use as a copy
  // of the predefined `base` that records them (get_envelope/get_contents) and, like every
  // predefined type, cannot be freed.
  int parameterized(int base, Combiner combiner, const std::vector<int>& parameters);
  // One more holder of `handle` (MPI_Type_get_contents hands it out); predefined types have none.
  void retain(int handle);
  // MPI_Type_free: the caller's reference is dropped and *handle set to MPI_DATATYPE_NULL.
  Error free(int* handle, const char* call);
  Datatype* mutable_type(int handle) { return types_[slot_of(HandleKind::kDatatype, handle)].get(); }

 private:
  void release(int handle);

  std::vector<std::unique_ptr<Datatype>> types_;
  std::vector<int> free_handles_;
  std::map<std::pair<Combiner, std::vector<int>>, int> parameterized_;
  // Freed types stay allocated: requests still in flight may point at them (MPI lets a type be
  // freed while operations that use it are pending).
  std::vector<std::unique_ptr<Datatype>> retired_;
};

// Constructors (flatten the old types; argument errors name `call`). A piece is `count` copies of
// a type starting `displacement` bytes from the new type's origin.
struct Piece {
  int64_t displacement;
  int64_t count;
  const Datatype* type;
};
Datatype build(const std::vector<Piece>& pieces, Combiner combiner);
Error make_contiguous(const Datatype& old, int old_handle, int64_t count, const char* call, Datatype* out);
Error make_vector(const Datatype& old, int old_handle, int64_t count, int64_t blocklength, int64_t stride_bytes,
                  bool stride_in_elements, const char* call, Datatype* out);
// Indexed family: displacements in elements of `old` (indexed) or bytes (h*); a single
// blocklength when `blocklengths` has one entry and `block` is true (indexed_block).
Error make_indexed(const Datatype& old, int old_handle, const std::vector<int64_t>& blocklengths,
                   const std::vector<int64_t>& displacements, bool bytes, bool block, const char* call,
                   Datatype* out);
Error make_struct(const std::vector<const Datatype*>& types, const std::vector<int>& handles,
                  const std::vector<int64_t>& blocklengths, const std::vector<int64_t>& displacements,
                  const char* call, Datatype* out);
Error make_resized(const Datatype& old, int old_handle, int64_t lb, int64_t extent, Datatype* out);
// For a type made by a _c constructor: its count arguments move to large_counts in the order of
// MPI 4.1's get_contents_c (subarray: sizes, subsizes, starts; darray: gsizes; the others: every
// integer then every address argument).
void record_large_counts(Datatype* t);
Error make_dup(const Datatype& old, int old_handle, Datatype* out);
// Subarray and darray share one builder: per dimension, the global indices this piece covers.
Error make_subarray(const Datatype& old, int old_handle, const std::vector<int>& sizes,
                    const std::vector<int>& subsizes, const std::vector<int>& starts, bool fortran_order,
                    const char* call, Datatype* out);
Error make_darray(const Datatype& old, int old_handle, int size, int rank, const std::vector<int>& gsizes,
                  const std::vector<int>& distribs, const std::vector<int>& dargs, const std::vector<int>& psizes,
                  bool fortran_order, const char* call, Datatype* out);

// Basic elements in the first `bytes` of a packed stream of `type` (MPI_Get_elements); -1 when a
// basic element is cut.
int64_t elements_in(const Datatype& type, int64_t bytes);
// external32: size, and conversion from / to the native packed form of `count` elements.
int64_t external32_size(const Datatype& type);
void to_external32(const Datatype& type, int64_t count, const char* native, char* out);
void from_external32(const Datatype& type, int64_t count, const char* in, char* native);

// Copies `count` elements laid out by `type` at `buf` into / out of a packed byte stream.
// unpack copies at most `bytes` packed bytes (a truncated or short message).
void pack(const Datatype& type, const void* buf, int64_t count, char* out);
void unpack(const Datatype& type, const char* in, int64_t bytes, void* buf, int64_t count);

}  // namespace gasket::mpi::datatype
