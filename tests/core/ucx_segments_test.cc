// Segments whose memory the ucx backend allocates (backend::SegmentMemory): with
// UCX_TLS holding shared memory and every peer reached through UCX, the heap, internal and bounce
// segments come from ucp_mem_map(UCP_MEM_MAP_ALLOCATE) and same-node peers' copies are mapped
// through UCX. Elsewhere (local, ucx-tcp, a same-node peer on the direct path) they stay the
// core's files. Either way: symmetric offsets, alignment, malloc/free/realloc, atomics and the
// peers' mappings must hold, and the heap must not be resident before it is used.
#define BOOST_TEST_MODULE ucx_segments
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#define GASKET_TEST_ENVIRONMENT() setenv("GASKET_HEAP_SIZE", "512M", 1)
#include "core/runtime.h"
#include "tests/core/fixture.h"

namespace {

constexpr size_t kHeapBytes = size_t{512} << 20;

const gasket::segments::Segment& segment(gasket::segments::SegmentId id) {
  return *gasket::core::Runtime::get()->segments().find(id);
}

// What the runtime must have chosen: UCX allocates when it carries every peer's traffic over a
// UCX_TLS with shared memory, unless GASKET_UCX_ALLOCATE=no.
bool ucx_should_allocate() {
  const char* transport = std::getenv("GASKET_TRANSPORT");
  const char* tls = std::getenv("UCX_TLS");
  const char* knob = std::getenv("GASKET_UCX_ALLOCATE");
  if (transport == nullptr || std::string(transport) != "ucx") return false;
  if (tls != nullptr && std::string(tls).find("sm") == std::string::npos) return false;
  if (knob != nullptr && std::string(knob) == "no") return false;
  for (int pe = 0; pe < gasket::n_pes(); ++pe) {
    if (pe != gasket::my_pe() && std::string(gasket::transport_name(pe)) == "direct") return false;
  }
  return true;
}

size_t resident_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoul(line.substr(6));
  }
  return 0;
}

uint64_t pattern(int pe, size_t i) { return (static_cast<uint64_t>(pe) << 40) ^ (i * 0x9e3779b97f4a7c15ull); }

}  // namespace

BOOST_AUTO_TEST_CASE(segments_allocated_by_ucx_where_it_carries_the_traffic) {
  const bool expected = ucx_should_allocate();
  // The ucx-shm path of tests/paths.txt must take the UCX allocation.
  const char* local = std::getenv("GASKET_LOCAL");
  const char* tls = std::getenv("UCX_TLS");
  const char* transport = std::getenv("GASKET_TRANSPORT");
  if (transport != nullptr && std::string(transport) == "ucx" && tls != nullptr && std::string(tls) == "self,sm" &&
      local != nullptr && std::string(local) == "backend" && std::getenv("GASKET_UCX_ALLOCATE") == nullptr) {
    PE_TEST(expected);
  }
  using namespace gasket::segments;
  for (SegmentId id : {kInternalSegment, kHeapSegment, kBounceSegment}) {
    BOOST_TEST(segment(id).backend_memory == expected, "PE " << gasket::my_pe() << ": segment " << segment(id).name
                                                             << " backend_memory " << segment(id).backend_memory);
  }
  PE_TEST(!segment(kDataSegment).backend_memory);  // the program's own pages: registered in place
}

BOOST_AUTO_TEST_CASE(segments_start_on_their_alignment) {
  using namespace gasket::segments;
  for (SegmentId id : {kInternalSegment, kHeapSegment, kBounceSegment}) {
    const Segment& s = segment(id);
    BOOST_TEST(reinterpret_cast<uintptr_t>(s.base) % gasket::core::segment_alignment(s.size) == 0,
               "PE " << gasket::my_pe() << ": segment " << s.name << " at " << static_cast<void*>(s.base));
  }
  // sym_align's promise: the largest alignment the heap can hold gives aligned blocks everywhere.
  const size_t alignment = gasket::core::segment_alignment(gasket::sym_heap_size()) / 4;
  void* p = gasket::sym_align(alignment, 4096);
  PE_TEST(p != nullptr);
  PE_TEST(reinterpret_cast<uintptr_t>(p) % alignment == 0);
  gasket::sym_free(p);
}

