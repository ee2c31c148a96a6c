// The two-sided engine: matching (posted and unexpected queues, non-overtaking per source and
// communicator), the eager and rendezvous protocols, and progress.
//
// Channels: a same-node peer is reached through ShmRings; every other peer through the core's
// active messages (handler kMpiHandler: mailbox rings with credits on pciddc, native AM on ucx).
// Both carry the same packets (wire.h), in order per source.
//
// Protocols (ARCHITECTURE.md "MPI two-sided = rendezvous over puts"):
//  - eager (message <= the channel's eager limit): one packet with the data; a synchronous send
//    is completed by the receiver's SYNC_ACK when it matches.
//  - rendezvous: RTS (envelope, size, where the data is). The matching receiver either
//      pulls: same node, the sender's buffer readable here (its mapped segment, or
//             process_vm_readv) -> one copy, then FIN; or
//      asks for puts: CTS with a destination from register_destination() — the receive buffer
//             itself when it lies in a segment (zero copy), else a bounce zone claimed from the
//             receiver's pool, in two pipelined halves — the sender puts each range (the core
//             fragments to the backend's limit), quiets, and sends DATA.
//    Unexpected large messages wait as RTS packets, never as data. Unexpected eager data is
//    bounded by a sender-side budget: a sender has at most unexpected_limit / n_pes eager bytes
//    (data + header) outstanding to each receiver; the receiver returns CREDIT as it consumes
//    them (matched on arrival or later); beyond the budget a message goes by rendezvous (same
//    channel, so the order per source is kept and nothing ever waits for credit).
// Thread safety: none here; the MPI context serialises calls (one lock under THREAD_MULTIPLE).
#pragma once

#include <sys/uio.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <list>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "mpi/base/error.h"
#include "mpi/p2p/request.h"
#include "mpi/p2p/shm_rings.h"
#include "mpi/p2p/wire.h"

namespace gasket::mpi::p2p {

struct EngineOptions {
  size_t eager_limit = 16 << 10;      // backend path
  size_t shm_eager_limit = 32 << 10;  // same-node rings
  size_t shm_slots = 16;
  size_t shm_hot = 16 << 10;          // the rings' hot area (shm_rings.h); 0: none
  size_t rndv_bounce = 256 << 10;     // one bounce zone
  size_t rndv_zones = 4;              // bounce zones per PE, shared by all its senders
  bool single_copy = true;            // same-node pull allowed
  size_t unexpected_limit = 64 << 20; // eager bytes buffered at a receiver from all senders
};

// A message that arrived before its receive (or was taken by MPI_Mprobe).
struct Unexpected {
  int src_pe = 0;
  uint32_t context = 0;
  int src_rank = 0;
  int tag = 0;
  bool rendezvous = false;
  bool sync = false;
  uint64_t sreq = 0;
  int64_t size = 0;  // message bytes
  RtsBody rts{};
  std::vector<char> data;  // eager data; rendezvous: the send buffer's memreg descriptor, if any
};

// A blocking receive into contiguous memory, posted without a request (Engine::begin_direct):
// eager data is copied straight into the user's buffer; a message that needs the protocol
// (rendezvous) gets a request then, which the caller waits for and concludes as usual.
struct DirectReceive : Transfer {
  // Outcome: done (eager, status below), or `request` took over.
  bool done = false;
  Request* request = nullptr;
  int status_source = 0, status_tag = 0, status_error = MPI_SUCCESS;
  int64_t status_bytes = 0, message_bytes = 0;
};

// Matching probe result (MPI_Iprobe/MPI_Improbe).
struct ProbeResult {
  bool found = false;
  int source = 0, tag = 0;
  int64_t bytes = 0;
};

class Engine {
 public:
  // Collective over all PEs (symmetric allocation of the ring/zone region, pid exchange).
  static Result<std::unique_ptr<Engine>> create(const EngineOptions& options);
  ~Engine();
  // Collective: frees the region.
  void shutdown();

  RequestPool& requests() { return pool_; }

