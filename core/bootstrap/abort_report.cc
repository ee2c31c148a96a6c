// What the bootstraps do on abort that does not depend on the launcher (bootstrap_impl.h).
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "core/bootstrap/bootstrap_impl.h"
#include "core/bootstrap/job_identity.h"

namespace gasket::bootstrap::detail {
namespace {

// When stderr is a pipe, waits (at most kDrainWaitMs) until its reader has taken every byte.
void wait_until_stderr_drained() {
  constexpr int kDrainWaitMs = 1000;
  struct stat st;
  if (::fstat(STDERR_FILENO, &st) != 0 || !S_ISFIFO(st.st_mode)) return;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kDrainWaitMs);
  int unread = 0;
  while (::ioctl(STDERR_FILENO, FIONREAD, &unread) == 0 && unread > 0 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

int report_abort(int rank, const std::string& job_id, int exit_code, const std::string& message) {
  std::string line =
      "gasket: PE " + std::to_string(rank) + " aborted with code " + std::to_string(exit_code) + ": " + message + "\n";
  ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
  (void)ignored;
  // A launcher (Hydra) may kill the job as soon as it hears of the abort, dropping what its proxy
  // has not yet read from our stderr pipe: let it read the line first.
  wait_until_stderr_drained();
  // No gasketrun sweeps /dev/shm under a foreign launcher: remove this job's files on this node.
  Result<int> removed = remove_job_shm_files(job_id);
  (void)removed;
  return (exit_code % 256) == 0 ? 1 : exit_code;
}

void wait_until_closed(int fd, int timeout_ms) {
  struct pollfd p = {fd, POLLIN, 0};
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return;
    int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return;
    char buf[256];
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) return;
  }
}

}  // namespace gasket::bootstrap::detail
