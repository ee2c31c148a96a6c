// C bindings of datatypes: sizes, extents, counts and the derived-type constructors.
#include "mpi.h"
#include "mpi/api/call.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
namespace api = gasket::mpi::api;
namespace dt = gasket::mpi::datatype;

namespace {
Error lookup(Context& c, MPI_Datatype h, const char* call, const dt::Datatype** t) { return c.types().lookup(h, call, t); }

// Count of whole elements of `type` in `bytes`; MPI_UNDEFINED when they do not divide.
int whole(int64_t bytes, int64_t size) {
  if (size == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  return bytes % size == 0 ? static_cast<int>(bytes / size) : MPI_UNDEFINED;
}
}  // namespace

extern "C" {

int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return api::call("MPI_Get_count", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, "MPI_Get_count", &t);
    if (!e.is_ok()) return e;
    if (status == nullptr || count == nullptr) return error(MPI_ERR_ARG, "MPI_Get_count: a NULL argument");
    *count = whole(status->gasket_bytes, t->size);
    return Error::ok();
  });
}

int MPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  return api::call("MPI_Get_elements", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, "MPI_Get_elements", &t);
    if (!e.is_ok()) return e;
    if (status == nullptr || count == nullptr) return error(MPI_ERR_ARG, "MPI_Get_elements: a NULL argument");
    int64_t bytes = status->gasket_bytes;
    if (t->size == 0) {
      *count = 0;
      return Error::ok();
    }
    int64_t elems = bytes / t->size * t->basic_count;
    int64_t rest = bytes % t->size;
    if (rest != 0) {
      if (t->basic_size == 0 || rest % t->basic_size != 0) {
        *count = MPI_UNDEFINED;
        return Error::ok();
      }
      elems += rest / t->basic_size;
    }
    *count = static_cast<int>(elems);
    return Error::ok();
  });
}

int MPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return api::call("MPI_Status_set_elements", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, "MPI_Status_set_elements", &t);
    if (!e.is_ok()) return e;
    if (status == nullptr || count < 0) return error(MPI_ERR_ARG, "MPI_Status_set_elements: NULL status or negative count");
    int64_t per = t->basic_count > 0 ? t->size / t->basic_count : 0;
    status->gasket_bytes = static_cast<long long>(count) * (t->basic_size ? t->basic_size : per);
    return Error::ok();
  });
}

int MPI_Type_size(MPI_Datatype datatype, int* size) {
  return api::call("MPI_Type_size", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, "MPI_Type_size", &t);
    if (!e.is_ok()) return e;
    if (size == nullptr) return error(MPI_ERR_ARG, "MPI_Type_size: size is NULL");
    *size = static_cast<int>(t->size);
    return Error::ok();
  });
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  return api::call("MPI_Type_get_extent", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* t;
    Error e = lookup(c, datatype, "MPI_Type_get_extent", &t);
    if (!e.is_ok()) return e;
    if (lb == nullptr || extent == nullptr) return error(MPI_ERR_ARG, "MPI_Type_get_extent: a NULL argument");
    *lb = t->lb;
    *extent = t->extent();
    return Error::ok();
  });
}

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return api::call("MPI_Type_contiguous", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* old;
    Error e = lookup(c, oldtype, "MPI_Type_contiguous", &old);
    if (!e.is_ok()) return e;
    if (newtype == nullptr) return error(MPI_ERR_ARG, "MPI_Type_contiguous: newtype is NULL");
    dt::Datatype t;
    e = dt::make_contiguous(*old, oldtype, count, "MPI_Type_contiguous", &t);
    if (!e.is_ok()) return e;
    *newtype = c.types().add(std::move(t));
    return Error::ok();
  });
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return api::call("MPI_Type_vector", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    const dt::Datatype* old;
    Error e = lookup(c, oldtype, "MPI_Type_vector", &old);
    if (!e.is_ok()) return e;
    if (newtype == nullptr) return error(MPI_ERR_ARG, "MPI_Type_vector: newtype is NULL");
    dt::Datatype t;
    e = dt::make_vector(*old, oldtype, count, blocklength, stride, true, "MPI_Type_vector", &t);
    if (!e.is_ok()) return e;
    *newtype = c.types().add(std::move(t));
    return Error::ok();
  });
}

int MPI_Type_commit(MPI_Datatype* datatype) {
  return api::call("MPI_Type_commit", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (datatype == nullptr) return error(MPI_ERR_ARG, "MPI_Type_commit: datatype is NULL");
    const dt::Datatype* t;
    Error e = lookup(c, *datatype, "MPI_Type_commit", &t);
    if (!e.is_ok()) return e;
    c.types().mutable_type(*datatype)->committed = true;
    return Error::ok();
  });
}

int MPI_Type_free(MPI_Datatype* datatype) {
  return api::call("MPI_Type_free", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (datatype == nullptr) return error(MPI_ERR_ARG, "MPI_Type_free: datatype is NULL");
    return c.types().free(datatype, "MPI_Type_free");
  });
}

}  // extern "C"
