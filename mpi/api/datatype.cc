// C bindings of datatypes: sizes, extents, counts and the derived-type constructors.
#include <cfloat>
#include <climits>
#include <iterator>
#include <cstring>
#include <string>
#include <vector>

#include "mpi.h"
#include "mpi/api/attributes.h"
#include "mpi/api/call.h"
#include "mpi/bindings/large_count.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
namespace api = gasket::mpi::api;
namespace dt = gasket::mpi::datatype;

namespace {
Error lookup(Context& c, MPI_Datatype h, const char* call, const dt::Datatype** t) { return c.types().lookup(h, call, t); }
Error checked_comm(Context& c, MPI_Comm h, const char* call) {
  gasket::mpi::comm::Communicator* unused;
  return api::check_comm(c, h, call, &unused);
}

// Count of whole elements of `type` in `bytes`; MPI_UNDEFINED when they do not divide.
MPI_Count whole(int64_t bytes, int64_t size) {
  if (size == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  return bytes % size == 0 ? bytes / size : MPI_UNDEFINED;
}

}  // namespace

namespace gasket::mpi::large_count {

// MPI_Get_count, MPI_Get_elements(_x) and MPI_Type_size(_x) in every form (int, _x, _c; the int/_c
// pairs are generated, mpi/bindings/large_count.txt): one implementation each, answering an MPI_Count.
int Get_count(const char* call, const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, call, &t);
    if (!e.is_ok()) return e;
    if (status == nullptr || count == nullptr) return error(MPI_ERR_ARG, "%s: a NULL argument", call);
    *count = whole(status->gasket_bytes, t->size);
    return Error::ok();
  });
}

int Get_elements(const char* call, const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, call, &t);
    if (!e.is_ok()) return e;
    if (status == nullptr || count == nullptr) return error(MPI_ERR_ARG, "%s: a NULL argument", call);
    int64_t elems = dt::elements_in(*t, status->gasket_bytes);
    *count = elems < 0 ? MPI_UNDEFINED : elems;
    return Error::ok();
  });
}

int Type_size(const char* call, MPI_Datatype datatype, MPI_Count* size) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, call, &t);
    if (!e.is_ok()) return e;
    if (size == nullptr) return error(MPI_ERR_ARG, "%s: size is NULL", call);
    *size = t->size;
    return Error::ok();
  });
}

}  // namespace gasket::mpi::large_count

// MPI_Status_set_elements(_x): the status then reports `count` basic elements of `datatype`.
static int set_elements(const char* call, MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, call, &t);
    if (!e.is_ok()) return e;
    if (status == nullptr || count < 0) {
      return error(MPI_ERR_ARG, "%s: NULL status or negative count %lld", call, static_cast<long long>(count));
    }
    int64_t per = t->basic_count > 0 ? t->size / t->basic_count : 0;
    status->gasket_bytes = static_cast<long long>(count) * (t->basic_size ? t->basic_size : per);
    return Error::ok();
  });
}

extern "C" {

int PMPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return set_elements("MPI_Status_set_elements", status, datatype, count);
}
int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}
int PMPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}




int PMPI_Type_commit(MPI_Datatype* datatype) {
  return api::call("MPI_Type_commit", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (datatype == nullptr) return error(MPI_ERR_ARG, "MPI_Type_commit: datatype is NULL");
    const dt::Datatype* t;
    Error e = lookup(c, *datatype, "MPI_Type_commit", &t);
    if (!e.is_ok()) return e;
    c.types().mutable_type(*datatype)->committed = true;
    return Error::ok();
  });
}

int PMPI_Type_free(MPI_Datatype* datatype) {
  return api::call("MPI_Type_free", MPI_COMM_WORLD, [&](Context& c, Guard& g) -> Error {
    if (datatype == nullptr) return error(MPI_ERR_ARG, "MPI_Type_free: datatype is NULL");
    const dt::Datatype* t = nullptr;
    Error e = c.types().lookup(*datatype, "MPI_Type_free", &t);
    if (e.is_ok() && !t->predefined) e = api::delete_attributes(c, g, api::type_attributes, *datatype, "MPI_Type_free");
    if (!e.is_ok()) return e;
    return c.types().free(datatype, "MPI_Type_free");
  });
}

}  // extern "C"

