// The receive list (LMR) of the PCI-DDC model: where a PE learns which notifying writes (nr) have
// landed, as (source PE, 24-bit message id). One LMR per PE, written by every sender (on the shm
// link the poster appends into the target's LMR, which lives in shared memory; on the tcp link the
// receiving side appends), drained by its owner alone. Appends from one sender keep their order,
// so ids from a given sender come out in FIFO order. A flush takes every entry present at once.
//
// The ring lives in caller-provided memory (a shared-memory file, or the heap): a bounded
// multi-producer / single-consumer queue with a sequence word per slot, so a producer that
// reserved a slot but has not filled it yet never lets the consumer read a stale entry.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/base/status.h"

namespace gasket::backend::pciddc {

struct LmrEntry {
  uint32_t src_pe;
  uint32_t id;
};

class ReceiveList {
 public:
  // Bytes of memory a list of `capacity` entries (rounded up to a power of two) occupies.
  static size_t bytes_for(size_t capacity);
  // Formats `memory` (bytes_for(capacity) bytes, 64-byte aligned) as an empty list.
  static ReceiveList format(void* memory, size_t capacity);
  // Uses a list another process formatted; fails when `memory` does not hold one of `bytes`.
  static Result<ReceiveList> attach(void* memory, size_t bytes);

  ReceiveList() = default;
  size_t capacity() const;
  // Producer (any process, any thread): false when the list is full.
  bool append(uint32_t src_pe, uint32_t id);
  // Consumer (the owner only): moves every available entry, in order, to `out`; returns the count.
  size_t flush(std::vector<LmrEntry>* out);

 private:
  struct Header;
  struct Slot;
  explicit ReceiveList(Header* header) : header_(header) {}
  Slot* slots() const;
  Header* header_ = nullptr;
};

}  // namespace gasket::backend::pciddc
