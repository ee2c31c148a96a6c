// The seed's figures for the pciddc model, next to the direct same-node path: latency of the
// smallest write (ping-pong, half round trip), bandwidth of streamed puts per size, the maximum
// and the half-bandwidth size, and the cost of an (emulated, on pciddc) 8-byte get and fetch-add.
// Then the per-operation costs on the backend path against the floor of its link, measured in
// the same run between the same two PEs: a raw loopback TCP round trip of 8 bytes
// (TCP_NODELAY, blocking send/recv), puts completed by quiet, a pipelined stream of 100 puts (one
// quiet), gets, fetch-add and strided puts/gets; medians of 5 repetitions, in round trips.
//
// Run with 3 PEs, 2 per simulated node, so that PE 0 reaches PE 1 directly and PE 2 through the
// backend:  GASKET_TRANSPORT=pciddc GASKET_PCIDDC_LINK=tcp gasketrun -n 3 --pes-per-node 2 pciddc_bench
// (bench/pciddc/run.sh does both links). A program, not a test: it prints a table.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/gasket.h"

using namespace gasket;

namespace {
using Clock = std::chrono::steady_clock;
constexpr size_t kMaxBytes = size_t{4} << 20;

double us_since(Clock::time_point t) { return std::chrono::duration<double, std::micro>(Clock::now() - t).count(); }

struct Shared {
  long* ping;
  long* pong;
  char* buffer;
};

// Half round trip of an 8-byte put between PE 0 and `peer`, in microseconds.
double latency(const Shared& s, int peer, int iters) {
  const int me = my_pe();
  double us = 0;
  barrier_all();
  if (me == 0) {
    auto t = Clock::now();
    for (long i = 1; i <= iters; ++i) {
      put(s.ping, &i, sizeof i, peer);
      wait_until(s.pong, Cmp::kGe, i);
    }
    us = us_since(t) / iters / 2;
  } else if (me == peer) {
    for (long i = 1; i <= iters; ++i) {
      wait_until(s.ping, Cmp::kGe, i);
      put(s.pong, &i, sizeof i, 0);
    }
  }
  barrier_all();
  *s.ping = *s.pong = 0;
  barrier_all();
  return us;
}

// MB/s of `count` puts of `bytes` from PE 0 to `peer`, completed by quiet().
double bandwidth(const Shared& s, int peer, size_t bytes, const std::vector<char>& src) {
  size_t count = bytes <= 4096 ? 2000 : bytes <= 65536 ? 400 : 40;
  double mbs = 0;
  barrier_all();
  if (my_pe() == 0) {
    put(s.buffer, src.data(), bytes, peer);  // warm-up
    quiet();
    auto t = Clock::now();
    for (size_t i = 0; i < count; ++i) put_nbi(s.buffer, src.data(), bytes, peer);
    quiet();
    mbs = static_cast<double>(bytes * count) / us_since(t);
  }
  barrier_all();
  return mbs;
}

template <typename Op>
double op_cost(int iters, Op op) {
  double us = 0;
  barrier_all();
  if (my_pe() == 0) {
    op();
    auto t = Clock::now();
    for (int i = 0; i < iters; ++i) op();
    us = us_since(t) / iters;
  }
  barrier_all();
  return us;
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int checked(int rc, const char* what) {
  if (rc < 0) {
    std::perror(what);
    abort_job(1, "pciddc_bench: the raw TCP round trip could not be set up");
  }
  return rc;
}

// Microseconds of one 8-byte round trip over a loopback TCP connection between PE 0 and `peer`
// (TCP_NODELAY, blocking calls): the floor under every emulated operation of the tcp link. The
// listening PE hands its port to PE 0 through symmetric memory.
double tcp_round_trip(long* port_word, int peer, int iters) {
  const int me = my_pe();
  double us = 0;
  int listener = -1;
  if (me == peer) {
    listener = checked(socket(AF_INET, SOCK_STREAM, 0), "socket");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    checked(bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof a), "bind");
    checked(listen(listener, 1), "listen");
    checked(getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len), "getsockname");
    long port = ntohs(a.sin_port);
    put(port_word, &port, sizeof port, 0);
    quiet();
  }
  barrier_all();
  int one = 1;
  uint64_t word = 0;
  if (me == 0) {
    int fd = checked(socket(AF_INET, SOCK_STREAM, 0), "socket");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<uint16_t>(*port_word));
    checked(connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), "connect");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto t = Clock::now();
    for (int i = 0; i < iters; ++i) {
      checked(static_cast<int>(send(fd, &word, sizeof word, 0)), "send");
      checked(static_cast<int>(recv(fd, &word, sizeof word, MSG_WAITALL)), "recv");
    }
    us = us_since(t) / iters;
    close(fd);
  } else if (me == peer) {
    int fd = checked(accept(listener, nullptr, nullptr), "accept");
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    for (int i = 0; i < iters; ++i) {
      checked(static_cast<int>(recv(fd, &word, sizeof word, MSG_WAITALL)), "recv");
      checked(static_cast<int>(send(fd, &word, sizeof word, 0)), "send");
    }
    close(fd);
    close(listener);
  }
  barrier_all();
  return us;
}

