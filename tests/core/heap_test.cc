// The symmetric heap's collective calls across PEs: contents, alignment, realloc, exhaustion.
#define BOOST_TEST_MODULE heap
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "tests/core/fixture.h"

using namespace gasket;

BOOST_AUTO_TEST_CASE(calloc_zeroes_and_realloc_keeps_contents) {
  const int me = my_pe(), n = n_pes();
  auto* a = static_cast<int*>(sym_calloc(1000, sizeof(int)));
  BOOST_REQUIRE(a != nullptr);
  bool zero = true;
  for (int i = 0; i < 1000; ++i) zero = zero && a[i] == 0;
  PE_TEST(zero);
  for (int i = 0; i < 1000; ++i) a[i] = me * 1000 + i;
  void* blocker = sym_malloc(64);  // forces the next growth to move the block
  a = static_cast<int*>(sym_realloc(a, 100000 * sizeof(int)));
  BOOST_REQUIRE(a != nullptr);
  bool kept = true;
  for (int i = 0; i < 1000; ++i) kept = kept && a[i] == me * 1000 + i;
  PE_TEST(kept);
  // The moved block is still symmetric: write the far end on the right neighbour.
  int v = me;
  put(&a[99999], &v, sizeof v, (me + 1) % n);
  barrier_all();
  PE_EQUAL(a[99999], (me + n - 1) % n);
  sym_free(blocker);
  sym_free(a);
}

// Whole pages of [p, p + bytes) that are resident in this process's mapping.
static size_t resident_pages(void* p, size_t bytes) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(page - 1);
  if (end <= begin) return 0;
  std::vector<unsigned char> in((end - begin) / page);
  if (mincore(reinterpret_cast<void*>(begin), end - begin, in.data()) != 0) return ~size_t{0};
  size_t n = 0;
  for (unsigned char c : in) n += c & 1;
  return n;
}

static bool all_zero(const unsigned char* p, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) {
    if (p[i] != 0) return false;
  }
  return true;
}

// calloc over memory earlier blocks wrote (small and large, and one reaching past them into
// memory no block has covered) reads zero everywhere; the part no block has covered is not
// written to clear it, so it stays out of resident memory on every path (the ucx path's heap
// cannot give pages back once they are written).
BOOST_AUTO_TEST_CASE(calloc_reads_zero_over_freed_blocks_and_leaves_fresh_pages_alone) {
  for (size_t written : {size_t{100} << 10, size_t{3} << 20}) {
    auto* a = static_cast<unsigned char*>(sym_malloc(written));
    BOOST_REQUIRE(a != nullptr);
    std::memset(a, 0xab, written);
    sym_free(a);
    auto* b = static_cast<unsigned char*>(sym_calloc(1, 2 * written));
    BOOST_REQUIRE(b != nullptr);
    PE_TEST(b == a);  // first fit: the same start, past the freed block's end
    PE_TEST(all_zero(b, 2 * written));
    sym_free(b);
  }
  // Blocks of 4 MiB fill the holes the blocks above left (none reaches 8 MiB), so the next 8 MiB
  // block lies past every block so far.
  const size_t fresh = size_t{8} << 20;
  std::vector<void*> fillers;
  for (int i = 0; i < 4; ++i) fillers.push_back(sym_malloc(size_t{4} << 20));
  auto* c = static_cast<unsigned char*>(sym_calloc(1, fresh));
  BOOST_REQUIRE(c != nullptr);
  PE_EQUAL(resident_pages(c, fresh), 0u);
  PE_TEST(all_zero(c, fresh));
  sym_free(c);
  for (void* f : fillers) sym_free(f);
}

BOOST_AUTO_TEST_CASE(exhaustion_returns_null_on_every_pe) {
  size_t total = sym_heap_size();
  void* too_big = sym_malloc(total + 1);
  PE_TEST(too_big == nullptr);
  void* half = sym_malloc(total / 2 + 64);
  PE_TEST(half != nullptr);
  void* another_half = sym_malloc(total / 2 + 64);
  PE_TEST(another_half == nullptr);  // two such halves exceed the heap
  sym_free(half);
  size_t before = sym_heap_in_use();
  void* again = sym_malloc(total / 2 + 64);
  PE_TEST(again != nullptr);
  sym_free(again);
  PE_EQUAL(sym_heap_in_use(), before);
}

BOOST_AUTO_TEST_CASE(alignment_and_zero_size) {
  for (size_t align : {size_t{64}, size_t{128}, size_t{4096}, size_t{1} << 16}) {
    void* p = sym_align(align, 10);
    BOOST_REQUIRE(p != nullptr);
    PE_EQUAL(reinterpret_cast<uintptr_t>(p) % align, 0u);
    sym_free(p);
  }
  void* z1 = sym_malloc(0);
  void* z2 = sym_malloc(0);
  PE_TEST(z1 != z2);
  sym_free(z2);
  sym_free(z1);
  sym_free(nullptr);  // a collective no-op
}
