// Mailbox rings between two PEs of an in-process loopback "backend": order and payloads, credit
// starvation and recovery through an explicit credit, piggybacked credits under two-way traffic,
// messages across the 23-bit sequence wrap of notify ids; the emulated blocked put packs its
// blocks into one put per half scatter zone that the target scatters.
#define BOOST_TEST_MODULE am
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "core/am/emulated_rma.h"
#include "core/am/message_layer.h"

using namespace gasket;
using namespace gasket::core::am;

namespace {

constexpr size_t kInternalBytes = 1 << 20;

// Two PEs sharing memory; put_notify queues (src, id) for the target's progress().
struct Fabric {
  std::vector<std::vector<char>> memory{std::vector<char>(kInternalBytes), std::vector<char>(kInternalBytes)};
  std::deque<std::pair<int, uint32_t>> queue[2];
};

class LoopbackBackend final : public backend::Backend, public backend::RemoteNotify {
 public:
  LoopbackBackend(Fabric& f, int me) : f_(f), me_(me) { limits_.ordered_puts = true; limits_.max_put_bytes = 65536; }
  const char* name() const override { return "loopback"; }
  const backend::Limits& limits() const override { return limits_; }
  Status register_segment(backend::SegmentId, void*, size_t) override { return Status::ok(); }
  Status deregister_segment(backend::SegmentId) override { return Status::ok(); }
  Status put(int pe, backend::RemoteAddress dst, const void* src, size_t len) override {
    BOOST_TEST_REQUIRE(dst.offset + len <= kInternalBytes);
    ++puts;
    std::memcpy(f_.memory[static_cast<size_t>(pe)].data() + dst.offset, src, len);
    return Status::ok();
  }
  Status fence() override { return Status::ok(); }
  Status quiet() override { return Status::ok(); }
  void progress() override {
    while (!f_.queue[me_].empty()) {
      auto e = f_.queue[me_].front();
      f_.queue[me_].pop_front();
      handler_(e.first, e.second);
    }
  }
  std::string describe() const override { return "loopback"; }
  backend::RemoteNotify* remote_notify() override { return this; }
  void set_handler(Handler h) override { handler_ = std::move(h); }
  Status put_notify(int pe, backend::RemoteAddress dst, const void* src, size_t len, uint32_t id) override {
    Status st = put(pe, dst, src, len);
    f_.queue[pe].push_back({me_, id});
    ++notifies;
    return st;
  }
  uint64_t notifies = 0, puts = 0;  // puts counts those of put_notify too

 private:
  Fabric& f_;
  int me_;
  backend::Limits limits_;
  Handler handler_;
};

struct TwoPes {
  explicit TwoPes(size_t slots = 8) {
    layout.n_pes = 2;
    layout.slots = slots;
    layout.slot_bytes = 128;
    layout.bounce_bytes = 4096;
    layout.base_offset = 4096;
    for (int pe = 0; pe < 2; ++pe) {
      backends[pe] = std::make_unique<LoopbackBackend>(fabric, pe);
      rings[pe] = std::make_unique<MailboxRings>(*backends[pe], *backends[pe], 0, fabric.memory[static_cast<size_t>(pe)].data(),
                                                 layout, pe, [this, pe](const std::function<bool()>& ready) {
                                                   unsigned polls = 0;
                                                   while (!ready()) wait_step(pe, &polls);
                                                 });
      rings[pe]->register_handler(kFirstClientHandler, [this, pe](int src, const void* p, size_t n) {
        received[pe].push_back(std::string(static_cast<const char*>(p), n));
        BOOST_TEST(src == 1 - pe);
      });
    }
  }
  void serve(int pe) {
    backends[pe]->progress();
    rings[pe]->progress();
  }
  // A sender out of credits: serves itself, and after a while lets the other PE catch up.
  void wait_step(int pe, unsigned* polls) {
    serve(pe);
    ++waits[pe];
    if (++*polls % 10 == 0 && peer_may_progress) serve(1 - pe);
  }
  MailboxLayout layout;
  Fabric fabric;
  std::unique_ptr<LoopbackBackend> backends[2];
  std::unique_ptr<MailboxRings> rings[2];
  std::vector<std::string> received[2];
  unsigned waits[2] = {0, 0};
  bool peer_may_progress = true;
};

std::string message(int i) { return "message " + std::to_string(i) + std::string(static_cast<size_t>(i % 50), '.'); }

}  // namespace

