// A PE started by a PMI-1 process manager: MPICH's Hydra (mpiexec.hydra, mpiexec.mpich), Slurm's
// `srun --mpi=pmi2` (which also answers PMI-1 clients), and the many site launchers that speak the
// simple PMI wire protocol (pmi_wire.h) over the socket they pass in PMI_FD, or in connect mode
// (Hydra's -pmi-port) over a TCP connection to PMI_PORT.
//
// The process manager's key-value space is one per job; gasket's keys are stored per PE as
// "g<pe>.<key>" ("g<pe>%<hex>" for keys with bytes PMI cannot carry), values as hex, split into
// pieces "g<pe>.<key>#<i>" when longer than the manager's vallen_max. PMI-1 makes a put visible
// only after a barrier, which is what Bootstrap::fence() is.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <mutex>

#include "core/base/log.h"
#include "core/base/parse.h"
#include "core/bootstrap/bootstrap_impl.h"
#include "core/bootstrap/job_identity.h"
#include "core/bootstrap/pmi_wire.h"
#include "core/bootstrap/store_protocol.h"

namespace gasket::bootstrap::detail {
namespace {

using Fields = std::map<std::string, std::string>;

// How long abort() waits for the process manager to end the job before exiting by itself.
constexpr int kAbortWaitMs = 10000;
constexpr char kSecretKey[] = "secret";

// The connection to the process manager and what the environment says of this process: PMI_FD,
// PMI_RANK and PMI_SIZE validated; or, in PMI_PORT mode, the connection made and PMI_ID (rank and
// size are then -1 until the manager tells them).
struct PmiEnvironment {
  int fd = -1;
  int rank = -1;
  int size = -1;
  int pmi_id = -1;
};

Result<PmiEnvironment> read_pmi_environment(const EnvLookup& lookup) {
  PmiEnvironment env;
  const char* fd = lookup(kEnvPmiFd);
  const char* rank = lookup(kEnvPmiRank);
  const char* size = lookup(kEnvPmiSize);
  if (fd == nullptr || rank == nullptr || size == nullptr) {
    return invalid_argument(std::string("bootstrap: a PMI-1 process manager sets ") + kEnvPmiFd + ", " +
                            kEnvPmiRank + " and " + kEnvPmiSize + "; this process has " + kEnvPmiFd + "=" +
                            (fd ? fd : "(unset)") + ", " + kEnvPmiRank + "=" + (rank ? rank : "(unset)") + ", " +
                            kEnvPmiSize + "=" + (size ? size : "(unset)"));
  }
  auto bad = [](const char* name, const char* value, const std::string& why) {
    return invalid_argument(std::string("bootstrap: bad ") + name + "='" + value + "': " + why);
  };
  Result<int64_t> f = parse_int(fd, 0, 1 << 20);
  if (!f.is_ok()) return bad(kEnvPmiFd, fd, f.status().message());
  Result<int64_t> n = parse_int(size, 1, 1 << 24);
  if (!n.is_ok()) return bad(kEnvPmiSize, size, n.status().message());
  Result<int64_t> r = parse_int(rank, 0, (1 << 24) - 1);
  if (!r.is_ok()) return bad(kEnvPmiRank, rank, r.status().message());
  if (*r >= *n) return bad(kEnvPmiRank, rank, std::string("must be less than ") + kEnvPmiSize + "=" + size);
  if (::fcntl(static_cast<int>(*f), F_GETFD) < 0) {
    return bad(kEnvPmiFd, fd, "not an open file descriptor of this process (" + errno_error("fcntl").message() + ")");
  }
  env.fd = static_cast<int>(*f);
  env.rank = static_cast<int>(*r);
  env.size = static_cast<int>(*n);
  return env;
}

Result<PmiEnvironment> connect_pmi_port(const EnvLookup& lookup) {
  PmiEnvironment env;
  std::string port_text = lookup(kEnvPmiPort);
  const char* id = lookup(kEnvPmiId);
  if (id == nullptr) {
    return invalid_argument(std::string("bootstrap: ") + kEnvPmiPort + "='" + port_text + "' is set but " + kEnvPmiId +
                            " is not: a PMI-1 process manager in connect mode sets both");
  }
  Result<int64_t> pmi_id = parse_int(id, 0, (1 << 24) - 1);
  if (!pmi_id.is_ok()) {
    return invalid_argument(std::string("bootstrap: bad ") + kEnvPmiId + "='" + id + "': " + pmi_id.status().message());
  }
  std::string host;
  int port = 0;
  Status st = split_host_port(port_text, kEnvPmiPort, &host, &port);
  if (!st.is_ok()) return st;
  Result<int> fd = connect_tcp(host, port, std::string("bootstrap: connect to ") + kEnvPmiPort + " " + port_text);
  if (!fd.is_ok()) return fd.status();
  env.fd = *fd;
  env.pmi_id = static_cast<int>(*pmi_id);
  return env;
}

// Job ids name /dev/shm files: the key-value space's name with anything outside [A-Za-z0-9_.]
// replaced (Hydra's "kvs_<pid>_<n>_<random>_<host>" is unique per mpiexec).
std::string job_id_from_kvsname(const std::string& kvsname) {
  std::string id = "h";
  for (char c : kvsname) {
    if (id.size() >= 64) break;
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
    id += ok ? c : '_';
  }
  return id;
}

class PmiBootstrap final : public Bootstrap {
 public:
  PmiBootstrap(const PmiEnvironment& env, bool oversubscribed)
      : fd_(env.fd), rank_(env.rank), size_(env.size), oversubscribed_(oversubscribed) {}
  ~PmiBootstrap() override { ::close(fd_); }

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  const std::string& job_id() const override { return job_id_; }
  const std::string& secret() const override { return secret_; }
  bool oversubscribed() const override { return oversubscribed_; }

