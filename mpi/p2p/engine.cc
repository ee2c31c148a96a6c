#include "mpi/p2p/engine.h"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "core/base/log.h"
#include "core/gasket.h"
#include "core/runtime.h"

namespace gasket::mpi::p2p {

namespace {
constexpr core::am::HandlerId kMpiHandler = core::am::kFirstClientHandler;
// Same-node pull into a non-contiguous receive buffer: iovecs per block when the blocks average
// at least this many bytes (else one copy into staging + unpacking is cheaper), in calls of at
// most IOV_MAX local iovecs.
constexpr int64_t kMinScatteredBlock = 256;
constexpr size_t kIovecBatch = 1024;
constexpr size_t kPidBytes = 4;

size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

// A packet's body (payloads need not be aligned).
template <typename Body>
Body body_of(const char* payload) {
  Body b;
  std::memcpy(&b, payload, sizeof b);
  return b;
}

bool matches(int want_rank, int want_tag, int src_rank, int tag) {
  return (want_rank == MPI_ANY_SOURCE || want_rank == src_rank) && (want_tag == MPI_ANY_TAG || want_tag == tag);
}
}  // namespace

Engine::Engine(const EngineOptions& options) : options_(options) {}

Engine::~Engine() = default;

Result<std::unique_ptr<Engine>> Engine::create(const EngineOptions& options) {
  std::unique_ptr<Engine> e(new Engine(options));
  Status st = e->init();
  if (!st.is_ok()) return st;
  return e;
}

Status Engine::init() {
  my_pe_ = gasket::my_pe();
  n_pes_ = gasket::n_pes();
  core::Runtime* rt = core::Runtime::get();
  size_t n = static_cast<size_t>(n_pes_);
  // Same-node rings: room for shm_slots of the largest packet (the header, a rendezvous body and
  // the largest eager message); smaller packets take only their own lines.
  size_t max_packet = round_up(sizeof(Header) + sizeof(RtsBody) + options_.shm_eager_limit, ShmRings::kLine);
  // Rings for the PEs of the largest node only: PEs of other nodes never write them.
  std::vector<int> node_of_pe(n);
  for (int pe = 0; pe < n_pes_; ++pe) node_of_pe[static_cast<size_t>(pe)] = rt->node_of(pe);
  int node_pes = 1;
  std::vector<uint32_t> node_slot = ShmRings::node_slots(node_of_pe, &node_pes);
  rings_bytes_ = round_up(ShmRings::region_bytes(node_pes, options_.shm_slots, max_packet), 4096);
  // Rendezvous bounce zones: a pool shared by all senders, as many as asked but no more than the
  // other PEs (the same figure on every PE: a symmetric allocation), not one per PE of the job.
  n_zones_ = std::max<size_t>(1, std::min(options_.rndv_zones, n - 1));
  size_t zones = n_zones_ * options_.rndv_bounce;
  zone_owner_.assign(n_zones_, nullptr);
  // Two blocks: the rings start zeroed (their flag words; sym_calloc gives a large block's pages
  // back instead of writing them where it can). The rendezvous zones and the pids are written
  // before they are read, so they are not cleared: they take memory only once used (where the
  // heap cannot give pages back, ucx, clearing them would make them resident at MPI_Init).
  region_ = static_cast<char*>(gasket::sym_calloc(1, rings_bytes_, "MPI_Init"));
  zones_ = static_cast<char*>(gasket::sym_malloc(zones + round_up(n * kPidBytes, 64), "MPI_Init"));
  if (region_ == nullptr || zones_ == nullptr) {
    return Status(StatusCode::kOutOfMemory,
                  "MPI_Init: the symmetric heap has no room for the " + std::to_string(rings_bytes_) +
                      " bytes of MPI rings and the " + std::to_string(zones) +
                      " bytes of rendezvous zones (raise GASKET_HEAP_SIZE, or lower "
                      "GASKET_MPI_SHM_EAGER_LIMIT / GASKET_MPI_SHM_SLOTS / GASKET_MPI_RNDV_BOUNCE / "
                      "GASKET_MPI_RNDV_ZONES)");
  }
  std::vector<char*> peers(n, nullptr);
  for (int pe = 0; pe < n_pes_; ++pe) {
    peers[static_cast<size_t>(pe)] = static_cast<char*>(gasket::peer_pointer(region_, pe));
    if (peers[static_cast<size_t>(pe)] != nullptr) {
      shm_peers_.push_back(pe);
    } else {
      any_backend_peer_ = true;
    }
  }
  rings_ = std::make_unique<ShmRings>(std::move(peers), std::move(node_slot), node_pes, my_pe_, options_.shm_slots,
                                      max_packet, options_.shm_hot);
  shm_eager_ = shm_eager_max_ = options_.shm_eager_limit;
  // Active messages exist when some peer is reached through a backend (else the core starts none).
  if (core::am::MessageLayer* am = rt->messages()) {
    size_t am_room = am->max_payload() - sizeof(Header) - sizeof(FinBody);
    am_eager_ = am_eager_max_ = std::min(options_.eager_limit, am_room);
    am_out_.resize(am->max_payload());
    am->register_handler(kMpiHandler, [this](int src, const void* p, size_t len) { on_active_message(src, p, len); });
  } else if (any_backend_peer_) {
    return Status(StatusCode::kInternal, "MPI_Init: peers are reached through a backend but the core has no active messages");
  }

  if (rt->backend() != nullptr && rt->backend()->remote_read() != nullptr && any_backend_peer_) {
    remote_get_ = true;
    expose_sends_ = rt->backend()->user_registration() != nullptr;
  }

  rt->late_peers().register_handler(kMpiHandler, [this](int src, const void* p, size_t len) { on_active_message(src, p, len); });

  // Read here rather than by the context with the other knobs: only the engine uses it.
  split_pull_ = rt->config().size(config::Knob::MPI_SPLIT_PULL);

  eager_budget_ = options_.unexpected_limit / n;
  grow_peer_tables(n);

  // The pids of this node's PEs, for same-node single copy by process_vm_readv. Written through
  // the mappings only: a put to every PE would open a backend endpoint to each remote one at init.
  auto* pid_table = reinterpret_cast<int32_t*>(zones_ + zones);
  int32_t pid = static_cast<int32_t>(getpid());
  pid_table[my_pe_] = pid;
  for (int pe : shm_peers_) gasket::put(&pid_table[my_pe_], &pid, sizeof pid, pe, "MPI_Init");
  gasket::barrier_all();
  pids_.assign(pid_table, pid_table + n);
  return Status::ok();
}

void Engine::shutdown() {
  gasket::barrier_all();
  if (core::am::MessageLayer* am = core::Runtime::get()->messages()) {
    am->register_handler(kMpiHandler, [](int src, const void*, size_t) {
      log::fatal("MPI: a message from PE %d arrived after MPI_Finalize", src);
    });
  }
  // Processes of other jobs may still return credit: nothing to do with it now.
  core::Runtime::get()->late_peers().register_handler(kMpiHandler, [](int, const void*, size_t) {});
  gasket::sym_free(zones_, "MPI_Finalize");
  gasket::sym_free(region_, "MPI_Finalize");
  region_ = zones_ = nullptr;
}

// ---- channels ----

bool Engine::send_packet(int pe, Header h, const void* body, size_t body_len, const void* data, size_t data_len,
                         Request* complete_on_send) {
  h.len = static_cast<uint32_t>(body_len + data_len);
  if (!late(pe)) {
    auto& q = pending_[static_cast<size_t>(pe)];
    if (q.empty() && try_channel(pe, h, body, body_len, data, data_len)) {
      if (complete_on_send != nullptr) complete_send(complete_on_send);
      return true;
    }
    PendingPacket p{h, std::vector<char>(static_cast<const char*>(body), static_cast<const char*>(body) + body_len),
                    static_cast<const char*>(data), data_len, complete_on_send};
    if (q.empty()) pending_targets_.push_back(pe);
    q.push_back(std::move(p));
    return false;
  }
  h.seq = am_sent_seq_[static_cast<size_t>(pe)]++;
  size_t len = sizeof h + body_len + data_len;
  {
    std::vector<char> packet(len);
    std::memcpy(packet.data(), &h, sizeof h);
    if (body_len > 0) std::memcpy(packet.data() + sizeof h, body, body_len);
    if (data_len > 0) std::memcpy(packet.data() + sizeof h + body_len, data, data_len);
    Status st = core::Runtime::get()->late_peers().send(pe, kMpiHandler, packet.data(), len);
    if (!st.is_ok()) log::fatal("MPI: sending a %zu-byte packet to PE %d of another job failed: %s", len, pe, st.message().c_str());
    if (complete_on_send != nullptr) complete_send(complete_on_send);
    return true;
  }
}

bool Engine::try_channel(int pe, Header h, const void* body, size_t body_len, const void* data, size_t data_len) {
  if (shm(pe)) return rings_->try_send(pe, h, body, body_len, data, data_len);
  h.seq = am_sent_seq_[static_cast<size_t>(pe)];
  size_t len = sizeof h + body_len + data_len;
  std::memcpy(am_out_.data(), &h, sizeof h);
  if (body_len > 0) std::memcpy(am_out_.data() + sizeof h, body, body_len);
  if (data_len > 0) std::memcpy(am_out_.data() + sizeof h + body_len, data, data_len);
  bool sent = false;
  Status st = core::Runtime::get()->messages()->try_send(pe, kMpiHandler, am_out_.data(), len, &sent);
  if (!st.is_ok()) log::fatal("MPI: sending a %zu-byte packet to PE %d failed: %s", len, pe, st.message().c_str());
  if (sent) ++am_sent_seq_[static_cast<size_t>(pe)];
  return sent;
}

// Every per-peer table covers PEs [0, n): new entries start empty (no credit used, sequence 0).
void Engine::grow_peer_tables(size_t n) {
  if (am_sent_seq_.size() >= n) return;
  pending_.resize(n);
  eager_outstanding_.resize(n, 0);
  eager_consumed_.resize(n, 0);
  am_sent_seq_.resize(n, 0);
  am_expected_seq_.resize(n, 0);
  am_early_.resize(n);
}

void Engine::reach_late_peer(int pe) {
  grow_peer_tables(static_cast<size_t>(pe) + 1);
  any_late_peer_ = true;
}

void Engine::send_control(int pe, Kind kind, const void* body, size_t body_len) {
  Header h{};
  h.kind = static_cast<uint8_t>(kind);
  send_packet(pe, h, body, body_len, nullptr, 0, nullptr);
}

void Engine::drain_pending(int pe) {
  auto& q = pending_[static_cast<size_t>(pe)];
  while (!q.empty()) {
    PendingPacket& p = q.front();
    if (!try_channel(pe, p.header, p.body.data(), p.body.size(), p.data, p.data_len)) return;
    Request* r = p.complete_on_send;
    q.pop_front();
    if (r != nullptr) complete_send(r);
  }
}

void Engine::on_active_message(int src, const void* payload, size_t len) {
  // Any thread (the core's progress thread too): only queue here.
  const char* p = static_cast<const char*>(payload);
  std::lock_guard<std::mutex> lock(inbox_mutex_);
  inbox_.emplace_back(src, std::vector<char>(p, p + len));
}

void Engine::progress() {
  for (size_t i = 0; i < pending_targets_.size();) {
    int pe = pending_targets_[i];
    drain_pending(pe);
    if (pending_[static_cast<size_t>(pe)].empty()) {
      pending_targets_[i] = pending_targets_.back();
      pending_targets_.pop_back();
    } else {
      ++i;
    }
  }
  // A blocking receive waiting here (begin_direct) stops the draining once it has its message:
  // the packets behind it stay in the rings, and a receive posted next copies its data straight
  // out of the ring instead of from the unexpected queue (a stream of blocking receives behind a
  // sender that runs ahead: one copy each, no queueing).
  const bool direct_waiting = direct_ != nullptr;
  bool any_packet = false;
  for (int src : shm_peers_) {
    while (const Header* h = rings_->peek(src)) {
      any_packet = true;
      Header copy = *h;
      handle_packet(src, copy, reinterpret_cast<const char*>(h) + sizeof(Header));
      rings_->consume(src);
      if (direct_waiting && direct_ == nullptr) break;
    }
    if (direct_waiting && direct_ == nullptr) break;
  }
  // Every ring empty: one pause before the caller polls again. A receiver polling the line a
  // sender is about to write takes it away from that sender on each poll; spaced by a pause
  // (~24 ns here) the sender keeps it for the whole packet. One pause, not more: two made the
  // ping-pong slower (mpi/p2p/README.md, "An empty poll pauses").
  if (!any_packet && !shm_peers_.empty()) __builtin_ia32_pause();
  // The core's progress serves the backend (and other users of the runtime, e.g. OpenSHMEM);
  // with no backend peer it is needed only now and then.
  if (any_backend_peer_ || any_late_peer_ || (++progress_calls_ & 255) == 0) gasket::progress();
  if (any_backend_peer_ || any_late_peer_) {
    std::deque<std::pair<int, std::vector<char>>> batch;
    {
      std::lock_guard<std::mutex> lock(inbox_mutex_);
      batch.swap(inbox_);
    }
    for (auto& [src, bytes] : batch) {
      if (bytes.size() < sizeof(Header)) log::fatal("MPI: a %zu-byte packet from PE %d has no header", bytes.size(), src);
      Header h;
      std::memcpy(&h, bytes.data(), sizeof h);
      size_t s = static_cast<size_t>(src);
      if (s >= am_expected_seq_.size()) reach_late_peer(src);  // it spoke first
      if (h.seq != am_expected_seq_[s]) {
        am_early_[s].emplace(h.seq, std::move(bytes));
        continue;
      }
      handle_packet(src, h, bytes.data() + sizeof h);
      ++am_expected_seq_[s];
      for (auto it = am_early_[s].find(am_expected_seq_[s]); it != am_early_[s].end();
           it = am_early_[s].find(am_expected_seq_[s])) {
        Header eh;
        std::memcpy(&eh, it->second.data(), sizeof eh);
        handle_packet(src, eh, it->second.data() + sizeof eh);
        am_early_[s].erase(it);
        ++am_expected_seq_[s];
      }
    }
  }
  if (!operations_.empty()) progress_operations();
}

void Engine::start_operation(Request* r) {
  r->active = true;
  r->complete = false;
  operations_.push_back(r);
}

void Engine::progress_operations() {
  // Not re-entered: a user reduction op that an operation applies may call MPI, and that call's
  // progress must not step the operation it runs inside of (which goes on when the op returns).
  if (progressing_operations_) return;
  progressing_operations_ = true;
  // By index: an operation may start others (they join the end of the list).
  for (size_t i = 0; i < operations_.size();) {
    Request* r = operations_[i];
    Error e;
    if (!r->operation->progress(&e)) {
      ++i;
      continue;
    }
    operations_[i] = operations_.back();
    operations_.pop_back();
    r->status_error = e.error_class();
    r->operation_error = std::move(e);
    r->complete = true;
    finish(r);
  }
  progressing_operations_ = false;
}

void Engine::eager_payload(const Header& h, const char* payload, uint64_t* sreq, const char** data, size_t* len) {
  bool has_id = (h.flags & kFlagId) != 0;
  *sreq = 0;
  if (has_id) std::memcpy(sreq, payload, sizeof *sreq);
  *data = payload + (has_id ? sizeof *sreq : 0);
  *len = h.len - (has_id ? sizeof *sreq : 0);
}

void Engine::handle_packet(int src, const Header& h, const char* payload) {
  switch (static_cast<Kind>(h.kind)) {
    case Kind::kEager: {
      bool sync = (h.flags & kFlagSync) != 0;
      uint64_t sreq;
      const char* data;
      size_t len;
      eager_payload(h, payload, &sreq, &data, &len);
      ++stat_eager_;
      if (direct_ != nullptr && direct_matches(h)) {
        DirectReceive* d = direct_;
        direct_ = nullptr;
        eager_consumed(src, len);
        size_t n = accept_eager(src, h, sreq, len, d->count * d->type->size);
        if (n > 0) std::memcpy(static_cast<char*>(d->buf) + d->type->true_lb, data, n);
        d->status_source = h.src_rank;
        d->status_tag = h.tag;
        d->status_bytes = static_cast<int64_t>(n);
        d->message_bytes = static_cast<int64_t>(len);
        if (len > n) d->status_error = MPI_ERR_TRUNCATE;
        d->done = true;
        return;
      }
      if (Request* r = match_posted(h.context, h.src_rank, h.tag)) {
        eager_consumed(src, len);
        deliver_eager(r, src, h, data, len, sreq);
        return;
      }
      Unexpected& u = queue_unexpected();
      u.src_pe = src;
      u.context = h.context;
      u.src_rank = h.src_rank;
      u.tag = h.tag;
      u.sync = sync;
      u.sreq = sreq;
      u.size = static_cast<int64_t>(len);
      u.data.assign(data, data + len);
      unexpected_bytes_ += len;
      return;
    }
    case Kind::kRts: {
      RtsBody rts;
      std::memcpy(&rts, payload, sizeof rts);
      size_t extra = rts.descriptor_len + size_t{rts.layout_blocks} * sizeof(LayoutBlock);
      if (sizeof rts + extra != h.len) {
        log::fatal("MPI: PE %d sent a %u-byte rendezvous request with a %u-byte descriptor and %u layout blocks", src,
                   h.len, rts.descriptor_len, rts.layout_blocks);
      }
      std::string_view descriptor(payload + sizeof rts, extra);  // or the layout
      Request* r = direct_ != nullptr && direct_matches(h) ? direct_request() : match_posted(h.context, h.src_rank, h.tag);
      if (r != nullptr) {
        r->status_source = h.src_rank;
        r->status_tag = h.tag;
        rndv_receive(r, src, rts, descriptor);
        return;
      }
      Unexpected& u = queue_unexpected();
      u.src_pe = src;
      u.context = h.context;
      u.src_rank = h.src_rank;
      u.tag = h.tag;
      u.rendezvous = true;
      u.sreq = rts.sreq;
      u.size = static_cast<int64_t>(rts.size);
      u.rts = rts;
      u.data.assign(descriptor.begin(), descriptor.end());
      return;
    }
    case Kind::kCts: {
      CtsBody cts;
      std::memcpy(&cts, payload, sizeof cts);
      if (sizeof cts + cts.descriptor_len != h.len) {
        log::fatal("MPI: PE %d sent a %u-byte rendezvous grant with a %u-byte descriptor", src, h.len, cts.descriptor_len);
      }
      on_cts(src, cts, payload + sizeof cts);
      return;
    }
    case Kind::kData:
      on_data(src, body_of<DataBody>(payload));
      return;
    case Kind::kCredit: {
      FinBody f;
      std::memcpy(&f, payload, sizeof f);
      size_t& out = eager_outstanding_[static_cast<size_t>(src)];
      if (f.sreq > out) log::fatal("MPI: PE %d returned %llu eager bytes of credit, %zu are outstanding", src,
                                   static_cast<unsigned long long>(f.sreq), out);
      out -= f.sreq;
      return;
    }
    case Kind::kFin:
    case Kind::kSyncAck:
      complete_send(sent_request(src, body_of<FinBody>(payload).sreq, "completed"));
      return;
    case Kind::kPush:
      on_push(src, body_of<PushBody>(payload));
      return;
    case Kind::kCancel:
      on_cancel(src, body_of<FinBody>(payload).sreq);
      return;
    case Kind::kCancelAnswer: {
      CancelBody a = body_of<CancelBody>(payload);
      Request* r = sent_request(src, a.sreq, "answered the cancel of");
      r->cancel_pending = false;
      if (a.cancelled != 0) {
        r->cancelled = true;
        complete_send(r);
      } else if (r->send_done) {
        complete_send(r);
      }
      return;
    }
  }
  log::fatal("MPI: PE %d sent a packet of unknown kind %u", src, h.kind);
}

// ---- sends ----

Request* Engine::sent_request(int src, uint64_t id, const char* what) {
  Request* r = pool_.find(static_cast<int64_t>(id & 0xffffffffu));
  if (r == nullptr || r->kind != RequestKind::kSend || r->serial != static_cast<uint32_t>(id >> 32)) {
    log::fatal("MPI: PE %d %s send %llu, which is not pending here", src, what, static_cast<unsigned long long>(id));
  }
  return r;
}

void Engine::start_send_protocol(Request* r) {
  r->complete = false;
  r->active = true;
  r->send_done = false;
  r->cancel_pending = false;
  r->serial = ++send_serial_;
  int64_t bytes = r->count * r->type->size;
  r->send_bytes = bytes;
  Header h{};
  h.tag = r->tag;
  h.context = r->context;
  h.src_rank = r->my_rank;
  int pe = r->peer_pe;
  // Eager within the channel's limit and this receiver's budget (else rendezvous: it waits at the
  // receiver as an RTS, never as data).
  size_t cost = static_cast<size_t>(bytes) + sizeof(Header);
  size_t& outstanding = eager_outstanding_[static_cast<size_t>(pe)];
  bool eager = static_cast<size_t>(bytes) <= eager_limit(pe);
  if (eager && outstanding + cost > eager_budget(pe)) {
    eager = false;
    ++stat_over_budget_;
  }
  if (eager) outstanding += cost;
  r->eager = eager;
  bool contiguous = r->type->contiguous();
  // Eager packets of requests carry the request's id (for MPI_Cancel; synchronous: for the ack).
  FinBody id{wire_id(r)};
  h.flags = kFlagId;
  r->send_data = contiguous ? static_cast<const char*>(r->buf) + r->type->true_lb : nullptr;
  bool sync = r->mode == SendMode::kSync;
  if (eager) {
    h.kind = static_cast<uint8_t>(Kind::kEager);
    if (sync) h.flags |= kFlagSync;
    h.len = static_cast<uint32_t>(sizeof id + bytes);
    // To a same-node peer with nothing queued before it: copied (or packed) straight into the
    // ring, the one copy on this side.
    if (shm(pe) && pending_[static_cast<size_t>(pe)].empty()) {
      bool sent = false;
      if (contiguous) {
        sent = rings_->try_send(pe, h, &id, sizeof id, r->send_data, static_cast<size_t>(bytes));
      } else if (char* payload = rings_->reserve(pe, sizeof id + static_cast<size_t>(bytes))) {
        std::memcpy(payload, &id, sizeof id);
        datatype::pack(*r->type, r->buf, r->count, payload + sizeof id);
        rings_->commit(pe, h);
        sent = true;
      }
      if (sent) {
        if (!sync) complete_send(r);  // else at the receiver's SYNC_ACK
        return;
      }
    }
    send_packet(pe, h, &id, sizeof id, packed_send_data(r), static_cast<size_t>(bytes), sync ? nullptr : r);
    return;
  }
  // A non-contiguous rendezvous to a same-node peer goes unpacked when the receiver can gather
  // its blocks (the RTS carries them); packed only if the protocol comes to need it (on_cts).
  std::vector<LayoutBlock> layout = contiguous ? std::vector<LayoutBlock>{} : send_layout(r, pe);
  if (!contiguous && layout.empty()) packed_send_data(r);
  h.kind = static_cast<uint8_t>(Kind::kRts);
  h.flags = 0;
  RtsBody rts{};
  rts.sreq = wire_id(r);
  rts.size = static_cast<uint64_t>(bytes);
  if (!layout.empty()) {
    rts.layout_blocks = static_cast<uint32_t>(layout.size());
    std::vector<char> body(sizeof rts + layout.size() * sizeof(LayoutBlock));
    std::memcpy(body.data(), &rts, sizeof rts);
    std::memcpy(body.data() + sizeof rts, layout.data(), layout.size() * sizeof(LayoutBlock));
    send_packet(pe, h, body.data(), body.size(), nullptr, 0, nullptr);
    return;
  }
  rts.addr = reinterpret_cast<uint64_t>(r->send_data);
  segments::Translation t = core::Runtime::get()->segments().translate(r->send_data, static_cast<size_t>(bytes));
  if (t.segment != nullptr && t.in_bounds) {
    rts.in_segment = 1;
    rts.segment = t.segment->id;
    rts.offset = t.offset;
  } else if (expose_for_get(r, pe)) {
    rts.descriptor_len = static_cast<uint32_t>(r->exposure.descriptor.size());
  }
  send_packet(pe, h, &rts, sizeof rts, r->exposure.descriptor.data(), rts.descriptor_len, nullptr);
}

std::vector<LayoutBlock> Engine::send_layout(const Request* r, int pe) const {
  const datatype::Datatype& type = *r->type;
  size_t n = static_cast<size_t>(r->count) * type.blocks.size();
  size_t room = (rings_->max_packet() - sizeof(Header) - sizeof(RtsBody)) / sizeof(LayoutBlock);
  if (!shm(pe) || pe == my_pe_ || !options_.single_copy || !cma_ok_ || n == 0 || n > std::min(room, kIovecBatch) ||
      type.size < kMinScatteredBlock * static_cast<int64_t>(type.blocks.size())) {
    return {};
  }
  std::vector<LayoutBlock> layout;
  layout.reserve(n);
  const char* base = static_cast<const char*>(r->buf);
  for (int64_t i = 0; i < r->count; ++i) {
    for (const datatype::Block& b : type.blocks) {
      layout.push_back(LayoutBlock{reinterpret_cast<uint64_t>(base + i * type.extent() + b.offset),
                                   static_cast<uint64_t>(b.length)});
    }
  }
  return layout;
}

const char* Engine::packed_send_data(Request* r) {
  if (r->send_data == nullptr) {
    r->staging.resize(static_cast<size_t>(r->send_bytes));
    datatype::pack(*r->type, r->buf, r->count, r->staging.data());
    r->send_data = r->staging.data();
  }
  return r->send_data;
}

bool Engine::expose_for_get(Request* r, int pe) {
  if (!expose_sends_ || shm(pe) || r->send_bytes == 0) return false;
  auto exposure = gasket::memreg::expose(r->send_data, static_cast<size_t>(r->send_bytes), "MPI (rendezvous send)");
  if (!exposure.is_ok()) return false;
  if (exposure.value().descriptor.size() > am_out_.size() - sizeof(Header) - sizeof(RtsBody)) {
    (void)gasket::memreg::release(exposure.value(), "MPI (rendezvous send)");
    return false;
  }
  r->exposure = std::move(exposure.value());
  return true;
}

void Engine::release_exposed(Request* r, const char* call) {
  Status st = gasket::memreg::release(r->exposure, call);
  if (!st.is_ok()) log::fatal("%s", st.message().c_str());
  r->exposure = memreg::Exposure{};
}

void Engine::on_cts(int src, const CtsBody& cts, const char* descriptor) {
  Request* s = sent_request(src, cts.sreq, "granted a rendezvous to");
  packed_send_data(s);  // a layout the receiver could not gather: packed now
  if (cts.data_offset + cts.length > static_cast<uint64_t>(s->send_bytes)) {
    log::fatal("MPI: PE %d's rendezvous grant (%llu bytes at %llu) does not fit send request %llu", src,
               static_cast<unsigned long long>(cts.length), static_cast<unsigned long long>(cts.data_offset),
               static_cast<unsigned long long>(cts.sreq));
  }
  if (cts.length > 0 && cts.descriptor_len > 0) {
    Status st = gasket::memreg::put(src, std::string_view(descriptor, cts.descriptor_len), cts.dst_offset,
                                    s->send_data + cts.data_offset, cts.length, "MPI (rendezvous put)");
    if (!st.is_ok()) log::fatal("%s", st.message().c_str());
    gasket::quiet();
  } else if (cts.length > 0) {
    const segments::Segment* seg = core::Runtime::get()->segments().find(cts.segment);
    if (seg == nullptr) log::fatal("MPI: PE %d's rendezvous grant names segment %u, unknown here", src, cts.segment);
    gasket::put(seg->base + cts.dst_offset, s->send_data + cts.data_offset, cts.length, src, "MPI (rendezvous put)");
    gasket::quiet();
  }
  DataBody d{cts.rreq, cts.data_offset, cts.length, cts.dst_offset};
  send_control(src, Kind::kData, &d, sizeof d);
  if (cts.last != 0) complete_send(s);
}

void Engine::complete_send(Request* r) {
  r->send_done = true;
  r->staging.clear();
  release_exposure(r, "MPI (rendezvous send)");
  if (r->bsend_block != nullptr && bsend_release) {
    bsend_release(r->bsend_block);
    r->bsend_block = nullptr;
  }
  if (r->cancel_pending) return;  // the receiver's answer to MPI_Cancel completes it
  r->complete = true;
  finish(r);
}

// ---- cancel of sends ----

bool Engine::cancel_send(Request* r) {
  // A rendezvous that is done was matched; a request asked once waits for that answer.
  if (!r->active || r->cancel_pending || r->cancelled || (r->send_done && !r->eager)) return false;
  r->cancel_pending = true;
  r->complete = false;
  FinBody f{wire_id(r)};
  send_control(r->peer_pe, Kind::kCancel, &f, sizeof f);
  return true;
}

void Engine::on_cancel(int src, uint64_t sreq) {
  CancelBody answer{sreq, 0};
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (it->src_pe != src || it->sreq != sreq) continue;
    if (!it->rendezvous) {
      unexpected_bytes_ -= it->data.size();
      eager_consumed(src, it->data.size());  // the sender's budget comes back as if it matched
    }
    drop_unexpected(it);
    answer.cancelled = 1;
    break;
  }
  send_control(src, Kind::kCancelAnswer, &answer, sizeof answer);
}

