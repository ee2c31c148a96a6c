#include "core/bootstrap/bootstrap.h"

#include <cstdlib>

#include "core/bootstrap/bootstrap_impl.h"
#include "core/bootstrap/job_environment.h"

namespace gasket::bootstrap {

Result<std::unique_ptr<Bootstrap>> create_from_environment(const std::string& kind) {
  if (kind != "auto" && kind != "local" && kind != "pmix") {
    return invalid_argument("bootstrap: bad GASKET_BOOTSTRAP='" + kind + "': must be auto, local or pmix");
  }
  bool store = std::getenv(kEnvJobStore) != nullptr;
  if (kind == "pmix" || (kind == "auto" && !store && detail::pmix_server_in_environment())) {
    return detail::connect_pmix();
  }
  if (!store) return detail::create_singleton();
  Result<JobEnvironment> env =
      read_job_environment([](const char* name) { return std::getenv(name); });
  if (!env.is_ok()) return env.status();
  return detail::connect_launcher_store(*env);
}

}  // namespace gasket::bootstrap
