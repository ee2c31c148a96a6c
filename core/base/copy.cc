#include "core/base/copy.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace gasket {
namespace base {

namespace {
bool cpu_has_erms() {
#if defined(__x86_64__) || defined(__i386__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (ebx & (1u << 9)) != 0;
#else
  return false;
#endif
}
}  // namespace

bool fast_string_moves() {
  static const bool erms = cpu_has_erms();  // CPUID traps to the hypervisor in a VM: ask once
  return erms;
}

void copy_large(void* dst, const void* src, size_t bytes) {
#if defined(__x86_64__) || defined(__i386__)
  if (fast_string_moves()) {
    asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(bytes) : : "memory");
    return;
  }
#endif
  std::memcpy(dst, src, bytes);
}

}  // namespace base
}  // namespace gasket
