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

#include "bench/common/bench_clock.h"
#include "bench/common/bench_results.h"
#include "core/gasket.h"

namespace {

using Clock = std::chrono::steady_clock;

// Runs `body` `iters` times per sample, `samples` times; returns the median time of one call in
// ns. With `fit`, fewer per sample when the fastest of three timed warm-up calls shows `body` slow
// (bench_clock.h); a collective body gets one warm-up call and no fitting, as every PE must run it
// the same number of times.
double median_ns(int samples, long iters, const std::function<void()>& body, bool fit = true) {
  std::vector<double> t;
  double warm_us = 1e30;
  for (int i = 0; i < (fit ? 3 : 1); ++i) {
    auto warm = Clock::now();
    body();
    warm_us = std::min(warm_us, std::chrono::duration<double, std::micro>(Clock::now() - warm).count());
  }
  if (fit) iters = bench_sample_iterations(iters, warm_us);
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

// Barriers per sample, the same on every PE (all call this): `planned`, or fewer when ten timed
// barriers show one slow (bench_clock.h). PE 0 decides and writes the count into every PE's `count`.
long barrier_iterations(long planned, uint64_t* count) {
  gasket::barrier_all();
  auto start = Clock::now();
  for (int i = 0; i < 10; ++i) gasket::barrier_all();
  double us = std::chrono::duration<double, std::micro>(Clock::now() - start).count() / 10;
  if (gasket::my_pe() == 0) {
    auto n = static_cast<uint64_t>(bench_sample_iterations(planned, us));
    for (int pe = 0; pe < gasket::n_pes(); ++pe) gasket::atomic_set(count, n, pe);
    gasket::quiet();
  }
  gasket::barrier_all();
  return static_cast<long>(gasket::atomic_fetch(count, gasket::my_pe()));
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
      // Streaming: many puts, one quiet (as many as fit a sample at the put+quiet latency).
      it = bench_sample_iterations(it, put_ns / 1e3);
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
    long barriers = barrier_iterations(quick ? 2000 : 20000, word);
    double barrier_us = median_ns(samples, barriers, [] { gasket::barrier_all(); }, false) / 1e3;
    std::printf("\nbarrier_all (%d PEs) us %15.3f\n", gasket::n_pes(), barrier_us);
    bench_result("core_barrier_latency", (std::to_string(gasket::n_pes()) + "PEs").c_str(), barrier_us, "us");
  } else {
    // The other PEs join PE 0's barrier measurement: the agreement on its length, one warm-up
    // call, then `samples` x `barriers`. With more than 2 PEs only the barrier involves them.
    gasket::wait_until(phase, gasket::Cmp::kEq, uint64_t{1});
    long barriers = barrier_iterations(quick ? 2000 : 20000, word);
    for (long i = 0; i < samples * barriers + 1; ++i) gasket::barrier_all();
  }
  gasket::barrier_all();
  gasket::sym_free(phase);
  gasket::sym_free(word);
  gasket::sym_free(remote);
  (void)gasket::finalize();
  return 0;
}
