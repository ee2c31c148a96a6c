#include "core/segments/segment_table.h"

#include <algorithm>

namespace gasket::segments {

Segment& SegmentTable::add(SegmentId id, std::string name, char* base, size_t size, int n_pes) {
  Segment s;
  s.id = id;
  s.name = std::move(name);
  s.base = base;
  s.size = size;
  s.peer_base.assign(static_cast<size_t>(n_pes), nullptr);
  // The heap is the hottest lookup: keep it first.
  if (id == kHeapSegment) {
    segments_.push_front(std::move(s));
    return segments_.front();
  }
  segments_.push_back(std::move(s));
  return segments_.back();
}

Translation SegmentTable::translate(const void* addr, size_t len) const {
  auto a = reinterpret_cast<uintptr_t>(addr);
  for (const Segment& s : segments_) {
    auto b = reinterpret_cast<uintptr_t>(s.base);
    if (a < b || a - b >= s.size) continue;
    size_t off = a - b;
    return Translation{&s, off, len <= s.size - off};
  }
  return Translation{};
}

const Segment* SegmentTable::find(SegmentId id) const {
  for (const Segment& s : segments_) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

Segment* SegmentTable::find(SegmentId id) {
  return const_cast<Segment*>(static_cast<const SegmentTable*>(this)->find(id));
}

bool SegmentTable::remove(SegmentId id) {
  auto it = std::find_if(segments_.begin(), segments_.end(),
                         [id](const Segment& s) { return s.id == id; });
  if (it == segments_.end()) return false;
  segments_.erase(it);
  return true;
}

}  // namespace gasket::segments
