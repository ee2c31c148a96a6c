// The smallest gasket job: init, report this PE's resident memory, barrier, finalize. bench/compare
// times whole jobs of it (launcher start to exit) and reads the resident memory after init.
#include <cstdio>
#include <cstring>

#include "bench/common/bench_results.h"
#include "core/gasket.h"

namespace {
// VmRSS of this process in KiB, from /proc/self/status.
long resident_kib() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::strncmp(line, "VmRSS:", 6) == 0) std::sscanf(line + 6, "%ld", &kib);
  }
  std::fclose(f);
  return kib;
}
}  // namespace

int main() {
  if (!gasket::init().is_ok()) return 1;
  long kib = resident_kib();
  if (gasket::my_pe() == 0) {
    std::printf("hello from %d PEs; PE 0 resident after init: %.1f MiB\n", gasket::n_pes(), kib / 1024.0);
    bench_result("resident_after_init", "PE0", kib / 1024.0, "MiB");
  }
  gasket::barrier_all();
  return gasket::finalize().is_ok() ? 0 : 1;
}
