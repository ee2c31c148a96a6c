#include "core/am/message_layer.h"

#include <cstring>

#include "core/base/log.h"

namespace gasket::core::am {

namespace {
constexpr uint32_t kCreditBit = 1u << 23;  // notify id: an explicit credit, not a ring message
constexpr uint32_t kSeqMask = kCreditBit - 1;
constexpr size_t kNativeHeaderBytes = 8;
}  // namespace

// ---- layout ----

Result<MailboxLayout> MailboxLayout::from_config(const config::Config& cfg, int n_pes, uint64_t base_offset) {
  using config::Knob;
  MailboxLayout l;
  l.n_pes = n_pes;
  l.base_offset = base_offset;
  int64_t slots = cfg.integer(Knob::AM_SLOTS);
  l.slot_bytes = cfg.size(Knob::AM_SLOT_BYTES);
  l.bounce_bytes = cfg.size(Knob::AM_GET_BOUNCE);
  if (slots < 2 || slots > 4096 || (slots & (slots - 1)) != 0) {
    return invalid_argument("gasket::init: GASKET_AM_SLOTS=" + std::to_string(slots) +
                            " must be a power of two in 2..4096");
  }
  l.slots = static_cast<size_t>(slots);
  if (l.slot_bytes < 64 || l.slot_bytes > (64 << 10) || l.slot_bytes % 64 != 0) {
    return invalid_argument("gasket::init: GASKET_AM_SLOT_BYTES=" + std::to_string(l.slot_bytes) +
                            " must be a multiple of 64 in 64..64K");
  }
  if (l.bounce_bytes < 4096 || l.bounce_bytes % 4096 != 0 || l.bounce_bytes > (size_t{64} << 20)) {
    return invalid_argument("gasket::init: GASKET_AM_GET_BOUNCE=" + std::to_string(l.bounce_bytes) +
                            " must be a multiple of 4K in 4K..64M");
  }
  int64_t zones = cfg.integer(Knob::AM_ZONES);
  if (zones < 1 || zones > 64) {
    return invalid_argument("gasket::init: GASKET_AM_ZONES=" + std::to_string(zones) + " must be in 1..64");
  }
  l.zones = static_cast<size_t>(zones);
  return l;
}

// ---- dispatch ----

void MessageLayer::register_handler(HandlerId id, Handler handler) {
  if (id == 0 || id >= kMaxHandlers) log::fatal("am::register_handler: handler id %u is not in 1..%u", id, kMaxHandlers - 1);
  handlers_[id] = std::move(handler);
}

void MessageLayer::register_receiver(HandlerId id, Handler receiver) {
  if (id == 0 || id >= kMaxHandlers) log::fatal("am::register_receiver: handler id %u is not in 1..%u", id, kMaxHandlers - 1);
  receivers_[id] = std::move(receiver);
}

Status MessageLayer::send_with_body(int pe, HandlerId id, const void*, size_t, const void*, size_t body_len) {
  return invalid_argument("am::send_with_body: " + describe() + " carries no body (" + std::to_string(body_len) +
                          " bytes to PE " + std::to_string(pe) + ", handler " + std::to_string(id) + ")");
}

void MessageLayer::enqueue(int src_pe, HandlerId id, const void* payload, size_t len) {
  if (id < kMaxHandlers && receivers_[id]) {
    receivers_[id](src_pe, payload, len);  // on the transport's bytes: no copy here
    return;
  }
  if (id >= kMaxHandlers || !handlers_[id]) {
    log::fatal("active message from PE %d names handler %u, which is not registered here", src_pe, id);
  }
  copied_[id].fetch_add(len, std::memory_order_relaxed);
  Pending p{src_pe, id, std::vector<char>(static_cast<const char*>(payload), static_cast<const char*>(payload) + len)};
  std::lock_guard<std::mutex> lock(pending_mutex_);
  pending_.push_back(std::move(p));
  queued_.fetch_add(1, std::memory_order_release);
}

void MessageLayer::progress() {
  if (queued_.load(std::memory_order_acquire) == 0) return;
  if (dispatching_.exchange(true, std::memory_order_acquire)) return;
  for (;;) {
    Pending p;
    {
      std::lock_guard<std::mutex> lock(pending_mutex_);
      if (pending_.empty()) break;
      p = std::move(pending_.front());
      pending_.pop_front();
      queued_.fetch_sub(1, std::memory_order_relaxed);
    }
    handlers_[p.id](p.src_pe, p.payload.data(), p.payload.size());
  }
  dispatching_.store(false, std::memory_order_release);
}

// ---- mailbox rings ----

struct MailboxRings::SlotHeader {
  uint64_t seq;  // the sender's message number on this ring
  uint64_t ack;  // piggybacked credit: messages of the reverse ring the sender has consumed
  uint32_t len;
  uint16_t handler;
  uint16_t reserved;
  uint64_t pad;
};

MailboxRings::MailboxRings(backend::Backend& backend, backend::RemoteNotify& notify, backend::SegmentId segment,
                           char* internal_base, const MailboxLayout& layout, int my_pe, WaitUntil wait_until)
    : backend_(backend),
      notify_(notify),
      segment_(segment),
      base_(internal_base),
      layout_(layout),
      my_pe_(my_pe),
      wait_until_(std::move(wait_until)),
      sent_(static_cast<size_t>(layout.n_pes), 0),
      acked_(new std::atomic<uint64_t>[static_cast<size_t>(layout.n_pes)]),
      received_(new std::atomic<uint64_t>[static_cast<size_t>(layout.n_pes)]),
      credit_returned_(new std::atomic<uint64_t>[static_cast<size_t>(layout.n_pes)]),
      out_(layout.slot_bytes) {
  for (int i = 0; i < layout.n_pes; ++i) {
    acked_[i] = 0;
    received_[i] = 0;
    credit_returned_[i] = 0;
  }
  notify_.set_handler([this](int src, uint32_t id) { on_notify(src, id); });
}

size_t MailboxRings::max_payload() const {
  static_assert(sizeof(SlotHeader) == 32, "slot header layout");
  return layout_.slot_bytes - sizeof(SlotHeader);
}

Status MailboxRings::try_send(int pe, HandlerId id, const void* payload, size_t len, bool* sent) {
  *sent = false;
  if (len > max_payload()) {
    return invalid_argument("am::send: PE " + std::to_string(my_pe_) + ": a " + std::to_string(len) +
                            "-byte message to PE " + std::to_string(pe) + " exceeds the mailbox slot payload of " +
                            std::to_string(max_payload()) + " bytes (GASKET_AM_SLOT_BYTES)");
  }
  std::lock_guard<std::mutex> lock(send_mutex_);
  uint64_t seq = sent_[static_cast<size_t>(pe)];
  if (seq - acked_[pe].load(std::memory_order_acquire) >= layout_.slots) return Status::ok();
  SlotHeader h{seq, received_[pe].load(std::memory_order_relaxed), static_cast<uint32_t>(len), id, 0, 0};
  std::memcpy(out_.data(), &h, sizeof h);
  if (len > 0) std::memcpy(out_.data() + sizeof h, payload, len);
  uint64_t offset = layout_.ring_offset(my_pe_) + (seq % layout_.slots) * layout_.slot_bytes;
  Status st = notify_.put_notify(pe, backend::RemoteAddress{segment_, offset}, out_.data(), sizeof h + len,
                                 static_cast<uint32_t>(seq) & kSeqMask);
  if (!st.is_ok()) return st;
  sent_[static_cast<size_t>(pe)] = seq + 1;
  // The ack just travelled: the explicit credit is due only after another half ring.
  uint64_t prev = credit_returned_[pe].load(std::memory_order_relaxed);
  while (prev < h.ack && !credit_returned_[pe].compare_exchange_weak(prev, h.ack)) {
  }
  ++sent_total_;
  *sent = true;
  return Status::ok();
}

Status MailboxRings::send(int pe, HandlerId id, const void* payload, size_t len) {
  bool starved = false;
  for (;;) {
    bool sent = false;
    Status st = try_send(pe, id, payload, len, &sent);
    if (!st.is_ok() || sent) return st;
    if (!starved) ++starved_sends_;
    starved = true;
    // Serves our own rings too meanwhile: the target may be waiting on us.
    wait_until_([&] {
      std::lock_guard<std::mutex> lock(send_mutex_);
      return sent_[static_cast<size_t>(pe)] - acked_[pe].load(std::memory_order_acquire) < layout_.slots;
    });
  }
}

void MailboxRings::on_notify(int src, uint32_t id) {
  if (src < 0 || src >= layout_.n_pes) log::fatal("am: notification from PE %d, which is not in this job", src);
  if ((id & kCreditBit) != 0) {
    uint64_t credit = __atomic_load_n(reinterpret_cast<uint64_t*>(base_ + layout_.credit_offset(src)), __ATOMIC_ACQUIRE);
    uint64_t prev = acked_[src].load(std::memory_order_relaxed);
    while (prev < credit && !acked_[src].compare_exchange_weak(prev, credit)) {
    }
    return;
  }
  uint64_t expect = received_[src].load(std::memory_order_relaxed);
  if ((id & kSeqMask) != (expect & kSeqMask)) {
    log::fatal("am: PE %d's mailbox message id %u arrived where id %llu was due (lost or reordered message)", src, id,
               static_cast<unsigned long long>(expect & kSeqMask));
  }
  const char* slot = base_ + layout_.ring_offset(src) + (expect % layout_.slots) * layout_.slot_bytes;
  SlotHeader h;
  std::memcpy(&h, slot, sizeof h);
  if (h.seq != expect || h.len > max_payload()) {
    log::fatal("am: PE %d's mailbox slot holds message %llu of %u bytes where message %llu (<= %zu bytes) was due", src,
               static_cast<unsigned long long>(h.seq), h.len, static_cast<unsigned long long>(expect), max_payload());
  }
  uint64_t prev = acked_[src].load(std::memory_order_relaxed);
  while (prev < h.ack && !acked_[src].compare_exchange_weak(prev, h.ack)) {
  }
  enqueue(src, h.handler, slot + sizeof h, h.len);  // copied: the slot is free again
  uint64_t consumed = expect + 1;
  received_[src].store(consumed, std::memory_order_release);
  ++received_total_;
  // Explicit credit only when the reverse traffic has not carried it for half a ring.
  if (consumed - credit_returned_[src].load(std::memory_order_relaxed) >= layout_.slots / 2) {
    credit_returned_[src].store(consumed, std::memory_order_relaxed);
    ++explicit_credits_;
    Status st = notify_.put_notify(src, backend::RemoteAddress{segment_, layout_.credit_offset(my_pe_)}, &consumed,
                                   sizeof consumed, kCreditBit | (static_cast<uint32_t>(consumed) & kSeqMask));
    if (!st.is_ok()) log::fatal("am: returning credits to PE %d failed: %s", src, st.message().c_str());
  }
}

MailboxStats MailboxRings::stats() const {
  return MailboxStats{sent_total_.load(), received_total_.load(), starved_sends_.load(), explicit_credits_.load()};
}

std::string MailboxRings::describe() const {
  MailboxStats s = stats();
  return "mailbox rings: " + std::to_string(layout_.slots) + " slots of " + std::to_string(layout_.slot_bytes) +
         " bytes per peer; " + std::to_string(s.sent) + " sent, " + std::to_string(s.received) + " received, " +
         std::to_string(s.starved_sends) + " sends waited for credits, " + std::to_string(s.explicit_credits) +
         " explicit credits";
}

// ---- native ----

NativeMessages::NativeMessages(backend::ActiveMessages& am) : am_(am) {
  am_.set_handler([this](int src, const void* payload, size_t len) {
    if (len < kNativeHeaderBytes) log::fatal("am: a %zu-byte active message from PE %d has no header", len, src);
    uint16_t id;
    std::memcpy(&id, payload, sizeof id);
    enqueue(src, id, static_cast<const char*>(payload) + kNativeHeaderBytes, len - kNativeHeaderBytes);
  });
}

size_t NativeMessages::max_payload() const { return am_.max_payload() - kNativeHeaderBytes; }

size_t NativeMessages::max_payload_with_body() const {
  size_t most = am_.max_payload_with_body();
  return most > kNativeHeaderBytes ? most - kNativeHeaderBytes : 0;
}

void NativeMessages::set_placement(HandlerId id, Placement place) {
  if (id == 0 || id >= kMaxHandlers) log::fatal("am::set_placement: handler id %u is not in 1..%u", id, kMaxHandlers - 1);
  placements_[id] = std::move(place);
  am_.set_placement([this](int src, const void* payload, size_t len, size_t body_len) -> void* {
    if (len < kNativeHeaderBytes) log::fatal("am: a %zu-byte active message with a body from PE %d has no header", len, src);
    uint16_t handler;
    std::memcpy(&handler, payload, sizeof handler);
    if (handler >= kMaxHandlers || !placements_[handler]) {
      log::fatal("am: PE %d sent a %zu-byte body for handler %u, which places no bodies here", src, body_len, handler);
    }
    return placements_[handler](src, static_cast<const char*>(payload) + kNativeHeaderBytes, len - kNativeHeaderBytes,
                                body_len);
  });
}

Status NativeMessages::send_with_body(int pe, HandlerId id, const void* payload, size_t len, const void* body,
                                      size_t body_len) {
  std::vector<char> buf;
  Status st = framed(pe, id, payload, len, max_payload_with_body(), &buf);
  if (!st.is_ok()) return st;
  ++sent_;
  return am_.send_with_body(pe, buf.data(), buf.size(), body, body_len);
}

Status NativeMessages::framed(int pe, HandlerId id, const void* payload, size_t len, size_t limit,
                              std::vector<char>* out) const {
  if (len > limit) {
    return invalid_argument("am::send: a " + std::to_string(len) + "-byte message to PE " + std::to_string(pe) +
                            " exceeds the backend's active-message payload of " + std::to_string(limit) + " bytes");
  }
  out->resize(kNativeHeaderBytes + len);
  std::memcpy(out->data(), &id, sizeof id);
  if (len > 0) std::memcpy(out->data() + kNativeHeaderBytes, payload, len);
  return Status::ok();
}

Status NativeMessages::send(int pe, HandlerId id, const void* payload, size_t len) {
  std::vector<char> buf;
  Status st = framed(pe, id, payload, len, max_payload(), &buf);
  if (!st.is_ok()) return st;
  ++sent_;
  return am_.send(pe, buf.data(), buf.size());
}

Status NativeMessages::try_send(int pe, HandlerId id, const void* payload, size_t len, bool* sent) {
  *sent = false;
  std::vector<char> buf;
  Status st = framed(pe, id, payload, len, max_payload(), &buf);
  if (!st.is_ok()) return st;
  st = am_.try_send(pe, buf.data(), buf.size(), sent);
  if (*sent) ++sent_;
  return st;
}

std::string NativeMessages::describe() const {
  return "native active messages: " + std::to_string(sent_.load()) + " sent";
}

Result<std::unique_ptr<MessageLayer>> create_message_layer(backend::Backend& backend, backend::SegmentId segment,
                                                           char* internal_base, const MailboxLayout& layout,
                                                           int my_pe, WaitUntil wait_until) {
  if (backend::ActiveMessages* am = backend.active_messages()) {
    return std::unique_ptr<MessageLayer>(new NativeMessages(*am));
  }
  backend::RemoteNotify* notify = backend.remote_notify();
  if (notify == nullptr || !backend.limits().ordered_puts) {
    return Status(StatusCode::kUnavailable, std::string("gasket::init: backend ") + backend.name() +
                                                " has neither active messages nor ordered put+notify, so the core "
                                                "cannot build active messages (nor emulate get/atomics) on it");
  }
  return std::unique_ptr<MessageLayer>(
      new MailboxRings(backend, *notify, segment, internal_base, layout, my_pe, std::move(wait_until)));
}

}  // namespace gasket::core::am
