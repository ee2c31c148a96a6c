// C bindings of the environment: init/finalize, thread levels, time, versions, errors and error
// handlers, memory allocation.
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/gasket.h"
#include "core/version.h"
#include "mpi.h"
#include "mpi/api/attributes.h"
#include "mpi/api/call.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::LibraryState;
using gasket::mpi::error;
namespace api = gasket::mpi::api;

namespace {
// Errors before MPI_Init (or after MPI_Finalize) have no communicator: they end the process
// with the message, as MPI_ERRORS_ARE_FATAL would.
int fail_uninitialized(const Error& e) {
  fprintf(stderr, "MPI error: %s (%s)\n", e.message().c_str(), gasket::mpi::error_class_string(e.error_class()));
  exit(e.error_class());
}

void copy_string(const std::string& s, char* out, int* len, size_t max) {
  size_t n = std::min(s.size(), max - 1);
  std::memcpy(out, s.data(), n);
  out[n] = '\0';
  if (len != nullptr) *len = static_cast<int>(n);
}
}  // namespace

namespace {
// Runs body(const UserErrors&) -> int under the lock; before MPI_Init and after MPI_Finalize (when
// MPI_Error_class/MPI_Error_string may still be called) there are no user codes: MPI_ERR_ARG.
template <typename Body>
int with_user_errors(Body body) {
  Context* c = Context::get();
  if (c == nullptr) return MPI_ERR_ARG;
  Guard g(*c);
  return body(c->user_errors());
}
}  // namespace

extern "C" {

int PMPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) {
    return fail_uninitialized(error(MPI_ERR_ARG, "MPI_Init_thread: required thread level %d is not one of "
                                                 "MPI_THREAD_SINGLE..MPI_THREAD_MULTIPLE", required));
  }
  Error e = Context::initialize(required, provided);
  if (!e.is_ok()) return fail_uninitialized(e);
  // A spawned process connects to its parents (mpi/api/dynproc.cc).
  e = gasket::mpi::api::connect_to_parent();
  if (!e.is_ok()) return Context::get()->report(MPI_COMM_WORLD, e);
  return MPI_SUCCESS;
}

int PMPI_Init(int* argc, char*** argv) { return PMPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, nullptr); }

int PMPI_Finalize(void) {
  // MPI_COMM_SELF is freed first, before any other part of MPI is affected: the delete callbacks
  // of its attributes run (the last set first) and may still call MPI.
  if (Context::get() != nullptr) {
    int rc = api::call("MPI_Finalize", MPI_COMM_SELF, [](Context& c, Guard& g) {
      return api::delete_attributes(c, g, api::comm_attributes, MPI_COMM_SELF, "MPI_Finalize");
    });
    if (rc != MPI_SUCCESS) return rc;
  }
  Error e = Context::finalize();
  if (!e.is_ok()) return fail_uninitialized(e);
  return MPI_SUCCESS;
}

int PMPI_Initialized(int* flag) {
  if (flag == nullptr) return MPI_ERR_ARG;
  *flag = Context::state() != LibraryState::kNotInitialized;
  return MPI_SUCCESS;
}

int PMPI_Finalized(int* flag) {
  if (flag == nullptr) return MPI_ERR_ARG;
  *flag = Context::state() == LibraryState::kFinalized;
  return MPI_SUCCESS;
}

int PMPI_Query_thread(int* provided) {
  return api::call("MPI_Query_thread", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (provided == nullptr) return error(MPI_ERR_ARG, "MPI_Query_thread: provided is NULL");
    *provided = c.thread_level();
    return Error::ok();
  });
}

int PMPI_Is_thread_main(int* flag) {
  return api::call("MPI_Is_thread_main", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (flag == nullptr) return error(MPI_ERR_ARG, "MPI_Is_thread_main: flag is NULL");
    *flag = c.is_main_thread() ? 1 : 0;
    return Error::ok();
  });
}

int PMPI_Abort(MPI_Comm comm, int errorcode) {
  Context& c = api::context("MPI_Abort");
  gasket::mpi::comm::Communicator* cm = nullptr;
  int rank = -1;
  {
    Guard g(c);
    if (c.comms().lookup(comm, "MPI_Abort", &cm).is_ok()) rank = cm->rank;
  }
  std::string msg = "MPI_Abort called by rank " + std::to_string(rank) + " with error code " + std::to_string(errorcode);
  gasket::abort_job(errorcode, msg.c_str());
}

double PMPI_Wtime(void) {
  Context* c = Context::get();
  return c != nullptr ? c->wtime() : 0.0;
}

double PMPI_Wtick(void) { return 1e-9; }

