// The narrowing of the int forms' OUT values for the generated int/_c pairs
// (mpi/bindings/large_count.cc; the rule is in mpi/bindings/wide_array.h).
#include <climits>
#include <cstdint>
#include <limits>

#include "mpi/api/call.h"
#include "mpi/bindings/wide_array.h"

namespace gasket::mpi::large_count {

namespace {
template <typename Narrow>
int store(const char* call, const char* argument, MPI_Count value, Narrow* out, bool undefined) {
  if (value >= static_cast<MPI_Count>(std::numeric_limits<Narrow>::min()) &&
      value <= static_cast<MPI_Count>(std::numeric_limits<Narrow>::max())) {
    *out = static_cast<Narrow>(value);
    return MPI_SUCCESS;
  }
  if (undefined) {
    *out = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  return api::call(call, MPI_COMM_WORLD, [&](Context&, Guard&) {
    return error(MPI_ERR_VALUE_TOO_LARGE, "%s: %s = %lld does not fit in an int (call %s_c)", call, argument,
                 static_cast<long long>(value), call);
  });
}
}  // namespace

int narrow(const char* call, const char* argument, MPI_Count value, int* out, bool undefined) {
  return store(call, argument, value, out, undefined);
}
int narrow(const char* call, const char* argument, MPI_Count value, MPI_Aint* out, bool undefined) {
  return store(call, argument, value, out, undefined);
}

}  // namespace gasket::mpi::large_count
