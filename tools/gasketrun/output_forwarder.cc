#include "tools/gasketrun/output_forwarder.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace gasket::launcher {

bool write_fully(int fd, const char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(fd, data + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      struct pollfd p = {fd, POLLOUT, 0};
      (void)::poll(&p, 1, 1000);
      continue;
    }
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

OutputForwarder::OutputForwarder(int source_fd, int dest_fd, std::string tag)
    : source_fd_(source_fd), dest_fd_(dest_fd), tag_(std::move(tag)) {
  int flags = ::fcntl(source_fd_, F_GETFL);
  if (flags >= 0) (void)::fcntl(source_fd_, F_SETFL, flags | O_NONBLOCK);
}

OutputForwarder::~OutputForwarder() { finish(); }

void OutputForwarder::read_available() {
  if (source_fd_ < 0) return;
  char buf[65536];
  // Bounded, so that one chatty PE cannot starve the rest of the poll loop.
  for (int round = 0; round < 16; ++round) {
    ssize_t n = ::read(source_fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n <= 0) {  // EOF, or an error that ends this stream all the same
      finish();
      return;
    }
    pending_.append(buf, static_cast<size_t>(n));
  }
  forward_lines(false);
}

void OutputForwarder::finish() {
  if (source_fd_ < 0) return;
  forward_lines(true);
  ::close(source_fd_);
  source_fd_ = -1;
}

void OutputForwarder::forward_lines(bool flush_partial) {
  std::string out;
  size_t start = 0;
  for (;;) {
    size_t nl = pending_.find('\n', start);
    size_t end;  // one past the last byte of the line, newline excluded
    if (nl != std::string::npos && nl - start <= kMaxLineBytes) {
      end = nl;
    } else if (pending_.size() - start > kMaxLineBytes) {
      end = start + kMaxLineBytes;
      nl = std::string::npos;
    } else if (flush_partial && start < pending_.size()) {
      end = pending_.size();
      nl = std::string::npos;
    } else {
      break;
    }
    out += tag_;
    out.append(pending_, start, end - start);
    out += '\n';
    start = nl != std::string::npos ? nl + 1 : end;
  }
  pending_.erase(0, start);
  if (!out.empty() && !dest_broken_) dest_broken_ = !write_fully(dest_fd_, out.data(), out.size());
}

}  // namespace gasket::launcher
