#include "backends/ucx/ucx_backend.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <ucp/api/ucp.h>
#include <ucs/sys/uid.h>
#include <uct/api/uct.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>
#include <vector>

#include "backends/cpu_atomic.h"
#include "backends/netif/interfaces.h"
#include "core/base/log.h"

namespace gasket::backend::ucx {
namespace {

constexpr unsigned kAmId = 0;  // the one UCP active-message id gasket registers
constexpr char kWorkerAddressKey[] = "ucx.worker";
constexpr int kIdlePollsOversubscribed = 16;

std::string rkey_key(SegmentId id) { return "ucx.rkey." + std::to_string(id); }

// "<what>: <UCX's text>"; `what` names the call, the peer and the values involved.
Status ucx_error(ucs_status_t status, const std::string& what) {
  StatusCode code = status == UCS_ERR_UNREACHABLE ? StatusCode::kUnavailable : StatusCode::kIoError;
  return Status(code, "ucx: " + what + " failed: " + ucs_status_string(status));
}

// Layout of a PE's bootstrap record (kWorkerAddressKey): this header, the listener text
// (`listener_length` bytes: "port node stack name=a.b.c.d/p ...", backends/netif; empty when the
// PE has no listener), then the worker address.
struct WorkerRecordHeader {
  uint64_t system_id;  // this host's identity as UCX sees it (whether shared memory can reach it)
  uint32_t listener_length;
};

// Layout of a segment's bootstrap record: base and size on the owner, then the packed rkey.
struct RkeyRecordHeader {
  uint64_t base;
  uint64_t size;
};

// How each backend::AtomicOp is expressed with UCP's six opcodes. Fetch is OR 0 and set is a swap
// whose old value is discarded: both are still a single native atomic on the target.
struct UcpAtomicForm {
  ucp_atomic_op_t opcode;
  bool fetching;  // the old value goes to the caller
  bool zero_operand;
};
constexpr UcpAtomicForm kAtomicForms[] = {
    /* kFetch       */ {UCP_ATOMIC_OP_OR, true, true},
    /* kSet         */ {UCP_ATOMIC_OP_SWAP, false, false},
    /* kSwap        */ {UCP_ATOMIC_OP_SWAP, true, false},
    /* kCompareSwap */ {UCP_ATOMIC_OP_CSWAP, true, false},
    /* kAdd         */ {UCP_ATOMIC_OP_ADD, false, false},
    /* kFetchAdd    */ {UCP_ATOMIC_OP_ADD, true, false},
    /* kAnd         */ {UCP_ATOMIC_OP_AND, false, false},
    /* kFetchAnd    */ {UCP_ATOMIC_OP_AND, true, false},
    /* kOr          */ {UCP_ATOMIC_OP_OR, false, false},
    /* kFetchOr     */ {UCP_ATOMIC_OP_OR, true, false},
    /* kXor         */ {UCP_ATOMIC_OP_XOR, false, false},
    /* kFetchXor    */ {UCP_ATOMIC_OP_XOR, true, false},
};
static_assert(sizeof kAtomicForms / sizeof kAtomicForms[0] == static_cast<size_t>(AtomicOp::kCount),
              "one UCP form per atomic op");
constexpr uint32_t kAllAtomicOps = (1u << static_cast<unsigned>(AtomicOp::kCount)) - 1;

// Whether UCX might run atomics in a NIC rather than on the target's CPU. Shared-memory
// transports use CPU atomics on the mapped word and tcp has no device atomics (UCP emulates them
// with messages executed by the target CPU with atomic instructions): both are coherent with the
// CPU atomics of same-node PEs. Any other network device (InfiniBand, RoCE, ...) may use NIC
// atomics, which are not; this is decided conservatively from the devices UCX can see.
bool nic_atomics_possible() {
  uct_component_h* components = nullptr;
  unsigned n_components = 0;
  if (uct_query_components(&components, &n_components) != UCS_OK) return true;
  bool found = false;
  for (unsigned c = 0; c < n_components && !found; ++c) {
    uct_component_attr_t attr{};
    attr.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCE_COUNT;
    if (uct_component_query(components[c], &attr) != UCS_OK) continue;
    std::vector<uct_md_resource_desc_t> mds(attr.md_resource_count);
    attr.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCES;
    attr.md_resources = mds.data();
    if (uct_component_query(components[c], &attr) != UCS_OK) continue;
    for (const uct_md_resource_desc_t& md_desc : mds) {
      uct_md_config_t* md_config = nullptr;
      if (uct_md_config_read(components[c], nullptr, nullptr, &md_config) != UCS_OK) continue;
      uct_md_h md = nullptr;
      ucs_status_t st = uct_md_open(components[c], md_desc.md_name, md_config, &md);
      uct_config_release(md_config);
      if (st != UCS_OK) continue;
      uct_tl_resource_desc_t* tls = nullptr;
      unsigned n_tls = 0;
      if (uct_md_query_tl_resources(md, &tls, &n_tls) == UCS_OK) {
        for (unsigned t = 0; t < n_tls; ++t) {
          if (tls[t].dev_type == UCT_DEVICE_TYPE_NET && std::strcmp(tls[t].tl_name, "tcp") != 0) found = true;
        }
        uct_release_tl_resource_list(tls);
      }
      uct_md_close(md);
    }
  }
  uct_release_component_list(components);
  return found;
}

// Whether a UCX_TLS value (unset means "all") lets UCX pick a shared-memory transport, which
// cannot report peer failure. "^a,b" excludes a and b; "\\" prefixes are UCX's "exactly".
bool tls_include_shared_memory(const char* tls) {
  if (tls == nullptr || *tls == '\0') return true;
  std::string list(tls);
  bool exclude = list[0] == '^';
  if (exclude) list.erase(0, 1);
  bool sm = false, posix = false, sysv = false, xpmem = false, knem = false, all = false;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    std::string name = list.substr(start, end - start);
    if (!name.empty() && name[0] == '\\') name.erase(0, 1);
    sm |= name == "sm" || name == "shm" || name == "mm";
    all |= name == "all";
    posix |= name == "posix";
    sysv |= name == "sysv";
    xpmem |= name == "xpmem";
    knem |= name == "knem";
    start = end + 1;
  }
  if (exclude) return !(sm || all || (posix && sysv && xpmem));
  return sm || all || posix || sysv || xpmem || knem;
}

// Interface selection (backends/netif): GASKET_NET_INTERFACES becomes UCX_NET_DEVICES,
// unless the user set UCX_NET_DEVICES, which then wins.
Status select_net_devices(ucp_config_t* config, const std::string& selection) {
  if (selection.empty() || std::getenv("UCX_NET_DEVICES") != nullptr) return Status::ok();
  Result<std::string> devices = netif::ucx_net_devices(selection);
  if (!devices.is_ok()) return Status(devices.status().code(), "ucx: " + devices.status().message());
  ucs_status_t st = ucp_config_modify(config, "NET_DEVICES", devices.value().c_str());
  if (st != UCS_OK) return ucx_error(st, "ucp_config_modify(NET_DEVICES=" + devices.value() + ")");
  GASKET_DEBUG("ucx: UCX_NET_DEVICES=%s (from GASKET_NET_INTERFACES=%s)", devices.value().c_str(), selection.c_str());
  return Status::ok();
}

// Client-server endpoints (peers on other hosts) keep their lanes on the device the connection
// was made from, which netif chose by subnet; by default UCX 1.13 would add lanes on every
// device, from the wrong interface on a multi-rail host. UCX_CM_USE_ALL_DEVICES, when set, wins.
Status use_connection_device_only(ucp_config_t* config) {
  if (std::getenv("UCX_CM_USE_ALL_DEVICES") != nullptr) return Status::ok();
  ucs_status_t st = ucp_config_modify(config, "CM_USE_ALL_DEVICES", "n");
  return st == UCS_OK ? Status::ok() : ucx_error(st, "ucp_config_modify(CM_USE_ALL_DEVICES=n)");
}

class UcxBackend final : public Backend,
                         public RemoteRead,
                         public RemoteAtomics,
                         public ActiveMessages,
                         public UserRegistration,
                         public SegmentMemory {
 public:
  explicit UcxBackend(const StartInfo& info);
  ~UcxBackend() override;
  Status start();

  // ---- Backend ----
  const char* name() const override { return "ucx"; }
  const Limits& limits() const override { return limits_; }
  Status register_segment(SegmentId id, void* base, size_t size) override;
  Status deregister_segment(SegmentId id) override;
  Status finalize() override;
  Status put(int pe, RemoteAddress dst, const void* src, size_t len) override;
  Status fence() override;
  Status quiet() override;
  void progress() override;
  std::string describe() const override;
  int n_pes() const { return n_pes_; }
  bool has_endpoint(int pe) const { return peers_[static_cast<size_t>(pe)].ep.load(std::memory_order_acquire) != nullptr; }
  RemoteRead* remote_read() override { return this; }
  RemoteAtomics* remote_atomics() override { return this; }
  ActiveMessages* active_messages() override { return this; }
  UserRegistration* user_registration() override { return this; }
  SegmentMemory* segment_memory() override { return allocate_segments_ ? this : nullptr; }

  // ---- RemoteRead ----
  Status get(int pe, void* dst, RemoteAddress src, size_t len) override;
  bool reads_in_software() const override { return !rdma_device_; }

  // ---- RemoteAtomics ----
  uint32_t ops32() const override { return kAllAtomicOps; }
  uint32_t ops64() const override { return kAllAtomicOps; }
  bool coherent_with_cpu() const override { return !rdma_device_; }
  Status atomic(int pe, RemoteAddress dst, AtomicOp op, unsigned width, uint64_t operand,
                uint64_t compare, uint64_t* fetched, bool blocking) override;

  // ---- UserRegistration ----
  Status register_user(SegmentId id, void* base, size_t size, std::string* key) override;
  Status deregister_user(SegmentId id) override;
  Status attach_user(int pe, SegmentId id, uint64_t base, uint64_t size, const void* key, size_t key_len) override;

  // ---- SegmentMemory ----
  Result<char*> allocate_segment(SegmentId id, size_t size, size_t alignment) override;
  char* peer_segment(int pe, SegmentId id) override;

  // ---- ActiveMessages ----
  void set_handler(ActiveMessages::Handler handler) override;
  size_t max_payload() const override { return max_am_payload_; }
  Status send(int pe, const void* payload, size_t len) override;
  Status try_send(int pe, const void* payload, size_t len, bool* sent) override;
  size_t max_payload_with_body() const override { return max_payload_with_body_; }
  void set_placement(ActiveMessages::Placement place) override;
  Status send_with_body(int pe, const void* payload, size_t len, const void* body, size_t body_len) override;

 private:
  struct Peer {
    UcxBackend* owner = nullptr;
    int pe = 0;
    // Whether the endpoint reports peer failure (UCP_ERR_HANDLING_MODE_PEER). UCX 1.13's
    // shared-memory and self transports cannot and refuse that mode, so endpoints that may use
    // them do without: a same-host PE that dies is reported by the launcher, which watches them.
    bool failure_handling = false;
    std::atomic<ucp_ep_h> ep{nullptr};
    // Operations that need a flush to complete remotely (puts, atomics without a fetch, AMs):
    // `issued` counts them once posted, `flushed` is the count the last completed flush covered.
    // Counts rather than a flag, so that a quiet on one thread never skips an endpoint whose
    // flush another thread has started but not finished.
    std::atomic<uint64_t> issued{0};
    std::atomic<uint64_t> flushed{0};
  };
  // A peer's copy of a segment, learnt on first use.
  struct RemoteKey {
    std::atomic<ucp_rkey_h> rkey{nullptr};
    uint64_t base = 0;
    uint64_t size = 0;
    char* direct = nullptr;  // ucp_rkey_ptr: the peer's memory mapped here, when UCX can
  };
  struct SegmentState {
    ucp_mem_h memh = nullptr;
    std::unique_ptr<RemoteKey[]> keys;  // indexed by PE
    // Allocated by UCX (allocate_segment) and not yet registered: register_segment packs the key
    // of `memh` instead of mapping the memory.
    bool awaiting_registration = false;
  };
  // Where one operation lands.
  struct Target {
    ucp_ep_h ep;
    ucp_rkey_h rkey;
    uint64_t address;
    char* direct;
  };
  // A non-blocking get or fetching atomic whose request completes at the next quiet().
  struct PendingRequest {
    void* request;
    int pe;
    const char* call;
    size_t bytes;
  };
  // An active message waiting for delivery from progress() (never from inside a UCX callback,
  // so handlers may put, send and progress).
  struct ReceivedMessage {
    int src_pe;
    void* data;
    size_t len;
    bool ucx_owned;  // persistent UCX data, released with ucp_am_data_release
    std::unique_ptr<char[]> copy;
    // A body UCX is still writing to its place (ucp_am_recv_data_nbx): the message waits for it,
    // and so do the ones behind it.
    void* body_request = nullptr;
  };

  static void on_endpoint_error(void* arg, ucp_ep_h ep, ucs_status_t status);
  static void on_connection_request(ucp_conn_request_h request, void* arg);
  static ucs_status_t on_active_message(void* arg, const void* header, size_t header_length,
                                        void* data, size_t length, const ucp_am_recv_param_t* param);

  Status endpoint(int pe, ucp_ep_h* ep);
  Status connect(Peer& peer);
  Status listen();
  Status connect_by_sockaddr(Peer& peer, uint16_t port, const netif::HostAddresses& peer_host);
  void close_endpoints();
  Status target(int pe, RemoteAddress addr, size_t len, const char* call, Target* t);
  // Packs `memh`'s key and publishes it with the segment's base and size (ucx.rkey.<id>).
  Status publish_segment_key(SegmentId id, SegmentState& seg, void* base, size_t size);
  Status unpack_rkey(int pe, SegmentId id, RemoteKey& key);
  // Unpacks `packed` (from `pe`) into `key`; called with mutex_ held.
  Status unpack_into(ucp_ep_h ep, int pe, SegmentId id, const void* packed, uint64_t base, uint64_t size,
                     RemoteKey& key);
  // Where `pe`'s user segment `id` is, as attached (attach_user), or null.
  RemoteKey* user_key(int pe, SegmentId id);
  void destroy_key(RemoteKey& key);
  // One step of a wait: progresses the worker, yields the core when idle for long.
  void poll(unsigned* idle_polls);
  ucs_status_t wait(void* request);
  // Completes `request` (NULL, an error, or in flight); `what` describes the operation for errors.
  template <typename Describe>
  Status complete(ucs_status_ptr_t request, Describe&& what);
  // Returns an error only when the request failed at once; else it completes by the next quiet().
  template <typename Describe>
  Status defer(ucs_status_ptr_t request, int pe, const char* call, size_t bytes, Describe&& what);
  // An active message; `at_once`: never waits for the peer (a copy stays in flight if needed).
  Status am_send(int pe, const void* payload, size_t len, bool at_once, bool* sent);
  // Frees the copies of active messages UCX has completed (all of them: `wait_all`).
  Status reap_messages_in_flight(bool wait_all);
  // Marks an operation to `pe` posted: the next quiet flushes that endpoint.
  void issued_to(int pe) { peers_[static_cast<size_t>(pe)].issued.fetch_add(1, std::memory_order_release); }
  Status flush_endpoints();
  void deliver_active_messages();
  ucs_status_t receive_with_body(int src, const void* header, size_t header_length, void* data, size_t length,
                                 const ucp_am_recv_param_t* param);
  Status fence_while_progressing();
  unsigned progress_worker();
  void teardown();

  const int my_pe_;
  const int n_pes_;
  const bool thread_multiple_;
  // One thread at a time progresses the worker when several may (thread_multiple_): the others
  // would spin on UCX's worker lock, for whole time slices when threads outnumber cores.
  std::atomic_flag progressing_ = ATOMIC_FLAG_INIT;
  bootstrap::Bootstrap* const bootstrap_;
  unsigned idle_polls_before_yield_;
  size_t max_am_payload_;
  size_t max_payload_with_body_ = 0;  // the worker's largest AM header, less the sender's PE
  bool rdma_device_ = true;  // a network device other than tcp is visible (start()): NIC atomics and reads possible
  bool shared_memory_enabled_ = true;  // UCX_TLS lets UCX use a shared-memory transport
  bool allocate_segments_ = false;     // SegmentMemory offered (GASKET_UCX_ALLOCATE, shared memory)
  std::string net_interfaces_;         // GASKET_NET_INTERFACES (select_net_devices)
  std::string node_name_;              // GASKET_NODE_NAME, for netif's host record
  bool spans_nodes_ = false;           // some PE is on another node: listen for connections
  Limits limits_;

  ucp_context_h context_ = nullptr;
  ucp_worker_h worker_ = nullptr;
  std::vector<Peer> peers_;
  // Client-server connections (peers on another network stack, see connect_by_sockaddr): the
  // listener, this host's interfaces, and the endpoints created for peers' connection requests
  // (they serve those peers' operations; this PE's own go through peers_).
  ucp_listener_h listener_ = nullptr;
  netif::HostAddresses host_;
  std::string listener_record_;  // "port " + netif::encode(host_)
  std::vector<std::unique_ptr<Peer>> accepted_;
  std::vector<std::unique_ptr<SegmentState>> segments_;  // indexed by SegmentId
  // User segments (UserRegistration): this PE's own, and peers' attached here, by (PE, id).
  std::map<SegmentId, ucp_mem_h> user_memh_;
  std::mutex user_mutex_;
  std::map<std::pair<int, SegmentId>, std::unique_ptr<RemoteKey>> user_keys_;
  bool finalized_ = false;       // finalize() ran its fence: every PE is closing
  const uint32_t am_header_;     // the sender's PE, valid until the send completes
  uint64_t discarded_ = 0;       // reply buffer of set (a swap whose old value nobody wants)

  std::mutex mutex_;  // slow paths: connecting, unpacking rkeys, pending requests, AM queue
  std::vector<PendingRequest> pending_;
  std::atomic<size_t> pending_taken_{0};  // taken from pending_ by a quiet, not yet completed
  std::atomic<size_t> pending_posted_{0};  // pending_.size(), read by quiet without the lock
  std::atomic<int> endpoints_{0};
  std::atomic<int> rkeys_{0};
  std::atomic<int> direct_rkeys_{0};
  // Statistics for describe(): put/get/atomic calls that reached this backend (the core runs
  // those on peers' segments mapped through segment_memory() itself) and endpoint flushes started.
  std::atomic<uint64_t> rma_calls_{0};
  std::atomic<uint64_t> flushes_{0};
  std::atomic<bool> tearing_down_{false};

  // The handler and the received messages have a lock of their own: on_active_message takes it
  // inside ucp_worker_progress (UCX's worker lock held), so it must never be held around a UCX
  // call — mutex_ is (ucp_ep_create in connect: a thread connecting under mutex_ while another
  // progresses and receives would each wait for the other's lock).
  std::mutex am_queue_mutex_;
  ActiveMessages::Handler am_handler_;
  ActiveMessages::Placement placement_;
  std::deque<ReceivedMessage> am_queue_;
  std::atomic<size_t> am_queued_{0};
  // Active messages sent without waiting whose copy UCX still holds (under mutex_), in order.
  struct MessageInFlight {
    void* request;
    std::unique_ptr<char[]> copy;
    int pe;
    size_t len;
  };
  std::deque<MessageInFlight> am_in_flight_;
  std::atomic<size_t> am_in_flight_count_{0};
};

UcxBackend::UcxBackend(const StartInfo& info)
    : my_pe_(info.my_pe),
      n_pes_(info.n_pes),
      thread_multiple_(info.thread_multiple),
      bootstrap_(info.bootstrap),
      peers_(static_cast<size_t>(info.n_pes)),
      am_header_(static_cast<uint32_t>(info.my_pe)) {
  const config::Config& cfg = *info.config;
  const std::string& over = cfg.text(config::Knob::OVERSUBSCRIBED);
  bool oversubscribed = over == "yes" || (over == "auto" && bootstrap_->oversubscribed());
  idle_polls_before_yield_ = oversubscribed
                                 ? kIdlePollsOversubscribed
                                 : static_cast<unsigned>(cfg.integer(config::Knob::SPIN_COUNT));
  max_am_payload_ = cfg.size(config::Knob::UCX_AM_MAX_PAYLOAD);
  shared_memory_enabled_ = tls_include_shared_memory(std::getenv("UCX_TLS"));
  // Only UCX's shared-memory transports gain from memory UCX allocates (they map it into the
  // peer); without them (UCX_TLS=tcp) the core's registered files serve as well.
  allocate_segments_ = shared_memory_enabled_ && cfg.boolean(config::Knob::UCX_ALLOCATE);
  net_interfaces_ = cfg.text(config::Knob::NET_INTERFACES);
  node_name_ = cfg.text(config::Knob::NODE_NAME);
  for (int node : info.node_of_pe) spans_nodes_ = spans_nodes_ || node != info.node_of_pe[static_cast<size_t>(my_pe_)];
  for (int pe = 0; pe < n_pes_; ++pe) {
    peers_[static_cast<size_t>(pe)].owner = this;
    peers_[static_cast<size_t>(pe)].pe = pe;
  }
}

Status UcxBackend::start() {
  // UCX_* variables (UCX_TLS, UCX_NET_DEVICES, ...) are read here, as by any UCX program.
  ucp_config_t* config = nullptr;
  ucs_status_t st = ucp_config_read(nullptr, nullptr, &config);
  if (st != UCS_OK) return ucx_error(st, "ucp_config_read (check the UCX_* variables)");
  Status devices = select_net_devices(config, net_interfaces_);
  if (devices.is_ok() && spans_nodes_) devices = use_connection_device_only(config);
  if (!devices.is_ok()) {
    ucp_config_release(config);
    return devices;
  }
  ucp_params_t params{};
  params.field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
                      UCP_PARAM_FIELD_MT_WORKERS_SHARED | UCP_PARAM_FIELD_NAME;
  params.features = UCP_FEATURE_RMA | UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 | UCP_FEATURE_AM;
  params.estimated_num_eps = static_cast<size_t>(n_pes_);
  params.mt_workers_shared = 0;
  params.name = "gasket";
  st = ucp_init(&params, config, &context_);
  ucp_config_release(config);
  if (st != UCS_OK) return ucx_error(st, "ucp_init with features RMA, AMO32, AMO64, AM");

  ucp_worker_params_t wparams{};
  wparams.field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE | UCP_WORKER_PARAM_FIELD_CLIENT_ID;
  wparams.thread_mode = thread_multiple_ ? UCS_THREAD_MODE_MULTI : UCS_THREAD_MODE_SINGLE;
  wparams.client_id = static_cast<uint64_t>(my_pe_);  // names this PE in its connection requests
  st = ucp_worker_create(context_, &wparams, &worker_);
  if (st != UCS_OK) return ucx_error(st, "ucp_worker_create");
  if (thread_multiple_) {
    ucp_worker_attr_t wattr{};
    wattr.field_mask = UCP_WORKER_ATTR_FIELD_THREAD_MODE;
    st = ucp_worker_query(worker_, &wattr);
    if (st != UCS_OK) return ucx_error(st, "ucp_worker_query");
    if (wattr.thread_mode != UCS_THREAD_MODE_MULTI) {
      return Status(StatusCode::kUnavailable,
                    "ucx: the runtime was initialised for several threads but this UCX library "
                    "cannot give a worker thread mode MULTI (it was built without --enable-mt)");
    }
  }

  ucp_am_handler_param_t am{};
  am.field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                  UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG;
  am.id = kAmId;
  am.flags = UCP_AM_FLAG_WHOLE_MSG | UCP_AM_FLAG_PERSISTENT_DATA;
  am.cb = &UcxBackend::on_active_message;
  am.arg = this;
  st = ucp_worker_set_am_recv_handler(worker_, &am);
  if (st != UCS_OK) return ucx_error(st, "ucp_worker_set_am_recv_handler");
  // A message with a body carries its payload in the AM header (the body is UCX's data).
  ucp_worker_attr_t header_attr{};
  header_attr.field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER;
  st = ucp_worker_query(worker_, &header_attr);
  if (st != UCS_OK) return ucx_error(st, "ucp_worker_query (max_am_header)");
  if (header_attr.max_am_header > sizeof am_header_) {
    max_payload_with_body_ = std::min(max_am_payload_, header_attr.max_am_header - sizeof am_header_);
  }

  if (spans_nodes_) {
    Status listening = listen();
    if (!listening.is_ok()) return listening;
  }
  ucp_address_t* address = nullptr;
  size_t address_len = 0;
  st = ucp_worker_get_address(worker_, &address, &address_len);
  if (st != UCS_OK) return ucx_error(st, "ucp_worker_get_address");
  const WorkerRecordHeader header{ucs_get_system_id(), static_cast<uint32_t>(listener_record_.size())};
  std::string published(reinterpret_cast<const char*>(&header), sizeof header);
  published += listener_record_;
  published.append(reinterpret_cast<const char*>(address), address_len);
  ucp_worker_release_address(worker_, address);
  rdma_device_ = nic_atomics_possible();
  // Visible to peers after the bootstrap fence the core runs once segments are registered.
  return bootstrap_->put(kWorkerAddressKey, published);
}

UcxBackend::~UcxBackend() { teardown(); }

// ---- connections ----

void UcxBackend::on_endpoint_error(void* arg, ucp_ep_h, ucs_status_t status) {
  auto* peer = static_cast<Peer*>(arg);
  // Peers closing their endpoints at the end of the job are expected, not failures.
  if (peer->owner->tearing_down_.load(std::memory_order_acquire)) return;
  log::fatal("ucx: the endpoint to PE %d failed: %s (the peer died or can no longer be reached)",
             peer->pe, ucs_status_string(status));
}

Status UcxBackend::endpoint(int pe, ucp_ep_h* ep) {
  Peer& peer = peers_[static_cast<size_t>(pe)];
  *ep = peer.ep.load(std::memory_order_acquire);
  if (__builtin_expect(*ep != nullptr, 1)) return Status::ok();
  std::lock_guard<std::mutex> lock(mutex_);
  if (peer.ep.load(std::memory_order_acquire) == nullptr) {
    Status st = connect(peer);
    if (!st.is_ok()) return st;
  }
  *ep = peer.ep.load(std::memory_order_acquire);
  return Status::ok();
}

// Called with mutex_ held.
Status UcxBackend::connect(Peer& peer) {
  auto address = bootstrap_->get(peer.pe, kWorkerAddressKey);
  if (!address.is_ok()) {
    return Status(address.status().code(), "ucx: fetching PE " + std::to_string(peer.pe) +
                                               "'s worker address: " + address.status().message());
  }
  const std::string& record = address.value();
  WorkerRecordHeader header{};
  if (record.size() >= sizeof header) std::memcpy(&header, record.data(), sizeof header);
  if (record.size() <= sizeof header + size_t{header.listener_length}) {
    return Status(StatusCode::kProtocolError, "ucx: PE " + std::to_string(peer.pe) + "'s worker address record is " +
                                                  std::to_string(record.size()) + " bytes, too short");
  }
  // A peer on another network stack (another host) is reached client-server style, so that UCX
  // connects from the interface on its subnet; same-stack peers by worker address (shm, loopback).
  if (listener_ != nullptr && header.listener_length != 0) {
    std::istringstream listener(record.substr(sizeof header, header.listener_length));
    uint16_t port = 0;
    std::string host_record;
    listener >> port;
    std::getline(listener >> std::ws, host_record);
    Result<netif::HostAddresses> peer_host = netif::decode(host_record);
    if (!listener || port == 0 || !peer_host.is_ok()) {
      return Status(StatusCode::kProtocolError,
                    "ucx: PE " + std::to_string(peer.pe) + "'s listener record '" +
                        record.substr(sizeof header, header.listener_length) + "' is malformed" +
                        (peer_host.is_ok() ? "" : ": " + peer_host.status().message()));
    }
    if (peer_host->stack != host_.stack) return connect_by_sockaddr(peer, port, peer_host.value());
  }
  peer.failure_handling =
      peer.pe != my_pe_ && (header.system_id != ucs_get_system_id() || !shared_memory_enabled_);
  ucp_ep_params_t params{};
  params.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE;
  params.address =
      reinterpret_cast<const ucp_address_t*>(record.data() + sizeof header + header.listener_length);
  params.err_mode = UCP_ERR_HANDLING_MODE_NONE;
  if (peer.failure_handling) {
    params.field_mask |= UCP_EP_PARAM_FIELD_ERR_HANDLER;
    params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
    params.err_handler.cb = &UcxBackend::on_endpoint_error;
    params.err_handler.arg = &peer;
  }
  ucp_ep_h ep = nullptr;
  ucs_status_t st = ucp_ep_create(worker_, &params, &ep);
  if (st != UCS_OK) {
    return ucx_error(st, "ucp_ep_create to PE " + std::to_string(peer.pe) +
                             " (no transport in UCX_TLS reaches it?)");
  }
  peer.ep.store(ep, std::memory_order_release);
  int n = endpoints_.fetch_add(1) + 1;
  GASKET_DEBUG("ucx: connected to PE %d (%d endpoints)", peer.pe, n);
  return Status::ok();
}

// ---- client-server connections ----
//
// UCX 1.13's tcp transport treats every peer as reachable from every device, so a host with
// several data interfaces (the switchless triangle) connects from the wrong one when endpoints are
// made from worker addresses. A peer on another network stack is therefore connected through its
// listener, at the address netif chooses (the peer's address on the subnet of one of ours), from
// our address on that subnet: UCX then builds the endpoint's lanes on that device only
// (UCX_CM_USE_ALL_DEVICES=n, set in start() unless the user set it).

Status UcxBackend::listen() {
  Result<netif::HostAddresses> host = netif::this_host(node_name_, net_interfaces_);
  if (!host.is_ok()) return Status(host.status().code(), "ucx: " + host.status().message());
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  ucp_listener_params_t params{};
  params.field_mask = UCP_LISTENER_PARAM_FIELD_SOCK_ADDR | UCP_LISTENER_PARAM_FIELD_CONN_HANDLER;
  params.sockaddr.addr = reinterpret_cast<const sockaddr*>(&any);
  params.sockaddr.addrlen = sizeof any;
  params.conn_handler.cb = &UcxBackend::on_connection_request;
  params.conn_handler.arg = this;
  ucs_status_t st = ucp_listener_create(worker_, &params, &listener_);
  if (st != UCS_OK) {
    return ucx_error(st, "ucp_listener_create on 0.0.0.0 (peers on other hosts connect to it; is UCX's tcp "
                         "connection manager enabled, UCX_SOCKADDR_TLS_PRIORITY?)");
  }
  ucp_listener_attr_t attr{};
  attr.field_mask = UCP_LISTENER_ATTR_FIELD_SOCKADDR;
  st = ucp_listener_query(listener_, &attr);
  if (st != UCS_OK) return ucx_error(st, "ucp_listener_query");
  const uint16_t port = ntohs(reinterpret_cast<const sockaddr_in*>(&attr.sockaddr)->sin_port);
  host_ = std::move(host.value());
  listener_record_ = std::to_string(port) + " " + netif::encode(host_);
  GASKET_DEBUG("ucx: PE %d listens on port %u (%s)", my_pe_, port, netif::describe(host_.interfaces).c_str());
  return Status::ok();
}

// Called with mutex_ held.
Status UcxBackend::connect_by_sockaddr(Peer& peer, uint16_t port, const netif::HostAddresses& peer_host) {
  std::optional<netif::Route> route = netif::choose_route(host_.interfaces, peer_host.interfaces);
  if (!route) {
    return Status(StatusCode::kUnavailable, netif::unreachable_message("ucx", my_pe_, host_, peer.pe, peer_host));
  }
  sockaddr_in remote{}, local{};
  remote.sin_family = local.sin_family = AF_INET;
  remote.sin_addr.s_addr = htonl(route->peer_address);
  remote.sin_port = htons(port);
  local.sin_addr.s_addr = htonl(route->local.address);
  peer.failure_handling = true;  // client-server endpoints always report a failed peer
  ucp_ep_params_t params{};
  params.field_mask = UCP_EP_PARAM_FIELD_FLAGS | UCP_EP_PARAM_FIELD_SOCK_ADDR | UCP_EP_PARAM_FIELD_LOCAL_SOCK_ADDR |
                      UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE | UCP_EP_PARAM_FIELD_ERR_HANDLER;
  params.flags = UCP_EP_PARAMS_FLAGS_CLIENT_SERVER | UCP_EP_PARAMS_FLAGS_SEND_CLIENT_ID;
  params.sockaddr.addr = reinterpret_cast<const sockaddr*>(&remote);
  params.sockaddr.addrlen = sizeof remote;
  params.local_sockaddr.addr = reinterpret_cast<const sockaddr*>(&local);
  params.local_sockaddr.addrlen = sizeof local;
  params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  params.err_handler.cb = &UcxBackend::on_endpoint_error;
  params.err_handler.arg = &peer;
  const std::string path = netif::format_address(route->local.address) + " (" + route->local.name + ") -> " +
                           netif::format_address(route->peer_address) + ":" + std::to_string(port);
  ucp_ep_h ep = nullptr;
  ucs_status_t st = ucp_ep_create(worker_, &params, &ep);
  if (st != UCS_OK) return ucx_error(st, "ucp_ep_create to PE " + std::to_string(peer.pe) + " (node " + peer_host.node + ", " + path + ")");
  peer.ep.store(ep, std::memory_order_release);
  int n = endpoints_.fetch_add(1) + 1;
  GASKET_DEBUG("ucx: connecting to PE %d (node %s) from %s (%d endpoints)", peer.pe, peer_host.node.c_str(),
               path.c_str(), n);
  return Status::ok();
}

void UcxBackend::on_connection_request(ucp_conn_request_h request, void* arg) {
  auto* self = static_cast<UcxBackend*>(arg);
  ucp_conn_request_attr_t attr{};
  attr.field_mask = UCP_CONN_REQUEST_ATTR_FIELD_CLIENT_ID;
  ucs_status_t st = ucp_conn_request_query(request, &attr);
  if (st != UCS_OK || attr.client_id >= static_cast<uint64_t>(self->n_pes_)) {
    GASKET_WARN("ucx: PE %d: rejected a connection request (%s, client id %llu: not a PE of this job)", self->my_pe_,
                ucs_status_string(st), static_cast<unsigned long long>(attr.client_id));
    (void)ucp_listener_reject(self->listener_, request);
    return;
  }
  auto peer = std::make_unique<Peer>();
  peer->owner = self;
  peer->pe = static_cast<int>(attr.client_id);
  peer->failure_handling = true;
  ucp_ep_params_t params{};
  params.field_mask = UCP_EP_PARAM_FIELD_CONN_REQUEST | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER;
  params.conn_request = request;
  params.err_mode = UCP_ERR_HANDLING_MODE_PEER;
  params.err_handler.cb = &UcxBackend::on_endpoint_error;
  params.err_handler.arg = peer.get();
  ucp_ep_h ep = nullptr;
  st = ucp_ep_create(self->worker_, &params, &ep);
  if (st != UCS_OK) {
    log::fatal("ucx: PE %d: ucp_ep_create accepting the connection of PE %d failed: %s", self->my_pe_, peer->pe,
               ucs_status_string(st));
  }
  peer->ep.store(ep, std::memory_order_release);
  GASKET_DEBUG("ucx: accepted the connection of PE %d", peer->pe);
  std::lock_guard<std::mutex> lock(self->mutex_);
  self->accepted_.push_back(std::move(peer));
}

Status UcxBackend::unpack_rkey(int pe, SegmentId id, RemoteKey& key) {
  ucp_ep_h ep;
  Status s = endpoint(pe, &ep);
  if (!s.is_ok()) return s;
  std::lock_guard<std::mutex> lock(mutex_);
  if (key.rkey.load(std::memory_order_acquire) != nullptr) return Status::ok();
  auto record = bootstrap_->get(pe, rkey_key(id));
  if (!record.is_ok()) {
    return Status(record.status().code(), "ucx: fetching PE " + std::to_string(pe) + "'s key of segment " +
                                              std::to_string(id) + ": " + record.status().message());
  }
  const std::string& r = record.value();
  if (r.size() <= sizeof(RkeyRecordHeader)) {
    return Status(StatusCode::kProtocolError, "ucx: PE " + std::to_string(pe) + "'s key record of segment " +
                                                  std::to_string(id) + " is " + std::to_string(r.size()) +
                                                  " bytes, too short");
  }
  RkeyRecordHeader header;
  std::memcpy(&header, r.data(), sizeof header);
  return unpack_into(ep, pe, id, r.data() + sizeof header, header.base, header.size, key);
}

Status UcxBackend::unpack_into(ucp_ep_h ep, int pe, SegmentId id, const void* packed, uint64_t base, uint64_t size,
                               RemoteKey& key) {
  ucp_rkey_h rkey = nullptr;
  ucs_status_t st = ucp_ep_rkey_unpack(ep, packed, &rkey);
  if (st != UCS_OK) {
    return ucx_error(st, "ucp_ep_rkey_unpack of PE " + std::to_string(pe) + "'s segment " + std::to_string(id));
  }
  key.base = base;
  key.size = size;
  void* direct = nullptr;
  if (ucp_rkey_ptr(rkey, base, &direct) == UCS_OK) {
    key.direct = static_cast<char*>(direct);
    direct_rkeys_.fetch_add(1);
  }
  key.rkey.store(rkey, std::memory_order_release);
  rkeys_.fetch_add(1);
  return Status::ok();
}

void UcxBackend::destroy_key(RemoteKey& key) {
  ucp_rkey_h rkey = key.rkey.exchange(nullptr);
  if (rkey == nullptr) return;
  ucp_rkey_destroy(rkey);
  rkeys_.fetch_sub(1);
  if (key.direct != nullptr) direct_rkeys_.fetch_sub(1);
  key.direct = nullptr;
}

Status UcxBackend::target(int pe, RemoteAddress addr, size_t len, const char* call, Target* t) {
  RemoteKey* found = nullptr;
  if (addr.segment >= segments::kFirstUserSegment) {
    found = user_key(pe, addr.segment);
    if (found == nullptr) {
      return invalid_argument("ucx: " + std::string(call) + " to PE " + std::to_string(pe) + " names its user segment " +
                              std::to_string(addr.segment) + ", which is not attached here (attach_user)");
    }
  } else if (__builtin_expect(addr.segment >= segments_.size() || !segments_[addr.segment], 0)) {
    return invalid_argument("ucx: " + std::string(call) + " to PE " + std::to_string(pe) + " names segment " +
                            std::to_string(addr.segment) + ", which is not registered");
  } else {
    found = &segments_[addr.segment]->keys[static_cast<size_t>(pe)];
  }
  RemoteKey& key = *found;
  ucp_rkey_h rkey = key.rkey.load(std::memory_order_acquire);
  if (__builtin_expect(rkey == nullptr, 0)) {
    Status st = unpack_rkey(pe, addr.segment, key);
    if (!st.is_ok()) return st;
    rkey = key.rkey.load(std::memory_order_acquire);
  }
  if (__builtin_expect(addr.offset > key.size || len > key.size - addr.offset, 0)) {
    return invalid_argument("ucx: " + std::string(call) + " of " + std::to_string(len) + " bytes at offset " +
                            std::to_string(addr.offset) + " of PE " + std::to_string(pe) + "'s segment " +
                            std::to_string(addr.segment) + " runs past its end (" + std::to_string(key.size) +
                            " bytes)");
  }
  t->ep = peers_[static_cast<size_t>(pe)].ep.load(std::memory_order_acquire);
  t->rkey = rkey;
  t->address = key.base + addr.offset;
  t->direct = key.direct == nullptr ? nullptr : key.direct + addr.offset;
  return Status::ok();
}

// ---- requests ----

// The events progressed, 0 when another thread is progressing the worker (it delivers for this
// one too).
unsigned UcxBackend::progress_worker() {
  if (!thread_multiple_) return ucp_worker_progress(worker_);
  if (progressing_.test_and_set(std::memory_order_acquire)) return 0;
  unsigned events = ucp_worker_progress(worker_);
  progressing_.clear(std::memory_order_release);
  return events;
}

void UcxBackend::poll(unsigned* idle_polls) {
  if (progress_worker() != 0) {
    *idle_polls = 0;
  } else if (++*idle_polls >= idle_polls_before_yield_) {
    // The peer that must answer may be waiting for this core (PEs outnumber cores).
    sched_yield();
  }
}

ucs_status_t UcxBackend::wait(void* request) {
  unsigned idle = 0;
  ucs_status_t st;
  while ((st = ucp_request_check_status(request)) == UCS_INPROGRESS) poll(&idle);
  ucp_request_free(request);
  return st;
}

template <typename Describe>
Status UcxBackend::complete(ucs_status_ptr_t request, Describe&& what) {
  if (request == nullptr) return Status::ok();
  if (UCS_PTR_IS_ERR(request)) return ucx_error(UCS_PTR_STATUS(request), what());
  ucs_status_t st = wait(request);
  return st == UCS_OK ? Status::ok() : ucx_error(st, what());
}

template <typename Describe>
Status UcxBackend::defer(ucs_status_ptr_t request, int pe, const char* call, size_t bytes,
                         Describe&& what) {
  if (request == nullptr) return Status::ok();
  if (UCS_PTR_IS_ERR(request)) return ucx_error(UCS_PTR_STATUS(request), what());
  std::lock_guard<std::mutex> lock(mutex_);
  pending_.push_back(PendingRequest{request, pe, call, bytes});
  pending_posted_.store(pending_.size(), std::memory_order_release);
  return Status::ok();
}

// Flushes every endpoint with operations issued since its last flush, all started before any is
// waited for. Per endpoint, not ucp_worker_flush_nbx: with UCX 1.13 on shared memory (UCX_TLS=sm,
// where atomics on gasket's segments are emulated by UCX over its AM lane), the worker flush
// returned while some of the atomics an endpoint had sent were not yet executed by the target;
// ucp_ep_flush_nbx waits for their remote completion (tests/shmem quiet_completes_atomics).
Status UcxBackend::flush_endpoints() {
  struct Flushing {
    Peer* peer;
    uint64_t covers;  // the peer's issued count when the flush started
    ucs_status_ptr_t request;
  };
  std::vector<Flushing> flushing;
  for (Peer& peer : peers_) {
    const uint64_t issued = peer.issued.load(std::memory_order_acquire);
    if (peer.flushed.load(std::memory_order_acquire) >= issued) continue;
    ucp_request_param_t param{};
    flushing.push_back(Flushing{&peer, issued, ucp_ep_flush_nbx(peer.ep.load(std::memory_order_acquire), &param)});
    flushes_.fetch_add(1, std::memory_order_relaxed);
  }
  Status result = Status::ok();
  for (const Flushing& f : flushing) {
    Status st = complete(f.request, [&] { return "ucp_ep_flush_nbx to PE " + std::to_string(f.peer->pe); });
    if (!st.is_ok()) {
      if (result.is_ok()) result = st;
      continue;
    }
    uint64_t flushed = f.peer->flushed.load(std::memory_order_relaxed);
    while (flushed < f.covers &&
           !f.peer->flushed.compare_exchange_weak(flushed, f.covers, std::memory_order_acq_rel)) {
    }
  }
  return result;
}

// ---- segments ----

Status UcxBackend::register_segment(SegmentId id, void* base, size_t size) {
  if (id < segments_.size() && segments_[id] && segments_[id]->awaiting_registration) {
    return publish_segment_key(id, *segments_[id], base, size);  // allocated here: mapped already
  }
  if (id < segments_.size() && segments_[id]) {
    return invalid_argument("ucx: segment " + std::to_string(id) + " is already registered");
  }
  auto seg = std::make_unique<SegmentState>();
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  mp.address = base;
  mp.length = size;
  ucs_status_t st = ucp_mem_map(context_, &mp, &seg->memh);
  if (st != UCS_OK) {
    return ucx_error(st, "ucp_mem_map of segment " + std::to_string(id) + " (" + std::to_string(size) +
                             " bytes at " + std::to_string(reinterpret_cast<uintptr_t>(base)) + ")");
  }
  if (segments_.size() <= id) segments_.resize(id + 1);
  segments_[id] = std::move(seg);
  return publish_segment_key(id, *segments_[id], base, size);
}

Status UcxBackend::publish_segment_key(SegmentId id, SegmentState& seg, void* base, size_t size) {
  void* packed = nullptr;
  size_t packed_len = 0;
  ucs_status_t st = ucp_rkey_pack(context_, seg.memh, &packed, &packed_len);
  if (st != UCS_OK) return ucx_error(st, "ucp_rkey_pack of segment " + std::to_string(id));
  RkeyRecordHeader header{reinterpret_cast<uint64_t>(base), size};
  std::string record(reinterpret_cast<const char*>(&header), sizeof header);
  record.append(static_cast<const char*>(packed), packed_len);
  ucp_rkey_buffer_release(packed);
  seg.keys = std::make_unique<RemoteKey[]>(static_cast<size_t>(n_pes_));
  seg.awaiting_registration = false;
  return bootstrap_->put(rkey_key(id), record);
}

Result<char*> UcxBackend::allocate_segment(SegmentId id, size_t size, size_t alignment) {
  if (id < segments_.size() && segments_[id]) {
    return invalid_argument("ucx: PE " + std::to_string(my_pe_) + ": segment " + std::to_string(id) +
                            " is already allocated or registered");
  }
  // UCX places the memory on a page boundary: `alignment` more bytes leave room to start the
  // segment on its own boundary. NONBLOCK: pages are not populated up front (resident memory
  // grows only with use, as with the core's files).
  auto seg = std::make_unique<SegmentState>();
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_FLAGS;
  mp.address = nullptr;
  mp.length = size + alignment;
  mp.flags = UCP_MEM_MAP_ALLOCATE | UCP_MEM_MAP_NONBLOCK;
  ucs_status_t st = ucp_mem_map(context_, &mp, &seg->memh);
  const std::string what = "ucp_mem_map(UCP_MEM_MAP_ALLOCATE) of segment " + std::to_string(id) + " (PE " +
                           std::to_string(my_pe_) + ", " + std::to_string(mp.length) + " bytes)";
  if (st != UCS_OK) return ucx_error(st, what);
  ucp_mem_attr_t attr{};
  attr.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS | UCP_MEM_ATTR_FIELD_LENGTH;
  st = ucp_mem_query(seg->memh, &attr);
  if (st != UCS_OK) {
    (void)ucp_mem_unmap(context_, seg->memh);
    return ucx_error(st, "ucp_mem_query after " + what);
  }
  const auto start = reinterpret_cast<uintptr_t>(attr.address);
  const uintptr_t aligned = (start + alignment - 1) & ~(uintptr_t{alignment} - 1);
  if (aligned + size > start + attr.length) {
    (void)ucp_mem_unmap(context_, seg->memh);
    return Status(StatusCode::kInternal, what + " gave " + std::to_string(attr.length) + " bytes at " +
                                             std::to_string(start) + ", too few for " + std::to_string(size) +
                                             " bytes on a " + std::to_string(alignment) + "-byte boundary");
  }
  seg->awaiting_registration = true;
  if (segments_.size() <= id) segments_.resize(id + 1);
  segments_[id] = std::move(seg);
  return reinterpret_cast<char*>(aligned);
}

char* UcxBackend::peer_segment(int pe, SegmentId id) {
  if (id >= segments_.size() || !segments_[id] || !segments_[id]->keys) return nullptr;
  RemoteKey& key = segments_[id]->keys[static_cast<size_t>(pe)];
  if (key.rkey.load(std::memory_order_acquire) == nullptr) {
    Status st = unpack_rkey(pe, id, key);
    if (!st.is_ok()) {
      GASKET_WARN("ucx: PE %d: PE %d's segment %u is not mapped here: %s", my_pe_, pe, id, st.message().c_str());
      return nullptr;
    }
  }
  return key.direct;
}

Status UcxBackend::deregister_segment(SegmentId id) {
  if (id >= segments_.size() || !segments_[id]) {
    return invalid_argument("ucx: deregistering segment " + std::to_string(id) + ", which is not registered");
  }
  SegmentState& seg = *segments_[id];
  for (int pe = 0; seg.keys && pe < n_pes_; ++pe) destroy_key(seg.keys[static_cast<size_t>(pe)]);
  ucs_status_t st = ucp_mem_unmap(context_, seg.memh);
  segments_[id].reset();
  return st == UCS_OK ? Status::ok() : ucx_error(st, "ucp_mem_unmap of segment " + std::to_string(id));
}

// ---- user segments ----

Status UcxBackend::register_user(SegmentId id, void* base, size_t size, std::string* key) {
  if (id < segments::kFirstUserSegment) {
    return invalid_argument("ucx: PE " + std::to_string(my_pe_) + ": user segment id " + std::to_string(id) +
                            " is below " + std::to_string(segments::kFirstUserSegment));
  }
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  mp.address = base;
  mp.length = size;
  ucp_mem_h memh = nullptr;
  ucs_status_t st = ucp_mem_map(context_, &mp, &memh);
  if (st != UCS_OK) {
    return ucx_error(st, "ucp_mem_map of user memory (PE " + std::to_string(my_pe_) + ", segment " +
                             std::to_string(id) + ", " + std::to_string(size) + " bytes at " +
                             std::to_string(reinterpret_cast<uintptr_t>(base)) + ")");
  }
  void* packed = nullptr;
  size_t packed_len = 0;
  st = ucp_rkey_pack(context_, memh, &packed, &packed_len);
  if (st != UCS_OK) {
    (void)ucp_mem_unmap(context_, memh);
    return ucx_error(st, "ucp_rkey_pack of user segment " + std::to_string(id) + " (PE " + std::to_string(my_pe_) + ")");
  }
  key->assign(static_cast<const char*>(packed), packed_len);
  ucp_rkey_buffer_release(packed);
  std::lock_guard<std::mutex> lock(user_mutex_);
  user_memh_[id] = memh;
  return Status::ok();
}

Status UcxBackend::deregister_user(SegmentId id) {
  ucp_mem_h memh = nullptr;
  {
    std::lock_guard<std::mutex> lock(user_mutex_);
    auto it = user_memh_.find(id);
    if (it == user_memh_.end()) {
      return invalid_argument("ucx: PE " + std::to_string(my_pe_) + ": deregistering user segment " +
                              std::to_string(id) + ", which is not registered");
    }
    memh = it->second;
    user_memh_.erase(it);
  }
  ucs_status_t st = ucp_mem_unmap(context_, memh);
  return st == UCS_OK ? Status::ok()
                      : ucx_error(st, "ucp_mem_unmap of user segment " + std::to_string(id) + " (PE " +
                                          std::to_string(my_pe_) + ")");
}

UcxBackend::RemoteKey* UcxBackend::user_key(int pe, SegmentId id) {
  std::lock_guard<std::mutex> lock(user_mutex_);
  auto it = user_keys_.find({pe, id});
  return it == user_keys_.end() ? nullptr : it->second.get();
}

Status UcxBackend::attach_user(int pe, SegmentId id, uint64_t base, uint64_t size, const void* key, size_t key_len) {
  if (user_key(pe, id) != nullptr) return Status::ok();
  if (key_len == 0) {
    return invalid_argument("ucx: PE " + std::to_string(my_pe_) + ": attaching PE " + std::to_string(pe) +
                            "'s user segment " + std::to_string(id) + " without a key");
  }
  ucp_ep_h ep;
  Status s = endpoint(pe, &ep);
  if (!s.is_ok()) return s;
  auto remote = std::make_unique<RemoteKey>();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    s = unpack_into(ep, pe, id, key, base, size, *remote);
  }
  if (!s.is_ok()) return s;
  std::lock_guard<std::mutex> lock(user_mutex_);
  auto& slot = user_keys_[{pe, id}];
  if (slot) {
    destroy_key(*remote);  // another thread attached it meanwhile
  } else {
    slot = std::move(remote);
  }
  return Status::ok();
}

