// The launcher's side of the bootstrap key-value store (protocol: core/bootstrap/store_protocol.h).
// Single-threaded and non-blocking: the job's poll loop asks for the store's descriptors and hands
// back the ready ones. Answers that must wait (GET of a key not yet put, FENCE until every PE has
// fenced) are kept and sent when they can be, never polled for.
#pragma once

#include <poll.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/base/status.h"
#include "core/bootstrap/name_table.h"
#include "core/bootstrap/store_protocol.h"

namespace gasket::launcher {

// What the store reports to the job.
class StoreObserver {
 public:
  virtual ~StoreObserver() = default;
  virtual void on_pe_connected(int rank) = 0;
  virtual void on_pe_finalized(int rank) = 0;
  virtual void on_pe_abort(int rank, int code, const std::string& message) = 0;
  // A PE asks for a new job (MPI_Comm_spawn); an error is sent back to it as the reason.
  virtual Status on_spawn(int rank, const bootstrap::SpawnRequest& request) = 0;
  // A line for the user (a dropped connection, a malformed message); not prefixed.
  virtual void on_store_notice(const std::string& line) = 0;
};

class StoreServer {
 public:
  using Clock = std::chrono::steady_clock;
  // An unauthenticated connection is dropped after this long without a valid HELLO.
  static constexpr std::chrono::seconds kHelloTimeout{10};

  StoreServer(int num_pes, std::string secret, StoreObserver* observer);
  ~StoreServer();
  StoreServer(const StoreServer&) = delete;
  StoreServer& operator=(const StoreServer&) = delete;

  // Listens on "host" (any free port) or "host:port" / "[v6]:port".
  [[nodiscard]] Status listen(const std::string& address);
  // host:port to hand to the PEs (GASKET_JOB_STORE).
  const std::string& address() const { return address_; }

  // Appends the descriptors to poll (listener and connections, POLLOUT where output is queued).
  void collect_poll_fds(std::vector<struct pollfd>* fds) const;
  // Handles one ready descriptor from collect_poll_fds.
  void handle_ready(const struct pollfd& ready);
  // Drops connections that did not authenticate in time; returns milliseconds until the next
  // such deadline, or -1 when there is none.
  int expire(Clock::time_point now);
  // Closes the listener and every connection.
  void close_all();

 private:
  struct Connection {
    int fd = -1;
    std::string peer;  // "127.0.0.1:54321", for messages
    int rank = -1;     // -1 until authenticated
    bool name_client = false;  // authenticated with HELLO(pe = -1): name service only
    Clock::time_point accepted;
    bootstrap::protocol::FrameReader reader{bootstrap::protocol::kMaxHelloPayload};
    std::string out;       // encoded frames not yet sent
    size_t out_sent = 0;
    bool close_after_flush = false;
    bool dead = false;
  };
  using Key = std::pair<int, std::string>;  // (PE that put it, key)

  void accept_connections();
  void read_from(Connection* c);
  void handle_message(Connection* c, bootstrap::protocol::Message m);
  void handle_hello(Connection* c, const bootstrap::protocol::Message& m);
  void handle_fence(Connection* c);
  void handle_get(Connection* c, const bootstrap::protocol::Message& m);
  void handle_finalize(Connection* c);
  // SERVICE: spawn (from a PE), publish / lookup / unpublish (from a PE or a name client).
  void handle_service(Connection* c, const bootstrap::protocol::Message& m);
  void send(Connection* c, const bootstrap::protocol::Message& m);
  void send_to_rank(int rank, const bootstrap::protocol::Message& m);
  void send_error(Connection* c, const std::string& text);
  void flush(Connection* c);
  void drop(Connection* c, const std::string& why);
  void sweep();
  std::string who(const Connection* c) const;

  const int num_pes_;
  const std::string secret_;
  StoreObserver* const observer_;
  int listen_fd_ = -1;
  std::string address_;
  std::map<int, std::unique_ptr<Connection>> connections_;  // by fd
  std::vector<int> rank_fd_;          // connection of each PE, -1 when none
  std::vector<bool> ever_connected_;  // a PE may say HELLO once per job
  std::vector<bool> finalized_;
  std::vector<bool> fenced_;  // in the current fence
  int fence_count_ = 0;
  std::map<Key, std::string> values_;
  std::map<Key, std::vector<int>> waiting_gets_;  // key -> PEs waiting for it
  bootstrap::NameTable names_;  // MPI_Publish_name's: the user's name directory (name_table.h)
};

}  // namespace gasket::launcher
