// C bindings of the tools interface (MPI_T_*): argument checks, then the Interface (tools.h).
// MPI_T calls return their error codes directly (no error handlers, MPI 4.1 section 15.3.10).
#include <cstring>
#include <string>

#include "mpi.h"
#include "mpi/context/context.h"
#include "mpi/tools/tools.h"

using gasket::mpi::tools::Category;
using gasket::mpi::tools::Counter;
using gasket::mpi::tools::Interface;
using gasket::mpi::tools::performance_variables;

namespace {

// Runs body(Interface&) -> int under the interface's lock; MPI_T_ERR_NOT_INITIALIZED without one.
template <typename Body>
int with_tools(Body body) {
  Interface* t = Interface::get();
  if (t == nullptr) return MPI_T_ERR_NOT_INITIALIZED;
  std::lock_guard<std::mutex> hold(t->lock());
  return body(*t);
}

// MPI_T's string convention: with a buffer (*len > 0), at most *len - 1 characters and the null,
// *len then the characters written + 1; without one, *len the length needed (with the null).
void copy_out(const std::string& s, char* out, int* len) {
  if (len == nullptr) return;
  if (out != nullptr && *len > 0) {
    size_t n = std::min(s.size(), static_cast<size_t>(*len - 1));
    std::memcpy(out, s.data(), n);
    out[n] = '\0';
    *len = static_cast<int>(n) + 1;
  } else {
    *len = static_cast<int>(s.size()) + 1;
  }
}

template <typename T>
void set(T* out, T value) {
  if (out != nullptr) *out = value;
}

bool valid_cvar(const Interface& t, int index) { return index >= 0 && index < t.num_cvars(); }
int num_pvars() { return static_cast<int>(performance_variables().size()); }
bool valid_pvar(int index) { return index >= 0 && index < num_pvars(); }
bool valid_category(const Interface& t, int index) {
  return index >= 0 && index < static_cast<int>(t.categories().size());
}
bool is_counter(int pvar) { return performance_variables()[static_cast<size_t>(pvar)].var_class == MPI_T_PVAR_CLASS_COUNTER; }

// A performance variable's value through a handle: counters count from their start (their value
// while stopped is kept), levels and sizes are read as they are.
uint64_t pvar_value(const Interface& t, const gasket_T_pvar_handle& h) {
  const auto& v = performance_variables()[static_cast<size_t>(h.index)];
  uint64_t now = t.counter(v.counter);
  if (!is_counter(h.index)) return now;
  return h.accumulated + (h.started && now >= h.base ? now - h.base : 0);
}

// The handle checks of the pvar calls: a session from MPI_T_pvar_session_create, a handle of it.
bool owns(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  if (session == nullptr || handle == nullptr || handle == MPI_T_PVAR_ALL_HANDLES) return false;
  for (const auto& h : session->handles) {
    if (h.get() == handle) return true;
  }
  return false;
}

// Applies `step` to `handle`, or to every handle of the session for MPI_T_PVAR_ALL_HANDLES (skipping
// those `step` does not apply to); the single-handle answer otherwise.
template <typename Step>
int each_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, Step step) {
  if (session == nullptr) return MPI_T_ERR_INVALID_SESSION;
  if (handle == MPI_T_PVAR_ALL_HANDLES) {
    for (auto& h : session->handles) (void)step(*h);
    return MPI_SUCCESS;
  }
  if (!owns(session, handle)) return MPI_T_ERR_INVALID_HANDLE;
  return step(*handle);
}

}  // namespace

extern "C" {

int PMPI_T_init_thread(int required, int* provided) {
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) return MPI_ERR_ARG;
  return Interface::init(required, provided);
}

int PMPI_T_finalize(void) { return Interface::finalize(); }

// ---- control variables ----

int PMPI_T_cvar_get_num(int* num_cvar) {
  return with_tools([&](Interface& t) {
    if (num_cvar == nullptr) return MPI_ERR_ARG;
    *num_cvar = t.num_cvars();
    return MPI_SUCCESS;
  });
}

int PMPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity, MPI_Datatype* datatype,
                         MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind, int* scope) {
  return with_tools([&](Interface& t) {
    if (!valid_cvar(t, cvar_index)) return MPI_T_ERR_INVALID_INDEX;
    const gasket::config::KnobSpec& k = t.knob(cvar_index);
    copy_out(k.name, name, name_len);
    set(verbosity, MPI_T_VERBOSITY_TUNER_BASIC);
    set(datatype, t.cvar_datatype(cvar_index));
    set(enumtype, t.cvar_enum(cvar_index));
    copy_out(std::string(k.doc) + " (default " + (k.default_value[0] ? k.default_value : "empty") + ")", desc,
             desc_len);
    set(bind, MPI_T_BIND_NO_OBJECT);
    set(scope, t.cvar_scope(cvar_index));
    return MPI_SUCCESS;
  });
}

int PMPI_T_cvar_get_index(const char* name, int* cvar_index) {
  return with_tools([&](Interface& t) {
    if (name == nullptr || cvar_index == nullptr) return MPI_ERR_ARG;
    for (int i = 0; i < t.num_cvars(); ++i) {
      if (std::strcmp(t.knob(i).name, name) == 0) {
        *cvar_index = i;
        return MPI_SUCCESS;
      }
    }
    return MPI_T_ERR_INVALID_NAME;
  });
}

int PMPI_T_cvar_handle_alloc(int cvar_index, void* obj_handle, MPI_T_cvar_handle* handle, int* count) {
  (void)obj_handle;  // every cvar is bound to no object
  return with_tools([&](Interface& t) {
    if (!valid_cvar(t, cvar_index)) return MPI_T_ERR_INVALID_INDEX;
    if (handle == nullptr || count == nullptr) return MPI_ERR_ARG;
    *handle = new gasket_T_cvar_handle{cvar_index};
    *count = t.cvar_count(cvar_index);
    return MPI_SUCCESS;
  });
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  return with_tools([&](Interface&) {
    if (handle == nullptr || *handle == MPI_T_CVAR_HANDLE_NULL) return MPI_T_ERR_INVALID_HANDLE;
    delete *handle;
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
  });
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  return with_tools([&](Interface& t) {
    if (handle == MPI_T_CVAR_HANDLE_NULL || !valid_cvar(t, handle->index)) return MPI_T_ERR_INVALID_HANDLE;
    if (buf == nullptr) return MPI_ERR_ARG;
    t.cvar_read(handle->index, buf);
    return MPI_SUCCESS;
  });
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  return with_tools([&](Interface& t) {
    if (handle == MPI_T_CVAR_HANDLE_NULL || !valid_cvar(t, handle->index)) return MPI_T_ERR_INVALID_HANDLE;
    if (buf == nullptr) return MPI_ERR_ARG;
    return t.cvar_write(handle->index, buf);
  });
}

// ---- enumerations ----

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  return with_tools([&](Interface&) {
    if (enumtype == MPI_T_ENUM_NULL) return MPI_T_ERR_INVALID_HANDLE;
    set(num, static_cast<int>(enumtype->items.size()));
    copy_out(enumtype->name, name, name_len);
    return MPI_SUCCESS;
  });
}

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int index, int* value, char* name, int* name_len) {
  return with_tools([&](Interface&) {
    if (enumtype == MPI_T_ENUM_NULL) return MPI_T_ERR_INVALID_HANDLE;
    if (index < 0 || index >= static_cast<int>(enumtype->items.size())) return MPI_T_ERR_INVALID_ITEM;
    set(value, index);
    copy_out(enumtype->items[static_cast<size_t>(index)], name, name_len);
    return MPI_SUCCESS;
  });
}

// ---- performance variables ----

int PMPI_T_pvar_get_num(int* num_pvar) {
  return with_tools([&](Interface&) {
    if (num_pvar == nullptr) return MPI_ERR_ARG;
    *num_pvar = num_pvars();
    return MPI_SUCCESS;
  });
}

int PMPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                         MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind,
                         int* readonly, int* continuous, int* atomic) {
  return with_tools([&](Interface&) {
    if (!valid_pvar(pvar_index)) return MPI_T_ERR_INVALID_INDEX;
    const auto& v = performance_variables()[static_cast<size_t>(pvar_index)];
    copy_out(v.name, name, name_len);
    set(verbosity, MPI_T_VERBOSITY_TUNER_BASIC);
    set(var_class, v.var_class);
    set(datatype, static_cast<MPI_Datatype>(MPI_UNSIGNED_LONG_LONG));
    set(enumtype, MPI_T_ENUM_NULL);
    copy_out(v.desc, desc, desc_len);
    set(bind, MPI_T_BIND_NO_OBJECT);
    set(readonly, is_counter(pvar_index) ? 0 : 1);
    set(continuous, is_counter(pvar_index) ? 0 : 1);
    set(atomic, 0);
    return MPI_SUCCESS;
  });
}

int PMPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  return with_tools([&](Interface&) {
    if (name == nullptr || pvar_index == nullptr) return MPI_ERR_ARG;
    for (int i = 0; i < num_pvars(); ++i) {
      const auto& v = performance_variables()[static_cast<size_t>(i)];
      if (std::strcmp(v.name, name) == 0 && v.var_class == var_class) {
        *pvar_index = i;
        return MPI_SUCCESS;
      }
    }
    return MPI_T_ERR_INVALID_NAME;
  });
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session* pe_session) {
  return with_tools([&](Interface&) {
    if (pe_session == nullptr) return MPI_ERR_ARG;
    *pe_session = new gasket_T_pvar_session();
    return MPI_SUCCESS;
  });
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session* pe_session) {
  return with_tools([&](Interface&) {
    if (pe_session == nullptr || *pe_session == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
    delete *pe_session;  // its handles with it
    *pe_session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
  });
}

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session pe_session, int pvar_index, void* obj_handle,
                             MPI_T_pvar_handle* handle, int* count) {
  (void)obj_handle;  // every pvar is bound to no object
  return with_tools([&](Interface& t) {
    if (pe_session == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
    if (!valid_pvar(pvar_index)) return MPI_T_ERR_INVALID_INDEX;
    if (handle == nullptr || count == nullptr) return MPI_ERR_ARG;
    auto h = std::make_unique<gasket_T_pvar_handle>();
    h->index = pvar_index;
    h->session = pe_session;
    h->base = t.counter(performance_variables()[static_cast<size_t>(pvar_index)].counter);
    *handle = h.get();
    pe_session->handles.push_back(std::move(h));
    *count = 1;
    return MPI_SUCCESS;
  });
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session pe_session, MPI_T_pvar_handle* handle) {
  return with_tools([&](Interface&) {
    if (pe_session == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
    if (handle == nullptr || !owns(pe_session, *handle)) return MPI_T_ERR_INVALID_HANDLE;
    auto& all = pe_session->handles;
    all.erase(std::find_if(all.begin(), all.end(), [&](const auto& h) { return h.get() == *handle; }));
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
  });
}

int PMPI_T_pvar_start(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle) {
  return with_tools([&](Interface& t) {
    return each_handle(pe_session, handle, [&](gasket_T_pvar_handle& h) {
      if (!is_counter(h.index)) return MPI_T_ERR_PVAR_NO_STARTSTOP;  // continuous
      if (!h.started) h.base = t.counter(performance_variables()[static_cast<size_t>(h.index)].counter);
      h.started = true;
      return MPI_SUCCESS;
    });
  });
}

int PMPI_T_pvar_stop(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle) {
  return with_tools([&](Interface& t) {
    return each_handle(pe_session, handle, [&](gasket_T_pvar_handle& h) {
      if (!is_counter(h.index)) return MPI_T_ERR_PVAR_NO_STARTSTOP;
      h.accumulated = pvar_value(t, h);
      h.started = false;
      return MPI_SUCCESS;
    });
  });
}

int PMPI_T_pvar_read(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void* buf) {
  return with_tools([&](Interface& t) {
    if (pe_session == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
    if (!owns(pe_session, handle)) return MPI_T_ERR_INVALID_HANDLE;
    if (buf == nullptr) return MPI_ERR_ARG;
    unsigned long long v = pvar_value(t, *handle);
    std::memcpy(buf, &v, sizeof v);
    return MPI_SUCCESS;
  });
}

int PMPI_T_pvar_write(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, const void* buf) {
  return with_tools([&](Interface& t) {
    if (pe_session == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
    if (!owns(pe_session, handle)) return MPI_T_ERR_INVALID_HANDLE;
    if (!is_counter(handle->index)) return MPI_T_ERR_PVAR_NO_WRITE;
    if (buf == nullptr) return MPI_ERR_ARG;
    unsigned long long v;
    std::memcpy(&v, buf, sizeof v);
    handle->accumulated = v;
    handle->base = t.counter(performance_variables()[static_cast<size_t>(handle->index)].counter);
    return MPI_SUCCESS;
  });
}

int PMPI_T_pvar_reset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle) {
  return with_tools([&](Interface& t) {
    return each_handle(pe_session, handle, [&](gasket_T_pvar_handle& h) {
      if (!is_counter(h.index)) return MPI_T_ERR_PVAR_NO_WRITE;
      h.accumulated = 0;
      h.base = t.counter(performance_variables()[static_cast<size_t>(h.index)].counter);
      return MPI_SUCCESS;
    });
  });
}

int PMPI_T_pvar_readreset(MPI_T_pvar_session pe_session, MPI_T_pvar_handle handle, void* buf) {
  return with_tools([&](Interface& t) {
    if (pe_session == MPI_T_PVAR_SESSION_NULL) return MPI_T_ERR_INVALID_SESSION;
    if (!owns(pe_session, handle)) return MPI_T_ERR_INVALID_HANDLE;
    if (!is_counter(handle->index)) return MPI_T_ERR_PVAR_NO_WRITE;
    if (buf == nullptr) return MPI_ERR_ARG;
    // One reading of the engine serves both, so nothing counted between them is lost.
    uint64_t now = t.counter(performance_variables()[static_cast<size_t>(handle->index)].counter);
    unsigned long long v = handle->accumulated + (handle->started && now >= handle->base ? now - handle->base : 0);
    std::memcpy(buf, &v, sizeof v);
    handle->accumulated = 0;
    handle->base = now;
    return MPI_SUCCESS;
  });
}

// ---- categories ----

int PMPI_T_category_get_num(int* num_cat) {
  return with_tools([&](Interface& t) {
    if (num_cat == nullptr) return MPI_ERR_ARG;
    *num_cat = static_cast<int>(t.categories().size());
    return MPI_SUCCESS;
  });
}

int PMPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len, int* num_cvars,
                             int* num_pvars, int* num_categories) {
  return with_tools([&](Interface& t) {
    if (!valid_category(t, cat_index)) return MPI_T_ERR_INVALID_INDEX;
    const Category& c = t.categories()[static_cast<size_t>(cat_index)];
    copy_out(c.name, name, name_len);
    copy_out("the GASKET_* knobs of category '" + c.name + "' (core/config/knobs.def)" +
                 (c.pvars.empty() ? "" : " and the MPI engine's counters"),
             desc, desc_len);
    set(num_cvars, static_cast<int>(c.cvars.size()));
    set(num_pvars, static_cast<int>(c.pvars.size()));
    set(num_categories, 0);
    return MPI_SUCCESS;
  });
}

int PMPI_T_category_get_index(const char* name, int* cat_index) {
  return with_tools([&](Interface& t) {
    if (name == nullptr || cat_index == nullptr) return MPI_ERR_ARG;
    for (size_t i = 0; i < t.categories().size(); ++i) {
      if (t.categories()[i].name == name) {
        *cat_index = static_cast<int>(i);
        return MPI_SUCCESS;
      }
    }
    return MPI_T_ERR_INVALID_NAME;
  });
}

}  // extern "C" (helpers below have internal linkage, not C linkage)
namespace {
// The first `len` members of one of a category's lists.
template <typename Members>
int category_members(int cat_index, int len, int indices[], Members members) {
  return with_tools([&](Interface& t) {
    if (!valid_category(t, cat_index)) return MPI_T_ERR_INVALID_INDEX;
    if (len < 0 || (len > 0 && indices == nullptr)) return MPI_ERR_ARG;
    const std::vector<int>& list = members(t.categories()[static_cast<size_t>(cat_index)]);
    for (size_t i = 0; i < list.size() && i < static_cast<size_t>(len); ++i) indices[i] = list[i];
    return MPI_SUCCESS;
  });
}
const std::vector<int> kNone;
}  // namespace
extern "C" {

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  return category_members(cat_index, len, indices, [](const Category& c) -> const std::vector<int>& { return c.cvars; });
}
int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  return category_members(cat_index, len, indices, [](const Category& c) -> const std::vector<int>& { return c.pvars; });
}
int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {  // categories are not nested
  return category_members(cat_index, len, indices, [](const Category&) -> const std::vector<int>& { return kNone; });
}
int PMPI_T_category_get_events(int cat_index, int len, int indices[]) {  // gasket reports no events
  return category_members(cat_index, len, indices, [](const Category&) -> const std::vector<int>& { return kNone; });
}

