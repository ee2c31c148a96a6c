#include "mpi/p2p/shm_rings.h"

#include <algorithm>
#include <cstring>

#include "core/gasket.h"

namespace gasket::mpi::p2p {

size_t ShmRings::ring_bytes(size_t slots, size_t max_packet) { return std::max<size_t>(slots, 2) * max_packet; }

size_t ShmRings::region_bytes(int node_pes, size_t slots, size_t max_packet) {
  return (kLine + ring_bytes(slots, max_packet)) * static_cast<size_t>(node_pes);
}

std::vector<uint32_t> ShmRings::node_slots(const std::vector<int>& node_of_pe, int* node_pes) {
  std::vector<uint32_t> slot(node_of_pe.size());
  std::vector<uint32_t> taken;  // per node: its PEs numbered so far
  *node_pes = 1;
  for (size_t pe = 0; pe < node_of_pe.size(); ++pe) {
    size_t node = static_cast<size_t>(node_of_pe[pe]);
    if (taken.size() <= node) taken.resize(node + 1, 0);
    slot[pe] = taken[node]++;
    *node_pes = std::max(*node_pes, static_cast<int>(taken[node]));
  }
  return slot;
}

// Credit every quarter ring, unless a sender short of room for its largest need (a pad before
// the end and the packet: 2 max_packet) could then wait for bytes the receiver consumed but did
// not report: the quarter is bounded by what is left beside that need. With a hot area, every
// quarter of it (the sender's choice to start over needs a recent figure).
ShmRings::ShmRings(std::vector<char*> peer_regions, std::vector<uint32_t> node_slot, int node_pes, int my_pe,
                   size_t slots, size_t max_packet, size_t hot)
    : peers_(std::move(peer_regions)),
      node_slot_(std::move(node_slot)),
      my_pe_(my_pe),
      max_packet_(max_packet),
      ring_bytes_(ring_bytes(slots, max_packet)),
      hot_(hot >= kLine * 4 && hot <= ring_bytes_ / 2 ? line_up(hot) : 0),
      ack_bytes_(kLine * static_cast<size_t>(node_pes)),
      ack_every_(std::min({ring_bytes_ / 4, ring_bytes_ - 2 * max_packet, hot_ > 0 ? hot_ / 4 : SIZE_MAX})),
      to_(peers_.size()),
      from_(peers_.size()) {}

char* ShmRings::reserve(int pe, size_t payload_len) { return reserve_packet(pe, payload_len); }
void ShmRings::commit(int pe, const Header& h) { commit_packet(pe, h); }

namespace {
// Copies bytes [from, to) of the concatenation body + data to dst + from.
void copy_part(char* dst, const char* body, size_t body_len, const char* data, size_t from, size_t to) {
  if (from < body_len) {
    size_t n = std::min(to, body_len) - from;
    std::memcpy(dst + from, body + from, n);
    from += n;
  }
  if (from < to) std::memcpy(dst + from, data + (from - body_len), to - from);
}
}  // namespace

// The payload's bytes past the packet's first line go first, then those on it: the receiver
// polling that line loses it to this writer once per packet, not once when the copy starts and
// again when the flag is stored.
void ShmRings::copy_lines(char* payload, const char* body, size_t body_len, const char* data, size_t data_len) {
  size_t first = kLine - sizeof(Header);
  copy_part(payload, body, body_len, data, first, body_len + data_len);
  copy_part(payload, body, body_len, data, 0, first);
}

// The first word of every line read: where a later packet may start, no byte of this lap's is
// taken for its flag (the sender writes these lines only after the credit below, release-ordered
// after these stores). The receiver's own stores: the line it polls next stays in its cache.
void ShmRings::clear_flags(char* at, size_t len) {
  for (size_t off = 0; off < len; off += kLine) __atomic_store_n(reinterpret_cast<uint32_t*>(at + off), 0u, __ATOMIC_RELAXED);
}

// The lines consumed since the last call (they may run past the end of the ring once).
void ShmRings::clear_consumed(Receiver& r, char* base) {
  uint64_t left = r.consumed - r.cleared;
  while (left > 0) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(left, ring_bytes_ - r.clear_at));
    clear_flags(base + r.clear_at, n);
    r.clear_at = after(r.clear_at, n);
    left -= n;
  }
  r.cleared = r.consumed;
}

// peek()'s rare steps: the ring found empty with lines read but not cleared (clear them now, off
// the path of any answer just sent), or a pad marker (skipped to offset 0; then the packet there).
const Header* ShmRings::peek_slow(int src) {
  Receiver& r = from_[static_cast<size_t>(src)];
  char* base = ring(my_pe_, src);
  for (;;) {
    const Header* h = reinterpret_cast<const Header*>(base + r.at);
    if (__atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) != r.packets + 1) {
      if (r.cleared != r.consumed) clear_consumed(r, base);
      return nullptr;
    }
    if (h->kind != kPadKind) return h;
    // A pad: the lines after its first were cleared when last read (or never written).
    clear_consumed(r, base);
    clear_flags(base + r.at, kLine);
    r.consumed += ring_bytes_ - r.at;  // the next packet is at offset 0
    r.cleared = r.consumed;
    r.clear_at = 0;
    r.at = 0;
    ++r.packets;
  }
}

// The credit: clears the lines read, then stores the consumed count into the sender's region.
void ShmRings::credit(int src) {
  Receiver& r = from_[static_cast<size_t>(src)];
  clear_consumed(r, ring(my_pe_, src));
  __atomic_store_n(ack_word(src, my_pe_), r.consumed, __ATOMIC_RELEASE);
  r.published = r.consumed;
  gasket::detail::ring(src);  // a sender napping on a full ring wakes
}

}  // namespace gasket::mpi::p2p
