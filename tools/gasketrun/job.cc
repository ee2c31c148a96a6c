// One job of N PEs, run by a single poll() loop over: the signal self-pipe, the store's listener
// and connections, every PE's stdout/stderr pipe, and the timers (job timeout, SIGKILL after the
// grace period, unauthenticated store connections, the final drain of output).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "core/bootstrap/job_environment.h"
#include "core/bootstrap/job_identity.h"
#include "tools/gasketrun/binding.h"
#include "tools/gasketrun/launcher.h"
#include "tools/gasketrun/output_forwarder.h"
#include "tools/gasketrun/store_server.h"

extern char** environ;

namespace gasket::launcher {
namespace {

using Clock = std::chrono::steady_clock;

// The only global: the write end of the self-pipe through which signal handlers wake the loop.
int g_signal_pipe_write = -1;

extern "C" void on_launcher_signal(int signo) {
  int saved = errno;
  unsigned char b = static_cast<unsigned char>(signo);
  ssize_t ignored = ::write(g_signal_pipe_write, &b, 1);
  (void)ignored;
  errno = saved;
}

// Signals the launcher catches; SIGINT, SIGTERM and SIGHUP are forwarded to the PEs.
constexpr int kCaughtSignals[] = {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGPIPE};
constexpr size_t kNumCaught = sizeof kCaughtSignals / sizeof kCaughtSignals[0];
// After the last PE is reaped, output still in flight is awaited this long (a PE's child may
// hold the pipes open).
constexpr std::chrono::milliseconds kDrainTime{1000};
// How long a PE's abort waits for another PE's exit, the likelier cause, to be reaped first.
constexpr int kCauseWaitMs = 20;

std::string signal_text(int sig) {
  const char* d = ::strsignal(sig);
  return std::to_string(sig) + " (" + (d != nullptr ? d : "unknown") + ")";
}

std::string seconds_text(double s) {
  char buf[32];
  snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

// Control characters from a PE's message would break the one-line summary.
std::string one_line(const std::string& text) {
  std::string out = text.substr(0, 4096);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  return out;
}

int ms_until(Clock::time_point deadline, Clock::time_point now) {
  if (deadline <= now) return 0;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
  return static_cast<int>(std::min<long long>(ms, 1 << 30));
}

class Job final : public StoreObserver {
 public:
  Job(const LaunchOptions& options, std::string tool)
      : options_(options),
        tool_(std::move(tool)),
        pes_(static_cast<size_t>(options.num_pes)) {}
  ~Job() override;

  // Runs the job to its end and removes its shared-memory files; returns the exit status.
  int run();

  void on_pe_connected(int rank) override { pes_[static_cast<size_t>(rank)].connected = true; }
  void on_pe_finalized(int rank) override { pes_[static_cast<size_t>(rank)].finalized = true; }
  void on_pe_abort(int rank, int code, const std::string& message) override {
    drain_output(rank);
    // A PE whose peer exited (exit(3) without finalize) may report the lost connection before
    // this loop reaps the peer: the peer's exit is the cause to name, so look for it first.
    for (int wait_ms = 0; !ending_ && wait_ms <= kCauseWaitMs; ++wait_ms) {
      if (wait_ms > 0) ::usleep(1000);
      reap_children();
    }
    if (ending_) return;
    // The code is the job's exit status, as OpenSHMEM (shmem_global_exit) and MPI (MPI_Abort)
    // ask, 0 included; like exit(3), only its low 8 bits reach the environment.
    end_job(code & 0xff, "PE " + std::to_string(rank) + " aborted with code " + std::to_string(code) +
                        ": " + one_line(message));
  }
  void on_store_notice(const std::string& line) override { say(line); }
  Status on_spawn(int rank, const bootstrap::SpawnRequest& request) override;

 private:
  struct Pe {
    pid_t pid = -1;
    bool running = false;
    bool connected = false;
    bool finalized = false;
    std::unique_ptr<OutputForwarder> out;
    std::unique_ptr<OutputForwarder> err;
  };

  // A job spawned by one of this job's PEs: its own launcher process (a fork of this one).
  struct SpawnedJob {
    pid_t pid = -1;
    int parent_rank = 0;
    std::string what;  // "2 PEs of './child'"
    bool running = false;
  };

  int run_pes();
  // Three descriptors per PE (two pipes, a socket) exceed the usual soft limit of 1024 for large
  // jobs: raise it to the hard limit. PEs get the original limit back.
  void raise_fd_limit();
  Status setup_signals();
  void restore_signals();
  void reset_signals_in_child() const;
  std::vector<std::string> base_environment() const;
  Status start_pe(int rank, const BindingPlan& plan, const std::vector<std::string>& base_env);
  void reap_children();
  void on_pe_exit(int rank, int wait_status);
  void handle_signal_pipe();
  // Starts ending the job (first call only): prints `summary`, sends `sig` to every running PE
  // and arms the SIGKILL deadline.
  void end_job(int exit_status, const std::string& summary, int sig = SIGTERM);
  void signal_running(int sig);
  int running_count() const;
  void drain_output(int rank);
  void say(const std::string& line) const;
  void notice(const std::string& line) const {
    if (!options_.quiet) say(line);
  }

  const LaunchOptions options_;
  const std::string tool_;
  std::string job_id_;
  std::string secret_;
  std::unique_ptr<StoreServer> store_;
  std::vector<Pe> pes_;
  std::vector<SpawnedJob> spawned_;

  bool ending_ = false;
  int exit_status_ = 0;
  std::optional<Clock::time_point> timeout_deadline_;
  std::optional<Clock::time_point> kill_deadline_;
  std::optional<Clock::time_point> drain_deadline_;

  int signal_pipe_[2] = {-1, -1};
  struct rlimit old_fd_limit_ = {0, 0};
  bool fd_limit_raised_ = false;
  struct sigaction old_actions_[kNumCaught];
  bool signals_installed_ = false;
};

Job::~Job() {
  restore_signals();
  if (fd_limit_raised_) (void)::setrlimit(RLIMIT_NOFILE, &old_fd_limit_);
  for (Pe& pe : pes_) {
    pe.out.reset();
    pe.err.reset();
  }
}

void Job::say(const std::string& line) const {
  std::string text = tool_ + ": " + line + "\n";
  (void)write_fully(options_.error_fd, text.data(), text.size());
}

void Job::raise_fd_limit() {
  struct rlimit limit;
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == limit.rlim_max) return;
  old_fd_limit_ = limit;
  limit.rlim_cur = limit.rlim_max;
  fd_limit_raised_ = ::setrlimit(RLIMIT_NOFILE, &limit) == 0;
}

Status Job::setup_signals() {
  if (::pipe2(signal_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) return errno_error("pipe2(signal pipe)");
  g_signal_pipe_write = signal_pipe_[1];
  for (size_t i = 0; i < kNumCaught; ++i) {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = kCaughtSignals[i] == SIGPIPE ? SIG_IGN : on_launcher_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | (kCaughtSignals[i] == SIGCHLD ? SA_NOCLDSTOP : 0);
    if (::sigaction(kCaughtSignals[i], &sa, &old_actions_[i]) != 0) {
      return errno_error("sigaction(" + signal_text(kCaughtSignals[i]) + ")");
    }
  }
  signals_installed_ = true;
  return Status::ok();
}

// In a forked child before exec: the signal actions and mask the launcher started with
// (async-signal-safe calls only).
void Job::reset_signals_in_child() const {
  for (size_t i = 0; i < kNumCaught; ++i) (void)::sigaction(kCaughtSignals[i], &old_actions_[i], nullptr);
  sigset_t none;
  sigemptyset(&none);
  (void)::sigprocmask(SIG_SETMASK, &none, nullptr);
}

void Job::restore_signals() {
  if (signals_installed_) {
    for (size_t i = 0; i < kNumCaught; ++i) (void)::sigaction(kCaughtSignals[i], &old_actions_[i], nullptr);
    signals_installed_ = false;
  }
  if (signal_pipe_[0] >= 0) {
    g_signal_pipe_write = -1;
    ::close(signal_pipe_[0]);
    ::close(signal_pipe_[1]);
    signal_pipe_[0] = signal_pipe_[1] = -1;
  }
}

std::vector<std::string> Job::base_environment() const {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string entry = *e;
    bool ours = entry.compare(0, 11, "GASKET_JOB_") == 0 ||
                (options_.pes_per_node > 0 &&
                 entry.compare(0, std::strlen(bootstrap::kEnvNodeName) + 1,
                               std::string(bootstrap::kEnvNodeName) + "=") == 0);
    if (!ours) env.push_back(std::move(entry));
  }
  return env;
}

Status Job::start_pe(int rank, const BindingPlan& plan, const std::vector<std::string>& base_env) {
  using namespace bootstrap;
  // The part of the command line this rank belongs to, and its first rank.
  size_t appnum = 0;
  int app_first = 0;
  while (rank >= app_first + options_.apps[appnum].num_pes) app_first += options_.apps[appnum++].num_pes;
  const AppContext& app = options_.apps[appnum];
  std::vector<std::string> env = base_env;
  // -genv/-x, then -env, replace the launcher's own values (getenv finds the first entry).
  for (const std::vector<std::string>* given : {&options_.env, &app.env}) {
    for (const std::string& assignment : *given) {
      std::string prefix = assignment.substr(0, assignment.find('=') + 1);
      env.erase(std::remove_if(env.begin(), env.end(),
                               [&](const std::string& e) { return e.compare(0, prefix.size(), prefix) == 0; }),
                env.end());
      env.push_back(assignment);
    }
  }
  auto set = [&env](const char* name, const std::string& value) {
    env.push_back(std::string(name) + "=" + value);
  };
  set(kEnvJobStore, store_->address());
  set(kEnvJobId, job_id_);
  set(kEnvJobSecret, secret_);
  set(kEnvJobRank, std::to_string(rank));
  set(kEnvJobSize, std::to_string(options_.num_pes));
  set(kEnvJobOversubscribed, plan.oversubscribed || !options_.parent_port.empty() ? "1" : "0");
  set(kEnvJobAppnum, std::to_string(appnum));
  set(kEnvJobAppSize, std::to_string(app.num_pes));
  set(kEnvJobUniverseSize, std::to_string(std::max(options_.num_pes, options_.slots)));
  set(kEnvJobNameServer, options_.name_server.empty() ? store_->address() : options_.name_server);
  if (!options_.parent_port.empty()) set(kEnvJobParentPort, options_.parent_port);
  if (options_.pes_per_node > 0) {
    char host[256] = "localhost";
    (void)::gethostname(host, sizeof host - 1);
    set(kEnvNodeName, std::string(host) + ":" + std::to_string(rank / options_.pes_per_node));
  }
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = app.command;
  const char* wdir = app.wdir.empty() ? nullptr : app.wdir.c_str();
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const cpu_set_t* cpuset =
      plan.cpusets.empty() ? nullptr : &plan.cpusets[static_cast<size_t>(rank)];
  const bool own_session = options_.session == SessionPolicy::kPe ||
                           (options_.session == SessionPolicy::kAuto && !plan.oversubscribed);

  const std::string who = "PE " + std::to_string(rank);
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return errno_error(who + ": pipe2(stdout)");
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    Status s = errno_error(who + ": pipe2(stderr)");
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return s;
  }
  if (::pipe2(exec_pipe, O_CLOEXEC) != 0) {
    Status s = errno_error(who + ": pipe2(exec status)");
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) ::close(fd);
    return s;
  }
  pid_t launcher = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    // Child: only async-signal-safe calls from here to exec.
    reset_signals_in_child();
    // A launcher killed by SIGKILL cannot clean up; at least its PEs do not outlive it.
    (void)::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != launcher) _exit(kExitLauncherError);
    (void)::dup2(out_pipe[1], STDOUT_FILENO);
    (void)::dup2(err_pipe[1], STDERR_FILENO);
    if (rank != 0) {  // stdin goes to PE 0 only
      int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      if (devnull >= 0) (void)::dup2(devnull, STDIN_FILENO);
    }
    if (own_session) (void)::setsid();  // never a group leader here (the launcher leads or not)
    if (cpuset != nullptr) (void)::sched_setaffinity(0, sizeof *cpuset, cpuset);
    if (wdir != nullptr && ::chdir(wdir) != 0) {
      int e = errno;
      ssize_t ignored = ::write(exec_pipe[1], &e, sizeof e);
      (void)ignored;
      _exit(kExitCannotExecute);
    }
    if (fd_limit_raised_) (void)::setrlimit(RLIMIT_NOFILE, &old_fd_limit_);
    ::execvpe(argv[0], argv.data(), envp.data());
    int e = errno;
    ssize_t ignored = ::write(exec_pipe[1], &e, sizeof e);
    (void)ignored;
    _exit(kExitCannotExecute);
  }
  int fork_errno = errno;
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  ::close(exec_pipe[1]);
  if (pid < 0) {
    for (int fd : {out_pipe[0], err_pipe[0], exec_pipe[0]}) ::close(fd);
    errno = fork_errno;
    return errno_error(who + ": fork");
  }
  Pe& pe = pes_[static_cast<size_t>(rank)];
  pe.pid = pid;
  pe.running = true;
  std::string tag = options_.tag_output ? "[pe " + std::to_string(rank) + "] " : "";
  pe.out = std::make_unique<OutputForwarder>(out_pipe[0], options_.output_fd, tag);
  pe.err = std::make_unique<OutputForwarder>(err_pipe[0], options_.error_fd, tag);
  // EOF means exec succeeded (the pipe is close-on-exec); otherwise the child sends errno.
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(exec_pipe[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  ::close(exec_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    errno = exec_errno;
    return Status(StatusCode::kUnavailable, who + ": cannot execute '" + app.command[0] + "'" +
                                                (wdir != nullptr ? " in '" + app.wdir + "'" : "") + ": " + std::strerror(exec_errno));
  }
  return Status::ok();
}

int Job::running_count() const {
  int n = 0;
  for (const Pe& pe : pes_) n += pe.running ? 1 : 0;
  for (const SpawnedJob& job : spawned_) n += job.running ? 1 : 0;
  return n;
}

void Job::signal_running(int sig) {
  for (const Pe& pe : pes_) {
    if (pe.running) (void)::kill(pe.pid, sig);
  }
  for (const SpawnedJob& job : spawned_) {
    if (job.running) (void)::kill(job.pid, sig);
  }
}

Status Job::on_spawn(int rank, const bootstrap::SpawnRequest& request) {
  if (ending_) return invalid_argument("the job is ending");
  LaunchOptions o;
  for (const bootstrap::SpawnApp& app : request.apps) {
    Result<std::string> program = bootstrap::spawn_program(app);
    if (!program.is_ok()) return program.status();
    if (app.maxprocs < 1 || app.maxprocs > kMaxPes) {
      return invalid_argument("maxprocs " + std::to_string(app.maxprocs) + " is out of range [1, " +
                              std::to_string(kMaxPes) + "]");
    }
    AppContext part;
    part.num_pes = app.maxprocs;
    part.command.push_back(*program);
    part.command.insert(part.command.end(), app.args.begin(), app.args.end());
    part.wdir = app.wdir;
    o.num_pes += app.maxprocs;
    o.apps.push_back(std::move(part));
  }
  if (o.apps.empty()) return invalid_argument("nothing to spawn");
  o.env = options_.env;
  o.bind = BindPolicy::kNone;
  o.tag_output = options_.tag_output;
  o.quiet = true;
  o.grace_seconds = options_.grace_seconds;
  o.output_fd = options_.output_fd;
  o.error_fd = options_.error_fd;
  o.secret = secret_;
  o.name_server = options_.name_server.empty() ? store_->address() : options_.name_server;
  o.parent_port = request.parent_port;
  SpawnedJob job;
  job.parent_rank = rank;
  job.what = std::to_string(o.num_pes) + (o.num_pes == 1 ? " PE of '" : " PEs of '") + o.apps[0].command[0] + "'" +
             (o.apps.size() > 1 ? " and " + std::to_string(o.apps.size() - 1) + " more programs" : "");
  std::string tool = tool_ + ": job spawned by PE " + std::to_string(rank);
  pid_t launcher = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    reset_signals_in_child();
    // Ends (and cleans up its PEs and files) when this launcher dies.
    (void)::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != launcher) _exit(kExitLauncherError);
    // Keep stdin/stdout/stderr and the output descriptors; the parent job's pipes, store and
    // signal pipe belong to this launcher only.
    int keep_low = std::min(o.output_fd, o.error_fd), keep_high = std::max(o.output_fd, o.error_fd);
    unsigned first = 3;
    for (int keep : {keep_low, keep_high}) {
      if (keep >= static_cast<int>(first)) {
        if (static_cast<unsigned>(keep) > first) (void)::syscall(SYS_close_range, first, static_cast<unsigned>(keep) - 1, 0);
        first = static_cast<unsigned>(keep) + 1;
      }
    }
    (void)::syscall(SYS_close_range, first, ~0u, 0);
    _exit(run_job(o, tool));
  }
  if (pid < 0) return errno_error("fork of the spawned job's launcher");
  job.pid = pid;
  job.running = true;
  spawned_.push_back(std::move(job));
  return Status::ok();
}

