#include "core/am/stream_links.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/base/log.h"

namespace gasket::core::am {

namespace {
// A frame: 4-byte length of what follows (host order: links never leave this host), then a
// 2-byte handler id and the payload. The first frame of a connecting side is HELLO instead:
// kHelloTag, the listener's secret, a newline, the connecting process's address, a newline and
// the connecting process's own secret (so that the listener can connect back).
constexpr char kHelloTag[] = "gasket-link\n";
constexpr uint32_t kMaxFrame = 1u << 30;

Status errno_status(const std::string& what) {
  return Status(StatusCode::kUnavailable, what + ": " + std::strerror(errno));
}

bool split_address(const std::string& address, sockaddr_in* sa) {
  size_t colon = address.rfind(':');
  if (colon == std::string::npos) return false;
  std::memset(sa, 0, sizeof *sa);
  sa->sin_family = AF_INET;
  char* end = nullptr;
  long port = std::strtol(address.c_str() + colon + 1, &end, 10);
  if (end == address.c_str() + colon + 1 || *end != '\0' || port <= 0 || port > 65535) return false;
  sa->sin_port = htons(static_cast<uint16_t>(port));
  return ::inet_pton(AF_INET, address.substr(0, colon).c_str(), &sa->sin_addr) == 1;
}

void set_nonblocking(int fd) {
  (void)::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  int one = 1;
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}
}  // namespace

struct StreamLinks::Link {
  int pe = -1;
  std::string address;  // the peer's listening address ("" until its HELLO for accepted links)
  std::string secret;   // what the peer's listener expects in HELLO (its job's secret)
  int fd = -1;          // this process's connection to the peer: written only
  int in_fd = -1;       // the peer's connection to this process: read only
  bool lost = false;
  std::string lost_why;
  std::string out;  // frames not yet written
  size_t out_sent = 0;
  std::string in;   // bytes read, not yet cut into frames
};

StreamLinks::StreamLinks(std::string secret, int first_pe) : secret_(std::move(secret)), first_pe_(first_pe) {}

StreamLinks::~StreamLinks() {
  if (listen_fd_ >= 0) ::close(listen_fd_);
  for (auto& l : links_) {
    if (l->fd >= 0) ::close(l->fd);
    if (l->in_fd >= 0) ::close(l->in_fd);
  }
  for (auto& l : unnamed_) ::close(l->fd);
}

Result<std::string> StreamLinks::address() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (listen_fd_ >= 0) return address_;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return errno_status("late peers: socket");
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof sa;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 || ::listen(fd, 128) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    Status s = errno_status("late peers: listening on 127.0.0.1");
    ::close(fd);
    return s;
  }
  listen_fd_ = fd;
  in_use_.store(true, std::memory_order_relaxed);
  address_ = "127.0.0.1:" + std::to_string(ntohs(sa.sin_port));
  return address_;
}

StreamLinks::Link& StreamLinks::link_of(int pe) { return *links_[static_cast<size_t>(pe - first_pe_)]; }

