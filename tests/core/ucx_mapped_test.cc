// Peers' segments mapped through the backend: where the ucx backend allocated a
// segment and its shared-memory transport maps a peer's copy here (ucx-shm: heap, internal,
// bounce), the core runs put/get/atomics on that mapping itself — memcpy and CPU atomics, no
// backend call, no flush after a blocking get — while everything else (the static data segment;
// every segment over ucx-tcp) still goes through UCP. Each shortcut must give the backend's
// results, and a quiet or fence must still cover the UCP operations mixed with mapped ones.
#define BOOST_TEST_MODULE ucx_mapped
#include <boost/mpl/list.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/runtime.h"
#include "tests/core/fixture.h"

namespace {

// Static data: never the backend's memory (registered in place), so reached through UCP.
constexpr size_t kGlobalBytes = 64 * 1024;
char g_block[kGlobalBytes];
uint64_t g_words64[4];
uint32_t g_words32[4];

const gasket::segments::Segment& heap() {
  return *gasket::core::Runtime::get()->segments().find(gasket::segments::kHeapSegment);
}

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v != nullptr && std::string(v) == value;
}

// The ucx-shm path of tests/paths.txt (UCX allocates the segments there: tests/core:ucx_segments).
bool on_ucx_shm() {
  return env_is("GASKET_TRANSPORT", "ucx") && env_is("UCX_TLS", "self,sm") && env_is("GASKET_LOCAL", "backend") &&
         std::getenv("GASKET_UCX_ALLOCATE") == nullptr;
}

// Whether `pe`'s heap is reached through the backend's mapping (the core's shortcut), mapped at
// this first ask.
bool heap_mapped(int pe) {
  return heap().backend_memory && heap().peer_copy(pe) != nullptr;
}

bool via_backend(int pe) { return std::string(gasket::transport_name(pe)) != "direct"; }

// A counter of the ucx backend's describe() ("RMA calls: N"), 0 without a backend.
uint64_t backend_counter(const char* label) {
  gasket::backend::Backend* b = gasket::core::Runtime::get()->backend();
  if (b == nullptr) return 0;
  const std::string text = b->describe();
  const size_t at = text.find(label);
  BOOST_REQUIRE_MESSAGE(at != std::string::npos, "PE " << gasket::my_pe() << ": no '" << label << "' in " << text);
  return std::stoull(text.substr(at + std::strlen(label)));
}
uint64_t rma_calls() { return backend_counter("RMA calls: "); }
uint64_t flushes() { return backend_counter("endpoint flushes: "); }

uint8_t pattern(int pe, size_t i, unsigned round) {
  return static_cast<uint8_t>((static_cast<unsigned>(pe) * 131u) ^ (i * 7u) ^ (round * 29u));
}

}  // namespace