  // Starts a send / receive described by the request's operation fields (buf, count, type,
  // comm, context, peer, tag, my_rank, mode); completion is reported through `complete`.
  // Inline: a small send to a same-node peer is written into the ring at once (send_now_eager).
  [[gnu::always_inline]] void start_send(Request* r) {
    if (!send_now_eager(r)) start_send_protocol(r);
  }
  void start_recv(Request* r);
  // Receive of a message taken by mprobe.
  void start_matched_recv(Request* r, std::unique_ptr<Unexpected> msg);
  // Starts a request of kind kOperation (r->operation set): polled by progress() until done.
  void start_operation(Request* r);
  // Blocking calls' shortcuts, without a request.
  // Sends contiguous data eager at once when the channel takes it now (within the eager limit
  // and the receiver's budget, nothing queued ahead, room in the ring); false: nothing was sent.
  bool send_now(int pe, uint32_t context, int src_rank, int tag, const void* data, size_t bytes);
  // Posts `d` (contiguous type) when nothing is posted before it, no other direct receive is
  // active and no unexpected message matches it; false: use a request. The caller progresses
  // until d->done or d->request is set (the engine forgets `d` then).
  bool begin_direct(DirectReceive* d);
  // MPI_Cancel of a send: asks the receiver to drop the message if it has not matched it yet;
  // the request completes with the answer (cancelled, or sent as usual). False: nothing to ask
  // (a rendezvous already done, an inactive request, a cancel already asked).
  bool cancel_send(Request* r);
  // Removes a posted, unmatched receive; false when it has already matched.
  bool cancel_recv(Request* r);

  ProbeResult iprobe(uint32_t context, int source, int tag);
  // Like iprobe, and removes the message for a later matched receive.
  std::unique_ptr<Unexpected> improbe(uint32_t context, int source, int tag, ProbeResult* result);

  void progress();
  // A request completed with no pending protocol state (user_owned false -> released).
  void finish(Request* r);

  // Gives a buffered send's block back to the attached buffer (set by the MPI context).
  std::function<void(char*)> bsend_release;

  // A process of another job (MPI dynamic processes) joins: `pe` is its core PE number (from
  // n_pes() on, core::Runtime::late_peers()). Every packet to it is eager over its stream link
  // (up to kLateEagerLimit bytes; links carry no rendezvous).
  void reach_late_peer(int pe);
  static constexpr size_t kLateEagerLimit = (size_t{1} << 30) - 4096;

  // Statistics for debug output.
  std::string describe() const;

  // For the tools interface (mpi/tools): the counters, and the eager limits, which may change at
  // run time up to what the rings and active messages were sized for at init (false beyond).
  struct Counters {
    uint64_t eager_received, rndv_pull, rndv_get, rndv_scattered, rndv_split, rndv_put, rndv_bounce, over_budget;
    uint64_t posted_receives, unexpected_messages, unexpected_bytes;
  };
  Counters counters() const;
  size_t eager_limit_of(bool same_node) const { return same_node ? shm_eager_ : am_eager_; }
  size_t eager_limit_max(bool same_node) const { return same_node ? shm_eager_max_ : am_eager_max_; }
  bool set_eager_limit(bool same_node, size_t bytes);

 private:
  explicit Engine(const EngineOptions& options);
  Status init();

  struct PendingPacket {
    Header header;
    std::vector<char> body;
    const char* data;
    size_t data_len;
    Request* complete_on_send;  // an eager send completes when its packet is out
  };