Result<int> StreamLinks::add_peer(const std::string& address, const std::string& secret) {
  Result<std::string> mine = this->address();
  if (!mine.is_ok()) return mine.status();
  sockaddr_in sa;
  if (!split_address(address, &sa)) {
    return Status(StatusCode::kInvalidArgument, "late peers: bad address '" + address + "' (want IPv4:port)");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  auto known = pe_of_address_.find(address);
  if (known != pe_of_address_.end()) {
    if (link_of(known->second).secret.empty()) link_of(known->second).secret = secret;
    return known->second;
  }
  if (address == address_) {
    return Status(StatusCode::kInvalidArgument, "late peers: '" + address + "' is this process itself");
  }
  auto link = std::make_unique<Link>();
  link->pe = first_pe_ + static_cast<int>(links_.size());
  link->address = address;
  link->secret = secret;
  int pe = link->pe;
  pe_of_address_[address] = pe;
  links_.push_back(std::move(link));
  in_use_.store(true, std::memory_order_relaxed);
  {
    Status s = connect_link(link_of(pe));
    if (!s.is_ok()) {
      link_of(pe).lost = true;
      link_of(pe).lost_why = s.message();
      return s;
    }
  }
  return pe;
}

Status StreamLinks::connect_link(Link& link) {
  sockaddr_in sa;
  (void)split_address(link.address, &sa);
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno_status("late peers: socket");
  int rc;
  do {
    rc = ::connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    Status s = errno_status("late peers: connecting to " + link.address);
    ::close(fd);
    return s;
  }
  set_nonblocking(fd);
  link.fd = fd;
  std::string hello = kHelloTag + link.secret + "\n" + address_ + "\n" + secret_;
  uint32_t n = static_cast<uint32_t>(hello.size());
  // HELLO goes before anything queued for this peer.
  link.out.insert(0, hello);
  link.out.insert(0, reinterpret_cast<const char*>(&n), sizeof n);
  return Status::ok();
}

void StreamLinks::register_handler(HandlerId id, Handler handler) {
  std::lock_guard<std::mutex> lock(mutex_);
  handlers_[id] = std::move(handler);
}

Status StreamLinks::send(int pe, HandlerId id, const void* payload, size_t len) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (pe < first_pe_ || pe - first_pe_ >= static_cast<int>(links_.size())) {
    return Status(StatusCode::kInvalidArgument, "late peers: PE " + std::to_string(pe) + " is not a late peer");
  }
  Link& link = link_of(pe);
  if (link.lost) {
    return Status(StatusCode::kUnavailable, "late peers: the link to PE " + std::to_string(pe) + " (" +
                                                link.address + ") is lost: " + link.lost_why);
  }
  if (len + sizeof(HandlerId) > kMaxFrame) {
    return Status(StatusCode::kInvalidArgument, "late peers: a " + std::to_string(len) +
                                                    "-byte message exceeds the 1 GiB limit of a link");
  }
  if (link.fd < 0) {  // a peer known from its own connection: answer over one of ours
    Status s = connect_link(link);
    if (!s.is_ok()) {
      close_link(link, s.message());
      return s;
    }
  }
  uint32_t n = static_cast<uint32_t>(len + sizeof id);
  link.out.append(reinterpret_cast<const char*>(&n), sizeof n);
  link.out.append(reinterpret_cast<const char*>(&id), sizeof id);
  link.out.append(static_cast<const char*>(payload), len);
  std::string why;
  if (link.fd >= 0 && !write_link(link, &why)) close_link(link, why);
  return Status::ok();
}

bool StreamLinks::knows(int pe) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return pe >= first_pe_ && static_cast<size_t>(pe - first_pe_) < links_.size();
}

std::string StreamLinks::lost_reason(int pe) const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t i = static_cast<size_t>(pe - first_pe_);
  if (pe < first_pe_ || i >= links_.size() || !links_[i]->lost) return "";
  return links_[i]->lost_why.empty() ? "link closed" : links_[i]->lost_why;
}

void StreamLinks::close_link(Link& link, const std::string& why) {
  if (link.fd >= 0) ::close(link.fd);
  if (link.in_fd >= 0) ::close(link.in_fd);
  link.fd = link.in_fd = -1;
  link.lost = true;
  link.lost_why = why;
}

bool StreamLinks::write_link(Link& link, std::string* why) {
  while (link.out_sent < link.out.size()) {
    ssize_t n = ::send(link.fd, link.out.data() + link.out_sent, link.out.size() - link.out_sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n <= 0) {
      *why = std::string("send: ") + std::strerror(errno);
      return false;
    }
    link.out_sent += static_cast<size_t>(n);
  }
  link.out.clear();
  link.out_sent = 0;
  return true;
}

bool StreamLinks::read_link(Link& link, std::string* why) {
  char buf[64 << 10];
  int fd = link.in_fd;
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    if (n == 0) {
      *why = "the peer closed the link";
      return false;
    }
    if (n < 0) {
      *why = std::string("recv: ") + std::strerror(errno);
      return false;
    }
    link.in.append(buf, static_cast<size_t>(n));
  }
}

void StreamLinks::accept_links() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    set_nonblocking(fd);
    auto link = std::make_unique<Link>();
    link->in_fd = fd;
    unnamed_.push_back(std::move(link));
  }
}

void StreamLinks::drain() {
  for (;;) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      bool queued = false;
      for (auto& l : links_) {
        std::string why;
        if (l->fd >= 0 && !write_link(*l, &why)) close_link(*l, why);
        queued = queued || (l->fd >= 0 && !l->out.empty());
      }
      if (!queued) return;
    }
    ::usleep(100);
  }
}

