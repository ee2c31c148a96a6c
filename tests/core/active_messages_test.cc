// Active messages of core/gasket.h (gasket::am) on every path: ping-pong, all-to-all floods of
// many times the credits, medium and long bodies at odd sizes and alignments between guard bytes
// (a long body must be in place when its handler runs), replies of each size from handlers, a
// stream of replies beyond the credits, and completion by callback and by event. Values come
// from the API's contract: what was sent arrives once, in order per sender, with the arguments
// and bytes it was sent with.
#define BOOST_TEST_MODULE active_messages
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tests/core/fixture.h"

namespace am = gasket::am;

namespace {

int me() { return gasket::my_pe(); }
int npes() { return gasket::n_pes(); }
int right() { return (me() + 1) % npes(); }
int left() { return (me() + npes() - 1) % npes(); }

// The byte a body carries at position i, from its sender, a salt and its size.
unsigned char pattern(int source, uint32_t salt, size_t i) {
  return static_cast<unsigned char>((source * 131 + salt * 7 + i * 13 + (i >> 8)) & 0xff);
}
void fill(unsigned char* p, int source, uint32_t salt, size_t len) {
  for (size_t i = 0; i < len; ++i) p[i] = pattern(source, salt, i);
}
size_t mismatches(const unsigned char* p, int source, uint32_t salt, size_t len) {
  size_t bad = 0;
  for (size_t i = 0; i < len; ++i) bad += p[i] != pattern(source, salt, i);
  return bad;
}

// Every handler is registered once, in this order, on every PE (registration is collective).
struct Handlers {
  am::ShortHandler<int, long> ping;
  am::ShortHandler<int, long> pong;
  am::MediumHandler<int, uint32_t, uint64_t> flood;
  am::LongHandler<uint32_t, size_t, size_t> long_body;
  am::ShortHandler<uint32_t, uint64_t> long_checked;
  am::MediumHandler<uint32_t> medium_body;
  am::ShortHandler<uint32_t, uint64_t> medium_checked;
  am::ShortHandler<int> ask_replies;
  am::MediumHandler<uint32_t> reply_medium;
  am::LongHandler<uint32_t> reply_long;
  am::ShortHandler<> bump;
  am::ShortHandler<uint64_t> echo;
  am::ShortHandler<uint64_t> echoed;
};

long pongs_seen = 0;
long pong_sum = 0;
std::vector<uint64_t> flood_next;  // per source: the next sequence expected
uint64_t flood_received = 0, flood_errors = 0;
uint32_t last_checked_salt = 0;
uint64_t last_checked_bad = ~uint64_t{0};
int replies_seen = 0;
uint64_t echoes_next = 0, echo_errors = 0;  // the replies of a stream of requests, in order
uint64_t reply_errors = 0;
long* bump_counter = nullptr;  // symmetric
unsigned char* long_area = nullptr;  // symmetric: guard, window, guard
constexpr size_t kGuard = 64;
constexpr size_t kWindow = (1 << 20) + 16;  // odd sizes up to 1 MiB + 3 at offsets up to 7
constexpr unsigned char kGuardByte = 0xC5;

Handlers g_handlers;  // filled by register_all before any message is sent
Handlers& handlers() { return g_handlers; }

void register_all() {
  {
    Handlers& r = g_handlers;
    r.ping = am::register_short<int, long>([](am::Token& t, int seq, long value) {
      t.reply(handlers().pong, seq, value + 1);
    });
    r.pong = am::register_short<int, long>([](am::Token&, int, long value) {
      ++pongs_seen;
      pong_sum += value;
    });
    r.flood = am::register_medium<int, uint32_t, uint64_t>(
        [](am::Token& t, void* body, size_t len, int source, uint32_t salt, uint64_t seq) {
          if (source != t.source() || seq != flood_next[static_cast<size_t>(source)] || len != salt % 200 ||
              mismatches(static_cast<unsigned char*>(body), source, salt, len) != 0) {
            ++flood_errors;
          }
          flood_next[static_cast<size_t>(source)] = seq + 1;
          ++flood_received;
        });
    r.long_body = am::register_long<uint32_t, size_t, size_t>(
        [](am::Token& t, void* dest, size_t len, uint32_t salt, size_t offset, size_t size) {
          // The body is in place before the handler runs: check it, and the guards, right here.
          uint64_t bad = mismatches(static_cast<unsigned char*>(dest), t.source(), salt, len);
          bad += dest != long_area + kGuard + offset;
          bad += len != size;
          for (size_t i = 0; i < kGuard + offset; ++i) bad += long_area[i] != kGuardByte;
          for (size_t i = kGuard + offset + size; i < kGuard * 2 + kWindow; ++i) bad += long_area[i] != kGuardByte;
          t.reply(handlers().long_checked, salt, bad);
        });
    r.long_checked = am::register_short<uint32_t, uint64_t>([](am::Token&, uint32_t salt, uint64_t bad) {
      last_checked_salt = salt;
      last_checked_bad = bad;
    });
    r.medium_body = am::register_medium<uint32_t>([](am::Token& t, void* body, size_t len, uint32_t salt) {
      t.reply(handlers().medium_checked, salt, mismatches(static_cast<unsigned char*>(body), t.source(), salt, len));
    });
    r.medium_checked = am::register_short<uint32_t, uint64_t>([](am::Token&, uint32_t salt, uint64_t bad) {
      last_checked_salt = salt;
      last_checked_bad = bad;
    });
    // Replies of every size from one handler: a medium and a long one (into the requester's area).
    r.ask_replies = am::register_short<int>([](am::Token& t, int) {
      std::vector<unsigned char> body(777);
      fill(body.data(), me(), 42, body.size());
      t.reply_medium(handlers().reply_medium, body.data(), body.size(), uint32_t{42});
      std::vector<unsigned char> big(5001);
      fill(big.data(), me(), 43, big.size());
      t.reply_long(handlers().reply_long, big.data(), big.size(), long_area + kGuard + 3, uint32_t{43});
    });
    r.reply_medium = am::register_medium<uint32_t>([](am::Token& t, void* body, size_t len, uint32_t salt) {
      reply_errors += len != 777 || mismatches(static_cast<unsigned char*>(body), t.source(), salt, len) != 0;
      ++replies_seen;
    });
    r.reply_long = am::register_long<uint32_t>([](am::Token& t, void* dest, size_t len, uint32_t salt) {
      reply_errors += len != 5001 || dest != long_area + kGuard + 3 ||
                      mismatches(static_cast<unsigned char*>(dest), t.source(), salt, len) != 0;
      ++replies_seen;
    });
    r.bump = am::register_short<>([](am::Token&) { __atomic_add_fetch(bump_counter, 1, __ATOMIC_RELAXED); });
    r.echo = am::register_short<uint64_t>([](am::Token& t, uint64_t seq) { t.reply(handlers().echoed, seq); });
    r.echoed = am::register_short<uint64_t>([](am::Token&, uint64_t seq) {
      echo_errors += seq != echoes_next;
      ++echoes_next;
    });
  }
  // Registration is collective, but the handle of the last handler is stored here only after
  // its registration returns: no PE sends before every PE holds every handle.
  gasket::barrier_all();
}

struct Setup {
  Setup() {
    if (long_area == nullptr) {
      long_area = static_cast<unsigned char*>(gasket::sym_malloc(kGuard * 2 + kWindow));
      bump_counter = static_cast<long*>(gasket::sym_calloc(1, sizeof(long)));
      flood_next.assign(static_cast<size_t>(npes()), 0);
      register_all();
    }
  }
};

void reset_long_area() {
  std::memset(long_area, kGuardByte, kGuard * 2 + kWindow);
  gasket::barrier_all();
}

}  // namespace

