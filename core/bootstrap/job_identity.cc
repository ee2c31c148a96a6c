#include "core/bootstrap/job_identity.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace gasket::bootstrap {
namespace {

Status read_urandom(unsigned char* buf, size_t n) {
  int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_error("open(/dev/urandom)");
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::read(fd, buf + done, n - done);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      Status s = r < 0 ? errno_error("read(/dev/urandom)") : io_error("read(/dev/urandom): EOF");
      ::close(fd);
      return s;
    }
    done += static_cast<size_t>(r);
  }
  ::close(fd);
  return Status::ok();
}

Status fill_random(unsigned char* buf, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = ::getrandom(buf + done, n - done, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0 && errno == ENOSYS) return read_urandom(buf + done, n - done);
    if (r < 0) return errno_error("getrandom(" + std::to_string(n) + " bytes)");
    done += static_cast<size_t>(r);
  }
  return Status::ok();
}

}  // namespace

Result<std::string> random_hex(size_t bytes) {
  std::vector<unsigned char> raw(bytes);
  Status s = fill_random(raw.data(), raw.size());
  if (!s.is_ok()) return s;
  static const char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * bytes);
  for (unsigned char c : raw) {
    hex.push_back(kDigits[c >> 4]);
    hex.push_back(kDigits[c & 15]);
  }
  return hex;
}

Result<std::string> new_job_id(char kind) {
  Result<std::string> suffix = random_hex(4);
  if (!suffix.is_ok()) return suffix.status();
  return std::string(1, kind) + std::to_string(::getpid()) + "x" + *suffix;
}

bool is_valid_job_id(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.';
    if (!ok) return false;
  }
  return id != "." && id != "..";
}

std::string shm_file_prefix(const std::string& job_id) { return "gasket-" + job_id + "-"; }

Result<int> remove_job_shm_files(const std::string& job_id, const std::string& directory) {
  if (!is_valid_job_id(job_id)) {
    return invalid_argument("remove_job_shm_files: bad job id '" + job_id + "'");
  }
  const std::string prefix = shm_file_prefix(job_id);
  DIR* dir = ::opendir(directory.c_str());
  if (dir == nullptr) return errno_error("opendir(" + directory + ")");
  std::vector<std::string> names;
  for (;;) {
    errno = 0;
    struct dirent* entry = ::readdir(dir);
    if (entry == nullptr) break;
    if (std::strncmp(entry->d_name, prefix.c_str(), prefix.size()) == 0) {
      names.emplace_back(entry->d_name);
    }
  }
  int read_errno = errno;
  ::closedir(dir);
  if (read_errno != 0) {
    errno = read_errno;
    return errno_error("readdir(" + directory + ")");
  }
  int removed = 0;
  Status first_error;
  for (const std::string& name : names) {
    std::string path = directory + "/" + name;
    if (::unlink(path.c_str()) == 0) {
      ++removed;
    } else if (errno != ENOENT && first_error.is_ok()) {
      first_error = errno_error("unlink(" + path + ")");
    }
  }
  if (!first_error.is_ok()) return first_error;
  return removed;
}

}  // namespace gasket::bootstrap