  // Channel.
  bool late(int pe) const { return pe >= n_pes_; }
  bool shm(int pe) const { return !late(pe) && rings_ && rings_->reaches(pe); }
  size_t eager_limit(int pe) const { return late(pe) ? kLateEagerLimit : shm(pe) ? shm_eager_ : am_eager_; }
  // A receiver's budget of unexpected eager bytes from this sender (unbounded across jobs).
  size_t eager_budget(int pe) const { return late(pe) ? SIZE_MAX / 2 : eager_budget_; }
  // Sends (or queues behind earlier packets while the channel — the ring, or the active
  // messages' credit — is full: never waits for the receiver). True when sent now.
  bool send_packet(int pe, Header h, const void* body, size_t body_len, const void* data, size_t data_len,
                   Request* complete_on_send);
  // One packet into the channel of `pe` (not a late peer) if it takes it now; false: not sent.
  bool try_channel(int pe, Header h, const void* body, size_t body_len, const void* data, size_t data_len);
  void send_control(int pe, Kind kind, const void* body, size_t body_len);
  void drain_pending(int pe);
  // Sizes every per-peer table (pending packets, credit, sequences, zones) for PEs [0, n): from
  // init() for the launched job, from reach_late_peer() as processes of other jobs join.
  void grow_peer_tables(size_t n);
  void on_active_message(int src, const void* payload, size_t len);
  // An eager packet's sender request id (0 when it has none), data and data bytes.
  static void eager_payload(const Header& h, const char* payload, uint64_t* sreq, const char** data, size_t* len);
  void handle_packet(int src, const Header& h, const char* payload);

  // Matching. The receiver's steps for an eager packet (match_posted, deliver_eager,
  // accept_eager, complete_recv) are inline in engine.cc: in the machine's fast state the
  // streaming receiver bounds the rate (mpi/p2p/README.md, "Measured: who bounds small-message
  // streaming").
  [[gnu::always_inline]] Request* match_posted(uint32_t context, int src_rank, int tag);
  bool direct_matches(const Header& h) const;
  Request* direct_request();  // the direct receive's request, for a message that needs one
  // start_recv's lean path when nothing is posted before `r` and no direct receive waits: the
  // eager message at the head of the source's ring, if it matches.
  bool take_from_ring(Request* r);
  std::list<Unexpected>::iterator match_unexpected(uint32_t context, int source, int tag);
  void deliver(Request* r, Unexpected& msg, int src_pe);
  [[gnu::always_inline]] void deliver_eager(Request* r, int src_pe, const Header& h, const char* data, size_t len,
                                           uint64_t sreq);
  // Answers a synchronous sender; the bytes of a `len`-byte eager message a receive of
  // `capacity` bytes takes.
  [[gnu::always_inline]] size_t accept_eager(int src_pe, const Header& h, uint64_t sreq, size_t len, int64_t capacity);

  // start_send's common case, complete when it returns true: a standard or ready send of
  // contiguous data within the same-node eager limit, to a peer on this node with nothing queued
  // before it, within the receiver's budget and with room in the ring (one copy into it, no call
  // out of line for a one-line packet). False: nothing was done (start_send_protocol does it).
  [[gnu::always_inline]] bool send_now_eager(Request* r) {
    int pe = r->peer_pe;
    const datatype::Datatype& type = *r->type;
    int64_t bytes = r->count * type.size;
    if ((r->mode != SendMode::kStandard && r->mode != SendMode::kReady) || !r->user_owned || !shm(pe) ||
        static_cast<size_t>(bytes) > shm_eager_ || !type.contiguous() || !pending_[static_cast<size_t>(pe)].empty()) {
      return false;
    }
    size_t cost = static_cast<size_t>(bytes) + sizeof(Header);
    size_t& outstanding = eager_outstanding_[static_cast<size_t>(pe)];
    if (outstanding + cost > eager_budget_) return false;
    r->serial = send_serial_ + 1;
    Header h{};
    h.kind = static_cast<uint8_t>(Kind::kEager);
    h.flags = kFlagId;
    h.tag = r->tag;
    h.context = r->context;
    h.src_rank = r->my_rank;
    h.len = static_cast<uint32_t>(sizeof(uint64_t) + bytes);
    uint64_t id = wire_id(r);
    const char* data = static_cast<const char*>(r->buf) + type.true_lb;
    if (!rings_->try_send(pe, h, &id, sizeof id, data, static_cast<size_t>(bytes))) return false;
    ++send_serial_;
    outstanding += cost;
    r->send_data = data;
    r->send_bytes = bytes;
    r->eager = true;
    r->send_done = true;
    r->cancel_pending = false;
    r->active = true;
    r->complete = true;
    return true;
  }
  // Every other send: eager through send_packet (queued behind a full ring), synchronous,
  // buffered's inner request, non-contiguous, or rendezvous.
  void start_send_protocol(Request* r);