BOOST_AUTO_TEST_CASE(limits_are_reported) {
  Setup s;
  am::Limits l = am::limits(right());
  PE_TEST(l.max_args == 64u);
  // The same on every path (one implementation): core/am/README.md's figures.
  PE_TEST(l.max_medium == 1936u);
  PE_TEST(l.max_long == gasket::sym_heap_size());
  PE_TEST(l.credits == 32u);
}

// The route to each PE follows from how this PE reaches it (core/am/README.md): the rings where
// its memory is mapped here (the direct path; ucx over shared memory when UCX maps the segments),
// else the backend's own active messages (ucx) or the core's mailbox rings (pciddc); messages
// through the backend are counted in sent_by_layer.
BOOST_AUTO_TEST_CASE(messages_take_the_route_of_the_path) {
  Setup s;
  // UCX provides (and maps) the segments' memory only over shared memory and only where no
  // same-node peer maps the core's own files (backends/backend.h: SegmentMemory).
  const char* tls = std::getenv("UCX_TLS");
  bool ucx_maps_memory = tls == nullptr || std::strstr(tls, "sm") != nullptr;
  for (int pe = 0; pe < npes(); ++pe) {
    if (pe != me() && std::string(gasket::transport_name(pe)) == "direct") ucx_maps_memory = false;
  }
  for (int pe = 0; pe < npes(); ++pe) {
    const std::string transport = gasket::transport_name(pe);
    am::Route expected = am::Route::kRing;
    if (transport == "pciddc") expected = am::Route::kMailboxMessages;
    if (transport == "ucx" && !ucx_maps_memory) expected = am::Route::kNativeMessages;
    BOOST_TEST(static_cast<int>(am::route(pe)) == static_cast<int>(expected),
               "PE " << me() << " to PE " << pe << " over " << transport);
  }
  // Taken before the barrier: no PE sends before every PE has taken it.
  const am::Counters before = am::counters();
  pongs_seen = 0;
  gasket::barrier_all();
  const uint64_t rounds = 50;
  for (uint64_t i = 0; i < rounds; ++i) {
    am::request(right(), handlers().ping, static_cast<int>(i), 0L);
    gasket::poll(true, [&] { return pongs_seen == static_cast<long>(i) + 1; });
  }
  // Every PE has its pongs: every ping was handled and its pong sent.
  gasket::barrier_all();
  const am::Counters after = am::counters();
  // This PE sent `rounds` requests to its right neighbour and `rounds` pongs to its left one.
  const uint64_t by_layer = (am::route(right()) == am::Route::kRing ? 0 : rounds) +
                            (am::route(left()) == am::Route::kRing ? 0 : rounds);
  PE_TEST(after.sent - before.sent == 2 * rounds);
  PE_TEST(after.sent_by_layer - before.sent_by_layer == by_layer);
  gasket::barrier_all();
}

