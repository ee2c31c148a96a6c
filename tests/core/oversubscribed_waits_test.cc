// The oversubscribed waiting rule (core/README.md "Waiting"): past its 16 polls a wait of an
// oversubscribed job polls on, yielding every few polls, while the machine's runnable tasks fit
// its CPUs, and naps once they do not. The job is declared oversubscribed at every PE count and
// the nap limit is 1000 s: a wake-up lost between the polling and the napping halves would hang
// the wait and the job would run into the test's timeout. Values are checked at every turn.
//   - a put/wait pair (PE 0 and PE n-1) while the other PEs sleep in a barrier: the bench's
//     pattern, the uncontested case when the machine is otherwise idle;
//   - a ring of waits through every PE: all PEs runnable, contested from 4 PEs on 2 cores;
//   - the pair again with every PE bound to one CPU: the partner runs only when the waiter
//     yields or naps.
#define BOOST_TEST_MODULE oversubscribed_waits
#include <sched.h>

#include <cstdint>
#include <cstdlib>

#define GASKET_TEST_ENVIRONMENT()                      \
  do {                                                 \
    setenv("GASKET_OVERSUBSCRIBED", "yes", 1);         \
    setenv("GASKET_SPIN_COUNT", "100000", 1);          \
    setenv("GASKET_NAP_LIMIT", "1000000000", 1);       \
  } while (0)
#include "tests/core/fixture.h"

using namespace gasket;

namespace {

// PE 0 puts `turn` into PE n-1's ping and waits for it in its own pong; PE n-1 answers.
void pair_round_trips(int64_t* ping, int64_t* pong, int64_t first, int64_t count) {
  const int last = n_pes() - 1;
  for (int64_t turn = first; turn < first + count; ++turn) {
    if (my_pe() == 0) {
      put(ping, &turn, sizeof turn, last);
      PE_EQUAL(wait_until(pong, Cmp::kEq, turn), turn);
    } else if (my_pe() == last) {
      PE_EQUAL(wait_until(ping, Cmp::kEq, turn), turn);
      put(pong, &turn, sizeof turn, 0);
    }
  }
  barrier_all();  // the PEs between them sleep here meanwhile
}

struct Words {
  int64_t* ping = static_cast<int64_t*>(sym_calloc(2, sizeof(int64_t)));
  int64_t* pong = ping + 1;
  ~Words() {
    barrier_all();
    sym_free(ping);
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_put_wait_pair_beside_sleeping_pes) {
  BOOST_REQUIRE(oversubscribed());
  Words w;
  pair_round_trips(w.ping, w.pong, 1, 3000);
}

BOOST_AUTO_TEST_CASE(a_ring_of_waits_through_every_pe) {
  Words w;
  const int n = n_pes(), me = my_pe();
  const int64_t laps = 300;
  for (int64_t lap = 1; lap <= laps; ++lap) {
    // PE 0 starts each lap; every PE waits for its left neighbour's token and passes it on.
    if (me != 0) PE_EQUAL(wait_until(w.ping, Cmp::kEq, lap), lap);
    put(w.ping, &lap, sizeof lap, (me + 1) % n);
    if (me == 0) PE_EQUAL(wait_until(w.ping, Cmp::kEq, lap), lap);
  }
}

BOOST_AUTO_TEST_CASE(a_pair_sharing_one_cpu) {
  cpu_set_t all, first;
  BOOST_REQUIRE(sched_getaffinity(0, sizeof all, &all) == 0);
  int cpu = 0;
  while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &all)) ++cpu;
  CPU_ZERO(&first);
  CPU_SET(cpu, &first);
  BOOST_REQUIRE(sched_setaffinity(0, sizeof first, &first) == 0);
  barrier_all();  // every PE bound before the first put
  Words w;
  pair_round_trips(w.ping, w.pong, 1, 1000);
  BOOST_REQUIRE(sched_setaffinity(0, sizeof all, &all) == 0);
}
