#include "core/bootstrap/job_environment.h"

#include "core/base/parse.h"
#include "core/bootstrap/job_identity.h"

namespace gasket::bootstrap {
namespace {

Status bad_variable(const char* name, const std::string& value, const std::string& why) {
  return invalid_argument(std::string("bootstrap: bad ") + name + "='" + value + "': " + why);
}

bool is_hex(const std::string& s) {
  for (char c : s) {
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Status split_host_port(const std::string& text, const std::string& what, std::string* host,
                       int* port) {
  auto bad = [&](const std::string& why) {
    return invalid_argument("bootstrap: bad " + what + "='" + text + "': " + why +
                            " (expected host:port)");
  };
  std::string h;
  std::string p;
  if (!text.empty() && text[0] == '[') {
    size_t close = text.find(']');
    if (close == std::string::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return bad("unterminated [IPv6] address or missing port");
    }
    h = text.substr(1, close - 1);
    p = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string::npos) return bad("no port");
    h = text.substr(0, colon);
    p = text.substr(colon + 1);
  }
  if (h.empty()) return bad("empty host");
  Result<int64_t> port_value = parse_int(p, 1, 65535);
  if (!port_value.is_ok()) return bad("port: " + port_value.status().message());
  *host = h;
  *port = static_cast<int>(*port_value);
  return Status::ok();
}

std::vector<std::string> foreign_launcher_variables(const EnvLookup& lookup) {
  // Rank and size variables of the launchers an MPI user is likely to reach for.
  static const char* const kLauncherVariables[] = {
      kEnvPmiRank, kEnvPmiSize, kEnvPmiFd, kEnvPmiPort, kEnvPmiId,  // PMI-1/2 (Hydra, Slurm, ...)
      "PMIX_RANK", "PMIX_NAMESPACE",                                 // PMIx (one of the two is missing)
      "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",                // Open MPI's mpirun
      kEnvMpiLocalRanks, "MPI_LOCALRANKID",                          // Hydra
      "MV2_COMM_WORLD_RANK", "MV2_COMM_WORLD_SIZE",                  // MVAPICH's mpirun_rsh
      "PALS_RANKID",                                                 // HPE Cray PALS
  };
  std::vector<std::string> seen;
  for (const char* name : kLauncherVariables) {
    if (const char* v = lookup(name); v != nullptr) seen.push_back(std::string(name) + "=" + v);
  }
  // srun without --mpi (or with --mpi=none): several tasks, no process-management interface.
  const char* tasks = lookup("SLURM_STEP_NUM_TASKS");
  const char* procid = lookup("SLURM_PROCID");
  if (tasks != nullptr && procid != nullptr) {
    Result<int64_t> n = parse_int(tasks, 0, 1 << 30);
    if (!n.is_ok() || *n > 1) {
      seen.push_back(std::string("SLURM_STEP_NUM_TASKS=") + tasks);
      seen.push_back(std::string("SLURM_PROCID=") + procid);
    }
  }
  return seen;
}

Result<JobEnvironment> read_job_environment(const EnvLookup& lookup) {
  JobEnvironment env;
  auto required = [&](const char* name, std::string* out) -> Status {
    const char* v = lookup(name);
    if (v == nullptr) {
      return invalid_argument(std::string("bootstrap: ") + kEnvJobStore +
                              " is set but " + name + " is not (was this started by gasketrun?)");
    }
    *out = v;
    return Status::ok();
  };
  std::string store, rank_text, size_text;
  Status s = required(kEnvJobStore, &store);
  if (s.is_ok()) s = required(kEnvJobId, &env.job_id);
  if (s.is_ok()) s = required(kEnvJobSecret, &env.secret);
  if (s.is_ok()) s = required(kEnvJobRank, &rank_text);
  if (s.is_ok()) s = required(kEnvJobSize, &size_text);
  if (!s.is_ok()) return s;

  s = split_host_port(store, kEnvJobStore, &env.store_host, &env.store_port);
  if (!s.is_ok()) return s;
  if (!is_valid_job_id(env.job_id)) {
    return bad_variable(kEnvJobId, env.job_id,
                        "expected 1 to 64 characters from [A-Za-z0-9_.]");
  }
  if (env.secret.size() < 32 || !is_hex(env.secret)) {
    return bad_variable(kEnvJobSecret, std::string(env.secret.size(), '*'),
                        "expected at least 32 hex digits (the value is not shown)");
  }
  Result<int64_t> size = parse_int(size_text, 1, 1 << 24);
  if (!size.is_ok()) return bad_variable(kEnvJobSize, size_text, size.status().message());
  Result<int64_t> rank = parse_int(rank_text, 0, (1 << 24) - 1);
  if (!rank.is_ok()) return bad_variable(kEnvJobRank, rank_text, rank.status().message());
  if (*rank >= *size) {
    return bad_variable(kEnvJobRank, rank_text,
                        std::string("must be less than ") + kEnvJobSize + "=" + size_text);
  }
  env.rank = static_cast<int>(*rank);
  env.size = static_cast<int>(*size);
  if (const char* over = lookup(kEnvJobOversubscribed); over != nullptr && *over != '\0') {
    Result<bool> b = parse_bool(over);
    if (!b.is_ok()) return bad_variable(kEnvJobOversubscribed, over, b.status().message());
    env.oversubscribed = *b;
  }
  if (const char* names = lookup(kEnvJobNameServer); names != nullptr && *names != '\0') {
    std::string host;
    int port = 0;
    Status s = split_host_port(names, kEnvJobNameServer, &host, &port);
    if (!s.is_ok()) return s;
    env.name_server = names;
  }
  return env;
}

}  // namespace gasket::bootstrap
