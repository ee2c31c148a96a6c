// Active messages for clients of core/gasket.h (user_messages.h). Each PE's symmetric region
// holds a ring of kSlots slots per sender and a credit word per target; a sender has at most
// kSlots messages unconsumed at a target (credits). Two kinds of route, fixed per peer at the
// first registration:
//  - a peer whose memory is mapped here (self and same-node peers on the direct path; peers whose
//    segments the backend maps, as ucx over shared memory does): the slot is stored into the
//    peer's ring through the mapping, then its sequence word by a release store, which the
//    target's progress polls; credits return by a release store into the sender's credit word.
//    Measured faster than the backend's own messages there (core/am/README.md).
//  - a peer reached through the backend, its memory not mapped here: the message (header,
//    arguments, medium body) is one message of the core's MessageLayer — the backend's native
//    active messages (ucx) or the mailbox rings over put+notify (pciddc). A slot larger than the
//    layer's payload is put into the ring first and the message carries the header only.
//    Credits return as header-only messages. The layer hands each message over as it arrives
//    (a receiver): it is copied once, into this module's queue.
// A long body is put to its destination before the message (fenced unless it was a store into a
// mapping), or, where the layer carries bodies (ucx's native messages), travels with the message
// and is written to its destination by the transport before the message is delivered. The
// target runs the handler on the message in place, counts it consumed, and returns credit every
// half ring.
#include "core/am/user_messages.h"

#include <atomic>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/am/message_layer.h"
#include "core/base/log.h"
#include "core/gasket.h"
#include "core/runtime.h"

namespace gasket::am {

namespace detail {
struct CompletionState {
  std::atomic<bool> done{false};
  std::function<void()> callback;
};
}  // namespace detail

namespace {

constexpr size_t kSlots = 32;  // credits per sender; even (credits return every half ring)
constexpr size_t kSlotBytes = 2048;
constexpr uint16_t kAckHandler = 0;  // internal: a handler with a completion has run
constexpr uint8_t kAckWanted = 1;
constexpr uint8_t kInSlot = 2;  // by the message layer: the payload was put into the ring slot
constexpr uint8_t kCredit = 4;  // by the message layer: `seq` is the receiver's consumed count
// The MessageLayer handler that carries these messages (a core id: core handlers are 1..15,
// emulated get/atomics take the first nine).
constexpr core::am::HandlerId kUserMessagesHandler = core::am::kFirstCoreHandler + 12;
static_assert(kUserMessagesHandler < core::am::kFirstClientHandler, "a core handler id");

struct SlotHeader {
  uint64_t seq;  // message number + 1 from this sender; on the direct path set last, atomically
  uint64_t dest_offset;  // long: where the body is (segment and offset: each PE maps it elsewhere)
  uint64_t op;  // with kAckWanted: the sender's completion to acknowledge
  uint32_t signature;
  uint32_t body_len;
  uint16_t handler;
  uint8_t kind;
  uint8_t flags;
  uint32_t args_len;
  uint32_t dest_segment;
  uint32_t reserved;
};
static_assert(sizeof(SlotHeader) == 48, "slot header layout");
constexpr size_t kSlotPayload = kSlotBytes - sizeof(SlotHeader);
constexpr size_t kMaxMedium = kSlotPayload - detail::kMaxArgBytes;  // room for any argument tuple

struct Registered {
  Kind kind;
  uint32_t signature;
  size_t args_len;
  detail::Entry entry;
};

// A reply that found no credit: sent from progress, its bytes copied.
struct Queued {
  detail::Outgoing m;
  uint8_t flags;
  uint64_t op;
  std::vector<char> args, body;
};

// A message the layer delivered: its bytes, run by serve().
struct Arrived {
  int source;
  std::vector<char> bytes;
};

struct State {
  int me = 0, n = 0;
  core::am::MessageLayer* layer = nullptr;  // null when no peer is reached through the backend
  std::vector<Route> routes;  // per PE
  std::vector<int> ring_sources;  // PEs whose messages arrive in this PE's rings (route kRing)
  std::vector<char*> mapped_region;  // per PE: its region as mapped here, or null (not route kRing)
  char* region = nullptr;  // symmetric: credit words (n x 8 bytes, padded), then the rings
  size_t rings_offset = 0;
  std::vector<Registered> handlers;
  std::mutex send_mutex;
  std::vector<uint64_t> sent;  // per target, under send_mutex
  std::vector<uint64_t> consumed;  // per sender, by the dispatcher
  std::atomic<bool> dispatching{false};
  std::mutex ops_mutex;
  uint64_t next_op = 1;
  std::unordered_map<uint64_t, std::shared_ptr<detail::CompletionState>> ops;
  std::mutex queue_mutex;
  std::deque<Queued> queued;
  // queued.size(), read by serve() without the lock: an idle progress does not take queue_mutex.
  std::atomic<size_t> queued_count{0};
  std::mutex arrived_mutex;
  std::deque<Arrived> arrived;
  std::atomic<size_t> arrived_count{0};
  std::atomic<uint64_t> delivered{0}, sent_total{0}, sent_by_layer{0}, waited{0}, replies_queued{0},
      bodies_with_message{0}, received_bytes_copied{0};

