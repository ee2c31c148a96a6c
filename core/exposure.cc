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

namespace {
// A late peer (another job) runs the transfer on its exposure as an active message over its link.
Result<core::am::LinkAddress> link_address(core::Runtime& r, std::string_view descriptor, size_t offset, size_t len,
                                           const char* call) {
  Result<uint64_t> exposure = r.user_memory()->exposure_of(descriptor, offset, len, call);
  if (!exposure.is_ok()) return exposure.status();
  return core::am::LinkAddress{0, offset, exposure.value()};
}
}  // namespace

Status put(int pe, std::string_view descriptor, size_t offset, const void* src, size_t len, const char* call) {
  core::Runtime& r = rt(call);
  if (!r.is_late_peer(pe)) return r.user_memory()->put(pe, descriptor, offset, src, len, call);
  Result<core::am::LinkAddress> at = link_address(r, descriptor, offset, len, call);
  return at.is_ok() ? r.link_rma().put(pe, at.value(), src, len) : at.status();
}

Status get(int pe, std::string_view descriptor, size_t offset, void* dst, size_t len, const char* call) {
  core::Runtime& r = rt(call);
  if (!r.is_late_peer(pe)) return r.user_memory()->get(pe, descriptor, offset, dst, len, call);
  Result<core::am::LinkAddress> at = link_address(r, descriptor, offset, len, call);
  return at.is_ok() ? r.link_rma().get(pe, dst, at.value(), len) : at.status();
}

}  // namespace gasket::memreg