  // PMI_PORT mode: introduces this process by its PMI_ID; the manager answers with its size and rank.
  Status identify(int pmi_id) {
    Result<Fields> ack = request("initack", "cmd=initack pmiid=" + std::to_string(pmi_id), "initack");
    if (!ack.is_ok()) return ack.status();
    Fields told;
    for (int i = 0; i < 3; ++i) {  // cmd=set size=N, cmd=set rank=R, cmd=set debug=D
      Result<Fields> set = receive_fields("initack", "set");
      if (!set.is_ok()) return set.status();
      set->erase("cmd");
      told.insert(set->begin(), set->end());
    }
    Result<int64_t> size = parse_int(field(told, "size"), 1, 1 << 24);
    Result<int64_t> rank = parse_int(field(told, "rank"), 0, (1 << 24) - 1);
    if (!size.is_ok() || !rank.is_ok() || *rank >= *size) {
      return protocol_error("initack", "the process manager gives rank '" + field(told, "rank") + "' of size '" +
                                           field(told, "size") + "' to PMI_ID " + std::to_string(pmi_id));
    }
    rank_ = static_cast<int>(*rank);
    size_ = static_cast<int>(*size);
    return Status::ok();
  }

  // init, the limits and the key-value space's name; then PE 0's secret, through one barrier.
  Status start() {
    Result<Fields> init = request("init", "cmd=init pmi_version=1 pmi_subversion=1", "response_to_init");
    if (!init.is_ok()) return init.status();
    if (field(*init, "pmi_version") != "1") {
      return protocol_error("init", "the process manager answers PMI version '" + field(*init, "pmi_version") +
                                        "', not 1");
    }
    Result<Fields> maxes = request("get_maxes", "cmd=get_maxes", "maxes");
    if (!maxes.is_ok()) return maxes.status();
    Result<int64_t> keylen = parse_int(field(*maxes, "keylen_max"), 8, 1 << 20);
    Result<int64_t> vallen = parse_int(field(*maxes, "vallen_max"), 64, 1 << 24);
    if (!keylen.is_ok() || !vallen.is_ok()) {
      return protocol_error("get_maxes", "bad limits keylen_max='" + field(*maxes, "keylen_max") +
                                             "' vallen_max='" + field(*maxes, "vallen_max") + "'");
    }
    // The limits count the terminating NUL of the manager's buffers.
    max_key_ = static_cast<size_t>(*keylen) - 1;
    max_piece_ = (static_cast<size_t>(*vallen) - 1 - kPieceHeaderBytes) & ~size_t{1};
    Result<Fields> kvs = request("get_my_kvsname", "cmd=get_my_kvsname", "my_kvsname");
    if (!kvs.is_ok()) return kvs.status();
    kvsname_ = field(*kvs, "kvsname");
    if (!pmi::is_wire_safe(kvsname_)) {
      return protocol_error("get_my_kvsname", "bad kvsname '" + protocol::printable(kvsname_) + "'");
    }
    job_id_ = job_id_from_kvsname(kvsname_);

    if (rank_ == 0) {
      Result<std::string> secret = random_hex(16);
      if (!secret.is_ok()) return secret.status();
      Status st = put(kSecretKey, *secret);
      if (!st.is_ok()) return st;
    }
    Status st = fence();
    if (!st.is_ok()) return st;
    Result<std::string> secret = get(0, kSecretKey);
    if (!secret.is_ok()) return secret.status();
    secret_ = *secret;
    return Status::ok();
  }