// ---- RMA ----

Status UcxBackend::put(int pe, RemoteAddress dst, const void* src, size_t len) {
  rma_calls_.fetch_add(1, std::memory_order_relaxed);
  Target t;
  Status s = target(pe, dst, len, "put", &t);
  if (!s.is_ok()) return s;
  if (t.direct != nullptr) {
    std::memcpy(t.direct, src, len);
    return Status::ok();
  }
  ucp_request_param_t param{};
  ucs_status_ptr_t req = ucp_put_nbx(t.ep, src, len, t.address, t.rkey, &param);
  issued_to(pe);
  // `src` is reusable on return: wait for local completion when UCX did not finish at once.
  return complete(req, [&] {
    return "ucp_put_nbx of " + std::to_string(len) + " bytes to PE " + std::to_string(pe) + " (segment " +
           std::to_string(dst.segment) + ", offset " + std::to_string(dst.offset) + ")";
  });
}

Status UcxBackend::get(int pe, void* dst, RemoteAddress src, size_t len) {
  rma_calls_.fetch_add(1, std::memory_order_relaxed);
  Target t;
  Status s = target(pe, src, len, "get", &t);
  if (!s.is_ok()) return s;
  if (t.direct != nullptr) {
    std::memcpy(dst, t.direct, len);
    return Status::ok();
  }
  ucp_request_param_t param{};
  ucs_status_ptr_t req = ucp_get_nbx(t.ep, dst, len, t.address, t.rkey, &param);
  return defer(req, pe, "ucp_get_nbx", len, [&] {
    return "ucp_get_nbx of " + std::to_string(len) + " bytes from PE " + std::to_string(pe) + " (segment " +
           std::to_string(src.segment) + ", offset " + std::to_string(src.offset) + ")";
  });
}

