// Active messages for clients of core/gasket.h (user_messages.h), over the core's one-sided
// operations, so one implementation serves every path: each PE's symmetric region holds a ring
// of kSlots slots per sender and a credit word per target. A message is a put of its slot (header,
// arguments, medium body) — preceded for a long message by the put of its body to its
// destination — a fence, and an atomic set of the slot's sequence word, which the target's
// progress polls. The target runs the handler on the slot in place, then counts the slot
// consumed; every half ring it sets its count in the sender's credit word.
#include "core/am/user_messages.h"

#include <atomic>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

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

struct SlotHeader {
  uint64_t seq;  // message number + 1 from this sender; set last, atomically
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

struct State {
  int me = 0, n = 0;
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
  std::atomic<uint64_t> delivered{0}, sent_total{0}, waited{0}, replies_queued{0};

  uint64_t* credit_word(int target) { return reinterpret_cast<uint64_t*>(region + 8 * static_cast<size_t>(target)); }
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
  if (m.kind == Kind::kLong && m.body_len > 0) gasket::put(m.dest, m.body, m.body_len, m.pe, call);
  char buffer[kSlotBytes];
  SlotHeader h{};
  if (m.kind == Kind::kLong) {
    size_t offset = 0;
    h.dest_segment = core::Runtime::get()->translate(m.dest, m.body_len, call, "destination", &offset).id;
    h.dest_offset = offset;
  }
  h.op = op;
  h.signature = m.signature;
  h.body_len = static_cast<uint32_t>(m.body_len);
  h.handler = m.handler;
  h.kind = static_cast<uint8_t>(m.kind);
  h.flags = flags;
  h.args_len = static_cast<uint32_t>(m.args_len);
  std::memcpy(buffer, &h, sizeof h);
  size_t len = sizeof h;
  if (m.args_len > 0) std::memcpy(buffer + len, m.args, m.args_len);
  len += m.args_len;
  if (m.kind == Kind::kMedium && m.body_len > 0) {
    std::memcpy(buffer + len, m.body, m.body_len);
    len += m.body_len;
  }
  // Everything but the sequence word, then (ordered after it, and after a long body) the word.
  gasket::put(slot + sizeof(uint64_t), buffer + sizeof(uint64_t), len - sizeof(uint64_t), m.pe, call);
  gasket::fence();
  gasket::atomic_set(reinterpret_cast<uint64_t*>(slot), index + 1, m.pe, call);
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
  if (h.kind == static_cast<uint8_t>(Kind::kLong)) {
    const segments::Segment* seg = core::Runtime::get()->segments().find(h.dest_segment);
    if (seg == nullptr || h.dest_offset > seg->size || h.body_len > seg->size - h.dest_offset) {
      log::fatal("gasket::am: a long message from PE %d names segment %u offset %llu (%u bytes), which is not here",
                 source, h.dest_segment, static_cast<unsigned long long>(h.dest_offset), h.body_len);
    }
    body = seg->base + h.dest_offset;
  }
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

// Runtime::progress's hook: queued replies out, then every message that has arrived in order.
void serve() {
  State* sp = g_state;
  if (sp == nullptr || t_handler != nullptr || t_posting) return;  // handlers never nest
  State& s = *sp;
  if (s.dispatching.exchange(true, std::memory_order_acquire)) return;  // one dispatcher at a time
  if (s.queued_count.load(std::memory_order_acquire) != 0) flush_queued(s);
  for (int source = 0; source < s.n; ++source) {
    uint64_t& consumed = s.consumed[static_cast<size_t>(source)];
    for (size_t k = 0; k < kSlots; ++k) {
      char* slot = s.slot(source, consumed);
      if (__atomic_load_n(reinterpret_cast<uint64_t*>(slot), __ATOMIC_ACQUIRE) != consumed + 1) break;
      SlotHeader h;
      std::memcpy(&h, slot, sizeof h);
      if (h.handler == kAckHandler) {
        complete(s, h.op);
      } else {
        run_handler(s, source, h, slot + sizeof h);
      }
      ++consumed;
      if (consumed % (kSlots / 2) == 0) {
        gasket::atomic_set(s.credit_word(s.me), consumed, source, "gasket::am (credit)");
      }
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
    g_state = s;
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
    c.waited_for_credit = s->waited.load();
    c.replies_queued = s->replies_queued.load();
  }
  return c;
}

}  // namespace gasket::am