int PMPI_Get_processor_name(char* name, int* resultlen) {
  if (name == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
  char host[MPI_MAX_PROCESSOR_NAME] = {0};
  gethostname(host, sizeof host - 1);
  copy_string(host, name, resultlen, MPI_MAX_PROCESSOR_NAME);
  return MPI_SUCCESS;
}

int PMPI_Get_version(int* version, int* subversion) {
  if (version == nullptr || subversion == nullptr) return MPI_ERR_ARG;
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}

int PMPI_Get_library_version(char* version, int* resultlen) {
  if (version == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
  copy_string(std::string("gasket MPI ") + gasket::kVersion + " (MPI 5.0, two-sided over gasket's core)",
              version, resultlen, MPI_MAX_LIBRARY_VERSION_STRING);
  return MPI_SUCCESS;
}

int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (string == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
  const char* s = gasket::mpi::error_class_string(errorcode);
  if (s != nullptr) {
    copy_string(s, string, resultlen, MPI_MAX_ERROR_STRING);
    return MPI_SUCCESS;
  }
  int rc = with_user_errors([&](const gasket::mpi::UserErrors& u) {
    const std::string* text = u.string_of(errorcode);
    if (text == nullptr) return MPI_ERR_ARG;
    copy_string(*text, string, resultlen, MPI_MAX_ERROR_STRING);
    return MPI_SUCCESS;
  });
  if (rc != MPI_SUCCESS) copy_string("unknown error code " + std::to_string(errorcode), string, resultlen, MPI_MAX_ERROR_STRING);
  return rc;
}

int PMPI_Error_class(int errorcode, int* errorclass) {
  if (errorclass == nullptr) return MPI_ERR_ARG;
  if (gasket::mpi::error_class_string(errorcode) != nullptr) {
    *errorclass = errorcode;  // a predefined code is its class
    return MPI_SUCCESS;
  }
  return with_user_errors([&](const gasket::mpi::UserErrors& u) {
    int cls = u.class_of(errorcode);
    if (cls < 0) return MPI_ERR_ARG;
    *errorclass = cls;
    return MPI_SUCCESS;
  });
}

int PMPI_Pcontrol(const int level, ...) { return MPI_SUCCESS; }  // no profiling library to control

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  return api::call("MPI_Alloc_mem", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (size < 0) return error(MPI_ERR_SIZE, "MPI_Alloc_mem: size %lld is negative", static_cast<long long>(size));
    if (baseptr == nullptr) return error(MPI_ERR_ARG, "MPI_Alloc_mem: baseptr is NULL");
    Error e = api::check_info(c, info, "MPI_Alloc_mem");
    if (!e.is_ok()) return e;
    // From the pool in the symmetric heap (remotely accessible: zero-copy rendezvous), else malloc.
    char* p = c.alloc_pool().allocate(static_cast<size_t>(size), 64);
    if (p == nullptr) p = static_cast<char*>(malloc(size > 0 ? static_cast<size_t>(size) : 1));
    if (p == nullptr) {
      return error(MPI_ERR_NO_MEM, "MPI_Alloc_mem: %lld bytes are not available", static_cast<long long>(size));
    }
    *static_cast<void**>(baseptr) = p;
    return Error::ok();
  });
}

int PMPI_Free_mem(void* base) {
  return api::call("MPI_Free_mem", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (base == nullptr) return Error::ok();
    if (c.alloc_pool().contains(base)) {
      if (!c.alloc_pool().release(base)) {
        return error(MPI_ERR_BASE, "MPI_Free_mem: %p is not an address MPI_Alloc_mem returned", base);
      }
      return Error::ok();
    }
    free(base);
    return Error::ok();
  });
}

