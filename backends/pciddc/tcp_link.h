// The tcp link of the PCI-DDC model: one TCP connection per pair of PEs, opened by whichever PE
// writes first (when both do at once, the one opened by the lower-numbered PE is kept), carrying
// the LME entries of writes as frames (wire.h). The receiving side authenticates the connection
// with the per-job secret and checks every header against its own segment windows before one
// byte lands; a bad header fails service() with a message (the backend then ends the job), a bad
// hello merely closes that socket (a stranger cannot end the job). Delivery per pair is FIFO.
//
// Thread safety: every method takes the link's mutex; service() skips when another thread is
// inside the link. Sends never block the whole job: while a socket is full, incoming frames keep
// being received (so two PEs writing large messages to each other both make progress).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/pciddc/link.h"
#include "backends/pciddc/send_list.h"
#include "backends/pciddc/wire.h"
#include "core/base/status.h"

namespace gasket::backend::pciddc {

// A peer's listening socket, and the local address to bind before connecting to it ("" = any).
struct PeerAddress {
  std::string host;
  std::string port;
  std::string bind_address;
};

class TcpLink final : public Link {
 public:
  struct Options {
    int my_pe = 0;
    int n_pes = 1;
    std::string secret;
    // Where a peer listens and which local address to connect from (from the bootstrap, chosen
    // by subnet: backends/netif), asked once on first use; fails naming an unreachable peer.
    std::function<Result<PeerAddress>(int pe)> peer_address;
    // A notifying write (nr) from `src_pe` has landed; called with the link's lock held.
    std::function<void(int src_pe, uint32_t id)> notify;
  };

  // Listens on an ephemeral port of every interface.
  static Result<std::unique_ptr<TcpLink>> create(Options options);
  ~TcpLink();
  TcpLink(const TcpLink&) = delete;
  TcpLink& operator=(const TcpLink&) = delete;

  uint16_t port() const { return port_; }

  Status register_segment(SegmentId id, void* base, size_t size) override;
  Status deregister_segment(SegmentId id) override;

  // Sends one LME entry (connecting on first use); `e.src` is reusable on return.
  Status write(const SendEntry& e) override;
  // Returns when every frame sent so far has landed at its target: a flush round trip only to the
  // peers whose frames since then have not acknowledged them all (wire::FrameHeader::landed).
  Status quiet() override;
  // Accepts connections and receives frames without blocking. With wait_if_busy false, returns
  // at once when another thread is inside the link.
  Status service(bool wait_if_busy);
  Status service() override { return service(false); }
  // The listening socket and every connection; false while another thread is inside the link or
  // bytes already read wait in a staging buffer.
  bool prepare_sleep(std::vector<pollfd>* fds) override;

  // Connections refused for a bad hello (wrong secret, ...), and the last reason.
  size_t rejected() const;
  std::string last_rejection() const;
  std::string describe() const override;

 private:
  struct Connection;
  explicit TcpLink(Options options);

  Status connect_locked(int pe);
  Status send_frame_locked(Connection& c, wire::FrameHeader h, const void* payload);
  // Sends a flush acknowledgement where a request is not yet answered by a frame sent since.
  Status send_owed_ack_locked(Connection& c);
  // Receives from every socket (and accepts); `timeout_ms` > 0 waits for input that long. With
  // `send_acks` (never inside a blocked send) it then answers the flush requests of every peer.
  Status receive_locked(int timeout_ms, bool send_acks);
  Status receive_from_locked(Connection& c);
  Status finish_hello_locked(Connection& c);
  void reject_locked(Connection& c, const std::string& why);
  void close_locked(Connection& c);
  // Reads from `c` through the staging buffer (tcp_link.cc).
  ssize_t take_locked(Connection& c, void* dst, size_t want);
  // Whether bytes read from `c` wait unconsumed (moved aside, or in the staging buffer).
  bool staged_locked(const Connection& c) const;
  wire::FrameHeader header_for(const SendEntry& e) const;

  Options options_;
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Connection>> connections_;  // every socket, pending ones too
  std::vector<Connection*> open_;                         // per PE: the pair's connection
  wire::SegmentWindows windows_;
  size_t rejected_ = 0;
  std::string last_rejection_;
  uint64_t frames_sent_ = 0, frames_received_ = 0;
  uint64_t flush_requests_ = 0;  // quiet()'s round trips (the others were acknowledged by traffic)
  int receive_depth_ = 0;
  // One staging buffer for the whole link (not one per connection): [staged_begin_, staged_end_)
  // read from `staged_for_` and not yet consumed. A connection's leftover moves into its own
  // `aside` bytes when another connection needs the buffer.
  std::unique_ptr<char[]> staging_;
  size_t staged_begin_ = 0, staged_end_ = 0;
  Connection* staged_for_ = nullptr;
  uint64_t moved_aside_ = 0;  // times a connection's staged bytes moved aside (describe())
};

}  // namespace gasket::backend::pciddc