  Status put(const std::string& key, const std::string& value) override {
    std::string call = "put(key '" + protocol::printable(key) + "')";
    Result<std::string> name = wire_key(call, rank_, key);
    if (!name.is_ok()) return name.status();
    std::string hex = pmi::hex_encode(value);
    size_t pieces = hex.empty() ? 1 : (hex.size() + max_piece_ - 1) / max_piece_;
    // Checked before the first put: the name of the last piece is the longest.
    std::string last_name = pieces == 1 ? *name : *name + "#" + std::to_string(pieces - 1);
    if (last_name.size() > max_key_) return key_too_long(call, last_name);
    for (size_t i = 0; i < pieces; ++i) {
      std::string piece = hex.substr(i * max_piece_, max_piece_);
      // The first piece says how many there are: "<pieces>:<hex>" (':' keeps an empty value non-empty).
      std::string wire_value = i == 0 ? std::to_string(pieces) + ":" + piece : piece;
      std::string wire_name = i == 0 ? *name : *name + "#" + std::to_string(i);
      Result<Fields> answer =
          request(call, "cmd=put kvsname=" + kvsname_ + " key=" + wire_name + " value=" + wire_value, "put_result");
      if (!answer.is_ok()) return answer.status();
      if (field(*answer, "rc") != "0") {
        return Status(StatusCode::kUnavailable, prefix(call) + ": refused by the process manager: " +
                                                    protocol::printable(field(*answer, "msg")));
      }
    }
    return Status::ok();
  }

  Status fence() override { return request("fence", "cmd=barrier_in", "barrier_out").status(); }

  Result<std::string> get(int pe, const std::string& key) override {
    std::string call = "get(pe " + std::to_string(pe) + ", key '" + protocol::printable(key) + "')";
    if (pe < 0 || pe >= size_) {
      return invalid_argument(prefix(call) + ": PE out of range: the job has " + std::to_string(size_) + " PEs");
    }
    Result<std::string> name = wire_key(call, pe, key);
    if (!name.is_ok()) return name.status();
    Result<std::string> first = get_piece(call, pe, *name);
    if (!first.is_ok()) return first.status();
    size_t colon = first->find(':');
    Result<int64_t> pieces = parse_int(first->substr(0, colon == std::string::npos ? 0 : colon), 1, 1 << 24);
    if (!pieces.is_ok()) {
      return protocol_error(call, "value '" + protocol::printable(*first) + "' is not one gasket put");
    }
    std::string hex = first->substr(colon + 1);
    for (int64_t i = 1; i < *pieces; ++i) {
      Result<std::string> piece = get_piece(call, pe, *name + "#" + std::to_string(i));
      if (!piece.is_ok()) return piece.status();
      hex += *piece;
    }
    Result<std::string> value = pmi::hex_decode(hex);
    if (!value.is_ok()) return protocol_error(call, value.status().message());
    return value;
  }

