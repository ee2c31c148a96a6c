#include "mpi/coll/aliasing.h"

#include <algorithm>

namespace gasket::mpi::coll {

ByteRange occupied(const void* buf, int64_t count, const datatype::Datatype& type) {
  if (count <= 0 || type.true_ub <= type.true_lb) return ByteRange{};
  // The elements start at 0, extent, 2 extent... (a negative extent goes down).
  int64_t last = (count - 1) * type.extent();
  const char* base = static_cast<const char*>(buf);
  return ByteRange{base + type.true_lb + std::min<int64_t>(0, last), base + type.true_ub + std::max<int64_t>(0, last)};
}

ByteRange cover(ByteRange a, ByteRange b) {
  if (b.lo >= b.hi) return a;
  if (a.lo >= a.hi) return b;
  return ByteRange{std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

bool meet(ByteRange a, ByteRange b) { return a.lo < a.hi && b.lo < b.hi && a.lo < b.hi && b.lo < a.hi; }

Error check_not_aliased(std::vector<ByteRange> sent, std::vector<ByteRange> received, const char* call, int rank) {
  // Separate buffers, the common case on every small collective's path: the spans of the two
  // kinds do not meet, so no ranges can (no sorting, no allocation).
  ByteRange sent_span, received_span;
  for (const ByteRange& r : sent) sent_span = cover(sent_span, r);
  for (const ByteRange& r : received) received_span = cover(received_span, r);
  if (!meet(sent_span, received_span)) return Error::ok();
  // One sweep over both kinds by start address: a range overlaps one of the other kind when it
  // starts before the farthest end of that kind seen so far.
  struct Edge {
    ByteRange r;
    bool is_send;
  };
  std::vector<Edge> all;
  for (const ByteRange& r : sent) {
    if (r.lo < r.hi) all.push_back(Edge{r, true});
  }
  for (const ByteRange& r : received) {
    if (r.lo < r.hi) all.push_back(Edge{r, false});
  }
  std::sort(all.begin(), all.end(), [](const Edge& a, const Edge& b) { return a.r.lo < b.r.lo; });
  const char* farthest[2] = {nullptr, nullptr};  // [receive, send]
  for (const Edge& e : all) {
    const char* other = farthest[e.is_send ? 0 : 1];
    if (other != nullptr && e.r.lo < other) {
      return error(MPI_ERR_BUFFER,
                   "%s: rank %d: the send and receive buffers overlap (bytes at %p); use MPI_IN_PLACE to share "
                   "a buffer",
                   call, rank, static_cast<const void*>(e.r.lo));
    }
    const char*& mine = farthest[e.is_send ? 1 : 0];
    if (mine == nullptr || e.r.hi > mine) mine = e.r.hi;
  }
  return Error::ok();
}

}  // namespace gasket::mpi::coll