void Engine::finish(Request* r) {
  if (!r->user_owned && r->complete) {
    r->persistent = false;
    pool_.release(r);
  }
}

// ---- receives and matching ----

inline Request* Engine::match_posted(uint32_t context, int src_rank, int tag) {
  for (Request* r = posted_head_; r != nullptr; r = r->next) {
    if (r->context == context && matches(r->peer_rank, r->tag, src_rank, tag)) {
      (r->prev ? r->prev->next : posted_head_) = r->next;
      (r->next ? r->next->prev : posted_tail_) = r->prev;
      r->prev = r->next = nullptr;
      r->posted = false;
      return r;
    }
  }
  return nullptr;
}

Unexpected& Engine::queue_unexpected() {
  if (spare_unexpected_.empty()) return unexpected_.emplace_back();
  unexpected_.splice(unexpected_.end(), spare_unexpected_, spare_unexpected_.begin());
  Unexpected& u = unexpected_.back();
  std::vector<char> data = std::move(u.data);
  data.clear();
  u = Unexpected{};
  u.data = std::move(data);
  return u;
}

void Engine::drop_unexpected(std::list<Unexpected>::iterator it) {
  if (spare_unexpected_.size() >= kSpareUnexpected) {
    unexpected_.erase(it);
    return;
  }
  if (it->data.capacity() > kSpareUnexpectedData) std::vector<char>().swap(it->data);
  spare_unexpected_.splice(spare_unexpected_.begin(), unexpected_, it);
}

