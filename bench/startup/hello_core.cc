// The smallest gasket job: init, report this PE's resident memory, barrier, finalize. bench/compare
// times whole jobs of it (launcher start to exit) and reads the resident memory after init.
#include <cstdio>

#include "bench/common/bench_results.h"
#include "bench/startup/resident.h"
#include "core/gasket.h"

int main() {
  if (!gasket::init().is_ok()) return 1;
  long kib = resident_kib();
  if (gasket::my_pe() == 0) {
    std::printf("hello from %d PEs; PE 0 resident after init: %.1f MiB\n", gasket::n_pes(), kib / 1024.0);
    bench_result("resident_after_init", "core", kib / 1024.0, "MiB");
  }
  gasket::barrier_all();
  return gasket::finalize().is_ok() ? 0 : 1;
}
