#include "mpi/io/datarep.h"

#include <cstddef>
#include <vector>

#include "mpi.h"

namespace gasket::mpi::io {

namespace dt = datatype;

namespace {

// A predefined type in the file: `bytes` of data, packed (no alignment padding in the file).
dt::Datatype basic_in_file(int64_t bytes) {
  dt::Datatype t;
  t.size = bytes;
  t.ub = t.true_ub = bytes;
  t.blocks = {dt::Block{0, bytes}};
  t.basic_count = 1;
  t.basic_size = bytes;
  t.predefined = true;
  t.committed = true;
  return t;
}

std::vector<int> narrow(const std::vector<int64_t>& v, size_t from, size_t n) {
  return std::vector<int>(v.begin() + static_cast<ptrdiff_t>(from), v.begin() + static_cast<ptrdiff_t>(from + n));
}

// The constructor's integer and address arguments in MPI_Type_get_contents order, whichever of
// the int and _c constructors made the type (the _c ones keep their counts in large_counts).
std::vector<int64_t> arguments(const dt::Datatype& t) {
  std::vector<int64_t> a;
  if (t.large_counts.empty()) {
    a = t.ints;
    a.insert(a.end(), t.aints.begin(), t.aints.end());
    return a;
  }
  if (t.combiner == dt::Combiner::kSubarray) {  // ints: ndims, order
    a = {t.ints[0]};
    a.insert(a.end(), t.large_counts.begin(), t.large_counts.end());
    a.push_back(t.ints[1]);
  } else if (t.combiner == dt::Combiner::kDarray) {  // ints: size, rank, ndims, distribs, dargs, psizes, order
    a.assign(t.ints.begin(), t.ints.begin() + 3);
    a.insert(a.end(), t.large_counts.begin(), t.large_counts.end());
    a.insert(a.end(), t.ints.begin() + 3, t.ints.end());
  } else {
    a = t.large_counts;
  }
  return a;
}

}  // namespace

Error file_layout(const dt::DatatypeTable& types, int handle, const BasicFileSize& basic_size, const char* call,
                  dt::Datatype* out) {
  const dt::Datatype* t = nullptr;
  Error e = types.lookup(handle, call, &t);
  if (!e.is_ok()) return e;
  using C = dt::Combiner;
  if (t->combiner == C::kNamed || t->combiner == C::kF90Real || t->combiner == C::kF90Complex ||
      t->combiner == C::kF90Integer) {
    int64_t bytes = basic_size(handle, *t);
    if (bytes <= 0) {
      return error(MPI_ERR_UNSUPPORTED_DATAREP, "%s: the data representation gives no file size for datatype %d (%s)",
                   call, handle, t->name.c_str());
    }
    *out = basic_in_file(bytes);
    return Error::ok();
  }
  // The old types in the file.
  std::vector<dt::Datatype> old(t->types.size());
  std::vector<const dt::Datatype*> old_ptr(t->types.size(), nullptr);
  for (size_t i = 0; i < t->types.size(); ++i) {
    if (t->types[i] == MPI_LB || t->types[i] == MPI_UB) continue;
    e = file_layout(types, t->types[i], basic_size, call, &old[i]);
    if (!e.is_ok()) return e;
    old_ptr[i] = &old[i];
  }
  std::vector<int64_t> a = arguments(*t);
  auto span = [&](size_t from, size_t n) {
    return std::vector<int64_t>(a.begin() + static_cast<ptrdiff_t>(from), a.begin() + static_cast<ptrdiff_t>(from + n));
  };
  int oh = t->types.empty() ? 0 : t->types[0];
  switch (t->combiner) {
    case C::kDup:
      return dt::make_dup(old[0], oh, out);
    case C::kContiguous:
      return dt::make_contiguous(old[0], oh, a[0], call, out);
    case C::kVector:
    case C::kHvector:
      return dt::make_vector(old[0], oh, a[0], a[1], a[2], t->combiner == C::kVector, call, out);
    case C::kIndexed:
    case C::kHindexed: {
      size_t n = static_cast<size_t>(a[0]);
      return dt::make_indexed(old[0], oh, span(1, n), span(1 + n, n), t->combiner == C::kHindexed, false, call, out);
    }
    case C::kIndexedBlock:
    case C::kHindexedBlock: {
      size_t n = static_cast<size_t>(a[0]);
      return dt::make_indexed(old[0], oh, span(1, 1), span(2, n), t->combiner == C::kHindexedBlock, true, call, out);
    }
    case C::kStruct: {
      size_t n = static_cast<size_t>(a[0]);
      return dt::make_struct(old_ptr, t->types, span(1, n), span(1 + n, n), call, out);
    }
    case C::kResized:
      return dt::make_resized(old[0], oh, a[0], a[1], out);
    case C::kSubarray: {
      size_t n = static_cast<size_t>(a[0]);
      return dt::make_subarray(old[0], oh, narrow(a, 1, n), narrow(a, 1 + n, n), narrow(a, 1 + 2 * n, n),
                               a[1 + 3 * n] == MPI_ORDER_FORTRAN, call, out);
    }
    case C::kDarray: {
      size_t n = static_cast<size_t>(a[2]);
      return dt::make_darray(old[0], oh, static_cast<int>(a[0]), static_cast<int>(a[1]), narrow(a, 3, n),
                             narrow(a, 3 + n, n), narrow(a, 3 + 2 * n, n), narrow(a, 3 + 3 * n, n),
                             a[3 + 4 * n] == MPI_ORDER_FORTRAN, call, out);
    }
    default:
      return error(MPI_ERR_UNSUPPORTED_DATAREP, "%s: datatype %d: unknown constructor", call, handle);
  }
}

}  // namespace gasket::mpi::io
