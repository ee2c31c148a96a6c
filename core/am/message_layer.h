// Active messages: a handler id and a payload delivered to a handler on the target PE. Handlers
// are registered by id (core/am/emulated_rma.h uses kFirstCoreHandler.., MPI takes ids from
// kFirstClientHandler on). Incoming messages are copied out of the transport at once (freeing
// its buffers and credits) and handlers run from progress() — one at a time, never nested: a
// handler that sends while the target is out of credits only drains, it does not dispatch. A
// receiver (register_receiver) gets the transport's bytes instead, as they arrive, and copies
// what it keeps itself (gasket::am: one copy per message instead of two).
//
// Two transports, chosen once at init by create_message_layer():
//  - MailboxRings: per-peer rings in the target's internal segment over the backend's put+notify
//    (the seed's CTRL queues): one writer per ring, credits piggybacked on every message, an
//    explicit credit (a notifying 8-byte write, no ring slot) once half a ring is unreturned.
//  - NativeMessages: the backend's own ActiveMessages capability.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "core/base/status.h"
#include "core/config/config.h"

namespace gasket::core::am {

using HandlerId = uint16_t;
constexpr HandlerId kMaxHandlers = 256;
constexpr HandlerId kFirstCoreHandler = 1;     // emulated get/atomics
constexpr HandlerId kFirstClientHandler = 16;  // free for MPI and other clients
using Handler = std::function<void(int src_pe, const void* payload, size_t len)>;
// Waits until `ready` holds, serving incoming traffic meanwhile (the core's waiting policy: spin,
// then nap until input or a ring, or yield): gasket::poll in the runtime.
using WaitUntil = std::function<void(const std::function<bool()>& ready)>;

// Where everything the mailboxes need lives in a PE's internal segment (from `base_offset` on).
struct MailboxLayout {
  int n_pes = 1;
  size_t slots = 32;        // per ring: the credits of one sender
  size_t slot_bytes = 256;  // header + payload
  size_t bounce_bytes = 64 << 10;
  size_t zones = 4;          // of bounce_bytes, per kind: a pool, not one per PE of the job
  uint64_t base_offset = 0;  // of the region in the internal segment

  static Result<MailboxLayout> from_config(const config::Config& cfg, int n_pes, uint64_t base_offset);
  // Offsets from the start of the internal segment.
  uint64_t credit_offset(int writer) const { return base_offset + 64 * static_cast<uint64_t>(writer); }
  uint64_t ring_offset(int sender) const {
    return base_offset + 64 * static_cast<uint64_t>(n_pes) + static_cast<uint64_t>(sender) * slots * slot_bytes;
  }
  // Where the data of this PE's own emulated gets (and its service calls' answers) land: zone
  // `zone` of its pool, claimed per operation (EmulatedRma::get).
  uint64_t get_zone_offset(size_t zone) const { return ring_offset(n_pes) + zone * bounce_bytes; }
  // Where a sender's packed blocks (or service input) land before this PE scatters them: zone
  // `zone` of the pool its peers claim per operation (EmulatedRma::put_blocks).
  uint64_t scatter_zone_offset(size_t zone) const { return get_zone_offset(zones) + zone * bounce_bytes; }
  size_t bytes() const { return static_cast<size_t>(scatter_zone_offset(zones) - base_offset); }
};

class MessageLayer {
 public:
  virtual ~MessageLayer() = default;
  void register_handler(HandlerId id, Handler handler);
  // Like register_handler, but `receiver` runs as each message arrives (from the backend's
  // progress or notify delivery), on the transport's own bytes, valid only during the call: no
  // copy. It must not wait, nor send through this layer with send().
  void register_receiver(HandlerId id, Handler receiver);
  // Delivers `payload` to handler `id` on `pe`; waits (progressing) while out of credits.
  virtual Status send(int pe, HandlerId id, const void* payload, size_t len) = 0;
  // Like send, but never waits: `*sent` false when the channel to `pe` has no room now (no
  // credit); nothing was sent then, and the caller retries after progress (MPI's non-blocking
  // sends queue such packets rather than wait for a receiver that may not be calling).
  virtual Status try_send(int pe, HandlerId id, const void* payload, size_t len, bool* sent) = 0;
  virtual size_t max_payload() const = 0;
  // Messages with a body the transport writes straight to where the target's placement for `id`
  // says (set_placement), before the message is delivered: 0 when the transport cannot (mailboxes).
  using Placement = backend::ActiveMessages::Placement;
  virtual size_t max_payload_with_body() const { return 0; }
  virtual void set_placement(HandlerId id, Placement place) { (void)id, (void)place; }
  virtual Status send_with_body(int pe, HandlerId id, const void* payload, size_t len, const void* body,
                                size_t body_len);
  virtual std::string describe() const = 0;
  // Runs the handlers of messages received so far (not when already inside a handler).
  void progress();
  // Bytes of handler `id`'s messages this layer copied on receipt (none for a receiver's).
  uint64_t copied_bytes(HandlerId id) const { return id < kMaxHandlers ? copied_[id].load(std::memory_order_relaxed) : 0; }

