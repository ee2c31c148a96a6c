// Active messages for C++ clients of core/gasket.h (included by it): a message names a handler
// registered on every PE, carries a small tuple of typed arguments and optionally a body, and runs
// the handler on the target PE from its progress (any gasket call that serves traffic, or the
// progress thread). Three sizes:
//  - short:  arguments only;
//  - medium: arguments + a body of at most limits(pe).max_medium bytes, handed to the handler in a
//            buffer valid while it runs;
//  - long:   arguments + a body put straight to an address of the target's remotely accessible
//            memory (symmetric heap, static data) before the handler runs — no intermediate copy:
//            a store into the peer's mapping on the direct path, the backend's remote write
//            elsewhere — and the handler gets that address.
// A handler may reply (once or more, to the source only) through its Token; it may not request
// nor block: calling barrier_all, wait_until, Event::wait or a request inside a handler ends the
// job with a message naming the call. A request waits (serving traffic) while the target's ring
// has no credit; a reply never waits (without credit it is queued and sent from progress).
// With a Completion the sender learns that the handler has run on the target: a callback (run
// from progress, under the handlers' rules) or an Event polled with done() or waited on.
//
// Registration is collective: every PE registers the same handlers in the same order (the index
// is the order); a message whose handler index, kind or argument types do not match the
// target's registration ends the job with a message naming both PEs and the index.
// Thread-safe under InitOptions::thread_multiple: requests from any thread, handlers run one at a
// time. See core/am/README.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>

namespace gasket::am {

struct Limits {
  size_t max_args = 0;    // bytes of a handler's arguments (packed, no padding)
  size_t max_medium = 0;  // body bytes of a medium message
  size_t max_long = 0;    // body bytes of a long message (one put; the target range must be accessible)
  size_t credits = 0;     // messages in flight to one PE before a request waits
};
// The limits towards `pe` (the same on every path: one ring of slots per sender, long bodies by
// put). Ends the job naming `call` when `pe` is out of range.
Limits limits(int pe, const char* call = "gasket::am::limits");

enum class Kind : uint8_t { kShort = 1, kMedium = 2, kLong = 3 };

// How messages to a PE travel (fixed at the first registration, from how this PE reaches it):
enum class Route : uint8_t {
  kRing,             // the target's memory is mapped here (the direct path; ucx over shared memory): stores
                     // of the slot into the target's ring, then of its sequence word
  kNativeMessages,   // one of the backend's own active messages per message (ucx, memory not mapped)
  kMailboxMessages,  // one notifying put per message (pciddc: the core's mailbox rings)
};
// The route to `pe`; ends the job naming `call` when `pe` is out of range or nothing is registered.
Route route(int pe, const char* call = "gasket::am::route");

template <typename... A>
struct ShortHandler {
  uint16_t index = 0;
};
template <typename... A>
struct MediumHandler {
  uint16_t index = 0;
};
template <typename... A>
struct LongHandler {
  uint16_t index = 0;
};

class Token;

namespace detail {
struct CompletionState;
// A message ready to send: the packed arguments, the body and where a long one lands.
struct Outgoing {
  int pe = 0;
  uint16_t handler = 0;
  Kind kind = Kind::kShort;
  uint32_t signature = 0;
  const void* args = nullptr;
  size_t args_len = 0;
  const void* body = nullptr;
  size_t body_len = 0;
  void* dest = nullptr;
};
using Entry = std::function<void(Token&, const char* args, void* body, size_t body_len)>;
uint16_t add_handler(Kind kind, uint32_t signature, size_t args_len, Entry entry, const char* call);
void request(const Outgoing& m, const std::shared_ptr<CompletionState>& done, const char* call);
void reply(Token& token, const Outgoing& m, const char* call);
// Ends the job naming `call` when the calling thread runs a handler (which may not block).
void check_may_block(const char* call);

constexpr size_t kMaxArgBytes = 64;
template <typename... A>
constexpr size_t args_bytes() {
  return (size_t{0} + ... + sizeof(A));
}
template <typename... A>
uint32_t signature(Kind kind) {
  return static_cast<uint32_t>(typeid(void (*)(A...)).hash_code()) ^ (static_cast<uint32_t>(kind) << 28);
}
template <typename... A>
struct Args {
  static_assert((std::is_trivially_copyable<A>::value && ...), "handler arguments are copied bytewise");
  static_assert(args_bytes<A...>() <= kMaxArgBytes, "handler arguments exceed 64 bytes: send a body");
  char bytes[args_bytes<A...>() + 1];
  explicit Args(const A&... a) {
    size_t at = 0;
    ((std::memcpy(bytes + at, &a, sizeof(A)), at += sizeof(A)), ...);
  }
};
// Calls fn(token, [body, len,] args...) with the arguments unpacked from `p`.
template <typename... A, typename F, typename... Lead>
void unpack_call(F& fn, const char* p, Lead&&... lead) {
  std::tuple<std::decay_t<A>...> values;
  size_t at = 0;
  std::apply([&](auto&... v) { ((std::memcpy(&v, p + at, sizeof v), at += sizeof v), ...); }, values);
  std::apply([&](auto&... v) { fn(std::forward<Lead>(lead)..., v...); }, values);
}
}  // namespace detail

// How a request reports that its handler has run on the target.
class Event {
 public:
  Event();
  bool done() const;  // serves traffic once, then answers
  void wait(const char* call = "gasket::am::Event::wait");  // blocking: not inside a handler
  std::shared_ptr<detail::CompletionState> state_;
};
class Completion {
 public:
  static Completion callback(std::function<void()> fn);
  static Completion event(Event& e);
  std::shared_ptr<detail::CompletionState> state_;

