#include "tools/gasketrun/store_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/bootstrap/job_environment.h"

namespace gasket::launcher {

using bootstrap::protocol::FrameReader;
using bootstrap::protocol::Message;
using bootstrap::protocol::MessageType;
using bootstrap::protocol::printable;

namespace {

// Constant-time comparison, so that the secret cannot be guessed byte by byte from timing.
bool same_secret(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ (i < b.size() ? b[i] : 0));
  }
  return diff == 0;
}

std::string sockaddr_text(const struct sockaddr* sa, socklen_t len) {
  char host[NI_MAXHOST];
  char port[NI_MAXSERV];
  if (::getnameinfo(sa, len, host, sizeof host, port, sizeof port,
                    NI_NUMERICHOST | NI_NUMERICSERV) != 0) {
    return "?";
  }
  if (sa->sa_family == AF_INET6) return std::string("[") + host + "]:" + port;
  return std::string(host) + ":" + port;
}

Message simple(MessageType type) {
  Message m;
  m.type = type;
  return m;
}

}  // namespace

StoreServer::StoreServer(int num_pes, std::string secret, StoreObserver* observer)
    : num_pes_(num_pes),
      secret_(std::move(secret)),
      observer_(observer),
      rank_fd_(static_cast<size_t>(num_pes), -1),
      ever_connected_(static_cast<size_t>(num_pes), false),
      finalized_(static_cast<size_t>(num_pes), false),
      fenced_(static_cast<size_t>(num_pes), false) {}

StoreServer::~StoreServer() { close_all(); }

Status StoreServer::listen(const std::string& address) {
  // "host" / "[v6]" (any free port) or "host:port" / "[v6]:port"; a bare IPv6 address has
  // several colons and no port.
  std::string host = address;
  std::string port = "0";
  bool bracketed = !address.empty() && address[0] == '[';
  bool has_port = bracketed ? address.find("]:") != std::string::npos
                            : std::count(address.begin(), address.end(), ':') == 1;
  if (has_port) {
    int port_number = 0;
    Status s = bootstrap::split_host_port(address, "--store-address", &host, &port_number);
    if (!s.is_ok()) return s;
    port = std::to_string(port_number);
  } else if (bracketed) {
    if (address.back() != ']') return invalid_argument("bad --store-address '" + address + "'");
    host = address.substr(1, address.size() - 2);
  }
  struct addrinfo hints;
  std::memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  struct addrinfo* list = nullptr;
  int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &list);
  if (rc != 0) {
    return invalid_argument("store: cannot resolve --store-address '" + address +
                            "': " + gai_strerror(rc));
  }
  Status last = io_error("store: no usable address for '" + address + "'");
  for (struct addrinfo* a = list; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) {
      last = errno_error("store: socket for '" + address + "'");
      continue;
    }
    int one = 1;
    (void)::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    std::string where = sockaddr_text(a->ai_addr, a->ai_addrlen);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0) {
      last = errno_error("store: bind(" + where + ")");
      ::close(fd);
      continue;
    }
    if (::listen(fd, SOMAXCONN) != 0) {
      last = errno_error("store: listen(" + where + ")");
      ::close(fd);
      continue;
    }
    struct sockaddr_storage bound;
    socklen_t len = sizeof bound;
    if (::getsockname(fd, reinterpret_cast<struct sockaddr*>(&bound), &len) != 0) {
      last = errno_error("store: getsockname(" + where + ")");
      ::close(fd);
      continue;
    }
    listen_fd_ = fd;
    address_ = sockaddr_text(reinterpret_cast<struct sockaddr*>(&bound), len);
    break;
  }
  ::freeaddrinfo(list);
  return listen_fd_ >= 0 ? Status::ok() : last;
}

void StoreServer::collect_poll_fds(std::vector<struct pollfd>* fds) const {
  if (listen_fd_ >= 0) fds->push_back({listen_fd_, POLLIN, 0});
  for (const auto& [fd, c] : connections_) {
    short events = POLLIN;
    if (c->out_sent < c->out.size()) events |= POLLOUT;
    fds->push_back({fd, events, 0});
  }
}

