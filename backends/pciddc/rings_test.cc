// The LME and LMR rings of the PCI-DDC model: wrap-around, 24-bit id wrap, multi-entry atomic
// posting, per-sender FIFO order, flush acknowledging everything at once, 64 KiB fragmentation.
#define BOOST_TEST_MODULE pciddc_rings
#include <boost/test/unit_test.hpp>

#include <thread>
#include <vector>

#include "backends/pciddc/receive_list.h"
#include "backends/pciddc/send_list.h"

using namespace gasket::backend::pciddc;
using gasket::backend::RemoteAddress;

namespace gasket {
// Lets Boost.Test print status codes in failed comparisons.
inline std::ostream& operator<<(std::ostream& o, StatusCode c) { return o << static_cast<int>(c); }
}  // namespace gasket

namespace {
SendEntry entry(uint32_t id, uint32_t len = 8, uint8_t flags = kLastOfMessage) {
  SendEntry e;
  e.id = id;
  e.length = len;
  e.flags = flags;
  e.dst = RemoteAddress{1, id * 8ull};
  return e;
}

struct LmrMemory {
  explicit LmrMemory(size_t entries) : words(ReceiveList::bytes_for(entries) / 8 + 8) {
    list = ReceiveList::format(words.data(), entries);
  }
  std::vector<uint64_t> words;
  ReceiveList list;
};
}  // namespace

BOOST_AUTO_TEST_CASE(message_ids_wrap_at_24_bits) {
  MessageIds ids(kMaxMessageId - 1);
  BOOST_TEST(ids.next() == kMaxMessageId - 1);
  BOOST_TEST(ids.next() == kMaxMessageId);
  BOOST_TEST(ids.next() == 0u);
  BOOST_TEST(ids.next() == 1u);
  MessageIds masked(0x1234567);  // more than 24 bits: only the low 24 survive
  BOOST_TEST(masked.next() == 0x234567u);
}

BOOST_AUTO_TEST_CASE(fragmentation_at_64k_notifies_only_the_last_entry) {
  std::vector<char> src(3 * kMaxEntryBytes + 100);
  auto e = build_message(77, 3, RemoteAddress{1, 1000}, src.data(), src.size(), true, true);
  BOOST_TEST_REQUIRE(e.size() == 4u);
  for (size_t i = 0; i < 3; ++i) {
    BOOST_TEST(e[i].length == kMaxEntryBytes);
    BOOST_TEST(e[i].flags == 0);
    BOOST_TEST(e[i].dst.offset == 1000 + i * kMaxEntryBytes);
    BOOST_TEST(e[i].src == src.data() + i * kMaxEntryBytes);
    BOOST_TEST(e[i].id == 77u);
  }
  BOOST_TEST(e[3].length == 100u);
  BOOST_TEST(e[3].flags == (kLastOfMessage | kNotifyReceiver | kNotifySender));
  BOOST_TEST(e[3].dst.offset == 1000 + 3 * kMaxEntryBytes);
  // Exactly 64 KiB is one entry; 64 KiB + 1 is two; 0 bytes is one empty (notification) entry.
  BOOST_TEST(build_message(1, 0, RemoteAddress{1, 0}, src.data(), kMaxEntryBytes, false, false).size() == 1u);
  BOOST_TEST(build_message(1, 0, RemoteAddress{1, 0}, src.data(), kMaxEntryBytes + 1, false, false).size() == 2u);
  auto empty = build_message(5, 0, RemoteAddress{1, 0}, nullptr, 0, true, false);
  BOOST_TEST_REQUIRE(empty.size() == 1u);
  BOOST_TEST(empty[0].length == 0u);
  BOOST_TEST(empty[0].flags == (kLastOfMessage | kNotifyReceiver));
}

BOOST_AUTO_TEST_CASE(lme_wraps_around_and_flush_acknowledges_all_at_once) {
  SendList lme(4);
  BOOST_TEST(lme.capacity() == 4u);
  uint32_t next_id = 0, expect_id = 0;
  for (int round = 0; round < 10; ++round) {  // 30 entries through a 4-entry ring
    SendEntry three[3] = {entry(next_id++, 8, 0), entry(next_id++, 8, 0),
                          entry(next_id++, 8, kLastOfMessage | kNotifySender)};
    BOOST_TEST_REQUIRE(lme.post(three, 3).is_ok());
    BOOST_TEST(lme.pending() == 3u);
    // No room for another 3-entry message until the engine ran and a flush acknowledged.
    BOOST_TEST(lme.post(three, 3).code() == gasket::StatusCode::kUnavailable);
    while (const SendEntry* e = lme.current()) {
      BOOST_TEST(e->id == expect_id++);
      lme.complete();
    }
    std::vector<uint32_t> notified;
    BOOST_TEST(lme.flush(&notified) == 3u);
    BOOST_TEST_REQUIRE(notified.size() == 1u);  // only the ns entry reports a completion
    BOOST_TEST(notified[0] == next_id - 1);
    BOOST_TEST(lme.in_use() == 0u);
  }
}

