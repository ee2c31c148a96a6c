// Same-node rings for two-sided MPI: for every (sender, receiver) pair on a node, a ring of
// fixed slots in the receiver's part of a symmetric-heap region, written by the sender through
// its mapping of that region (plain stores, no system call). A slot is a packet (wire.h) whose
// first word, the sequence flag, is stored last with release order; the receiver polls the flag
// of its next slot per source. Credits: the receiver stores how many packets it has consumed
// into the sender's region (every quarter ring); a sender that finds its ring full rereads it.
// Both stores ring the other side's doorbell (gasket::detail::ring), so a waiter napping past its
// spin budget wakes at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "mpi/p2p/wire.h"

namespace gasket::mpi::p2p {

class ShmRings {
 public:
  static size_t region_bytes(int n_pes, size_t slots, size_t slot_bytes);
  // `peer_regions[pe]`: pe's copy of the region mapped here, or null (not on this node).
  ShmRings(std::vector<char*> peer_regions, int my_pe, size_t slots, size_t slot_bytes);

  bool reaches(int pe) const { return peers_[static_cast<size_t>(pe)] != nullptr; }
  size_t max_packet() const { return slot_bytes_; }
  // Writes header + body + data as one packet to `pe`'s ring; false when the ring is full.
  // The caller keeps header + body + data within max_packet().
  bool try_send(int pe, const Header& h, const void* body, size_t body_len, const void* data, size_t data_len);
  // The same in two steps, for a sender that writes the payload itself (packing a
  // non-contiguous type straight into the slot): reserve() returns the payload area of the next
  // slot to `pe`, or null when the ring is full; commit() publishes it with header `h`.
  char* reserve(int pe);
  void commit(int pe, const Header& h);
  // The next packet from `src`, or null. consume() frees its slot once it has been read.
  const Header* peek(int src) const {
    const Header* h = reinterpret_cast<const Header*>(slot(my_pe_, src, received_[static_cast<size_t>(src)]));
    return __atomic_load_n(&h->seq, __ATOMIC_ACQUIRE) == static_cast<uint32_t>(received_[static_cast<size_t>(src)] + 1)
               ? h
               : nullptr;
  }
  void consume(int src);

 private:
  char* slot(int receiver, int sender, uint64_t n) const {
    return peers_[static_cast<size_t>(receiver)] + ack_bytes_ +
           (static_cast<size_t>(sender) * slots_ + (n & (slots_ - 1))) * slot_bytes_;
  }
  uint64_t* ack_word(int owner, int from) const {
    return reinterpret_cast<uint64_t*>(peers_[static_cast<size_t>(owner)] + 64 * static_cast<size_t>(from));
  }

  std::vector<char*> peers_;
  int my_pe_;
  size_t slots_, slot_bytes_, ack_bytes_;
  std::vector<uint64_t> sent_;      // per target
  std::vector<uint64_t> acked_;     // per target: last consumption count read
  std::vector<uint64_t> received_;  // per source
  std::vector<uint64_t> ack_sent_;  // per source: last count stored into its region
};

}  // namespace gasket::mpi::p2p