BOOST_AUTO_TEST_CASE(heap_is_not_resident_before_use) {
  PE_TEST(gasket::sym_heap_size() == kHeapBytes);
  const size_t before = resident_kib();
  // 384 MiB of the 512 MiB heap, touched in one page: resident memory grows by pages used only.
  char* big = static_cast<char*>(gasket::sym_malloc(size_t{384} << 20));
  PE_TEST(big != nullptr);
  big[0] = 1;
  gasket::barrier_all();
  const size_t after = resident_kib();
  BOOST_TEST(after < before + 64 * 1024, "PE " << gasket::my_pe() << ": VmRSS " << before << " kB -> " << after
                                               << " kB after a 384 MiB allocation touched in one page");
  BOOST_TEST(after < (kHeapBytes >> 10) / 2, "PE " << gasket::my_pe() << ": VmRSS " << after << " kB");
  gasket::sym_free(big);
}

BOOST_AUTO_TEST_CASE(offsets_symmetric_through_malloc_free_realloc) {
  const int me = gasket::my_pe(), n = gasket::n_pes();
  const char* heap = segment(gasket::segments::kHeapSegment).base;
  uint64_t* offsets = static_cast<uint64_t*>(gasket::sym_calloc(static_cast<size_t>(n) * 16, sizeof(uint64_t)));
  PE_TEST(offsets != nullptr);
  std::vector<void*> blocks;
  const size_t sizes[] = {8, 4096, 100000, size_t{3} << 20, 24, 65536};
  for (size_t s : sizes) blocks.push_back(gasket::sym_malloc(s));
  gasket::sym_free(blocks[1]);
  gasket::sym_free(blocks[3]);
  blocks[1] = gasket::sym_malloc(2048);                    // reuses freed space
  blocks[3] = gasket::sym_realloc(blocks[4], size_t{8} << 20);  // grows a block (moves it)
  blocks[4] = nullptr;
  uint64_t mine[16] = {};
  for (size_t i = 0; i < blocks.size(); ++i) {
    mine[i] = blocks[i] == nullptr ? ~0ull : static_cast<uint64_t>(static_cast<char*>(blocks[i]) - heap);
  }
  gasket::put(offsets + static_cast<size_t>(me) * 16, mine, sizeof mine, 0);
  gasket::barrier_all();
  if (me == 0) {
    for (int pe = 1; pe < n; ++pe) {
      for (size_t i = 0; i < blocks.size(); ++i) {
        BOOST_TEST(offsets[static_cast<size_t>(pe) * 16 + i] == offsets[i],
                   "block " << i << ": PE " << pe << " offset " << offsets[static_cast<size_t>(pe) * 16 + i]
                            << ", PE 0 offset " << offsets[i]);
      }
    }
  }
  gasket::barrier_all();
  for (void* b : blocks) gasket::sym_free(b);
  gasket::sym_free(offsets);
  PE_TEST(gasket::sym_heap_in_use() == 0);
}

BOOST_AUTO_TEST_CASE(realloc_keeps_contents_written_by_a_peer) {
  const int me = gasket::my_pe(), n = gasket::n_pes(), left = (me + n - 1) % n, right = (me + 1) % n;
  const size_t words = 100000;
  auto* block = static_cast<uint64_t*>(gasket::sym_malloc(words * sizeof(uint64_t)));
  std::vector<uint64_t> mine(words);
  for (size_t i = 0; i < words; ++i) mine[i] = pattern(me, i);
  gasket::put(block, mine.data(), words * sizeof(uint64_t), right);
  gasket::barrier_all();
  auto* grown = static_cast<uint64_t*>(gasket::sym_realloc(block, 4 * words * sizeof(uint64_t)));
  PE_TEST(grown != nullptr);
  size_t wrong = 0;
  for (size_t i = 0; i < words; ++i) wrong += grown[i] != pattern(left, i);
  BOOST_TEST(wrong == 0u, "PE " << me << ": " << wrong << " of " << words << " words from PE " << left
                                << " changed by sym_realloc");
  // The grown tail is reachable too: each PE reads its right neighbour's last word back.
  grown[4 * words - 1] = pattern(me, 4 * words - 1);
  gasket::barrier_all();
  uint64_t last = 0;
  gasket::get(&last, grown + 4 * words - 1, sizeof last, right);
  BOOST_TEST(last == pattern(right, 4 * words - 1), "PE " << me << ": last word of PE " << right);
  gasket::barrier_all();
  gasket::sym_free(grown);
}

