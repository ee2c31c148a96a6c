// Where each PE runs: hwloc's view of the cores this launcher may use, and one core per PE when
// they fit (the same number of PEs per core when they are a multiple of the cores).
#pragma once

#include <sched.h>

#include <string>
#include <vector>

#include "tools/gasketrun/launcher.h"

namespace gasket::launcher {

struct BindingPlan {
  int cores = 0;                   // usable cores (hwloc; the online CPU count if hwloc fails)
  bool oversubscribed = false;     // more PEs than cores
  std::vector<cpu_set_t> cpusets;  // PE i -> cpusets[i]; empty when PEs are not bound
  std::vector<std::string> notices;  // lines for the user (without the tool prefix)
};

// With policy kCore: PE i -> core i when num_pes <= cores, PE i -> core i mod cores when num_pes
// is a multiple of cores; otherwise nothing is bound.
BindingPlan plan_binding(int num_pes, BindPolicy policy);

}  // namespace gasket::launcher