// ---- constructors and queries (MPI 3.1 chapter 4) ----

namespace {

// A constructor's type as the _c forms record it (MPI_Type_get_contents_c's large counts).
bool large_form(const char* call) {
  size_t n = std::strlen(call);
  return n > 2 && std::strcmp(call + n - 2, "_c") == 0;
}

// Shared by every constructor binding: look up the old type, build, register.
template <typename Build>
int construct(const char* call, MPI_Datatype oldtype, MPI_Datatype* newtype, Build build) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* old = nullptr;
    Error e = lookup(c, oldtype, call, &old);  // MPI_DATATYPE_NULL or a freed type: MPI_ERR_TYPE
    if (!e.is_ok()) return e;
    if (newtype == nullptr) return error(MPI_ERR_ARG, "%s: newtype is NULL", call);
    dt::Datatype t;
    e = build(c, old, &t);
    if (!e.is_ok()) return e;
    if (large_form(call)) dt::record_large_counts(&t);
    *newtype = c.types().add(std::move(t));
    return Error::ok();
  });
}

Error count_ok(MPI_Count count, const char* call) {
  return count < 0 ? error(MPI_ERR_COUNT, "%s: count %lld is negative", call, static_cast<long long>(count))
                   : Error::ok();
}

// The first n elements of a count array (checked non-null when n > 0).
template <typename T>
Error widened(const gasket::mpi::large_count::WideArray<T>& a, MPI_Count n, const char* what, const char* call,
              std::vector<int64_t>* out) {
  if (n > 0 && !a) return error(MPI_ERR_ARG, "%s: %s is NULL", call, what);
  out->resize(static_cast<size_t>(n));
  for (MPI_Count i = 0; i < n; ++i) (*out)[static_cast<size_t>(i)] = a[i];
  return Error::ok();
}

// The per-dimension arguments of subarray/darray, which the datatype module keeps as int: a _c
// value beyond INT_MAX is refused (MPI_ERR_VALUE_TOO_LARGE; README.md).
Error dimensions(const gasket::mpi::large_count::WideArray<MPI_Count>& a, int n, const char* what, const char* call,
                 std::vector<int>* out) {
  if (n > 0 && !a) return error(MPI_ERR_ARG, "%s: %s is NULL", call, what);
  out->resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (a[i] > INT_MAX || a[i] < INT_MIN) {
      return error(MPI_ERR_VALUE_TOO_LARGE, "%s: %s[%d] = %lld: gasket's subarray and darray types take int sizes", call,
                   what, i, static_cast<long long>(a[i]));
    }
    (*out)[static_cast<size_t>(i)] = static_cast<int>(a[i]);
  }
  return Error::ok();
}


int combiner_code(dt::Combiner c) {
  switch (c) {
    case dt::Combiner::kNamed: return MPI_COMBINER_NAMED;
    case dt::Combiner::kDup: return MPI_COMBINER_DUP;
    case dt::Combiner::kContiguous: return MPI_COMBINER_CONTIGUOUS;
    case dt::Combiner::kVector: return MPI_COMBINER_VECTOR;
    case dt::Combiner::kHvector: return MPI_COMBINER_HVECTOR;
    case dt::Combiner::kIndexed: return MPI_COMBINER_INDEXED;
    case dt::Combiner::kHindexed: return MPI_COMBINER_HINDEXED;
    case dt::Combiner::kIndexedBlock: return MPI_COMBINER_INDEXED_BLOCK;
    case dt::Combiner::kHindexedBlock: return MPI_COMBINER_HINDEXED_BLOCK;
    case dt::Combiner::kStruct: return MPI_COMBINER_STRUCT;
    case dt::Combiner::kSubarray: return MPI_COMBINER_SUBARRAY;
    case dt::Combiner::kDarray: return MPI_COMBINER_DARRAY;
    case dt::Combiner::kResized: return MPI_COMBINER_RESIZED;
    case dt::Combiner::kF90Real: return MPI_COMBINER_F90_REAL;
    case dt::Combiner::kF90Complex: return MPI_COMBINER_F90_COMPLEX;
    case dt::Combiner::kF90Integer: return MPI_COMBINER_F90_INTEGER;
  }
  return MPI_UNDEFINED;
}

