// The landing zones of emulated gets, blocked gets, blocked puts (core/am EmulatedRma) are pools
// claimed per operation, not one per PE of the job: here every PE, with 3 threads each, gets,
// block-gets and block-puts at PE 0 at once, more operations at a time than there are zones
// (GASKET_AM_ZONES=1 in the `_one_zone` suites: every operation waits for the others). Gets land
// in memory outside the segments (a std::vector), so they go through a get zone where the backend
// cannot read (pciddc); sizes are odd, some larger than a zone (in pieces). Every byte is compared.
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "core/gasket.h"

namespace {
constexpr int kThreads = 3;
constexpr int kRounds = 4;
constexpr size_t kSource = 256 << 10;
const size_t kGetSizes[] = {1, 7, 9, 4095, 65537, 200001};
// Blocked puts: 4-byte elements 3 elements apart, in a region of PE 0 per (PE, thread).
constexpr size_t kElems = 5000, kStride = 3, kRegion = kElems * kStride * 4;

unsigned char source_byte(size_t i) { return static_cast<unsigned char>(i * 7 + i / 251 + 3); }
uint32_t put_value(int pe, int thread, size_t i) { return static_cast<uint32_t>(pe) << 24 ^ static_cast<uint32_t>(thread) << 20 ^ static_cast<uint32_t>(i); }

std::atomic<int> failures{0};
void fail(int pe, int thread, const char* what, size_t at, unsigned got, unsigned want) {
  if (failures.fetch_add(1) < 10) {
    std::fprintf(stderr, "emulated_zones: PE %d thread %d: %s: byte %zu is %u, expected %u\n", pe, thread, what, at, got,
                 want);
  }
}

void work(int me, int thread, const unsigned char* source, uint32_t* regions) {
  std::vector<unsigned char> got(kSource);
  for (int round = 0; round < kRounds; ++round) {
    for (size_t len : kGetSizes) {
      size_t from = (static_cast<size_t>(me) * 131 + static_cast<size_t>(thread) * 17 + static_cast<size_t>(round)) % 977;
      std::memset(got.data(), 0xee, len + 1);
      gasket::get(got.data(), source + from, len, 0);
      for (size_t i = 0; i < len; ++i) {
        if (got[i] != source_byte(from + i)) {
          fail(me, thread, "get", i, got[i], source_byte(from + i));
          break;
        }
      }
      if (got[len] != 0xee) fail(me, thread, "get wrote past its end", len, got[len], 0xee);
    }
    // Every 5th byte of the source, 3000 of them: a blocked get gathered at PE 0.
    const size_t count = 3000;
    std::memset(got.data(), 0xee, count + 1);
    gasket::iget(got.data(), source + round, 1, 5, 1, count, 0);
    for (size_t i = 0; i < count; ++i) {
      if (got[i] != source_byte(static_cast<size_t>(round) + 5 * i)) {
        fail(me, thread, "iget", i, got[i], source_byte(static_cast<size_t>(round) + 5 * i));
        break;
      }
    }
    if (got[count] != 0xee) fail(me, thread, "iget wrote past its end", count, got[count], 0xee);
  }
  std::vector<uint32_t> values(kElems);
  for (size_t i = 0; i < kElems; ++i) values[i] = put_value(me, thread, i);
  uint32_t* region = regions + (static_cast<size_t>(me) * kThreads + static_cast<size_t>(thread)) * (kRegion / 4);
  gasket::iput(region, values.data(), kStride, 1, 4, kElems, 0);
}
}  // namespace

int main() {
  gasket::InitOptions options;
  options.thread_multiple = true;
  gasket::Status st = gasket::init(options);
  if (!st.is_ok()) {
    std::fprintf(stderr, "init failed: %s\n", st.message().c_str());
    return 2;
  }
  const int me = gasket::my_pe(), n = gasket::n_pes();
  auto* source = static_cast<unsigned char*>(gasket::sym_malloc(kSource));
  auto* regions = static_cast<uint32_t*>(gasket::sym_malloc(kRegion * static_cast<size_t>(n) * kThreads));
  for (size_t i = 0; i < kSource; ++i) source[i] = source_byte(i);
  std::memset(regions, 0, kRegion * static_cast<size_t>(n) * kThreads);
  gasket::barrier_all();
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(work, me, t, source, regions);
  for (std::thread& t : threads) t.join();
  gasket::quiet();
  gasket::barrier_all();
  if (me == 0) {  // every region: the put elements where they go, the gaps untouched
    for (int pe = 0; pe < n; ++pe) {
      for (int t = 0; t < kThreads; ++t) {
        const uint32_t* region = regions + (static_cast<size_t>(pe) * kThreads + static_cast<size_t>(t)) * (kRegion / 4);
        for (size_t k = 0; k < kElems * kStride; ++k) {
          uint32_t want = k % kStride == 0 ? put_value(pe, t, k / kStride) : 0;
          if (region[k] != want) {
            fail(pe, t, "iput at PE 0", k * 4, region[k], want);
            break;
          }
        }
      }
    }
  }
  gasket::barrier_all();
  st = gasket::finalize();
  if (!st.is_ok()) {
    std::fprintf(stderr, "finalize failed: %s\n", st.message().c_str());
    return 3;
  }
  if (failures.load() != 0) return 1;
  if (me == 0) std::printf("emulated_zones: ok on %d PEs, %d threads each\n", n, kThreads);
  return 0;
}