std::list<Unexpected>::iterator Engine::match_unexpected(uint32_t context, int source, int tag) {
  for (auto it = unexpected_.begin(); it != unexpected_.end(); ++it) {
    if (it->context == context && matches(source, tag, it->src_rank, it->tag)) return it;
  }
  return unexpected_.end();
}

namespace {
[[gnu::always_inline]] inline void prepare_receive(Request* r) {
  r->complete = false;
  r->active = true;
  r->cancelled = false;
  r->status_error = MPI_SUCCESS;
  r->status_bytes = 0;
  r->capacity = r->count * r->type->size;
  // Non-contiguous: eager data is unpacked straight from the packet; a rendezvous lands in
  // `staging`, made when the rendezvous starts.
  r->recv_data = r->type->contiguous() ? static_cast<char*>(r->buf) + r->type->true_lb : nullptr;
}
}  // namespace

void Engine::start_recv(Request* r) {
  prepare_receive(r);
  if (!unexpected_.empty()) {
    auto it = match_unexpected(r->context, r->peer_rank, r->tag);
    if (it != unexpected_.end()) {
      deliver(r, *it, it->src_pe);
      drop_unexpected(it);
      return;
    }
  }
  if (posted_head_ == nullptr && direct_ == nullptr && take_from_ring(r)) return;
  r->posted = true;
  r->prev = posted_tail_;
  r->next = nullptr;
  (posted_tail_ ? posted_tail_->next : posted_head_) = r;
  posted_tail_ = r;
}

