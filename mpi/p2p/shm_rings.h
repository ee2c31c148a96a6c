// Same-node rings for two-sided MPI: for every (sender, receiver) pair on a node, a ring of bytes
// in the receiver's part of a symmetric-heap region, written by the sender through its mapping of
// that region (plain stores, no system call). A region holds one ring (and one credit line) per
// PE of the largest node, indexed by the sender's place among its node's PEs (`node_slot`): its
// size does not grow with the PEs of other nodes, which never write it. Packets (wire.h) lie one after the other, each
// rounded up to a 64-byte line, so a ring sized for `slots` of the largest packet holds hundreds
// of small ones (a window of small non-blocking sends never waits for room). A packet that would
// run past the end leaves a pad marker and starts over at offset 0 (packets never wrap).
//
// Publication: a packet's first word, the sequence flag (its number + 1), is stored last with
// release order. The receiver zeroes the first word of every line it has read before it credits
// them back, so the flag it polls at its next offset is never a byte left there by an earlier lap
// (and that line, last written by the receiver, is polled in its own cache: a sender clearing it
// instead cost the ping-pong an extra cache-line transfer per message, +0.25 us). It zeroes them
// when it next finds the ring empty (or before a credit), not as it reads them: stores become
// visible in program order, so zeroing at once would hold an answer sent right after behind a
// cache-line transfer per line read. Credits: the receiver stores how many bytes it
// has consumed into the sender's region (every quarter ring, or at once on a ring too small for
// that to stay live); a sender that finds too little room rereads it. Both stores ring the other
// side's doorbell (gasket::detail::ring), so a waiter napping past its spin budget wakes at once.
//
// The hot area: while the receiver keeps up, the sender starts over at offset 0 (a pad marker)
// once it has passed the ring's first `hot` bytes, so small messages reuse the same few lines,
// which stay in both cores' caches, instead of walking the whole ring (hundreds of KiB sized for
// the largest packets) and missing on every line. A receiver more than half the hot area behind
// lets the sender run on into the rest of the ring (a window of large eager messages keeps the
// whole ring). The receiver credits every quarter of the hot area, so the sender knows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/gasket.h"
#include "mpi/p2p/wire.h"

namespace gasket::mpi::p2p {

// Copies n <= 64 bytes without a call to memcpy: two overlapping copies of a power of two (a
// packet that fits its first ring line, and the receive of one).
[[gnu::always_inline]] inline void copy_short(char* dst, const void* src, size_t n) {
  const char* s = static_cast<const char*>(src);
  if (n >= 16) {
    if (n > 32) {
      std::memcpy(dst, s, 16);
      std::memcpy(dst + 16, s + 16, 16);
      std::memcpy(dst + n - 32, s + n - 32, 16);
    } else {
      std::memcpy(dst, s, 16);
    }
    std::memcpy(dst + n - 16, s + n - 16, 16);
  } else if (n >= 8) {
    std::memcpy(dst, s, 8);
    std::memcpy(dst + n - 8, s + n - 8, 8);
  } else if (n >= 4) {
    std::memcpy(dst, s, 4);
    std::memcpy(dst + n - 4, s + n - 4, 4);
  } else if (n > 0) {
    dst[0] = s[0];
    dst[n - 1] = s[n - 1];
    if (n == 3) dst[1] = s[1];
  }
}

class ShmRings {
 public:
  static constexpr size_t kLine = 64;
  static constexpr uint8_t kPadKind = 0;  // a pad marker: the rest of the ring is skipped (no Kind is 0)
  // Bytes of one ring: `slots` packets of `max_packet` bytes.
  static size_t ring_bytes(size_t slots, size_t max_packet);
  // Bytes of a region with rings for `node_pes` senders (the PEs of the largest node).
  static size_t region_bytes(int node_pes, size_t slots, size_t max_packet);
  // Per PE of the job, its place among the PEs of its node (0 .. that node's PEs - 1), from the
  // node of every PE; the largest place + 1 is `*node_pes`.
  static std::vector<uint32_t> node_slots(const std::vector<int>& node_of_pe, int* node_pes);
  // `peer_regions[pe]`: pe's copy of the region mapped here, or null (not on this node).
  // `node_slot`: node_slots() of the job; the region holds rings for `node_pes` senders.
  // `max_packet` (a multiple of kLine) bounds header + body + data of one packet; slots >= 2.
  // `hot`: bytes of the hot area (0, under 4 lines or more than half the ring: none).
  ShmRings(std::vector<char*> peer_regions, std::vector<uint32_t> node_slot, int node_pes, int my_pe, size_t slots,
           size_t max_packet, size_t hot);

