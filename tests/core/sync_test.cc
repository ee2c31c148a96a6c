// Ordering and synchronisation: fence and quiet, wait_until/test with every comparison, barrier.
#define BOOST_TEST_MODULE sync
#include <vector>

#include "tests/core/fixture.h"

using namespace gasket;

BOOST_AUTO_TEST_CASE(fence_orders_data_before_flag) {
  const int me = my_pe(), n = n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t kWords = 4096;
  auto* data = static_cast<long*>(sym_calloc(kWords, sizeof(long)));
  auto* flag = static_cast<long*>(sym_calloc(1, sizeof(long)));
  std::vector<long> src(kWords);
  for (int round = 1; round <= 50; ++round) {
    for (size_t i = 0; i < kWords; ++i) src[i] = round * 1000000L + me * 10000L + static_cast<long>(i);
    put(data, src.data(), kWords * sizeof(long), right);
    fence();
    atomic_set(flag, long{round}, right);
    wait_until(flag, Cmp::kGe, long{round});
    // The flag arrived after the data it guards.
    bool ok = true;
    for (size_t i = 0; i < kWords && ok; ++i) {
      ok = data[i] == round * 1000000L + left * 10000L + static_cast<long>(i);
    }
    BOOST_TEST(ok, "PE " << me << ": round " << round << " flag seen before its data");
    barrier_all();  // nobody overwrites `data` before its owner checked it
  }
  sym_free(flag);
  sym_free(data);
}

BOOST_AUTO_TEST_CASE(quiet_completes_puts_before_a_signal) {
  const int me = my_pe(), n = n_pes();
  auto* inbox = static_cast<int*>(sym_calloc(static_cast<size_t>(n), sizeof(int)));
  auto* arrived = static_cast<int*>(sym_calloc(1, sizeof(int)));
  for (int pe = 0; pe < n; ++pe) {
    int v = 100 + me;
    put_nbi(&inbox[me], &v, sizeof v, pe);
  }
  quiet();
  for (int pe = 0; pe < n; ++pe) atomic_add(arrived, 1, pe);
  wait_until(arrived, Cmp::kEq, n);
  for (int from = 0; from < n; ++from) PE_EQUAL(inbox[from], 100 + from);
  barrier_all();
  sym_free(arrived);
  sym_free(inbox);
}

BOOST_AUTO_TEST_CASE(wait_until_every_comparison) {
  const int me = my_pe(), n = n_pes();
  const int right = (me + 1) % n;
  auto* v = static_cast<int64_t*>(sym_calloc(6, sizeof(int64_t)));
  barrier_all();
  // The right neighbour's variables move to values that satisfy each comparison.
  atomic_set(&v[0], int64_t{5}, right);   // == 5
  atomic_set(&v[1], int64_t{1}, right);   // != 0
  atomic_set(&v[2], int64_t{11}, right);  // > 10
  atomic_set(&v[3], int64_t{10}, right);  // >= 10
  atomic_set(&v[4], int64_t{-3}, right);  // < -2
  atomic_set(&v[5], int64_t{-2}, right);  // <= -2
  PE_EQUAL(wait_until(&v[0], Cmp::kEq, int64_t{5}), 5);
  PE_EQUAL(wait_until(&v[1], Cmp::kNe, int64_t{0}), 1);
  PE_EQUAL(wait_until(&v[2], Cmp::kGt, int64_t{10}), 11);
  PE_EQUAL(wait_until(&v[3], Cmp::kGe, int64_t{10}), 10);
  PE_EQUAL(wait_until(&v[4], Cmp::kLt, int64_t{-2}), -3);
  PE_EQUAL(wait_until(&v[5], Cmp::kLe, int64_t{-2}), -2);
  PE_TEST(test(&v[0], Cmp::kEq, int64_t{5}));
  PE_TEST(!test(&v[0], Cmp::kNe, int64_t{5}));
  PE_TEST(!test(&v[2], Cmp::kLt, int64_t{11}));
  PE_TEST(test(&v[4], Cmp::kLe, int64_t{-3}));
  barrier_all();
  sym_free(v);
}

BOOST_AUTO_TEST_CASE(many_barriers_keep_pes_in_step) {
  const int me = my_pe(), n = n_pes();
  auto* counter = static_cast<long*>(sym_calloc(1, sizeof(long)));
  for (int round = 1; round <= 300; ++round) {
    atomic_add(counter, long{1}, 0);
    barrier_all();
    // After the barrier PE 0's counter holds every PE's increment of this round, no more.
    long seen = atomic_fetch(counter, 0);
    BOOST_TEST(seen == long{round} * n, "PE " << me << ": round " << round << " sees " << seen);
    barrier_all();
  }
  sym_free(counter);
}
