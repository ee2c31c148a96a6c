#include "core/topology/topology.h"

#include <hwloc.h>

namespace gasket::topology {

Summary summarize() {
  Summary s;
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return s;
  if (hwloc_topology_load(topo) == 0) {
    s.packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    s.numa_nodes = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    s.cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    s.hardware_threads = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
  }
  hwloc_topology_destroy(topo);
  return s;
}

std::string describe(const Summary& s) {
  auto item = [](int n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
  };
  return item(s.packages, "package") + ", " + item(s.numa_nodes, "NUMA node") + ", " +
         item(s.cores, "core") + ", " + item(s.hardware_threads, "hardware thread");
}

}  // namespace gasket::topology