Status UcxBackend::atomic(int pe, RemoteAddress dst, AtomicOp op, unsigned width, uint64_t operand,
                          uint64_t compare, uint64_t* fetched, bool blocking) {
  rma_calls_.fetch_add(1, std::memory_order_relaxed);
  if (width != 4 && width != 8) {
    return invalid_argument("ucx: atomic on PE " + std::to_string(pe) + " of width " + std::to_string(width) +
                            " (4 or 8 bytes)");
  }
  Target t;
  Status s = target(pe, dst, width, "atomic", &t);
  if (!s.is_ok()) return s;
  if (t.direct != nullptr) {
    // The peer's memory is mapped here (UCX's shared-memory transports): a CPU atomic on it, as
    // those transports run it; complete at once, nothing to flush.
    uint64_t old = cpu_atomic(t.direct, width, op, operand, compare);
    if (kAtomicForms[static_cast<unsigned>(op)].fetching) *fetched = old;
    return Status::ok();
  }
  const UcpAtomicForm& form = kAtomicForms[static_cast<unsigned>(op)];
  const uint64_t mask = width == 4 ? 0xffffffffull : ~0ull;
  // CSWAP takes the compare value as its operand and the new value in the reply buffer.
  const bool cswap = op == AtomicOp::kCompareSwap;
  uint64_t value = form.zero_operand ? 0 : (cswap ? compare : operand) & mask;
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE;
  param.datatype = ucp_dt_make_contig(width);
  if (form.fetching) {
    // UCX writes `width` bytes of the old value (little-endian: the low half of *fetched).
    *fetched = cswap ? operand & mask : 0;
    param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    param.reply_buffer = fetched;
  } else if (form.opcode == UCP_ATOMIC_OP_SWAP) {
    param.op_attr_mask |= UCP_OP_ATTR_FIELD_REPLY_BUFFER;
    param.reply_buffer = &discarded_;
  }
  // UCP copies the operand into the request, so only the reply buffer must outlive the call.
  ucs_status_ptr_t req = ucp_atomic_op_nbx(t.ep, form.opcode, &value, 1, t.address, t.rkey, &param);
  auto what = [&] {
    return "ucp_atomic_op_nbx (" + std::to_string(width * 8) + "-bit op " + std::to_string(static_cast<int>(op)) +
           ") on PE " + std::to_string(pe) + " (segment " + std::to_string(dst.segment) + ", offset " +
           std::to_string(dst.offset) + ")";
  };
  if (form.fetching && blocking) return complete(req, what);
  issued_to(pe);
  if (form.fetching) return defer(req, pe, "ucp_atomic_op_nbx", width, what);
  // Nothing comes back to the caller: the request is released when UCX is done with it, and the
  // next flush waits for it.
  if (req != nullptr && UCS_PTR_IS_ERR(req)) return ucx_error(UCS_PTR_STATUS(req), what());
  if (req != nullptr) ucp_request_free(req);
  return Status::ok();
}

