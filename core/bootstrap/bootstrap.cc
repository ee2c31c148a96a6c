#include "core/bootstrap/bootstrap.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "core/bootstrap/bootstrap_impl.h"
#include "core/bootstrap/job_environment.h"

namespace gasket::bootstrap {
namespace {

// Another launcher started several copies of this program and gasket can join none of its
// interfaces: each copy would run alone, so stop and say what was seen.
Status refuse_foreign_launcher(const std::vector<std::string>& seen) {
  std::string list;
  for (const std::string& item : seen) list += (list.empty() ? "" : ", ") + item;
  return Status(StatusCode::kUnavailable,
                "bootstrap: started by a launcher gasket cannot bootstrap through: the environment has " + list +
                    " but none of " + kEnvJobStore + " (gasketrun), PMIX_NAMESPACE with PMIX_RANK (PMIx), " +
                    kEnvPmiFd + " with " + kEnvPmiRank + " and " + kEnvPmiSize + " or " + kEnvPmiPort +
                    " (PMI-1); each process would run as a separate job of 1 PE. Start the program with gasket's "
                    "mpiexec/oshrun, a PMIx launcher (srun --mpi=pmix, prterun) or a PMI-1 one (mpiexec.hydra, "
                    "srun --mpi=pmi2), or set GASKET_BOOTSTRAP=local to run it as a singleton anyway");
}

Status no_dynamic_processes(const char* what) {
  return Status(StatusCode::kUnavailable,
                std::string(what) + ": dynamic processes need gasketrun's store (mpiexec/gasketrun); this "
                "process was started by another launcher or as a singleton, which gasket cannot ask to "
                "start processes or to keep names (docs/LAUNCHING.md)");
}

}  // namespace

// The program `app` names, as its PEs will execute it: a command without '/' is looked for in
// the spawn's "path" directories, then in PATH; one with '/' relative to the working directory.
Result<std::string> spawn_program(const bootstrap::SpawnApp& app) {
  std::string where = app.wdir.empty() ? "" : " (wdir '" + app.wdir + "')";
  if (app.command.empty()) return invalid_argument("the command is empty");
  if (!app.wdir.empty() && ::access(app.wdir.c_str(), X_OK) != 0) {
    return invalid_argument("cannot enter the working directory '" + app.wdir + "': " + std::strerror(errno));
  }
  std::vector<std::string> candidates;
  if (app.command.find('/') != std::string::npos) {
    candidates.push_back(app.command[0] == '/' || app.wdir.empty() ? app.command : app.wdir + "/" + app.command);
  } else {
    std::string dirs = app.path;
    if (const char* path = std::getenv("PATH")) dirs += (dirs.empty() ? "" : ":") + std::string(path);
    size_t at = 0;
    while (at <= dirs.size()) {
      size_t end = std::min(dirs.find(':', at), dirs.size());
      std::string dir = dirs.substr(at, end - at);
      candidates.push_back((dir.empty() ? "." : dir) + "/" + app.command);
      at = end + 1;
    }
  }
  int last_errno = ENOENT;
  for (const std::string& c : candidates) {
    struct stat st;
    if (::stat(c.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(c.c_str(), X_OK) == 0) {
      return app.command.find('/') != std::string::npos ? app.command : c;
    }
    if (errno != ENOENT) last_errno = errno;
  }
  return invalid_argument("cannot execute '" + app.command + "'" + where + ": " + std::strerror(last_errno));
}

Status Bootstrap::spawn(const SpawnRequest&) { return no_dynamic_processes("spawn"); }
Status Bootstrap::publish_name(const std::string&, const std::string&) { return no_dynamic_processes("publish"); }
Result<std::string> Bootstrap::lookup_name(const std::string&) { return no_dynamic_processes("lookup"); }
Status Bootstrap::unpublish_name(const std::string&) { return no_dynamic_processes("unpublish"); }

Result<std::unique_ptr<Bootstrap>> create_from_environment(const std::string& kind) {
  if (kind != "auto" && kind != "local" && kind != "pmix" && kind != "pmi") {
    return invalid_argument("bootstrap: bad GASKET_BOOTSTRAP='" + kind + "': must be auto, local, pmix or pmi");
  }
  EnvLookup lookup = [](const char* name) { return std::getenv(name); };
  bool store = lookup(kEnvJobStore) != nullptr;
  if (kind == "pmix" || (kind == "auto" && !store && detail::pmix_server_in_environment())) {
    return detail::connect_pmix();
  }
  bool pmi_manager = lookup(kEnvPmiFd) != nullptr || lookup(kEnvPmiPort) != nullptr;
  if (kind == "pmi" || (kind == "auto" && !store && pmi_manager)) {
    return detail::connect_pmi(lookup);
  }
  if (!store) {
    std::vector<std::string> seen = kind == "auto" ? foreign_launcher_variables(lookup) : std::vector<std::string>();
    if (!seen.empty()) return refuse_foreign_launcher(seen);
    return detail::create_singleton();
  }
  Result<JobEnvironment> env = read_job_environment(lookup);
  if (!env.is_ok()) return env.status();
  return detail::connect_launcher_store(*env);
}

}  // namespace gasket::bootstrap
