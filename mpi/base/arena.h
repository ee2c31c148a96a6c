// A first-fit allocator over one caller-owned range (MPI_Buffer_attach's buffer, the
// MPI_Alloc_mem pool). Not thread-safe; the MPI context serialises calls.
#pragma once

#include <cstddef>
#include <functional>
#include <map>

namespace gasket::mpi {

class Arena {
 public:
  // Called with each released block (the MPI_Alloc_mem pool gives its whole pages back).
  using ReleaseHook = std::function<void(char* block, size_t bytes)>;

  Arena() = default;
  Arena(char* base, size_t size, ReleaseHook on_release = nullptr);
  char* base() const { return base_; }
  size_t size() const { return size_; }
  size_t in_use() const { return in_use_; }
  bool contains(const void* p) const {
    return base_ != nullptr && static_cast<const char*>(p) >= base_ && static_cast<const char*>(p) < base_ + size_;
  }
  // Null when no free range of `bytes` (rounded up to `align`) remains.
  char* allocate(size_t bytes, size_t align = 16);
  // False when `p` is not a block handed out by allocate().
  bool release(const void* p);

 private:
  char* base_ = nullptr;
  size_t size_ = 0, in_use_ = 0;
  ReleaseHook on_release_;
  std::map<size_t, size_t> free_;  // offset -> length
  std::map<size_t, size_t> used_;  // offset -> length
};

}  // namespace gasket::mpi
