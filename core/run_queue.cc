#include "core/run_queue.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <ctime>

namespace gasket::core {

int runnable_tasks(const char* text) {
  // Skip the three load averages; the fourth field is "runnable/total".
  const char* p = text;
  for (int field = 0; field < 3; ++field) {
    p = std::strchr(p, ' ');
    if (p == nullptr) return -1;
    ++p;
  }
  char* end = nullptr;
  long runnable = std::strtol(p, &end, 10);
  if (end == p || *end != '/' || runnable < 0) return -1;
  return static_cast<int>(runnable);
}

RunQueue::RunQueue() : fd_(::open("/proc/loadavg", O_RDONLY | O_CLOEXEC)) {
  long online = ::sysconf(_SC_NPROCESSORS_ONLN);
  cpus_ = online > 0 ? static_cast<int>(online) : 1;
}

RunQueue::~RunQueue() {
  if (fd_ >= 0) ::close(fd_);
}

bool RunQueue::contested() const {
  timespec now;
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  const int64_t now_ns = static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
  if (now_ns - contested_at_ns_.load(std::memory_order_relaxed) < kFreshNs) return true;
  if (!read_contested()) return false;
  contested_at_ns_.store(now_ns, std::memory_order_relaxed);
  return true;
}

int RunQueue::runnable() const {
  if (fd_ < 0) return -1;
  char text[128];
  ssize_t n = ::pread(fd_, text, sizeof text - 1, 0);
  if (n <= 0) return -1;
  text[n] = '\0';
  return runnable_tasks(text);
}

bool RunQueue::read_contested() const {
  int tasks = runnable();
  return tasks < 0 || tasks > cpus_;
}

}  // namespace gasket::core
