// The collective allocator of the symmetric heap. It hands out offsets inside one segment and
// keeps its bookkeeping outside the segment (no page of the heap is touched to allocate).
// Every PE runs the same sequence of collective calls over a heap of the same size, and the
// allocator is deterministic, so the same call returns the same offset on every PE.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>

namespace gasket::segments {

class SymmetricAllocator {
 public:
  static constexpr size_t kMinAlignment = 64;  // a cache line: no false sharing between blocks

  explicit SymmetricAllocator(size_t capacity);

  // First fit; `alignment` must be a power of two (smaller ones are raised to kMinAlignment).
  // A zero-byte request gets a distinct minimal block. nullopt when nothing fits.
  std::optional<size_t> allocate(size_t bytes, size_t alignment = kMinAlignment);
  // Returns false when `offset` is not the start of a live block.
  bool release(size_t offset);
  // Grows or shrinks in place when possible; nullopt when it must move (caller allocates, copies,
  // releases). Returns false-like nullopt also for an unknown offset — check owns() first.
  std::optional<size_t> resize_in_place(size_t offset, size_t bytes);

  bool owns(size_t offset) const { return used_.count(offset) != 0; }
  size_t block_size(size_t offset) const;
  size_t capacity() const { return capacity_; }
  size_t bytes_in_use() const { return in_use_; }
  size_t largest_free_block() const;
  size_t live_blocks() const { return used_.size(); }
  // No block has ever reached past this offset: the bytes from here on are as the segment
  // started (zero in a fresh one), whatever was allocated and freed before.
  size_t untouched_from() const { return untouched_from_; }

 private:
  static size_t round_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }
  void insert_free(size_t offset, size_t size);  // coalesces with neighbours

  size_t capacity_;
  size_t in_use_ = 0;
  size_t untouched_from_ = 0;
  std::map<size_t, size_t> free_;  // offset -> size, disjoint, coalesced
  std::map<size_t, size_t> used_;  // offset -> size of the block as carved
};

}  // namespace gasket::segments
