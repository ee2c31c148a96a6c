#include "mpi/p2p/shm_rings.h"

#include <cstring>

#include "core/gasket.h"

namespace gasket::mpi::p2p {

size_t ShmRings::region_bytes(int n_pes, size_t slots, size_t slot_bytes) {
  return 64 * static_cast<size_t>(n_pes) + static_cast<size_t>(n_pes) * slots * slot_bytes;
}

ShmRings::ShmRings(std::vector<char*> peer_regions, int my_pe, size_t slots, size_t slot_bytes)
    : peers_(std::move(peer_regions)),
      my_pe_(my_pe),
      slots_(slots),
      slot_bytes_(slot_bytes),
      ack_bytes_(64 * peers_.size()),
      sent_(peers_.size(), 0),
      acked_(peers_.size(), 0),
      received_(peers_.size(), 0),
      ack_sent_(peers_.size(), 0) {}

char* ShmRings::reserve(int pe) {
  size_t p = static_cast<size_t>(pe);
  uint64_t n = sent_[p];
  if (n - acked_[p] >= slots_) {
    acked_[p] = __atomic_load_n(ack_word(my_pe_, pe), __ATOMIC_ACQUIRE);
    if (n - acked_[p] >= slots_) return nullptr;
  }
  return slot(pe, my_pe_, n) + sizeof(Header);
}

void ShmRings::commit(int pe, const Header& h) {
  size_t p = static_cast<size_t>(pe);
  uint64_t n = sent_[p];
  char* s = slot(pe, my_pe_, n);
  std::memcpy(s + sizeof(uint32_t), reinterpret_cast<const char*>(&h) + sizeof(uint32_t),
              sizeof(Header) - sizeof(uint32_t));
  __atomic_store_n(reinterpret_cast<uint32_t*>(s), static_cast<uint32_t>(n + 1), __ATOMIC_RELEASE);
  sent_[p] = n + 1;
  gasket::detail::ring(pe);  // a receiver napping in its wait (core's waiting policy) wakes
}

bool ShmRings::try_send(int pe, const Header& h, const void* body, size_t body_len, const void* data,
                        size_t data_len) {
  char* payload = reserve(pe);
  if (payload == nullptr) return false;
  if (body_len > 0) std::memcpy(payload, body, body_len);
  if (data_len > 0) std::memcpy(payload + body_len, data, data_len);
  commit(pe, h);
  return true;
}

void ShmRings::consume(int src) {
  size_t s = static_cast<size_t>(src);
  uint64_t n = ++received_[s];
  if (n - ack_sent_[s] >= slots_ / 4 || slots_ < 4) {
    __atomic_store_n(ack_word(src, my_pe_), n, __ATOMIC_RELEASE);
    ack_sent_[s] = n;
    gasket::detail::ring(src);  // a sender napping on a full ring wakes
  }
}

}  // namespace gasket::mpi::p2p
