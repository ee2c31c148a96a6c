// The segment table: every remotely accessible region of this PE, and where the same segment
// lives in the peers that share this node. A symmetric address is translated to
// (segment, offset); the peer's copy is at peer_base[pe] + offset when the peer's segment is
// mapped here, otherwise the (segment id, offset) pair goes to the backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

namespace gasket::segments {

using SegmentId = uint32_t;

// Well-known segment ids; user segments (windows, registered memory) are numbered after these.
enum : SegmentId {
  kInternalSegment = 0,  // runtime scratch: barrier flags, collective records, mailboxes
  kHeapSegment = 1,      // the symmetric heap
  kDataSegment = 2,      // the redistributed .data/.bss (see core/segments/README.md)
  kBounceSegment = 3,    // stages of copies into and out of user memory (core/memreg/user_memory.h)
  kFirstUserSegment = 8,
};

struct Segment {
  SegmentId id = 0;
  std::string name;
  char* base = nullptr;  // this PE's copy
  size_t size = 0;
  // Per PE: base of that PE's copy mapped into this process, or null (another node, or not
  // mapped). peer_base[my_pe] == base.
  std::vector<char*> peer_base;
  // False for a segment that is not on a shared-memory file (the static data with
  // GASKET_REDISTRIBUTE=no): peers cannot map it; they reach it by a kernel copy or the backend.
  bool file_backed = true;
  // True when the backend allocated this segment's memory (backend::SegmentMemory): same-node
  // peers' copies are mapped through the backend rather than from the core's files.
  bool backend_memory = false;
  // Per PE, for segments that are not file backed: that PE's base in its own address space.
  std::vector<uintptr_t> peer_address;
  // Set for backend_memory segments: maps a same-node peer's copy on first ask (the backend makes
  // its endpoint to that peer then), stores it in peer_base and returns it; null where the peer's
  // copy cannot be mapped here (another node, or the transport maps none).
  std::function<char*(int pe)> map_peer;

  // `pe`'s copy mapped here, or null; a backend_memory segment's is mapped at this first ask.
  // Safe from several threads: the mapping is published with a release store.
  char* peer_copy(int pe) const {
    char* mapped = __atomic_load_n(&peer_base[static_cast<size_t>(pe)], __ATOMIC_ACQUIRE);
    if (__builtin_expect(mapped != nullptr, 1) || !map_peer) return mapped;
    return map_peer(pe);
  }

  bool contains(const void* addr, size_t len) const {
    auto a = reinterpret_cast<uintptr_t>(addr), b = reinterpret_cast<uintptr_t>(base);
    return a >= b && a - b <= size && len <= size - (a - b);
  }
};

struct Translation {
  const Segment* segment = nullptr;  // null: the address is in no segment
  size_t offset = 0;
  bool in_bounds = false;  // false: starts inside `segment` but [addr, addr+len) runs past its end
};

class SegmentTable {
 public:
  // Adds a segment; the returned reference stays valid for the table's life.
  Segment& add(SegmentId id, std::string name, char* base, size_t size, int n_pes);
  // Looks up the segment holding `addr` and checks that `len` bytes fit.
  Translation translate(const void* addr, size_t len) const;
  const Segment* find(SegmentId id) const;
  Segment* find(SegmentId id);
  bool remove(SegmentId id);
  const std::deque<Segment>& all() const { return segments_; }
  std::deque<Segment>& all_mutable() { return segments_; }

 private:
  std::deque<Segment> segments_;  // deque: references stay valid as segments are added
};

}  // namespace gasket::segments