  // Rendezvous.
  void rndv_receive(Request* r, int src_pe, const RtsBody& rts, std::string_view descriptor);
  // Same node: copies the sender's data here (its mapped segment, or the kernel's single copy).
  bool pull(int src_pe, const RtsBody& rts, char* dst, int64_t bytes);
  // ... straight into the blocks of a non-contiguous receive (no staging) where the layout allows.
  bool pull_scattered(int src_pe, const RtsBody& rts, Request* r);
  // ... gathering the sender's unpacked blocks (its RTS layout) into the receive buffer.
  bool gather(int src_pe, std::string_view layout, Request* r);
  // The sender's data mapped here (this PE, or its segment), or null.
  const char* mapped_source(int src_pe, const RtsBody& rts) const;
  // process_vm_readv (or writev: `write`) of `total` bytes at `remote` in `pe` from/into `local`;
  // false when the kernel refuses (then never tried again).
  bool cma_copy(bool write, int pe, iovec* local, size_t n, iovec* remote, size_t m, size_t total);
  // Sender, same node, non-contiguous rendezvous: the blocks of the data for the receiver to
  // gather (no packing); empty when packing is the better choice (tiny or too many blocks).
  std::vector<LayoutBlock> send_layout(const Request* r, int pe) const;
  // The packed copy of a non-contiguous send, made when the protocol needs contiguous data.
  const char* packed_send_data(Request* r);
  // Same node, large: the receiver reads the first half while the sender, asked by PUSH, writes
  // the second (two cores copy); FIN after the receiver's half, DATA after the sender's.
  void split_pull(Request* r, int src_pe, const RtsBody& rts);
  void on_push(int src, const PushBody& p);
  // Backend path with remote read: gets the sender's data when its buffer is remotely readable
  // (in a segment, or exposed through core/memreg with `descriptor`).
  bool get_from_sender(int src_pe, const RtsBody& rts, std::string_view descriptor, char* dst, int64_t bytes);
  // Sender: exposes a rendezvous send buffer through core/memreg for the receiver's get, where
  // that is one-sided (the backend reads and registers user memory); false: it stays unexposed.
  bool expose_for_get(Request* r, int pe);
  // Inline: the common request (eager, never exposed) only checks.
  void release_exposure(Request* r, const char* call) {
    if (r->exposure.id != 0) release_exposed(r, call);
  }
  void release_exposed(Request* r, const char* call);
  struct Destination {
    bool in_segment = false;  // (segment, offset) in a segment every peer can address
    uint32_t segment = 0;
    uint64_t offset = 0;
    bool exposed = false;     // else: exposed through core/memreg (descriptor in r->exposure)
  };
  // Where PE `src` may put `bytes` bytes for `dst` of request `r`: a segment, or core/memreg's
  // registration of the user buffer where the backend registers user memory (ucx: zero copy);
  // neither: the caller uses the bounce zone.
  Destination register_destination(Request* r, int src, char* dst, int64_t bytes);
  void grant_bounce(Request* r);
  void on_cts(int src, const CtsBody& cts, const char* descriptor);
  void on_data(int src, const DataBody& d);
  [[gnu::always_inline]] void complete_recv(Request* r);
  void complete_send(Request* r);
  void on_cancel(int src, uint64_t sreq);
  // Send requests on the wire (wire.h): the id of `r`, and the request behind an id from `src`.
  static uint64_t wire_id(const Request* r) { return static_cast<uint64_t>(r->serial) << 32 | static_cast<uint32_t>(r->handle); }
  Request* sent_request(int src, uint64_t id, const char* what);
  uint32_t send_serial_ = 0;