bool StreamLinks::prepare_sleep(std::vector<pollfd>* fds) const {
  if (dispatching_.load()) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  if (listen_fd_ >= 0) fds->push_back(pollfd{listen_fd_, POLLIN, 0});
  for (const auto& l : unnamed_) fds->push_back(pollfd{l->in_fd, POLLIN, 0});
  for (const auto& l : links_) {
    if (l->in_fd >= 0) fds->push_back(pollfd{l->in_fd, POLLIN, 0});
    if (l->fd >= 0 && l->out_sent < l->out.size()) fds->push_back(pollfd{l->fd, POLLOUT, 0});
  }
  return true;
}

void StreamLinks::progress() {
  if (dispatching_.exchange(true)) return;  // a handler's send: progress only from the top
  struct Delivery {
    int pe;
    HandlerId id;
    std::string payload;
  };
  std::vector<Delivery> deliveries;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (listen_fd_ >= 0) accept_links();
    // Accepted links name themselves with HELLO; a wrong secret or a malformed first frame drops them.
    for (size_t i = 0; i < unnamed_.size();) {
      Link& l = *unnamed_[i];
      std::string why;
      bool alive = read_link(l, &why);
      uint32_t n = 0;
      if (l.in.size() >= sizeof n) std::memcpy(&n, l.in.data(), sizeof n);
      bool complete = l.in.size() >= sizeof n && n <= 4096 && l.in.size() >= sizeof n + n;
      if (!complete && alive && n <= 4096) {
        ++i;
        continue;
      }
      std::string hello = complete ? l.in.substr(sizeof n, n) : std::string();
      std::string expected = kHelloTag + secret_ + "\n";
      if (!complete && !alive) {
        ::close(l.in_fd);  // gone before it said who it is (a process that exited)
      } else if (!complete || hello.compare(0, expected.size(), expected) != 0) {
        GASKET_WARN("late peers: dropped a connection whose first message is not the job secret");
        ::close(l.in_fd);
      } else {
        std::string named_by = hello.substr(expected.size());
        size_t cut = named_by.find('\n');
        std::string address = named_by.substr(0, cut);
        std::string peer_secret = cut == std::string::npos ? std::string() : named_by.substr(cut + 1);
        auto known = pe_of_address_.find(address);
        int pe;
        if (known == pe_of_address_.end()) {
          auto link = std::make_unique<Link>();
          pe = first_pe_ + static_cast<int>(links_.size());
          link->pe = pe;
          link->address = address;
          link->secret = peer_secret;
          pe_of_address_[address] = pe;
          links_.push_back(std::move(link));
          in_use_.store(true, std::memory_order_relaxed);
        } else {
          pe = known->second;
        }
        Link& named = link_of(pe);
        if (named.in_fd >= 0) ::close(named.in_fd);
        named.in_fd = l.in_fd;
        named.in = l.in.substr(sizeof n + n);
      }
      unnamed_.erase(unnamed_.begin() + static_cast<long>(i));
    }
    for (auto& lp : links_) {
      Link& l = *lp;
      if (l.fd < 0 && l.in_fd < 0) continue;
      std::string why;
      bool alive = (l.fd < 0 || write_link(l, &why)) && (l.in_fd < 0 || read_link(l, &why));
      size_t at = 0;
      for (;;) {
        uint32_t n = 0;
        if (l.in.size() - at < sizeof n) break;
        std::memcpy(&n, l.in.data() + at, sizeof n);
        if (n < sizeof(HandlerId) || n > kMaxFrame) {
          alive = false;
          why = "a malformed frame of " + std::to_string(n) + " bytes";
          break;
        }
        if (l.in.size() - at < sizeof n + n) break;
        HandlerId id;
        std::memcpy(&id, l.in.data() + at + sizeof n, sizeof id);
        deliveries.push_back({l.pe, id, l.in.substr(at + sizeof n + sizeof id, n - sizeof id)});
        at += sizeof n + n;
      }
      l.in.erase(0, at);
      if (!alive) close_link(l, why);
    }
  }
  for (Delivery& d : deliveries) {
    Handler handler;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      handler = handlers_[d.id];
    }
    if (!handler) log::fatal("late peers: a message from PE %d for handler %u, which nobody registered", d.pe, d.id);
    handler(d.pe, d.payload.data(), d.payload.size());
  }
  dispatching_ = false;
}

}  // namespace gasket::core::am