BOOST_AUTO_TEST_CASE(ping_pong) {
  Setup s;
  const int rounds = 2000;
  pongs_seen = pong_sum = 0;
  for (int i = 0; i < rounds; ++i) {
    am::request(right(), handlers().ping, i, static_cast<long>(i) * 3);
    gasket::poll(true, [&] { return pongs_seen == i + 1; });
  }
  PE_TEST(pongs_seen == rounds);
  PE_TEST(pong_sum == 3L * rounds * (rounds - 1) / 2 + rounds);
  gasket::barrier_all();
}

// Every PE sends many times the credits to every PE (itself included) before anyone waits:
// requests wait for credit while serving their own rings, so nobody deadlocks.
BOOST_AUTO_TEST_CASE(all_to_all_flood_beyond_the_credits) {
  Setup s;
  const uint64_t per_target = 8 * am::limits(0).credits + 5;
  std::vector<unsigned char> body(200);
  for (uint64_t k = 0; k < per_target; ++k) {
    for (int d = 0; d < npes(); ++d) {
      int pe = (me() + d) % npes();
      uint32_t salt = static_cast<uint32_t>(k * 977 + static_cast<uint64_t>(me()) * 31 + 1);
      fill(body.data(), me(), salt, salt % 200);
      am::request_medium(pe, handlers().flood, body.data(), salt % 200, me(), salt, k);
    }
  }
  const uint64_t expected = per_target * static_cast<uint64_t>(npes());
  gasket::poll(true, [&] { return flood_received == expected; });
  PE_TEST(flood_received == expected);
  PE_TEST(flood_errors == 0u);
  for (int pe = 0; pe < npes(); ++pe) PE_TEST(flood_next[static_cast<size_t>(pe)] == per_target);
  PE_TEST(am::counters().delivered >= expected);
  gasket::barrier_all();
}

