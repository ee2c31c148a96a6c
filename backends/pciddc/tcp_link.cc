#include "backends/pciddc/tcp_link.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "core/base/log.h"

namespace gasket::backend::pciddc {

namespace {
constexpr int kConnectTimeoutSeconds = 60;
constexpr int kFramesPerService = 64;  // fairness between connections
// Incoming bytes are read in blocks of up to this size into the link's one staging buffer, so
// that a run of small frames costs one recv, not two per frame; a payload at least this long is
// received straight into its segment.
constexpr size_t kStagingBytes = 64 * 1024;

std::string pe_name(int pe) { return "PE " + std::to_string(pe); }

Status syscall_error(int my_pe, const std::string& what) {
  return errno_error("pciddc/tcp: PE " + std::to_string(my_pe) + ": " + what);
}

std::string describe_peer(const sockaddr_storage& addr) {
  char host[INET6_ADDRSTRLEN] = "?";
  uint16_t port = 0;
  if (addr.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
    port = ntohs(a->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof host);
    port = ntohs(a->sin6_port);
  }
  return std::string(host) + ":" + std::to_string(port);
}

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }
}  // namespace

struct TcpLink::Connection {
  enum class State { kAwaitHello, kAwaitAck, kOpen, kClosed };
  int fd = -1;
  int pe = -1;  // authenticated peer, -1 until the hello is checked
  std::string from;
  State state = State::kAwaitHello;
  bool initiated = false;
  std::string hello;  // bytes of an incoming hello received so far
  wire::FrameHeader header{};
  size_t header_got = 0;
  // Bytes read from the socket that were still unconsumed when another connection needed the
  // link's staging buffer: moved here, handed out before anything else ([aside_begin, end)), and
  // released once consumed. Empty in the common case (a connection's staged bytes consumed before
  // another is read), so a connection costs no buffer of its own.
  std::string aside;
  size_t aside_begin = 0;
  // The last read into the staging buffer took less than a block: the socket was empty then, so
  // a frame boundary with nothing staged ends this pass without another recv (new input shows in
  // the next poll). Cleared when poll reports the socket readable.
  bool drained = false;
  char* payload_dst = nullptr;
  size_t payload_left = 0;
  // Frames of this connection: sent whole from here, received whole (landed) from the peer, and
  // the highest count of ours the peer has reported landed (wire::FrameHeader::landed).
  uint64_t sent = 0, received = 0, landed_at_peer = 0;
  // Acknowledgements owed: the landed count the peer's last flush request needs to hear, and the
  // highest landed count a frame sent whole from here has told it. Any frame answers a request.
  uint64_t ack_due = 0, landed_told = 0;
  // The landed count a write asking for an acknowledgement (wire::kAckWanted) needs to hear, 0
  // once answered or superseded: a later write from the peer that does not ask (the notifying
  // reply after an emulated get's data) cancels it, since the peer's quiet then sends a flush
  // request anyway (its last frame did not ask), and answering would cost a send per get. Control
  // frames do not cancel it: a peer waiting in quiet for the answer still sends acknowledgements.
  uint64_t ask_due = 0;
  bool ack_owed() const { return landed_told < std::max(ack_due, ask_due); }
  // The count of frames sent from here up to the last one that asked for an acknowledgement (a
  // flush request, or a write with wire::kAckWanted). While landed_at_peer is below it an
  // acknowledgement is on its way, so writes do not ask again.
  uint64_t ack_asked = 0;
  bool sending = false;  // a frame is half-sent
};

TcpLink::TcpLink(Options options) : options_(std::move(options)) {}

Result<std::unique_ptr<TcpLink>> TcpLink::create(Options options) {
  std::unique_ptr<TcpLink> link(new TcpLink(std::move(options)));
  int me = link->options_.my_pe;
  link->open_.assign(static_cast<size_t>(link->options_.n_pes), nullptr);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return syscall_error(me, "socket");
  link->listen_fd_ = fd;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return syscall_error(me, "bind");
  if (listen(fd, 128) != 0) return syscall_error(me, "listen");
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return syscall_error(me, "getsockname");
  link->port_ = ntohs(addr.sin_port);
  return link;
}

