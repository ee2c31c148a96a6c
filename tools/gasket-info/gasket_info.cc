// gasket-info: what this gasket build is and how it is configured here.
//   gasket-info             version, build options, backends, machine topology, RDMA devices,
//                           and every GASKET_* knob with its current value and meaning
//   gasket-info --markdown  the knob reference (docs/CONFIG.md is this output)
#include <infiniband/verbs.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "core/config/config.h"
#include "core/runtime.h"
#include "core/topology/topology.h"
#include "core/version.h"

namespace {

void print_rdma_devices() {
  int n = 0;
  ibv_device** list = ibv_get_device_list(&n);
  if (list == nullptr || n == 0) {
    std::printf("RDMA devices:   none (libibverbs reports no device; UCX will use shared memory and tcp)\n");
  } else {
    std::printf("RDMA devices:  ");
    for (int i = 0; i < n; ++i) std::printf(" %s", ibv_get_device_name(list[i]));
    std::printf("\n");
  }
  if (list != nullptr) ibv_free_device_list(list);
}

int print_knobs() {
  auto cfg = gasket::config::Config::load(gasket::config::environment_lookup());
  if (!cfg.is_ok()) {
    std::fprintf(stderr, "gasket-info: %s\n", cfg.status().message().c_str());
    return 1;
  }
  std::printf("\nConfiguration (environment, then defaults):\n");
  for (const auto& s : gasket::config::knobs()) {
    std::printf("  %-26s = %-10s [%s] %s\n", s.name, cfg->text(s.knob).c_str(),
                cfg->origin(s.knob).c_str(), s.doc);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--markdown") == 0) {
    std::fputs(gasket::config::markdown_reference().c_str(), stdout);
    return 0;
  }
  if (argc > 1) {
    std::fprintf(stderr, "usage: gasket-info [--markdown]\n");
    return 2;
  }
  std::printf("gasket %s\n", gasket::kVersion);
  std::printf("build:          C++%ld, %s, %s\n", __cplusplus / 100 % 100 + 0L, __VERSION__,
#ifdef NDEBUG
              "optimised"
#else
              "debug"
#endif
  );
  std::string backends;
  for (const auto& r : gasket::core::builtin_backends()) backends += std::string(" ") + r.name;
  std::printf("backends:      %s (plus the direct same-node path)\n",
              backends.empty() ? " none" : backends.c_str());
  std::printf("topology:       %s\n",
              gasket::topology::describe(gasket::topology::summarize()).c_str());
  print_rdma_devices();
  return print_knobs();
}
