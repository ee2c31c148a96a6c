#include "core/segments/symmetric_allocator.h"

#include <algorithm>

namespace gasket::segments {

SymmetricAllocator::SymmetricAllocator(size_t capacity) : capacity_(capacity & ~(kMinAlignment - 1)) {
  if (capacity_ > 0) free_.emplace(0, capacity_);
}

std::optional<size_t> SymmetricAllocator::allocate(size_t bytes, size_t alignment) {
  if (alignment == 0 || (alignment & (alignment - 1)) != 0) return std::nullopt;
  alignment = std::max(alignment, kMinAlignment);
  if (bytes > capacity_) return std::nullopt;
  size_t size = round_up(std::max<size_t>(bytes, 1), kMinAlignment);
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    size_t start = round_up(it->first, alignment);
    size_t end = it->first + it->second;
    if (start >= end || end - start < size) continue;
    size_t block_off = it->first, block_len = it->second;
    free_.erase(it);
    if (start > block_off) free_.emplace(block_off, start - block_off);
    if (start + size < block_off + block_len) {
      free_.emplace(start + size, block_off + block_len - (start + size));
    }
    used_.emplace(start, size);
    in_use_ += size;
    untouched_from_ = std::max(untouched_from_, start + size);
    return start;
  }
  return std::nullopt;
}

void SymmetricAllocator::insert_free(size_t offset, size_t size) {
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && offset + size == next->first) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += size;
      return;
    }
  }
  free_.emplace(offset, size);
}

bool SymmetricAllocator::release(size_t offset) {
  auto it = used_.find(offset);
  if (it == used_.end()) return false;
  in_use_ -= it->second;
  insert_free(it->first, it->second);
  used_.erase(it);
  return true;
}

std::optional<size_t> SymmetricAllocator::resize_in_place(size_t offset, size_t bytes) {
  auto it = used_.find(offset);
  if (it == used_.end()) return std::nullopt;
  size_t want = round_up(std::max<size_t>(bytes, 1), kMinAlignment);
  size_t have = it->second;
  if (want <= have) {
    if (want < have) {
      insert_free(offset + want, have - want);
      it->second = want;
      in_use_ -= have - want;
    }
    return offset;
  }
  auto next = free_.find(offset + have);
  if (next == free_.end() || have + next->second < want) return std::nullopt;
  size_t extra = want - have;
  size_t rest = next->second - extra;
  free_.erase(next);
  if (rest > 0) free_.emplace(offset + want, rest);
  it->second = want;
  in_use_ += extra;
  untouched_from_ = std::max(untouched_from_, offset + want);
  return offset;
}

size_t SymmetricAllocator::block_size(size_t offset) const {
  auto it = used_.find(offset);
  return it == used_.end() ? 0 : it->second;
}

size_t SymmetricAllocator::largest_free_block() const {
  size_t best = 0;
  for (const auto& f : free_) best = std::max(best, f.second);
  return best;
}

}  // namespace gasket::segments
