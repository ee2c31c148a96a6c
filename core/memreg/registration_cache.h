// The registration cache: user memory (stack, heap, mmap) registered for remote access is kept
// registered after use, so the next transfer from the same buffer costs a lookup, not a
// registration. Design:
//  - Entries are page-aligned ranges, disjoint, indexed by start address. A request covered by
//    one entry is a hit. A request that overlaps or touches entries is a miss that registers the
//    union (extend) and retires the entries it swallows.
//  - Entries are reference counted: acquire() returns a Registration, release() drops it. Only
//    unused entries are evicted (least recently used first) when the registered bytes exceed the
//    limit (GASKET_MEMREG_LIMIT); an entry in use is never deregistered under its user.
//  - Invalidation: a registration names pages, so it becomes stale when those pages are unmapped
//    (munmap, mremap, shmdt, brk shrinking, madvise(DONTNEED) — and free() of a large block,
//    which unmaps inside libc). UCX's memory hooks (ucm) report every such event, including
//    libc's internal ones; the hook only records the range in a fixed array (it runs inside
//    munmap, perhaps under malloc's lock, so it must not allocate), and the next acquire()
//    drops every entry overlapping a recorded range before it looks up. If the array overflows,
//    every unused entry is dropped. free() of a small block does not unmap: the pages (and so the
//    registration) stay valid, whatever new contents the next malloc puts there.
// The backend side is behind Registrar, so the cache is tested without a transport.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "core/base/status.h"
#include "core/segments/segment_table.h"

namespace gasket::memreg {

// What a registration is made with: the backend (Backend::register_segment with a user segment
// id) in the runtime, a recorder in tests.
class Registrar {
 public:
  virtual ~Registrar() = default;
  [[nodiscard]] virtual Status register_range(segments::SegmentId id, void* base, size_t size) = 0;
  [[nodiscard]] virtual Status deregister_range(segments::SegmentId id) = 0;
};

struct CacheStats {
  uint64_t hits = 0, misses = 0, extends = 0, evictions = 0, invalidations = 0, registered_bytes = 0,
           live_entries = 0;
};

// A registered range covering what was asked for. `id` names it for the backend; peers address
// it as (id, address - base).
struct Registration {
  segments::SegmentId id = 0;
  char* base = nullptr;
  size_t size = 0;
};

class RegistrationCache {
 public:
  // Ids are handed out from `first_id` on and never reused (a peer may cache a remote key per id).
  RegistrationCache(Registrar& registrar, size_t limit_bytes, segments::SegmentId first_id);
  ~RegistrationCache();
  RegistrationCache(const RegistrationCache&) = delete;
  RegistrationCache& operator=(const RegistrationCache&) = delete;

  // Registers (or finds) a range covering [addr, addr+len). `call` names the API call in errors.
  [[nodiscard]] Result<Registration> acquire(const void* addr, size_t len, const char* call);
  // Ends one use of a registration returned by acquire (errors name `call` and the id).
  [[nodiscard]] Status release(const Registration& reg, const char* call);

  // Drops every entry overlapping [addr, addr+len): called with the memory hook's ranges, and by
  // users that know better (e.g. before returning memory to the system themselves).
  void invalidate(const void* addr, size_t len);
  // Starts listening to UCX's memory hooks (ucm): unmapped ranges are invalidated. Fails when
  // ucm cannot install its hooks (then the cache must not outlive the memory it caches).
  [[nodiscard]] Status watch_unmaps();

  CacheStats stats() const;
  std::string describe() const;

  // Called by the memory hook inside munmap & co. (maybe under malloc's lock): records the range
  // for the next acquire() and allocates nothing.
  void record_unmap(uintptr_t start, size_t size);

 private:
  struct Entry {
    segments::SegmentId id;
    uintptr_t start, end;  // page aligned
    int users = 0;
    bool retired = false;  // out of the index (swallowed or invalidated), deregistered at last release
    std::list<Entry*>::iterator lru;  // valid when users == 0 and not retired
  };
  void drain_unmaps_locked();
  void invalidate_locked(uintptr_t start, uintptr_t end);
  void retire_locked(Entry* e);  // removes from the index; deregisters now if unused
  Status destroy_locked(Entry* e);
  void evict_locked();

  Registrar& registrar_;
  size_t limit_;
  segments::SegmentId next_id_;
  mutable std::mutex mutex_;
  std::map<uintptr_t, Entry*> index_;  // start -> entry, disjoint
  std::map<segments::SegmentId, std::unique_ptr<Entry>> entries_;  // every live entry, by id
  std::list<Entry*> lru_;  // unused entries, least recently used first
  CacheStats stats_;
  bool watching_ = false;

  // Filled by the memory hook without allocating; drained under mutex_.
  static constexpr size_t kPendingUnmaps = 256;
  std::atomic_flag pending_lock_ = ATOMIC_FLAG_INIT;
  size_t pending_count_ = 0;
  bool pending_overflow_ = false;
  uintptr_t pending_start_[kPendingUnmaps] = {}, pending_end_[kPendingUnmaps] = {};
};

}  // namespace gasket::memreg
