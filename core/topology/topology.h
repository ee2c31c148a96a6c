// The machine as hwloc sees it: packages, NUMA nodes, cores, hardware threads.
#pragma once

#include <string>
#include <vector>

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

// Where this process's CPU binding sits in one level of the machine: the level's hwloc type name
// ("Machine", "Package", "NUMANode", "L3Cache", "Core", "PU"...) and the logical index of the one
// object of that level holding the whole binding, -1 when the binding spans several.
struct Placement {
  std::string level;
  int instance = -1;
};
// The levels from the machine down to the hardware threads, in that order (groups aside).
std::vector<Placement> placements();
// The placement in the level `name` names: hwloc's type names, case-insensitive, or "hwthread",
// "socket", "numa"; false when the name is none of those or the machine has no such level.
bool placement_in(const std::string& name, Placement* out);

}  // namespace gasket::topology