void Job::end_job(int exit_status, const std::string& summary, int sig) {
  if (ending_) return;
  ending_ = true;
  exit_status_ = exit_status;
  say(summary);
  signal_running(sig);
  kill_deadline_ = Clock::now() + std::chrono::milliseconds(
                                      static_cast<long long>(options_.grace_seconds * 1000));
}

void Job::drain_output(int rank) {
  Pe& pe = pes_[static_cast<size_t>(rank)];
  if (pe.out) pe.out->read_available();
  if (pe.err) pe.err->read_available();
}

void Job::reap_children() {
  // PE by PE rather than waitpid(-1): a process that runs jobs through this library (a test)
  // may have children of its own whose status is not ours to collect.
  for (size_t r = 0; r < pes_.size(); ++r) {
    if (!pes_[r].running) continue;
    int status = 0;
    pid_t pid;
    do {
      pid = ::waitpid(pes_[r].pid, &status, WNOHANG);
    } while (pid < 0 && errno == EINTR);
    if (pid == pes_[r].pid) on_pe_exit(static_cast<int>(r), status);
  }
  for (SpawnedJob& job : spawned_) {
    if (!job.running) continue;
    int status = 0;
    pid_t pid;
    do {
      pid = ::waitpid(job.pid, &status, WNOHANG);
    } while (pid < 0 && errno == EINTR);
    if (pid != job.pid) continue;
    job.running = false;
    if (ending_ || (WIFEXITED(status) && WEXITSTATUS(status) == 0)) continue;
    // Its launcher has printed the line naming its PE; this one names the job.
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    end_job(code, "the job spawned by PE " + std::to_string(job.parent_rank) + " (" + job.what +
                      ") failed with status " + std::to_string(code) + "; ending the job");
  }
}

