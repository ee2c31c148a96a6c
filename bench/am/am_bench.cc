// gasket::am between PE 0 and PE 1: per message size, the round trip (a request whose handler
// replies with a short message), the rate of fire-and-forget requests (a stream closed by one
// request with a completion), and for long messages the bandwidth beside memcpy of the same size.
// Medians of kSamples samples; prints a table. `gasketrun -n 2 am_bench` (any path: set
// GASKET_LOCAL=backend and GASKET_TRANSPORT to measure a backend; bench/am/compare.sh runs the paths
// beside MPI and ucx_perftest).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "core/gasket.h"

namespace am = gasket::am;

namespace {
constexpr int kSamples = 7;
long replies = 0;
am::ShortHandler<> pong;

double now_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main() {
  if (!gasket::init().is_ok()) return 1;
  const int me = gasket::my_pe();
  if (gasket::n_pes() != 2) {
    if (me == 0) std::fprintf(stderr, "am_bench: run on exactly 2 PEs\n");
    (void)gasket::finalize();
    return 2;
  }
  const size_t kMaxLong = 4 << 20;
  auto* target = static_cast<char*>(gasket::sym_malloc(kMaxLong));
  auto* done = static_cast<long*>(gasket::sym_calloc(1, sizeof(long)));
  pong = am::register_short<>([](am::Token&) { ++replies; });
  auto ping_short = am::register_short<>([](am::Token& t) { t.reply(pong); });
  auto ping_medium = am::register_medium<>([](am::Token& t, void*, size_t) { t.reply(pong); });
  auto ping_long = am::register_long<>([](am::Token& t, void*, size_t) { t.reply(pong); });
  auto sink_short = am::register_short<>([](am::Token&) {});
  auto sink_medium = am::register_medium<>([](am::Token&, void*, size_t) {});
  auto sink_long = am::register_long<>([](am::Token&, void*, size_t) {});
  gasket::barrier_all();
  const size_t max_medium = am::limits(1 - me).max_medium;
  struct Row {
    const char* kind;
    size_t bytes;
  };
  std::vector<Row> rows = {{"short", 0}, {"medium", 8}, {"medium", 64}, {"medium", 512}, {"medium", max_medium},
                           {"long", 4096}, {"long", 16384}, {"long", 65536}, {"long", 262144}, {"long", 1 << 20},
                           {"long", kMaxLong}};
  std::vector<char> source(kMaxLong, 'x'), copy(kMaxLong);
  if (me == 0) {
    const am::Route route = am::route(1);
    std::printf("gasket::am PE 0 -> PE 1 over %s, route %s (medians of %d samples; the machine is shared)\n",
                gasket::transport_name(1),
                route == am::Route::kRing ? "ring" : route == am::Route::kNativeMessages ? "native messages" : "mailbox messages",
                kSamples);
    // long_MB_s: the body bytes of a stream of long requests (10^6 bytes per second) delivered
    // to their handlers; memcpy_MB_s: a memcpy of the same size here, the machine's floor.
    std::printf("%-7s %9s %12s %14s %12s %14s\n", "kind", "bytes", "rtt_us", "rate_Mmsg_s", "long_MB_s", "memcpy_MB_s");
    for (const Row& r : rows) {
      auto send = [&](bool round_trip) {
        if (std::strcmp(r.kind, "short") == 0) {
          round_trip ? am::request(1, ping_short) : am::request(1, sink_short);
        } else if (std::strcmp(r.kind, "medium") == 0) {
          round_trip ? am::request_medium(1, ping_medium, source.data(), r.bytes)
                     : am::request_medium(1, sink_medium, source.data(), r.bytes);
        } else {
          round_trip ? am::request_long(1, ping_long, source.data(), r.bytes, target)
                     : am::request_long(1, sink_long, source.data(), r.bytes, target);
        }
      };
      const int iters = r.bytes >= (1 << 20) ? 20 : r.bytes >= 65536 ? 200 : 2000;
      std::vector<double> rtt, rate, bw, mem;
      for (int s = 0; s < kSamples; ++s) {
        replies = 0;
        double t0 = now_us();
        for (int i = 0; i < iters; ++i) {
          send(true);
          gasket::poll(true, [&] { return replies == i + 1; });
        }
        rtt.push_back((now_us() - t0) / iters);
        // A stream of fire-and-forget messages, closed by one that acknowledges (in order per
        // sender, so the acknowledgement follows every handler).
        am::Event e;
        t0 = now_us();
        for (int i = 0; i < iters; ++i) send(false);
        am::request(am::Completion::event(e), 1, sink_short);
        e.wait();
        double t = now_us() - t0;
        rate.push_back((iters + 1) / t);
        bw.push_back(static_cast<double>(r.bytes) * iters / t);
        t0 = now_us();
        for (int i = 0; i < iters; ++i) {
          std::memcpy(copy.data(), source.data(), r.bytes);
          __asm__ __volatile__("" ::: "memory");
        }
        mem.push_back(static_cast<double>(r.bytes) * iters / (now_us() - t0));
      }
      bool is_long = std::strcmp(r.kind, "long") == 0;
      std::printf("%-7s %9zu %12.2f %14.3f %12s %14s\n", r.kind, r.bytes, median(rtt), median(rate),
                  is_long ? std::to_string(static_cast<long>(median(bw))).c_str() : "-",
                  is_long ? std::to_string(static_cast<long>(median(mem))).c_str() : "-");
      std::fflush(stdout);
    }
    long one = 1;
    gasket::put(done, &one, sizeof one, 1);
    gasket::quiet();
  } else {
    gasket::wait_until(done, gasket::Cmp::kEq, 1L);  // serves PE 0's messages meanwhile
  }
  gasket::barrier_all();
  return gasket::finalize().is_ok() ? 0 : 1;
}
