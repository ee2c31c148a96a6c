// 8-byte put, get and fetch-add latency from PE 0 to PE 1 on a symmetric heap object and on a
// global variable. With redistribution (the default) the two must not differ; run again with
// GASKET_REDISTRIBUTE=no to see the kernel-copy path static data takes without it. Prints a table.
//   gasketrun -n 2 redistribution_bench [iterations]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/gasket.h"

namespace {
alignas(64) int64_t g_word;  // the global under test (.bss)

template <typename Op>
double latency_us(Op op, int iterations) {
  for (int i = 0; i < iterations / 10; ++i) op();  // warm-up
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < iterations; ++i) op();
  gasket::quiet();
  std::chrono::duration<double, std::micro> t = std::chrono::steady_clock::now() - start;
  return t.count() / iterations;
}
}  // namespace

int main(int argc, char** argv) {
  int iterations = argc > 1 ? std::atoi(argv[1]) : 100000;
  if (!gasket::init().is_ok()) return 2;
  auto* heap_word = static_cast<int64_t*>(gasket::sym_calloc(1, sizeof(int64_t)));
  const int me = gasket::my_pe(), n = gasket::n_pes();
  gasket::barrier_all();
  if (me == 0 && n > 1) {
    const char* redistribute = std::getenv("GASKET_REDISTRIBUTE");
    std::printf("# 8-byte latency PE 0 -> PE 1 over %s, GASKET_REDISTRIBUTE=%s, %d iterations\n",
                gasket::transport_name(1), redistribute ? redistribute : "yes (default)", iterations);
    std::printf("%-10s %12s %12s\n", "operation", "heap (us)", "global (us)");
    int64_t v = 1;
    for (int which = 0; which < 3; ++which) {
      double t[2];
      for (int g = 0; g < 2; ++g) {
        int64_t* target = g == 0 ? heap_word : &g_word;
        if (which == 0) t[g] = latency_us([&] { gasket::put(target, &v, sizeof v, 1); }, iterations);
        if (which == 1) t[g] = latency_us([&] { gasket::get(&v, target, sizeof v, 1); }, iterations);
        if (which == 2) t[g] = latency_us([&] { gasket::atomic_fetch_add(target, int64_t{1}, 1); }, iterations);
      }
      std::printf("%-10s %12.3f %12.3f\n", which == 0 ? "put" : which == 1 ? "get" : "fetch_add", t[0], t[1]);
    }
  }
  gasket::barrier_all();
  gasket::sym_free(heap_word);
  return gasket::finalize().is_ok() ? 0 : 1;
}
