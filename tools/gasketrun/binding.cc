#include "tools/gasketrun/binding.h"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <unistd.h>

namespace gasket::launcher {

BindingPlan plan_binding(int num_pes, BindPolicy policy) {
  BindingPlan plan;
  hwloc_topology_t topology;
  bool have_topology = false;
  if (hwloc_topology_init(&topology) == 0) {
    if (hwloc_topology_load(topology) == 0) {
      have_topology = true;
    } else {
      hwloc_topology_destroy(topology);
    }
  }
  if (!have_topology) {
    long online = ::sysconf(_SC_NPROCESSORS_ONLN);
    plan.cores = online > 0 ? static_cast<int>(online) : 1;
    plan.notices.push_back("cannot read the machine topology with hwloc; PEs are not bound");
  } else {
    hwloc_obj_type_t unit = HWLOC_OBJ_CORE;
    int cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE);
    if (cores <= 0) {  // some virtual machines report no cores, only PUs
      unit = HWLOC_OBJ_PU;
      cores = hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU);
    }
    plan.cores = cores > 0 ? cores : 1;
    // PE i -> core i while the PEs fit; past that PE i -> core i mod cores when every core gets
    // the same number of PEs (else nothing is bound: the kernel balances an uneven job better
    // than fixed pins). Unbound, 4 PEs on 2 cores ran their first 0.3-1 s 2-3x slower in MPI_Barrier
    // while the kernel moved them apart (tools/gasketrun/README.md,
    // "What a job does").
    if (policy == BindPolicy::kCore && cores > 0 && (num_pes <= cores || num_pes % cores == 0)) {
      plan.cpusets.resize(static_cast<size_t>(num_pes));
      for (int i = 0; i < num_pes; ++i) {
        hwloc_obj_t core = hwloc_get_obj_by_type(topology, unit, static_cast<unsigned>(i % cores));
        cpu_set_t* set = &plan.cpusets[static_cast<size_t>(i)];
        if (core == nullptr ||
            hwloc_cpuset_to_glibc_sched_affinity(topology, core->cpuset, set, sizeof *set) != 0) {
          plan.cpusets.clear();
          plan.notices.push_back("cannot compute the cpuset of core " + std::to_string(i) +
                                 "; PEs are not bound");
          break;
        }
      }
    }
    hwloc_topology_destroy(topology);
  }
  if (num_pes > plan.cores) {
    plan.oversubscribed = true;
    plan.notices.push_back(std::to_string(num_pes) + " PEs on " + std::to_string(plan.cores) +
                           " cores: oversubscribed, PEs will yield while waiting");
  }
  return plan;
}

}  // namespace gasket::launcher