// ---- error handlers ----

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function, MPI_Errhandler* errhandler) {
  return api::call("MPI_Comm_create_errhandler", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (function == nullptr || errhandler == nullptr) {
      return error(MPI_ERR_ARG, "MPI_Comm_create_errhandler: a NULL argument");
    }
    *errhandler = c.comms().add_errhandler(function);
    return Error::ok();
  });
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  return api::call("MPI_Comm_set_errhandler", comm, [&](Context& c, Guard&) -> Error {
    gasket::mpi::comm::Communicator* cm;
    Error e = api::check_comm(c, comm, "MPI_Comm_set_errhandler", &cm);
    if (e.is_ok()) e = api::check_errhandler(c, errhandler, "MPI_Comm_set_errhandler");
    if (!e.is_ok()) return e;
    cm->errhandler = errhandler;
    return Error::ok();
  });
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  return api::call("MPI_Comm_get_errhandler", comm, [&](Context& c, Guard&) -> Error {
    gasket::mpi::comm::Communicator* cm;
    Error e = api::check_comm(c, comm, "MPI_Comm_get_errhandler", &cm);
    if (!e.is_ok()) return e;
    if (errhandler == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_get_errhandler: errhandler is NULL");
    *errhandler = cm->errhandler;
    c.comms().retain_errhandler(*errhandler);  // the caller frees it (MPI_Errhandler_free)
    return Error::ok();
  });
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  int valid = api::call("MPI_Comm_call_errhandler", comm, [&](Context& c, Guard&) {
    gasket::mpi::comm::Communicator* cm;
    return api::check_comm(c, comm, "MPI_Comm_call_errhandler", &cm);
  });
  if (valid != MPI_SUCCESS) return valid;
  Context& c = api::context("MPI_Comm_call_errhandler");
  c.report(comm, error(errorcode, "MPI_Comm_call_errhandler: error code %d raised by the application", errorcode));
  return MPI_SUCCESS;
}

int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  // Any time, as the session error handlers it frees may be made (ProcessTables).
  return api::info_call("MPI_Errhandler_free", [&](Context& c, Guard&) -> Error {
    if (errhandler == nullptr) return error(MPI_ERR_ARG, "MPI_Errhandler_free: errhandler is NULL");
    return c.errhandlers().free(errhandler, "MPI_Errhandler_free");
  });
}

}  // extern "C"

// ---- info objects ----

namespace {
Error info_of(Context& c, MPI_Info h, const char* call, gasket::mpi::Info** info) {
  *info = c.find_info(h);
  if (*info == nullptr) return error(MPI_ERR_INFO, "%s: %d is not an info object (never created, or freed)", call, h);
  return Error::ok();
}

Error check_key(const char* key, const char* call) {
  if (key == nullptr || key[0] == '\0' || std::strlen(key) > MPI_MAX_INFO_KEY) {
    return error(MPI_ERR_INFO_KEY, "%s: the key is empty, NULL or longer than MPI_MAX_INFO_KEY", call);
  }
  return Error::ok();
}

std::vector<std::pair<std::string, std::string>>::iterator find_key(gasket::mpi::Info* info, const char* key) {
  return std::find_if(info->begin(), info->end(), [key](const auto& kv) { return kv.first == key; });
}
}  // namespace

extern "C" {

int PMPI_Info_create(MPI_Info* info) {
  return api::info_call("MPI_Info_create", [&](Context& c, Guard&) -> Error {
    if (info == nullptr) return error(MPI_ERR_ARG, "MPI_Info_create: info is NULL");
    *info = c.add_info(gasket::mpi::Info());
    return Error::ok();
  });
}

int PMPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  return api::info_call("MPI_Info_create_env", [&](Context& c, Guard&) -> Error {
    if (info == nullptr) return error(MPI_ERR_ARG, "MPI_Info_create_env: info is NULL");
    if (argc < 0) return error(MPI_ERR_ARG, "MPI_Info_create_env: argc %d is negative", argc);
    *info = c.add_info(c.environment(argc, argv));
    return Error::ok();
  });
}

int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  return api::info_call("MPI_Info_dup", [&](Context& c, Guard&) -> Error {
    gasket::mpi::Info* in;
    Error e = info_of(c, info, "MPI_Info_dup", &in);
    if (!e.is_ok()) return e;
    if (newinfo == nullptr) return error(MPI_ERR_ARG, "MPI_Info_dup: newinfo is NULL");
    *newinfo = c.add_info(*in);
    return Error::ok();
  });
}

int PMPI_Info_free(MPI_Info* info) {
  return api::info_call("MPI_Info_free", [&](Context& c, Guard&) -> Error {
    if (info == nullptr) return error(MPI_ERR_ARG, "MPI_Info_free: info is NULL");
    gasket::mpi::Info* in;
    Error e = info_of(c, *info, "MPI_Info_free", &in);
    if (!e.is_ok()) return e;
    if (*info == MPI_INFO_ENV) return error(MPI_ERR_INFO, "MPI_Info_free: MPI_INFO_ENV cannot be freed");
    c.free_info(*info);
    *info = MPI_INFO_NULL;
    return Error::ok();
  });
}

