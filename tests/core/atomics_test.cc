// Atomics on 32- and 64-bit integers and on float/double, from every PE to every PE, with exact
// results under contention.
#define BOOST_TEST_MODULE atomics
#include <boost/mpl/list.hpp>

#include <cstdint>

#include "tests/core/fixture.h"

using namespace gasket;

using IntegerTypes = boost::mpl::list<int32_t, int64_t, uint32_t, uint64_t, unsigned long long>;

BOOST_AUTO_TEST_CASE_TEMPLATE(concurrent_fetch_add_on_one_word_is_exact, T, IntegerTypes) {
  const int me = my_pe(), n = n_pes();
  T* counter = static_cast<T*>(sym_calloc(1, sizeof(T)));
  const int kIters = 2000;
  barrier_all();
  // Every PE hammers PE 0's word (and its own, to mix paths).
  T seen_max = 0;
  for (int i = 0; i < kIters; ++i) {
    T old = atomic_fetch_add(counter, T{1}, 0);
    if (old > seen_max) seen_max = old;
    atomic_add(counter, T{2}, (me + 1) % n);
  }
  barrier_all();
  T total = atomic_fetch(counter, 0);
  T want0 = static_cast<T>(n * kIters + 2 * kIters);  // PE 0 also gets the +2s from PE n-1
  if (n == 1) want0 = static_cast<T>(3 * kIters);
  PE_EQUAL(total, want0);
  PE_TEST(seen_max < want0);
  barrier_all();
  sym_free(counter);
}

BOOST_AUTO_TEST_CASE_TEMPLATE(every_integer_operation, T, IntegerTypes) {
  const int me = my_pe(), n = n_pes();
  const int right = (me + 1) % n;
  T* w = static_cast<T*>(sym_calloc(8, sizeof(T)));
  barrier_all();
  // Each PE operates only on its right neighbour's words: results are deterministic.
  atomic_set(&w[0], T{40}, right);
  PE_EQUAL(atomic_fetch(&w[0], right), T{40});
  PE_EQUAL(atomic_swap(&w[0], T{41}, right), T{40});
  PE_EQUAL(atomic_compare_swap(&w[0], T{99}, T{50}, right), T{41});  // fails: unchanged
  PE_EQUAL(atomic_compare_swap(&w[0], T{41}, T{50}, right), T{41});  // succeeds
  PE_EQUAL(atomic_fetch(&w[0], right), T{50});
  PE_EQUAL(atomic_fetch_inc(&w[0], right), T{50});
  atomic_inc(&w[0], right);
  PE_EQUAL(atomic_fetch_add(&w[0], T{8}, right), T{52});
  atomic_add(&w[0], T{3}, right);
  PE_EQUAL(atomic_fetch(&w[0], right), T{63});
  atomic_set(&w[1], T{0xF0}, right);
  PE_EQUAL(atomic_fetch_and(&w[1], T{0x3C}, right), T{0xF0});
  atomic_and(&w[1], T{0x1F}, right);
  PE_EQUAL(atomic_fetch(&w[1], right), T{0x10});
  PE_EQUAL(atomic_fetch_or(&w[1], T{0x01}, right), T{0x10});
  atomic_or(&w[1], T{0x40}, right);
  PE_EQUAL(atomic_fetch(&w[1], right), T{0x51});
  PE_EQUAL(atomic_fetch_xor(&w[1], T{0x11}, right), T{0x51});
  atomic_xor(&w[1], T{0xFF}, right);
  PE_EQUAL(atomic_fetch(&w[1], right), static_cast<T>(0x40 ^ 0xFF));
  barrier_all();
  // What the left neighbour did is visible locally.
  PE_EQUAL(w[0], T{63});
  PE_EQUAL(w[1], static_cast<T>(0x40 ^ 0xFF));
  barrier_all();
  sym_free(w);
}

BOOST_AUTO_TEST_CASE(floating_point_fetch_set_swap) {
  const int me = my_pe(), n = n_pes();
  const int right = (me + 1) % n;
  auto* f = static_cast<float*>(sym_calloc(2, sizeof(float)));
  auto* d = static_cast<double*>(sym_calloc(2, sizeof(double)));
  barrier_all();
  atomic_set(&f[0], 1.5f + static_cast<float>(me), right);
  atomic_set(&d[0], 2.25 + me, right);
  barrier_all();
  const int left = (me + n - 1) % n;
  PE_EQUAL(f[0], 1.5f + static_cast<float>(left));
  PE_EQUAL(d[0], 2.25 + left);
  barrier_all();
  PE_EQUAL(atomic_swap(&d[0], -1.0, right), 2.25 + me);
  PE_EQUAL(atomic_fetch(&d[0], right), -1.0);
  PE_EQUAL(atomic_swap(&f[0], 0.5f, right), 1.5f + static_cast<float>(me));
  PE_EQUAL(atomic_fetch(&f[0], right), 0.5f);
  PE_EQUAL(atomic_compare_swap(&d[0], -1.0, 3.0, right), -1.0);
  PE_EQUAL(atomic_fetch(&d[0], right), 3.0);
  barrier_all();
  sym_free(d);
  sym_free(f);
}

BOOST_AUTO_TEST_CASE(compare_swap_lock_protects_a_counter) {
  const int me = my_pe(), n = n_pes();
  auto* lock = static_cast<int64_t*>(sym_calloc(1, sizeof(int64_t)));
  auto* plain = static_cast<int64_t*>(sym_calloc(1, sizeof(int64_t)));
  barrier_all();
  const int kIters = 200;
  for (int i = 0; i < kIters; ++i) {
    unsigned polls = 0;
    while (atomic_compare_swap(lock, int64_t{0}, int64_t{me + 1}, 0) != 0) detail::wait_step(&polls);
    // Non-atomic read-modify-write under the lock.
    int64_t v;
    get(&v, plain, sizeof v, 0);
    ++v;
    put(plain, &v, sizeof v, 0);
    quiet();
    PE_EQUAL(atomic_swap(lock, int64_t{0}, 0), int64_t{me + 1});
  }
  barrier_all();
  if (me == 0) PE_EQUAL(*plain, int64_t{n * kIters});
  barrier_all();
  sym_free(plain);
  sym_free(lock);
}