  [[noreturn]] void abort(int exit_code, const std::string& message) override {
    // Hydra prints nothing on abort: say who ended the job and why.
    int code = report_abort(rank_, job_id_, exit_code, message);
    // Another thread may hold the connection inside a blocking call; do not wait for it long.
    std::unique_lock<std::timed_mutex> lock(mutex_, std::defer_lock);
    (void)lock.try_lock_for(std::chrono::seconds(1));
    // The process manager kills every process of the job and exits with `code`.
    if (send_line("abort", "cmd=abort exitcode=" + std::to_string(code)).is_ok()) wait_until_closed(fd_, kAbortWaitMs);
    _exit(code);
  }

  Status finalize() override { return request("finalize", "cmd=finalize", "finalize_ack").status(); }

 private:
  // Room in a value for the "<pieces>:" header of a first piece.
  static constexpr size_t kPieceHeaderBytes = 9;

  static std::string field(const Fields& fields, const char* name) {
    auto it = fields.find(name);
    return it == fields.end() ? std::string() : it->second;
  }

  std::string prefix(const std::string& call) const {
    return "PE " + (rank_ < 0 ? std::string("?") : std::to_string(rank_)) + ": bootstrap (PMI-1" + (kvsname_.empty() ? "" : ", kvs " + kvsname_) +
           ") " + call;
  }

  Status protocol_error(const std::string& call, const std::string& what) const {
    return Status(StatusCode::kProtocolError, prefix(call) + ": " + what);
  }

  Status key_too_long(const std::string& call, const std::string& wire_name) const {
    return invalid_argument(prefix(call) + ": the PMI key '" + wire_name + "' is longer than the process manager's " +
                            std::to_string(max_key_) + " characters");
  }

  // "g<pe>.<key>", or "g<pe>%<hex of key>" for a key PMI-1 cannot carry as it is.
  Result<std::string> wire_key(const std::string& call, int pe, const std::string& key) const {
    std::string name = "g" + std::to_string(pe) + (pmi::is_wire_safe(key) ? "." + key : "%" + pmi::hex_encode(key));
    if (name.size() > max_key_) return key_too_long(call, name);
    return name;
  }

  Result<std::string> get_piece(const std::string& call, int pe, const std::string& wire_name) {
    Result<Fields> answer = request(call, "cmd=get kvsname=" + kvsname_ + " key=" + wire_name, "get_result");
    if (!answer.is_ok()) return answer.status();
    if (field(*answer, "rc") != "0") {
      // PMI-1 cannot wait for a key: a put is visible only after the putting PE's next fence.
      return Status(StatusCode::kUnavailable,
                    prefix(call) + ": PE " + std::to_string(pe) +
                        " did not put it before the last fence (PMI-1 shows a put only after a fence; " +
                        "the process manager says '" + protocol::printable(field(*answer, "msg")) + "')");
    }
    return field(*answer, "value");
  }

  Status send_line(const std::string& call, std::string line) {
    line += '\n';
    size_t done = 0;
    while (done < line.size()) {
      ssize_t n = ::send(fd_, line.data() + done, line.size() - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno_error(prefix(call) + ": send to PMI_FD " + std::to_string(fd_));
      done += static_cast<size_t>(n);
    }
    return Status::ok();
  }

  Result<std::string> receive_line(const std::string& call) {
    for (;;) {
      size_t newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        std::string line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        return line;
      }
      if (buffer_.size() > pmi::kMaxLineBytes) {
        return protocol_error(call, "an answer line longer than " + std::to_string(pmi::kMaxLineBytes) + " bytes");
      }
      char buf[4096];
      ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return errno_error(prefix(call) + ": recv from PMI_FD " + std::to_string(fd_));
      if (n == 0) {
        return Status(StatusCode::kUnavailable,
                      prefix(call) + ": the process manager closed the connection (the job is ending?)");
      }
      buffer_.append(buf, static_cast<size_t>(n));
    }
  }

