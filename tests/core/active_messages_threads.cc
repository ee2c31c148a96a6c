// gasket::am under InitOptions::thread_multiple: several threads of every PE send requests at
// once (each its own ping-pong stream to every PE, medium bodies checked), while handlers run on
// whichever thread serves traffic. Every pong must come back to its thread's counter exactly once.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "core/gasket.h"

namespace am = gasket::am;

namespace {
constexpr int kThreads = 3;
constexpr int kRounds = 300;
std::atomic<long> pongs[kThreads];
std::atomic<long> bad{0};
am::MediumHandler<int, int> ping;
am::ShortHandler<int, int> pong;

void fail(const char* what) {
  std::fprintf(stderr, "PE %d: %s\n", gasket::my_pe(), what);
  gasket::abort_job(1, what);
}
}  // namespace

int main() {
  gasket::InitOptions options;
  options.thread_multiple = true;
  if (!gasket::init(options).is_ok()) return 2;
  const int me = gasket::my_pe(), n = gasket::n_pes();
  ping = am::register_medium<int, int>([](am::Token& t, void* body, size_t len, int thread, int round) {
    const auto* b = static_cast<const unsigned char*>(body);
    for (size_t i = 0; i < len; ++i) bad += b[i] != static_cast<unsigned char>(thread * 31 + round + i);
    t.reply(pong, thread, round);
  });
  pong = am::register_short<int, int>([](am::Token&, int thread, int) { ++pongs[thread]; });
  gasket::barrier_all();
  std::vector<std::thread> threads;
  for (int th = 0; th < kThreads; ++th) {
    threads.emplace_back([th, me, n] {
      unsigned char body[100];
      for (int round = 0; round < kRounds; ++round) {
        int pe = (me + 1 + round) % n;
        size_t len = static_cast<size_t>(round % 100);
        for (size_t i = 0; i < len; ++i) body[i] = static_cast<unsigned char>(th * 31 + round + i);
        am::request_medium(pe, ping, body, len, th, round);
        gasket::poll(true, [&] { return pongs[th].load() == round + 1; });
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int th = 0; th < kThreads; ++th) {
    if (pongs[th].load() != kRounds) fail("a thread's pongs do not match its pings");
  }
  gasket::barrier_all();
  if (bad.load() != 0) fail("a medium body arrived with wrong bytes");
  if (me == 0) std::printf("active_messages_threads: ok on %d PEs, %d threads each\n", n, kThreads);
  return gasket::finalize().is_ok() ? 0 : 3;
}
