#include "core/topology/topology.h"

#include <hwloc.h>
#include <strings.h>

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

namespace {

// The loaded topology and this process's binding (empty when it cannot be read).
struct Machine {
  hwloc_topology_t topo = nullptr;
  hwloc_bitmap_t binding = hwloc_bitmap_alloc();
  Machine() {
    if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0 ||
        hwloc_get_cpubind(topo, binding, HWLOC_CPUBIND_PROCESS) != 0) {
      hwloc_bitmap_zero(binding);
    }
  }
  ~Machine() {
    hwloc_bitmap_free(binding);
    if (topo != nullptr) hwloc_topology_destroy(topo);
  }
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  Placement at(hwloc_obj_type_t type) const {
    char name[64];
    hwloc_obj_type_snprintf(name, sizeof name, hwloc_get_obj_by_type(topo, type, 0), 1);
    Placement p{name, -1};
    if (hwloc_bitmap_iszero(binding)) return p;
    hwloc_obj_t o = hwloc_get_next_obj_covering_cpuset_by_type(topo, binding, type, nullptr);
    if (o != nullptr && hwloc_bitmap_isincluded(binding, o->cpuset)) p.instance = static_cast<int>(o->logical_index);
    return p;
  }
};

}  // namespace

std::vector<Placement> placements() {
  Machine m;
  std::vector<Placement> out;
  if (m.topo == nullptr) return out;
  int depth = hwloc_topology_get_depth(m.topo);
  for (int d = 0; d < depth; ++d) {
    hwloc_obj_type_t type = hwloc_get_depth_type(m.topo, d);
    if (type != HWLOC_OBJ_GROUP) out.push_back(m.at(type));
  }
  return out;
}

bool placement_in(const std::string& name, Placement* out) {
  static const struct { const char* alias; hwloc_obj_type_t type; } kAliases[] = {
      {"hwthread", HWLOC_OBJ_PU}, {"socket", HWLOC_OBJ_PACKAGE}, {"numa", HWLOC_OBJ_NUMANODE}};
  hwloc_obj_type_t type;
  bool alias = false, known = hwloc_type_sscanf(name.c_str(), &type, nullptr, 0) == 0 && type != HWLOC_OBJ_GROUP;
  for (const auto& a : kAliases) {
    if (strcasecmp(name.c_str(), a.alias) == 0) type = a.type, known = alias = true;
  }
  if (!known) return false;
  Machine m;
  if (m.topo == nullptr || hwloc_get_nbobjs_by_type(m.topo, type) <= 0) return false;
  *out = m.at(type);
  // hwloc's parser takes prefixes ("n" for NUMANode): only a whole name counts.
  return alias || strcasecmp(name.c_str(), out->level.c_str()) == 0 ||
         strcasecmp(name.c_str(), hwloc_obj_type_string(type)) == 0;
}

}  // namespace gasket::topology
