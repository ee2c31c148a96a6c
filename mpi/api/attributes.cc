#include "mpi/api/attributes.h"

#include <vector>

namespace gasket::mpi::api {

int run_delete_callback(Context& c, Guard& g, int handle, int keyval, void* value) {
  const comm::Keyval* k = c.comms().find_keyval(keyval);
  if (k == nullptr || k->delete_fn == nullptr) return MPI_SUCCESS;
  MPI_Comm_delete_attr_function* fn = k->delete_fn;  // the table may grow while it runs
  void* extra_state = k->extra_state;
  return c.run_callback(g, [&] { return fn(handle, keyval, value, extra_state); });
}

Error delete_comm_attribute(Context& c, Guard& g, MPI_Comm comm, int keyval, const char* call) {
  comm::Communicator* cm = c.comms().find(comm);
  if (cm == nullptr) return error(MPI_ERR_COMM, "%s: %d is not a communicator handle", call, comm);
  auto it = cm->attributes.find(keyval);
  if (it == cm->attributes.end()) {
    return error(MPI_ERR_KEYVAL, "%s: rank %d: keyval %d is not set on the communicator", call, cm->rank, keyval);
  }
  int rank = cm->rank;
  void* value = it->second;
  // Removed before its callback runs: a callback that frees the communicator (or deletes the
  // attribute again) does not see it twice.
  cm->attributes.erase(it);
  int rc = run_delete_callback(c, g, comm, keyval, value);
  if (rc == MPI_SUCCESS) return Error::ok();
  cm = c.comms().find(comm);
  if (cm != nullptr) cm->attributes.emplace(keyval, value);  // a failed delete keeps it
  return error(rc, "%s: rank %d: the delete callback of keyval %d returned %d", call, rank, keyval, rc);
}

Error delete_comm_attributes(Context& c, Guard& g, MPI_Comm comm, const char* call) {
  comm::Communicator* cm = c.comms().find(comm);
  if (cm == nullptr) return Error::ok();
  std::vector<int> keyvals;
  for (const auto& kv : cm->attributes) keyvals.push_back(kv.first);
  for (auto k = keyvals.rbegin(); k != keyvals.rend(); ++k) {
    cm = c.comms().find(comm);  // a callback may have freed it, or deleted the next attribute
    if (cm == nullptr) return Error::ok();
    if (cm->attributes.count(*k) == 0) continue;
    Error e = delete_comm_attribute(c, g, comm, *k, call);
    if (!e.is_ok()) return e;
  }
  return Error::ok();
}

Error copy_comm_attributes(Context& c, Guard& g, MPI_Comm old_comm, const std::map<int, void*>& source,
                           std::map<int, void*>* out, const char* call) {
  for (const auto& [keyval, value] : source) {
    const comm::Keyval* k = c.comms().find_keyval(keyval);
    if (k == nullptr || k->copy_fn == nullptr) continue;
    MPI_Comm_copy_attr_function* fn = k->copy_fn;
    void* extra_state = k->extra_state;
    void* copied = nullptr;
    int flag = 0;
    int rc = c.run_callback(g, [&] { return fn(old_comm, keyval, extra_state, value, &copied, &flag); });
    if (rc != MPI_SUCCESS) return error(rc, "%s: the copy callback of keyval %d returned %d", call, keyval, rc);
    if (flag) (*out)[keyval] = copied;
  }
  return Error::ok();
}

}  // namespace gasket::mpi::api
