#include "mpi/base/arena.h"

#include <cstdint>
#include <utility>

namespace gasket::mpi {

Arena::Arena(char* base, size_t size, ReleaseHook on_release)
    : base_(base), size_(size), on_release_(std::move(on_release)) {
  if (size > 0) free_[0] = size;
}

char* Arena::allocate(size_t bytes, size_t align) {
  if (bytes == 0) bytes = 1;
  bytes = (bytes + align - 1) / align * align;
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    size_t start = (it->first + align - 1) / align * align;
    size_t pad = start - it->first;
    if (it->second < pad || it->second - pad < bytes) continue;
    size_t off = it->first, len = it->second;
    free_.erase(it);
    if (pad > 0) free_[off] = pad;
    if (len - pad > bytes) free_[start + bytes] = len - pad - bytes;
    used_[start] = bytes;
    in_use_ += bytes;
    return base_ + start;
  }
  return nullptr;
}

bool Arena::release(const void* p) {
  if (!contains(p)) return false;
  size_t off = static_cast<size_t>(static_cast<const char*>(p) - base_);
  auto u = used_.find(off);
  if (u == used_.end()) return false;
  size_t len = u->second;
  used_.erase(u);
  in_use_ -= len;
  if (on_release_) on_release_(base_ + off, len);
  auto next = free_.lower_bound(off);
  if (next != free_.end() && off + len == next->first) {
    len += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == off) {
      prev->second += len;
      return true;
    }
  }
  free_[off] = len;
  return true;
}

}  // namespace gasket::mpi
