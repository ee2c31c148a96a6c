// gasket over the ucx backend, measured the way ucx_perftest measures raw UCP, so the two can be
// printed side by side (bench/ucx/compare.sh runs both and passes perftest's figures here):
//   put_lat   ping-pong: put `size` bytes, the peer polls the last word and puts back; half the
//             round trip (ucp_put_lat)
//   get_lat   one blocking get (ucp_get)
//   fadd_lat  one blocking 64-bit fetch-add (ucp_fadd)
//   put_bw    a stream of puts then one quiet, MB/s with MB = 2^20 bytes (ucp_put_bw)
// Latencies are medians of per-iteration times, as perftest's 50th percentile.
//   GASKET_TRANSPORT=ucx GASKET_LOCAL=backend UCX_TLS=... gasketrun -n 2 ucx_bench
//       [--max-iters N] [--reference FILE]
// FILE holds lines "figure bytes value" (ucx_perftest's figures); the table then shows them and
// the ratio gasket/raw for latencies and raw/gasket for bandwidth (above 1: gasket is slower).
// --registered FILE2 adds ucp_registered's figures (raw UCP on memory registered like gasket's
// segments, which UCX did not allocate) and the ratio against those: gasket's own overhead.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "bench/common/bench_results.h"
#include "bench/ucx/measure.h"
#include "core/gasket.h"

namespace {

using namespace ucx_bench;

struct Options {
  long max_iters = 10000;
  std::string reference;
  std::string registered;
};

// Buffers every measurement uses: `inbox` receives puts, its last word carries the iteration.
struct Buffers {
  char* inbox;
  uint64_t* word;
  LocalBuffer local;
};

uint64_t* last_word(char* buf, size_t bytes) { return reinterpret_cast<uint64_t*>(buf + bytes - 8); }

// Ping-pong between PE 0 and PE 1; both return the median half round trip (PE 0's is printed).
double put_latency(Buffers& b, size_t bytes, long iters, int me) {
  const int peer = 1 - me;
  gasket::barrier_all();
  double round_trip = median_us(iters, [&](long i) {
    *last_word(b.local.data(), bytes) = static_cast<uint64_t>(i);
    if (me == 0) {
      gasket::put(b.inbox, b.local.data(), bytes, peer);
      gasket::wait_until(last_word(b.inbox, bytes), gasket::Cmp::kGe, static_cast<uint64_t>(i));
    } else {
      gasket::wait_until(last_word(b.inbox, bytes), gasket::Cmp::kGe, static_cast<uint64_t>(i));
      gasket::put(b.inbox, b.local.data(), bytes, peer);
    }
  });
  gasket::barrier_all();
  *last_word(b.inbox, bytes) = 0;  // the next size starts from 0 again
  gasket::barrier_all();
  return round_trip / 2;
}

// PE 0 measures `op` against PE 1, which waits in the barrier (progressing, as perftest's
// responder does).
template <typename Op>
double one_sided_latency(long iters, Op op) {
  double result = 0;
  if (gasket::my_pe() == 0) result = median_us(iters, [&](long) { op(); });
  gasket::barrier_all();
  return result;
}

double put_bandwidth(Buffers& b, size_t bytes, long iters) {
  double mbps = 0;
  if (gasket::my_pe() == 0) {
    for (long i = 0; i < std::min(warmup(iters), 10L); ++i) gasket::put_nbi(b.inbox, b.local.data(), bytes, 1);
    gasket::quiet();
    mbps = stream_mbps(bytes, iters, [&] { gasket::put_nbi(b.inbox, b.local.data(), bytes, 1); }, [] { gasket::quiet(); });
  }
  gasket::barrier_all();
  return mbps;
}

std::map<std::pair<std::string, size_t>, double> read_reference(const std::string& path) {
  std::map<std::pair<std::string, size_t>, double> ref;
  if (path.empty()) return ref;
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "ucx_bench: cannot read the reference file %s\n", path.c_str());
    return ref;
  }
  std::string figure;
  size_t bytes;
  double value;
  while (in >> figure >> bytes >> value) ref[{figure, bytes}] = value;
  return ref;
}