Error check_datarep(const char* datarep, const char* call) {
  if (datarep == nullptr || std::string(datarep) != "external32") {
    return error(MPI_ERR_UNSUPPORTED_DATAREP, "%s: data representation '%s' is not \"external32\"", call,
                 datarep ? datarep : "(null)");
  }
  return Error::ok();
}

}  // namespace

extern "C" {










int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  int rc = construct("MPI_Type_dup", oldtype, newtype,
                     [&](Context&, const dt::Datatype* old, dt::Datatype* t) { return dt::make_dup(*old, oldtype, t); });
  if (rc != MPI_SUCCESS) return rc;
  // The copy callbacks of the old type's attributes (they may call MPI: the lock is released).
  return api::call("MPI_Type_dup", MPI_COMM_WORLD, [&](Context& c, Guard& g) -> Error {
    api::Attributes source = std::move(*api::type_attributes(c, *newtype));  // make_dup copied the old's
    api::type_attributes(c, *newtype)->clear();
    api::Attributes copied;
    Error e = api::copy_attributes(c, g, oldtype, source, &copied, "MPI_Type_dup");
    api::Attributes* attributes = api::type_attributes(c, *newtype);
    if (attributes != nullptr) *attributes = std::move(copied);
    return e;
  });
}

}  // extern "C"

namespace {
// MPI_Type_get_envelope and _c: the int form (large null) refuses a type made by a _c constructor,
// whose large counts it has no argument for.
int envelope(const char* call, MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
             MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, call, &t);
    if (!e.is_ok()) return e;
    if (num_integers == nullptr || num_addresses == nullptr || num_datatypes == nullptr || combiner == nullptr) {
      return error(MPI_ERR_ARG, "%s: a NULL argument", call);
    }
    if (num_large_counts == nullptr && !t->large_counts.empty()) {
      return error(MPI_ERR_TYPE, "%s: type %d was made by a large-count (_c) constructor: call %s_c", call, datatype,
                   call);
    }
    *num_integers = static_cast<MPI_Count>(t->ints.size());
    *num_addresses = static_cast<MPI_Count>(t->aints.size());
    if (num_large_counts != nullptr) *num_large_counts = static_cast<MPI_Count>(t->large_counts.size());
    *num_datatypes = static_cast<MPI_Count>(t->types.size());
    *combiner = combiner_code(t->combiner);
    return Error::ok();
  });
}

int contents(const char* call, MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
             MPI_Count max_large_counts, MPI_Count max_datatypes, int integers[], MPI_Aint addresses[],
             MPI_Count large_counts[], MPI_Datatype datatypes[]) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, call, &t);
    if (!e.is_ok()) return e;
    if (t->combiner == dt::Combiner::kNamed) return error(MPI_ERR_TYPE, "%s: %s is a named type", call, t->name.c_str());
    if (max_integers < static_cast<MPI_Count>(t->ints.size()) ||
        max_addresses < static_cast<MPI_Count>(t->aints.size()) ||
        max_large_counts < static_cast<MPI_Count>(t->large_counts.size()) ||
        max_datatypes < static_cast<MPI_Count>(t->types.size())) {
      return error(MPI_ERR_ARG, "%s: the arrays are smaller than MPI_Type_get_envelope's counts", call);
    }
    for (size_t i = 0; i < t->ints.size(); ++i) integers[i] = static_cast<int>(t->ints[i]);
    for (size_t i = 0; i < t->aints.size(); ++i) addresses[i] = static_cast<MPI_Aint>(t->aints[i]);
    std::copy(t->large_counts.begin(), t->large_counts.end(), large_counts);
    std::copy(t->types.begin(), t->types.end(), datatypes);
    for (MPI_Datatype handed_out : t->types) c.types().retain(handed_out);  // the caller frees them
    return Error::ok();
  });
}
}  // namespace