Status UcxBackend::fence() {
  // Direct (rkey_ptr) copies bypass UCX's ordering, so with any in use a fence must complete.
  if (direct_rkeys_.load(std::memory_order_relaxed) != 0) return quiet();
  ucs_status_t st = ucp_worker_fence(worker_);
  return st == UCS_OK ? Status::ok() : ucx_error(st, "ucp_worker_fence");
}

Status UcxBackend::quiet() {
  Status result = reap_messages_in_flight(true);
  Status flushed = flush_endpoints();
  if (result.is_ok()) result = flushed;
  std::vector<PendingRequest> pending;
  // Without the lock when nothing is posted: a get this thread issued shows in pending_posted_,
  // and one another quiet took, in pending_taken_ (counted before pending_posted_ is cleared).
  if (pending_posted_.load(std::memory_order_acquire) != 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending.swap(pending_);
    pending_taken_.fetch_add(pending.size(), std::memory_order_relaxed);
    pending_posted_.store(0, std::memory_order_release);
  }
  for (const PendingRequest& p : pending) {
    ucs_status_t st = wait(p.request);
    pending_taken_.fetch_sub(1, std::memory_order_release);
    if (st != UCS_OK && result.is_ok()) {
      result = ucx_error(st, std::string(p.call) + " of " + std::to_string(p.bytes) + " bytes from PE " +
                                 std::to_string(p.pe));
    }
  }
  // Requests another thread's quiet took before this one are this PE's operations too: wait for
  // them rather than return while a get issued here may still be landing.
  unsigned idle = 0;
  while (pending_taken_.load(std::memory_order_acquire) != 0) poll(&idle);
  return result;
}