  uint64_t* credit_word(int target) { return reinterpret_cast<uint64_t*>(region + 8 * static_cast<size_t>(target)); }
  // Where `pe`'s copy of `at` (an address in the region) is mapped here (routes kRing only).
  char* mapped(int pe, char* at) { return mapped_region[static_cast<size_t>(pe)] + (at - region); }
  // Slot `index` of `sender`'s ring (an address in the symmetric region, valid on every PE).
  char* slot(int sender, uint64_t index) {
    return region + rings_offset + (static_cast<size_t>(sender) * kSlots + index % kSlots) * kSlotBytes;
  }
};

State* g_state = nullptr;
thread_local Token* t_handler = nullptr;  // the token of the handler this thread runs
// This thread is writing a message (holding send_mutex): the waits inside put/fence/atomic_set
// must not dispatch, since a handler's reply would take send_mutex again.
thread_local bool t_posting = false;

}  // namespace


// ---- sending ----
namespace {

State& state(const char* call) {
  if (g_state == nullptr) log::fatal("%s: no active-message handler is registered (register them first, on every PE)", call);
  return *g_state;
}

void check_message(const State& s, const detail::Outgoing& m, const char* call) {
  if (m.pe < 0 || m.pe >= s.n) log::fatal("%s: target PE %d is out of range: the job has %d PEs", call, m.pe, s.n);
  if (m.handler == kAckHandler || m.handler >= s.handlers.size()) {
    log::fatal("%s: handler index %u was not registered (%zu registered)", call, m.handler, s.handlers.size() - 1);
  }
  if (m.kind == Kind::kMedium && m.body_len > kMaxMedium) {
    log::fatal("%s: a medium body of %zu bytes to PE %d exceeds the limit of %zu bytes (send it long)", call,
               m.body_len, m.pe, kMaxMedium);
  }
  if (m.body_len > 0 && m.body == nullptr) log::fatal("%s: body of %zu bytes at NULL", call, m.body_len);
}

// Whether a put to `pe` in `seg` is a store of this CPU into a mapping (core/rma.cc: the direct
// path, or memory the backend maps here), which a release store orders.
bool stores_reach(const segments::Segment& seg, int pe) {
  core::Runtime& rt = *core::Runtime::get();
  if (seg.peer_copy(pe) == nullptr) return false;
  return rt.path(pe) == core::Path::kDirect ? seg.file_backed || pe == rt.my_pe() : seg.backend_memory;
}

void send_by_layer(State& s, int pe, const void* bytes, size_t len, const char* call) {
  Status st = s.layer->send(pe, kUserMessagesHandler, bytes, len);
  if (!st.is_ok()) log::fatal("%s: to PE %d: %s", call, pe, st.message().c_str());
}

// Writes message `m` into its slot on m.pe when the ring has credit (else false, with `wait`
// false). Caller holds send_mutex (released while waiting).
bool post(State& s, std::unique_lock<std::mutex>& lock, const detail::Outgoing& m, uint8_t flags, uint64_t op,
          bool wait, const char* call) {
  bool waited = false;
  for (;;) {
    uint64_t index = s.sent[static_cast<size_t>(m.pe)];
    if (index - __atomic_load_n(s.credit_word(m.pe), __ATOMIC_ACQUIRE) < kSlots) break;
    if (!wait) return false;
    if (!waited) s.waited.fetch_add(1, std::memory_order_relaxed);
    waited = true;
    lock.unlock();
    gasket::progress();  // serves this PE's rings, so two PEs flooding each other both advance
    lock.lock();
  }
  uint64_t index = s.sent[static_cast<size_t>(m.pe)];
  char* slot = s.slot(s.me, index);
  t_posting = true;
  const bool long_body = m.kind == Kind::kLong && m.body_len > 0;
  const bool ring = s.routes[static_cast<size_t>(m.pe)] == Route::kRing;
  // The arguments and a medium body are copied once: straight into the target's slot where its
  // ring is mapped here, else into the message for the layer.
  char buffer[kSlotBytes];
  char* out = ring ? s.mapped(m.pe, slot) : buffer;
  SlotHeader h{};
  h.seq = index + 1;
  const segments::Segment* dest_segment = nullptr;
  if (m.kind == Kind::kLong) {
    size_t offset = 0;
    dest_segment = &core::Runtime::get()->translate(m.dest, m.body_len, call, "destination", &offset);
    h.dest_segment = dest_segment->id;
    h.dest_offset = offset;
  }
  h.op = op;
  h.signature = m.signature;
  h.body_len = static_cast<uint32_t>(m.body_len);
  h.handler = m.handler;
  h.kind = static_cast<uint8_t>(m.kind);
  h.flags = flags;
  h.args_len = static_cast<uint32_t>(m.args_len);
  size_t len = sizeof h;
  if (m.args_len > 0) std::memcpy(out + len, m.args, m.args_len);
  len += m.args_len;
  if (m.kind == Kind::kMedium && m.body_len > 0) {
    std::memcpy(out + len, m.body, m.body_len);
    len += m.body_len;
  }
  if (!ring && long_body && len <= s.layer->max_payload_with_body()) {
    // The body travels with the message; the transport writes it to its destination on the
    // target (ucx: rendezvous straight into it) before the message is delivered.
    std::memcpy(buffer, &h, sizeof h);
    Status st = s.layer->send_with_body(m.pe, kUserMessagesHandler, buffer, len, m.body, m.body_len);
    if (!st.is_ok()) log::fatal("%s: to PE %d: %s", call, m.pe, st.message().c_str());
    s.sent_by_layer.fetch_add(1, std::memory_order_relaxed);
    s.bodies_with_message.fetch_add(1, std::memory_order_relaxed);
  } else if (!ring) {
    if (long_body) {
      gasket::put(m.dest, m.body, m.body_len, m.pe, call);
      gasket::fence();  // the body before the message
    }
    if (len > s.layer->max_payload()) {
      // The payload into the slot (free: the credits), ordered before the header's message.
      gasket::put(slot + sizeof h, buffer + sizeof h, len - sizeof h, m.pe, call);
      gasket::fence();
      h.flags |= kInSlot;
      len = sizeof h;
    }
    std::memcpy(buffer, &h, sizeof h);
    send_by_layer(s, m.pe, buffer, len, call);
    s.sent_by_layer.fetch_add(1, std::memory_order_relaxed);
  } else {
    // The target's ring is mapped here: the slot's bytes (its payload already stored), then its
    // sequence word by a release store, ordered after them and after a long body stored into a
    // mapping; a body the backend wrote needs its fence first.
    if (long_body) gasket::put(m.dest, m.body, m.body_len, m.pe, call);
    if (dest_segment != nullptr && !stores_reach(*dest_segment, m.pe)) gasket::fence();
    std::memcpy(out + sizeof(uint64_t), reinterpret_cast<const char*>(&h) + sizeof(uint64_t), sizeof h - sizeof(uint64_t));
    __atomic_store_n(reinterpret_cast<uint64_t*>(out), index + 1, __ATOMIC_RELEASE);
    gasket::detail::ring(m.pe);
  }
  t_posting = false;
  s.sent[static_cast<size_t>(m.pe)] = index + 1;
  s.sent_total.fetch_add(1, std::memory_order_relaxed);
  return true;
}

// A reply (or an acknowledgement): sent now when the ring has credit, else queued with copies of
// its bytes (a handler must not wait, nor may the buffers it names outlive it).
void post_or_queue(State& s, const detail::Outgoing& m, uint8_t flags, uint64_t op, const char* call) {
  {
    std::lock_guard<std::mutex> q(s.queue_mutex);
    if (s.queued.empty()) {
      std::unique_lock<std::mutex> lock(s.send_mutex);
      if (post(s, lock, m, flags, op, false, call)) return;
    }
    Queued e{m, flags, op, std::vector<char>(static_cast<const char*>(m.args), static_cast<const char*>(m.args) + m.args_len),
             std::vector<char>()};
    if (m.body_len > 0) e.body.assign(static_cast<const char*>(m.body), static_cast<const char*>(m.body) + m.body_len);
    s.queued.push_back(std::move(e));
    s.queued_count.store(s.queued.size(), std::memory_order_release);
  }
  s.replies_queued.fetch_add(1, std::memory_order_relaxed);
}

// Sends queued replies, in order, while their rings have credit.
void flush_queued(State& s) {
  std::lock_guard<std::mutex> q(s.queue_mutex);
  while (!s.queued.empty()) {
    Queued& e = s.queued.front();
    detail::Outgoing m = e.m;
    m.args = e.args.data();
    m.body = e.body.data();
    std::unique_lock<std::mutex> lock(s.send_mutex);
    if (!post(s, lock, m, e.flags, e.op, false, "gasket::am (queued reply)")) return;
    s.queued.pop_front();
    s.queued_count.store(s.queued.size(), std::memory_order_release);
  }
}

// ---- receiving ----
// Where long message `h` from `source` names its body: its segment and offset here.
char* long_destination(int source, const SlotHeader& h) {
  const segments::Segment* seg = core::Runtime::get()->segments().find(h.dest_segment);
  if (seg == nullptr || h.dest_offset > seg->size || h.body_len > seg->size - h.dest_offset) {
    log::fatal("gasket::am: a long message from PE %d names segment %u offset %llu (%u bytes), which is not here",
               source, h.dest_segment, static_cast<unsigned long long>(h.dest_offset), h.body_len);
  }
  return seg->base + h.dest_offset;
}

void run_handler(State& s, int source, const SlotHeader& h, char* payload) {
  if (h.handler >= s.handlers.size()) {
    log::fatal("gasket::am: a message from PE %d names handler %u, but only %zu are registered here (every PE "
               "registers the same handlers in the same order)", source, h.handler, s.handlers.size() - 1);
  }
  const Registered& r = s.handlers[h.handler];
  if (static_cast<uint8_t>(r.kind) != h.kind || r.signature != h.signature || r.args_len != h.args_len) {
    log::fatal("gasket::am: a message from PE %d for handler %u does not match its registration here (kind %u, "
               "%u argument bytes; registered: kind %u, %zu argument bytes, or other argument types)",
               source, h.handler, h.kind, h.args_len, static_cast<unsigned>(r.kind), r.args_len);
  }
  void* body = nullptr;
  if (h.kind == static_cast<uint8_t>(Kind::kMedium)) body = payload + h.args_len;
  if (h.kind == static_cast<uint8_t>(Kind::kLong)) body = long_destination(source, h);
  Token token(source);
  t_handler = &token;
  r.entry(token, payload, body, h.body_len);
  token.live = false;
  t_handler = nullptr;
  s.delivered.fetch_add(1, std::memory_order_relaxed);
  if ((h.flags & kAckWanted) != 0) {
    detail::Outgoing ack{source, kAckHandler, Kind::kShort, 0, nullptr, 0, nullptr, 0, nullptr};
    post_or_queue(s, ack, 0, h.op, "gasket::am (acknowledgement)");
  }
}

void complete(State& s, uint64_t op) {
  std::shared_ptr<detail::CompletionState> c;
  {
    std::lock_guard<std::mutex> lock(s.ops_mutex);
    auto it = s.ops.find(op);
    if (it == s.ops.end()) log::fatal("gasket::am: an acknowledgement names completion %llu, which is not pending", static_cast<unsigned long long>(op));
    c = std::move(it->second);
    s.ops.erase(it);
  }
  if (c->callback) {
    Token token(s.me);  // a callback runs under the handlers' rules (no blocking)
    t_handler = &token;
    c->callback();
    t_handler = nullptr;
  }
  c->done.store(true, std::memory_order_release);
}

// Runs message `h` from `source` (its arguments and medium body at `payload`), counts it consumed
// and returns credit every half ring. Under the dispatch flag.
void consume(State& s, int source, const SlotHeader& h, char* payload) {
  if (h.handler == kAckHandler) {
    complete(s, h.op);
  } else {
    run_handler(s, source, h, payload);
  }
  uint64_t consumed = ++s.consumed[static_cast<size_t>(source)];
  if (consumed % (kSlots / 2) != 0) return;
  if (s.routes[static_cast<size_t>(source)] == Route::kRing) {
    __atomic_store_n(reinterpret_cast<uint64_t*>(s.mapped(source, reinterpret_cast<char*>(s.credit_word(s.me)))),
                     consumed, __ATOMIC_RELEASE);
    gasket::detail::ring(source);
  } else {
    SlotHeader credit{};
    credit.seq = consumed;
    credit.flags = kCredit;
    send_by_layer(s, source, &credit, sizeof credit, "gasket::am (credit)");
  }
}

// A message the layer delivered: in order
// per sender, its payload inline or in the ring slot the sender put it into.
void consume_from_layer(State& s, int source, char* bytes, size_t len) {
  SlotHeader h;
  std::memcpy(&h, bytes, sizeof h);
  uint64_t expected = s.consumed[static_cast<size_t>(source)] + 1;
  if (h.seq != expected) {
    log::fatal("gasket::am: message %llu from PE %d arrived when %llu was expected (the message layer reordered "
               "them)", static_cast<unsigned long long>(h.seq), source, static_cast<unsigned long long>(expected));
  }
  char* payload = (h.flags & kInSlot) != 0 ? s.slot(source, h.seq - 1) + sizeof h : bytes + sizeof h;
  if ((h.flags & kInSlot) == 0 && len < sizeof h + h.args_len + (h.kind == static_cast<uint8_t>(Kind::kMedium) ? h.body_len : 0)) {
    log::fatal("gasket::am: a message of %zu bytes from PE %d is shorter than its header says", len, source);
  }
  consume(s, source, h, payload);
}

// Messages the layer delivered, in arrival order.
void consume_arrived(State& s) {
  while (s.arrived_count.load(std::memory_order_acquire) != 0) {
    Arrived d;
    {
      std::lock_guard<std::mutex> lock(s.arrived_mutex);
      d = std::move(s.arrived.front());
      s.arrived.pop_front();
      s.arrived_count.store(s.arrived.size(), std::memory_order_release);
    }
    consume_from_layer(s, d.source, d.bytes.data(), d.bytes.size());
  }
}

// Where the layer's transport writes the body of a long message that travels with it (before
// the message is delivered): the destination the header names, checked like the handler's.
void* place_long_body(int source, const void* payload, size_t len, size_t body_len) {
  SlotHeader h;
  if (len < sizeof h) log::fatal("gasket::am: a message with a body of %zu bytes from PE %d has no header", body_len, source);
  std::memcpy(&h, payload, sizeof h);
  if (h.kind != static_cast<uint8_t>(Kind::kLong) || h.body_len != body_len) {
    log::fatal("gasket::am: PE %d sent a body of %zu bytes with a message of kind %u announcing %u bytes", source,
               body_len, h.kind, h.body_len);
  }
  return long_destination(source, h);
}

// The MessageLayer's receiver, on the transport's bytes as they arrive: a credit at once; a
// message is copied (the one copy on its way) and queued for serve(), which runs next in the same
// progress, outside the layer's dispatch (a handler may then wait for the core's own messages:
// an emulated get or atomic's reply).
void on_layer_message(int source, const void* payload, size_t len) {
  State& s = *g_state;
  if (len < sizeof(SlotHeader)) log::fatal("gasket::am: a message of %zu bytes from PE %d has no header", len, source);
  SlotHeader h;
  std::memcpy(&h, payload, sizeof h);
  if ((h.flags & kCredit) != 0) {
    __atomic_store_n(s.credit_word(source), h.seq, __ATOMIC_RELEASE);  // in order: never smaller
    return;
  }
  const char* bytes = static_cast<const char*>(payload);
  s.received_bytes_copied.fetch_add(len, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(s.arrived_mutex);
  s.arrived.push_back(Arrived{source, std::vector<char>(bytes, bytes + len)});
  s.arrived_count.store(s.arrived.size(), std::memory_order_release);
}

// Runtime::progress's hook: messages the layer delivered, queued replies out, then every message
// that has arrived in order in the rings of direct-path senders.
void serve() {
  State* sp = g_state;
  if (sp == nullptr || t_handler != nullptr || t_posting) return;  // handlers never nest
  State& s = *sp;
  if (s.dispatching.exchange(true, std::memory_order_acquire)) return;  // one dispatcher at a time
  consume_arrived(s);
  if (s.queued_count.load(std::memory_order_acquire) != 0) flush_queued(s);
  for (int source : s.ring_sources) {
    for (size_t k = 0; k < kSlots; ++k) {
      uint64_t consumed = s.consumed[static_cast<size_t>(source)];
      char* slot = s.slot(source, consumed);
      if (__atomic_load_n(reinterpret_cast<uint64_t*>(slot), __ATOMIC_ACQUIRE) != consumed + 1) break;
      SlotHeader h;
      std::memcpy(&h, slot, sizeof h);
      consume(s, source, h, slot + sizeof h);
    }
  }
  s.dispatching.store(false, std::memory_order_release);
}

}  // namespace

namespace detail {

uint16_t add_handler(Kind kind, uint32_t signature, size_t args_len, Entry entry, const char* call) {
  core::Runtime& rt = core::Runtime::checked(call);
  check_may_block(call);
  if (g_state == nullptr) {
    auto* s = new State();
    s->me = my_pe();
    s->n = n_pes();
    s->rings_offset = (8 * static_cast<size_t>(s->n) + 63) / 64 * 64;
    size_t bytes = s->rings_offset + static_cast<size_t>(s->n) * kSlots * kSlotBytes;
    s->region = static_cast<char*>(sym_calloc(1, bytes, call));
    if (s->region == nullptr) {
      log::fatal("%s: the symmetric heap has no room for the %zu bytes of active-message rings", call, bytes);
    }
    s->sent.assign(static_cast<size_t>(s->n), 0);
    s->consumed.assign(static_cast<size_t>(s->n), 0);
    s->handlers.push_back(Registered{Kind::kShort, 0, 0, nullptr});  // kAckHandler
    s->layer = rt.messages();
    size_t region_offset = 0;
    const segments::Segment& region = rt.translate(s->region, bytes, call, "active-message rings", &region_offset);
    // Every PE's route is fixed here, so peers whose rings the backend maps (ucx over shared
    // memory) are mapped now, each with its endpoint, not at first contact.
    for (int pe = 0; pe < s->n; ++pe) {
      Route r = Route::kRing;
      if (!stores_reach(region, pe)) {
        if (s->layer == nullptr) log::fatal("%s: PE %d is reached through the backend, which has no message layer", call, pe);
        r = dynamic_cast<core::am::NativeMessages*>(s->layer) != nullptr ? Route::kNativeMessages : Route::kMailboxMessages;
      }
      s->routes.push_back(r);
      s->mapped_region.push_back(r == Route::kRing ? region.peer_copy(pe) + region_offset : nullptr);
      if (r == Route::kRing) s->ring_sources.push_back(pe);
    }
    g_state = s;
    if (s->layer != nullptr) {
      s->layer->register_receiver(kUserMessagesHandler, on_layer_message);
      s->layer->set_placement(kUserMessagesHandler, place_long_body);
    }
    rt.set_user_message_progress(serve);
  }
  if (g_state->handlers.size() > UINT16_MAX) log::fatal("%s: more than %d handlers", call, UINT16_MAX);
  g_state->handlers.push_back(Registered{kind, signature, args_len, std::move(entry)});
  // Collective: no PE sends to a handler before every PE has registered it.
  barrier_all();
  return static_cast<uint16_t>(g_state->handlers.size() - 1);
}

void request(const Outgoing& m, const std::shared_ptr<CompletionState>& done, const char* call) {
  State& s = state(call);
  if (t_handler != nullptr) {
    log::fatal("%s: called inside an active-message handler (to PE %d, handler %u): a handler may only reply", call,
               m.pe, m.handler);
  }
  check_message(s, m, call);
  uint64_t op = 0;
  if (done) {
    std::lock_guard<std::mutex> lock(s.ops_mutex);
    op = s.next_op++;
    s.ops.emplace(op, done);
  }
  std::unique_lock<std::mutex> lock(s.send_mutex);
  post(s, lock, m, done ? kAckWanted : 0, op, true, call);
}

void reply(Token& token, const Outgoing& m, const char* call) {
  State& s = state(call);
  if (!token.live || t_handler != &token) {
    log::fatal("%s: the token of a message from PE %d is used after its handler returned (reply inside the handler)",
               call, token.source());
  }
  check_message(s, m, call);
  post_or_queue(s, m, 0, 0, call);
}

void check_may_block(const char* call) {
  if (t_handler != nullptr) {
    log::fatal("%s: called inside an active-message handler (message from PE %d): a handler may not block; reply, "
               "or record the work and do it after the handler returns", call, t_handler->source());
  }
}

}  // namespace detail

Route route(int pe, const char* call) {
  core::Runtime::checked(call).check_pe(pe, call);
  return state(call).routes[static_cast<size_t>(pe)];
}

Limits limits(int pe, const char* call) {
  core::Runtime::checked(call).check_pe(pe, call);
  return Limits{detail::kMaxArgBytes, kMaxMedium, sym_heap_size(), kSlots};
}

Event::Event() : state_(std::make_shared<detail::CompletionState>()) {}

bool Event::done() const {
  gasket::progress();
  return state_->done.load(std::memory_order_acquire);
}

void Event::wait(const char* call) {
  detail::check_may_block(call);
  gasket::poll(true, [&] { return state_->done.load(std::memory_order_acquire); });
}

Completion Completion::callback(std::function<void()> fn) {
  Completion c;
  c.state_ = std::make_shared<detail::CompletionState>();
  c.state_->callback = std::move(fn);
  return c;
}

Completion Completion::event(Event& e) {
  Completion c;
  e.state_ = std::make_shared<detail::CompletionState>();  // a fresh state per request
  c.state_ = e.state_;
  return c;
}

Counters counters() {
  Counters c;
  if (State* s = g_state) {
    c.delivered = s->delivered.load();
    c.sent = s->sent_total.load();
    c.sent_by_layer = s->sent_by_layer.load();
    c.waited_for_credit = s->waited.load();
    c.replies_queued = s->replies_queued.load();
    c.bodies_with_message = s->bodies_with_message.load();
    c.received_bytes_copied = s->received_bytes_copied.load() +
                              (s->layer != nullptr ? s->layer->copied_bytes(kUserMessagesHandler) : 0);
  }
  return c;
}

}  // namespace gasket::am