extern "C" {

int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes,
                           int* combiner) {
  MPI_Count ni = 0, na = 0, nd = 0;
  bool given = num_integers != nullptr && num_addresses != nullptr && num_datatypes != nullptr;
  int rc = envelope("MPI_Type_get_envelope", datatype, given ? &ni : nullptr, &na, nullptr, &nd, combiner);
  if (rc == MPI_SUCCESS) *num_integers = static_cast<int>(ni), *num_addresses = static_cast<int>(na),
                         *num_datatypes = static_cast<int>(nd);
  return rc;
}
int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                             MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  MPI_Count unused;
  return envelope("MPI_Type_get_envelope_c", datatype, num_integers, num_addresses,
                  num_large_counts != nullptr ? num_large_counts : &unused, num_datatypes, combiner);
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int integers[], MPI_Aint addresses[], MPI_Datatype datatypes[]) {
  return contents("MPI_Type_get_contents", datatype, max_integers, max_addresses, 0, max_datatypes, integers,
                  addresses, nullptr, datatypes);
}
int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[]) {
  return contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses, max_large_counts, max_datatypes,
                  array_of_integers, array_of_addresses, array_of_large_counts, array_of_datatypes);
}

int PMPI_Type_set_name(MPI_Datatype datatype, const char* name) {
  return api::call("MPI_Type_set_name", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, "MPI_Type_set_name", &t);
    if (!e.is_ok()) return e;
    if (name == nullptr) return error(MPI_ERR_ARG, "MPI_Type_set_name: name is NULL");
    c.types().mutable_type(datatype)->name = std::string(name).substr(0, MPI_MAX_OBJECT_NAME - 1);
    return Error::ok();
  });
}

int PMPI_Type_get_name(MPI_Datatype datatype, char* name, int* resultlen) {
  if (datatype == MPI_DATATYPE_NULL) return api::name_of_null("MPI_Type_get_name", "MPI_DATATYPE_NULL", name, resultlen);
  return api::call("MPI_Type_get_name", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, "MPI_Type_get_name", &t);
    if (!e.is_ok()) return e;
    std::memcpy(name, t->name.c_str(), t->name.size() + 1);
    *resultlen = static_cast<int>(t->name.size());
    return Error::ok();
  });
}

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) { return gasket::mpi::large_count::Type_size("MPI_Type_size_x", datatype, size); }

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return gasket::mpi::large_count::Type_get_extent("MPI_Type_get_extent_x", datatype, lb, extent);
}


int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return gasket::mpi::large_count::Type_get_true_extent("MPI_Type_get_true_extent_x", datatype, true_lb, true_extent);
}

int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return gasket::mpi::large_count::Get_elements("MPI_Get_elements_x", status, datatype, count);
}

int PMPI_Get_address(const void* location, MPI_Aint* address) {
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) { return base + disp; }
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) { return addr1 - addr2; }