// Nothing posted before `r` and no unexpected message of its source matched: the next message
// from that source is the one at its ring's head. When that is eager data `r` matches, it is
// copied straight out of the ring (no posting, no unexpected entry). Only a named same-node
// source: a wildcard source leaves the choice among rings to progress().
bool Engine::take_from_ring(Request* r) {
  int src = r->peer_pe;
  if (r->peer_rank == MPI_ANY_SOURCE || !shm(src)) return false;
  const Header* head = rings_->peek(src);
  if (head == nullptr || head->kind != static_cast<uint8_t>(Kind::kEager) || head->context != r->context ||
      !matches(r->peer_rank, r->tag, head->src_rank, head->tag)) {
    return false;
  }
  Header h = *head;
  uint64_t sreq;
  const char* data;
  size_t len;
  eager_payload(h, reinterpret_cast<const char*>(head) + sizeof(Header), &sreq, &data, &len);
  ++stat_eager_;
  eager_consumed(src, len);
  deliver_eager(r, src, h, data, len, sreq);
  rings_->consume(src);
  return true;
}

void Engine::start_matched_recv(Request* r, std::unique_ptr<Unexpected> msg) {
  prepare_receive(r);
  deliver(r, *msg, msg->src_pe);
}

void Engine::deliver(Request* r, Unexpected& msg, int src_pe) {
  r->status_source = msg.src_rank;
  r->status_tag = msg.tag;
  if (msg.rendezvous) {
    rndv_receive(r, src_pe, msg.rts, std::string_view(msg.data.data(), msg.data.size()));
    return;
  }
  unexpected_bytes_ -= msg.data.size();
  eager_consumed(src_pe, msg.data.size());
  Header h{};
  h.tag = msg.tag;
  h.src_rank = msg.src_rank;
  h.context = msg.context;
  if (msg.sync) h.flags = kFlagSync;
  deliver_eager(r, src_pe, h, msg.data.data(), msg.data.size(), msg.sreq);
}