// The backend path's per-operation costs next to the raw round trip, PE 0 -> `peer`: single and
// pipelined puts, gets and fetch-add from 8 B to 64 KiB, and strided transfers of 8-byte elements
// (iput/iget: every other element) and of 64-byte blocks (ibput/ibget: every other block).
void per_operation_costs(const Shared& s, const std::vector<char>& src, long* counter, long* port_word, int peer) {
  constexpr int kReps = 5, kStream = 100;
  long v = 0;
  std::vector<char> local(kMaxBytes);
  auto put_quiet = [&](size_t bytes) {
    return [&, bytes] {
      put(s.buffer, src.data(), bytes, peer);
      quiet();
    };
  };
  auto get_bytes = [&](size_t bytes) { return [&, bytes] { get(local.data(), s.buffer, bytes, peer); }; };
  // `count` blocks of `block` 8-byte elements at a stride of two blocks on both sides.
  auto strided_put = [&](size_t block, size_t count) {
    return [&, block, count] {
      put_blocks(s.buffer, src.data(), 2 * block, 2 * block, 8, block, count, peer);
      quiet();
    };
  };
  auto strided_get = [&](size_t block, size_t count) {
    return [&, block, count] { get_blocks(local.data(), s.buffer, 2 * block, 2 * block, 8, block, count, peer); };
  };
  struct Row {
    const char* what;
    int iters;  // per repetition: few where the per-block cost makes one operation long
    std::function<void()> op;
    double per = 1;  // the figure is per `per` operations
    std::vector<double> us = {};
  };
  std::vector<Row> rows = {
      {"put 8 B + quiet", 500, put_quiet(8)},
      {"put 1 KiB + quiet", 500, put_quiet(1024)},
      {"put 64 KiB + quiet", 100, put_quiet(65536)},
      {"put 8 B in a stream of 100 + quiet", 50,
       [&] {
         for (int i = 0; i < kStream; ++i) put_nbi(s.ping, &v, sizeof v, peer);
         quiet();
       },
       kStream},
      {"get 8 B", 500, get_bytes(8)},
      {"get 1 KiB", 500, get_bytes(1024)},
      {"get 64 KiB", 100, get_bytes(65536)},
      {"fetch-add 8 B", 500, [&] { atomic_fetch_add(counter, 1L, peer); }},
      {"iput 16 x 8 B + quiet", 200, strided_put(1, 16)},
      {"iput 1024 x 8 B + quiet", 20, strided_put(1, 1024)},
      {"iput 8192 x 8 B + quiet", 5, strided_put(1, 8192)},
      {"ibput 1024 x 64 B + quiet", 20, strided_put(8, 1024)},
      {"iget 1024 x 8 B", 20, strided_get(1, 1024)},
      {"ibget 1024 x 64 B", 20, strided_get(8, 1024)},
  };
  std::vector<double> rtt;
  for (int r = 0; r < kReps; ++r) {
    rtt.push_back(tcp_round_trip(port_word, peer, 500));
    for (Row& row : rows) row.us.push_back(op_cost(row.iters, row.op) / row.per);
  }
  if (my_pe() != 0) return;
  const double floor = median(rtt);
  std::printf("\nper operation, PE 0 -> PE %d over %s (medians of %d runs)\n", peer, transport_name(peer), kReps);
  std::printf("%-34s %10s %12s\n", "operation", "us", "round trips");
  std::printf("%-34s %10.2f %12.2f\n", "raw loopback TCP round trip, 8 B", floor, 1.0);
  for (const Row& row : rows) std::printf("%-34s %10.2f %12.2f\n", row.what, median(row.us), median(row.us) / floor);
}
}  // namespace

