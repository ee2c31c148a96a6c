// Links to processes of other jobs: the late peers of MPI dynamic processes (MPI_Comm_spawn,
// MPI_Comm_accept/connect, MPI_Comm_join). Such a process arrives after this job's init, has its
// own segments and its own job, and is not part of the job's PE numbering: it gets a PE number
// from n_pes() on, local to this process, and is reached through one TCP stream per pair of
// processes carrying active messages (handler id + payload), ordered per peer.
//
// Every process listens (from the first use on) on 127.0.0.1 at a port of its own; its address
// "host:port" is its identity. A process connects to each peer it adds and writes only on that
// connection (so either side may speak first and each direction keeps its order); it reads only
// on the connections its peers made. The first frame of a connection is HELLO with the secret of
// the peer's job (learnt with its address: from a port name, a group exchange or the peer's own
// HELLO), the connecting process's address, which names the peer, and its own job's secret, with
// which the peer connects back. Jobs of separate launches (different secrets) can so meet. Sends never block: the bytes are copied into the queue
// and written as the socket takes them, by progress(), which also reads and dispatches.
#pragma once

#include <poll.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/am/message_layer.h"
#include "core/base/status.h"

namespace gasket::core::am {

class StreamLinks {
 public:
  // Late peers get PE numbers from `first_pe` (the job's n_pes) on.
  StreamLinks(std::string secret, int first_pe);
  ~StreamLinks();
  StreamLinks(const StreamLinks&) = delete;
  StreamLinks& operator=(const StreamLinks&) = delete;

  // This process's address; starts listening on first use.
  Result<std::string> address();
  // The PE number of the process listening at `address`, whose job's secret is `secret`: the one
  // already known, or a new one (connecting now when this process is the one that connects).
  Result<int> add_peer(const std::string& address, const std::string& secret);
  bool is_peer(int pe) const { return pe >= first_pe_; }
  // Whether `pe` is a late peer added here (a link, standing or lost, exists for it).
  bool knows(int pe) const;
  void register_handler(HandlerId id, Handler handler);
  // Whether another job's process may send here (a listener is open or a link exists): such
  // traffic rings no doorbell, so waiters sleep in poll() on the links instead of the doorbell's
  // futex (core's waiting policy).
  bool in_use() const { return in_use_.load(std::memory_order_relaxed); }
  // For a waiter about to sleep in poll(): appends the listener, every link's incoming socket and
  // each outgoing one with bytes left to write; false while a dispatch is under way (messages
  // read but not yet handled: do not sleep).
  bool prepare_sleep(std::vector<pollfd>* fds) const;
  // Queues `payload` for handler `id` at late peer `pe`; fails when its link was lost.
  Status send(int pe, HandlerId id, const void* payload, size_t len);
  // Why the link to late peer `pe` was lost (the peer ended or broke it); "" while it stands.
  std::string lost_reason(int pe) const;
  // Writes what the sockets take, accepts and reads links, runs the handlers of whole messages.
  void progress();
  // Blocks until every queued byte is written to its link (finalize: nothing is left behind).
  void drain();

 private:
  struct Link;
  Link& link_of(int pe);
  Status connect_link(Link& link);
  void accept_links();
  // False when the link must be closed (error text in *why).
  bool read_link(Link& link, std::string* why);
  bool write_link(Link& link, std::string* why);
  void close_link(Link& link, const std::string& why);

  const std::string secret_;
  const int first_pe_;
  mutable std::mutex mutex_;
  int listen_fd_ = -1;
  std::string address_;
  std::vector<std::unique_ptr<Link>> links_;  // by PE - first_pe_
  std::map<std::string, int> pe_of_address_;
  std::vector<std::unique_ptr<Link>> unnamed_;  // accepted, HELLO not read yet
  std::vector<Handler> handlers_ = std::vector<Handler>(kMaxHandlers);
  std::atomic<bool> dispatching_{false};
  std::atomic<bool> in_use_{false};  // listening or linked: traffic may arrive (no nap then)
};

}  // namespace gasket::core::am