// The predefined type of a class with `size` bytes (MPI 4.1 section 19.3.3). gasket has no
// Fortran named types yet, so the candidates are C's, each class's in the order tried.
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  return api::call("MPI_Type_match_size", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    // The size-specific named types, as the standard's advice to implementors and Open MPI answer.
    static const MPI_Datatype kIntegers[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_INTEGER16};
    static const MPI_Datatype kReals[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16};
    static const MPI_Datatype kComplexes[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32};
    const MPI_Datatype* first;
    size_t n;
    switch (typeclass) {
      case MPI_TYPECLASS_INTEGER: first = kIntegers, n = std::size(kIntegers); break;
      case MPI_TYPECLASS_REAL: first = kReals, n = std::size(kReals); break;
      case MPI_TYPECLASS_COMPLEX: first = kComplexes, n = std::size(kComplexes); break;
      default:
        return error(MPI_ERR_ARG, "MPI_Type_match_size: typeclass %d is not MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX",
                     typeclass);
    }
    if (datatype == nullptr) return error(MPI_ERR_ARG, "MPI_Type_match_size: datatype is NULL");
    for (const MPI_Datatype* h = first; h != first + n; ++h) {
      const dt::Datatype* t;
      Error e = lookup(c, *h, "MPI_Type_match_size", &t);
      if (!e.is_ok()) return e;
      if (t->size == size) {
        *datatype = *h;
        return Error::ok();
      }
    }
    return error(MPI_ERR_ARG, "MPI_Type_match_size: no predefined type of class %d has %d bytes", typeclass, size);
  });
}

// MPI_Type_create_f90_*: the predefined type with the decimal range r (integers) or precision p
// and range r (reals, complexes) that Fortran's SELECTED_*_KIND would choose; MPI_UNDEFINED
// leaves p or r free. The result has that type's layout, reports MPI_COMBINER_F90_* with (r) or
// (p, r) as its contents, is the same handle for the same arguments and cannot be freed.
int PMPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  return api::call("MPI_Type_create_f90_integer", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (newtype == nullptr) return error(MPI_ERR_ARG, "MPI_Type_create_f90_integer: newtype is NULL");
    static const struct { int range; MPI_Datatype type; } kKinds[] = {
        {2, MPI_INT8_T}, {4, MPI_INT16_T}, {9, MPI_INT32_T}, {18, MPI_INT64_T}};
    for (const auto& k : kKinds) {
      if (r == MPI_UNDEFINED || (r >= 0 && r <= k.range)) {
        *newtype = c.types().parameterized(k.type, dt::Combiner::kF90Integer, {r});
        return Error::ok();
      }
    }
    return error(MPI_ERR_ARG, "MPI_Type_create_f90_integer: no integer type has a decimal range of %d (at most 18)", r);
  });
}

namespace {
// A real (or, complex: the complex of) type with precision p and range r.
int f90_real(const char* call, int p, int r, bool complex, MPI_Datatype* newtype) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (newtype == nullptr) return error(MPI_ERR_ARG, "%s: newtype is NULL", call);
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED) return error(MPI_ERR_ARG, "%s: p and r are both MPI_UNDEFINED", call);
    static const struct { int precision, range; MPI_Datatype real, complex; } kKinds[] = {
        {FLT_DIG, FLT_MAX_10_EXP, MPI_FLOAT, MPI_C_FLOAT_COMPLEX},
        {DBL_DIG, DBL_MAX_10_EXP, MPI_DOUBLE, MPI_C_DOUBLE_COMPLEX},
        {LDBL_DIG, LDBL_MAX_10_EXP, MPI_LONG_DOUBLE, MPI_C_LONG_DOUBLE_COMPLEX}};
    for (const auto& k : kKinds) {
      if ((p == MPI_UNDEFINED || p <= k.precision) && (r == MPI_UNDEFINED || r <= k.range)) {
        *newtype = c.types().parameterized(complex ? k.complex : k.real,
                                           complex ? dt::Combiner::kF90Complex : dt::Combiner::kF90Real, {p, r});
        return Error::ok();
      }
    }
    return error(MPI_ERR_ARG, "%s: no type has precision %d and range %d (at most %d and %d)", call, p, r, LDBL_DIG,
                 LDBL_MAX_10_EXP);
  });
}
}  // namespace

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  return f90_real("MPI_Type_create_f90_real", p, r, false, newtype);
}
int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  return f90_real("MPI_Type_create_f90_complex", p, r, true, newtype);
}

}  // extern "C"

