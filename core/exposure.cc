// gasket::memreg: user memory exposed to peers — the runtime's UserMemory (core/memreg).
#include "core/base/log.h"
#include "core/runtime.h"

namespace gasket::memreg {

namespace {
inline core::Runtime& rt(const char* call) { return core::Runtime::checked(call); }
}  // namespace

Result<Exposure> expose(const void* addr, size_t len, const char* call) {
  return rt(call).user_memory()->expose(addr, len, call);
}

Status release(const Exposure& exposure, const char* call) {
  return rt(call).user_memory()->release(exposure, call);
}

Status put(int pe, std::string_view descriptor, size_t offset, const void* src, size_t len, const char* call) {
  return rt(call).user_memory()->put(pe, descriptor, offset, src, len, call);
}

Status get(int pe, std::string_view descriptor, size_t offset, void* dst, size_t len, const char* call) {
  return rt(call).user_memory()->get(pe, descriptor, offset, dst, len, call);
}

}  // namespace gasket::memreg