 protected:
  // Copies a received message for dispatch; ends the job when no handler has `id`.
  void enqueue(int src_pe, HandlerId id, const void* payload, size_t len);

 private:
  struct Pending {
    int src_pe;
    HandlerId id;
    std::vector<char> payload;
  };
  std::vector<Handler> handlers_ = std::vector<Handler>(kMaxHandlers);
  std::vector<Handler> receivers_ = std::vector<Handler>(kMaxHandlers);
  std::unique_ptr<std::atomic<uint64_t>[]> copied_{new std::atomic<uint64_t>[kMaxHandlers]()};
  std::mutex pending_mutex_;
  std::deque<Pending> pending_;
  // pending_.size(), read by progress() without the lock: an idle progress (every poll of a wait,
  // every fetching atomic on a backend path) is one load, not an exchange and a lock.
  std::atomic<size_t> queued_{0};
  std::atomic<bool> dispatching_{false};
};

struct MailboxStats {
  uint64_t sent = 0, received = 0, starved_sends = 0, explicit_credits = 0;
};

class MailboxRings final : public MessageLayer {
 public:
  // `region` is this PE's copy of the internal segment (base of segment `segment`).
  MailboxRings(backend::Backend& backend, backend::RemoteNotify& notify, backend::SegmentId segment,
               char* internal_base, const MailboxLayout& layout, int my_pe, WaitUntil wait_until);
  Status send(int pe, HandlerId id, const void* payload, size_t len) override;
  Status try_send(int pe, HandlerId id, const void* payload, size_t len, bool* sent) override;
  size_t max_payload() const override;
  std::string describe() const override;
  MailboxStats stats() const;

  // The notify handler installed on the backend: (source PE, 24-bit id).
  void on_notify(int src_pe, uint32_t id);

 private:
  struct SlotHeader;
  backend::Backend& backend_;
  backend::RemoteNotify& notify_;
  backend::SegmentId segment_;
  char* base_;
  MailboxLayout layout_;
  int my_pe_;
  WaitUntil wait_until_;
  std::mutex send_mutex_;
  std::vector<uint64_t> sent_;                       // per target, under send_mutex_
  std::unique_ptr<std::atomic<uint64_t>[]> acked_;   // per target: its consumption of my ring
  std::unique_ptr<std::atomic<uint64_t>[]> received_;       // per sender: messages consumed
  std::unique_ptr<std::atomic<uint64_t>[]> credit_returned_;  // per sender: last count returned
  std::vector<char> out_;  // slot being built, under send_mutex_
  std::atomic<uint64_t> starved_sends_{0}, explicit_credits_{0}, sent_total_{0}, received_total_{0};
};

class NativeMessages final : public MessageLayer {
 public:
  explicit NativeMessages(backend::ActiveMessages& am);
  Status send(int pe, HandlerId id, const void* payload, size_t len) override;
  Status try_send(int pe, HandlerId id, const void* payload, size_t len, bool* sent) override;
  size_t max_payload() const override;
  std::string describe() const override;
  size_t max_payload_with_body() const override;
  void set_placement(HandlerId id, Placement place) override;
  Status send_with_body(int pe, HandlerId id, const void* payload, size_t len, const void* body,
                        size_t body_len) override;

 private:
  // The message with its header in front (the handler id), for the backend.
  // At most `limit` payload bytes.
  Status framed(int pe, HandlerId id, const void* payload, size_t len, size_t limit, std::vector<char>* out) const;
  backend::ActiveMessages& am_;
  std::vector<Placement> placements_ = std::vector<Placement>(kMaxHandlers);
  std::atomic<uint64_t> sent_{0};
};

// The native transport when the backend has one, else mailboxes over ordered put+notify; an
// error when it has neither (the core then cannot emulate what the backend lacks).
Result<std::unique_ptr<MessageLayer>> create_message_layer(backend::Backend& backend, backend::SegmentId segment,
                                                           char* internal_base, const MailboxLayout& layout,
                                                           int my_pe, WaitUntil wait_until);

}  // namespace gasket::core::am