// ---- the procedures with counts: the int and _c bindings of each are generated
// (mpi/bindings/large_count.txt) ----
namespace gasket::mpi::large_count {

// The bounds of a type: its lb and extent, or (true_bounds) its true lb and true extent.
int bounds(const char* call, MPI_Datatype datatype, bool true_bounds, MPI_Count* lb, MPI_Count* extent) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, call, &t);
    if (!e.is_ok()) return e;
    if (lb == nullptr || extent == nullptr) return error(MPI_ERR_ARG, "%s: a NULL argument", call);
    *lb = true_bounds ? t->true_lb : t->lb;
    *extent = true_bounds ? t->true_ub - t->true_lb : t->extent();
    return Error::ok();
  });
}
int Type_get_extent(const char* call, MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return bounds(call, datatype, false, lb, extent);
}
int Type_get_true_extent(const char* call, MPI_Datatype datatype, MPI_Count* true_lb, MPI_Count* true_extent) {
  return bounds(call, datatype, true, true_lb, true_extent);
}

int Type_contiguous(const char* call, MPI_Count count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct(call, oldtype, newtype, [&](Context&, const dt::Datatype* old, dt::Datatype* t) {
    return dt::make_contiguous(*old, oldtype, count, call, t);
  });
}

int Type_vector(const char* call, MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                MPI_Datatype* newtype) {
  return construct(call, oldtype, newtype, [&](Context&, const dt::Datatype* old, dt::Datatype* t) {
    return dt::make_vector(*old, oldtype, count, blocklength, stride, true, call, t);
  });
}

int Type_create_hvector(const char* call, MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                        MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct(call, oldtype, newtype, [&](Context&, const dt::Datatype* old, dt::Datatype* t) {
    return dt::make_vector(*old, oldtype, count, blocklength, stride, false, call, t);
  });
}

// The indexed family: displacements in elements (indexed) or bytes (h*), one blocklength for the
// block forms.
int indexed(const char* call, MPI_Count count, CountArray blocklengths, MPI_Count blocklength, CountArray displacements,
            bool bytes, bool block, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct(call, oldtype, newtype, [&](Context&, const dt::Datatype* old, dt::Datatype* t) -> Error {
    std::vector<int64_t> lengths{blocklength}, displs;
    Error e = count_ok(count, call);
    if (e.is_ok() && !block) e = widened(blocklengths, count, "array_of_blocklengths", call, &lengths);
    if (e.is_ok()) e = widened(displacements, count, "array_of_displacements", call, &displs);
    if (!e.is_ok()) return e;
    return dt::make_indexed(*old, oldtype, lengths, displs, bytes, block, call, t);
  });
}

int Type_indexed(const char* call, MPI_Count count, CountArray array_of_blocklengths,
                 CountArray array_of_displacements, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed(call, count, array_of_blocklengths, 0, array_of_displacements, false, false, oldtype, newtype);
}
int Type_create_hindexed(const char* call, MPI_Count count, CountArray array_of_blocklengths,
                         CountArray array_of_displacements, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed(call, count, array_of_blocklengths, 0, array_of_displacements, true, false, oldtype, newtype);
}
int Type_create_indexed_block(const char* call, MPI_Count count, MPI_Count blocklength,
                              CountArray array_of_displacements, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed(call, count, nullptr, blocklength, array_of_displacements, false, true, oldtype, newtype);
}
int Type_create_hindexed_block(const char* call, MPI_Count count, MPI_Count blocklength,
                               CountArray array_of_displacements, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return indexed(call, count, nullptr, blocklength, array_of_displacements, true, true, oldtype, newtype);
}

