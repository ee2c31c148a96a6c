// Run by two_host_test.sh: PEs in two network namespaces (two "hosts"), half in each. Checks that
// the job sees two nodes, that peers on the other node are reached through the ucx backend, and
// that put, get and atomics across the namespaces carry the right values.
#define BOOST_TEST_MODULE two_host
#include <cstdint>
#include <vector>

#include "tests/core/fixture.h"

using namespace gasket;

BOOST_AUTO_TEST_CASE(two_nodes_reached_through_ucx) {
  const int me = my_pe(), n = n_pes();
  PE_EQUAL(n_nodes(), 2);
  for (int pe = 0; pe < n; ++pe) {
    bool other_node = node_of(pe) != node_of(me);
    PE_EQUAL(std::string(transport_name(pe)), std::string(other_node ? "ucx" : "direct"));
  }
}

BOOST_AUTO_TEST_CASE(put_get_atomics_across_hosts) {
  const int me = my_pe(), n = n_pes();
  const int across = (me + n / 2) % n;  // the PE at the same place on the other node
  PE_TEST(node_of(across) != node_of(me));
  const size_t kWords = 64 * 1024;  // 512 KiB: several tcp segments
  auto* inbox = static_cast<uint64_t*>(sym_calloc(kWords, sizeof(uint64_t)));
  auto* counter = static_cast<uint64_t*>(sym_calloc(1, sizeof(uint64_t)));
  std::vector<uint64_t> out(kWords), back(kWords);
  for (size_t i = 0; i < kWords; ++i) out[i] = (uint64_t(me) << 32) | i;
  barrier_all();
  put(inbox, out.data(), kWords * sizeof(uint64_t), across);
  for (int i = 0; i < 100; ++i) atomic_add(counter, uint64_t{3}, 0);
  barrier_all();
  const int from = (me + n - n / 2) % n;  // who wrote into my inbox
  for (size_t i = 0; i < kWords; i += 997) PE_EQUAL(inbox[i], (uint64_t(from) << 32) | i);
  get(back.data(), inbox, kWords * sizeof(uint64_t), across);
  for (size_t i = 0; i < kWords; i += 997) PE_EQUAL(back[i], (uint64_t(me) << 32) | i);
  PE_EQUAL(atomic_fetch(counter, 0), uint64_t(300 * n));
  barrier_all();
  sym_free(counter);
  sym_free(inbox);
}