BOOST_AUTO_TEST_CASE(messages_arrive_in_order_with_their_payloads) {
  TwoPes t;
  for (int i = 0; i < 5; ++i) {
    std::string m = message(i);
    BOOST_TEST_REQUIRE(t.rings[0]->send(1, kFirstClientHandler, m.data(), m.size()).is_ok());
  }
  t.serve(1);
  BOOST_TEST_REQUIRE(t.received[1].size() == 5u);
  for (int i = 0; i < 5; ++i) BOOST_TEST(t.received[1][static_cast<size_t>(i)] == message(i));
  std::string too_big(t.rings[0]->max_payload() + 1, 'x');
  Status st = t.rings[0]->send(1, kFirstClientHandler, too_big.data(), too_big.size());
  BOOST_TEST(!st.is_ok());
  BOOST_TEST(st.message().find("exceeds the mailbox slot payload of 96 bytes") != std::string::npos, st.message());
}

BOOST_AUTO_TEST_CASE(a_starved_sender_recovers_through_an_explicit_credit) {
  TwoPes t(8);
  // PE 1 does not progress at first: the 9th message finds no credit and must wait.
  for (int i = 0; i < 8; ++i) {
    std::string m = message(i);
    BOOST_TEST_REQUIRE(t.rings[0]->send(1, kFirstClientHandler, m.data(), m.size()).is_ok());
  }
  BOOST_TEST(t.rings[0]->stats().starved_sends == 0u);
  BOOST_TEST(t.waits[0] == 0u);
  for (int i = 8; i < 100; ++i) {
    std::string m = message(i);
    BOOST_TEST_REQUIRE(t.rings[0]->send(1, kFirstClientHandler, m.data(), m.size()).is_ok());
  }
  t.serve(1);
  MailboxStats s0 = t.rings[0]->stats(), s1 = t.rings[1]->stats();
  BOOST_TEST(s0.starved_sends > 0u);
  BOOST_TEST(t.waits[0] > 0u);
  BOOST_TEST(s1.explicit_credits > 0u);   // PE 1 never wrote back: credits went explicitly
  BOOST_TEST(s1.explicit_credits <= 100u / 4 + 1);  // one per half ring, not one per message
  BOOST_TEST_REQUIRE(t.received[1].size() == 100u);
  for (int i = 0; i < 100; ++i) BOOST_TEST_REQUIRE(t.received[1][static_cast<size_t>(i)] == message(i));
}

BOOST_AUTO_TEST_CASE(two_way_traffic_returns_credits_piggybacked) {
  TwoPes t(8);
  t.peer_may_progress = false;  // nobody helps: credits must ride on the replies
  for (int i = 0; i < 1000; ++i) {
    std::string m = message(i);
    BOOST_TEST_REQUIRE(t.rings[0]->send(1, kFirstClientHandler, m.data(), m.size()).is_ok());
    t.serve(1);
    BOOST_TEST_REQUIRE(t.rings[1]->send(0, kFirstClientHandler, m.data(), m.size()).is_ok());
    t.serve(0);
  }
  BOOST_TEST(t.received[0].size() == 1000u);
  BOOST_TEST(t.received[1].size() == 1000u);
  BOOST_TEST(t.rings[0]->stats().explicit_credits == 0u);
  BOOST_TEST(t.rings[1]->stats().explicit_credits == 0u);
  BOOST_TEST(t.rings[0]->stats().starved_sends == 0u);
}