BOOST_AUTO_TEST_CASE(medium_bodies_at_odd_sizes) {
  Setup s;
  const size_t max = am::limits(right()).max_medium;
  uint32_t salt = 1000;
  for (size_t size : {size_t{0}, size_t{1}, size_t{3}, size_t{13}, size_t{255}, size_t{1001}, max - 1, max}) {
    for (size_t align : {0, 1, 3, 7}) {
      std::vector<unsigned char> buffer(size + 8);
      fill(buffer.data() + align, me(), ++salt, size);
      last_checked_bad = ~uint64_t{0};
      am::request_medium(right(), handlers().medium_body, buffer.data() + align, size, salt);
      gasket::poll(true, [&] { return last_checked_salt == salt; });
      BOOST_TEST(last_checked_bad == 0u, "PE " << me() << ": medium of " << size << " bytes at +" << align);
    }
  }
  gasket::barrier_all();
}

BOOST_AUTO_TEST_CASE(long_bodies_land_before_the_handler_runs) {
  Setup s;
  uint32_t salt = 5000;
  // Up to sizes a transport sends by rendezvous (ucx over tcp: UCX writes the body in place).
  for (size_t size : {size_t{1}, size_t{3}, size_t{7}, size_t{63}, size_t{1000}, size_t{4097}, size_t{65537},
                      size_t{262147}, size_t{(1 << 20) + 3}}) {
    for (size_t offset : {0, 1, 3, 5, 7}) {
      reset_long_area();
      std::vector<unsigned char> source(size + 8);
      fill(source.data() + (offset ^ 1), me(), ++salt, size);
      last_checked_bad = ~uint64_t{0};
      am::request_long(right(), handlers().long_body, source.data() + (offset ^ 1), size, long_area + kGuard + offset,
                       salt, offset, size);
      gasket::poll(true, [&] { return last_checked_salt == salt; });
      BOOST_TEST(last_checked_bad == 0u, "PE " << me() << ": long of " << size << " bytes at +" << offset << ": "
                                              << last_checked_bad << " bad bytes seen by the handler");
      gasket::barrier_all();  // the neighbour's handler has checked this PE's area
    }
  }
}

