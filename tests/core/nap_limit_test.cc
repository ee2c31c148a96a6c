// A nap that nothing wakes ends at GASKET_NAP_LIMIT and the wait rechecks its condition: here a
// thread of the waiting PE's own process stores the awaited value with a plain store, which rings
// no doorbell and sends no input (core/README.md "Waiting"). With a 1-poll spin budget every wait
// naps at once; were a nap not bounded by its limit (a futex or poll() without the timeout), the
// wait would never return and the job would run into the launcher's timeout.
#define BOOST_TEST_MODULE nap_limit
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <thread>

#define GASKET_TEST_ENVIRONMENT()                \
  do {                                           \
    setenv("GASKET_SPIN_COUNT", "1", 1);         \
    setenv("GASKET_NAP_LIMIT", "20000", 1);      \
  } while (0)
#include "tests/core/fixture.h"

using namespace gasket;

BOOST_AUTO_TEST_CASE(an_unrung_wait_ends_at_the_nap_limit) {
  auto* word = static_cast<int64_t*>(sym_calloc(1, sizeof(int64_t)));
  for (int64_t round = 1; round <= 5; ++round) {
    barrier_all();  // every peer idle: no write or input reaches this PE during the wait
    std::thread unannounced([word, round] {
      usleep(30000);  // past the first nap's start
      __atomic_store_n(word, round, __ATOMIC_RELEASE);
    });
    int64_t seen = wait_until(word, Cmp::kEq, round);
    unannounced.join();
    PE_EQUAL(seen, round);
  }
  barrier_all();
  sym_free(word);
}