TcpLink::~TcpLink() {
  for (auto& c : connections_) {
    if (c->fd >= 0) ::close(c->fd);
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
}

Status TcpLink::register_segment(SegmentId id, void* base, size_t size) {
  std::lock_guard<std::mutex> lock(mutex_);
  windows_[id] = wire::Window{static_cast<char*>(base), size};
  return Status::ok();
}

Status TcpLink::deregister_segment(SegmentId id) {
  std::lock_guard<std::mutex> lock(mutex_);
  windows_.erase(id);
  return Status::ok();
}

wire::FrameHeader TcpLink::header_for(const SendEntry& e) const {
  wire::FrameHeader h{};
  h.magic = wire::kFrameMagic;
  h.src_pe = static_cast<uint32_t>(options_.my_pe);
  h.segment = e.dst.segment;
  h.length = e.length;
  h.offset = e.dst.offset;
  h.id = e.id;
  h.flags = e.flags;
  h.kind = static_cast<uint8_t>(wire::FrameKind::kWrite);
  return h;
}

Status TcpLink::write(const SendEntry& e) {
  std::lock_guard<std::mutex> lock(mutex_);
  Status st = connect_locked(e.dst_pe);
  if (!st.is_ok()) return st;
  Connection& c = *open_[static_cast<size_t>(e.dst_pe)];
  wire::FrameHeader h = header_for(e);
  // A plain write (no notification: no handler's reply will acknowledge it) asks for an
  // acknowledgement unless one is already on its way: a quiet after it then only waits.
  bool ask = (e.flags & kNotifyReceiver) == 0 && c.landed_at_peer >= c.ack_asked;
  if (ask) h.wire_flags = wire::kAckWanted;
  return send_frame_locked(c, h, e.src);
}

Status TcpLink::quiet() {
  std::lock_guard<std::mutex> lock(mutex_);
  wire::FrameHeader h{};
  h.magic = wire::kFrameMagic;
  h.src_pe = static_cast<uint32_t>(options_.my_pe);
  h.kind = static_cast<uint8_t>(wire::FrameKind::kFlushRequest);
  // Frames each peer must report landed; a flush request goes only where its reverse traffic has
  // not already acknowledged them all (wire.h), and all requests leave before any is waited for.
  // Where the last frame sent asked for an acknowledgement already, the quiet only waits for it.
  std::vector<uint64_t> due(static_cast<size_t>(options_.n_pes), 0);
  for (int pe = 0; pe < options_.n_pes; ++pe) {
    Connection* c = open_[static_cast<size_t>(pe)];
    if (c == nullptr || c->landed_at_peer >= c->sent) continue;
    due[static_cast<size_t>(pe)] = c->sent;
    if (c->ack_asked >= c->sent) continue;
    ++flush_requests_;
    Status st = send_frame_locked(*c, h, nullptr);
    if (!st.is_ok()) return st;
  }
  for (int pe = 0; pe < options_.n_pes; ++pe) {
    for (;;) {
      Connection* c = open_[static_cast<size_t>(pe)];
      if (c == nullptr || c->landed_at_peer >= due[static_cast<size_t>(pe)]) break;
      Status st = receive_locked(1, true);
      if (!st.is_ok()) return st;
      if (open_[static_cast<size_t>(pe)] == nullptr) {
        return Status(StatusCode::kUnavailable, "pciddc/tcp: PE " + std::to_string(options_.my_pe) + ": " +
                                                    pe_name(pe) + " closed the connection before acknowledging a quiet");
      }
    }
  }
  return Status::ok();
}

Status TcpLink::service(bool wait_if_busy) {
  std::unique_lock<std::mutex> lock(mutex_, std::defer_lock);
  if (wait_if_busy) {
    lock.lock();
  } else if (!lock.try_lock()) {
    return Status::ok();
  }
  return receive_locked(0, true);
}

bool TcpLink::prepare_sleep(std::vector<pollfd>* fds) {
  std::unique_lock<std::mutex> lock(mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return false;
  fds->push_back(pollfd{listen_fd_, POLLIN, 0});
  for (auto& c : connections_) {
    if (staged_locked(*c)) return false;
    if (c->fd >= 0) fds->push_back(pollfd{c->fd, POLLIN, 0});
  }
  return true;
}

Status TcpLink::connect_locked(int pe) {
  if (open_[static_cast<size_t>(pe)] != nullptr) return Status::ok();
  const int me = options_.my_pe;
  bool pending = false;
  for (auto& c : connections_) pending = pending || (c->initiated && c->pe == pe && c->state == Connection::State::kAwaitAck);
  if (!pending) {
    auto where = options_.peer_address(pe);
    if (!where.is_ok()) return where.status();
    const std::string& host = where.value().host;
    const std::string& port = where.value().port;
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* ai = nullptr;
    int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &ai);
    if (rc != 0) {
      return Status(StatusCode::kUnavailable, "pciddc/tcp: PE " + std::to_string(me) + ": cannot resolve " +
                                                  pe_name(pe) + "'s address " + host + ":" + port + ": " + gai_strerror(rc));
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      freeaddrinfo(ai);
      return syscall_error(me, "socket for " + pe_name(pe));
    }
    // Leave from the interface on the peer's subnet (a switchless node has one per link).
    const std::string& local = where.value().bind_address;
    if (!local.empty()) {
      sockaddr_in src{};
      src.sin_family = AF_INET;
      if (inet_pton(AF_INET, local.c_str(), &src.sin_addr) != 1 ||
          bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src) != 0) {
        Status st = syscall_error(me, "bind to local address " + local + " for " + pe_name(pe));
        freeaddrinfo(ai);
        ::close(fd);
        return st;
      }
    }
    rc = ::connect(fd, ai->ai_addr, ai->ai_addrlen);
    freeaddrinfo(ai);
    if (rc != 0) {
      Status st = syscall_error(me, "connect to " + pe_name(pe) + " at " + host + ":" + port +
                                        (local.empty() ? std::string() : " from " + local));
      ::close(fd);
      return st;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::string hello(sizeof(wire::Hello), '\0');
    wire::Hello h{wire::kHelloMagic, static_cast<uint32_t>(me), static_cast<uint32_t>(options_.secret.size()), 0};
    std::memcpy(&hello[0], &h, sizeof h);
    hello += options_.secret;
    size_t sent = 0;
    while (sent < hello.size()) {
      ssize_t n = ::send(fd, hello.data() + sent, hello.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        Status st = syscall_error(me, "sending the hello to " + pe_name(pe));
        ::close(fd);
        return st;
      }
      sent += static_cast<size_t>(n);
    }
    set_nonblocking(fd);
    auto c = std::make_unique<Connection>();
    c->fd = fd;
    c->pe = pe;
    c->from = host + ":" + port;
    c->initiated = true;
    c->state = Connection::State::kAwaitAck;
    connections_.push_back(std::move(c));
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kConnectTimeoutSeconds);
  while (open_[static_cast<size_t>(pe)] == nullptr) {
    Status st = receive_locked(1, true);
    if (!st.is_ok()) return st;
    if (std::chrono::steady_clock::now() > deadline) {
      return Status(StatusCode::kUnavailable, "pciddc/tcp: PE " + std::to_string(me) + ": " + pe_name(pe) +
                                                  " did not complete a connection within " +
                                                  std::to_string(kConnectTimeoutSeconds) + " s");
    }
  }
  return Status::ok();
}

Status TcpLink::send_frame_locked(Connection& c, wire::FrameHeader h, const void* payload) {
  h.landed = c.received;
  c.sending = true;
  iovec iov[2] = {{const_cast<wire::FrameHeader*>(&h), sizeof h},
                  {const_cast<void*>(payload), payload == nullptr ? 0 : h.length}};
  size_t total = sizeof h + iov[1].iov_len, done = 0;
  Status st = Status::ok();
  while (done < total) {
    if (c.state != Connection::State::kOpen) {
      st = Status(StatusCode::kUnavailable, "pciddc/tcp: PE " + std::to_string(options_.my_pe) + ": the connection to " +
                                                pe_name(c.pe) + " closed while sending");
      break;
    }
    // Skip what is already sent.
    iovec rest[2];
    int cnt = 0;
    size_t skip = done;
    for (const iovec& v : iov) {
      if (skip >= v.iov_len) {
        skip -= v.iov_len;
        continue;
      }
      rest[cnt++] = iovec{static_cast<char*>(v.iov_base) + skip, v.iov_len - skip};
      skip = 0;
    }
    msghdr msg{};
    msg.msg_iov = rest;
    msg.msg_iovlen = static_cast<size_t>(cnt);
    ssize_t n = ::sendmsg(c.fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      // The peer's buffer is full: keep receiving (it may be writing to us), then wait a moment.
      st = receive_locked(0, false);
      if (!st.is_ok()) break;
      pollfd p{c.fd, POLLOUT, 0};
      poll(&p, 1, 1);
      continue;
    }
    st = syscall_error(options_.my_pe, "sending " + std::to_string(total) + " bytes to " + pe_name(c.pe));
    break;
  }
  c.sending = false;
  if (!st.is_ok()) return st;
  ++c.sent;
  ++frames_sent_;
  c.landed_told = std::max(c.landed_told, h.landed);
  // Counted here, before the acknowledgement that may follow, so that a quiet sends a flush
  // request for any frame sent after the ask (conservative: only a write cancels an ask).
  if ((h.wire_flags & wire::kAckWanted) != 0 || h.kind == static_cast<uint8_t>(wire::FrameKind::kFlushRequest)) {
    c.ack_asked = c.sent;
  }
  return send_owed_ack_locked(c);
}

Status TcpLink::send_owed_ack_locked(Connection& c) {
  if (!c.ack_owed() || c.state != Connection::State::kOpen || c.sending) return Status::ok();
  wire::FrameHeader h{};
  h.magic = wire::kFrameMagic;
  h.src_pe = static_cast<uint32_t>(options_.my_pe);
  h.kind = static_cast<uint8_t>(wire::FrameKind::kFlushAck);
  return send_frame_locked(c, h, nullptr);  // one frame answers every request received so far
}

Status TcpLink::receive_locked(int timeout_ms, bool send_acks) {
  std::vector<pollfd> fds;
  std::vector<Connection*> polled;  // stable: nested calls may add connections
  fds.reserve(connections_.size() + 1);
  fds.push_back(pollfd{listen_fd_, POLLIN, 0});
  bool staged = false;  // bytes already read wait in a staging buffer: do not sleep in poll
  for (auto& c : connections_) {
    fds.push_back(pollfd{c->fd, POLLIN, 0});
    polled.push_back(c.get());
    staged = staged || staged_locked(*c);
  }
  if (staged) timeout_ms = 0;
  int rc = poll(fds.data(), fds.size(), timeout_ms);
  if (rc < 0 && errno != EINTR) return syscall_error(options_.my_pe, "poll");
  ++receive_depth_;
  Status st = Status::ok();
  if (rc > 0 || staged) {
    if (fds[0].revents != 0) {
      for (;;) {
        sockaddr_storage addr{};
        socklen_t len = sizeof addr;
        int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) break;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        auto c = std::make_unique<Connection>();
        c->fd = fd;
        c->from = describe_peer(addr);
        connections_.push_back(std::move(c));
      }
    }
    // Only the sockets polled (connections accepted just now are read on the next call).
    for (size_t i = 1; i < fds.size() && st.is_ok(); ++i) {
      Connection& c = *polled[i - 1];
      if (fds[i].revents == 0 && !staged_locked(c)) continue;
      if (c.state != Connection::State::kClosed) st = receive_from_locked(c);
    }
  }
  // Answer flush requests on every connection, not only those read just now: a request read while
  // a send to another peer was blocked (send_acks false) leaves its peer waiting in quiet(), and
  // that peer sends nothing more that would bring this connection up in poll (the triangle
  // hang: PE 2 in quiet() after a rendezvous put, PE 0 owing the answer and polling forever).
  for (size_t pe = 0; send_acks && st.is_ok() && pe < open_.size(); ++pe) {
    if (open_[pe] != nullptr) st = send_owed_ack_locked(*open_[pe]);
  }
  // Forget closed sockets, from the outermost call only (callers up the stack hold pointers).
  if (--receive_depth_ > 0) return st;
  for (size_t i = 0; i < connections_.size();) {
    if (connections_[i]->state == Connection::State::kClosed && !connections_[i]->sending) {
      connections_.erase(connections_.begin() + static_cast<ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  return st;
}

// Like recv(fd, dst, want, MSG_DONTWAIT), but through the staging buffer: bytes already read are
// handed out first (those moved aside, then those staged), and the socket is read a block at a
// time (or straight into `dst` for a long payload). Returns the bytes given, 0 when the peer
// closed, or -1 (errno set).
ssize_t TcpLink::take_locked(Connection& c, void* dst, size_t want) {
  if (c.aside_begin < c.aside.size()) {
    size_t n = std::min(want, c.aside.size() - c.aside_begin);
    std::memcpy(dst, c.aside.data() + c.aside_begin, n);
    c.aside_begin += n;
    if (c.aside_begin == c.aside.size()) {
      std::string().swap(c.aside);  // gives the memory back
      c.aside_begin = 0;
    }
    return static_cast<ssize_t>(n);
  }
  if (staged_for_ != &c || staged_begin_ == staged_end_) {
    if (want >= kStagingBytes) return ::recv(c.fd, dst, want, MSG_DONTWAIT);
    // The buffer is about to be read into: another connection's unconsumed bytes move aside.
    if (staged_for_ != nullptr && staged_for_ != &c && staged_begin_ < staged_end_) {
      staged_for_->aside.assign(staging_.get() + staged_begin_, staged_end_ - staged_begin_);
      staged_for_->aside_begin = 0;
      ++moved_aside_;
    }
    staged_for_ = nullptr;
    staged_begin_ = staged_end_ = 0;
    if (!staging_) staging_.reset(new char[kStagingBytes]);
    ssize_t n = ::recv(c.fd, staging_.get(), kStagingBytes, MSG_DONTWAIT);
    if (n <= 0) return n;
    staged_for_ = &c;
    staged_end_ = static_cast<size_t>(n);
    c.drained = staged_end_ < kStagingBytes;
  }
  size_t n = std::min(want, staged_end_ - staged_begin_);
  std::memcpy(dst, staging_.get() + staged_begin_, n);
  staged_begin_ += n;
  return static_cast<ssize_t>(n);
}

bool TcpLink::staged_locked(const Connection& c) const {
  return c.aside_begin < c.aside.size() || (staged_for_ == &c && staged_begin_ < staged_end_);
}

void TcpLink::close_locked(Connection& c) {
  if (c.fd >= 0) ::close(c.fd);
  c.fd = -1;
  // What a closed connection left unread is dropped.
  std::string().swap(c.aside);
  c.aside_begin = 0;
  if (staged_for_ == &c) {
    staged_for_ = nullptr;
    staged_begin_ = staged_end_ = 0;
  }
  c.state = Connection::State::kClosed;
  if (c.pe >= 0 && open_[static_cast<size_t>(c.pe)] == &c) open_[static_cast<size_t>(c.pe)] = nullptr;
}

void TcpLink::reject_locked(Connection& c, const std::string& why) {
  ++rejected_;
  last_rejection_ = why;
  GASKET_WARN("%s", why.c_str());
  close_locked(c);
}

Status TcpLink::finish_hello_locked(Connection& c) {
  wire::Hello h;
  std::memcpy(&h, c.hello.data(), sizeof h);
  Status st = wire::check_hello(h, c.hello.substr(sizeof h), options_.secret, options_.my_pe, options_.n_pes, c.from);
  if (!st.is_ok()) {
    reject_locked(c, st.message());
    return Status::ok();
  }
  int pe = static_cast<int>(h.src_pe);
  bool mine_pending = false;
  for (auto& o : connections_) {
    mine_pending = mine_pending || (o->initiated && o->pe == pe && o->state == Connection::State::kAwaitAck);
  }
  // One connection per pair: when both PEs connected at once, the lower-numbered PE's one wins.
  bool accept = open_[static_cast<size_t>(pe)] == nullptr && (!mine_pending || pe < options_.my_pe);
  char answer = accept ? 1 : 0;
  if (::send(c.fd, &answer, 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) {
    close_locked(c);
    return Status::ok();
  }
  if (!accept) {
    close_locked(c);
    return Status::ok();
  }
  c.pe = pe;
  c.state = Connection::State::kOpen;
  open_[static_cast<size_t>(pe)] = &c;
  return Status::ok();
}

Status TcpLink::receive_from_locked(Connection& c) {
  const int me = options_.my_pe;
  if (c.state == Connection::State::kAwaitHello) {
    for (;;) {
      size_t want = sizeof(wire::Hello);
      if (c.hello.size() >= sizeof(wire::Hello)) {
        wire::Hello h;
        std::memcpy(&h, c.hello.data(), sizeof h);
        if (h.magic != wire::kHelloMagic) {
          reject_locked(c, wire::check_hello(h, "", options_.secret, me, options_.n_pes, c.from).message());
          return Status::ok();
        }
        if (h.secret_bytes > wire::kMaxSecretBytes) {
          reject_locked(c, "pciddc/tcp: PE " + std::to_string(me) + ": connection from " + c.from +
                               " announces a " + std::to_string(h.secret_bytes) + "-byte secret; dropping it");
          return Status::ok();
        }
        want += h.secret_bytes;
      }
      if (c.hello.size() == want) return finish_hello_locked(c);
      char buf[512];
      ssize_t n = ::recv(c.fd, buf, want - c.hello.size(), MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return Status::ok();
      if (n <= 0) {
        reject_locked(c, "pciddc/tcp: PE " + std::to_string(me) + ": connection from " + c.from +
                             " closed after " + std::to_string(c.hello.size()) + " bytes of its hello");
        return Status::ok();
      }
      c.hello.append(buf, static_cast<size_t>(n));
    }
  }
  if (c.state == Connection::State::kAwaitAck) {
    char answer = 0;
    ssize_t n = ::recv(c.fd, &answer, 1, MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return Status::ok();
    if (n == 1 && answer == 1 && open_[static_cast<size_t>(c.pe)] == nullptr) {
      c.state = Connection::State::kOpen;
      open_[static_cast<size_t>(c.pe)] = &c;
    } else {
      close_locked(c);  // refused: the peer's own connection (lower PE first) carries the pair
    }
    return Status::ok();
  }
  c.drained = false;  // poll reported input, or bytes wait staged
  for (int frames = 0; frames < kFramesPerService && c.state == Connection::State::kOpen;) {
    if (c.payload_left == 0 && c.header_got < sizeof c.header) {
      if (c.header_got == 0 && c.drained && !staged_locked(c)) break;
      ssize_t n = take_locked(c, reinterpret_cast<char*>(&c.header) + c.header_got, sizeof c.header - c.header_got);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
      if (n <= 0) {
        int err = errno;
        size_t got = c.header_got;
        int pe = c.pe;
        close_locked(c);
        // The peer finished: an orderly close, or a reset at a frame boundary — a peer that closes
        // its socket with frames of ours still unread (its last barrier done, our trailing
        // acknowledgement or flush request still on the way) makes its kernel answer with a reset
        // instead of a FIN; everything it sent before was read (the kernel hands out queued bytes
        // before the error). A quiet still waiting for this peer reports the closed connection.
        if (got == 0 && (n == 0 || err == ECONNRESET)) return Status::ok();
        errno = err;
        return Status(StatusCode::kProtocolError,
                      "pciddc/tcp: PE " + std::to_string(me) + ": the connection from " + pe_name(pe) +
                          " dropped mid-header (" + std::to_string(got) + " of " +
                          std::to_string(sizeof c.header) + " header bytes)" +
                          (n < 0 ? std::string(": ") + std::strerror(err) : std::string()));
      }
      c.header_got += static_cast<size_t>(n);
      if (c.header_got < sizeof c.header) continue;
      char* dst = nullptr;
      Status st = wire::check_frame(c.header, me, c.pe, windows_, &dst);
      if (st.is_ok() && c.header.landed > c.sent) {
        st = Status(StatusCode::kProtocolError, "pciddc/tcp: PE " + std::to_string(me) + ": frame from " +
                                                    pe_name(c.pe) + " reports " + std::to_string(c.header.landed) +
                                                    " frames landed, but only " + std::to_string(c.sent) +
                                                    " were sent to it");
      }
      if (!st.is_ok()) {
        close_locked(c);
        return st;
      }
      if (c.header.landed > c.landed_at_peer) c.landed_at_peer = c.header.landed;
      auto kind = static_cast<wire::FrameKind>(c.header.kind);
      if (kind != wire::FrameKind::kWrite) {
        c.header_got = 0;
        ++c.received;
        ++frames;
        if (kind == wire::FrameKind::kFlushRequest) c.ack_due = c.received;
        continue;
      }
      c.payload_dst = dst;
      c.payload_left = c.header.length;
    }
    if (c.payload_left > 0) {
      ssize_t n = take_locked(c, c.payload_dst, c.payload_left);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) break;
      if (n <= 0) {
        int err = errno;
        size_t landed = c.header.length - c.payload_left;
        int pe = c.pe;
        close_locked(c);
        return Status(StatusCode::kProtocolError,
                      "pciddc/tcp: PE " + std::to_string(me) + ": the connection from " + pe_name(pe) +
                          " dropped mid-payload (" + std::to_string(landed) + " of " +
                          std::to_string(c.header.length) + " bytes landed in segment " +
                          std::to_string(c.header.segment) + " at offset " + std::to_string(c.header.offset) + ")" +
                          (n < 0 ? std::string(": ") + std::strerror(err) : std::string()));
      }
      c.payload_dst += n;
      c.payload_left -= static_cast<size_t>(n);
      if (c.payload_left > 0) continue;
    }
    // A whole write has landed.
    c.header_got = 0;
    ++c.received;
    ++frames;
    ++frames_received_;
    c.ask_due = (c.header.wire_flags & wire::kAckWanted) != 0 ? c.received : 0;
    if ((c.header.flags & kNotifyReceiver) != 0) options_.notify(c.pe, c.header.id);
  }
  return Status::ok();
}

size_t TcpLink::rejected() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return rejected_;
}

std::string TcpLink::last_rejection() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return last_rejection_;
}

std::string TcpLink::describe() const {
  std::lock_guard<std::mutex> lock(mutex_);
  size_t open = 0;
  for (Connection* c : open_) open += c != nullptr ? 1 : 0;
  return "link tcp, port " + std::to_string(port_) + ", " + std::to_string(open) + " connections, " +
         std::to_string(frames_sent_) + " frames sent, " + std::to_string(frames_received_) + " received, " +
         std::to_string(flush_requests_) + " flush requests, " +
         std::to_string(rejected_) + " connections rejected, " + std::to_string(moved_aside_) +
         " staged leftovers moved aside";
}

}  // namespace gasket::backend::pciddc
