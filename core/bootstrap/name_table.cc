#include "core/bootstrap/name_table.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "core/bootstrap/job_environment.h"
#include "core/bootstrap/store_protocol.h"

namespace gasket::bootstrap {
namespace {

std::string this_host() {
  char host[256] = "";
  (void)::gethostname(host, sizeof host - 1);
  return host;
}

Status directory_error(const std::string& dir, const std::string& what) {
  return Status(StatusCode::kUnavailable, "name service directory " + dir + " (" + kEnvNameDir + "): " + what);
}

std::string not_published(const std::string& name) {
  return "no service named '" + protocol::printable(name) + "' is published";
}

}  // namespace

NameTable::NameTable(std::string directory) : dir_(std::move(directory)), host_(this_host()), owner_(::getpid()) {
  if (dir_.empty()) {
    const char* env = std::getenv(kEnvNameDir);
    dir_ = env != nullptr && *env != '\0' ? env : "/tmp/gasket-names-" + std::to_string(::getuid());
  }
}

NameTable::~NameTable() {
  if (::getpid() != owner_) return;  // a forked copy: the entries belong to the process that made them
  for (const std::string& path : mine_) {
    std::ifstream in(path);
    std::string host;
    pid_t pid = 0;
    if (in >> host >> pid && host == host_ && pid == owner_) (void)::unlink(path.c_str());
  }
}

Status NameTable::usable_directory() const {
  if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) return directory_error(dir_, std::strerror(errno));
  struct stat st;
  if (::lstat(dir_.c_str(), &st) != 0) return directory_error(dir_, std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return directory_error(dir_, "not a directory");
  if (st.st_uid != ::getuid()) {
    return directory_error(dir_, "owned by uid " + std::to_string(st.st_uid) + ", not by this user (uid " +
                                     std::to_string(::getuid()) + ")");
  }
  return Status::ok();
}

Result<std::string> NameTable::entry_path(const std::string& name) const {
  if (name.empty() || name.size() > kMaxNameBytes) {
    return invalid_argument("the service name '" + protocol::printable(name) + "' has " + std::to_string(name.size()) +
                            " bytes; it must have 1 to " + std::to_string(kMaxNameBytes));
  }
  Status s = usable_directory();
  if (!s.is_ok()) return s;
  static const char kHex[] = "0123456789abcdef";
  std::string file;
  for (unsigned char ch : name) file += {kHex[ch >> 4], kHex[ch & 15]};
  return dir_ + "/" + file;
}

Result<NameTable::Entry> NameTable::live_entry(const std::string& path, const std::string& name) const {
  std::ifstream in(path, std::ios::binary);
  if (!in) return invalid_argument(not_published(name));
  Entry e;
  std::string line;
  if (!(in >> e.host >> e.pid) || !std::getline(in, line)) return invalid_argument(not_published(name));
  std::stringstream rest;
  rest << in.rdbuf();
  e.port = rest.str();
  bool dead = e.host == host_ && ::kill(e.pid, 0) != 0 && errno == ESRCH;
  if (dead) {
    (void)::unlink(path.c_str());
    return invalid_argument(not_published(name) + " (its publisher, pid " + std::to_string(e.pid) + ", has ended)");
  }
  return e;
}

Status NameTable::publish(const std::string& name, const std::string& port) {
  Result<std::string> path = entry_path(name);
  if (!path.is_ok()) return path.status();
  // Written whole under a private name, then linked into place: link() fails when the name is taken.
  std::string staged = dir_ + "/.staged-" + host_ + "-" + std::to_string(owner_);
  {
    std::ofstream out(staged, std::ios::binary | std::ios::trunc);
    out << host_ << ' ' << owner_ << '\n' << port;
    if (!out.flush()) return directory_error(dir_, "cannot write " + staged);
  }
  Status result = Status::ok();
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (::link(staged.c_str(), path->c_str()) == 0) {
      mine_.insert(*path);
      result = Status::ok();
      break;
    }
    if (errno != EEXIST) {
      result = directory_error(dir_, "publishing '" + protocol::printable(name) + "': " + std::strerror(errno));
      break;
    }
    Result<Entry> taken = live_entry(*path, name);  // removes an entry of a dead owner: try again
    if (taken.is_ok()) {
      result = invalid_argument("the service name '" + protocol::printable(name) + "' is already published (port " +
                                protocol::printable(taken->port) + ")");
      break;
    }
    result = invalid_argument("the service name '" + protocol::printable(name) + "' is being published by another job");
  }
  (void)::unlink(staged.c_str());
  return result;
}

Result<std::string> NameTable::lookup(const std::string& name) const {
  Result<std::string> path = entry_path(name);
  if (!path.is_ok()) return path.status();
  Result<Entry> e = live_entry(*path, name);
  if (!e.is_ok()) return e.status();
  return e->port;
}

Status NameTable::unpublish(const std::string& name) {
  Result<std::string> path = entry_path(name);
  if (!path.is_ok()) return path.status();
  Result<Entry> e = live_entry(*path, name);
  if (!e.is_ok()) return e.status();
  if (::unlink(path->c_str()) != 0) return invalid_argument(not_published(name));
  mine_.erase(*path);
  return Status::ok();
}

}  // namespace gasket::bootstrap