// The batch eager_consumed() counted goes back to its sender.
void Engine::send_credit(int src_pe) {
  size_t& c = eager_consumed_[static_cast<size_t>(src_pe)];
  FinBody credit{c};
  c = 0;
  send_control(src_pe, Kind::kCredit, &credit, sizeof credit);
}

inline void Engine::deliver_eager(Request* r, int src_pe, const Header& h, const char* data, size_t len, uint64_t sreq) {
  r->status_source = h.src_rank;
  r->status_tag = h.tag;
  size_t n = accept_eager(src_pe, h, sreq, len, r->capacity);
  if (n > 0 && r->recv_data != nullptr) {
    if (n <= ShmRings::kLine) {
      copy_short(r->recv_data, data, n);
    } else {
      std::memcpy(r->recv_data, data, n);
    }
  } else if (n > 0) {
    datatype::unpack(*r->type, data, static_cast<int64_t>(n), r->buf, r->count);
  }
  r->status_bytes = static_cast<int64_t>(n);
  r->message_bytes = static_cast<int64_t>(len);
  if (len > n) r->status_error = MPI_ERR_TRUNCATE;
  complete_recv(r);
}

inline size_t Engine::accept_eager(int src_pe, const Header& h, uint64_t sreq, size_t len, int64_t capacity) {
  if ((h.flags & kFlagSync) != 0) {
    FinBody ack{sreq};
    send_control(src_pe, Kind::kSyncAck, &ack, sizeof ack);
  }
  return std::min(len, static_cast<size_t>(capacity));
}

