#include "backends/pciddc/receive_list.h"

#include <new>
#include <string>

namespace gasket::backend::pciddc {

namespace {
constexpr uint64_t kMagic = 0x4c4d522d44444350ull;  // "PCDD-RML"
}

struct ReceiveList::Header {
  uint64_t magic;
  uint64_t capacity;  // power of two
  alignas(64) uint64_t tail;  // LMR_NEW: next slot a producer reserves
  alignas(64) uint64_t head;  // LMR_CUR: next slot the owner reads
};

// seq == position: free for the producer reserving `position`; seq == position + 1: filled.
struct ReceiveList::Slot {
  uint64_t seq;
  uint32_t src_pe;
  uint32_t id;
};

size_t ReceiveList::bytes_for(size_t capacity) {
  size_t n = 2;
  while (n < capacity) n <<= 1;
  return sizeof(Header) + n * sizeof(Slot);
}

ReceiveList::Slot* ReceiveList::slots() const {
  return reinterpret_cast<Slot*>(reinterpret_cast<char*>(header_) + sizeof(Header));
}

size_t ReceiveList::capacity() const { return header_ == nullptr ? 0 : header_->capacity; }

ReceiveList ReceiveList::format(void* memory, size_t capacity) {
  size_t n = 2;
  while (n < capacity) n <<= 1;
  auto* h = new (memory) Header{};
  h->capacity = n;
  ReceiveList list(h);
  for (uint64_t i = 0; i < n; ++i) __atomic_store_n(&list.slots()[i].seq, i, __ATOMIC_RELAXED);
  __atomic_store_n(&h->magic, kMagic, __ATOMIC_RELEASE);
  return list;
}

Result<ReceiveList> ReceiveList::attach(void* memory, size_t bytes) {
  auto* h = static_cast<Header*>(memory);
  if (bytes < sizeof(Header) || __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != kMagic ||
      bytes_for(h->capacity) != bytes) {
    return Status(StatusCode::kProtocolError,
                  "pciddc LMR: the memory at " + std::to_string(reinterpret_cast<uintptr_t>(memory)) +
                      " (" + std::to_string(bytes) + " bytes) holds no receive list of that size");
  }
  return ReceiveList(h);
}

bool ReceiveList::append(uint32_t src_pe, uint32_t id) {
  uint64_t mask = header_->capacity - 1;
  uint64_t pos = __atomic_load_n(&header_->tail, __ATOMIC_RELAXED);
  for (;;) {
    Slot& s = slots()[pos & mask];
    uint64_t seq = __atomic_load_n(&s.seq, __ATOMIC_ACQUIRE);
    if (seq == pos) {
      if (__atomic_compare_exchange_n(&header_->tail, &pos, pos + 1, true, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
        s.src_pe = src_pe;
        s.id = id;
        __atomic_store_n(&s.seq, pos + 1, __ATOMIC_RELEASE);
        return true;
      }
    } else if (seq < pos) {
      return false;  // the owner has not consumed this slot's previous round: full
    } else {
      pos = __atomic_load_n(&header_->tail, __ATOMIC_RELAXED);
    }
  }
}

size_t ReceiveList::flush(std::vector<LmrEntry>* out) {
  uint64_t cap = header_->capacity, mask = cap - 1;
  uint64_t head = header_->head;
  size_t n = 0;
  for (;;) {
    Slot& s = slots()[head & mask];
    if (__atomic_load_n(&s.seq, __ATOMIC_ACQUIRE) != head + 1) break;
    out->push_back(LmrEntry{s.src_pe, s.id});
    __atomic_store_n(&s.seq, head + cap, __ATOMIC_RELEASE);  // free for the next round
    ++head;
    ++n;
  }
  __atomic_store_n(&header_->head, head, __ATOMIC_RELAXED);
  return n;
}

}  // namespace gasket::backend::pciddc