  bool reaches(int pe) const { return peers_[static_cast<size_t>(pe)] != nullptr; }
  size_t max_packet() const { return max_packet_; }
  // Writes header + body + data as one packet to `pe`'s ring; false when the ring has no room.
  // The caller keeps header + body + data within max_packet(). Inline: a packet that fits its
  // first line (the small message) is copied in place without a call.
  [[gnu::always_inline]] bool try_send(int pe, const Header& h, const void* body, size_t body_len, const void* data,
                                       size_t data_len) {
    size_t len = body_len + data_len;
    char* payload = reserve_packet(pe, len);
    if (payload == nullptr) return false;
    if (len <= kLine - sizeof(Header)) {
      copy_short(payload, body, body_len);
      copy_short(payload + body_len, data, data_len);
    } else {
      copy_lines(payload, static_cast<const char*>(body), body_len, static_cast<const char*>(data), data_len);
    }
    commit_packet(pe, h);
    return true;
  }
  // The same in two steps, for a sender that writes the payload itself (packing a
  // non-contiguous type straight into the ring): reserve() returns the payload area (room for
  // `payload_len` bytes) of the next packet to `pe`, or null when the ring has no room; commit()
  // publishes it with header `h` (h.len == payload_len).
  char* reserve(int pe, size_t payload_len);
  void commit(int pe, const Header& h);
  // The next packet from `src`, or null. consume() frees it once it has been read. Inline: the
  // receiver's every poll and packet (a packet there, or nothing to clear: no call).
  [[gnu::always_inline]] const Header* peek(int src) {
    Receiver& r = from_[static_cast<size_t>(src)];
    const Header* h = reinterpret_cast<const Header*>(ring(my_pe_, src) + r.at);
    bool fresh = __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) == r.packets + 1;
    if (fresh ? h->kind != kPadKind : r.cleared == r.consumed) return fresh ? h : nullptr;
    return peek_slow(src);
  }
  [[gnu::always_inline]] void consume(int src) {
    Receiver& r = from_[static_cast<size_t>(src)];
    size_t len = line_up(sizeof(Header) + reinterpret_cast<const Header*>(ring(my_pe_, src) + r.at)->len);
    r.consumed += len;
    r.at = after(r.at, len);
    ++r.packets;
    if (r.consumed - r.published >= ack_every_) credit(src);
  }

