// The waiting policy's nap (core/README.md "Waiting"): with a spin budget of one poll every wait
// naps at once, and a nap lasts up to a second unless a peer's write rings the doorbell. Every
// pattern below must then finish with the right values in a few seconds; a write that forgets to
// ring (put, strided put, atomic, barrier) costs a second per wait, hundreds of waits, and the
// test runs into its timeout. On backend paths waits yield instead (checked for values only).
#define BOOST_TEST_MODULE naps
#include <cstdlib>
#include <vector>

#define GASKET_TEST_ENVIRONMENT()                   \
  do {                                              \
    setenv("GASKET_SPIN_COUNT", "1", 1);            \
    setenv("GASKET_NAP_LIMIT", "1000000", 1);       \
  } while (0)
#include "tests/core/fixture.h"

using namespace gasket;

constexpr int kRounds = 300;

BOOST_AUTO_TEST_CASE(put_then_flag_wakes_the_waiter) {
  const int me = my_pe(), n = n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  auto* value = static_cast<long*>(sym_calloc(1, sizeof(long)));
  auto* flag = static_cast<long*>(sym_calloc(1, sizeof(long)));
  for (long round = 1; round <= kRounds; ++round) {
    long v = round * 1000 + me;
    put(value, &v, sizeof v, right);
    fence();
    put(flag, &round, sizeof round, right);
    wait_until(flag, Cmp::kGe, round);
    PE_EQUAL(*value, round * 1000 + left);
    barrier_all();
  }
  sym_free(flag);
  sym_free(value);
}

BOOST_AUTO_TEST_CASE(strided_put_and_atomics_wake_the_waiter) {
  const int me = my_pe(), n = n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  auto* strided_flags = static_cast<long*>(sym_calloc(4, sizeof(long)));
  auto* counter = static_cast<long*>(sym_calloc(1, sizeof(long)));
  for (long round = 1; round <= kRounds; ++round) {
    long src[2] = {round, round};
    iput(strided_flags, src, 2, 1, sizeof(long), 2, right);  // words 0 and 2
    wait_until(&strided_flags[2], Cmp::kEq, round);
    PE_EQUAL(strided_flags[0], round);
    atomic_add(counter, long{1}, left);
    wait_until(counter, Cmp::kEq, round);  // the right neighbour's add
  }
  PE_EQUAL(*counter, long{kRounds});
  barrier_all();
  sym_free(counter);
  sym_free(strided_flags);
}

BOOST_AUTO_TEST_CASE(barrier_rounds_wake_every_pe) {
  auto* arrivals = static_cast<long*>(sym_calloc(1, sizeof(long)));
  for (long round = 1; round <= kRounds; ++round) {
    atomic_add(arrivals, long{1}, 0);
    barrier_all();
    if (my_pe() == 0) PE_EQUAL(*arrivals, round * n_pes());
    barrier_all();
  }
  sym_free(arrivals);
}
