#include "backends/pciddc/pciddc_backend.h"

#include <optional>

#include "backends/pciddc/shm_link.h"
#include "backends/netif/interfaces.h"
#include "backends/pciddc/tcp_link.h"
#include "core/base/log.h"

namespace gasket::backend::pciddc {

namespace {

// How this PE reaches `pe`, from the peer's record "port node stack interfaces..." (netif): over
// loopback when both share a network stack (one host, also simulated nodes), else from the local
// interface on the peer's subnet; a peer on no shared subnet is reported by name.
Result<PeerAddress> route_to(int my_pe, const netif::HostAddresses& me, int pe, const std::string& record) {
  size_t space = record.find(' ');
  std::string port = record.substr(0, space);
  Result<netif::HostAddresses> peer = netif::decode(space == std::string::npos ? "" : record.substr(space + 1));
  if (!peer.is_ok()) {
    return Status(StatusCode::kInternal, "pciddc/tcp: PE " + std::to_string(my_pe) + ": PE " + std::to_string(pe) +
                                             "'s address record: " + peer.status().message());
  }
  if (peer->stack == me.stack) return PeerAddress{"127.0.0.1", port, ""};
  std::optional<netif::Route> r = netif::choose_route(me.interfaces, peer->interfaces);
  if (!r) return Status(StatusCode::kUnavailable, netif::unreachable_message("pciddc/tcp", my_pe, me, pe, peer.value()));
  GASKET_DEBUG("pciddc/tcp: PE %d (node %s) via %s %s", pe, peer->node.c_str(), r->local.name.c_str(),
               netif::format_address(r->peer_address).c_str());
  return PeerAddress{netif::format_address(r->peer_address), port, netif::format_address(r->local.address)};
}

// LMR entries when GASKET_PCIDDC_LMR_ENTRIES is 0: room for 64 outstanding notifications per PE.
size_t default_lmr_entries(int n_pes) {
  size_t n = 4096;
  while (n < size_t{64} * static_cast<size_t>(n_pes)) n <<= 1;
  return n;
}
}  // namespace

Result<std::unique_ptr<Backend>> create(const StartInfo& info) {
  using config::Knob;
  const config::Config& cfg = *info.config;
  std::string link = cfg.text(Knob::PCIDDC_LINK);
  int my_node = info.node_of_pe[static_cast<size_t>(info.my_pe)];
  std::vector<bool> reached(static_cast<size_t>(info.n_pes), false);
  bool other_nodes = false;
  bool force = cfg.text(Knob::LOCAL) == "backend";
  for (int pe = 0; pe < info.n_pes; ++pe) {
    bool same = info.node_of_pe[static_cast<size_t>(pe)] == my_node;
    other_nodes = other_nodes || !same;
    reached[static_cast<size_t>(pe)] = pe != info.my_pe && (!same || force);
  }
  if (link == "auto") link = other_nodes ? "tcp" : "shm";
  int64_t lme_knob = cfg.integer(Knob::PCIDDC_LME_ENTRIES), lmr_knob = cfg.integer(Knob::PCIDDC_LMR_ENTRIES);
  size_t lme_entries = lme_knob < 0 ? 0 : static_cast<size_t>(lme_knob);
  size_t lmr_entries = lmr_knob < 0 ? 1 : static_cast<size_t>(lmr_knob);
  if (lmr_entries == 0) lmr_entries = default_lmr_entries(info.n_pes);
  if (lme_entries < 2 || lmr_entries < 2 || lme_entries > (1u << 20) || lmr_entries > (1u << 24)) {
    return invalid_argument("pciddc: GASKET_PCIDDC_LME_ENTRIES (" + std::to_string(lme_entries) +
                            ") and GASKET_PCIDDC_LMR_ENTRIES (" + std::to_string(lmr_entries) +
                            ") must be 2..2^20 and 2..2^24");
  }
  std::unique_ptr<PciddcBackend> b(new PciddcBackend(info, lme_entries));
  PciddcBackend* self = b.get();
  if (link == "shm") {
    ShmLink::Options o;
    o.start = info;
    o.reached = reached;
    o.lmr_entries = lmr_entries;
    o.drain_own = [self] { self->drain_receive_list(); };
    auto shm = ShmLink::create(std::move(o));
    if (!shm.is_ok()) return shm.status();
    b->lmr_ = shm.value()->own_receive_list();
    // The core wakes only PEs of this node (it maps their doorbells); writes from PEs of other
    // simulated nodes would reach a sleeper unannounced.
    for (int pe = 0; pe < info.n_pes; ++pe) {
      if (reached[static_cast<size_t>(pe)] && info.node_of_pe[static_cast<size_t>(pe)] != my_node) b->signals_input_ = false;
    }
    b->link_ = std::move(shm.value());
    b->link_name_ = "shm";
  } else {
    b->lmr_memory_.resize(ReceiveList::bytes_for(lmr_entries) / sizeof(uint64_t) + 8);
    b->lmr_ = ReceiveList::format(b->lmr_memory_.data(), lmr_entries);
    TcpLink::Options o;
    o.my_pe = info.my_pe;
    o.n_pes = info.n_pes;
    o.secret = info.bootstrap->secret();
    bootstrap::Bootstrap* boot = info.bootstrap;
    Result<netif::HostAddresses> me = netif::this_host(cfg.text(Knob::NODE_NAME), cfg.text(Knob::NET_INTERFACES));
    if (!me.is_ok()) return Status(me.status().code(), "pciddc/tcp: PE " + std::to_string(info.my_pe) + ": " + me.status().message());
    int my_pe = info.my_pe;
    // Fetched per peer on first contact, not at init.
    o.peer_address = [boot, my_pe, me = me.value()](int pe) -> Result<PeerAddress> {
      auto v = boot->get(pe, "pciddc.tcp");
      if (!v.is_ok()) return v.status();
      return route_to(my_pe, me, pe, v.value());
    };
    o.notify = [self](int src, uint32_t id) { self->receive_notification(src, id); };
    auto tcp = TcpLink::create(std::move(o));
    if (!tcp.is_ok()) return tcp.status();
    Status st = info.bootstrap->put("pciddc.tcp", std::to_string(tcp.value()->port()) + " " + netif::encode(me.value()));
    if (!st.is_ok()) return st;
    b->link_ = std::move(tcp.value());
    b->link_name_ = "tcp";
    b->limits_.puts_are_messages = true;  // a frame per put; shm puts are a memcpy each
    if (!(st = info.bootstrap->fence()).is_ok()) return st;
  }
  GASKET_DEBUG("pciddc: link %s, LME %zu entries, LMR %zu entries", b->link_name_, lme_entries, lmr_entries);
  return std::unique_ptr<Backend>(std::move(b));
}

PciddcBackend::PciddcBackend(const StartInfo& info, size_t lme_entries)
    : my_pe_(info.my_pe), lme_(lme_entries) {
  limits_.max_put_bytes = kMaxEntryBytes;
  limits_.ordered_puts = true;
}

PciddcBackend::~PciddcBackend() = default;

Status PciddcBackend::register_segment(SegmentId id, void* base, size_t size) {
  std::lock_guard<std::mutex> lock(lme_mutex_);
  return link_->register_segment(id, base, size);
}

Status PciddcBackend::deregister_segment(SegmentId id) {
  std::lock_guard<std::mutex> lock(lme_mutex_);
  return link_->deregister_segment(id);
}

Status PciddcBackend::put(int pe, RemoteAddress dst, const void* src, size_t len) {
  std::lock_guard<std::mutex> lock(lme_mutex_);
  return post(pe, dst, src, len, ids_.next(), false);
}

Status PciddcBackend::put_notify(int pe, RemoteAddress dst, const void* src, size_t len, uint32_t id) {
  if (id > kMaxMessageId) {
    return invalid_argument("pciddc: PE " + std::to_string(my_pe_) + ": put_notify to PE " + std::to_string(pe) +
                            " with message id " + std::to_string(id) + ", which does not fit 24 bits");
  }
  std::lock_guard<std::mutex> lock(lme_mutex_);
  return post(pe, dst, src, len, id, true);
}

Status PciddcBackend::post(int pe, RemoteAddress dst, const void* src, size_t len, uint32_t id, bool notify) {
  std::vector<SendEntry> entries = build_message(id, pe, dst, src, len, notify, true);
  if (lme_.in_use() + entries.size() > lme_.capacity()) {
    std::vector<uint32_t> done;
    lme_.flush(&done);  // every earlier entry has been sent: acknowledge them all at once
    sent_notified_ += done.size();
  }
  Status st = lme_.post(entries.data(), entries.size());
  if (!st.is_ok()) return st;
  ++messages_;
  // The engine: send every entry posted so far, in order.
  while (const SendEntry* e = lme_.current()) {
    if (!(st = link_->write(*e)).is_ok()) return st;
    lme_.complete();
  }
  return Status::ok();
}

Status PciddcBackend::quiet() {
  {
    std::lock_guard<std::mutex> lock(lme_mutex_);
    std::vector<uint32_t> done;
    lme_.flush(&done);
    sent_notified_ += done.size();
  }
  return link_->quiet();
}

void PciddcBackend::receive_notification(int src_pe, uint32_t id) {
  while (!lmr_.append(static_cast<uint32_t>(src_pe), id)) drain_receive_list();
}

void PciddcBackend::drain_receive_list() {
  std::lock_guard<std::mutex> lock(queue_mutex_);
  scratch_.clear();
  lmr_.flush(&scratch_);
  queue_.insert(queue_.end(), scratch_.begin(), scratch_.end());
}

void PciddcBackend::progress() {
  Status st = link_->service();
  if (!st.is_ok()) log::fatal("%s", st.message().c_str());
  drain_receive_list();
  // One deliverer at a time keeps each sender's notifications in order; a handler that ends up
  // here again (it waits for something) only drains.
  if (delivering_.exchange(true, std::memory_order_acquire)) return;
  for (;;) {
    LmrEntry e;
    {
      std::lock_guard<std::mutex> lock(queue_mutex_);
      if (queue_.empty()) break;
      e = queue_.front();
      queue_.pop_front();
    }
    ++notifications_;
    if (handler_) handler_(static_cast<int>(e.src_pe), e.id);
  }
  delivering_.store(false, std::memory_order_release);
}

bool PciddcBackend::prepare_sleep(std::vector<pollfd>* fds) {
  {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    if (!queue_.empty()) return false;
  }
  return link_->prepare_sleep(fds);
}

std::string PciddcBackend::describe() const {
  return "pciddc: " + link_->describe() + "; " + std::to_string(messages_) + " messages posted, " +
         std::to_string(notifications_) + " notifications received, LME " + std::to_string(lme_.capacity()) +
         " entries";
}

}  // namespace gasket::backend::pciddc
