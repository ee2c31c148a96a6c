// The one implementation of an atomic operation on local memory with CPU __atomic builtins. The
// core's direct same-node path runs it on a peer's mapped segment, its emulated path in the
// target's handler on the target's own memory, and a backend whose transport maps a peer's memory
// here (ucx: UCX's shared-memory transports, ucp_rkey_ptr) on that mapping, as UCX's own
// shared-memory atomics do: all act in the CPU's atomicity domain, so they never race (see
// core/am/README.md).
#pragma once

#include <cstdint>

#include "backends/backend.h"

namespace gasket::backend {

template <typename W>
uint64_t cpu_atomic(W* p, backend::AtomicOp op, W operand, W compare) {
  constexpr int kOrder = __ATOMIC_SEQ_CST;
  switch (op) {
    case AtomicOp::kFetch: return __atomic_load_n(p, kOrder);
    case AtomicOp::kSet: __atomic_store_n(p, operand, kOrder); return 0;
    case AtomicOp::kSwap: return __atomic_exchange_n(p, operand, kOrder);
    case AtomicOp::kCompareSwap:
      __atomic_compare_exchange_n(p, &compare, operand, false, kOrder, kOrder);
      return compare;  // the old value either way
    case AtomicOp::kAdd: __atomic_fetch_add(p, operand, kOrder); return 0;
    case AtomicOp::kFetchAdd: return __atomic_fetch_add(p, operand, kOrder);
    case AtomicOp::kAnd: __atomic_fetch_and(p, operand, kOrder); return 0;
    case AtomicOp::kFetchAnd: return __atomic_fetch_and(p, operand, kOrder);
    case AtomicOp::kOr: __atomic_fetch_or(p, operand, kOrder); return 0;
    case AtomicOp::kFetchOr: return __atomic_fetch_or(p, operand, kOrder);
    case AtomicOp::kXor: __atomic_fetch_xor(p, operand, kOrder); return 0;
    case AtomicOp::kFetchXor: return __atomic_fetch_xor(p, operand, kOrder);
    case AtomicOp::kCount: break;
  }
  return 0;
}

// `width` is 4 or 8 and `p` aligned to it.
inline uint64_t cpu_atomic(void* p, unsigned width, backend::AtomicOp op, uint64_t operand, uint64_t compare) {
  if (width == 4) {
    return cpu_atomic(static_cast<uint32_t*>(p), op, static_cast<uint32_t>(operand), static_cast<uint32_t>(compare));
  }
  return cpu_atomic(static_cast<uint64_t*>(p), op, operand, compare);
}

}  // namespace gasket::backend