int main() {
  if (!init().is_ok()) return 1;
  const int n = n_pes();
  if (n != 3 || node_of(0) != node_of(1) || node_of(2) == node_of(0)) {
    if (my_pe() == 0) std::fprintf(stderr, "pciddc_bench: run with 3 PEs, 2 per node (gasketrun -n 3 --pes-per-node 2)\n");
    (void)finalize();
    return 2;
  }
  Shared s{static_cast<long*>(sym_calloc(1, sizeof(long))), static_cast<long*>(sym_calloc(1, sizeof(long))),
           static_cast<char*>(sym_malloc(kMaxBytes))};
  auto* counter = static_cast<long*>(sym_calloc(1, sizeof(long)));
  auto* port_word = static_cast<long*>(sym_calloc(1, sizeof(long)));
  std::vector<char> src(kMaxBytes, 'x');
  std::vector<size_t> sizes;
  for (size_t b = 8; b <= kMaxBytes; b *= 4) sizes.push_back(b);

  struct Row {
    std::string path;
    double lat, get_us, fadd_us, max_bw = 0;
    size_t half = 0;
    std::vector<double> bw;
  };
  std::vector<Row> rows;
  for (int peer : {1, 2}) {
    Row r;
    r.path = peer == 1 ? "direct" : std::string(transport_name(2)) + "/" + (std::getenv("GASKET_PCIDDC_LINK") ? std::getenv("GASKET_PCIDDC_LINK") : "auto");
    r.lat = latency(s, peer, 2000);
    for (size_t b : sizes) r.bw.push_back(bandwidth(s, peer, b, src));
    long v = 0;
    r.get_us = op_cost(2000, [&] { get(&v, s.buffer, sizeof v, peer); });
    r.fadd_us = op_cost(2000, [&] { atomic_fetch_add(counter, 1L, peer); });
    for (double bw : r.bw) r.max_bw = bw > r.max_bw ? bw : r.max_bw;
    for (size_t i = 0; i < sizes.size(); ++i) {
      if (r.bw[i] >= r.max_bw / 2) {
        r.half = sizes[i];
        break;
      }
    }
    rows.push_back(r);
  }
  if (my_pe() == 0) {
    std::printf("%-12s %12s %14s %12s %12s %14s\n", "path", "lat 8B (us)", "max bw (MB/s)", "half-bw (B)",
                "get 8B (us)", "fetch-add (us)");
    for (const Row& r : rows) {
      std::printf("%-12s %12.2f %14.1f %12zu %12.2f %14.2f\n", r.path.c_str(), r.lat, r.max_bw, r.half, r.get_us,
                  r.fadd_us);
    }
    std::printf("\nput bandwidth (MB/s) by size\n%-10s", "bytes");
    for (const Row& r : rows) std::printf(" %12s", r.path.c_str());
    std::printf("\n");
    for (size_t i = 0; i < sizes.size(); ++i) {
      std::printf("%-10zu", sizes[i]);
      for (const Row& r : rows) std::printf(" %12.1f", r.bw[i]);
      std::printf("\n");
    }
  }
  per_operation_costs(s, src, counter, port_word, 2);
  barrier_all();
  sym_free(port_word);
  sym_free(counter);
  sym_free(s.buffer);
  sym_free(s.pong);
  sym_free(s.ping);
  return finalize().is_ok() ? 0 : 1;
}
