// The waiting policy (core/README.md "Waiting"): spin, then nap on this PE's doorbell — on its
// futex when every peer rings it, in poll() on its socket and the backend's input fds on backend
// paths and with late peers — or yield where nothing would wake a sleeper.
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <vector>

#include "core/runtime.h"

namespace gasket {
namespace detail {

using core::Runtime;

void wait_step(unsigned* polls) {
  Runtime* r = Runtime::get();
  if (r != nullptr) r->progress();
  back_off(polls);
}

namespace {
void pause_once() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
// Past an oversubscribed job's 16 polls, every kYieldEvery-th poll asks the run queue and, while
// the CPUs are free, yields (at once when nothing else may run on this CPU; else to the partner
// sharing it).
constexpr unsigned kYieldEvery = 8;
}  // namespace

bool spin(unsigned* polls, bool pause) {
  Runtime* r = Runtime::get();
  unsigned budget = r != nullptr ? r->spin_count() : 1000;
  const unsigned n = ++*polls;
  if (n < budget) {
    if (pause) pause_once();
    return false;
  }
  // Past the budget a wait naps at once only while the machine's CPUs are contested; while they
  // are free it polls on (Runtime::free_cpus_spin_count), since a napping PE costs whoever writes
  // to it a cross-CPU wake-up: 6-7 µs of a large put's FUTEX_WAKE on this VM (PE 1 waiting in a
  // barrier while PE 0 streams 4 MiB puts into it), 12-15 µs per message for an oversubscribed
  // job whose waiters have a CPU each (put/wait beside PEs idle in a barrier), where polling on
  // answers in 0.1 µs, and a partner that shares this CPU gets it at the next yield.
  if (r == nullptr || n >= r->free_cpus_spin_count()) return true;
  if ((n - budget) % kYieldEvery != 0) {
    if (pause) pause_once();
    return false;
  }
  if (r->cpus_contested()) {
    *polls = r->free_cpus_spin_count();  // spent: nap (or yield) from now until woken
    return true;
  }
  sched_yield();
  return false;
}

void back_off(unsigned* polls) {
  // Past the spin budget (at once when PEs outnumber cores) give the core to a PE that has work;
  // this is what keeps 8 PEs on 2 cores from livelocking.
  if (spin(polls)) sched_yield();
}

bool nap_allowed() {
  Runtime* r = Runtime::get();
  return r != nullptr && r->naps_allowed();
}

int cpus_online() {
  Runtime* r = Runtime::get();
  const core::RunQueue* queue = r != nullptr ? r->run_queue() : nullptr;
  return queue != nullptr ? queue->cpus() : 1;
}

bool cpus_shared_by_set_alone(int members) {
  Runtime* r = Runtime::get();
  const core::RunQueue* queue = r != nullptr ? r->run_queue() : nullptr;
  if (queue == nullptr || members > 2 * queue->cpus()) return false;
  int tasks = queue->runnable();
  return tasks >= 0 && tasks <= std::max(members, queue->cpus());
}

// The doorbell's ring count is the futex word: the internal segment is a shared file mapping,
// so the (non-private) futex works between the PEs of a node. A poll nap counts itself in
// `pollers` before `nappers`, so a ringer that sees the napper sees the poller too.
bool nap_begin(Nap* nap) {
  Runtime* r = Runtime::get();
  if (r == nullptr) return false;
  Runtime::NapKind kind = r->nap_kind();
  if (kind == Runtime::NapKind::kNone) return false;
  core::InternalArea::Doorbell& bell = r->internal()->doorbell;
  nap->in_poll = kind == Runtime::NapKind::kPoll;
  if (nap->in_poll) __atomic_fetch_add(&bell.pollers, 1, __ATOMIC_SEQ_CST);
  __atomic_fetch_add(&bell.nappers, 1, __ATOMIC_SEQ_CST);
  // The count is read before arming: a peer that takes this arming (ring) bumps it afterwards,
  // so the futex below either sees the bump or is woken by it (a poller gets its byte).
  nap->rings = __atomic_load_n(&bell.rings, __ATOMIC_ACQUIRE);
  __atomic_store_n(&bell.armed, 1, __ATOMIC_RELAXED);
  // A full barrier between arming and the caller's recheck (ring's fence is the writer's half).
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  return true;
}

namespace {
// Sleeps until a peer rings (a byte on the doorbell socket), the backend or a late peer's link
// has input, or the nap limit passes; yields instead when input may already wait unseen.
void sleep_in_poll(Runtime& r, timespec limit) {
  std::vector<pollfd> fds{pollfd{r.bell().fd(), POLLIN, 0}};
  if (!r.prepare_sleep(&fds)) {
    sched_yield();
    return;
  }
  if (ppoll(fds.data(), fds.size(), &limit, nullptr) > 0 && fds[0].revents != 0) r.bell().drain();
}
}  // namespace

void nap_end(const Nap& nap, bool sleep) {
  Runtime* r = Runtime::get();
  core::InternalArea::Doorbell& bell = r->internal()->doorbell;
  if (sleep) {
    unsigned us = r->nap_limit_us();
    timespec limit{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000};
    if (nap.in_poll) {
      sleep_in_poll(*r, limit);
    } else {
      // Returns at once when a peer rang after nap_begin (the count moved on).
      syscall(SYS_futex, &bell.rings, FUTEX_WAIT, nap.rings, &limit, nullptr, 0);
    }
  }
  __atomic_fetch_sub(&bell.nappers, 1, __ATOMIC_RELEASE);
  if (nap.in_poll) __atomic_fetch_sub(&bell.pollers, 1, __ATOMIC_RELEASE);
}

}  // namespace detail
}  // namespace gasket
