// The machine's physical floor, for reading every other figure against: memcpy bandwidth at
// sizes that live in L2, L3 and memory, and the one-way latency of a cache line bouncing between
// two cores (two threads pinned to different cores, ping-pong on one shared line).
//   floor [--quick]            prints a table
//   BENCH_RESULTS=1 floor      prints "RESULT<TAB>figure<TAB>x<TAB>value<TAB>unit" lines too
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "bench/common/bench_results.h"

namespace {

using Clock = std::chrono::steady_clock;

double memcpy_gbps(size_t bytes, int samples) {
  std::vector<char> a(bytes, 1), b(bytes, 2);
  std::vector<double> gbps;
  long iters = std::max<long>(2, static_cast<long>((size_t{256} << 20) / bytes));
  for (int s = 0; s < samples; ++s) {
    auto t0 = Clock::now();
    for (long i = 0; i < iters; ++i) {
      std::memcpy(b.data(), a.data(), bytes);
      asm volatile("" : : "r"(b.data()) : "memory");
    }
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    gbps.push_back(static_cast<double>(bytes) * static_cast<double>(iters) / ns);
  }
  std::sort(gbps.begin(), gbps.end());
  return gbps[gbps.size() / 2];
}

void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

// Median one-way latency in ns of a cache line passed between cores `a` and `b`.
double cache_line_ns(int a, int b, int samples, long round_trips) {
  alignas(64) static std::atomic<long> line{0};
  std::vector<double> ns;
  for (int s = 0; s < samples; ++s) {
    line.store(0);
    std::thread partner([&] {
      pin(b);
      for (long i = 0; i < round_trips; ++i) {
        while (line.load(std::memory_order_acquire) != 2 * i + 1) {
        }
        line.store(2 * i + 2, std::memory_order_release);
      }
    });
    pin(a);
    auto t0 = Clock::now();
    for (long i = 0; i < round_trips; ++i) {
      line.store(2 * i + 1, std::memory_order_release);
      while (line.load(std::memory_order_acquire) != 2 * i + 2) {
      }
    }
    double total = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    partner.join();
    ns.push_back(total / static_cast<double>(round_trips) / 2);
  }
  std::sort(ns.begin(), ns.end());
  return ns[ns.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  int samples = quick ? 3 : 9;
  std::printf("# machine floor, median of %d samples\n", samples);
  std::printf("%-28s %12s\n", "memcpy", "GB/s");
  const struct {
    size_t bytes;
    const char* name;
  } sizes[] = {{size_t{256} << 10, "256KiB"}, {size_t{1} << 20, "1MiB"}, {size_t{4} << 20, "4MiB"},
               {size_t{64} << 20, "64MiB"}};
  for (const auto& s : sizes) {
    if (quick && s.bytes > (size_t{4} << 20)) continue;
    double g = memcpy_gbps(s.bytes, samples);
    std::printf("%-28s %12.2f\n", s.name, g);
    bench_result("memcpy_bandwidth", s.name, g, "GB/s");
  }
  unsigned cpus = std::thread::hardware_concurrency();
  if (cpus >= 2) {
    double ns = cache_line_ns(0, 1, samples, quick ? 20000 : 200000);
    std::printf("%-28s %12.1f\n", "cache line core 0 <-> 1 ns", ns);
    bench_result("cache_line_one_way", "cores0-1", ns / 1000.0, "us");
  } else {
    std::printf("cache line ping-pong: skipped, this machine has one CPU\n");
  }
  return 0;
}