 private:
  Completion() = default;
};

// Handed to a handler: who sent the message, and the only way to reply. Valid while it runs.
class Token {
 public:
  int source() const { return source_; }
  template <typename... A, typename... V>
  void reply(ShortHandler<A...> h, const V&... args) {
    send_reply(h.index, Kind::kShort, detail::signature<A...>(Kind::kShort), detail::Args<A...>(args...), nullptr, 0,
               nullptr, "gasket::am::Token::reply");
  }
  template <typename... A, typename... V>
  void reply_medium(MediumHandler<A...> h, const void* body, size_t len, const V&... args) {
    send_reply(h.index, Kind::kMedium, detail::signature<A...>(Kind::kMedium), detail::Args<A...>(args...), body, len,
               nullptr, "gasket::am::Token::reply_medium");
  }
  template <typename... A, typename... V>
  void reply_long(LongHandler<A...> h, const void* body, size_t len, void* dest, const V&... args) {
    send_reply(h.index, Kind::kLong, detail::signature<A...>(Kind::kLong), detail::Args<A...>(args...), body, len,
               dest, "gasket::am::Token::reply_long");
  }

  Token(int source) : source_(source) {}
  bool live = true;  // cleared when the handler returns

 private:
  template <typename P>
  void send_reply(uint16_t index, Kind kind, uint32_t sig, const P& packed, const void* body, size_t len, void* dest,
                  const char* call) {
    detail::Outgoing m{source_, index, kind, sig, packed.bytes, sizeof packed.bytes - 1, body, len, dest};
    detail::reply(*this, m, call);
  }
  int source_;
};

// ---- registration (collective; same order on every PE) ----
// fn(Token&, A...)
template <typename... A, typename F>
ShortHandler<A...> register_short(F fn, const char* call = "gasket::am::register_short") {
  detail::Entry e = [fn](Token& t, const char* args, void*, size_t) mutable { detail::unpack_call<A...>(fn, args, t); };
  return {detail::add_handler(Kind::kShort, detail::signature<A...>(Kind::kShort), detail::args_bytes<A...>(), e, call)};
}
// fn(Token&, void* body, size_t len, A...): body valid while the handler runs
template <typename... A, typename F>
MediumHandler<A...> register_medium(F fn, const char* call = "gasket::am::register_medium") {
  detail::Entry e = [fn](Token& t, const char* args, void* body, size_t len) mutable {
    detail::unpack_call<A...>(fn, args, t, body, len);
  };
  return {detail::add_handler(Kind::kMedium, detail::signature<A...>(Kind::kMedium), detail::args_bytes<A...>(), e, call)};
}
// fn(Token&, void* dest, size_t len, A...): the body is already at dest
template <typename... A, typename F>
LongHandler<A...> register_long(F fn, const char* call = "gasket::am::register_long") {
  detail::Entry e = [fn](Token& t, const char* args, void* body, size_t len) mutable {
    detail::unpack_call<A...>(fn, args, t, body, len);
  };
  return {detail::add_handler(Kind::kLong, detail::signature<A...>(Kind::kLong), detail::args_bytes<A...>(), e, call)};
}

// ---- requests (not inside a handler): fire-and-forget, or with a Completion first ----
namespace detail {
template <typename... A, typename... V>
void send(const std::shared_ptr<CompletionState>& done, int pe, uint16_t index, Kind kind, const void* body,
          size_t len, void* dest, const char* call, const V&... args) {
  Args<A...> packed(args...);
  Outgoing m{pe, index, kind, signature<A...>(kind), packed.bytes, sizeof packed.bytes - 1, body, len, dest};
  request(m, done, call);
}
}  // namespace detail

template <typename... A, typename... V>
void request(int pe, ShortHandler<A...> h, const V&... args) {
  detail::send<A...>(nullptr, pe, h.index, Kind::kShort, nullptr, 0, nullptr, "gasket::am::request", args...);
}
template <typename... A, typename... V>
void request(const Completion& c, int pe, ShortHandler<A...> h, const V&... args) {
  detail::send<A...>(c.state_, pe, h.index, Kind::kShort, nullptr, 0, nullptr, "gasket::am::request", args...);
}
template <typename... A, typename... V>
void request_medium(int pe, MediumHandler<A...> h, const void* body, size_t len, const V&... args) {
  detail::send<A...>(nullptr, pe, h.index, Kind::kMedium, body, len, nullptr, "gasket::am::request_medium", args...);
}
template <typename... A, typename... V>
void request_medium(const Completion& c, int pe, MediumHandler<A...> h, const void* body, size_t len,
                    const V&... args) {
  detail::send<A...>(c.state_, pe, h.index, Kind::kMedium, body, len, nullptr, "gasket::am::request_medium", args...);
}
template <typename... A, typename... V>
void request_long(int pe, LongHandler<A...> h, const void* body, size_t len, void* dest, const V&... args) {
  detail::send<A...>(nullptr, pe, h.index, Kind::kLong, body, len, dest, "gasket::am::request_long", args...);
}
template <typename... A, typename... V>
void request_long(const Completion& c, int pe, LongHandler<A...> h, const void* body, size_t len, void* dest,
                  const V&... args) {
  detail::send<A...>(c.state_, pe, h.index, Kind::kLong, body, len, dest, "gasket::am::request_long", args...);
}

// Messages delivered to this PE so far (handlers run), and sent from it (requests, replies and
// acknowledgements; sent_by_layer of them through the backend's messages, the rest by the rings).
// bodies_with_message: long bodies sent inside a message of the backend (ucx's native messages),
// written to their destination by the transport. received_bytes_copied: the bytes of messages
// received through the backend's messages that were copied on their way to the handler (header,
// arguments and medium body, once each; a long body is never among them; nothing on the rings).
struct Counters {
  uint64_t delivered = 0, sent = 0, sent_by_layer = 0, waited_for_credit = 0, replies_queued = 0;
  uint64_t bodies_with_message = 0, received_bytes_copied = 0;
};
Counters counters();

}  // namespace gasket::am
