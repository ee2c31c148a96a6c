#include "mpi/api/attributes.h"

#include <vector>

#include "mpi/api/call.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
namespace api = gasket::mpi::api;

namespace gasket::mpi::api {

Attributes* comm_attributes(Context& c, int comm) {
  comm::Communicator* cm = c.comms().find(comm);
  return cm != nullptr ? &cm->attributes : nullptr;
}

Attributes* type_attributes(Context& c, int datatype) {
  const datatype::Datatype* t = nullptr;
  if (!c.types().lookup(datatype, "", &t).is_ok()) return nullptr;
  return &c.types().mutable_type(datatype)->attributes;
}

Error free_keyval(Context& c, int* keyval, comm::KeyvalKind kind, const char* call) {
  if (keyval == nullptr) return error(MPI_ERR_ARG, "%s: rank %d: the keyval argument is NULL", call, gasket::my_pe());
  comm::Keyval* k;
  Error e = c.comms().lookup_keyval(*keyval, kind, gasket::my_pe(), call, &k);
  if (!e.is_ok()) return e;
  k->freed = true;
  *keyval = MPI_KEYVAL_INVALID;
  return Error::ok();
}

int run_delete_callback(Context& c, Guard& g, int handle, int keyval, void* value) {
  const comm::Keyval* k = c.comms().find_keyval(keyval);
  if (k == nullptr || k->delete_fn == nullptr) return MPI_SUCCESS;
  MPI_Comm_delete_attr_function* fn = k->delete_fn;  // the table may grow while it runs
  void* extra_state = k->extra_state;
  return c.run_callback(g, [&] { return fn(handle, keyval, value, extra_state); });
}

Error delete_attribute(Context& c, Guard& g, AttributesOf of, int handle, int keyval, const char* call) {
  Attributes* attributes = of(c, handle);
  if (attributes == nullptr) return error(MPI_ERR_ARG, "%s: handle %d names no object", call, handle);
  auto it = attributes->find(keyval);
  if (it == attributes->end()) return error(MPI_ERR_KEYVAL, "%s: keyval %d is not set on handle %d", call, keyval, handle);
  void* value = it->second;
  // Removed before its callback runs: a callback that frees the object (or deletes the
  // attribute again) does not see it twice.
  attributes->erase(it);
  int rc = run_delete_callback(c, g, handle, keyval, value);
  if (rc == MPI_SUCCESS) return Error::ok();
  attributes = of(c, handle);
  if (attributes != nullptr) attributes->emplace(keyval, value);  // a failed delete keeps it
  return error(rc, "%s: the delete callback of keyval %d on handle %d returned %d", call, keyval, handle, rc);
}

Error delete_attributes(Context& c, Guard& g, AttributesOf of, int handle, const char* call) {
  Attributes* attributes = of(c, handle);
  if (attributes == nullptr) return Error::ok();
  std::vector<int> keyvals;
  for (const auto& kv : *attributes) keyvals.push_back(kv.first);
  for (auto k = keyvals.rbegin(); k != keyvals.rend(); ++k) {
    attributes = of(c, handle);  // a callback may have freed it, or deleted the next attribute
    if (attributes == nullptr) return Error::ok();
    if (attributes->count(*k) == 0) continue;
    Error e = delete_attribute(c, g, of, handle, *k, call);
    if (!e.is_ok()) return e;
  }
  return Error::ok();
}

Error copy_attributes(Context& c, Guard& g, int old_handle, const Attributes& source, Attributes* out,
                      const char* call) {
  for (const auto& [keyval, value] : source) {
    const comm::Keyval* k = c.comms().find_keyval(keyval);
    if (k == nullptr || k->copy_fn == nullptr) continue;
    MPI_Comm_copy_attr_function* fn = k->copy_fn;
    void* extra_state = k->extra_state;
    void* copied = nullptr;
    int flag = 0;
    int rc = c.run_callback(g, [&] { return fn(old_handle, keyval, extra_state, value, &copied, &flag); });
    if (rc != MPI_SUCCESS) return error(rc, "%s: the copy callback of keyval %d returned %d", call, keyval, rc);
    if (flag) (*out)[keyval] = copied;
  }
  return Error::ok();
}

}  // namespace gasket::mpi::api

// ---- datatype attributes (MPI 3.1 section 6.7.4) ----

namespace {

constexpr gasket::mpi::comm::KeyvalKind kType = gasket::mpi::comm::KeyvalKind::kType;

Error lookup_type(Context& c, MPI_Datatype handle, const char* call) {
  const gasket::mpi::datatype::Datatype* t = nullptr;
  return c.types().lookup(handle, call, &t);
}

}  // namespace

extern "C" {

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                           MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                           void* extra_state) {
  return api::call("MPI_Type_create_keyval", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (type_keyval == nullptr) return error(MPI_ERR_ARG, "MPI_Type_create_keyval: type_keyval is NULL");
    *type_keyval = c.comms().add_keyval(gasket::mpi::comm::Keyval{type_copy_attr_fn, type_delete_attr_fn, extra_state, false, kType});
    return Error::ok();
  });
}

int PMPI_Type_free_keyval(int* type_keyval) {
  return api::call("MPI_Type_free_keyval", MPI_COMM_WORLD,
                   [&](Context& c, Guard&) { return api::free_keyval(c, type_keyval, kType, "MPI_Type_free_keyval"); });
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  const char* call = "MPI_Type_set_attr";
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard& g) -> Error {
    gasket::mpi::comm::Keyval* k;
    Error e = lookup_type(c, datatype, call);
    if (e.is_ok()) e = c.comms().lookup_keyval(type_keyval, kType, gasket::my_pe(), call, &k);
    if (!e.is_ok()) return e;
    if (api::type_attributes(c, datatype)->count(type_keyval)) {
      e = api::delete_attribute(c, g, api::type_attributes, datatype, type_keyval, call);
      if (e.is_ok()) e = lookup_type(c, datatype, call);  // the callback may free it
      if (!e.is_ok()) return e;
    }
    (*api::type_attributes(c, datatype))[type_keyval] = attribute_val;
    return Error::ok();
  });
}

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  const char* call = "MPI_Type_get_attr";
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    gasket::mpi::comm::Keyval* k;
    Error e = lookup_type(c, datatype, call);
    if (!e.is_ok()) return e;
    const api::Attributes& attributes = *api::type_attributes(c, datatype);
    auto it = attributes.find(type_keyval);
    e = c.comms().lookup_keyval(type_keyval, kType, gasket::my_pe(), call, &k, it != attributes.end());
    if (!e.is_ok()) return e;
    if (attribute_val == nullptr || flag == nullptr) return error(MPI_ERR_ARG, "%s: a NULL argument", call);
    *flag = it != attributes.end();
    if (*flag) *static_cast<void**>(attribute_val) = it->second;
    return Error::ok();
  });
}

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  const char* call = "MPI_Type_delete_attr";
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard& g) -> Error {
    gasket::mpi::comm::Keyval* k;
    Error e = lookup_type(c, datatype, call);
    if (e.is_ok()) e = c.comms().lookup_keyval(type_keyval, kType, gasket::my_pe(), call, &k, true);
    if (!e.is_ok()) return e;
    return api::delete_attribute(c, g, api::type_attributes, datatype, type_keyval, call);
  });
}

}  // extern "C"