void UcxBackend::progress() {
  progress_worker();
  if (am_in_flight_count_.load(std::memory_order_acquire) != 0) {
    Status st = reap_messages_in_flight(false);
    if (!st.is_ok()) log::fatal("%s", st.message().c_str());
  }
  if (am_queued_.load(std::memory_order_acquire) != 0) deliver_active_messages();
}

// ---- active messages ----

ucs_status_t UcxBackend::on_active_message(void* arg, const void* header, size_t header_length,
                                           void* data, size_t length, const ucp_am_recv_param_t* param) {
  auto* self = static_cast<UcxBackend*>(arg);
  uint32_t src = 0;
  if (header_length < sizeof src) {
    log::fatal("ucx: received an active message with a %zu-byte header (gasket sends at least %zu): another "
               "program shares this UCX worker's address?", header_length, sizeof src);
  }
  std::memcpy(&src, header, sizeof src);
  if (header_length > sizeof src) return self->receive_with_body(static_cast<int>(src), header, header_length, data, length, param);
  if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
    log::fatal("ucx: PE %u sent an active message of %zu bytes by rendezvous; gasket sends them eagerly "
               "up to %zu bytes", src, length, self->max_am_payload_);
  }
  ReceivedMessage m{static_cast<int>(src), data, length, false, nullptr};
  ucs_status_t keep = UCS_OK;
  if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA) {
    m.ucx_owned = true;  // UCX keeps the data until ucp_am_data_release
    keep = UCS_INPROGRESS;
  } else {
    m.copy = std::make_unique<char[]>(length == 0 ? 1 : length);
    std::memcpy(m.copy.get(), data, length);
    m.data = m.copy.get();
  }
  std::lock_guard<std::mutex> lock(self->am_queue_mutex_);
  self->am_queue_.push_back(std::move(m));
  self->am_queued_.fetch_add(1, std::memory_order_release);
  return keep;
}

