// Forwards one output stream of a PE (its stdout or stderr pipe) to the launcher's stdout or
// stderr, whole lines only: the launcher is single-threaded and writes only complete lines, so
// lines of different PEs are never split or merged. A final line without a newline is completed
// at EOF. A line longer than kMaxLineBytes is cut (the only case where a line is split).
#pragma once

#include <cstddef>
#include <string>

namespace gasket::launcher {

// Writes all of `data` to `fd`, waiting out EINTR/EAGAIN. Returns false when the destination is
// gone (EPIPE and other errors); the caller then drops output.
bool write_fully(int fd, const char* data, size_t size);

class OutputForwarder {
 public:
  static constexpr size_t kMaxLineBytes = 1 << 20;

  // Takes ownership of `source_fd` (made non-blocking). `tag` prefixes every line ("" for none).
  OutputForwarder(int source_fd, int dest_fd, std::string tag);
  ~OutputForwarder();
  OutputForwarder(const OutputForwarder&) = delete;
  OutputForwarder& operator=(const OutputForwarder&) = delete;

  int fd() const { return source_fd_; }
  bool is_open() const { return source_fd_ >= 0; }
  // Reads what the pipe holds now and forwards the complete lines. At EOF (or a read error) the
  // partial line is flushed and the pipe closed.
  void read_available();
  // Flushes the partial line and closes the pipe (at the end of the job).
  void finish();

 private:
  void forward_lines(bool flush_partial);

  int source_fd_;
  const int dest_fd_;
  const std::string tag_;
  std::string pending_;  // bytes read but not yet forwarded
  bool dest_broken_ = false;
};

}  // namespace gasket::launcher