// ---- blocking shortcuts ----

bool Engine::send_now(int pe, uint32_t context, int src_rank, int tag, const void* data, size_t bytes) {
  size_t cost = bytes + sizeof(Header);
  size_t& outstanding = eager_outstanding_[static_cast<size_t>(pe)];
  if (bytes > eager_limit(pe) || outstanding + cost > eager_budget(pe)) return false;
  Header h{};
  h.kind = static_cast<uint8_t>(Kind::kEager);
  h.tag = tag;
  h.context = context;
  h.src_rank = src_rank;
  h.len = static_cast<uint32_t>(bytes);
  if (late(pe)) {
    send_packet(pe, h, nullptr, 0, data, bytes, nullptr);
  } else if (!pending_[static_cast<size_t>(pe)].empty() || !try_channel(pe, h, nullptr, 0, data, bytes)) {
    return false;  // the channel is full: the caller's request queues the packet
  }
  outstanding += cost;
  return true;
}

bool Engine::begin_direct(DirectReceive* d) {
  if (direct_ != nullptr || posted_head_ != nullptr) return false;
  if (!unexpected_.empty() && match_unexpected(d->context, d->peer_rank, d->tag) != unexpected_.end()) return false;
  d->done = false;
  d->request = nullptr;
  d->status_error = MPI_SUCCESS;
  direct_ = d;
  return true;
}

bool Engine::direct_matches(const Header& h) const {
  return direct_->context == h.context && matches(direct_->peer_rank, direct_->tag, h.src_rank, h.tag);
}

Request* Engine::direct_request() {
  DirectReceive* d = direct_;
  direct_ = nullptr;
  Request* r = pool_.create(RequestKind::kRecv);
  static_cast<Transfer&>(*r) = *d;
  prepare_receive(r);
  d->request = r;
  return r;
}

inline void Engine::complete_recv(Request* r) {
  release_exposure(r, "MPI (rendezvous receive)");
  if (!r->staging.empty() && r->status_bytes > 0) {
    datatype::unpack(*r->type, r->staging.data(), r->status_bytes, r->buf, r->count);
  }
  r->staging.clear();
  r->complete = true;
  finish(r);
}

bool Engine::cancel_recv(Request* r) {
  if (!r->posted) return false;
  (r->prev ? r->prev->next : posted_head_) = r->next;
  (r->next ? r->next->prev : posted_tail_) = r->prev;
  r->prev = r->next = nullptr;
  r->posted = false;
  r->cancelled = true;
  r->complete = true;
  finish(r);
  return true;
}

ProbeResult Engine::iprobe(uint32_t context, int source, int tag) {
  ProbeResult res;
  auto it = match_unexpected(context, source, tag);
  if (it == unexpected_.end()) return res;
  res.found = true;
  res.source = it->src_rank;
  res.tag = it->tag;
  res.bytes = it->size;
  return res;
}

std::unique_ptr<Unexpected> Engine::improbe(uint32_t context, int source, int tag, ProbeResult* result) {
  *result = iprobe(context, source, tag);
  if (!result->found) return nullptr;
  auto it = match_unexpected(context, source, tag);
  auto msg = std::make_unique<Unexpected>(std::move(*it));
  drop_unexpected(it);
  return msg;
}

// ---- rendezvous (receiver) ----

void Engine::rndv_receive(Request* r, int src_pe, const RtsBody& rts, std::string_view descriptor) {
  r->rndv_src_pe = src_pe;
  r->rndv_sreq = rts.sreq;
  int64_t size = static_cast<int64_t>(rts.size);
  r->rndv_bytes = std::min(size, r->capacity);
  r->rndv_granted = r->rndv_received = 0;
  if (size > r->capacity) r->status_error = MPI_ERR_TRUNCATE;
  r->status_bytes = r->rndv_bytes;
  r->message_bytes = size;
  FinBody fin{rts.sreq};
  if (r->rndv_bytes == 0) {
    send_control(src_pe, Kind::kFin, &fin, sizeof fin);
    complete_recv(r);
    return;
  }
  bool same_node = options_.single_copy && shm(src_pe);
  bool layout = rts.layout_blocks > 0;  // the sender's blocks (`descriptor` holds them)
  // Non-contiguous: straight into the receive buffer's blocks where the layout allows (same node),
  // else land packed in `staging` and unpack at completion.
  if ((layout && same_node && gather(src_pe, descriptor, r)) ||
      (!layout && r->recv_data == nullptr && same_node && pull_scattered(src_pe, rts, r))) {
    ++stat_rndv_scattered_;
    send_control(src_pe, Kind::kFin, &fin, sizeof fin);
    complete_recv(r);
    return;
  }
  if (r->recv_data == nullptr) {
    r->staging.resize(static_cast<size_t>(std::max<int64_t>(r->capacity, 1)));
    r->recv_data = r->staging.data();
  }
  if (!layout && same_node && !r->pull_alone && split_pull_ > 0 && static_cast<size_t>(r->rndv_bytes) >= split_pull_ &&
      cma_proven_ && mapped_source(src_pe, rts) == nullptr) {
    split_pull(r, src_pe, rts);
    return;
  }
  if ((!layout && same_node && pull(src_pe, rts, r->recv_data, r->rndv_bytes)) ||
      (remote_get_ && !shm(src_pe) && get_from_sender(src_pe, rts, descriptor, r->recv_data, r->rndv_bytes))) {
    ++(shm(src_pe) ? stat_rndv_pull_ : stat_rndv_get_);
    send_control(src_pe, Kind::kFin, &fin, sizeof fin);
    complete_recv(r);
    return;
  }
  Destination d = register_destination(r, src_pe, r->recv_data, r->rndv_bytes);
  if (d.in_segment || d.exposed) {
    ++stat_rndv_put_;
    CtsBody cts{rts.sreq, static_cast<uint64_t>(r->handle), 0, static_cast<uint64_t>(r->rndv_bytes), d.offset,
                d.segment, 1, 0, 0};
    r->rndv_granted = r->rndv_bytes;
    if (!d.exposed) {
      send_control(src_pe, Kind::kCts, &cts, sizeof cts);
      return;
    }
    cts.descriptor_len = static_cast<uint32_t>(r->exposure.descriptor.size());
    std::vector<char> body(sizeof cts + cts.descriptor_len);
    std::memcpy(body.data(), &cts, sizeof cts);
    std::memcpy(body.data() + sizeof cts, r->exposure.descriptor.data(), cts.descriptor_len);
    send_control(src_pe, Kind::kCts, body.data(), body.size());
    return;
  }
  ++stat_rndv_bounce_;
  if (zone_wait_head_ == nullptr && claim_zone(r)) return;
  r->zone_next = nullptr;
  (zone_wait_tail_ ? zone_wait_tail_->zone_next : zone_wait_head_) = r;
  zone_wait_tail_ = r;
}