// A long body goes straight to its destination: the bytes copied on receipt through the
// backend's messages are the messages' headers and arguments (48 + argument bytes, once each),
// never a body, and none on the rings; where the backend carries bodies in its messages (ucx's
// native route) every long body travels with its message instead of a put and a fence.
BOOST_AUTO_TEST_CASE(long_bodies_are_never_copied_on_receipt) {
  Setup s;
  constexpr uint64_t kHeaderBytes = 48;
  constexpr uint64_t kLongArgs = sizeof(uint32_t) + 2 * sizeof(size_t);  // long_body's
  constexpr uint64_t kCheckedArgs = sizeof(uint32_t) + sizeof(uint64_t);  // long_checked's
  const std::vector<size_t> sizes = {1, 4097, 65537, 262147, (1 << 20) + 3};
  gasket::barrier_all();
  const am::Counters before = am::counters();
  gasket::barrier_all();  // nobody sends before every PE has read its counters
  uint32_t salt = 9000;
  for (size_t size : sizes) {
    const size_t offset = size % 8;
    reset_long_area();  // a barrier, which sends no active message
    std::vector<unsigned char> source(size + 8);
    fill(source.data() + 5, me(), ++salt, size);
    last_checked_bad = ~uint64_t{0};
    am::request_long(right(), handlers().long_body, source.data() + 5, size, long_area + kGuard + offset, salt,
                     offset, size);
    gasket::poll(true, [&] { return last_checked_salt == salt; });
    BOOST_TEST(last_checked_bad == 0u, "PE " << me() << ": long of " << size << " bytes: " << last_checked_bad
                                            << " bad bytes seen by the handler");
    gasket::barrier_all();  // the neighbour's handler has checked this PE's area
  }
  // Every reply has been handled: nothing of this case is in flight.
  const am::Counters after = am::counters();
  const uint64_t n = sizes.size();
  // Received here: the left neighbour's long messages and the right one's replies.
  const uint64_t copied = (am::route(left()) == am::Route::kRing ? 0 : n * (kHeaderBytes + kLongArgs)) +
                          (am::route(right()) == am::Route::kRing ? 0 : n * (kHeaderBytes + kCheckedArgs));
  BOOST_TEST(after.received_bytes_copied - before.received_bytes_copied == copied,
             "PE " << me() << ": " << after.received_bytes_copied - before.received_bytes_copied
                   << " bytes copied on receipt, " << copied << " expected");
  const uint64_t with_message = am::route(right()) == am::Route::kNativeMessages ? n : 0;
  PE_TEST(after.bodies_with_message - before.bodies_with_message == with_message);
  gasket::barrier_all();
}

BOOST_AUTO_TEST_CASE(replies_of_every_size) {
  Setup s;
  reset_long_area();
  replies_seen = 0;
  reply_errors = 0;
  am::request(right(), handlers().ask_replies, 1);
  gasket::poll(true, [&] { return replies_seen == 2; });
  PE_TEST(reply_errors == 0u);
  for (size_t i = 0; i < kGuard + 3; ++i) PE_TEST(long_area[i] == kGuardByte);
  size_t guards_overwritten = 0;
  for (size_t i = kGuard + 3 + 5001; i < kGuard * 2 + kWindow; ++i) guards_overwritten += long_area[i] != kGuardByte;
  PE_TEST(guards_overwritten == 0u);
  gasket::barrier_all();
}

// A stream of requests, many times the credits, each answered from its handler: the requester
// serves only while it waits for credit, so the target's replies outrun the credits of the
// reverse ring and wait in its reply queue (a reply never waits). Every reply arrives, once, in
// order.
BOOST_AUTO_TEST_CASE(replies_beyond_the_credits) {
  Setup s;
  const uint64_t count = 8 * am::limits(right()).credits + 5;
  echoes_next = echo_errors = 0;
  gasket::barrier_all();
  for (uint64_t k = 0; k < count; ++k) am::request(right(), handlers().echo, k);
  gasket::poll(true, [&] { return echoes_next == count; });
  PE_TEST(echoes_next == count);
  PE_TEST(echo_errors == 0u);
  gasket::barrier_all();
  PE_TEST(echoes_next == count);  // nothing more arrived
}

BOOST_AUTO_TEST_CASE(completion_by_event_and_by_callback) {
  Setup s;
  *bump_counter = 0;
  gasket::barrier_all();
  am::Event e;
  am::request(am::Completion::event(e), right(), handlers().bump);
  e.wait();
  PE_TEST(e.done());
  // The handler has run at the target, once: its effect is there (only this PE bumps its right).
  PE_TEST(gasket::atomic_fetch(bump_counter, right()) == 1);
  bool called = false;
  am::request(am::Completion::callback([&] { called = true; }), right(), handlers().bump);
  gasket::poll(true, [&] { return called; });
  gasket::barrier_all();
  PE_TEST(*bump_counter == 2);
  gasket::barrier_all();
}