  // Reads one line, which must be `cmd=<expected>`.
  Result<Fields> receive_fields(const std::string& call, const std::string& expected) {
    Result<std::string> answer = receive_line(call);
    if (!answer.is_ok()) return answer.status();
    Result<Fields> fields = pmi::parse_line(*answer);
    if (!fields.is_ok()) return protocol_error(call, fields.status().message());
    if (field(*fields, "cmd") != expected) {
      return protocol_error(call, "expected cmd=" + expected + ", got '" + protocol::printable(*answer) + "'");
    }
    return fields;
  }

  // Sends one command line and reads the answer, which must be `cmd=<expected>`. A non-zero rc=
  // fails the call, except for put and get, whose callers explain it.
  Result<Fields> request(const std::string& call, const std::string& line, const std::string& expected) {
    std::lock_guard<std::timed_mutex> lock(mutex_);
    Status st = send_line(call, line);
    if (!st.is_ok()) return st;
    Result<Fields> fields = receive_fields(call, expected);
    if (!fields.is_ok()) return fields;
    std::string rc = field(*fields, "rc");
    bool caller_reads_rc = expected == "get_result" || expected == "put_result";
    if (!caller_reads_rc && !rc.empty() && rc != "0") {
      return Status(StatusCode::kUnavailable, prefix(call) + ": the process manager answers rc=" + rc + " " +
                                                  protocol::printable(field(*fields, "msg")));
    }
    return fields;
  }

  const int fd_;
  int rank_;  // set by identify() in PMI_PORT mode
  int size_;
  const bool oversubscribed_;
  std::string kvsname_;
  std::string job_id_;
  std::string secret_;
  size_t max_key_ = 0;
  size_t max_piece_ = 0;
  // One request at a time on the connection; timed so that abort() cannot hang on it.
  std::timed_mutex mutex_;
  std::string buffer_;
};

}  // namespace

Result<std::unique_ptr<Bootstrap>> connect_pmi(const EnvLookup& lookup) {
  bool port_mode = lookup(kEnvPmiFd) == nullptr && lookup(kEnvPmiPort) != nullptr;
  Result<PmiEnvironment> env = port_mode ? connect_pmi_port(lookup) : read_pmi_environment(lookup);
  if (!env.is_ok()) return env.status();
  // Not inherited by programs this PE may exec.
  (void)::fcntl(env->fd, F_SETFD, FD_CLOEXEC);
  // Hydra tells each process how many share its node; other managers do not (then: not known).
  bool oversubscribed = false;
  if (const char* local = lookup(kEnvMpiLocalRanks); local != nullptr) {
    Result<int64_t> n = parse_int(local, 1, 1 << 24);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    oversubscribed = n.is_ok() && cpus > 0 && *n > cpus;
  }
  auto bootstrap = std::make_unique<PmiBootstrap>(*env, oversubscribed);
  Status st = port_mode ? bootstrap->identify(env->pmi_id) : Status::ok();
  if (st.is_ok()) st = bootstrap->start();
  if (!st.is_ok()) return st;
  GASKET_DEBUG("bootstrap: PMI-1 kvs %s, rank %d of %d%s", bootstrap->job_id().c_str(), bootstrap->rank(),
               bootstrap->size(),
               oversubscribed ? ", oversubscribed" : "");
  return std::unique_ptr<Bootstrap>(std::move(bootstrap));
}

}  // namespace gasket::bootstrap::detail
