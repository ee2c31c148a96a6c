// The launcher bootstrap: a client of the key-value store gasketrun serves over TCP.
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>

#include "core/bootstrap/bootstrap_impl.h"
#include "core/bootstrap/store_protocol.h"

namespace gasket::bootstrap::detail {
namespace {

using protocol::Message;
using protocol::MessageType;

// How long abort() waits for the launcher to end the job before exiting by itself.
constexpr int kAbortWaitMs = 10000;

class LauncherStoreBootstrap final : public Bootstrap {
 public:
  LauncherStoreBootstrap(const JobEnvironment& env, int fd)
      : env_(env),
        fd_(fd),
        store_(env.store_host + ":" + std::to_string(env.store_port)),
        reader_(protocol::kMaxPayload) {}
  ~LauncherStoreBootstrap() override { ::close(fd_); }

  int rank() const override { return env_.rank; }
  int size() const override { return env_.size; }
  const std::string& job_id() const override { return env_.job_id; }
  const std::string& secret() const override { return env_.secret; }
  bool oversubscribed() const override { return env_.oversubscribed; }

  Status hello() {
    Message m;
    m.type = MessageType::kHello;
    m.pe = env_.rank;
    m.value = env_.secret;
    Result<Message> answer = request("hello", m, MessageType::kHelloOk);
    return answer.status();
  }

  Status put(const std::string& key, const std::string& value) override {
    std::lock_guard<std::timed_mutex> lock(mutex_);
    Message m;
    m.type = MessageType::kPut;
    m.key = key;
    m.value = value;
    return send(call_name("put", -1, key), m);
  }

  Status fence() override {
    Message m;
    m.type = MessageType::kFence;
    return request("fence", m, MessageType::kFenceDone).status();
  }

  Result<std::string> get(int pe, const std::string& key) override {
    std::string call = call_name("get", pe, key);
    if (pe < 0 || pe >= env_.size) {
      return invalid_argument(call + ": PE out of range [0, " + std::to_string(env_.size) + ")");
    }
    Message m;
    m.type = MessageType::kGet;
    m.pe = pe;
    m.key = key;
    Result<Message> answer = request(call, m, MessageType::kGetReply);
    if (!answer.is_ok()) return answer.status();
    return std::move(answer->value);
  }

  [[noreturn]] void abort(int exit_code, const std::string& message) override {
    // Another thread may hold the connection inside a blocking call; do not wait for it long.
    std::unique_lock<std::timed_mutex> lock(mutex_, std::defer_lock);
    (void)lock.try_lock_for(std::chrono::seconds(1));
    Message m;
    m.type = MessageType::kAbort;
    m.code = exit_code;
    m.value = message.size() > 4096 ? message.substr(0, 4096) : message;
    Status sent = send("abort", m);
    if (sent.is_ok()) {
      // The launcher prints the message and kills every PE; wait for it (the connection closes
      // when the launcher ends), then leave by ourselves if it does not come.
      wait_until_closed(fd_, kAbortWaitMs);
    } else {
      std::string line = "gasket: PE " + std::to_string(env_.rank) + " aborted with code " +
                         std::to_string(exit_code) + ": " + message + " (and could not tell the " +
                         "launcher: " + sent.message() + ")\n";
      ssize_t ignored = ::write(STDERR_FILENO, line.data(), line.size());
      (void)ignored;
    }
    _exit(exit_code);
  }

  Status finalize() override {
    Message m;
    m.type = MessageType::kFinalize;
    return request("finalize", m, MessageType::kFinalizeOk).status();
  }

  Status spawn(const SpawnRequest& spawn_request) override {
    Message m;
    m.type = MessageType::kService;
    m.key = "spawn";
    m.value = protocol::encode_spawn(spawn_request);
    Result<Message> answer = request("spawn", m, MessageType::kServiceReply);
    if (!answer.is_ok()) return answer.status();
    if (answer->code != 0) return invalid_argument(answer->value);
    return Status::ok();
  }

  Status publish_name(const std::string& name, const std::string& port) override {
    return name_service("publish", {name, port}).status();
  }
  Result<std::string> lookup_name(const std::string& name) override { return name_service("lookup", {name}); }
  Status unpublish_name(const std::string& name) override {
    return name_service("unpublish", {name}).status();
  }

 private:
  // A request to the name server (the first launcher's store) over a connection of its own,
  // opened with HELLO(pe = -1) for this one request.
  Result<std::string> name_service(const std::string& op, const std::vector<std::string>& args) {
    std::string where = env_.name_server.empty() ? store_ : env_.name_server;
    std::string host;
    int port = 0;
    Status s = split_host_port(where, kEnvJobNameServer, &host, &port);
    if (!s.is_ok()) return s;
    Result<int> fd = connect_tcp(host, port, prefix(op) + ": connect to the name server " + where);
    if (!fd.is_ok()) return fd.status();
    protocol::FrameReader reader(protocol::kMaxPayload);
    Message hello;
    hello.type = MessageType::kHello;
    hello.pe = -1;
    hello.value = env_.secret;
    Message m;
    m.type = MessageType::kService;
    m.key = op;
    m.value = protocol::encode_strings(args);
    Result<Message> answer = exchange(*fd, &reader, op, hello);
    if (answer.is_ok() && answer->type == MessageType::kHelloOk) answer = exchange(*fd, &reader, op, m);
    ::close(*fd);
    if (!answer.is_ok()) return answer.status();
    if (answer->type != MessageType::kServiceReply) {
      return Status(StatusCode::kProtocolError, prefix(op) + ": the name server answered " +
                                                    protocol::message_type_name(answer->type) + ": " + answer->value);
    }
    if (answer->code != 0) return invalid_argument(answer->value);
    return std::move(answer->value);
  }