  EngineOptions options_;
  RequestPool pool_;
  int my_pe_ = 0, n_pes_ = 1;
  char* region_ = nullptr;  // symmetric: the rings
  char* zones_ = nullptr;   // symmetric: [bounce zones][pids]
  size_t n_zones_ = 0;
  size_t rings_bytes_ = 0;
  std::unique_ptr<ShmRings> rings_;
  std::vector<int> shm_peers_;
  size_t shm_eager_ = 0, am_eager_ = 0;
  size_t shm_eager_max_ = 0, am_eager_max_ = 0;  // as sized at init
  bool any_backend_peer_ = false;
  bool any_late_peer_ = false;  // packets arrive through the inbox from stream links too
  // The backend reads remote memory (ucx): the receiver of a rendezvous over it gets the data
  // where the sender's buffer is remotely readable (else: CTS and puts, e.g. pciddc). Set once.
  bool remote_get_ = false;
  bool expose_sends_ = false;  // ... and registers user memory: senders expose their buffers
  unsigned progress_calls_ = 0;
  bool cma_ok_ = true;
  bool cma_proven_ = false;  // a kernel copy has worked (split pulls rely on it)
  size_t split_pull_ = 0;    // GASKET_MPI_SPLIT_PULL
  std::vector<int32_t> pids_;

  // Per target, behind a full channel (in order). A list: an empty one allocates nothing (an
  // empty std::deque takes ~600 bytes), and every PE of the job has one.
  std::vector<std::list<PendingPacket>> pending_;
  std::vector<int> pending_targets_;

  // Eager budget (see the top): bytes this PE may have outstanding to each receiver, those
  // outstanding per receiver, and those consumed here per sender but not yet credited back.
  size_t eager_budget_ = 0;
  std::vector<size_t> eager_outstanding_, eager_consumed_;
  // Credit goes back in batches of a quarter budget (fewer packets; the sender may meanwhile see
  // up to that much less room, and then uses the rendezvous). Inline: every eager message.
  void eager_consumed(int src_pe, size_t len) {
    size_t& c = eager_consumed_[static_cast<size_t>(src_pe)];
    c += len + sizeof(Header);
    if (c >= std::max<size_t>(eager_budget_ / 4, 1)) send_credit(src_pe);
  }
  void send_credit(int src_pe);

  // Active messages: arrive on any thread into the inbox; drained in order per source.
  std::mutex inbox_mutex_;
  std::deque<std::pair<int, std::vector<char>>> inbox_;
  std::vector<uint32_t> am_sent_seq_, am_expected_seq_;
  std::vector<std::map<uint32_t, std::vector<char>>> am_early_;
  std::vector<char> am_out_;

  // Started kOperation requests, polled by progress().
  std::vector<Request*> operations_;
  bool progressing_operations_ = false;  // set while progress_operations runs (not re-entered)
  void progress_operations();

  DirectReceive* direct_ = nullptr;  // posted before everything in the posted queue
  Request* posted_head_ = nullptr;
  Request* posted_tail_ = nullptr;
  std::list<Unexpected> unexpected_;
  size_t unexpected_bytes_ = 0;
  // Queue nodes of messages already matched, kept with their data's capacity: an unexpected
  // message costs no allocation once the queue has been that long (kept only up to these bounds:
  // a burst, such as an all-to-all's messages from every peer, leaves at most 16 nodes behind).
  std::list<Unexpected> spare_unexpected_;
  static constexpr size_t kSpareUnexpected = 16;
  static constexpr size_t kSpareUnexpectedData = 4096;
  // A reset entry at the end of the unexpected queue (a spare node when there is one).
  Unexpected& queue_unexpected();
  // Removes `it` from the unexpected queue (into the spares).
  void drop_unexpected(std::list<Unexpected>::iterator it);

  // Bounce zones (receiver side): a pool shared by every sender, a zone claimed per transfer and
  // freed at its completion; the request holding each zone, and those waiting for one (in order).
  std::vector<Request*> zone_owner_;
  Request* zone_wait_head_ = nullptr;
  Request* zone_wait_tail_ = nullptr;
  // Gives `r` a free zone and grants its first ranges; false (nothing changed) when none is free.
  bool claim_zone(Request* r);

  uint64_t stat_eager_ = 0, stat_rndv_pull_ = 0, stat_rndv_get_ = 0, stat_rndv_scattered_ = 0, stat_rndv_split_ = 0, stat_rndv_put_ = 0, stat_rndv_bounce_ = 0, stat_over_budget_ = 0;
};

}  // namespace gasket::mpi::p2p