BOOST_AUTO_TEST_CASE(mapped_peers_take_no_backend_call_unmapped_ones_do) {
  const int me = gasket::my_pe(), n = gasket::n_pes(), right = (me + 1) % n;
  if (on_ucx_shm()) BOOST_TEST(heap_mapped(right), "PE " << me << ": PE " << right << "'s heap is not mapped on ucx-shm");
  auto* block = static_cast<uint64_t*>(gasket::sym_calloc(64, sizeof(uint64_t)));
  gasket::barrier_all();
  // Puts, gets (blocking, non-blocking, strided) and atomics on the peer's heap: no barrier in
  // between (its signals may use the backend).
  const uint64_t calls_before = rma_calls();
  uint64_t local[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  gasket::put(block, local, sizeof local, right);
  gasket::put_nbi(block + 16, local, sizeof local, right);
  gasket::iput(block + 32, local, 2, 1, sizeof(uint64_t), 8, right);
  uint64_t back[16] = {};
  gasket::get(back, block, sizeof back, right);
  gasket::get_nbi(back, block + 16, 8, right);
  gasket::iget(back, block + 32, 1, 2, sizeof(uint64_t), 8, right);
  (void)gasket::atomic_fetch_add(block + 48, uint64_t{5}, right);
  gasket::atomic_add(block + 49, uint64_t{5}, right);
  (void)gasket::atomic_compare_swap(block + 50, uint64_t{0}, uint64_t{9}, right);
  const uint64_t calls_after_heap = rma_calls();
  if (heap_mapped(right)) {
    PE_EQUAL(calls_after_heap, calls_before);
  } else if (via_backend(right)) {
    PE_TEST(calls_after_heap >= calls_before + 9);
  }
  // The static data segment is the program's own pages: UCP, never the shortcut.
  gasket::put(g_words64, local, sizeof(uint64_t), right);
  if (via_backend(right)) PE_TEST(rma_calls() > calls_after_heap);
  gasket::quiet();
  gasket::barrier_all();
  gasket::sym_free(block);
}

BOOST_AUTO_TEST_CASE(blocking_get_of_a_mapped_peer_flushes_nothing) {
  const int me = gasket::my_pe(), n = gasket::n_pes(), right = (me + 1) % n;
  auto* word = static_cast<uint64_t*>(gasket::sym_calloc(1, sizeof(uint64_t)));
  *word = 1000 + static_cast<uint64_t>(me);
  gasket::barrier_all();
  // A UCP put leaves the endpoint to `right` with an operation to flush; a blocking get of the
  // mapped heap must not flush it (its bytes are there at once), the quiet after it must.
  gasket::put(&g_words64[1], word, sizeof(uint64_t), right);
  const uint64_t before = flushes();
  uint64_t seen = 0;
  gasket::get(&seen, word, sizeof seen, right);
  PE_EQUAL(seen, 1000 + static_cast<uint64_t>(right));
  if (heap_mapped(right)) PE_EQUAL(flushes(), before);
  gasket::quiet();
  if (via_backend(right)) PE_TEST(flushes() > before);
  gasket::barrier_all();
  PE_EQUAL(g_words64[1], 1000 + static_cast<uint64_t>((me + n - 1) % n));
  gasket::barrier_all();
  gasket::sym_free(word);
}

BOOST_AUTO_TEST_CASE(mapped_put_get_bytes_match) {
  const int me = gasket::my_pe(), n = gasket::n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t kBlock = (size_t{1} << 20) + 64;
  auto* block = static_cast<uint8_t*>(gasket::sym_calloc(kBlock, 1));
  const size_t sizes[] = {1, 7, 8, 64, 4095, 65539, size_t{1} << 20};
  std::vector<uint8_t> mine(kBlock), back(kBlock);
  unsigned round = 0;
  for (size_t bytes : sizes) {
    ++round;
    const size_t offset = bytes % 61;  // odd offsets too
    for (size_t i = 0; i < bytes; ++i) mine[i] = pattern(me, i, round);
    gasket::barrier_all();
    gasket::put(block + offset, mine.data(), bytes, right);
    gasket::barrier_all();
    size_t wrong = 0;
    for (size_t i = 0; i < bytes; ++i) wrong += block[offset + i] != pattern(left, i, round);
    BOOST_TEST(wrong == 0u, "PE " << me << ": " << wrong << " of " << bytes << " bytes from PE " << left << " wrong");
    std::fill(back.begin(), back.end(), 0);
    gasket::get(back.data(), block + offset, bytes, right);
    BOOST_TEST(std::memcmp(back.data(), mine.data(), bytes) == 0,
               "PE " << me << ": " << bytes << " bytes got back from PE " << right << " differ");
  }
  // Strided both ways: every third 4-byte element.
  gasket::barrier_all();
  std::vector<uint32_t> elems(100), got(300, 0);
  for (uint32_t i = 0; i < 100; ++i) elems[i] = static_cast<uint32_t>(me) * 1000 + i;
  auto* strided = reinterpret_cast<uint32_t*>(block);
  gasket::iput(strided, elems.data(), 3, 1, sizeof(uint32_t), 100, right);
  gasket::barrier_all();
  for (uint32_t i = 0; i < 100; ++i) PE_EQUAL(strided[3 * i], static_cast<uint32_t>(left) * 1000 + i);
  gasket::iget(got.data(), strided, 3, 3, sizeof(uint32_t), 100, right);
  for (uint32_t i = 0; i < 100; ++i) PE_EQUAL(got[3 * i], static_cast<uint32_t>(me) * 1000 + i);
  gasket::barrier_all();
  gasket::sym_free(block);
}

using Words = boost::mpl::list<uint32_t, uint64_t>;

template <typename T>
T* global_words();
template <>
uint32_t* global_words<uint32_t>() { return g_words32; }
template <>
uint64_t* global_words<uint64_t>() { return g_words64; }

// The same sequence of every operation on the right neighbour's heap word (mapped on ucx-shm) and
// on its static-data word (UCP): fetched values and final contents must be equal.
template <typename T>
std::vector<T> every_operation(T* w, int pe) {
  std::vector<T> seen;
  gasket::atomic_set(w, T{40}, pe);
  seen.push_back(gasket::atomic_fetch(w, pe));
  seen.push_back(gasket::atomic_swap(w, T{41}, pe));
  seen.push_back(gasket::atomic_compare_swap(w, T{99}, T{50}, pe));
  seen.push_back(gasket::atomic_compare_swap(w, T{41}, T{50}, pe));
  seen.push_back(gasket::atomic_fetch_add(w, T{8}, pe));
  gasket::atomic_add(w, T{3}, pe);
  seen.push_back(gasket::atomic_fetch_and(w, T{0x3C}, pe));
  gasket::atomic_and(w, T{0x1F}, pe);
  seen.push_back(gasket::atomic_fetch_or(w, T{0x101}, pe));
  gasket::atomic_or(w, T{0x40}, pe);
  seen.push_back(gasket::atomic_fetch_xor(w, T{0x11}, pe));
  gasket::atomic_xor(w, T{0xFF}, pe);  // a non-fetching XOR after a fetching op (lost once in UCX 1.13)
  seen.push_back(gasket::atomic_fetch(w, pe));
  gasket::atomic_or(w, static_cast<T>(T{1} << (sizeof(T) * 8 - 1)), pe);  // the top bit: full width
  seen.push_back(gasket::atomic_fetch(w, pe));
  return seen;
}

BOOST_AUTO_TEST_CASE_TEMPLATE(mapped_atomics_match_the_backend, T, Words) {
  const int me = gasket::my_pe(), n = gasket::n_pes(), right = (me + 1) % n;
  T* w = static_cast<T*>(gasket::sym_calloc(1, sizeof(T)));
  gasket::barrier_all();
  std::vector<T> through_heap = every_operation(w, right);
  std::vector<T> through_data = every_operation(global_words<T>(), right);
  BOOST_TEST(through_heap == through_data, boost::test_tools::per_element());
  gasket::barrier_all();
  PE_EQUAL(*w, global_words<T>()[0]);
  PE_EQUAL(*w, through_heap.back());
  gasket::barrier_all();
  // Every PE's fetch-adds on PE 0's heap word and static-data word: distinct old values 0..total-1.
  *w = 0;
  global_words<T>()[1] = 0;
  gasket::barrier_all();
  const uint64_t rounds = 300, total = rounds * static_cast<uint64_t>(n);
  uint64_t sums[2] = {0, 0};
  for (uint64_t i = 0; i < rounds; ++i) {
    sums[0] += gasket::atomic_fetch_add(w, T{1}, 0);
    sums[1] += gasket::atomic_fetch_add(&global_words<T>()[1], T{1}, 0);
  }
  uint64_t* all = static_cast<uint64_t*>(gasket::sym_calloc(2, sizeof(uint64_t)));
  gasket::atomic_add(&all[0], sums[0], 0);
  gasket::atomic_add(&all[1], sums[1], 0);
  gasket::barrier_all();
  if (me == 0) {
    PE_EQUAL(static_cast<uint64_t>(*w), total);
    PE_EQUAL(static_cast<uint64_t>(global_words<T>()[1]), total);
    PE_EQUAL(all[0], total * (total - 1) / 2);
    PE_EQUAL(all[1], total * (total - 1) / 2);
  }
  gasket::barrier_all();
  gasket::sym_free(all);
  gasket::sym_free(w);
}

// Data through UCP (static data) and through the mapping (heap), then a quiet or a fence, then a
// flag through the mapping: the peer that sees the flag must see both.
void mixed_then_flag(bool use_fence) {
  const int me = gasket::my_pe(), n = gasket::n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t bytes = 4096;
  auto* heap_block = static_cast<uint8_t*>(gasket::sym_calloc(bytes + 8, 1));
  auto* flag = reinterpret_cast<uint64_t*>(heap_block + bytes);
  std::vector<uint8_t> mine(bytes);
  gasket::barrier_all();
  for (unsigned round = 1; round <= 30; ++round) {
    for (size_t i = 0; i < bytes; ++i) mine[i] = pattern(me, i, round);
    gasket::put(g_block + (round % 8) * bytes, mine.data(), bytes, right);
    gasket::put(heap_block, mine.data(), bytes, right);
    gasket::put(g_block + kGlobalBytes - 8, &mine[0], 1, right);
    if (use_fence) {
      gasket::fence();
    } else {
      gasket::quiet();
    }
    const uint64_t value = round;
    gasket::put(flag, &value, sizeof value, right);
    gasket::wait_until(flag, gasket::Cmp::kGe, static_cast<uint64_t>(round));
    size_t wrong_data = 0, wrong_heap = 0;
    for (size_t i = 0; i < bytes; ++i) {
      wrong_data += static_cast<uint8_t>(g_block[(round % 8) * bytes + i]) != pattern(left, i, round);
      wrong_heap += heap_block[i] != pattern(left, i, round);
    }
    BOOST_TEST(wrong_data == 0u, "PE " << me << " round " << round << ": " << wrong_data
                                      << " static-data bytes from PE " << left << " not there when the flag was");
    BOOST_TEST(wrong_heap == 0u, "PE " << me << " round " << round << ": " << wrong_heap << " heap bytes from PE "
                                      << left << " not there when the flag was");
    PE_EQUAL(static_cast<uint8_t>(g_block[kGlobalBytes - 8]), pattern(left, 0, round));
    gasket::barrier_all();  // nobody overwrites a block its neighbour is still checking
  }
  gasket::sym_free(heap_block);
}

BOOST_AUTO_TEST_CASE(quiet_after_mixed_mapped_and_unmapped_puts) { mixed_then_flag(false); }

BOOST_AUTO_TEST_CASE(fence_orders_unmapped_puts_before_a_mapped_flag) { mixed_then_flag(true); }