int Type_create_struct(const char* call, MPI_Count count, CountArray array_of_blocklengths,
                       CountArray array_of_displacements, const MPI_Datatype array_of_types[], MPI_Datatype* newtype) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    std::vector<int64_t> lengths, displs;
    Error e = count_ok(count, call);
    if (e.is_ok()) e = widened(array_of_blocklengths, count, "array_of_blocklengths", call, &lengths);
    if (e.is_ok()) e = widened(array_of_displacements, count, "array_of_displacements", call, &displs);
    if (!e.is_ok()) return e;
    if (newtype == nullptr || (count > 0 && array_of_types == nullptr)) {
      return error(MPI_ERR_ARG, "%s: a NULL types array or newtype", call);
    }
    std::vector<const dt::Datatype*> ts(static_cast<size_t>(count));
    for (MPI_Count i = 0; i < count; ++i) {
      e = lookup(c, array_of_types[i], call, &ts[static_cast<size_t>(i)]);
      if (!e.is_ok()) return e;
    }
    dt::Datatype t;
    e = dt::make_struct(ts, std::vector<int>(array_of_types, array_of_types + count), lengths, displs, call, &t);
    if (!e.is_ok()) return e;
    if (large_form(call)) dt::record_large_counts(&t);
    *newtype = c.types().add(std::move(t));
    return Error::ok();
  });
}

int Type_create_subarray(const char* call, int ndims, CountArray array_of_sizes, CountArray array_of_subsizes,
                         CountArray array_of_starts, int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct(call, oldtype, newtype, [&](Context&, const dt::Datatype* old, dt::Datatype* t) -> Error {
    if (ndims <= 0) return error(MPI_ERR_ARG, "%s: ndims %d must be positive", call, ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) return error(MPI_ERR_ARG, "%s: order %d", call, order);
    std::vector<int> sizes, subsizes, starts;
    Error e = dimensions(array_of_sizes, ndims, "array_of_sizes", call, &sizes);
    if (e.is_ok()) e = dimensions(array_of_subsizes, ndims, "array_of_subsizes", call, &subsizes);
    if (e.is_ok()) e = dimensions(array_of_starts, ndims, "array_of_starts", call, &starts);
    if (!e.is_ok()) return e;
    return dt::make_subarray(*old, oldtype, sizes, subsizes, starts, order == MPI_ORDER_FORTRAN, call, t);
  });
}

int Type_create_darray(const char* call, int size, int rank, int ndims, CountArray array_of_gsizes,
                       const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
                       int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct(call, oldtype, newtype, [&](Context&, const dt::Datatype* old, dt::Datatype* t) -> Error {
    if (ndims <= 0) return error(MPI_ERR_ARG, "%s: ndims %d must be positive", call, ndims);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN) return error(MPI_ERR_ARG, "%s: order %d", call, order);
    if (array_of_distribs == nullptr || array_of_dargs == nullptr || array_of_psizes == nullptr) {
      return error(MPI_ERR_ARG, "%s: a NULL array", call);
    }
    std::vector<int> gsizes;
    Error e = dimensions(array_of_gsizes, ndims, "array_of_gsizes", call, &gsizes);
    if (!e.is_ok()) return e;
    return dt::make_darray(*old, oldtype, size, rank, gsizes, std::vector<int>(array_of_distribs, array_of_distribs + ndims),
                           std::vector<int>(array_of_dargs, array_of_dargs + ndims),
                           std::vector<int>(array_of_psizes, array_of_psizes + ndims), order == MPI_ORDER_FORTRAN, call, t);
  });
}

int Type_create_resized(const char* call, MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
                        MPI_Datatype* newtype) {
  return construct(call, oldtype, newtype, [&](Context&, const dt::Datatype* old, dt::Datatype* t) {
    return dt::make_resized(*old, oldtype, lb, extent, t);
  });
}