void StoreServer::handle_ready(const struct pollfd& ready) {
  if (ready.fd == listen_fd_) {
    accept_connections();
  } else {
    auto it = connections_.find(ready.fd);
    if (it == connections_.end()) return;
    Connection* c = it->second.get();
    if (ready.revents & POLLOUT) flush(c);
    if (!c->dead && (ready.revents & (POLLIN | POLLHUP | POLLERR))) read_from(c);
  }
  sweep();
}

int StoreServer::expire(Clock::time_point now) {
  int next_ms = -1;
  for (auto& [fd, c] : connections_) {
    if (c->rank >= 0 || c->dead) continue;
    auto deadline = c->accepted + kHelloTimeout;
    if (now >= deadline) {
      drop(c.get(), "it sent no job secret within " + std::to_string(kHelloTimeout.count()) + " s");
      continue;
    }
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
    if (next_ms < 0 || ms < next_ms) next_ms = static_cast<int>(ms);
  }
  sweep();
  return next_ms;
}

void StoreServer::close_all() {
  for (auto& [fd, c] : connections_) ::close(fd);
  connections_.clear();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  listen_fd_ = -1;
}

void StoreServer::accept_connections() {
  for (;;) {
    struct sockaddr_storage sa;
    socklen_t len = sizeof sa;
    int fd = ::accept4(listen_fd_, reinterpret_cast<struct sockaddr*>(&sa), &len,
                       SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ECONNABORTED) {
        observer_->on_store_notice(std::string("store: accept: ") + std::strerror(errno));
      }
      return;
    }
    int one = 1;
    (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto c = std::make_unique<Connection>();
    c->fd = fd;
    c->peer = sockaddr_text(reinterpret_cast<struct sockaddr*>(&sa), len);
    c->accepted = Clock::now();
    connections_[fd] = std::move(c);
  }
}

std::string StoreServer::who(const Connection* c) const {
  if (c->rank >= 0) return "PE " + std::to_string(c->rank);
  return "connection from " + c->peer;
}

void StoreServer::read_from(Connection* c) {
  char buf[65536];
  for (int round = 0; round < 16 && !c->dead; ++round) {
    ssize_t n = ::recv(c->fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n <= 0) {
      // A PE that goes away without FINALIZE is reported by the job when it is reaped.
      if (c->rank < 0 && n == 0 && c->reader.buffered() == 0) {
        c->dead = true;  // connected and left without a word: a port probe
      } else if (c->rank < 0) {
        drop(c, "it closed before sending the job secret");
      } else {
        c->dead = true;
      }
      return;
    }
    c->reader.append(buf, static_cast<size_t>(n));
    while (!c->dead) {
      Result<std::optional<Message>> m = c->reader.next();
      if (!m.is_ok()) {
        drop(c, c->rank < 0 ? "its first message is not the job secret (" +
                                  m.status().message() + ")"
                            : "it sent a malformed message: " + m.status().message());
        return;
      }
      if (!m->has_value()) break;
      handle_message(c, std::move(**m));
    }
  }
}

void StoreServer::handle_message(Connection* c, Message m) {
  if (c->name_client) {
    if (m.type == MessageType::kService && m.key != "spawn") {
      handle_service(c, m);
    } else {
      drop(c, std::string("it sent ") + bootstrap::protocol::message_type_name(m.type) +
                  " on a name-service connection");
    }
    return;
  }
  if (c->rank < 0) {
    handle_hello(c, m);
    return;
  }
  if (finalized_[static_cast<size_t>(c->rank)]) {
    send_error(c, std::string(bootstrap::protocol::message_type_name(m.type)) +
                      " after finalize");
    return;
  }
  switch (m.type) {
    case MessageType::kPut: {
      Key key(c->rank, std::move(m.key));
      auto waiting = waiting_gets_.find(key);
      if (waiting != waiting_gets_.end()) {
        Message reply = simple(MessageType::kGetReply);
        reply.value = m.value;
        for (int rank : waiting->second) send_to_rank(rank, reply);
        waiting_gets_.erase(waiting);
      }
      values_[std::move(key)] = std::move(m.value);
      break;
    }
    case MessageType::kFence: handle_fence(c); break;
    case MessageType::kGet: handle_get(c, m); break;
    case MessageType::kAbort: observer_->on_pe_abort(c->rank, m.code, m.value); break;
    case MessageType::kFinalize: handle_finalize(c); break;
    case MessageType::kService: handle_service(c, m); break;
    default:
      drop(c, std::string("it sent ") + bootstrap::protocol::message_type_name(m.type) +
                  ", which a PE never sends");
      break;
  }
}

