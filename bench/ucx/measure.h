// What ucx_bench (gasket) and ucp_registered (raw UCP) share so that their figures compare: the
// sizes, the iteration counts (compare.sh gives ucx_perftest the same ones) and the statistics.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace ucx_bench {

using Clock = std::chrono::steady_clock;
constexpr size_t kMaxBytes = size_t{4} << 20;
constexpr size_t kSizes[] = {8, 64, 512, 4096, 32768, 262144, 1048576, 4194304};

// The local side of every transfer: kMaxBytes of ones on a page boundary, as ucx_perftest's
// buffers are. (A std::vector's data sits 16 bytes past a page: glibc's memcpy of a few KiB, rep
// movsb, then runs at another speed.)
class LocalBuffer {
 public:
  LocalBuffer() : bytes_(static_cast<char*>(std::aligned_alloc(4096, kMaxBytes))) {
    if (bytes_ == nullptr) std::abort();
    std::memset(bytes_, 1, kMaxBytes);
  }
  ~LocalBuffer() { std::free(bytes_); }
  LocalBuffer(const LocalBuffer&) = delete;
  LocalBuffer& operator=(const LocalBuffer&) = delete;
  char* data() { return bytes_; }

 private:
  char* bytes_;
};

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

// A timestamp as ucx_perftest takes one (ucs_get_time: the TSC on x86), in ticks.
inline uint64_t timestamp() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_ia32_rdtsc();
#else
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
#endif
}

// Runs op(1) .. op(iters + warm-up) and returns the median time of one iteration after the
// warm-up, in microseconds (perftest's 50th percentile). Timed as ucx_perftest times its loops
// (ucx_perf_update): one timestamp per iteration, an iteration's time being the interval since
// the previous timestamp; ticks become microseconds at the rate they advanced against
// steady_clock over the loop.
template <typename Op>
double median_us(long iters, Op op) {
  const long warm = warmup(iters);
  for (long i = 1; i <= warm; ++i) op(i);
  std::vector<uint64_t> t(static_cast<size_t>(iters));
  const auto start = Clock::now();
  const uint64_t first = timestamp();
  uint64_t previous = first;
  for (long i = 0; i < iters; ++i) {
    op(warm + 1 + i);
    const uint64_t now = timestamp();
    t[static_cast<size_t>(i)] = now - previous;
    previous = now;
  }
  const double us_per_tick = since_us(start) / static_cast<double>(std::max<uint64_t>(1, previous - first));
  std::sort(t.begin(), t.end());
  return static_cast<double>(t[t.size() / 2]) * us_per_tick;
}

// Samples of a put stream: compare.sh runs ucx_perftest's ucp_put_bw as many times and takes the
// median of its figures, so both sides are the median of equally long samples.
constexpr int kStreamSamples = 7;

// MB/s (MB = 2^20 bytes) of a stream of `iters` calls of op(): the median of kStreamSamples
// samples. A sample is timed as ucx_perftest times ucp_put_bw (ucx_perf_update): a timestamp after
// each call, the figure taken at the last one, so the final flush is outside; complete() (that
// flush, or gasket's quiet) then runs untimed before the next sample starts.
template <typename Op, typename Complete>
double stream_mbps(size_t bytes, long iters, Op op, Complete complete) {
  std::vector<double> mbps;
  for (int sample = 0; sample < kStreamSamples; ++sample) {
    const auto start = Clock::now();
    const uint64_t first = timestamp();
    uint64_t last = first;
    for (long i = 0; i < iters; ++i) {
      op();
      last = timestamp();
    }
    const double us_per_tick = since_us(start) / static_cast<double>(std::max<uint64_t>(1, timestamp() - first));
    complete();
    const double us = static_cast<double>(last - first) * us_per_tick;
    mbps.push_back(static_cast<double>(bytes) * static_cast<double>(iters) / us * 1e6 / (1 << 20));
  }
  std::sort(mbps.begin(), mbps.end());
  return mbps[mbps.size() / 2];
}

}  // namespace ucx_bench