int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
  return api::info_call("MPI_Info_set", [&](Context& c, Guard&) -> Error {
    gasket::mpi::Info* in;
    Error e = info_of(c, info, "MPI_Info_set", &in);
    if (e.is_ok()) e = check_key(key, "MPI_Info_set");
    if (!e.is_ok()) return e;
    if (value == nullptr || std::strlen(value) > MPI_MAX_INFO_VAL) {
      return error(MPI_ERR_INFO_VALUE, "MPI_Info_set: the value of '%s' is NULL or longer than MPI_MAX_INFO_VAL", key);
    }
    auto it = find_key(in, key);
    if (it != in->end()) {
      it->second = value;
    } else {
      in->emplace_back(key, value);
    }
    return Error::ok();
  });
}

int PMPI_Info_delete(MPI_Info info, const char* key) {
  return api::info_call("MPI_Info_delete", [&](Context& c, Guard&) -> Error {
    gasket::mpi::Info* in;
    Error e = info_of(c, info, "MPI_Info_delete", &in);
    if (e.is_ok()) e = check_key(key, "MPI_Info_delete");
    if (!e.is_ok()) return e;
    auto it = find_key(in, key);
    if (it == in->end()) return error(MPI_ERR_INFO_NOKEY, "MPI_Info_delete: key '%s' is not set", key);
    in->erase(it);
    return Error::ok();
  });
}

int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  return api::info_call("MPI_Info_get", [&](Context& c, Guard&) -> Error {
    gasket::mpi::Info* in;
    Error e = info_of(c, info, "MPI_Info_get", &in);
    if (e.is_ok()) e = check_key(key, "MPI_Info_get");
    if (!e.is_ok()) return e;
    if (flag == nullptr || value == nullptr || valuelen < 0) return error(MPI_ERR_ARG, "MPI_Info_get: bad value or flag");
    auto it = find_key(in, key);
    *flag = it != in->end();
    if (*flag) {
      size_t n = std::min(it->second.size(), static_cast<size_t>(valuelen));
      std::memcpy(value, it->second.data(), n);
      value[n] = '\0';
    }
    return Error::ok();
  });
}

// MPI 4.0: *buflen in is the space in value (with its terminating null); out, when the key is
// set, the value's length + 1. The value is truncated to fit; absent key: flag 0, nothing changed.
int PMPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  return api::info_call("MPI_Info_get_string", [&](Context& c, Guard&) -> Error {
    gasket::mpi::Info* in;
    Error e = info_of(c, info, "MPI_Info_get_string", &in);
    if (e.is_ok()) e = check_key(key, "MPI_Info_get_string");
    if (!e.is_ok()) return e;
    if (flag == nullptr || buflen == nullptr || *buflen < 0 || (*buflen > 0 && value == nullptr)) {
      return error(MPI_ERR_ARG, "MPI_Info_get_string: flag or buflen is NULL, buflen %d is negative or value is NULL",
                   buflen != nullptr ? *buflen : 0);
    }
    auto it = find_key(in, key);
    *flag = it != in->end();
    if (!*flag) return Error::ok();
    if (*buflen > 0) {
      size_t n = std::min(it->second.size(), static_cast<size_t>(*buflen - 1));
      std::memcpy(value, it->second.data(), n);
      value[n] = '\0';
    }
    *buflen = static_cast<int>(it->second.size()) + 1;
    return Error::ok();
  });
}

int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  return api::info_call("MPI_Info_get_valuelen", [&](Context& c, Guard&) -> Error {
    gasket::mpi::Info* in;
    Error e = info_of(c, info, "MPI_Info_get_valuelen", &in);
    if (e.is_ok()) e = check_key(key, "MPI_Info_get_valuelen");
    if (!e.is_ok()) return e;
    auto it = find_key(in, key);
    *flag = it != in->end();
    if (*flag) *valuelen = static_cast<int>(it->second.size());
    return Error::ok();
  });
}

int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  return api::info_call("MPI_Info_get_nkeys", [&](Context& c, Guard&) -> Error {
    gasket::mpi::Info* in;
    Error e = info_of(c, info, "MPI_Info_get_nkeys", &in);
    if (!e.is_ok()) return e;
    *nkeys = static_cast<int>(in->size());
    return Error::ok();
  });
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  return api::info_call("MPI_Info_get_nthkey", [&](Context& c, Guard&) -> Error {
    gasket::mpi::Info* in;
    Error e = info_of(c, info, "MPI_Info_get_nthkey", &in);
    if (!e.is_ok()) return e;
    if (n < 0 || n >= static_cast<int>(in->size())) {
      return error(MPI_ERR_ARG, "MPI_Info_get_nthkey: n %d is not in 0..%zu", n, in->size());
    }
    std::memcpy(key, (*in)[static_cast<size_t>(n)].first.c_str(), (*in)[static_cast<size_t>(n)].first.size() + 1);
    return Error::ok();
  });
}

}  // extern "C"
