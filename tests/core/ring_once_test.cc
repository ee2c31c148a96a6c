// The doorbell's ring (core/README.md "Waiting"): a writer wakes a napping PE once per nap. A PE
// that waits for a flag naps at once (spin budget of one poll) while a same-node peer streams
// puts into it; before, every put that found it napping rang it with a FUTEX_WAKE system call
// (0.4 us instead of 0.01 per 8-byte put, the slow mode of bench/core's put stream), now only the
// first one after each nap_begin does. Counted with the doorbell's ring count, not timed: the
// napper is woken at most once per nap, and a nap lasts a wake-up's latency, so a stream of
// 20000 puts sees tens of wakes (20000 before). 2 PEs on the direct path, each on its own core.
#define BOOST_TEST_MODULE ring_once
#include <cstdint>
#include <cstdlib>

#define GASKET_TEST_ENVIRONMENT()                   \
  do {                                              \
    setenv("GASKET_SPIN_COUNT", "1", 1);            \
    setenv("GASKET_NAP_LIMIT", "1000000", 1);       \
  } while (0)
#include "core/runtime.h"
#include "tests/core/fixture.h"

using namespace gasket;

BOOST_AUTO_TEST_CASE(put_stream_into_a_napping_pe_rings_it_once_per_nap) {
  constexpr long kPuts = 20000;
  const int me = my_pe();
  auto* data = static_cast<long*>(sym_calloc(kPuts, sizeof(long)));
  auto* flag = static_cast<long*>(sym_calloc(1, sizeof(long)));
  uint32_t* rings = &core::Runtime::get()->internal()->doorbell.rings;
  const uint32_t before = __atomic_load_n(rings, __ATOMIC_ACQUIRE);
  barrier_all();
  if (me == 0) {
    for (long i = 0; i < kPuts; ++i) put(&data[i], &i, sizeof i, 1);
    long one = 1;
    fence();
    put(flag, &one, sizeof one, 1);
  } else if (me == 1) {
    wait_until(flag, Cmp::kEq, 1L);
    const uint32_t wakes = __atomic_load_n(rings, __ATOMIC_ACQUIRE) - before;
    for (long i = 0; i < kPuts; ++i) PE_EQUAL(data[i], i);
    BOOST_TEST_MESSAGE("PE 1 was rung " << wakes << " times during a stream of " << kPuts << " puts");
    BOOST_TEST(wakes <= static_cast<uint32_t>(kPuts / 4));
  }
  barrier_all();
  sym_free(flag);
  sym_free(data);
}
