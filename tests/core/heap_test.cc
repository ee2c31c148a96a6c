// The symmetric heap's collective calls across PEs: contents, alignment, realloc, exhaustion.
#define BOOST_TEST_MODULE heap
#include <cstring>

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
