#include "core/bell_socket.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>
#include <utility>

namespace gasket::core {

namespace {
// An abstract socket name (leading NUL: no file, gone with the process), truncated to fit.
socklen_t abstract_address(const std::string& name, sockaddr_un* addr) {
  std::memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  size_t n = std::min(name.size(), sizeof addr->sun_path - 1);
  std::memcpy(addr->sun_path + 1, name.data(), n);
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}
}  // namespace

BellSocket::~BellSocket() {
  if (fd_ >= 0) ::close(fd_);
}

Status BellSocket::open(const std::string& own, std::function<std::string(int pe)> name_of) {
  fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return Status(StatusCode::kInternal, "doorbell socket: socket: " + std::string(std::strerror(errno)));
  sockaddr_un me;
  socklen_t len = abstract_address(own, &me);
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&me), len) != 0) {
    std::string why = std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    return Status(StatusCode::kInternal, "doorbell socket: bind " + own + ": " + why);
  }
  name_of_ = std::move(name_of);
  return Status::ok();
}

void BellSocket::ring(int pe) const {
  if (fd_ < 0) return;
  sockaddr_un to;
  socklen_t len = abstract_address(name_of_(pe), &to);
  char byte = 1;
  (void)::sendto(fd_, &byte, 1, MSG_DONTWAIT | MSG_NOSIGNAL, reinterpret_cast<const sockaddr*>(&to), len);
}

void BellSocket::drain() const {
  char bytes[64];
  while (::recv(fd_, bytes, sizeof bytes, MSG_DONTWAIT) > 0) {
  }
}

}  // namespace gasket::core
