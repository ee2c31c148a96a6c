// The environment variables a launcher gives each PE, declared once for both sides: gasketrun
// sets them, the launcher-store bootstrap reads them.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace gasket::bootstrap {

// host:port of the launcher's key-value store ("[v6addr]:port" for IPv6). Its presence selects the
// launcher bootstrap; without it a program runs as a singleton (PE 0 of 1).
constexpr char kEnvJobStore[] = "GASKET_JOB_STORE";
// Short unique id of the job, safe in file names (see job_identity.h).
constexpr char kEnvJobId[] = "GASKET_JOB_ID";
// Random hex secret (128 bits or more); the first message on every store connection.
constexpr char kEnvJobSecret[] = "GASKET_JOB_SECRET";
// This PE's number, 0 <= rank < size.
constexpr char kEnvJobRank[] = "GASKET_JOB_RANK";
// Number of PEs in the job.
constexpr char kEnvJobSize[] = "GASKET_JOB_SIZE";
// 1 when the launcher put more PEs on this host than it has cores (optional, default 0).
constexpr char kEnvJobOversubscribed[] = "GASKET_JOB_OVERSUBSCRIBED";
// MPMD: the index of this PE's part of the command line (MPI_APPNUM), and that part's PE count
// (MPI_INFO_ENV's maxprocs). Optional: set by gasketrun, read by the MPI library.
constexpr char kEnvJobAppnum[] = "GASKET_JOB_APPNUM";
constexpr char kEnvJobAppSize[] = "GASKET_JOB_APP_SIZE";
// The number of PEs the job may have (MPI_UNIVERSE_SIZE): the host list's slots, else the size.
constexpr char kEnvJobUniverseSize[] = "GASKET_JOB_UNIVERSE_SIZE";
// Node identity override; gasketrun --pes-per-node sets "<hostname>:<rank / K>".
// Dynamic processes: the store keeping published names (the first launcher's; default: this
// job's store), and the port a spawned job's processes connect to from MPI_Init.
constexpr char kEnvJobNameServer[] = "GASKET_JOB_NAME_SERVER";
constexpr char kEnvJobParentPort[] = "GASKET_JOB_PARENT_PORT";
// A singleton's spawn runs gasket's launcher (GASKET_LAUNCHER, else the mpiexec installed beside
// the library) with the parent port and the secret the new job shares with it.
constexpr char kEnvLauncher[] = "GASKET_LAUNCHER";
constexpr char kEnvSpawnParentPort[] = "GASKET_SPAWN_PARENT_PORT";
constexpr char kEnvSpawnSecret[] = "GASKET_SPAWN_SECRET";
constexpr char kEnvNodeName[] = "GASKET_NODE_NAME";
// The directory of published names (name_table.h) shared by every job of this user that
// names it; default /tmp/gasket-names-<uid>. Read by whoever keeps the names (gasketrun's store,
// a singleton, a PMIx PE whose server has no name service).
constexpr char kEnvNameDir[] = "GASKET_NAME_DIR";

// Set by a PMI-1 process manager (MPICH's Hydra, Slurm's --mpi=pmi2): the connected socket, this
// process's rank and the job size. PMI_FD selects the PMI bootstrap when no GASKET_JOB_STORE or
// PMIx server is there.
constexpr char kEnvPmiFd[] = "PMI_FD";
constexpr char kEnvPmiRank[] = "PMI_RANK";
constexpr char kEnvPmiSize[] = "PMI_SIZE";
// PMI-1's connect mode (Hydra's -pmi-port): host:port to connect to, and the id to introduce this
// process with; rank and size then come from the process manager.
constexpr char kEnvPmiPort[] = "PMI_PORT";
constexpr char kEnvPmiId[] = "PMI_ID";
// Hydra: how many processes of the job share this node (optional; tells oversubscription).
constexpr char kEnvMpiLocalRanks[] = "MPI_LOCALNRANKS";

struct JobEnvironment {
  std::string store_host;
  int store_port = 0;
  std::string job_id;
  std::string secret;
  int rank = 0;
  int size = 0;
  bool oversubscribed = false;
  std::string name_server;  // host:port, "" = the store itself
};

// Looks a variable up; returns nullptr when unset. getenv in production, a map in tests.
using EnvLookup = std::function<const char*(const char* name)>;

// Reads and validates the launcher variables. Every error names the variable and its value.
// Call only when kEnvJobStore is set.
Result<JobEnvironment> read_job_environment(const EnvLookup& lookup);

// The variables of a multi-process launcher gasket cannot bootstrap through (another MPI's
// launcher without PMIx or PMI_FD, PMI_PORT mode, srun without --mpi, ...) found in the
// environment, as "NAME=value" items; empty when there are none. Call when no GASKET_JOB_STORE,
// PMIx server or PMI_FD was found: a non-empty answer means this process is one of several that
// would each run as a singleton.
std::vector<std::string> foreign_launcher_variables(const EnvLookup& lookup);

// Splits "host:port" / "[v6]:port"; `what` names the source in errors (e.g. "GASKET_JOB_STORE").
Status split_host_port(const std::string& text, const std::string& what, std::string* host,
                       int* port);

}  // namespace gasket::bootstrap