int PMPI_T_category_get_num_events(int cat_index, int* num_events) {
  return with_tools([&](Interface& t) {
    if (!valid_category(t, cat_index)) return MPI_T_ERR_INVALID_INDEX;
    if (num_events == nullptr) return MPI_ERR_ARG;
    *num_events = 0;
    return MPI_SUCCESS;
  });
}

int PMPI_T_category_changed(int* update_number) {
  return with_tools([&](Interface&) {
    if (update_number == nullptr) return MPI_ERR_ARG;
    *update_number = 0;  // the categories never change
    return MPI_SUCCESS;
  });
}

// ---- events: gasket reports no event types (legal, MPI 4.1 section 15.3.8), so no index is
// valid and no registration or instance can exist ----

int PMPI_T_event_get_num(int* num_events) {
  return with_tools([&](Interface&) {
    if (num_events == nullptr) return MPI_ERR_ARG;
    *num_events = 0;
    return MPI_SUCCESS;
  });
}

int PMPI_T_event_get_info(int, char*, int*, int*, MPI_Datatype[], MPI_Aint[], int*, MPI_T_enum*, MPI_Info*, char*,
                          int*, int*) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_INDEX; });
}
int PMPI_T_event_get_index(const char*, int*) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_NAME; });
}
int PMPI_T_event_handle_alloc(int, void*, MPI_Info, MPI_T_event_registration*) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_INDEX; });
}
int PMPI_T_event_handle_free(MPI_T_event_registration, void*, MPI_T_event_free_cb_function*) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_HANDLE; });
}
int PMPI_T_event_handle_get_info(MPI_T_event_registration, MPI_Info*) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_HANDLE; });
}
int PMPI_T_event_handle_set_info(MPI_T_event_registration, MPI_Info) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_HANDLE; });
}
int PMPI_T_event_register_callback(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info, void*,
                                   MPI_T_event_cb_function*) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_HANDLE; });
}
int PMPI_T_event_callback_get_info(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info*) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_HANDLE; });
}
int PMPI_T_event_callback_set_info(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_HANDLE; });
}
int PMPI_T_event_set_dropped_handler(MPI_T_event_registration, MPI_T_event_dropped_cb_function*) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_HANDLE; });
}
int PMPI_T_event_read(MPI_T_event_instance, int, void*) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_HANDLE; });
}
int PMPI_T_event_copy(MPI_T_event_instance, void*) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_HANDLE; });
}
int PMPI_T_event_get_timestamp(MPI_T_event_instance, MPI_Count*) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_HANDLE; });
}
int PMPI_T_event_get_source(MPI_T_event_instance, int*) {
  return with_tools([](Interface&) { return MPI_T_ERR_INVALID_HANDLE; });
}

