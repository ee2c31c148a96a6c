// What ucx_bench (gasket) and ucp_registered (raw UCP) share so that their figures compare: the
// sizes, the iteration counts (compare.sh gives ucx_perftest the same ones) and the statistics.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <vector>

namespace ucx_bench {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxBytes = size_t{4} << 20;
constexpr size_t kSizes[] = {8, 64, 512, 4096, 32768, 262144, 1048576, 4194304};

// Iterations for one size: enough bytes to be stable, capped for slow paths.
inline long iterations(size_t bytes, long max_iters) {
  long by_volume = static_cast<long>((size_t{256} << 20) / bytes);
  return std::max(20L, std::min(max_iters, by_volume));
}

// Warm-up iterations before a latency loop of `iters`.
inline long warmup(long iters) { return std::min(iters / 10 + 1, 100L); }

inline double since_us(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// Runs op(1) .. op(iters + warm-up) and returns the median time of one call after the warm-up,
// in microseconds (perftest's 50th percentile).
template <typename Op>
double median_us(long iters, Op op) {
  std::vector<double> t;
  t.reserve(static_cast<size_t>(iters));
  const long warm = warmup(iters);
  for (long i = 1; i <= iters + warm; ++i) {
    auto start = Clock::now();
    op(i);
    if (i > warm) t.push_back(since_us(start));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace ucx_bench