 private:
  struct Sender {  // this PE's view of its ring in a receiver
    uint64_t written = 0;   // bytes written (packets and pads), ever
    uint64_t consumed = 0;  // bytes the receiver had consumed when last read
    uint32_t packets = 0;   // packets (and pads) written
    size_t at = 0;          // where the next packet goes (written % ring size, kept without a division)
    size_t reserved_at = 0; // offset of the packet reserve() placed
  };
  struct Receiver {  // this PE's ring from one sender
    uint64_t consumed = 0;   // bytes read (packets and pads), ever
    uint64_t published = 0;  // ... as last stored into the sender's region
    uint64_t cleared = 0;    // ... whose lines' flag words are zeroed
    uint32_t packets = 0;
    size_t at = 0;           // consumed % ring size
    size_t clear_at = 0;     // cleared % ring size
  };
  // The offset after a packet of `len` bytes at `at` (one that ends the ring leads back to 0).
  size_t after(size_t at, size_t len) const { return at + len == ring_bytes_ ? 0 : at + len; }
  char* ring(int receiver, int sender) const {
    return peers_[static_cast<size_t>(receiver)] + ack_bytes_ + node_slot_[static_cast<size_t>(sender)] * ring_bytes_;
  }
  uint64_t* ack_word(int owner, int from) const {
    return reinterpret_cast<uint64_t*>(peers_[static_cast<size_t>(owner)] + kLine * node_slot_[static_cast<size_t>(from)]);
  }
  // reserve()/commit()'s steps, inline (try_send's too).
  char* reserve_packet(int pe, size_t payload_len);
  void commit_packet(int pe, const Header& h);
  // A packet longer than its first line: the bytes past that line first, then those on it (the
  // receiver polling that line loses it to this writer once per packet).
  static void copy_lines(char* payload, const char* body, size_t body_len, const char* data, size_t data_len);
  static void clear_flags(char* at, size_t len);
  const Header* peek_slow(int src);  // an empty ring with lines to clear, or a pad
  void credit(int src);
  void clear_consumed(Receiver& r, char* base);
  static size_t line_up(size_t bytes) { return (bytes + kLine - 1) / kLine * kLine; }
  static void publish(char* at, uint32_t seq) {
    __atomic_store_n(reinterpret_cast<uint32_t*>(at), seq, __ATOMIC_RELEASE);
  }

  std::vector<char*> peers_;
  std::vector<uint32_t> node_slot_;
  int my_pe_;
  size_t max_packet_, ring_bytes_, hot_, ack_bytes_, ack_every_;
  std::vector<Sender> to_;
  std::vector<Receiver> from_;
};

[[gnu::always_inline]] inline char* ShmRings::reserve_packet(int pe, size_t payload_len) {
  Sender& s = to_[static_cast<size_t>(pe)];
  size_t len = line_up(sizeof(Header) + payload_len);
  size_t at = s.at;
  size_t pad = at + len > ring_bytes_ ? ring_bytes_ - at : 0;
  if (pad == 0 && hot_ > 0 && at >= hot_ && len <= hot_ / 2) {  // past the hot area: start over if the receiver keeps up
    if (s.written - s.consumed > hot_ / 2) s.consumed = __atomic_load_n(ack_word(my_pe_, pe), __ATOMIC_ACQUIRE);
    if (s.written - s.consumed <= hot_ / 2) pad = ring_bytes_ - at;
  }
  uint64_t need = s.written + pad + len;
  if (need - s.consumed > ring_bytes_) {
    s.consumed = __atomic_load_n(ack_word(my_pe_, pe), __ATOMIC_ACQUIRE);
    if (need - s.consumed > ring_bytes_) return nullptr;
  }
  char* base = ring(pe, my_pe_);
  if (pad > 0) {
    Header marker{};
    marker.kind = kPadKind;
    std::memcpy(base + at + sizeof(uint32_t), reinterpret_cast<const char*>(&marker) + sizeof(uint32_t),
                sizeof(Header) - sizeof(uint32_t));
    publish(base + at, ++s.packets);
    s.written += pad;
    at = 0;
  }
  s.reserved_at = at;
  return base + at + sizeof(Header);
}

[[gnu::always_inline]] inline void ShmRings::commit_packet(int pe, const Header& h) {
  Sender& s = to_[static_cast<size_t>(pe)];
  size_t len = line_up(sizeof(Header) + h.len);
  char* base = ring(pe, my_pe_);
  char* packet = base + s.reserved_at;
  std::memcpy(packet + sizeof(uint32_t), reinterpret_cast<const char*>(&h) + sizeof(uint32_t),
              sizeof(Header) - sizeof(uint32_t));
  publish(packet, ++s.packets);
  s.written += len;
  s.at = after(s.reserved_at, len);
  gasket::detail::ring(pe);  // a receiver napping in its wait (core's waiting policy) wakes
}

}  // namespace gasket::mpi::p2p