// ---- sources: one, the runtime's clock (steady, nanoseconds) ----

int PMPI_T_source_get_num(int* num_sources) {
  return with_tools([&](Interface&) {
    if (num_sources == nullptr) return MPI_ERR_ARG;
    *num_sources = 1;
    return MPI_SUCCESS;
  });
}

int PMPI_T_source_get_info(int source_index, char* name, int* name_len, char* desc, int* desc_len,
                           MPI_T_source_order* ordering, MPI_Count* ticks_per_second, MPI_Count* max_ticks,
                           MPI_Info* info) {
  return with_tools([&](Interface&) {
    if (source_index != 0) return MPI_T_ERR_INVALID_INDEX;
    copy_out("gasket_clock", name, name_len);
    copy_out("the runtime's monotonic clock, in nanoseconds", desc, desc_len);
    set(ordering, MPI_T_SOURCE_ORDERED);
    set(ticks_per_second, static_cast<MPI_Count>(1000000000));
    set(max_ticks, static_cast<MPI_Count>(INT64_MAX));
    if (info != nullptr) {
      gasket::mpi::Context& c = gasket::mpi::Context::dormant();
      gasket::mpi::Guard g(c);
      *info = c.add_info({});
    }
    return MPI_SUCCESS;
  });
}

int PMPI_T_source_get_timestamp(int source_index, MPI_Count* timestamp) {
  return with_tools([&](Interface&) {
    if (source_index != 0) return MPI_T_ERR_INVALID_INDEX;
    if (timestamp == nullptr) return MPI_ERR_ARG;
    *timestamp = Interface::timestamp();
    return MPI_SUCCESS;
  });
}

}  // extern "C"
