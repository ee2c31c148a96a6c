// A program started without a launcher: PE 0 of 1, with the store held in this process.
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstdlib>
#include <thread>
#include <vector>

#include <cstdio>
#include <map>
#include <mutex>

#include "core/bootstrap/bootstrap_impl.h"
#include "core/bootstrap/name_table.h"
#include "core/bootstrap/job_environment.h"
#include "core/bootstrap/job_identity.h"
#include "core/bootstrap/store_protocol.h"

extern char** environ;

namespace gasket::bootstrap::detail {
namespace {

class SingletonBootstrap final : public Bootstrap {
 public:
  SingletonBootstrap(std::string job_id, std::string secret)
      : job_id_(std::move(job_id)), secret_(std::move(secret)) {}

  int rank() const override { return 0; }
  int size() const override { return 1; }
  const std::string& job_id() const override { return job_id_; }
  const std::string& secret() const override { return secret_; }
  bool oversubscribed() const override { return false; }

  Status put(const std::string& key, const std::string& value) override {
    std::lock_guard<std::mutex> lock(mutex_);
    store_[key] = value;
    return Status::ok();
  }

  Status fence() override { return Status::ok(); }

  Result<std::string> get(int pe, const std::string& key) override {
    if (pe != 0) {
      return invalid_argument("PE 0: bootstrap get(pe " + std::to_string(pe) + ", key '" +
                              protocol::printable(key) +
                              "'): PE out of range: this is a singleton job of 1 PE");
    }
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = store_.find(key);
    if (it == store_.end()) {
      // Nobody else can ever put it: fail instead of waiting forever.
      return invalid_argument("PE 0: bootstrap get(pe 0, key '" + protocol::printable(key) +
                              "'): key was never put (singleton job, it cannot appear later)");
    }
    return it->second;
  }

  [[noreturn]] void abort(int exit_code, const std::string& message) override {
    {
      std::unique_lock<std::mutex> lock(spawned_mutex_, std::try_to_lock);
      for (pid_t pid : spawned_) (void)::kill(pid, SIGTERM);  // their launchers end their PEs
    }
    std::string line = "gasket: PE 0 aborted with code " + std::to_string(exit_code) + ": " +
                       message + "\n";
    ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
    // No launcher will clean up after us.
    Result<int> removed = remove_job_shm_files(job_id_);
    (void)removed;
    _exit(exit_code);
  }

  // The jobs this singleton spawned end first (their processes may still be finalizing).
  Status finalize() override {
    std::unique_lock<std::mutex> lock(spawned_mutex_);
    spawned_done_.wait(lock, [this] { return spawned_.empty(); });
    return Status::ok();
  }

  // A singleton has no launcher to ask: it starts gasket's launcher for the new job, which shares
  // its secret and connects to its port; the job failing ends the singleton (as a spawned job
  // failing ends the job that spawned it under gasketrun).
  Status spawn(const SpawnRequest& request) override {
    Result<std::string> launcher = find_launcher();
    if (!launcher.is_ok()) return launcher.status();
    std::vector<std::string> args{*launcher, "-q", "--bind-to", "none"};
    for (const SpawnApp& app : request.apps) {
      Result<std::string> program = spawn_program(app);
      if (!program.is_ok()) return invalid_argument(program.status().message());
      if (args.size() > 4) args.push_back(":");
      args.insert(args.end(), {"-n", std::to_string(app.maxprocs)});
      if (!app.wdir.empty()) args.insert(args.end(), {"-wdir", app.wdir});
      args.push_back(*program);
      args.insert(args.end(), app.args.begin(), app.args.end());
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    // The environment is built before fork: the child only executes.
    std::vector<std::string> env{std::string(kEnvSpawnParentPort) + "=" + request.parent_port,
                                 std::string(kEnvSpawnSecret) + "=" + secret_};
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) env.emplace_back(*e);
    std::vector<char*> envp;
    for (std::string& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid == 0) {
      ::execve(argv[0], argv.data(), envp.data());
      _exit(127);
    }
    if (pid < 0) return errno_error("spawn: fork of the launcher " + *launcher);
    {
      std::lock_guard<std::mutex> lock(spawned_mutex_);
      spawned_.push_back(pid);
    }
    std::thread([this, pid, what = *launcher] {
      int status = 0;
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      {
        std::lock_guard<std::mutex> lock(spawned_mutex_);
        spawned_.erase(std::find(spawned_.begin(), spawned_.end(), pid));
      }
      spawned_done_.notify_all();
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;
      int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      abort(code, "the job it spawned (" + what + ", pid " + std::to_string(pid) + ") failed with status " +
                      std::to_string(code));
    }).detach();
    return Status::ok();
  }

  // A singleton keeps its names itself: only it can see them.
  Status publish_name(const std::string& name, const std::string& port) override { return names_.publish(name, port); }
  Result<std::string> lookup_name(const std::string& name) override { return names_.lookup(name); }
  Status unpublish_name(const std::string& name) override { return names_.unpublish(name); }

 private:
  // GASKET_LAUNCHER, else gasket's mpiexec beside the library holding this code: <prefix>/bin
  // of an installed tree, or tools/mpicc of a Bazel tree.
  static Result<std::string> find_launcher() {
    if (const char* l = std::getenv(kEnvLauncher); l != nullptr && *l != '\0') return std::string(l);
    Dl_info info;
    if (::dladdr(reinterpret_cast<void*>(&create_singleton), &info) != 0 && info.dli_fname != nullptr) {
      std::string dir = info.dli_fname;
      dir = dir.find('/') == std::string::npos ? "." : dir.substr(0, dir.rfind('/'));
      for (const char* rel : {"/../bin/mpiexec", "/../tools/mpicc/mpiexec", "/mpiexec"}) {
        std::string candidate = dir + rel;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
      }
    }
    return Status(StatusCode::kUnavailable,
                  "spawn: this singleton found no gasket launcher to start the new job (set GASKET_LAUNCHER to "
                  "gasket's mpiexec, or start the program with mpiexec)");
  }

  const std::string job_id_;
  const std::string secret_;
  std::mutex mutex_;
  std::map<std::string, std::string> store_;
  NameTable names_;
  std::mutex spawned_mutex_;
  std::condition_variable spawned_done_;
  std::vector<pid_t> spawned_;  // launchers of spawned jobs still running
};

}  // namespace

Result<std::unique_ptr<Bootstrap>> create_singleton() {
  Result<std::string> id = new_job_id('s');
  if (!id.is_ok()) return id.status();
  Result<std::string> secret = random_hex(16);
  if (!secret.is_ok()) return secret.status();
  return std::unique_ptr<Bootstrap>(new SingletonBootstrap(*id, *secret));
}

}  // namespace gasket::bootstrap::detail