BOOST_AUTO_TEST_CASE(peers_mappings_show_their_memory) {
  // A same-node peer's copy mapped here (by the core's files or through UCX) holds what that
  // peer wrote; where the backend allocated the segment every same-node peer must be mapped when
  // first asked (Segment::peer_copy).
  const int me = gasket::my_pe(), n = gasket::n_pes();
  auto* word = static_cast<uint64_t*>(gasket::sym_malloc(sizeof(uint64_t)));
  *word = pattern(me, 7);
  gasket::barrier_all();
  const gasket::segments::Segment& heap = segment(gasket::segments::kHeapSegment);
  const size_t offset = static_cast<size_t>(reinterpret_cast<char*>(word) - heap.base);
  for (int pe = 0; pe < n; ++pe) {
    if (pe == me || gasket::node_of(pe) != gasket::node_of(me)) continue;
    char* mapped = heap.peer_copy(pe);
    if (heap.backend_memory) BOOST_TEST(mapped != nullptr, "PE " << me << ": PE " << pe << "'s heap is not mapped");
    if (mapped == nullptr) continue;
    uint64_t seen;
    std::memcpy(&seen, mapped + offset, sizeof seen);
    BOOST_TEST(seen == pattern(pe, 7), "PE " << me << ": PE " << pe << "'s word through its mapping");
  }
  gasket::barrier_all();
  gasket::sym_free(word);
}

BOOST_AUTO_TEST_CASE(atomics_on_every_segment_kind) {
  const int me = gasket::my_pe(), n = gasket::n_pes();
  auto* counter = static_cast<uint64_t*>(gasket::sym_calloc(2, sizeof(uint64_t)));
  uint64_t* fetched_total = counter + 1;
  auto* small = static_cast<uint32_t*>(gasket::sym_calloc(1, sizeof(uint32_t)));
  gasket::barrier_all();
  const uint64_t rounds = 200, total = rounds * static_cast<uint64_t>(n);
  uint64_t fetched_sum = 0;
  for (uint64_t i = 0; i < rounds; ++i) {
    fetched_sum += gasket::atomic_fetch_add(counter, uint64_t{1}, 0);
    gasket::atomic_add(small, uint32_t{3}, n - 1);
  }
  gasket::atomic_add(fetched_total, fetched_sum, 0);
  gasket::barrier_all();
  // Every PE's fetch-adds saw distinct old values 0..total-1: their sum is total*(total-1)/2.
  if (me == 0) PE_TEST(*counter == total);
  if (me == 0) PE_TEST(*fetched_total == total * (total - 1) / 2);
  if (me == n - 1) PE_TEST(*small == static_cast<uint32_t>(3 * total));
  gasket::barrier_all();
  // Compare-and-swap increments, retried until each PE's lands once.
  *counter = 0;
  gasket::barrier_all();
  uint64_t expected = 0;
  for (;;) {
    uint64_t old = gasket::atomic_compare_swap(counter, expected, expected + 1, 0);
    if (old == expected) break;
    expected = old;
  }
  gasket::barrier_all();
  if (me == 0) PE_TEST(*counter == static_cast<uint64_t>(n));
  PE_TEST(gasket::atomic_fetch(counter, 0) == static_cast<uint64_t>(n));
  gasket::barrier_all();
  gasket::sym_free(small);
  gasket::sym_free(counter);
}
