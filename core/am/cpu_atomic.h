// The one implementation of an atomic operation on local memory with CPU __atomic builtins. The
// direct same-node path runs it on a peer's mapped segment, and the emulated path runs it in the
// target's handler on the target's own memory: both act in the CPU's atomicity domain, so the two
// never race (see core/am/README.md).
#pragma once

#include <sched.h>

#include <cstdint>

#include "backends/backend.h"

namespace gasket::core::am {

template <typename W>
uint64_t cpu_atomic(W* p, backend::AtomicOp op, W operand, W compare) {
  using backend::AtomicOp;
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

// Holds a lock word (a uint64_t that is 0 when free) for the life of the object, spinning
// `spin_count` polls and then yielding the core. Atomics on a segment that is not on a shared file
// (static data with GASKET_REDISTRIBUTE=no) run under the owner's word — its own CPU atomics, the
// kernel-copy read-modify-writes of same-node peers and the emulation handler serving other nodes
// — so that they are atomic with respect to each other. `holder` (PE + 1) is stored while held.
class WordLock {
 public:
  WordLock(uint64_t* word, uint64_t holder, unsigned spin_count) : word_(word) {
    for (unsigned polls = 0;; ++polls) {
      uint64_t expected = 0;
      if (__atomic_compare_exchange_n(word_, &expected, holder, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
      if (polls < spin_count) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
      } else {
        sched_yield();
      }
    }
  }
  ~WordLock() { __atomic_store_n(word_, 0, __ATOMIC_RELEASE); }
  WordLock(const WordLock&) = delete;
  WordLock& operator=(const WordLock&) = delete;

 private:
  uint64_t* word_;
};

}  // namespace gasket::core::am
