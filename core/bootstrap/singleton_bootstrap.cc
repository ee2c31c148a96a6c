// A program started without a launcher: PE 0 of 1, with the store held in this process.
#include <unistd.h>

#include <cstdio>
#include <map>
#include <mutex>

#include "core/bootstrap/bootstrap_impl.h"
#include "core/bootstrap/name_table.h"
#include "core/bootstrap/job_identity.h"
#include "core/bootstrap/store_protocol.h"

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
    std::string line = "gasket: PE 0 aborted with code " + std::to_string(exit_code) + ": " +
                       message + "\n";
    ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
    (void)ignored;
    // No launcher will clean up after us.
    Result<int> removed = remove_job_shm_files(job_id_);
    (void)removed;
    _exit(exit_code);
  }

  Status finalize() override { return Status::ok(); }

  // A singleton keeps its names itself: only it can see them.
  Status publish_name(const std::string& name, const std::string& port) override { return names_.publish(name, port); }
  Result<std::string> lookup_name(const std::string& name) override { return names_.lookup(name); }
  Status unpublish_name(const std::string& name) override { return names_.unpublish(name); }

 private:
  const std::string job_id_;
  const std::string secret_;
  std::mutex mutex_;
  std::map<std::string, std::string> store_;
  NameTable names_;
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