void StoreServer::handle_hello(Connection* c, const Message& m) {
  if (m.type != MessageType::kHello || !same_secret(m.value, secret_)) {
    drop(c, "its first message is not the job secret");
    return;
  }
  if (m.pe == -1) {
    c->name_client = true;
    c->reader.set_max_payload(bootstrap::protocol::kMaxPayload);
    send(c, simple(MessageType::kHelloOk));
    return;
  }
  if (m.pe < 0 || m.pe >= num_pes_) {
    send_error(c, "rank " + std::to_string(m.pe) + " is out of range for a job of " +
                      std::to_string(num_pes_) + " PEs");
    observer_->on_store_notice("store: refused " + who(c) + ": rank " + std::to_string(m.pe) +
                               " out of range [0, " + std::to_string(num_pes_) + ")");
    c->close_after_flush = true;
    flush(c);
    return;
  }
  size_t r = static_cast<size_t>(m.pe);
  if (ever_connected_[r]) {
    send_error(c, "PE " + std::to_string(m.pe) + " has already connected to the store");
    observer_->on_store_notice("store: refused " + who(c) + ": PE " + std::to_string(m.pe) +
                               " connected a second time");
    c->close_after_flush = true;
    flush(c);
    return;
  }
  ever_connected_[r] = true;
  rank_fd_[r] = c->fd;
  c->rank = m.pe;
  c->reader.set_max_payload(bootstrap::protocol::kMaxPayload);
  send(c, simple(MessageType::kHelloOk));
  observer_->on_pe_connected(c->rank);
}

void StoreServer::handle_service(Connection* c, const Message& m) {
  Message reply = simple(MessageType::kServiceReply);
  auto fail = [&reply](int32_t code, std::string why) {
    reply.code = code;
    reply.value = std::move(why);
  };
  if (m.key == "spawn") {
    Result<bootstrap::SpawnRequest> request = bootstrap::protocol::decode_spawn(m.value);
    Status s = request.is_ok() ? observer_->on_spawn(c->rank, *request) : request.status();
    if (!s.is_ok()) fail(bootstrap::protocol::kServiceFailed, s.message());
    send(c, reply);
    return;
  }
  Result<std::vector<std::string>> args = bootstrap::protocol::decode_strings(m.value);
  size_t want = m.key == "publish" ? 2 : 1;
  if (!args.is_ok() || args->size() != want || (m.key != "publish" && m.key != "lookup" && m.key != "unpublish")) {
    drop(c, "it sent a malformed SERVICE '" + bootstrap::protocol::printable(m.key) + "'");
    return;
  }
  const std::string& name = (*args)[0];
  Status s;
  if (m.key == "publish") {
    s = names_.publish(name, (*args)[1]);
  } else if (m.key == "unpublish") {
    s = names_.unpublish(name);
  } else {
    Result<std::string> port = names_.lookup(name);
    s = port.status();
    if (port.is_ok()) reply.value = *port;
  }
  if (!s.is_ok()) fail(bootstrap::protocol::kServiceFailed, s.message());
  send(c, reply);
}

void StoreServer::handle_fence(Connection* c) {
  size_t r = static_cast<size_t>(c->rank);
  for (int pe = 0; pe < num_pes_; ++pe) {
    if (finalized_[static_cast<size_t>(pe)]) {
      send_error(c, "fence: PE " + std::to_string(pe) + " has already finalized");
      return;
    }
  }
  if (fenced_[r]) {
    send_error(c, "fence: PE " + std::to_string(c->rank) + " is already in this fence");
    return;
  }
  fenced_[r] = true;
  if (++fence_count_ < num_pes_) return;
  for (int pe = 0; pe < num_pes_; ++pe) {
    fenced_[static_cast<size_t>(pe)] = false;
    send_to_rank(pe, simple(MessageType::kFenceDone));
  }
  fence_count_ = 0;
}

