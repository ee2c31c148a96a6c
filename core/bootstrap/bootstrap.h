// How PEs find each other. A Bootstrap gives the PE its number, the job size, a key-value store
// for exchanging addresses, a collective fence, and a way to abort the whole job.
//
// Implementations: the launcher's store (gasketrun, the embedded default: environment variables
// GASKET_JOB_* point at a TCP store served by the launcher), singleton (a program started without
// a launcher runs as PE 0 of 1), PMIx and PMI-1. The core sees only this interface.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace gasket::bootstrap {

// One program of a spawn (MPI_Comm_spawn / MPI_Comm_spawn_multiple).
struct SpawnApp {
  std::string command;
  std::vector<std::string> args;
  int maxprocs = 1;
  std::string wdir;  // "" = the launcher's
  std::string path;  // directories (':'-separated) searched for a command without '/'
};
struct SpawnRequest {
  std::vector<SpawnApp> apps;
  std::string parent_port;  // the children connect to it from MPI_Init (GASKET_JOB_PARENT_PORT)
};

// The program `app` names, as its processes will execute it: a command without '/' is looked for
// in the app's `path` directories, then in PATH; one with '/' relative to its wdir. Fails naming
// the command and the reason (nothing to execute, a wdir that cannot be entered).
Result<std::string> spawn_program(const SpawnApp& app);

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Names shared-memory files of this job: "/dev/shm/gasket-<job_id>-..." (the launcher removes
  // every such file when the job ends, however it ends).
  virtual const std::string& job_id() const = 0;
  // A per-job random secret (hex), for authenticating connections between PEs.
  virtual const std::string& secret() const = 0;
  // True when the launcher placed more PEs on this host than it has cores.
  virtual bool oversubscribed() const = 0;
  // Node index of every PE (equal index = same host) when the launcher already knows where it
  // placed them (PMIx's node map); empty when the core must find out by exchanging host names.
  virtual std::vector<int> node_of_pe() const { return {}; }

  // Publishes key=value under this PE's name. Values may hold any bytes.
  virtual Status put(const std::string& key, const std::string& value) = 0;
  // Collective over all PEs: returns when every PE has called fence(); every put made before a
  // PE's fence is then visible to get() on every PE.
  virtual Status fence() = 0;
  // Reads the value PE `pe` put under `key`, waiting until it is there.
  virtual Result<std::string> get(int pe, const std::string& key) = 0;

  // Ends the whole job: the launcher prints "PE <rank> aborted with code <exit_code>: <message>",
  // kills every PE and exits with exit_code (1 if exit_code is 0 modulo 256). A singleton prints
  // the same line, removes its /dev/shm files and _exit()s with exit_code. Never returns; safe to
  // call from log::set_fatal_hook's hook, also while another thread is inside a bootstrap call.
  // Not async-signal-safe.
  [[noreturn]] virtual void abort(int exit_code, const std::string& message) = 0;
  // Tells the launcher this PE finished cleanly (it then expects exit status 0). A PE that
  // connected to the launcher and exits without finalize() ends the job as a failure. After
  // finalize() no other call may be made.
  virtual Status finalize() = 0;

  // Dynamic processes (MPI chapter 11), offered by gasketrun's store; the others refuse with
  // kUnavailable naming the reason. spawn() starts a new job running `request` (its processes
  // get their own job id, rank and size, and the parent port); it fails with kInvalidArgument
  // when a program cannot be executed (nothing is started then).
  virtual Status spawn(const SpawnRequest& request);
  // The name service shared by the jobs of one launch: publish fails with kInvalidArgument when
  // `name` is taken; lookup and unpublish with kInvalidArgument when nobody published it.
  virtual Status publish_name(const std::string& name, const std::string& port);
  virtual Result<std::string> lookup_name(const std::string& name);
  virtual Status unpublish_name(const std::string& name);
};

// The bootstrap this process was started with. `kind` is GASKET_BOOTSTRAP:
//   "auto":  the launcher's store when GASKET_JOB_STORE is set, else PMIx when a PMIx server
//            started the process (PMIX_NAMESPACE and PMIX_RANK set), else PMI-1 when a PMI process
//            manager did (PMI_FD or PMI_PORT set), else a singleton job of one PE — unless another launcher's
//            variables are there (foreign_launcher_variables()): then it fails naming them
//            instead of letting each of N processes run as a job of one;
//   "local": the launcher's store or a singleton, never PMIx or PMI;
//   "pmix":  PMIx, failing with a clear message when PMIx_Init does;
//   "pmi":   PMI-1, failing with a clear message without PMI_FD, PMI_RANK and PMI_SIZE (or
//            PMI_PORT and PMI_ID).
Result<std::unique_ptr<Bootstrap>> create_from_environment(const std::string& kind = "auto");

}  // namespace gasket::bootstrap