// Pack, Unpack and their external32 forms: `size` bytes per element in the packed form.
int pack(const char* call, bool packing, bool external, const void* inbuf, MPI_Count insize, MPI_Count* position,
         void* outbuf, MPI_Count outsize, MPI_Count count, MPI_Datatype datatype, MPI_Comm comm) {
  return api::call(call, comm, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = comm == MPI_COMM_WORLD && external ? Error::ok() : checked_comm(c, comm, call);
    if (e.is_ok()) e = lookup(c, datatype, call, &t);
    if (e.is_ok()) e = count_ok(count, call);
    if (!e.is_ok()) return e;
    int64_t need = count * (external ? dt::external32_size(*t) : t->size);
    MPI_Count limit = packing ? outsize : insize;
    if (position == nullptr || *position < 0 || *position + need > limit) {
      return error(MPI_ERR_TRUNCATE, "%s: %lld bytes at position %lld %s the %lld-byte buffer", call,
                   static_cast<long long>(need), static_cast<long long>(position ? *position : -1),
                   packing ? "do not fit" : "run past", static_cast<long long>(limit));
    }
    std::vector<char> native(external ? static_cast<size_t>(count * t->size) : 0);
    if (packing) {
      char* at = static_cast<char*>(outbuf) + *position;
      dt::pack(*t, inbuf, count, external ? native.data() : at);
      if (external) dt::to_external32(*t, count, native.data(), at);
    } else {
      const char* at = static_cast<const char*>(inbuf) + *position;
      if (external) dt::from_external32(*t, count, at, native.data());
      dt::unpack(*t, external ? native.data() : at, count * t->size, outbuf, count);
    }
    *position += need;
    return Error::ok();
  });
}

int Pack(const char* call, const void* inbuf, MPI_Count incount, MPI_Datatype datatype, void* outbuf,
         MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  return pack(call, true, false, inbuf, 0, position, outbuf, outsize, incount, datatype, comm);
}
int Unpack(const char* call, const void* inbuf, MPI_Count insize, MPI_Count* position, void* outbuf,
           MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  return pack(call, false, false, inbuf, insize, position, outbuf, 0, outcount, datatype, comm);
}
int Pack_external(const char* call, const char* datarep, const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                  void* outbuf, MPI_Count outsize, MPI_Count* position) {
  int rc = api::call(call, MPI_COMM_WORLD, [&](Context&, Guard&) { return check_datarep(datarep, call); });
  return rc != MPI_SUCCESS ? rc : pack(call, true, true, inbuf, 0, position, outbuf, outsize, incount, datatype,
                                       MPI_COMM_WORLD);
}
int Unpack_external(const char* call, const char* datarep, const void* inbuf, MPI_Count insize, MPI_Count* position,
                    void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  int rc = api::call(call, MPI_COMM_WORLD, [&](Context&, Guard&) { return check_datarep(datarep, call); });
  return rc != MPI_SUCCESS ? rc : pack(call, false, true, inbuf, insize, position, outbuf, 0, outcount, datatype,
                                       MPI_COMM_WORLD);
}

int Pack_size(const char* call, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  return api::call(call, comm, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = checked_comm(c, comm, call);
    if (e.is_ok()) e = lookup(c, datatype, call, &t);
    if (e.is_ok()) e = count_ok(incount, call);
    if (e.is_ok() && size == nullptr) e = error(MPI_ERR_ARG, "%s: size is NULL", call);
    if (!e.is_ok()) return e;
    *size = incount * t->size;
    return Error::ok();
  });
}

int Pack_external_size(const char* call, const char* datarep, MPI_Count incount, MPI_Datatype datatype,
                       MPI_Count* size) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = check_datarep(datarep, call);
    if (e.is_ok()) e = lookup(c, datatype, call, &t);
    if (e.is_ok()) e = count_ok(incount, call);
    if (e.is_ok() && size == nullptr) e = error(MPI_ERR_ARG, "%s: size is NULL", call);
    if (!e.is_ok()) return e;
    *size = incount * dt::external32_size(*t);
    return Error::ok();
  });
}

}  // namespace gasket::mpi::large_count