void StoreServer::handle_get(Connection* c, const Message& m) {
  if (m.pe < 0 || m.pe >= num_pes_) {
    send_error(c, "get: PE " + std::to_string(m.pe) + " out of range [0, " +
                      std::to_string(num_pes_) + ")");
    return;
  }
  Key key(m.pe, m.key);
  auto it = values_.find(key);
  if (it != values_.end()) {
    Message reply = simple(MessageType::kGetReply);
    reply.value = it->second;
    send(c, reply);
  } else if (finalized_[static_cast<size_t>(m.pe)]) {
    send_error(c, "get: PE " + std::to_string(m.pe) + " finalized without putting key '" +
                      printable(m.key) + "'");
  } else {
    waiting_gets_[std::move(key)].push_back(c->rank);
  }
}

void StoreServer::handle_finalize(Connection* c) {
  finalized_[static_cast<size_t>(c->rank)] = true;
  send(c, simple(MessageType::kFinalizeOk));
  // Nothing this PE has not put can appear any more, and no fence can complete.
  for (auto it = waiting_gets_.begin(); it != waiting_gets_.end();) {
    if (it->first.first != c->rank) {
      ++it;
      continue;
    }
    for (int rank : it->second) {
      auto w = connections_.find(rank_fd_[static_cast<size_t>(rank)]);
      if (w != connections_.end()) {
        send_error(w->second.get(), "get: PE " + std::to_string(c->rank) +
                                        " finalized without putting key '" +
                                        printable(it->first.second) + "'");
      }
    }
    it = waiting_gets_.erase(it);
  }
  if (fence_count_ > 0) {
    for (int pe = 0; pe < num_pes_; ++pe) {
      if (!fenced_[static_cast<size_t>(pe)]) continue;
      fenced_[static_cast<size_t>(pe)] = false;
      auto w = connections_.find(rank_fd_[static_cast<size_t>(pe)]);
      if (w != connections_.end()) {
        send_error(w->second.get(), "fence: PE " + std::to_string(c->rank) +
                                        " finalized while others wait in a fence");
      }
    }
    fence_count_ = 0;
  }
  observer_->on_pe_finalized(c->rank);
}

void StoreServer::send(Connection* c, const Message& m) {
  if (c->dead) return;
  Result<std::string> frame = bootstrap::protocol::encode(m);
  if (!frame.is_ok()) {
    // Only a value near the size limit can fail; answer with a short error instead.
    Message error = simple(MessageType::kError);
    error.value = frame.status().message();
    frame = bootstrap::protocol::encode(error);
    if (!frame.is_ok()) return;
  }
  if (c->out_sent == c->out.size()) {
    c->out.clear();
    c->out_sent = 0;
  }
  c->out += *frame;
  flush(c);
}

void StoreServer::send_to_rank(int rank, const Message& m) {
  auto it = connections_.find(rank_fd_[static_cast<size_t>(rank)]);
  if (it != connections_.end()) send(it->second.get(), m);
}

void StoreServer::send_error(Connection* c, const std::string& text) {
  Message m = simple(MessageType::kError);
  m.value = text;
  send(c, m);
}

void StoreServer::flush(Connection* c) {
  while (!c->dead && c->out_sent < c->out.size()) {
    ssize_t n = ::send(c->fd, c->out.data() + c->out_sent, c->out.size() - c->out_sent,
                       MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0) {
      c->dead = true;  // the PE is gone; its exit is reported when it is reaped
      return;
    }
    c->out_sent += static_cast<size_t>(n);
  }
  if (c->close_after_flush && c->out_sent == c->out.size()) c->dead = true;
}

void StoreServer::drop(Connection* c, const std::string& why) {
  if (c->dead) return;
  observer_->on_store_notice("store: dropped " + who(c) + ": " + why);
  c->dead = true;
}

void StoreServer::sweep() {
  for (auto it = connections_.begin(); it != connections_.end();) {
    Connection* c = it->second.get();
    if (!c->dead) {
      ++it;
      continue;
    }
    if (c->rank >= 0 && rank_fd_[static_cast<size_t>(c->rank)] == c->fd) {
      rank_fd_[static_cast<size_t>(c->rank)] = -1;
    }
    ::close(c->fd);
    it = connections_.erase(it);
  }
}

}  // namespace gasket::launcher
