// Bulk copies on the paths where a put or get is the CPU's own copy (core/rma.cc on the direct and
// mapped paths, MPI windows on mapped memory).
//
// glibc (2.36) copies with `rep movsb` from 2 KiB up to its rep_movsb_stop_threshold (the L2
// size: 1 MiB on this AMD EPYC) and past it with a vector loop, short of its non-temporal
// threshold. On CPUs with enhanced string moves (ERMS) `rep movsb` ran 5-25% faster than that
// loop from 2 to 64 MiB on this AMD EPYC (core/base/README.md), so copies past kStringMoveFrom take it; smaller ones stay
// glibc's, inlined as before.
#pragma once

#include <cstddef>
#include <cstring>

namespace gasket {
namespace base {

constexpr size_t kStringMoveFrom = size_t{1} << 20;

// Whether this CPU has enhanced `rep movsb` (CPUID leaf 7, EBX bit 9); false off x86. A property
// of the hardware, read once.
bool fast_string_moves();

// Copies past kStringMoveFrom: `rep movsb` where fast_string_moves(), else memcpy.
void copy_large(void* dst, const void* src, size_t bytes);

// memcpy, with copies past kStringMoveFrom taken by copy_large. The ranges must not overlap.
inline void copy_bytes(void* dst, const void* src, size_t bytes) {
  if (__builtin_expect(bytes > kStringMoveFrom, 0)) {
    copy_large(dst, src, bytes);
    return;
  }
  std::memcpy(dst, src, bytes);
}

}  // namespace base
}  // namespace gasket