// A message with a body (send_with_body): the payload follows the sender's PE in the header;
// the body goes to where the placement says, by UCX's rendezvous straight into it, or, sent
// eagerly, copied from UCX's receive buffer into it here. The payload is queued (a copy) and
// delivered once the body is in place.
ucs_status_t UcxBackend::receive_with_body(int src, const void* header, size_t header_length, void* data,
                                           size_t length, const ucp_am_recv_param_t* param) {
  const char* payload = static_cast<const char*>(header) + sizeof(uint32_t);
  const size_t len = header_length - sizeof(uint32_t);
  Placement place;
  {
    std::lock_guard<std::mutex> lock(am_queue_mutex_);
    place = placement_;
  }
  if (!place) log::fatal("ucx: PE %d sent an active message with a body, but nothing here places bodies", src);
  char* dest = static_cast<char*>(place(src, payload, len, length));
  ReceivedMessage m{src, nullptr, len, false, std::make_unique<char[]>(len)};
  std::memcpy(m.copy.get(), payload, len);
  m.data = m.copy.get();
  if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) {
    ucp_request_param_t rp{};
    ucs_status_ptr_t req = ucp_am_recv_data_nbx(worker_, data, dest, length, &rp);
    if (UCS_PTR_IS_ERR(req)) {
      log::fatal("ucx: receiving the %zu-byte body of PE %d's active message failed: %s", length, src,
                 ucs_status_string(UCS_PTR_STATUS(req)));
    }
    m.body_request = req;
  } else if (length > 0) {
    std::memcpy(dest, data, length);
  }
  std::lock_guard<std::mutex> lock(am_queue_mutex_);
  am_queue_.push_back(std::move(m));
  am_queued_.fetch_add(1, std::memory_order_release);
  return UCS_OK;
}

