// The symmetric heap's collective calls. Every PE runs the same sequence of calls; each call
// records (sequence, kind, size, alignment) in the internal segment, waits for every PE (barrier),
// and compares its record with PE 0's, so a PE that calls with other arguments or in another
// order is caught instead of silently corrupting its peers' memory. As OpenSHMEM requires, the
// barrier closes malloc/calloc/align/realloc (every copy exists before any PE uses it) and opens
// free (no PE still uses the block when it is released).
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/base/log.h"
#include "core/base/parse.h"
#include "core/runtime.h"
#include "core/segments/heap_sizing.h"

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
  // Each PE compares with the one before it, so all agree with PE 0 without PE 0 answering (and
  // opening a backend endpoint or connection to) every PE of the job.
  if (my_pe_ == 0) return;
  const int before = my_pe_ - 1;
  InternalArea::AllocRecord first{};
  gasket::get(&first, slot, sizeof first, before, call);
  if (std::memcmp(&first, &mine, sizeof mine) != 0) {
    log::fatal("%s: mismatched collective allocation: this PE's call #%llu is %s(%zu bytes, "
               "alignment %zu) but PE %d's call #%llu is %s(%llu bytes, alignment %llu); every PE "
               "must make the same symmetric-heap calls in the same order",
               call, static_cast<unsigned long long>(seq), kind_name(kind), bytes, alignment, before,
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
  char* base = segments_.find(segments::kHeapSegment)->base;
  const char* untouched = base + allocator_.untouched_from();
  auto off = allocator_.allocate(bytes, alignment);
  char* p = off ? base + *off : nullptr;
  if (p != nullptr && kind == kCalloc) zero_heap_block(p, bytes, untouched);
  check_collective_call(kind, bytes, alignment, call);
  if (p != nullptr) warn_if_shared_memory_short(bytes, call);
  if (p == nullptr && my_pe_ == 0) {
    GASKET_WARN("%s: symmetric heap exhausted: %zu bytes (alignment %zu) asked, largest free "
                "block %zu of %s (GASKET_HEAP_SIZE=%s), in use %zu; raise SHMEM_SYMMETRIC_SIZE / "
                "GASKET_HEAP_SIZE",
                call, bytes, alignment, allocator_.largest_free_block(),
                format_size(allocator_.capacity()).c_str(), config_.text(config::Knob::HEAP_SIZE).c_str(),
                allocator_.bytes_in_use());
  }
  return p;
}

// The heap is sparse: its pages are taken from /dev/shm when first written. A block larger than
// what /dev/shm still has for the PEs of this node could end the job with SIGBUS once filled.
void Runtime::warn_if_shared_memory_short(size_t bytes, const char* call) {
  if (bytes < (size_t{1} << 20)) return;
  uint64_t pes_here = static_cast<uint64_t>(std::count(node_of_pe_.begin(), node_of_pe_.end(), node_of(my_pe_)));
  uint64_t available = segments::shared_memory_available();
  if (available != 0 && bytes * pes_here > available) {
    GASKET_WARN("%s: the %s block of each of this node's %llu PEs exceeds what /dev/shm has left (%s): "
                "writing all of it would fail (SIGBUS); free /dev/shm or lower GASKET_HEAP_SIZE",
                call, format_size(bytes).c_str(), static_cast<unsigned long long>(pes_here),
                format_size(available).c_str());
  }
}

// calloc: the part of the block no earlier block has covered reads zero already in a heap that
// started zeroed (not written, it stays out of resident memory: the MPI rings of a PE whose heap
// cannot give pages back). Of the rest, a large block's whole pages are returned (they read zero
// and cost nothing until written), only the partial pages at its ends are cleared by hand.
void Runtime::zero_heap_block(char* p, size_t bytes, const char* untouched) {
  if (heap_starts_zeroed_) bytes = static_cast<size_t>(std::clamp<const char*>(untouched, p, p + bytes) - p);
  if (bytes == 0) return;
  segments::PageRange pages = segments::whole_pages(p, bytes);
  if (bytes < segments::kReturnPagesFrom || !pages_returnable() || !segments::return_pages(p, bytes)) {
    std::memset(p, 0, bytes);
    return;
  }
  std::memset(p, 0, static_cast<size_t>(pages.begin - p));
  std::memset(pages.end, 0, static_cast<size_t>(p + bytes - pages.end));
}

bool Runtime::pages_returnable() const { return !backend_ || std::strcmp(backend_->name(), "ucx") != 0; }

void Runtime::return_heap_pages(void* p, size_t bytes) {
  if (bytes < segments::kReturnPagesFrom || !pages_returnable()) return;
  if (!segments::return_pages(p, bytes)) {
    GASKET_DEBUG("freed heap pages at %p (%zu bytes) stay resident: %s", p, bytes, std::strerror(errno));
  }
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
      return_heap_pages(ptr, old_size);
      result = base + *off;
    } else {
      result = nullptr;  // the old block stays valid, as with realloc
    }
  }
  check_collective_call(kRealloc, bytes, 1, call);
  if (result == nullptr && my_pe_ == 0) {
    GASKET_WARN("%s: symmetric heap exhausted growing a block to %zu bytes (largest free %zu of %s); "
                "raise SHMEM_SYMMETRIC_SIZE / GASKET_HEAP_SIZE",
                call, bytes, allocator_.largest_free_block(), format_size(allocator_.capacity()).c_str());
  }
  return result;
}

void Runtime::heap_release(void* ptr, const char* call) {
  std::lock_guard<std::mutex> lock(heap_mutex_);
  check_collective_call(kFree, 0, reinterpret_cast<uintptr_t>(ptr) == 0 ? 0 : 1, call);
  if (ptr == nullptr) return;
  char* base = segments_.find(segments::kHeapSegment)->base;
  size_t off = static_cast<size_t>(static_cast<char*>(ptr) - base);
  size_t bytes = static_cast<char*>(ptr) < base ? 0 : allocator_.block_size(off);
  if (bytes == 0 || !allocator_.release(off)) {
    log::fatal("%s: %p is not a live block of the symmetric heap", call, ptr);
  }
  return_heap_pages(ptr, bytes);
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