BOOST_AUTO_TEST_CASE(sequence_numbers_wrap_in_the_notify_id) {
  TwoPes t(4);
  const int kMessages = (1 << 23) + 50;  // past the 23-bit sequence field of the notify id
  char byte = 'z';
  for (int i = 0; i < kMessages; ++i) {
    BOOST_TEST_REQUIRE(t.rings[0]->send(1, kFirstClientHandler, &byte, 1).is_ok());
    if (i % 2 == 1) {
      t.serve(1);
      if (t.received[1].size() > 16) t.received[1].clear();
    }
  }
  t.serve(1);
  BOOST_TEST(t.rings[1]->stats().received == static_cast<uint64_t>(kMessages));
}

// Each PE's memory is its internal segment; the blocked put's destination lies above the layout.
BOOST_AUTO_TEST_CASE(blocked_put_packs_its_blocks_into_a_put_per_half_zone) {
  TwoPes t;
  segments::SegmentTable tables[2];
  std::unique_ptr<EmulatedRma> rma[2];
  for (int pe = 0; pe < 2; ++pe) {
    tables[pe].add(segments::kInternalSegment, "internal", t.fabric.memory[static_cast<size_t>(pe)].data(), kInternalBytes, 2);
    rma[pe] = std::make_unique<EmulatedRma>(*t.rings[pe], *t.backends[pe], tables[pe], t.fabric.memory[static_cast<size_t>(pe)].data(),
                                            t.layout, pe, [&t, pe](const std::function<bool()>& ready) {
                                              unsigned polls = 0;
                                              while (!ready()) t.wait_step(pe, &polls);
                                            });
  }
  const size_t kDst = 512 << 10, kBlock = 3, kCount = 1000, kDstStep = 5, kSrcStep = 7;
  BOOST_TEST_REQUIRE(t.layout.bytes() + t.layout.base_offset <= kDst);
  std::vector<char> src(kCount * kSrcStep);
  for (size_t k = 0; k < src.size(); ++k) src[k] = static_cast<char>(k * 131 % 251);
  char* target = t.fabric.memory[1].data() + kDst;
  std::memset(target, 0x5a, kCount * kDstStep + 1);
  const uint64_t puts = t.backends[0]->puts, notifies = t.backends[0]->notifies;
  BOOST_TEST_REQUIRE(rma[0]->put_blocks(1, backend::RemoteAddress{segments::kInternalSegment, kDst}, kDstStep, src.data(),
                                        kSrcStep, kBlock, kCount).is_ok());
  // 682 blocks fill half of the 4096-byte zone: two packed puts, each announced by a request,
  // between the claim of one of PE 1's scatter zones and its release (4 messages).
  BOOST_TEST(t.backends[0]->puts - t.backends[0]->notifies - (puts - notifies) == 2u);
  BOOST_TEST(t.backends[0]->notifies - notifies == 4u);
  for (size_t b = 0; b < kCount; ++b) {
    for (size_t i = 0; i < kDstStep; ++i) {
      char want = i < kBlock ? src[b * kSrcStep + i] : static_cast<char>(0x5a);
      BOOST_TEST_REQUIRE(target[b * kDstStep + i] == want, "block " << b << " byte " << i);
    }
  }
  BOOST_TEST(target[kCount * kDstStep] == static_cast<char>(0x5a));
  // Blocks adjacent at the target are packed and put straight there: no request.
  std::memset(target, 0, kCount * kBlock);
  const uint64_t before = t.backends[0]->notifies;
  BOOST_TEST_REQUIRE(rma[0]->put_blocks(1, backend::RemoteAddress{segments::kInternalSegment, kDst}, kBlock, src.data(),
                                        kSrcStep, kBlock, kCount).is_ok());
  BOOST_TEST(t.backends[0]->notifies == before);
  for (size_t b = 0; b < kCount; ++b) BOOST_TEST_REQUIRE(std::memcmp(target + b * kBlock, &src[b * kSrcStep], kBlock) == 0);
}
