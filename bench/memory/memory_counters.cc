// gasket's answers to bench/memory's probe: the memory registered with the backend (every core
// segment when a backend runs: the core registers them all at init) and the backend's endpoints
// (ucx: endpoints created; pciddc tcp: connections open), read from the backend's own description;
// and the symmetric heap's bytes in use.
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/gasket.h"
#include "core/runtime.h"

namespace {
// The number before `suffix` or after `prefix` in `text`; -1 when absent.
long number_after(const std::string& text, const char* prefix) {
  size_t at = text.find(prefix);
  if (at == std::string::npos) return -1;
  return std::strtol(text.c_str() + at + std::strlen(prefix), nullptr, 10);
}
long number_before(const std::string& text, const char* suffix) {
  size_t at = text.find(suffix);
  if (at == std::string::npos) return -1;
  size_t begin = at;
  while (begin > 0 && text[begin - 1] >= '0' && text[begin - 1] <= '9') --begin;
  return begin == at ? -1 : std::strtol(text.c_str() + begin, nullptr, 10);
}
}  // namespace

extern "C" int memory_probe_backend_counters(long* registered_kib, long* endpoints) {
  gasket::core::Runtime* rt = gasket::core::Runtime::get();
  if (rt == nullptr) return -1;
  gasket::backend::Backend* backend = rt->backend();
  if (backend == nullptr) {  // the direct path only: nothing registered, no endpoints
    *registered_kib = 0;
    *endpoints = 0;
    return 0;
  }
  size_t bytes = 0;
  for (const auto& seg : rt->segments().all()) bytes += seg.size;
  *registered_kib = static_cast<long>(bytes / 1024);
  std::string text = backend->describe();
  long n = number_after(text, "endpoints: ");
  if (n < 0) n = number_before(text, " connections,");
  *endpoints = n;
  return 0;
}

extern "C" int memory_probe_symmetric_heap(long* in_use_kib) {
  if (gasket::core::Runtime::get() == nullptr) return -1;
  *in_use_kib = static_cast<long>(gasket::sym_heap_in_use() / 1024);
  return 0;
}
