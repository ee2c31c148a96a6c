// CPU atomics of the core: cpu_atomic (backends/cpu_atomic.h, shared with the backends) and the
// WordLock that serialises atomics on memory that is not on a shared file.
#pragma once

#include <sched.h>

#include <cstdint>

#include "backends/backend.h"
#include "backends/cpu_atomic.h"

namespace gasket::core::am {

// The implementation lives beside the backend contract: backends with mapped peer memory use it
// too (backends/cpu_atomic.h).
using backend::cpu_atomic;

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
