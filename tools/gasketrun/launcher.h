// The gasket launcher as a library: gasketrun's main is a thin wrapper over launcher_main(), and
// mpiexec / oshrun can be the same wrapper under another name.
//
// A job: fork N PEs, give each the GASKET_JOB_* environment (core/bootstrap/job_environment.h),
// serve the bootstrap key-value store over TCP, forward the PEs' output line by line, and end the
// whole job - with one summary line and a non-zero status - as soon as one PE fails, aborts, hangs
// past the timeout, or the launcher is signalled. Every /dev/shm/gasket-<job_id>-* file is removed
// when the job ends, however it ends.
#pragma once

#include <string>
#include <vector>

#include "core/base/status.h"

namespace gasket::launcher {

// Exit statuses of the launcher itself (a failing PE's own status is passed through otherwise).
constexpr int kExitLauncherError = 1;  // the launcher could not run the job (socket, fork, ...)
constexpr int kExitUsage = 2;          // bad command line
constexpr int kExitTimeout = 124;      // --timeout expired (as timeout(1))
constexpr int kExitCannotExecute = 127;  // the program could not be executed (as the shells)

// Upper bound on -n, to catch typos before forking thousands of processes.
constexpr int kMaxPes = 4096;

enum class BindPolicy { kCore, kNone };
// Whether each PE leads a session of its own (setsid before exec) or stays in the launcher's.
// Where the kernel shares the CPU between sessions first (autogroup scheduling,
// /proc/sys/kernel/sched_autogroup_enabled), a PE of its own session gets a session's share
// beside a loaded shell, not a share within it (MPICH's Hydra starts its ranks so).
// kAuto: a session per PE while the job's PEs fit the cores, else the launcher's: PEs that
// outnumber the cores pass the CPU between them at every wait, and the scheduler hands it over
// more slowly between sessions than within one (16 PEs on 2 cores: small collectives 2.5x slower
// in sessions of their own, tools/gasketrun/README.md "What a job does").
enum class SessionPolicy { kAuto, kPe, kLauncher };

// One part of an MPMD command line (`-n 1 ./a : -n 3 ./b`): its PEs get MPI_APPNUM = its index.
struct AppContext {
  int num_pes = 0;
  std::vector<std::string> command;  // program and its arguments
  std::vector<std::string> env;      // "VAR=VALUE" for this part's PEs only (-env)
  std::string wdir;                  // working directory of its PEs ("" = the launcher's)
};

struct LaunchOptions {
  int num_pes = 0;  // the total over apps
  std::vector<AppContext> apps;
  std::vector<std::string> env;  // "VAR=VALUE" for every PE (-genv, -x, -genvlist)
  // Slots the host list grants (-host/-hostfile with counts); 0: not limited. It is the job's
  // MPI_UNIVERSE_SIZE when larger than num_pes.
  int slots = 0;
  BindPolicy bind = BindPolicy::kCore;
  SessionPolicy session = SessionPolicy::kAuto;
  // >0: PEs r with the same r / pes_per_node get GASKET_NODE_NAME=<hostname>:<r / pes_per_node>.
  int pes_per_node = 0;
  bool tag_output = false;
  bool quiet = false;
  double timeout_seconds = 0;  // 0: no timeout
  double grace_seconds = 2.0;  // between SIGTERM (or a forwarded signal) and SIGKILL
  std::string store_address = "127.0.0.1";  // "host" or "host:port" the store listens on
  // Where the PEs' stdout lines go, and their stderr lines plus the launcher's own messages.
  // Library users (tests running jobs in-process) may point them at pipes or files.
  int output_fd = 1;
  int error_fd = 2;
  // A job spawned by another job's PE (MPI_Comm_spawn) runs in a launcher process of its own,
  // forked by the parent job's launcher: it shares the parent's secret (links between the jobs'
  // processes authenticate with it) and name server, and its PEs connect to `parent_port` from
  // MPI_Init. Its PEs are never bound and always yield while waiting (the parents' PEs run too).
  std::string secret;        // "" = draw a new one
  std::string name_server;   // host:port of the store keeping published names; "" = this job's
  std::string parent_port;   // "" = not spawned
};

struct CommandLine {
  bool show_help = false;
  LaunchOptions options;
};

// Parses the arguments after the tool name. Defaults not given on the command line come from
// the environment (GASKET_TIMEOUT). Errors are kInvalidArgument with a one-line message.
Result<CommandLine> parse_command_line(const std::vector<std::string>& args);

std::string usage_text(const std::string& tool_name);

// Runs one job to its end and returns the launcher's exit status: 0 when every PE exited 0
// (after finalize, if it connected to the store); otherwise the first failing PE's status, 128 +
// its signal, the abort code, kExitTimeout, or 128 + the signal the launcher received.
// `tool_name` prefixes every line the launcher prints ("gasketrun: ...").
// For the duration of the job it catches SIGCHLD, SIGINT, SIGTERM and SIGHUP and ignores SIGPIPE
// (the previous dispositions are restored before it returns, and PEs start with them); it waits
// only for its own PEs. One job at a time per process: the signal handlers share one self-pipe.
int run_job(const LaunchOptions& options, const std::string& tool_name);

// The whole tool: parse, --help, run. Returns the process exit status.
int launcher_main(int argc, char** argv, const std::string& tool_name);

}  // namespace gasket::launcher
