// Collectives over the core's one-sided operations. barrier_all is a dissemination barrier:
// in round k each PE signals PE (me + 2^k) mod n by writing the barrier's epoch into that PE's
// internal flag k, then waits for its own flag k to reach the epoch. Each flag has a single
// writer and epochs only grow, so nothing is ever reset. It runs on every path: the signal is an
// atomic set (direct CPU store, or the backend's), the wait a local poll that keeps progressing.
#include "core/runtime.h"

namespace gasket {

void barrier_all() {
  core::Runtime* r = core::Runtime::get();
  if (r == nullptr) abort_job(1, "gasket::barrier_all: the gasket runtime is not initialised");
  am::detail::check_may_block("gasket::barrier_all");
  quiet();
  int n = r->n_pes();
  if (n == 1) return;
  uint64_t epoch = r->next_barrier_epoch();
  core::InternalArea* area = r->internal();
  int me = r->my_pe();
  for (int k = 0, dist = 1; dist < n; ++k, dist <<= 1) {
    int partner = (me + dist) % n;
    atomic_set(&area->barrier_flags[k], epoch, partner, "gasket::barrier_all");
    wait_until(&area->barrier_flags[k], Cmp::kGe, epoch);
  }
}

}  // namespace gasket