void UcxBackend::deliver_active_messages() {
  // One message at a time, the lock released around the handler: a handler may send, put and
  // progress (which may deliver the next messages itself).
  for (;;) {
    ReceivedMessage m;
    {
      std::lock_guard<std::mutex> lock(am_queue_mutex_);
      if (am_queue_.empty() || !am_handler_) return;
      if (void* body = am_queue_.front().body_request) {
        ucs_status_t st = ucp_request_check_status(body);
        if (st == UCS_INPROGRESS) return;  // in order: the messages behind it wait too
        ucp_request_free(body);
        am_queue_.front().body_request = nullptr;
        if (st != UCS_OK) {
          log::fatal("ucx: the body of PE %d's active message did not arrive: %s", am_queue_.front().src_pe,
                     ucs_status_string(st));
        }
      }
      m = std::move(am_queue_.front());
      am_queue_.pop_front();
      am_queued_.fetch_sub(1, std::memory_order_release);
    }
    am_handler_(m.src_pe, m.data, m.len);
    if (m.ucx_owned) ucp_am_data_release(worker_, m.data);
  }
}

void UcxBackend::set_handler(ActiveMessages::Handler handler) {
  std::lock_guard<std::mutex> lock(am_queue_mutex_);
  am_handler_ = std::move(handler);
}

void UcxBackend::set_placement(ActiveMessages::Placement place) {
  std::lock_guard<std::mutex> lock(am_queue_mutex_);
  placement_ = std::move(place);
}

Status UcxBackend::send_with_body(int pe, const void* payload, size_t len, const void* body, size_t body_len) {
  if (len > max_payload_with_body_) {
    return invalid_argument("ucx: an active message with a body carries at most " +
                            std::to_string(max_payload_with_body_) + " payload bytes (the AM header), not " +
                            std::to_string(len) + " (to PE " + std::to_string(pe) + ")");
  }
  ucp_ep_h ep;
  Status s = endpoint(pe, &ep);
  if (!s.is_ok()) return s;
  std::vector<char> header(sizeof am_header_ + len);
  std::memcpy(header.data(), &am_header_, sizeof am_header_);
  if (len > 0) std::memcpy(header.data() + sizeof am_header_, payload, len);
  // No protocol flag: UCX sends small bodies eagerly and large ones by rendezvous, as it rates them.
  ucp_request_param_t param{};
  ucs_status_ptr_t req = ucp_am_send_nbx(ep, kAmId, header.data(), header.size(), body, body_len, &param);
  issued_to(pe);
  // The body and header are reusable once UCX completes the send (for a rendezvous: the target
  // has fetched the body).
  return complete(req, [&] {
    return "ucp_am_send_nbx of " + std::to_string(len) + " bytes with a " + std::to_string(body_len) +
           "-byte body to PE " + std::to_string(pe);
  });
}

