#include "core/bootstrap/bootstrap.h"

#include <cstdlib>

#include "core/bootstrap/bootstrap_impl.h"
#include "core/bootstrap/job_environment.h"

namespace gasket::bootstrap {

Result<std::unique_ptr<Bootstrap>> create_from_environment() {
  if (std::getenv(kEnvJobStore) == nullptr) return detail::create_singleton();
  Result<JobEnvironment> env =
      read_job_environment([](const char* name) { return std::getenv(name); });
  if (!env.is_ok()) return env.status();
  return detail::connect_launcher_store(*env);
}

}  // namespace gasket::bootstrap
