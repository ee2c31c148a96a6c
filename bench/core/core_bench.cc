// Latency and bandwidth of the core's one-sided operations between PE 0 and PE 1, on whatever
// path reaches PE 1 (direct same-node by default; a backend with GASKET_LOCAL=backend).
// Medians of repeated runs; memcpy is measured in the same run as the machine's floor.
//   gasketrun -n 2 core_bench [--quick]     (more PEs: the barrier is measured across all of them)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "bench/common/bench_results.h"
#include "core/gasket.h"

namespace {

using Clock = std::chrono::steady_clock;

// Runs `body` `iters` times per sample, `samples` times; returns the median time of one call in ns.
double median_ns(int samples, long iters, const std::function<void()>& body) {
  std::vector<double> t;
  body();  // warm up
  for (int s = 0; s < samples; ++s) {
    auto start = Clock::now();
    for (long i = 0; i < iters; ++i) body();
    t.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() / iters);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

long iterations_for(size_t bytes, bool quick) {
  long base = quick ? 2000 : 20000;
  long it = static_cast<long>(base * 64 / (64 + bytes / 64));
  return std::max(it, quick ? 3L : 20L);
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  if (!gasket::init().is_ok()) return 1;
  const int me = gasket::my_pe();
  if (gasket::n_pes() < 2) {
    std::fprintf(stderr, "core_bench needs 2 PEs: gasketrun -n 2 core_bench\n");
    gasket::abort_job(2, "core_bench needs 2 PEs");
  }
  const size_t kMax = size_t{4} << 20;
  auto* remote = static_cast<char*>(gasket::sym_malloc(kMax));
  auto* word = static_cast<uint64_t*>(gasket::sym_calloc(1, sizeof(uint64_t)));
  // PE 1 waits on its own cache line, so its polling does not disturb the measured word.
  auto* phase = static_cast<uint64_t*>(gasket::sym_calloc(1, sizeof(uint64_t)));
  std::vector<char> local(kMax, 1), other(kMax, 2);
  const int samples = quick ? 5 : 15;
  if (me == 0) {
    std::printf("# gasket core_bench: PE 0 -> PE 1 over %s, median of %d samples\n",
                gasket::transport_name(1), samples);
    std::printf("%10s %14s %12s %14s %12s\n", "bytes", "put+quiet us", "get us", "put GB/s", "memcpy GB/s");
    for (size_t bytes = 8; bytes <= kMax; bytes *= 2) {
      long it = iterations_for(bytes, quick);
      double put_ns = median_ns(samples, it, [&] {
        gasket::put(remote, local.data(), bytes, 1);
        gasket::quiet();
      });
      double get_ns = median_ns(samples, it, [&] { gasket::get(local.data(), remote, bytes, 1); });
      // Streaming: many puts, one quiet.
      double stream_ns = median_ns(samples, 1, [&] {
        for (long i = 0; i < it; ++i) gasket::put(remote, local.data(), bytes, 1);
        gasket::quiet();
      }) / static_cast<double>(it);
      double copy_ns = median_ns(samples, it, [&] {
        std::memcpy(other.data(), local.data(), bytes);
        asm volatile("" : : "r"(other.data()) : "memory");
      });
      std::printf("%10zu %14.3f %12.3f %14.2f %12.2f\n", bytes, put_ns / 1e3, get_ns / 1e3,
                  static_cast<double>(bytes) / stream_ns, static_cast<double>(bytes) / copy_ns);
      bench_result_bytes("core_put_latency", bytes, put_ns / 1e3, "us");
      bench_result_bytes("core_get_latency", bytes, get_ns / 1e3, "us");
      bench_result_bytes("core_put_bandwidth", bytes, static_cast<double>(bytes) / stream_ns, "GB/s");
      if (bytes == (size_t{1} << 20)) {
        std::printf("# 1 MiB: put bandwidth is %.0f%% of memcpy\n", 100.0 * copy_ns / stream_ns);
      }
    }
    long it = quick ? 20000 : 200000;
    std::printf("\n%-28s %10s\n", "atomic (8 bytes)", "latency us");
    struct Row {
      const char* name;
      std::function<void()> op;
    } rows[] = {
        {"fetch_add", [&] { gasket::atomic_fetch_add(word, uint64_t{1}, 1); }},
        {"add + quiet", [&] { gasket::atomic_add(word, uint64_t{1}, 1); gasket::quiet(); }},
        {"compare_swap", [&] { gasket::atomic_compare_swap(word, uint64_t{0}, uint64_t{1}, 1); }},
        {"swap", [&] { gasket::atomic_swap(word, uint64_t{3}, 1); }},
        {"fetch", [&] { (void)gasket::atomic_fetch(word, 1); }},
        {"set + quiet", [&] { gasket::atomic_set(word, uint64_t{5}, 1); gasket::quiet(); }},
    };
    for (const Row& r : rows) {
      double us = median_ns(samples, it, r.op) / 1e3;
      std::printf("%-28s %10.3f\n", r.name, us);
      bench_result("core_atomic_latency", r.name, us, "us");
    }
    for (int pe = 1; pe < gasket::n_pes(); ++pe) gasket::atomic_set(phase, uint64_t{1}, pe);
    double barrier_us = median_ns(samples, quick ? 2000 : 20000, [] { gasket::barrier_all(); }) / 1e3;
    std::printf("\nbarrier_all (%d PEs) us %15.3f\n", gasket::n_pes(), barrier_us);
    bench_result("core_barrier_latency", (std::to_string(gasket::n_pes()) + "PEs").c_str(), barrier_us, "us");
  } else {
    // The other PEs join PE 0's barrier measurement: one warm-up call, then `samples` x `it`
    // barriers. With more than 2 PEs only the barrier involves them.
    gasket::wait_until(phase, gasket::Cmp::kEq, uint64_t{1});
    long it = quick ? 2000 : 20000;
    for (long i = 0; i < samples * it + 1; ++i) gasket::barrier_all();
  }
  gasket::barrier_all();
  gasket::sym_free(phase);
  gasket::sym_free(word);
  gasket::sym_free(remote);
  (void)gasket::finalize();
  return 0;
}