bool Engine::claim_zone(Request* r) {
  auto free_zone = std::find(zone_owner_.begin(), zone_owner_.end(), nullptr);
  if (free_zone == zone_owner_.end()) return false;
  *free_zone = r;
  r->zone = static_cast<int>(free_zone - zone_owner_.begin());
  grant_bounce(r);
  return true;
}

const char* Engine::mapped_source(int src_pe, const RtsBody& rts) const {
  if (src_pe == my_pe_) return reinterpret_cast<const char*>(rts.addr);
  if (rts.in_segment == 0) return nullptr;
  const segments::Segment* seg = core::Runtime::get()->segments().find(rts.segment);
  char* base = seg == nullptr ? nullptr : seg->peer_copy(src_pe);
  return base == nullptr ? nullptr : base + rts.offset;
}

namespace {
// Skips `bytes` at the front of the iovec list (a partial kernel copy).
void advance(iovec*& v, size_t& n, size_t bytes) {
  while (bytes > 0) {
    size_t step = std::min(bytes, v->iov_len);
    v->iov_base = static_cast<char*>(v->iov_base) + step;
    v->iov_len -= step;
    bytes -= step;
    if (v->iov_len == 0) {
      ++v;
      --n;
    }
  }
}
}  // namespace

bool Engine::cma_copy(bool write, int pe, iovec* local, size_t n, iovec* remote, size_t m, size_t total) {
  const char* call = write ? "process_vm_writev" : "process_vm_readv";
  size_t done = 0;
  while (done < total) {
    pid_t pid = pids_[static_cast<size_t>(pe)];
    ssize_t got = write ? process_vm_writev(pid, local, n, remote, m, 0) : process_vm_readv(pid, local, n, remote, m, 0);
    if (got <= 0) {
      if (done == 0 && !cma_proven_ && (errno == EPERM || errno == ENOSYS || errno == EACCES)) {
        GASKET_DEBUG("MPI: %s with PE %d refused (%s): rendezvous by puts from now on", call, pe, strerror(errno));
        cma_ok_ = false;
        return false;
      }
      log::fatal("MPI: %s of %zu bytes of a message with PE %d (pid %d) failed: %s", call, total, pe, pid,
                 strerror(errno));
    }
    cma_proven_ = true;
    done += static_cast<size_t>(got);
    if (done < total) {
      advance(local, n, static_cast<size_t>(got));
      advance(remote, m, static_cast<size_t>(got));
    }
  }
  return true;
}

bool Engine::pull(int src_pe, const RtsBody& rts, char* dst, int64_t bytes) {
  if (const char* src = mapped_source(src_pe, rts)) {
    std::memcpy(dst, src, static_cast<size_t>(bytes));
    return true;
  }
  iovec local{dst, static_cast<size_t>(bytes)};
  iovec remote{reinterpret_cast<void*>(rts.addr), static_cast<size_t>(bytes)};
  return cma_ok_ && cma_copy(false, src_pe, &local, 1, &remote, 1, static_cast<size_t>(bytes));
}

void Engine::split_pull(Request* r, int src_pe, const RtsBody& rts) {
  uint64_t bytes = static_cast<uint64_t>(r->rndv_bytes);
  uint64_t half = bytes / 2 & ~uint64_t{4095};
  PushBody push{rts.sreq, static_cast<uint64_t>(r->handle), half, bytes - half,
                reinterpret_cast<uint64_t>(r->recv_data + half)};
  send_control(src_pe, Kind::kPush, &push, sizeof push);
  iovec local{r->recv_data, half};
  iovec remote{reinterpret_cast<void*>(rts.addr), half};
  (void)cma_copy(false, src_pe, &local, 1, &remote, 1, half);  // proven: fails only fatally
  ++stat_rndv_split_;
  FinBody fin{rts.sreq};
  send_control(src_pe, Kind::kFin, &fin, sizeof fin);
  r->rndv_received += static_cast<int64_t>(half);  // complete at the sender's DATA (on_data)
}

void Engine::on_push(int src, const PushBody& p) {
  Request* s = sent_request(src, p.sreq, "asked for a push of");
  if (p.data_offset + p.length > static_cast<uint64_t>(s->send_bytes)) {
    log::fatal("MPI: PE %d asked for %llu bytes at %llu of send %llu, which has %lld", src,
               static_cast<unsigned long long>(p.length), static_cast<unsigned long long>(p.data_offset),
               static_cast<unsigned long long>(p.sreq), static_cast<long long>(s->send_bytes));
  }
  iovec local{const_cast<char*>(s->send_data) + p.data_offset, p.length};
  iovec remote{reinterpret_cast<void*>(p.dst_addr), p.length};
  if (!cma_copy(true, src, &local, 1, &remote, 1, p.length)) {
    log::fatal("MPI: PE %d reads this PE's memory, but this PE may not write PE %d's", src, src);
  }
  DataBody d{p.rreq, p.data_offset, p.length, 0};
  send_control(src, Kind::kData, &d, sizeof d);
}

bool Engine::gather(int src_pe, std::string_view layout, Request* r) {
  if (!cma_ok_) return false;
  std::vector<iovec> remote(layout.size() / sizeof(LayoutBlock));
  for (size_t i = 0; i < remote.size(); ++i) {
    LayoutBlock b = body_of<LayoutBlock>(layout.data() + i * sizeof(LayoutBlock));
    remote[i] = iovec{reinterpret_cast<void*>(b.addr), b.len};
  }
  if (r->recv_data == nullptr) {  // both sides non-contiguous: gather into staging, unpack at completion
    r->staging.resize(static_cast<size_t>(r->rndv_bytes));
    r->recv_data = r->staging.data();
  }
  iovec local{r->recv_data, static_cast<size_t>(r->rndv_bytes)};
  return cma_copy(false, src_pe, &local, 1, remote.data(), remote.size(), static_cast<size_t>(r->rndv_bytes));
}

