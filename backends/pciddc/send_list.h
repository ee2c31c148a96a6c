// The send list (LME, "Liste des Messages à Émettre") of the PCI-DDC model: a ring of entries
// {24-bit message id, destination PE, remote (segment, offset), local source, length, flags}.
// The poster appends the entries of one message atomically and consecutively; the NIC engine
// takes them in order (CUR chases NEW); a flush acknowledges every completed entry at once and
// reports the ids of those that asked for a send notification (ns). Entry slots are reusable only
// once acknowledged, as on the board.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "backends/backend.h"
#include "core/base/status.h"

namespace gasket::backend::pciddc {

constexpr size_t kMaxEntryBytes = size_t{64} << 10;  // one LME entry moves at most 64 KiB
constexpr uint32_t kMessageIdBits = 24;
constexpr uint32_t kMaxMessageId = (1u << kMessageIdBits) - 1;

enum EntryFlags : uint8_t {
  kNotifySender = 1,    // ns: report a send completion for this entry
  kNotifyReceiver = 2,  // nr: append the id to the target's LMR once the bytes landed
  kLastOfMessage = 4,   // lmp: the last entry of its message
};

struct SendEntry {
  uint32_t id = 0;  // 24 bits
  uint8_t flags = 0;
  int dst_pe = 0;
  RemoteAddress dst{0, 0};
  const void* src = nullptr;
  uint32_t length = 0;  // <= kMaxEntryBytes
};

// Message ids allocated by the poster: 0..kMaxMessageId, then wrapping to 0.
class MessageIds {
 public:
  explicit MessageIds(uint32_t first = 0) : next_(first & kMaxMessageId) {}
  uint32_t next() {
    uint32_t id = next_;
    next_ = (next_ + 1) & kMaxMessageId;
    return id;
  }

 private:
  uint32_t next_;
};

// The entries of one write of `length` bytes: split into <= max_entry-byte pieces; only the last
// carries nr/ns (when asked) and the last-of-message flag. A zero-length write is one empty entry
// (a pure notification).
std::vector<SendEntry> build_message(uint32_t id, int dst_pe, RemoteAddress dst, const void* src,
                                     size_t length, bool notify_receiver, bool notify_sender,
                                     size_t max_entry = kMaxEntryBytes);

class SendList {
 public:
  // `capacity` is rounded up to a power of two (at least 2).
  explicit SendList(size_t capacity);

  size_t capacity() const { return entries_.size(); }
  // Entries posted and not yet acknowledged by a flush.
  size_t in_use() const { return static_cast<size_t>(new_ - ack_); }
  size_t pending() const { return static_cast<size_t>(new_ - cur_); }  // not yet taken by the engine

  // Posts `count` entries as one block. Fails without posting anything when the ring lacks room
  // (flush first) or when a message could never fit (count > capacity), or an entry is invalid.
  Status post(const SendEntry* entries, size_t count);
  // Engine side: the entry at CUR, or null when the engine has caught up. complete() retires it.
  const SendEntry* current() const;
  void complete();
  // Acknowledges every completed entry at once (they become free); appends the ids of those with
  // ns set to `notified` (may be null) and returns how many entries were acknowledged.
  size_t flush(std::vector<uint32_t>* notified);

 private:
  std::vector<SendEntry> entries_;
  uint64_t mask_ = 0;
  uint64_t new_ = 0;  // LME_NEW: next slot the poster fills
  uint64_t cur_ = 0;  // LME_CUR: next slot the engine sends
  uint64_t ack_ = 0;  // first completed slot not yet acknowledged by a flush
};

}  // namespace gasket::backend::pciddc
