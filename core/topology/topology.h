// The machine as hwloc sees it: packages, NUMA nodes, cores, hardware threads.
#pragma once

#include <string>

namespace gasket::topology {

struct Summary {
  int packages = 0;
  int numa_nodes = 0;
  int cores = 0;
  int hardware_threads = 0;
};

Summary summarize();
// One line, e.g. "1 package, 1 NUMA node, 2 cores, 2 hardware threads".
std::string describe(const Summary& s);

}  // namespace gasket::topology
