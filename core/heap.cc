// The symmetric heap's collective calls. Every PE runs the same sequence of calls; each call
// records (sequence, kind, size, alignment) in the internal segment, waits for every PE (barrier),
// and compares its record with PE 0's, so a PE that calls with other arguments or in another
// order is caught instead of silently corrupting its peers' memory. As OpenSHMEM requires, the
// barrier closes malloc/calloc/align/realloc (every copy exists before any PE uses it) and opens
// free (no PE still uses the block when it is released).
#include <cstring>

#include "core/base/log.h"
#include "core/base/parse.h"
#include "core/runtime.h"

namespace gasket {
namespace core {

namespace {
enum AllocKind : uint64_t { kMalloc = 1, kCalloc, kAlign, kRealloc, kFree };

const char* kind_name(uint64_t k) {
  switch (k) {
    case kMalloc: return "malloc";
    case kCalloc: return "calloc";
    case kAlign: return "align";
    case kRealloc: return "realloc";
    case kFree: return "free";
  }
  return "?";
}
}  // namespace

void Runtime::check_collective_call(uint64_t kind, size_t bytes, size_t alignment, const char* call) {
  uint64_t seq = ++alloc_sequence_;
  InternalArea::AllocRecord* slot = &internal_->alloc_records[seq % 2];
  InternalArea::AllocRecord mine{seq, bytes, alignment, kind};
  *slot = mine;
  barrier_all();
  if (my_pe_ == 0) return;
  InternalArea::AllocRecord first{};
  gasket::get(&first, slot, sizeof first, 0, call);
  if (std::memcmp(&first, &mine, sizeof mine) != 0) {
    log::fatal("%s: mismatched collective allocation: this PE's call #%llu is %s(%zu bytes, "
               "alignment %zu) but PE 0's call #%llu is %s(%llu bytes, alignment %llu); every PE "
               "must make the same symmetric-heap calls in the same order",
               call, static_cast<unsigned long long>(seq), kind_name(kind), bytes, alignment,
               static_cast<unsigned long long>(first.sequence), kind_name(first.kind),
               static_cast<unsigned long long>(first.bytes),
               static_cast<unsigned long long>(first.alignment));
  }
}

void* Runtime::heap_allocate(uint64_t kind, size_t bytes, size_t alignment, const char* call) {
  std::lock_guard<std::mutex> lock(heap_mutex_);
  const size_t largest = segment_alignment(allocator_.capacity());
  if (alignment == 0 || (alignment & (alignment - 1)) != 0 || alignment > largest) {
    log::fatal("%s: alignment %zu is not a power of two between 1 and %zu", call, alignment, largest);
  }
  // The block is carved and zeroed before the closing barrier: once any PE returns, every PE's
  // copy is ready, so a fast PE's first put into a slow PE's block can never be wiped.
  auto off = allocator_.allocate(bytes, alignment);
  char* p = off ? segments_.find(segments::kHeapSegment)->base + *off : nullptr;
  if (p != nullptr && kind == kCalloc) std::memset(p, 0, bytes);
  check_collective_call(kind, bytes, alignment, call);
  if (p == nullptr && my_pe_ == 0) {
    GASKET_WARN("%s: symmetric heap exhausted: %zu bytes (alignment %zu) asked, largest free "
                "block %zu of %s, in use %zu; raise SHMEM_SYMMETRIC_SIZE / GASKET_HEAP_SIZE",
                call, bytes, alignment, allocator_.largest_free_block(),
                format_size(allocator_.capacity()).c_str(), allocator_.bytes_in_use());
  }
  return p;
}

void* Runtime::heap_reallocate(void* ptr, size_t bytes, const char* call) {
  std::lock_guard<std::mutex> lock(heap_mutex_);
  char* base = segments_.find(segments::kHeapSegment)->base;
  size_t old_off = static_cast<size_t>(static_cast<char*>(ptr) - base);
  if (static_cast<char*>(ptr) < base || !allocator_.owns(old_off)) {
    log::fatal("%s: %p is not a live block of the symmetric heap", call, ptr);
  }
  // As in heap_allocate, the local work (and the copy) happens before the closing barrier.
  char* result = static_cast<char*>(ptr);
  if (!allocator_.resize_in_place(old_off, bytes)) {
    auto off = allocator_.allocate(bytes, segments::SymmetricAllocator::kMinAlignment);
    if (off) {
      size_t old_size = allocator_.block_size(old_off);
      std::memcpy(base + *off, ptr, old_size < bytes ? old_size : bytes);
      bool released = allocator_.release(old_off);
      (void)released;
      result = base + *off;
    } else {
      result = nullptr;  // the old block stays valid, as with realloc
    }
  }
  check_collective_call(kRealloc, bytes, 1, call);
  if (result == nullptr && my_pe_ == 0) {
    GASKET_WARN("%s: symmetric heap exhausted growing a block to %zu bytes (largest free %zu)",
                call, bytes, allocator_.largest_free_block());
  }
  return result;
}

void Runtime::heap_release(void* ptr, const char* call) {
  std::lock_guard<std::mutex> lock(heap_mutex_);
  check_collective_call(kFree, 0, reinterpret_cast<uintptr_t>(ptr) == 0 ? 0 : 1, call);
  if (ptr == nullptr) return;
  char* base = segments_.find(segments::kHeapSegment)->base;
  if (static_cast<char*>(ptr) < base ||
      !allocator_.release(static_cast<size_t>(static_cast<char*>(ptr) - base))) {
    log::fatal("%s: %p is not a live block of the symmetric heap", call, ptr);
  }
}

}  // namespace core

namespace {
inline core::Runtime& rt(const char* call) { return core::Runtime::checked(call); }
}  // namespace

void* sym_malloc(size_t bytes, const char* call) {
  return rt(call).heap_allocate(core::kMalloc, bytes, segments::SymmetricAllocator::kMinAlignment, call);
}

void* sym_calloc(size_t count, size_t size, const char* call) {
  size_t bytes;
  if (__builtin_mul_overflow(count, size, &bytes)) {
    log::fatal("%s: %zu elements of %zu bytes overflow the size type", call, count, size);
  }
  return rt(call).heap_allocate(core::kCalloc, bytes, segments::SymmetricAllocator::kMinAlignment, call);
}

void* sym_align(size_t alignment, size_t bytes, const char* call) {
  return rt(call).heap_allocate(core::kAlign, bytes, alignment, call);
}

void* sym_realloc(void* ptr, size_t bytes, const char* call) {
  if (ptr == nullptr) return sym_malloc(bytes, call);
  if (bytes == 0) {
    sym_free(ptr, call);
    return nullptr;
  }
  return rt(call).heap_reallocate(ptr, bytes, call);
}

void sym_free(void* ptr, const char* call) { rt(call).heap_release(ptr, call); }

size_t sym_heap_size() { return rt("gasket::sym_heap_size").allocator().capacity(); }
size_t sym_heap_in_use() { return rt("gasket::sym_heap_in_use").allocator().bytes_in_use(); }

}  // namespace gasket