struct Row {
  const char* figure;
  size_t bytes;
  double gasket;
  bool higher_is_better;
};

// One reference column and its ratio ("-" where the reference has no figure).
void print_reference(const std::map<std::pair<std::string, size_t>, double>& ref, const Row& r, const char* unit) {
  auto it = ref.find({r.figure, r.bytes});
  if (it == ref.end() || it->second <= 0) {
    std::printf(" %14s %8s", "-", "-");
    return;
  }
  double ratio = r.higher_is_better ? it->second / r.gasket : r.gasket / it->second;
  std::printf(" %9.3f %-4s %8.3f", it->second, unit, ratio);
}

void print_table(const std::vector<Row>& rows, const std::string& reference_path, const std::string& registered_path) {
  auto ref = read_reference(reference_path);
  auto registered = read_reference(registered_path);
  std::printf("%-9s %9s %14s %14s %8s", "figure", "bytes", "gasket", "ucx_perftest", "ratio");
  if (!registered_path.empty()) std::printf(" %14s %8s", "ucp_registered", "ratio");
  std::printf("\n");
  for (const Row& r : rows) {
    const char* unit = r.higher_is_better ? "MB/s" : "us";
    std::printf("%-9s %9zu %9.3f %-4s", r.figure, r.bytes, r.gasket, unit);
    print_reference(ref, r, unit);
    if (!registered_path.empty()) print_reference(registered, r, unit);
    std::printf("\n");
  }
  std::printf("# ratio: gasket/raw for latency, raw/gasket for bandwidth (1.10 = 10%% overhead)\n");
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--max-iters" && i + 1 < argc) {
      opt.max_iters = std::atol(argv[++i]);
    } else if (a == "--reference" && i + 1 < argc) {
      opt.reference = argv[++i];
    } else if (a == "--registered" && i + 1 < argc) {
      opt.registered = argv[++i];
    } else {
      std::fprintf(stderr, "usage: ucx_bench [--max-iters N] [--reference FILE] [--registered FILE]\n");
      return 2;
    }
  }
  if (!gasket::init().is_ok()) return 1;
  const int me = gasket::my_pe();
  if (gasket::n_pes() != 2) gasket::abort_job(2, "ucx_bench runs on exactly 2 PEs: gasketrun -n 2 ucx_bench");
  Buffers b;
  b.inbox = static_cast<char*>(gasket::sym_calloc(kMaxBytes, 1));
  b.word = static_cast<uint64_t*>(gasket::sym_calloc(1, sizeof(uint64_t)));
  std::vector<Row> rows;
  for (size_t bytes : kSizes) {
    rows.push_back({"put_lat", bytes, put_latency(b, bytes, iterations(bytes, opt.max_iters), me), false});
  }
  for (size_t bytes : kSizes) {
    double us = one_sided_latency(iterations(bytes, opt.max_iters),
                                  [&] { gasket::get(b.local.data(), b.inbox, bytes, 1); });
    rows.push_back({"get_lat", bytes, us, false});
  }
  rows.push_back({"fadd_lat", 8,
                  one_sided_latency(iterations(8, opt.max_iters),
                                    [&] { (void)gasket::atomic_fetch_add(b.word, uint64_t{1}, 1); }),
                  false});
  for (size_t bytes : kSizes) {
    rows.push_back({"put_bw", bytes, put_bandwidth(b, bytes, iterations(bytes, opt.max_iters)), true});
  }
  if (me == 0) {
    std::printf("# gasket ucx_bench: PE 0 <-> PE 1 over %s (UCX_TLS=%s)\n", gasket::transport_name(1),
                std::getenv("UCX_TLS") ? std::getenv("UCX_TLS") : "(unset)");
    print_table(rows, opt.reference, opt.registered);
    for (const Row& r : rows) bench_result_bytes(r.figure, r.bytes, r.gasket, r.higher_is_better ? "MB/s" : "us");
  }
  gasket::sym_free(b.word);
  gasket::sym_free(b.inbox);
  return gasket::finalize().is_ok() ? 0 : 1;
}
