// What the generated int/_c pairs (large_count.cc) pass to their one implementation: a count or
// displacement array of either form read as the wide type, and the narrowing of the int form's
// OUT values (defined in mpi/api/large_count.cc, where errors reach the error handler).
#pragma once

#include <cstdint>

#include "mpi.h"

namespace gasket::mpi::large_count {

// A read-only view of `const int[]` (the int form) or `const MPI_Aint[]` / `const MPI_Count[]`
// (the _c form) whose elements read as T. Null stays null (the implementation reports it).
template <typename T>
class WideArray {
 public:
  WideArray() = default;
  WideArray(std::nullptr_t) {}
  template <typename S>
  WideArray(const S* elements) : elements_(elements), narrow_(sizeof(S) == sizeof(int)) {
    static_assert(sizeof(S) == sizeof(int) || sizeof(S) == sizeof(int64_t), "an int or 64-bit count array");
  }
  T operator[](int64_t i) const {
    return narrow_ ? static_cast<T>(static_cast<const int*>(elements_)[i])
                   : static_cast<T>(static_cast<const int64_t*>(elements_)[i]);
  }
  bool is_null() const { return elements_ == nullptr; }
  explicit operator bool() const { return elements_ != nullptr; }

 private:
  const void* elements_ = nullptr;
  bool narrow_ = false;
};
using CountArray = WideArray<MPI_Count>;
using AintArray = WideArray<MPI_Aint>;

// Stores `value` into the int form's OUT argument `out`; when it does not fit: MPI_UNDEFINED if
// `undefined` (what the standard says for MPI_Get_count, MPI_Get_elements, MPI_Type_size), else
// MPI_ERR_VALUE_TOO_LARGE through MPI_COMM_WORLD's error handler, naming the call and argument.
int narrow(const char* call, const char* argument, MPI_Count value, int* out, bool undefined);
int narrow(const char* call, const char* argument, MPI_Count value, MPI_Aint* out, bool undefined);

}  // namespace gasket::mpi::large_count
