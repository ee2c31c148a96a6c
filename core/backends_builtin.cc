// The backends linked into this build, in order of preference for GASKET_TRANSPORT=auto.
#include "backends/pciddc/pciddc_backend.h"
#include "backends/ucx/ucx_backend.h"
#include "core/runtime.h"

namespace gasket::core {

const std::vector<backend::Registration>& builtin_backends() {
  static const std::vector<backend::Registration> kBackends = {
      {"ucx", &backend::ucx::create},
      {"pciddc", &backend::pciddc::create},
  };
  return kBackends;
}

}  // namespace gasket::core