bool Engine::pull_scattered(int src_pe, const RtsBody& rts, Request* r) {
  const datatype::Datatype& type = *r->type;
  if (const char* src = mapped_source(src_pe, rts)) {  // unpack straight out of the sender's data
    datatype::unpack(type, src, r->rndv_bytes, r->buf, r->count);
    return true;
  }
  // The kernel copies block by block; tiny blocks cost more that way than one copy + unpacking.
  if (!cma_ok_ || type.size < kMinScatteredBlock * static_cast<int64_t>(type.blocks.size())) return false;
  std::vector<iovec> batch;
  batch.reserve(kIovecBatch);
  uint64_t remote = rts.addr;
  size_t batch_bytes = 0;
  auto flush = [&] {
    iovec from{reinterpret_cast<void*>(remote), batch_bytes};
    bool ok = cma_copy(false, src_pe, batch.data(), batch.size(), &from, 1, batch_bytes);
    remote += batch_bytes;
    batch_bytes = 0;
    batch.clear();
    return ok;
  };
  char* base = static_cast<char*>(r->buf);
  int64_t left = r->rndv_bytes;
  for (int64_t i = 0; i < r->count && left > 0; ++i) {
    char* elem = base + i * type.extent();
    for (const datatype::Block& b : type.blocks) {
      int64_t n = std::min(b.length, left);
      batch.push_back(iovec{elem + b.offset, static_cast<size_t>(n)});
      batch_bytes += static_cast<size_t>(n);
      left -= n;
      if ((batch.size() == kIovecBatch || left == 0) && !flush()) return false;
      if (left == 0) break;
    }
  }
  return true;
}

bool Engine::get_from_sender(int src_pe, const RtsBody& rts, std::string_view descriptor, char* dst, int64_t bytes) {
  if (rts.in_segment != 0) {
    const segments::Segment* seg = core::Runtime::get()->segments().find(rts.segment);
    if (seg == nullptr) log::fatal("MPI: PE %d's rendezvous request names segment %u, unknown here", src_pe, rts.segment);
    gasket::get(dst, seg->base + rts.offset, static_cast<size_t>(bytes), src_pe, "MPI (rendezvous get)");
    return true;
  }
  if (descriptor.empty()) return false;
  Status st = gasket::memreg::get(src_pe, descriptor, 0, dst, static_cast<size_t>(bytes), "MPI (rendezvous get)");
  if (!st.is_ok()) log::fatal("%s", st.message().c_str());
  return true;
}

Engine::Destination Engine::register_destination(Request* r, int src, char* dst, int64_t bytes) {
  Destination d;
  core::Runtime* rt = core::Runtime::get();
  segments::Translation t = rt->segments().translate(dst, static_cast<size_t>(bytes));
  if (t.segment != nullptr && t.in_bounds) {
    d.in_segment = true;
    d.segment = t.segment->id;
    d.offset = t.offset;
    return d;
  }
  // User memory: worth exposing where the backend registers it (one-sided, zero copy); elsewhere
  // (pciddc) core/memreg would pipeline through a bounce segment just like the zone below.
  if (r == nullptr || shm(src) || rt->backend() == nullptr || rt->backend()->user_registration() == nullptr) return d;
  auto exposure = gasket::memreg::expose(dst, static_cast<size_t>(bytes), "MPI (rendezvous receive)");
  if (!exposure.is_ok()) return d;
  size_t room = am_out_.size() - sizeof(Header) - sizeof(CtsBody);
  if (exposure.value().descriptor.size() > room) {
    (void)gasket::memreg::release(exposure.value(), "MPI (rendezvous receive)");
    return d;
  }
  r->exposure = std::move(exposure.value());
  d.exposed = true;
  return d;
}

void Engine::grant_bounce(Request* r) {
  int64_t half = static_cast<int64_t>(options_.rndv_bounce / 2);
  char* zone = zones_ + static_cast<size_t>(r->zone) * options_.rndv_bounce;
  while (r->rndv_granted < r->rndv_bytes && r->rndv_granted - r->rndv_received < 2 * half) {
    int64_t len = std::min(half, r->rndv_bytes - r->rndv_granted);
    char* dst = zone + ((r->rndv_granted / half) % 2) * half;
    Destination d = register_destination(nullptr, r->rndv_src_pe, dst, len);
    CtsBody cts{r->rndv_sreq,
                static_cast<uint64_t>(r->handle),
                static_cast<uint64_t>(r->rndv_granted),
                static_cast<uint64_t>(len),
                d.offset,
                d.segment,
                r->rndv_granted + len == r->rndv_bytes ? 1u : 0u,
                0,
                0};
    r->rndv_granted += len;
    send_control(r->rndv_src_pe, Kind::kCts, &cts, sizeof cts);
  }
}

void Engine::on_data(int src, const DataBody& d) {
  Request* r = pool_.find(static_cast<int64_t>(d.rreq));
  if (r == nullptr || r->kind != RequestKind::kRecv || r->rndv_src_pe != src) {
    log::fatal("MPI: PE %d delivered rendezvous data for receive request %llu, which is not waiting for it", src,
               static_cast<unsigned long long>(d.rreq));
  }
  if (r->zone < 0) {  // put (or pushed) straight into the receive buffer
    r->rndv_received += static_cast<int64_t>(d.length);
    if (r->rndv_received == r->rndv_bytes) complete_recv(r);
    return;
  }
  const segments::Segment* heap = core::Runtime::get()->segments().find(segments::kHeapSegment);
  std::memcpy(r->recv_data + d.data_offset, heap->base + d.dst_offset, d.length);
  r->rndv_received += static_cast<int64_t>(d.length);
  if (r->rndv_received < r->rndv_bytes) {
    grant_bounce(r);
    return;
  }
  zone_owner_[static_cast<size_t>(r->zone)] = nullptr;
  r->zone = -1;
  complete_recv(r);
  // The freed zone goes to the transfer that has waited longest, whichever its sender.
  if (Request* next = zone_wait_head_) {
    zone_wait_head_ = next->zone_next;
    if (zone_wait_head_ == nullptr) zone_wait_tail_ = nullptr;
    claim_zone(next);
  }
}

std::string Engine::describe() const {
  return "MPI engine: " + std::to_string(stat_eager_) + " eager, " + std::to_string(stat_rndv_pull_) +
         " rendezvous by single copy, " + std::to_string(stat_rndv_get_) + " by the receiver's get, " + std::to_string(stat_rndv_scattered_) + " into or out of non-contiguous blocks without staging, " +
         std::to_string(stat_rndv_split_) + " copied by both sides (split), " +
         std::to_string(stat_rndv_put_) + " by direct put, " +
         std::to_string(stat_rndv_bounce_) + " through the bounce zone; " + std::to_string(stat_over_budget_) +
         " eager-sized sends by rendezvous (over the receiver's budget); same-node eager limit " +
         std::to_string(shm_eager_) + " B, backend eager limit " + std::to_string(am_eager_) + " B, eager budget per receiver " + std::to_string(eager_budget_) + " B";
}

Engine::Counters Engine::counters() const {
  uint64_t posted = 0;
  for (const Request* r = posted_head_; r != nullptr; r = r->next) ++posted;
  return Counters{stat_eager_, stat_rndv_pull_, stat_rndv_get_, stat_rndv_scattered_, stat_rndv_split_,
                  stat_rndv_put_, stat_rndv_bounce_, stat_over_budget_, posted, unexpected_.size(),
                  unexpected_bytes_};
}

bool Engine::set_eager_limit(bool same_node, size_t bytes) {
  if (bytes > eager_limit_max(same_node)) return false;
  (same_node ? shm_eager_ : am_eager_) = bytes;
  return true;
}

}  // namespace gasket::mpi::p2p
