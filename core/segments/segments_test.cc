#define BOOST_TEST_MODULE segments
#include <boost/test/unit_test.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "core/segments/heap_sizing.h"
#include "core/segments/segment_table.h"
#include "core/segments/shared_memory_file.h"
#include "core/segments/shared_pages.h"
#include "core/segments/symmetric_allocator.h"

using namespace gasket::segments;

BOOST_AUTO_TEST_CASE(allocator_offsets_are_aligned_and_disjoint) {
  SymmetricAllocator a(1 << 20);
  std::vector<std::pair<size_t, size_t>> blocks;
  for (size_t n : {1, 7, 64, 65, 1000, 4096, 3}) {
    auto off = a.allocate(n);
    BOOST_REQUIRE(off.has_value());
    BOOST_TEST(*off % SymmetricAllocator::kMinAlignment == 0u);
    blocks.emplace_back(*off, n);
  }
  for (size_t i = 0; i < blocks.size(); ++i)
    for (size_t j = i + 1; j < blocks.size(); ++j)
      BOOST_TEST((blocks[i].first + blocks[i].second <= blocks[j].first ||
                  blocks[j].first + blocks[j].second <= blocks[i].first));
  auto big = a.allocate(100, 4096);
  BOOST_REQUIRE(big.has_value());
  BOOST_TEST(*big % 4096 == 0u);
  BOOST_TEST(!a.allocate(8, 48).has_value());  // not a power of two
}

