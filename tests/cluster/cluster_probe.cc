// Checks that a job started by any launcher (gasketrun, srun --mpi=pmix, namespaces) is the job
// it should be: the expected number of PEs and nodes; each peer reached by the right path (itself
// and same-node peers "direct" unless GASKET_LOCAL=backend, other nodes through the backend that
// GASKET_TRANSPORT names when it names one); a ring of puts, a 512 KiB put and get across the
// ring (several tcp segments), a counter of atomics.
//   cluster_probe NPES NODES [abort]
// NODES may be '-' (not checked). With "abort", PE 1 aborts with code 3 after init, while the
// others wait in a barrier: the launcher must end them (the job must not hang).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/gasket.h"

namespace {
int failures = 0;
void check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "cluster_probe: PE %d: FAILED: %s\n", gasket::my_pe(), what.c_str());
    ++failures;
  }
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: cluster_probe NPES NODES|- [abort]\n");
    return 2;
  }
  int want_pes = std::atoi(argv[1]);
  bool check_nodes = std::strcmp(argv[2], "-") != 0;
  int want_nodes = check_nodes ? std::atoi(argv[2]) : 0;
  bool do_abort = argc > 3 && std::strcmp(argv[3], "abort") == 0;
  gasket::Status st = gasket::init();
  if (!st.is_ok()) {
    std::fprintf(stderr, "cluster_probe: init failed: %s\n", st.message().c_str());
    return 1;
  }
  int me = gasket::my_pe(), n = gasket::n_pes();
  check(n == want_pes, "n_pes() = " + std::to_string(n) + ", expected " + std::to_string(want_pes));
  if (check_nodes) {
    check(gasket::n_nodes() == want_nodes,
          "n_nodes() = " + std::to_string(gasket::n_nodes()) + ", expected " + std::to_string(want_nodes));
  }
  if (do_abort && me == 1) gasket::abort_job(3, "cluster_probe: deliberate abort of PE 1");

  const char* transport = std::getenv("GASKET_TRANSPORT");
  const char* local = std::getenv("GASKET_LOCAL");
  const bool force_backend = local != nullptr && std::strcmp(local, "backend") == 0;
  std::string backend;  // the name every backend path must show ("" until known)
  if (transport != nullptr && std::strcmp(transport, "auto") != 0) backend = transport;
  for (int pe = 0; pe < n; ++pe) {
    std::string path = gasket::transport_name(pe);
    bool direct = pe == me || (gasket::node_of(pe) == gasket::node_of(me) && !force_backend);
    if (!direct && backend.empty() && path != "direct") backend = path;
    check(path == (direct ? "direct" : backend), "PE " + std::to_string(pe) + " (node " +
                                                      std::to_string(gasket::node_of(pe)) + ") is reached by '" + path +
                                                      "', expected '" + (direct ? "direct" : backend) + "'");
  }

  auto* ring = static_cast<uint64_t*>(gasket::sym_calloc(2, sizeof(uint64_t)));
  auto* counter = ring + 1;
  uint64_t value = 1000u * static_cast<uint64_t>(me) + 7;
  gasket::put(ring, &value, sizeof value, (me + 1) % n);
  gasket::atomic_add<uint64_t>(counter, static_cast<uint64_t>(me) + 1, 0);
  gasket::quiet();
  gasket::barrier_all();
  int left = (me + n - 1) % n;
  check(*ring == 1000u * static_cast<uint64_t>(left) + 7,
        "ring value " + std::to_string(*ring) + " from PE " + std::to_string(left));
  if (me == 0) {
    uint64_t want = static_cast<uint64_t>(n) * (static_cast<uint64_t>(n) + 1) / 2;
    check(*counter == want, "counter " + std::to_string(*counter) + ", expected " + std::to_string(want));
  }
  // 512 KiB to the right neighbour (on another node when nodes are blocks of PEs), read back.
  const size_t kWords = 64 * 1024;
  auto* inbox = static_cast<uint64_t*>(gasket::sym_calloc(kWords, sizeof(uint64_t)));
  std::vector<uint64_t> out(kWords), back(kWords);
  for (size_t i = 0; i < kWords; ++i) out[i] = (static_cast<uint64_t>(me) << 32) | i;
  gasket::barrier_all();
  gasket::put(inbox, out.data(), kWords * sizeof(uint64_t), (me + 1) % n);
  gasket::quiet();
  gasket::barrier_all();
  size_t wrong = 0;
  for (size_t i = 0; i < kWords; ++i) wrong += inbox[i] != ((static_cast<uint64_t>(left) << 32) | i);
  check(wrong == 0, std::to_string(wrong) + " of " + std::to_string(kWords) + " words put by PE " +
                        std::to_string(left) + " are wrong");
  gasket::get(back.data(), inbox, kWords * sizeof(uint64_t), (me + 1) % n);
  check(back == out, "512 KiB read back from PE " + std::to_string((me + 1) % n) + " differ from what was put");
  gasket::barrier_all();
  gasket::sym_free(inbox);

  std::string paths;
  for (int pe = 0; pe < n; ++pe) paths += std::string(pe ? " " : "") + gasket::transport_name(pe);
  std::printf("cluster_probe: PE %d of %d on node %d of %d (paths: %s): %s\n", me, n, gasket::node_of(me),
              gasket::n_nodes(), paths.c_str(), failures == 0 ? "ok" : "FAILED");
  gasket::sym_free(ring);
  st = gasket::finalize();
  if (!st.is_ok()) {
    std::fprintf(stderr, "cluster_probe: finalize failed: %s\n", st.message().c_str());
    return 1;
  }
  return failures == 0 ? 0 : 1;
}