void Job::on_pe_exit(int rank, int status) {
  Pe& pe = pes_[static_cast<size_t>(rank)];
  pe.running = false;
  drain_output(rank);  // what it printed comes before the summary
  if (ending_) return;
  std::string who = "PE " + std::to_string(rank) + " (pid " + std::to_string(pe.pid) + ")";
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    end_job(128 + sig, who + " was killed by signal " + signal_text(sig) + "; ending the job");
  } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
    end_job(WEXITSTATUS(status), who + " exited with status " +
                                     std::to_string(WEXITSTATUS(status)) + "; ending the job");
  } else if (pe.connected && !pe.finalized) {
    end_job(kExitLauncherError,
            who + " exited with status 0 without calling finalize; ending the job");
  }
}

void Job::handle_signal_pipe() {
  unsigned char buf[64];
  for (;;) {
    ssize_t n = ::read(signal_pipe_[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    for (ssize_t i = 0; i < n; ++i) {
      int sig = buf[i];
      if (sig == SIGCHLD) continue;  // children are reaped on every turn of the loop
      if (!ending_) {
        end_job(128 + sig,
                "received signal " + signal_text(sig) + "; forwarding it to " +
                    std::to_string(running_count()) + " PEs",
                sig);
      } else if (running_count() > 0) {
        // Asked twice: stop waiting.
        notice("received signal " + signal_text(sig) + " again; killing " +
               std::to_string(running_count()) + " PEs");
        signal_running(SIGKILL);
        kill_deadline_.reset();
      }
    }
  }
}

int Job::run() {
  int status = run_pes();
  // Every exit path comes through here: no shared-memory file of the job survives it. The PEs
  // are all reaped by now (or were never started), so none can create another file.
  if (!job_id_.empty()) {
    Result<int> removed = bootstrap::remove_job_shm_files(job_id_);
    if (!removed.is_ok()) say("warning: cleaning up job " + job_id_ + ": " + removed.status().message());
  }
  return status;
}

int Job::run_pes() {
  int total = 0;
  for (const AppContext& app : options_.apps) total += app.command.empty() ? 0 : app.num_pes;
  if (options_.num_pes < 1 || total != options_.num_pes) {
    say("nothing to run");
    return kExitUsage;
  }
  Result<std::string> id = bootstrap::new_job_id('j');
  Result<std::string> secret = options_.secret.empty() ? bootstrap::random_hex(16) : Result<std::string>(options_.secret);
  if (!id.is_ok() || !secret.is_ok()) {
    say((id.is_ok() ? secret.status() : id.status()).message());
    return kExitLauncherError;
  }
  job_id_ = *id;
  secret_ = *secret;

  raise_fd_limit();
  Status s = setup_signals();
  if (!s.is_ok()) {
    say(s.message());
    return kExitLauncherError;
  }
  store_ = std::make_unique<StoreServer>(options_.num_pes, secret_, this);
  s = store_->listen(options_.store_address);
  if (!s.is_ok()) {
    say(s.message());
    return kExitLauncherError;
  }
  BindingPlan plan = plan_binding(options_.num_pes, options_.bind);
  for (const std::string& line : plan.notices) notice(line);

  Clock::time_point start = Clock::now();
  if (options_.timeout_seconds > 0) {
    timeout_deadline_ =
        start + std::chrono::microseconds(static_cast<long long>(options_.timeout_seconds * 1e6));
  }
  std::vector<std::string> base_env = base_environment();
  for (int rank = 0; rank < options_.num_pes && !ending_; ++rank) {
    s = start_pe(rank, plan, base_env);
    if (!s.is_ok()) {
      end_job(s.code() == StatusCode::kUnavailable ? kExitCannotExecute : kExitLauncherError,
              s.message());
    }
  }

  std::vector<struct pollfd> fds;
  std::vector<OutputForwarder*> outputs;  // outputs[i] polls at fds[first_output + i]
  for (;;) {
    reap_children();
    Clock::time_point now = Clock::now();
    if (running_count() == 0) {
      if (!drain_deadline_) drain_deadline_ = now + kDrainTime;
      bool open = false;
      for (const Pe& pe : pes_) open = open || (pe.out && pe.out->is_open()) || (pe.err && pe.err->is_open());
      if (!open || now >= *drain_deadline_) break;
    }
    if (!ending_ && timeout_deadline_ && now >= *timeout_deadline_) {
      int n = running_count();
      end_job(kExitTimeout, "job timed out after " + seconds_text(options_.timeout_seconds) +
                                " s; killing " + std::to_string(n) + (n == 1 ? " PE" : " PEs"));
    }
    if (kill_deadline_ && now >= *kill_deadline_) {
      int n = running_count();
      if (n > 0) {
        notice(std::to_string(n) + (n == 1 ? " PE" : " PEs") + " still running after " +
               seconds_text(options_.grace_seconds) + " s; sending SIGKILL");
        signal_running(SIGKILL);
      }
      kill_deadline_.reset();
    }

    int wait_ms = store_->expire(now);
    auto consider = [&](const std::optional<Clock::time_point>& t) {
      if (!t) return;
      int ms = ms_until(*t, now);
      if (wait_ms < 0 || ms < wait_ms) wait_ms = ms;
    };
    if (!ending_) consider(timeout_deadline_);
    consider(kill_deadline_);
    consider(drain_deadline_);

    fds.clear();
    outputs.clear();
    fds.push_back({signal_pipe_[0], POLLIN, 0});
    store_->collect_poll_fds(&fds);
    size_t first_output = fds.size();
    for (Pe& pe : pes_) {
      for (OutputForwarder* f : {pe.out.get(), pe.err.get()}) {
        if (f == nullptr || !f->is_open()) continue;
        fds.push_back({f->fd(), POLLIN, 0});
        outputs.push_back(f);
      }
    }
    int r = ::poll(fds.data(), fds.size(), wait_ms);
    if (r < 0 && errno != EINTR) {
      end_job(kExitLauncherError, std::string("poll: ") + std::strerror(errno), SIGKILL);
      ::usleep(10000);
      continue;
    }
    if (r <= 0) continue;
    if (fds[0].revents != 0) handle_signal_pipe();
    for (size_t i = 1; i < first_output; ++i) {
      if (fds[i].revents != 0) store_->handle_ready(fds[i]);
    }
    // By forwarder, not by fd number: a pipe closed above may have had its number reused.
    for (size_t i = first_output; i < fds.size(); ++i) {
      if (fds[i].revents != 0) outputs[i - first_output]->read_available();
    }
  }

  for (Pe& pe : pes_) {
    if (pe.out) pe.out->finish();
    if (pe.err) pe.err->finish();
  }
  store_->close_all();
  return exit_status_;
}

}  // namespace

int run_job(const LaunchOptions& options, const std::string& tool_name) {
  Job job(options, tool_name);
  return job.run();
}

int launcher_main(int argc, char** argv, const std::string& tool_name) {
  std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
  Result<CommandLine> cl = parse_command_line(args);
  if (!cl.is_ok()) {
    std::string text = tool_name + ": " + cl.status().message() + "\nTry '" + tool_name +
                       " --help' for more information.\n";
    (void)write_fully(STDERR_FILENO, text.data(), text.size());
    return kExitUsage;
  }
  if (cl->show_help) {
    std::string text = usage_text(tool_name);
    (void)write_fully(STDOUT_FILENO, text.data(), text.size());
    return 0;
  }
  // Started by a singleton's MPI_Comm_spawn: the new job connects to it and shares its secret.
  for (auto [name, field] : {std::pair{bootstrap::kEnvSpawnParentPort, &cl->options.parent_port},
                             std::pair{bootstrap::kEnvSpawnSecret, &cl->options.secret}}) {
    if (const char* v = std::getenv(name)) *field = v;
    ::unsetenv(name);
  }
  return run_job(cl->options, tool_name);
}

}  // namespace gasket::launcher