BOOST_AUTO_TEST_CASE(lme_multi_entry_post_is_all_or_nothing) {
  SendList lme(8);
  SendEntry big[9];
  for (uint32_t i = 0; i < 9; ++i) big[i] = entry(i);
  BOOST_TEST(lme.post(big, 9).code() == gasket::StatusCode::kInvalidArgument);  // can never fit
  BOOST_TEST(lme.in_use() == 0u);
  BOOST_TEST_REQUIRE(lme.post(big, 6).is_ok());
  BOOST_TEST(lme.post(big, 3).code() == gasket::StatusCode::kUnavailable);
  BOOST_TEST(lme.in_use() == 6u);  // nothing of the refused message was posted
  SendEntry bad = entry(kMaxMessageId + 1);
  BOOST_TEST(lme.post(&bad, 1).code() == gasket::StatusCode::kInvalidArgument);
  SendEntry huge = entry(1, kMaxEntryBytes + 1);
  BOOST_TEST(lme.post(&huge, 1).code() == gasket::StatusCode::kInvalidArgument);
  // The entries of the message come out consecutively, in order.
  for (uint32_t i = 0; i < 6; ++i) {
    BOOST_TEST_REQUIRE(lme.current() != nullptr);
    BOOST_TEST(lme.current()->id == i);
    lme.complete();
  }
  BOOST_TEST(lme.current() == nullptr);
}

BOOST_AUTO_TEST_CASE(lmr_wraps_around_and_reports_full) {
  LmrMemory m(4);
  std::vector<LmrEntry> out;
  uint32_t id = kMaxMessageId - 5;  // ids wrap at 24 bits through the list as well
  for (int round = 0; round < 5; ++round) {
    uint32_t first = id;
    for (int i = 0; i < 4; ++i) BOOST_TEST_REQUIRE(m.list.append(2, (id++) & kMaxMessageId));
    BOOST_TEST(!m.list.append(2, 999));  // full
    out.clear();
    BOOST_TEST(m.list.flush(&out) == 4u);  // one flush takes every event
    for (uint32_t i = 0; i < 4; ++i) {
      BOOST_TEST(out[i].src_pe == 2u);
      BOOST_TEST(out[i].id == ((first + i) & kMaxMessageId));
    }
    BOOST_TEST(m.list.flush(&out) == 0u);
  }
}

BOOST_AUTO_TEST_CASE(lmr_keeps_fifo_order_per_sender_under_concurrent_writers) {
  LmrMemory m(64);
  const int kSenders = 4;
  const uint32_t kPerSender = 20000;
  std::vector<std::thread> senders;
  for (int s = 0; s < kSenders; ++s) {
    senders.emplace_back([&m, s] {
      for (uint32_t i = 0; i < kPerSender; ++i) {
        while (!m.list.append(static_cast<uint32_t>(s), i)) std::this_thread::yield();
      }
    });
  }
  std::vector<uint32_t> next(kSenders, 0);
  std::vector<LmrEntry> out;
  size_t total = 0, disorder = 0;
  while (total < kSenders * kPerSender) {
    out.clear();
    total += m.list.flush(&out);
    for (const LmrEntry& e : out) {
      if (e.id != next[e.src_pe]) ++disorder;
      next[e.src_pe] = e.id + 1;
    }
  }
  for (auto& t : senders) t.join();
  BOOST_TEST(disorder == 0u);
  for (int s = 0; s < kSenders; ++s) BOOST_TEST(next[s] == kPerSender);
}

BOOST_AUTO_TEST_CASE(lmr_attach_checks_the_memory) {
  LmrMemory m(16);
  auto ok = ReceiveList::attach(m.words.data(), ReceiveList::bytes_for(16));
  BOOST_TEST(ok.is_ok());
  BOOST_TEST(ok->capacity() == 16u);
  auto wrong_size = ReceiveList::attach(m.words.data(), ReceiveList::bytes_for(32));
  BOOST_TEST(!wrong_size.is_ok());
  std::vector<uint64_t> junk(64, 0);
  BOOST_TEST(!ReceiveList::attach(junk.data(), junk.size() * 8).is_ok());
}