BOOST_AUTO_TEST_CASE(allocator_is_deterministic_across_instances) {
  // Two PEs running the same call sequence must get the same offsets.
  SymmetricAllocator a(1 << 22), b(1 << 22);
  std::mt19937 rng(7);
  std::vector<size_t> live_a, live_b;
  for (int i = 0; i < 2000; ++i) {
    if (!live_a.empty() && rng() % 3 == 0) {
      size_t k = rng() % live_a.size();
      BOOST_REQUIRE(a.release(live_a[k]));
      BOOST_REQUIRE(b.release(live_b[k]));
      live_a.erase(live_a.begin() + static_cast<long>(k));
      live_b.erase(live_b.begin() + static_cast<long>(k));
    } else {
      size_t n = rng() % 5000;
      auto x = a.allocate(n), y = b.allocate(n);
      BOOST_REQUIRE(x.has_value() == y.has_value());
      if (x) {
        BOOST_REQUIRE(*x == *y);
        live_a.push_back(*x);
        live_b.push_back(*y);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(allocator_fragmentation_and_coalescing) {
  SymmetricAllocator a(64 * 100);
  std::vector<size_t> offs;
  for (int i = 0; i < 100; ++i) offs.push_back(*a.allocate(64));
  BOOST_TEST(!a.allocate(1).has_value());  // full
  for (int i = 0; i < 100; i += 2) BOOST_REQUIRE(a.release(offs[static_cast<size_t>(i)]));
  BOOST_TEST(a.largest_free_block() == 64u);  // fragmented: holes of one block
  BOOST_TEST(!a.allocate(128).has_value());
  for (int i = 1; i < 100; i += 2) BOOST_REQUIRE(a.release(offs[static_cast<size_t>(i)]));
  BOOST_TEST(a.largest_free_block() == 6400u);  // all coalesced again
  BOOST_TEST(a.bytes_in_use() == 0u);
  BOOST_TEST(!a.release(12345));  // not a block
}

BOOST_AUTO_TEST_CASE(allocator_exhaustion_and_resize) {
  SymmetricAllocator a(1 << 16);
  BOOST_TEST(!a.allocate((1 << 16) + 1).has_value());
  BOOST_TEST(!a.allocate(SIZE_MAX).has_value());
  auto x = a.allocate(1000);
  auto y = a.allocate(1000);
  BOOST_REQUIRE(x && y);
  BOOST_TEST(!a.resize_in_place(*x, 5000).has_value());  // y is in the way
  BOOST_TEST(a.resize_in_place(*y, 5000).value() == *y);  // free space after y
  BOOST_TEST(a.block_size(*y) >= 5000u);
  BOOST_TEST(a.resize_in_place(*y, 10).value() == *y);  // shrink
  BOOST_TEST(a.block_size(*y) == 64u);
}

BOOST_AUTO_TEST_CASE(allocator_untouched_from_is_the_farthest_end_ever_carved) {
  SymmetricAllocator a(1 << 20);
  BOOST_TEST(a.untouched_from() == 0u);
  auto x = a.allocate(1000);  // [0, 1024)
  BOOST_REQUIRE(x);
  BOOST_TEST(a.untouched_from() == 1024u);
  auto y = a.allocate(64, 4096);  // [4096, 4160): the gap before it stays free
  BOOST_REQUIRE(y);
  BOOST_TEST(a.untouched_from() == 4160u);
  BOOST_TEST(a.resize_in_place(*y, 8192).value() == *y);  // grows to [4096, 12288)
  BOOST_TEST(a.untouched_from() == 12288u);
  BOOST_TEST(a.resize_in_place(*y, 64).value() == *y);  // shrinking keeps the mark
  BOOST_TEST(a.release(*x));
  BOOST_TEST(a.release(*y));
  BOOST_TEST(a.untouched_from() == 12288u);  // freed blocks were written: they stay touched
  auto z = a.allocate(100);
  BOOST_REQUIRE(z);
  BOOST_TEST(*z == 0u);
  BOOST_TEST(a.untouched_from() == 12288u);
}

BOOST_AUTO_TEST_CASE(translation_finds_segment_offset_and_bounds) {
  std::vector<char> heap(4096), scratch(256);
  SegmentTable t;
  t.add(kInternalSegment, "internal", scratch.data(), scratch.size(), 4);
  Segment& h = t.add(kHeapSegment, "heap", heap.data(), heap.size(), 4);
  h.peer_base[2] = reinterpret_cast<char*>(0x10000);
  auto tr = t.translate(heap.data() + 100, 8);
  BOOST_REQUIRE(tr.segment != nullptr);
  BOOST_TEST(tr.segment->id == kHeapSegment);
  BOOST_TEST(tr.offset == 100u);
  BOOST_TEST(tr.in_bounds);
  BOOST_TEST(reinterpret_cast<uintptr_t>(tr.segment->peer_base[2] + tr.offset) == 0x10000u + 100);
  auto edge = t.translate(heap.data() + 4090, 6);
  BOOST_TEST(edge.in_bounds);
  auto past = t.translate(heap.data() + 4090, 7);
  BOOST_TEST(past.segment != nullptr);
  BOOST_TEST(!past.in_bounds);
  auto huge = t.translate(heap.data() + 1, SIZE_MAX);  // would overflow a naive addr+len
  BOOST_TEST(!huge.in_bounds);
  int on_stack = 0;
  BOOST_TEST(t.translate(&on_stack, 4).segment == nullptr);
  BOOST_TEST(t.translate(scratch.data() + 255, 1).segment->id == kInternalSegment);
  BOOST_TEST(t.translate(heap.data() + 4096, 1).segment == nullptr);  // one past the end
}

BOOST_AUTO_TEST_CASE(shared_memory_file_is_shared_and_removed) {
  std::string name = "/gasket-unittest-" + std::to_string(getpid());
  auto f = SharedMemoryFile::create(name, 1 << 16);
  BOOST_REQUIRE(f.is_ok());
  auto g = SharedMemoryFile::open(name, 1 << 16);
  BOOST_REQUIRE(g.is_ok());
  std::strcpy(f->data() + 5000, "written through one mapping");
  BOOST_TEST(std::string(g->data() + 5000) == "written through one mapping");
  BOOST_TEST(!SharedMemoryFile::open(name, 1 << 17).is_ok());  // size mismatch is caught
  BOOST_TEST(!SharedMemoryFile::create(name, 4096).is_ok());   // exclusive create
  BOOST_REQUIRE(f->unlink().is_ok());
  BOOST_TEST(access(("/dev/shm" + name).c_str(), F_OK) != 0);
  BOOST_TEST(std::string(g->data() + 5000) == "written through one mapping");
  auto missing = SharedMemoryFile::open(name, 1 << 16);
  BOOST_TEST(!missing.is_ok());
  BOOST_TEST(missing.status().message().find("No such file") != std::string::npos);
}

// A peer's file mapped with nothing kept but the mapping: it shares the owner's bytes both ways,
// outlives the name, refuses a wrong size, and unmap releases it (the address no longer mapped).
BOOST_AUTO_TEST_CASE(peer_file_mapped_without_record) {
  std::string name = "/gasket-unittest-peer-" + std::to_string(getpid());
  auto own = SharedMemoryFile::create(name, 1 << 16);
  BOOST_REQUIRE(own.is_ok());
  auto mapped = SharedMemoryFile::map(name, 1 << 16);
  BOOST_REQUIRE(mapped.is_ok());
  char* peer = mapped.value();
  BOOST_TEST(static_cast<void*>(peer) != static_cast<void*>(own->data()));
  std::strcpy(own->data() + 100, "from the owner");
  BOOST_TEST(std::string(peer + 100) == "from the owner");
  std::strcpy(peer + 60000, "from the peer");
  BOOST_TEST(std::string(own->data() + 60000) == "from the peer");
  BOOST_TEST(!SharedMemoryFile::map(name, 1 << 15).is_ok());  // size mismatch is caught
  BOOST_REQUIRE(own->unlink().is_ok());
  BOOST_TEST(std::string(peer + 100) == "from the owner");
  SharedMemoryFile::unmap(peer, 1 << 16);
  unsigned char resident = 0;
  BOOST_TEST(mincore(peer, 4096, &resident) != 0);  // nothing mapped there any more
  BOOST_TEST(errno == ENOMEM);
}

// A malloc'd buffer's whole pages move onto a shared file at the same address with their
// contents; another mapping of the file sees the owner's stores; the edges stay private; restore
// puts private pages with the latest contents back and removes the file.
BOOST_AUTO_TEST_CASE(shared_pages_keep_address_and_contents) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t bytes = 3 * page + 100;
  char* buf = static_cast<char*>(malloc(bytes + 64)) + 24;
  for (size_t i = 0; i < bytes; ++i) buf[i] = static_cast<char>(i * 7);
  std::string name = "/gasket-unittest-pages-" + std::to_string(getpid());
  auto pages = share_pages(buf, bytes, name);
  BOOST_REQUIRE(pages.is_ok());
  BOOST_REQUIRE(pages->base != nullptr);
  auto lo = reinterpret_cast<uintptr_t>(pages->base), b = reinterpret_cast<uintptr_t>(buf);
  BOOST_TEST(lo >= b);  // addresses compared as numbers (Boost compares char* as strings)
  BOOST_TEST(lo % page == 0);
  BOOST_TEST(lo + pages->size <= b + bytes);
  BOOST_TEST(pages->size >= 2 * page);
  for (size_t i = 0; i < bytes; ++i) BOOST_REQUIRE(buf[i] == static_cast<char>(i * 7));
  auto peer = SharedMemoryFile::open(name, pages->size);
  BOOST_REQUIRE(peer.is_ok());
  size_t at = static_cast<size_t>(pages->base - buf) + 10;
  buf[at] = 'x';
  BOOST_TEST(peer->data()[10] == 'x');
  peer->data()[11] = 'y';
  BOOST_TEST(buf[at + 1] == 'y');
  // Already shared: moving again is refused (the caller falls back).
  BOOST_TEST(!share_pages(buf, bytes, name + "-again").is_ok());
  BOOST_REQUIRE(restore_pages(*pages).is_ok());
  BOOST_TEST(access(("/dev/shm" + name).c_str(), F_OK) != 0);
  BOOST_TEST(buf[at] == 'x');
  BOOST_TEST(buf[at + 1] == 'y');
  peer->data()[12] = 'z';  // no longer the owner's memory
  BOOST_TEST(buf[at + 2] != 'z');
  // Less than a page: nothing to move.
  auto none = share_pages(buf, 100, name + "-small");
  BOOST_REQUIRE(none.is_ok());
  BOOST_TEST(static_cast<void*>(none->base) == nullptr);
  free(buf - 24);
  // Stack memory is not private anonymous heap memory: refused.
  char stack[4 * 4096];
  BOOST_TEST(!share_pages(stack, sizeof stack, name + "-stack").is_ok());
}

BOOST_AUTO_TEST_CASE(auto_heap_is_half_the_node_per_core_as_a_power_of_two) {
  const uint64_t gib = uint64_t{1} << 30;
  BOOST_TEST(auto_heap_bytes(NodeResources{24 * gib, 24 * gib, 2}) == 4 * gib);   // 6 GiB -> 4 GiB
  BOOST_TEST(auto_heap_bytes(NodeResources{24 * gib, 24 * gib, 8}) == 1 * gib);   // 1.5 GiB -> 1 GiB
  BOOST_TEST(auto_heap_bytes(NodeResources{256 * gib, 8 * gib, 2}) == 2 * gib);   // /dev/shm bounds it
  BOOST_TEST(auto_heap_bytes(NodeResources{2 * gib, 64 << 20, 4}) == kAutoHeapFloor);  // never below the floor
  BOOST_TEST(auto_heap_bytes(NodeResources{0, 0, 1}) == kAutoHeapFloor);  // nothing known
  BOOST_TEST(auto_heap_bytes(NodeResources{0, 16 * gib, 0}) == 8 * gib);
  NodeResources here = node_resources();
  BOOST_TEST(here.cores >= 1);
  BOOST_TEST(auto_heap_bytes(here) >= kAutoHeapFloor);
}

BOOST_AUTO_TEST_CASE(returned_pages_read_zero_in_every_mapping_and_partial_pages_stay) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::string name = "/gasket-segtest-" + std::to_string(getpid()) + "-return";
  auto f = SharedMemoryFile::create(name, 8 * page);
  BOOST_REQUIRE(f.is_ok());
  auto peer = SharedMemoryFile::open(name, 8 * page);
  BOOST_REQUIRE(peer.is_ok());
  std::memset(f->data(), 0x5a, 8 * page);
  // A block from the middle of page 1 to the middle of page 5: pages 2, 3, 4 go back.
  BOOST_REQUIRE(return_pages(f->data() + page + page / 2, 4 * page));
  for (size_t i = 0; i < 8; ++i) {
    bool whole_inside = i >= 2 && i <= 4;
    BOOST_TEST_INFO("page " << i);
    BOOST_TEST(peer->data()[i * page] == (whole_inside ? 0 : 0x5a));
    BOOST_TEST(f->data()[i * page + page - 1] == (whole_inside ? 0 : 0x5a));
  }
  BOOST_TEST(return_pages(f->data() + 10, 100));  // no whole page: nothing to do
  BOOST_TEST(f->data()[10] == 0x5a);
  BOOST_TEST(f->unlink().is_ok());
}