Status UcxBackend::send(int pe, const void* payload, size_t len) {
  bool sent = false;
  return am_send(pe, payload, len, false, &sent);
}

Status UcxBackend::try_send(int pe, const void* payload, size_t len, bool* sent) {
  return am_send(pe, payload, len, true, sent);
}

Status UcxBackend::am_send(int pe, const void* payload, size_t len, bool at_once, bool* sent) {
  *sent = false;
  if (len > max_am_payload_) {
    return invalid_argument("ucx: active message of " + std::to_string(len) + " bytes to PE " + std::to_string(pe) +
                            " exceeds max_payload() = " + std::to_string(max_am_payload_) +
                            " (GASKET_UCX_AM_MAX_PAYLOAD)");
  }
  ucp_ep_h ep;
  Status s = endpoint(pe, &ep);
  if (!s.is_ok()) return s;
  ucp_request_param_t param{};
  param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
  param.flags = UCP_AM_SEND_FLAG_EAGER;
  auto what = [&] { return "ucp_am_send_nbx of " + std::to_string(len) + " bytes to PE " + std::to_string(pe); };
  if (at_once) {
    // UCX sends now (UCS_ERR_NO_RESOURCE: its queue to the peer is full, or the endpoint is
    // still being wired up). Else a copy goes, completed by progress() or quiet(): the caller
    // never waits for the peer. Behind a message in flight, the copy at once (fewer reorders).
    ucs_status_ptr_t req = UCS_STATUS_PTR(UCS_ERR_NO_RESOURCE);
    if (am_in_flight_count_.load(std::memory_order_acquire) == 0) {
      ucp_request_param_t now = param;
      now.op_attr_mask |= UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL;
      req = ucp_am_send_nbx(ep, kAmId, &am_header_, sizeof am_header_, payload, len, &now);
    }
    if (!UCS_PTR_IS_ERR(req) || UCS_PTR_STATUS(req) != UCS_ERR_NO_RESOURCE) {
      issued_to(pe);
      Status st = complete(req, what);
      *sent = st.is_ok();
      return st;
    }
    std::unique_ptr<char[]> copy(new char[len]);
    std::memcpy(copy.get(), payload, len);
    req = ucp_am_send_nbx(ep, kAmId, &am_header_, sizeof am_header_, copy.get(), len, &param);
    issued_to(pe);
    if (UCS_PTR_IS_ERR(req)) return ucx_error(UCS_PTR_STATUS(req), what());
    *sent = true;
    if (req == nullptr) return Status::ok();
    std::lock_guard<std::mutex> lock(mutex_);
    am_in_flight_.push_back(MessageInFlight{req, std::move(copy), pe, len});
    am_in_flight_count_.store(am_in_flight_.size(), std::memory_order_release);
    return Status::ok();
  }
  ucs_status_ptr_t req = ucp_am_send_nbx(ep, kAmId, &am_header_, sizeof am_header_, payload, len, &param);
  issued_to(pe);
  // The payload is reusable on return.
  Status st = complete(req, what);
  *sent = st.is_ok();
  return st;
}

Status UcxBackend::reap_messages_in_flight(bool wait_all) {
  Status result = Status::ok();
  unsigned idle = 0;
  while (am_in_flight_count_.load(std::memory_order_acquire) != 0) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      while (!am_in_flight_.empty()) {
        MessageInFlight& m = am_in_flight_.front();
        ucs_status_t st = ucp_request_check_status(m.request);
        if (st == UCS_INPROGRESS) break;
        ucp_request_free(m.request);
        if (st != UCS_OK && result.is_ok()) {
          result = ucx_error(st, "ucp_am_send_nbx of " + std::to_string(m.len) + " bytes to PE " + std::to_string(m.pe));
        }
        am_in_flight_.pop_front();
      }
      am_in_flight_count_.store(am_in_flight_.size(), std::memory_order_release);
    }
    if (!wait_all) break;
    poll(&idle);
  }
  return result;
}

// ---- state ----

std::string UcxBackend::describe() const {
  unsigned major = 0, minor = 0, release = 0;
  ucp_get_version(&major, &minor, &release);
  return "ucx " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release) +
         ": endpoints: " + std::to_string(endpoints_.load()) + " (of " + std::to_string(n_pes_) +
         " PEs, created on first use), remote keys unpacked: " + std::to_string(rkeys_.load()) +
         " (direct pointers: " + std::to_string(direct_rkeys_.load()) + "), RMA calls: " +
         std::to_string(rma_calls_.load()) + ", endpoint flushes: " + std::to_string(flushes_.load()) + ", thread mode: " +
         (thread_multiple_ ? "multi" : "single") + ", atomics coherent with CPU: " +
         (rdma_device_ ? "no" : "yes") + ", AM max payload: " + std::to_string(max_am_payload_);
}

Status UcxBackend::fence_while_progressing() {
  // The bootstrap fence blocks in a socket read; meanwhile this thread keeps the worker going,
  // because a peer still on its way here may need this PE to complete its operations.
  std::atomic<bool> done{false};
  Status result = Status::ok();
  std::thread fence_thread([&] {
    result = bootstrap_->fence();
    done.store(true, std::memory_order_release);
  });
  unsigned idle = 0;
  while (!done.load(std::memory_order_acquire)) poll(&idle);
  fence_thread.join();
  return result;
}

Status UcxBackend::finalize() {
  // Every PE comes here after the core's last barrier: each completes its own operations (its
  // peers keep progressing, in the barrier or here), then a fence that keeps progressing ensures
  // that no PE closes a connection a peer still needs. Peers closing theirs after it are not
  // failures.
  Status completed = quiet();
  tearing_down_.store(true, std::memory_order_release);
  Status fenced = fence_while_progressing();
  finalized_ = fenced.is_ok();
  if (!completed.is_ok()) return completed;
  return fenced.is_ok() ? fenced : Status(fenced.code(), "ucx: PE " + std::to_string(my_pe_) + ": finalize: " + fenced.message());
}

void UcxBackend::close_endpoints() {
  // Endpoints that handle peer failure are closed by force (needing nothing from a peer that may
  // be gone); the others, as UCX requires, by a flushing close. All closes are started before any
  // is waited for.
  std::vector<void*> closing;
  auto close = [&](Peer& peer) {
    ucp_ep_h ep = peer.ep.exchange(nullptr);
    if (ep == nullptr) return;
    ucp_request_param_t param{};
    param.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
    param.flags = peer.failure_handling ? UCP_EP_CLOSE_FLAG_FORCE : 0;
    ucs_status_ptr_t req = ucp_ep_close_nbx(ep, &param);
    if (req != nullptr && !UCS_PTR_IS_ERR(req)) closing.push_back(req);
  };
  for (Peer& peer : peers_) close(peer);
  for (std::unique_ptr<Peer>& peer : accepted_) close(*peer);
  for (void* req : closing) (void)wait(req);
  accepted_.clear();
}

void UcxBackend::teardown() {
  if (worker_ == nullptr) {
    if (context_ != nullptr) ucp_cleanup(context_);
    return;
  }
  // After finalize() every peer has passed its fence, so endpoints are closed properly; a backend
  // destroyed without it is an error path of one PE, which leaves at once: UCX then drops its
  // endpoints with the worker.
  tearing_down_.store(true, std::memory_order_release);
  for (size_t id = 0; id < segments_.size(); ++id) {
    if (segments_[id]) (void)deregister_segment(static_cast<SegmentId>(id));
  }
  for (auto& [where, key] : user_keys_) destroy_key(*key);
  user_keys_.clear();
  for (auto& [id, memh] : user_memh_) (void)ucp_mem_unmap(context_, memh);
  user_memh_.clear();
  for (ReceivedMessage& m : am_queue_) {
    if (m.ucx_owned) ucp_am_data_release(worker_, m.data);
  }
  am_queue_.clear();
  if (finalized_) close_endpoints();
  if (listener_ != nullptr) ucp_listener_destroy(listener_);
  listener_ = nullptr;
  ucp_worker_destroy(worker_);
  ucp_cleanup(context_);
  worker_ = nullptr;
  context_ = nullptr;
}

}  // namespace

Result<std::unique_ptr<Backend>> create(const StartInfo& info) {
  auto backend = std::make_unique<UcxBackend>(info);
  Status st = backend->start();
  if (!st.is_ok()) return Status(st.code(), st.message() + " (PE " + std::to_string(info.my_pe) + ")");
  return std::unique_ptr<Backend>(std::move(backend));
}

bool has_endpoint(Backend& backend, int pe) {
  auto* ucx = dynamic_cast<UcxBackend*>(&backend);
  return ucx != nullptr && pe >= 0 && pe < ucx->n_pes() && ucx->has_endpoint(pe);
}

}  // namespace gasket::backend::ucx