  std::string call_name(const char* call, int pe, const std::string& key) const {
    std::string s = std::string(call) + "(";
    if (pe >= 0 || std::strcmp(call, "get") == 0) s += "pe " + std::to_string(pe) + ", ";
    return s + "key '" + protocol::printable(key) + "')";
  }

  std::string prefix(const std::string& call) const {
    return "PE " + std::to_string(env_.rank) + ": bootstrap " + call + " (store " + store_ + ")";
  }

  Status send(const std::string& call, const Message& m) { return send_on(fd_, call, m); }

  Status send_on(int fd, const std::string& call, const Message& m) {
    Result<std::string> frame = protocol::encode(m);
    if (!frame.is_ok()) return invalid_argument(prefix(call) + ": " + frame.status().message());
    size_t done = 0;
    while (done < frame->size()) {
      ssize_t n = ::send(fd, frame->data() + done, frame->size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno_error(prefix(call) + ": send");
      done += static_cast<size_t>(n);
    }
    return Status::ok();
  }

  Result<Message> receive(const std::string& call) { return receive_on(fd_, &reader_, call); }

  // One message sent on `fd`, and the answer.
  Result<Message> exchange(int fd, protocol::FrameReader* reader, const std::string& call, const Message& m) {
    Status s = send_on(fd, call, m);
    if (!s.is_ok()) return s;
    return receive_on(fd, reader, call);
  }

  Result<Message> receive_on(int fd, protocol::FrameReader* reader, const std::string& call) {
    for (;;) {
      Result<std::optional<Message>> next = reader->next();
      if (!next.is_ok()) {
        return Status(StatusCode::kProtocolError,
                      prefix(call) + ": bad answer: " + next.status().message());
      }
      if (next->has_value()) return std::move(**next);
      char buf[65536];
      ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno_error(prefix(call) + ": recv");
      if (n == 0) {
        return Status(StatusCode::kUnavailable,
                      prefix(call) + ": the launcher closed the connection" +
                          (call == "hello" ? " (it rejected the job secret in GASKET_JOB_SECRET?)"
                                           : " (the job is ending?)"));
      }
      reader->append(buf, static_cast<size_t>(n));
    }
  }

  Result<Message> request(const std::string& call, const Message& m, MessageType expected) {
    std::lock_guard<std::timed_mutex> lock(mutex_);
    Status s = send(call, m);
    if (!s.is_ok()) return s;
    Result<Message> answer = receive(call);
    if (!answer.is_ok()) return answer;
    if (answer->type == MessageType::kError) {
      return invalid_argument(prefix(call) + ": refused by the launcher: " + answer->value);
    }
    if (answer->type != expected) {
      return Status(StatusCode::kProtocolError,
                    prefix(call) + ": expected " + protocol::message_type_name(expected) +
                        ", got " + protocol::message_type_name(answer->type));
    }
    return answer;
  }

  const JobEnvironment env_;
  const int fd_;
  const std::string store_;
  // One request at a time on the connection; timed so that abort() cannot hang on it.
  std::timed_mutex mutex_;
  protocol::FrameReader reader_;
};

}  // namespace

Result<int> connect_tcp(const std::string& host, int port, const std::string& where) {
  struct addrinfo hints;
  std::memset(&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo* list = nullptr;
  std::string service = std::to_string(port);
  int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &list);
  if (rc != 0) {
    return Status(StatusCode::kUnavailable, where + ": getaddrinfo: " + gai_strerror(rc));
  }
  Status last = Status(StatusCode::kUnavailable, where + ": no address");
  int fd = -1;
  for (struct addrinfo* a = list; a != nullptr; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      last = errno_error(where + ": socket");
      continue;
    }
    int r;
    do {
      r = ::connect(fd, a->ai_addr, a->ai_addrlen);
    } while (r < 0 && errno == EINTR);
    if (r == 0) break;
    last = errno_error(where + ": connect");
    ::close(fd);
    fd = -1;
  }
  ::freeaddrinfo(list);
  if (fd < 0) return last;
  int one = 1;
  // Small request/answer messages: do not let Nagle delay them.
  (void)::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

Result<std::unique_ptr<Bootstrap>> connect_launcher_store(const JobEnvironment& env) {
  Result<int> fd = connect_tcp(env.store_host, env.store_port,
                               "PE " + std::to_string(env.rank) + ": bootstrap: connect to store " + env.store_host +
                                   ":" + std::to_string(env.store_port));
  if (!fd.is_ok()) return fd.status();
  auto bootstrap = std::make_unique<LauncherStoreBootstrap>(env, *fd);
  Status s = bootstrap->hello();
  if (!s.is_ok()) return s;
  return std::unique_ptr<Bootstrap>(std::move(bootstrap));
}

}  // namespace gasket::bootstrap::detail
