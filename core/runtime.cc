#include "core/runtime.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>

#include "core/base/log.h"
#include "core/base/parse.h"
#include "core/segments/data_segment.h"
#include "core/segments/heap_sizing.h"

namespace gasket::core {

Runtime* Runtime::instance_ = nullptr;

namespace {

constexpr size_t kInternalSegmentBytes = 1 << 20;
std::atomic<bool> g_finalized{false};

// Installed once the bootstrap exists: a fatal error anywhere ends the whole job through it.
void abort_through_bootstrap(const std::string& message) {
  Runtime* rt = Runtime::get();
  if (rt != nullptr) rt->bootstrap().abort(1, message);
}

std::string host_identity() {
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0) std::strcpy(host, "unknown-host");
  return host;
}

// The core's own waits (core/am): gasket::poll, so they spin, then nap or yield like every wait.
void wait_until_ready(const std::function<bool()>& ready) { gasket::poll(true, ready); }

}  // namespace

Status Runtime::start(const InitOptions& options) {
  if (instance_ != nullptr) {
    // Another programming model of the same program (MPI and OpenSHMEM together) already started
    // the runtime: share it; the last finalize stops it.
    ++instance_->users_;
    // Its threads may take input a poll nap of another thread waits for, with nobody ringing.
    if (options.thread_multiple && !options.threads_woken) instance_->poll_naps_ = false;
    return Status::ok();
  }
  if (g_finalized.load()) {
    return invalid_argument("gasket::init: the runtime was finalized and cannot be initialised again");
  }
  auto* rt = new Runtime();
  Status st = rt->start_impl(options);
  if (!st.is_ok()) {
    instance_ = nullptr;
    delete rt;
  }
  return st;
}

Status Runtime::start_impl(const InitOptions& options) {
  auto cfg = config::Config::load(config::environment_lookup());
  if (!cfg.is_ok()) return cfg.status();
  config_ = std::move(cfg.value());
  log::Level level;
  if (log::parse_level(config_.text(config::Knob::LOG), &level)) log::set_level(level);

  auto boot = bootstrap::create_from_environment(config_.text(config::Knob::BOOTSTRAP));
  if (!boot.is_ok()) return boot.status();
  bootstrap_ = std::move(boot.value());
  my_pe_ = bootstrap_->rank();
  n_pes_ = bootstrap_->size();
  log::set_pe(my_pe_);
  instance_ = this;
  log::set_fatal_hook(&abort_through_bootstrap);

  const std::string& over = config_.text(config::Knob::OVERSUBSCRIBED);
  oversubscribed_ = over == "yes" || (over == "auto" && bootstrap_->oversubscribed());
  const unsigned spin_count = static_cast<unsigned>(config_.integer(config::Knob::SPIN_COUNT));
  spin_count_ = oversubscribed_ ? 16u : spin_count;
  // Polls past the budget while the CPUs are free (detail::spin): an oversubscribed job's whole
  // GASKET_SPIN_COUNT; any other job's kFreeCpusSpinFactor budgets more, so a writer's large put
  // (~95 µs at 4 MiB) does not pay a napping peer's wake-up (6-7 µs here) on an idle machine.
  free_cpus_spin_count_ = oversubscribed_ ? spin_count
                                          : static_cast<unsigned>(std::min<uint64_t>(
                                                uint64_t{spin_count} * kFreeCpusSpinFactor, UINT_MAX));
  run_queue_.reset(new RunQueue());
  int64_t nap_limit = config_.integer(config::Knob::NAP_LIMIT);
  nap_limit_us_ = nap_limit <= 0 ? 0u : static_cast<unsigned>(std::min<int64_t>(nap_limit, 1000000000));

  Status st = find_nodes();
  if (!st.is_ok()) return st;
  if (config_.is_auto(config::Knob::HEAP_SIZE)) {
    config_.resolve(config::Knob::HEAP_SIZE, segments::auto_heap_bytes(segments::node_resources()));
  }
  size_t heap_bytes = config_.size(config::Knob::HEAP_SIZE);
  if (heap_bytes < 4096) {
    return invalid_argument("gasket::init: symmetric heap size " + std::to_string(heap_bytes) +
                            " bytes (" + config_.origin(config::Knob::HEAP_SIZE) +
                            ") is too small; at least 4K");
  }
  heap_bytes = (heap_bytes + 4095) & ~size_t{4095};
  // The mailbox rings and get bounce zones follow the core's scratch in the internal segment.
  auto layout = am::MailboxLayout::from_config(config_, n_pes_, kInternalSegmentBytes);
  if (!layout.is_ok()) return layout.status();
  mailbox_layout_ = layout.value();
  size_t internal_bytes = kInternalSegmentBytes + ((mailbox_layout_.bytes() + 4095) & ~size_t{4095});
  // The backend exists before the segments: it may provide their memory (create_segment).
  if (!(st = create_backend(options.thread_multiple)).is_ok()) return st;
  if (!(st = create_segment(segments::kInternalSegment, "internal", internal_bytes)).is_ok()) return st;
  if (!(st = create_segment(segments::kHeapSegment, "heap", heap_bytes)).is_ok()) return st;
  size_t bounce_bytes = memreg::UserMemory::bounce_segment_bytes(n_pes_, config_.size(config::Knob::MEMREG_BOUNCE));
  if (!(st = create_segment(segments::kBounceSegment, "bounce", bounce_bytes)).is_ok()) return st;
  if (!(st = create_data_segment()).is_ok()) return st;
  internal_ = reinterpret_cast<InternalArea*>(segments_.find(segments::kInternalSegment)->base);
  heap_ = segments_.find(segments::kHeapSegment);
  allocator_ = segments::SymmetricAllocator(heap_bytes);
  // The core's file is new (O_EXCL) and reads zero. Memory a backend allocates (UCX: System V or
  // POSIX shared memory, mmap, or malloc) is a fresh mapping too from 32 MiB on, where glibc's
  // malloc maps every block anew (its largest mmap threshold); below that it may be reused.
  heap_starts_zeroed_ = !heap_->backend_memory || heap_bytes >= (size_t{32} << 20);
  if (!(st = map_peer_segments()).is_ok()) return st;
  open_bell_socket(options.thread_multiple && !options.threads_woken);
  st = start_backend();
  unlink_segment_files();
  if (!st.is_ok()) return st;
  start_user_memory();
  GASKET_DEBUG("initialised: %d PEs on %d nodes, heap %s, %s", n_pes_, n_nodes_,
               format_size(heap_bytes).c_str(), oversubscribed_ ? "oversubscribed" : "one core per PE");
  barrier_all();
  return Status::ok();
}

Status Runtime::find_nodes() {
  // A PMIx launcher knows where it placed every PE: no exchange needed.
  node_of_pe_ = bootstrap_->node_of_pe();
  if (!node_of_pe_.empty()) {
    if (!config_.text(config::Knob::NODE_NAME).empty()) {
      GASKET_WARN("GASKET_NODE_NAME is ignored: the launcher's placement of PEs on nodes is used");
    }
    n_nodes_ = *std::max_element(node_of_pe_.begin(), node_of_pe_.end()) + 1;
  } else {
    std::string name = config_.text(config::Knob::NODE_NAME);
    if (name.empty()) name = host_identity();
    Status st = bootstrap_->put("node", name);
    if (st.is_ok()) st = bootstrap_->fence();
    if (!st.is_ok()) return st;
    std::map<std::string, int> index;
    node_of_pe_.resize(static_cast<size_t>(n_pes_));
    for (int pe = 0; pe < n_pes_; ++pe) {
      auto v = bootstrap_->get(pe, "node");
      if (!v.is_ok()) return v.status();
      auto it = index.emplace(v.value(), static_cast<int>(index.size())).first;
      node_of_pe_[static_cast<size_t>(pe)] = it->second;
    }
    n_nodes_ = static_cast<int>(index.size());
  }
  bool force_backend = config_.text(config::Knob::LOCAL) == "backend";
  paths_.resize(static_cast<size_t>(n_pes_));
  for (int pe = 0; pe < n_pes_; ++pe) {
    bool same_node = node_of_pe_[static_cast<size_t>(pe)] == node_of_pe_[static_cast<size_t>(my_pe_)];
    paths_[static_cast<size_t>(pe)] =
        (same_node && (!force_backend || pe == my_pe_)) ? Path::kDirect : Path::kBackend;
  }
  return Status::ok();
}

std::string Runtime::segment_file(int pe, const std::string& name) const {
  return "/gasket-" + bootstrap_->job_id() + "-" + std::to_string(pe) + "-" + name;
}

Status Runtime::create_segment(segments::SegmentId id, const char* name, size_t size) {
  std::string file = segment_file(my_pe_, name);
  // Segments start on a segment_alignment(size) boundary on every PE, so an offset aligned to
  // any power of two up to it gives an equally aligned address everywhere (sym_align).
  const size_t alignment = segment_alignment(size);
  if (backend::SegmentMemory* provider = segment_provider()) {
    auto memory = provider->allocate_segment(id, size, alignment);
    if (!memory.is_ok()) {
      return Status(memory.status().code(), "gasket::init: PE " + std::to_string(my_pe_) + " cannot allocate the " +
                                                name + " segment (" + format_size(size) + ") through backend " +
                                                backend_->name() + ": " + memory.status().message());
    }
    segments::Segment& seg = segments_.add(id, name, memory.value(), size, n_pes_);
    seg.peer_base[static_cast<size_t>(my_pe_)] = memory.value();
    seg.backend_memory = true;
    return bootstrap_->put(std::string("segment.") + name, std::to_string(size));
  }
  void* reserved = mmap(nullptr, size + alignment, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (reserved == MAP_FAILED) return errno_error("gasket::init: reserving address space for the " + std::string(name) + " segment");
  auto aligned = (reinterpret_cast<uintptr_t>(reserved) + alignment - 1) & ~(alignment - 1);
  munmap(reserved, size + alignment);
  auto f = segments::SharedMemoryFile::create(file, size, reinterpret_cast<void*>(aligned));
  if (!f.is_ok()) {
    return Status(f.status().code(), "gasket::init: cannot create the " + std::string(name) +
                                         " segment (" + format_size(size) + "): " + f.status().message());
  }
  segments::Segment& seg = segments_.add(id, name, f->data(), size, n_pes_);
  seg.peer_base[static_cast<size_t>(my_pe_)] = f->data();
  files_.push_back(std::move(f.value()));
  return bootstrap_->put(std::string("segment.") + name, std::to_string(size));
}

Status Runtime::create_data_segment() {
  auto range = segments::find_static_data();
  if (!range.is_ok()) return Status(range.status().code(), "gasket::init: " + range.status().message());
  const bool shared = config_.boolean(config::Knob::REDISTRIBUTE);
  if (shared) {
    std::string file = segment_file(my_pe_, "data");
    auto stats = segments::redistribute(range.value(), file);
    if (!stats.is_ok()) {
      return Status(stats.status().code(), "gasket::init: PE " + std::to_string(my_pe_) +
                                               " cannot redistribute its static data (" +
                                               format_size(range->size) + "; GASKET_REDISTRIBUTE=no "
                                               "turns this off): " + stats.status().message());
    }
    data_file_ = file;
    GASKET_DEBUG("static data %p..%p redistributed: %zu pages, %zu copied, %zu left to the zero fill",
                 static_cast<void*>(range->base), static_cast<void*>(range->base + range->size),
                 stats->pages, stats->pages_copied, stats->pages_skipped);
  }
  segments::Segment& seg = segments_.add(segments::kDataSegment, "data", range->base, range->size, n_pes_);
  seg.peer_base[static_cast<size_t>(my_pe_)] = range->base;
  seg.file_backed = shared;
  Status st = bootstrap_->put("segment.data", std::to_string(range->size));
  if (st.is_ok() && !shared) {
    st = bootstrap_->put("segment.data.address", std::to_string(reinterpret_cast<uintptr_t>(range->base)));
    if (st.is_ok()) st = bootstrap_->put("pid", std::to_string(getpid()));
  }
  return st;
}

Runtime::~Runtime() {
  if (node_of_pe_.size() < static_cast<size_t>(n_pes_)) return;  // init failed before it placed the PEs
  for (const segments::Segment& s : segments_.all()) {
    if (!s.file_backed || s.backend_memory) continue;
    for (int pe = 0; pe < n_pes_ && static_cast<size_t>(pe) < s.peer_base.size(); ++pe) {
      if (pe != my_pe_ && node_of(pe) == node_of(my_pe_)) segments::SharedMemoryFile::unmap(s.peer_base[static_cast<size_t>(pe)], s.size);
    }
  }
}

Status Runtime::map_peer_segments() {
  Status st = bootstrap_->fence();
  if (!st.is_ok()) return st;
  // Every PE of this node maps every other's segments, so a peer's copy is a pointer away.
  for (int pe = 0; pe < n_pes_; ++pe) {
    if (pe == my_pe_ || node_of(pe) != node_of(my_pe_)) continue;
    for (const segments::Segment& own : segments_.all()) {
      auto size_text = bootstrap_->get(pe, "segment." + own.name);
      if (!size_text.is_ok()) return size_text.status();
      if (size_text.value() != std::to_string(own.size)) {
        return invalid_argument("gasket::init: PE " + std::to_string(pe) + " has a " + own.name +
                                " segment of " + size_text.value() + " bytes but PE " +
                                std::to_string(my_pe_) + " has " + std::to_string(own.size) +
                                " (every PE must use the same GASKET_HEAP_SIZE / SHMEM_SYMMETRIC_SIZE)");
      }
      if (!own.file_backed) continue;  // reached by a kernel copy (core/memreg), see below
      if (own.backend_memory) continue;  // mapped through the backend (start_backend)
      auto mapped = segments::SharedMemoryFile::map(segment_file(pe, own.name), own.size);
      if (!mapped.is_ok()) return Status(mapped.status().code(), "gasket::init: mapping PE " + std::to_string(pe) + "'s " + own.name + " segment: " + mapped.status().message());
      segments_.find(own.id)->peer_base[static_cast<size_t>(pe)] = mapped.value();
    }
  }
  // Segments left in place (not on a file): every PE's base address, and the processes of this
  // node, for kernel copies into them (same-node peers; other nodes go through the backend).
  for (segments::Segment& own : segments_.all_mutable()) {
    if (own.file_backed) continue;
    own.peer_address.assign(static_cast<size_t>(n_pes_), 0);
    std::vector<pid_t> pids(static_cast<size_t>(n_pes_), 0);
    for (int pe = 0; pe < n_pes_; ++pe) {
      auto at = bootstrap_->get(pe, "segment." + own.name + ".address");
      if (!at.is_ok()) return at.status();
      own.peer_address[static_cast<size_t>(pe)] = std::stoull(at.value());
      if (pe == my_pe_ || node_of(pe) != node_of(my_pe_)) continue;
      auto pid = bootstrap_->get(pe, "pid");
      if (!pid.is_ok()) return pid.status();
      pids[static_cast<size_t>(pe)] = static_cast<pid_t>(std::stol(pid.value()));
    }
    if (!kernel_copy_) kernel_copy_ = std::make_unique<memreg::KernelCopy>(my_pe_, std::move(pids));
  }
  const segments::Segment* internal = segments_.find(segments::kInternalSegment);
  doorbells_.assign(static_cast<size_t>(n_pes_), nullptr);
  for (int pe = 0; pe < n_pes_; ++pe) {
    char* base = internal->peer_base[static_cast<size_t>(pe)];
    if (base != nullptr) doorbells_[static_cast<size_t>(pe)] = &reinterpret_cast<InternalArea*>(base)->doorbell;
  }
  return bootstrap_->fence();
}

// Once every peer (and the backend, which may map peers of other simulated nodes) has mapped
// them, the names are no longer needed: remove them so nothing survives the job (the launcher
// sweeps gasket-<job>-* as well, for jobs that die earlier).
// Poll naps (backend paths, late peers) sleep on this PE's doorbell socket, which the same-node
// peers that ring the doorbell reach by name (every PE opens one: it rings its peers' through it).
// Only a PE without a progress thread, and with one thread calling the runtime or threads whose
// caller rings for them (InitOptions::threads_woken), naps so: a sleeper does not see input
// another thread took for it.
void Runtime::open_bell_socket(bool unwoken_threads) {
  // Only PEs with a doorbell here (same-node peers) are rung (detail::ring).
  Status st = bell_.open(segment_file(my_pe_, "bell"), [this](int pe) { return segment_file(pe, "bell"); });
  if (!st.is_ok()) {
    GASKET_WARN("PE %d: %s; waits on backend paths yield instead of sleeping", my_pe_, st.message().c_str());
    return;
  }
  poll_naps_ = !unwoken_threads && !config_.boolean(config::Knob::PROGRESS_THREAD);
}

bool Runtime::prepare_sleep(std::vector<pollfd>* fds) const {
  if (input_signal_ != nullptr && !input_signal_->prepare_sleep(fds)) return false;
  am::StreamLinks* links = late_peers_ready_.load(std::memory_order_acquire);
  return links == nullptr || links->prepare_sleep(fds);
}

void Runtime::unlink_segment_files() {
  if (!data_file_.empty()) {
    Status u = segments::unlink_data_file(data_file_);
    if (!u.is_ok()) GASKET_WARN("%s", u.message().c_str());
    data_file_.clear();
  }
  for (auto& f : files_) {
    Status u = f.unlink();
    if (!u.is_ok()) GASKET_WARN("%s", u.message().c_str());
  }
}

Status Runtime::create_backend(bool thread_multiple) {
  bool needed = std::any_of(paths_.begin(), paths_.end(), [](Path p) { return p == Path::kBackend; });
  if (!needed) return Status::ok();
  const std::string& wanted = config_.text(config::Knob::TRANSPORT);
  const auto& available = builtin_backends();
  const backend::Registration* chosen = nullptr;
  for (const auto& r : available) {
    if (wanted == "auto" || wanted == r.name) {
      chosen = &r;
      break;
    }
  }
  if (chosen == nullptr) {
    int other = 0;
    while (other < n_pes_ && paths_[static_cast<size_t>(other)] != Path::kBackend) ++other;
    std::string names;
    for (const auto& r : available) names += std::string(names.empty() ? "" : ", ") + r.name;
    return Status(StatusCode::kUnavailable,
                  "gasket::init: PE " + std::to_string(other) + " must be reached through a backend (" +
                      (node_of(other) != node_of(my_pe_) ? "another node" : "GASKET_LOCAL=backend") +
                      ") but GASKET_TRANSPORT=" + wanted + " names no backend built into this library (built in: " +
                      (names.empty() ? "none" : names) + ")");
  }
  backend::StartInfo info;
  info.bootstrap = bootstrap_.get();
  info.config = &config_;
  info.my_pe = my_pe_;
  info.n_pes = n_pes_;
  info.node_of_pe = node_of_pe_;
  // The progress thread calls into the backend concurrently with the application's threads.
  info.thread_multiple = thread_multiple || config_.boolean(config::Knob::PROGRESS_THREAD);
  info.segments = &segments_;
  info.segment_file = [this](int pe, const std::string& name) { return segment_file(pe, name); };
  info.wake = [](int pe) { detail::ring(pe); };
  auto b = chosen->create(info);
  if (!b.is_ok()) return b.status();
  backend_ = std::move(b.value());
  input_signal_ = backend_->input_signal();
  return Status::ok();
}

backend::SegmentMemory* Runtime::segment_provider() const {
  if (!backend_) return nullptr;
  for (int pe = 0; pe < n_pes_; ++pe) {
    if (pe != my_pe_ && path(pe) == Path::kDirect) return nullptr;  // it maps the core's files
  }
  return backend_->segment_memory();
}

Status Runtime::start_backend() {
  if (!backend_) return Status::ok();
  for (const segments::Segment& s : segments_.all()) {
    Status st = backend_->register_segment(s.id, s.base, s.size);
    if (!st.is_ok()) return st;
  }
  Status st = bootstrap_->fence();
  if (!st.is_ok()) return st;
  // Same-node peers' copies of segments the backend allocated are mapped through it at first
  // contact (Segment::peer_copy): mapping one makes the backend's endpoint to that peer, so a
  // peer never contacted costs none.
  for (segments::Segment& s : segments_.all_mutable()) {
    if (!s.backend_memory) continue;
    s.map_peer = [this, &s](int pe) -> char* {
      if (pe == my_pe_ || node_of(pe) != node_of(my_pe_)) return nullptr;
      char* mapped = backend_->segment_memory()->peer_segment(pe, s.id);
      if (mapped != nullptr) __atomic_store_n(&s.peer_base[static_cast<size_t>(pe)], mapped, __ATOMIC_RELEASE);
      return mapped;
    };
  }
  return start_active_messages();
}

// Chooses, once, native or emulated get and atomics, and starts the active messages the
// emulation rides on (plus the optional progress thread).
Status Runtime::start_active_messages() {
  char* internal = segments_.find(segments::kInternalSegment)->base;
  auto layer = am::create_message_layer(*backend_, segments::kInternalSegment, internal, mailbox_layout_, my_pe_,
                                        wait_until_ready);
  if (!layer.is_ok()) return layer.status();
  messages_ = std::move(layer.value());
  emulated_ = std::make_unique<am::EmulatedRma>(*messages_, *backend_, segments_, internal, mailbox_layout_, my_pe_,
                                                wait_until_ready);
  // Atomics from other nodes on static data left in place run under the lock of this node's.
  emulated_->set_unshared_segment_lock(&internal_->static_data_lock, spin_count_);
  native_read_ = backend_->remote_read();
  // One atomicity domain: the direct path (self and same-node peers) uses CPU atomics, so native
  // backend atomics are used only when they are atomic with respect to those; otherwise every
  // remote atomic runs in the target's handler, with CPU atomics too.
  backend::RemoteAtomics* ra = backend_->remote_atomics();
  if (ra != nullptr && ra->coherent_with_cpu()) {
    native_atomic_ops_[0] = ra->ops32();
    native_atomic_ops_[1] = ra->ops64();
  }
  GASKET_DEBUG("backend %s: get %s, atomics %s; %s", backend_->name(), native_read_ ? "native" : "emulated",
               native_atomic_ops_[1] != 0 ? "native where supported" : "emulated", messages_->describe().c_str());
  if (config_.boolean(config::Knob::PROGRESS_THREAD)) {
    auto interval = std::chrono::microseconds(std::max<int64_t>(1, config_.integer(config::Knob::PROGRESS_INTERVAL)));
    progress_thread_ = std::thread([this, interval] {
      uint64_t seen = progress_calls_.load(std::memory_order_relaxed);
      while (!progress_thread_stop_.load(std::memory_order_acquire)) {
        std::this_thread::sleep_for(interval);
        uint64_t calls = progress_calls_.load(std::memory_order_relaxed);
        if (calls == seen) progress_once();
        seen = calls;
      }
    });
  }
  return Status::ok();
}

void Runtime::start_user_memory() {
  memreg::UserMemoryOptions o;
  o.my_pe = my_pe_;
  o.n_pes = n_pes_;
  for (Path p : paths_) o.direct.push_back(p == Path::kDirect);
  o.backend = backend_.get();
  o.segments = &segments_;
  o.stage_bytes = config_.size(config::Knob::MEMREG_BOUNCE);
  o.single_copy = config_.text(config::Knob::MEMREG_SINGLE_COPY) == "auto";
  o.cache_limit = config_.size(config::Knob::MEMREG_LIMIT);
  o.wait_step = [](unsigned* polls) { detail::wait_step(polls); };
  user_memory_ = std::make_unique<memreg::UserMemory>(std::move(o));
}

void Runtime::complete_fetches(uint64_t upto) {
  if (fetches_completed_.load(std::memory_order_acquire) >= upto) return;
  std::lock_guard<std::mutex> lock(fetch_mutex_);
  for (uint64_t done = fetches_completed_.load(std::memory_order_relaxed); done < upto; ++done) {
    const PendingFetch& f = pending_fetches_.front();
    std::memcpy(f.dst, &f.staged, f.width);  // little-endian: the low bytes
    pending_fetches_.pop_front();  // pop_front keeps the others in place
    fetches_completed_.store(done + 1, std::memory_order_release);
  }
}

am::StreamLinks& Runtime::late_peers() {
  std::lock_guard<std::mutex> lock(late_peers_mutex_);
  if (!late_peers_) {
    late_peers_ = std::make_unique<am::StreamLinks>(bootstrap_->secret(), n_pes_);
    // A late peer names memory by (segment, offset) of this process's own segments, or in one of
    // its live exposures of user memory.
    auto resolve = [this](const am::LinkAddress& a, uint64_t len, std::string* why) -> char* {
      if (a.exposure != 0) {
        char* at = user_memory_ ? user_memory_->exposed_range(a.exposure, a.offset, len) : nullptr;
        if (at == nullptr) {
          *why = "[" + std::to_string(a.offset) + ", +" + std::to_string(len) + ") is not in live exposure #" +
                 std::to_string(a.exposure);
        }
        return at;
      }
      const segments::Segment* s = segments_.find(a.segment);
      if (s == nullptr || a.offset > s->size || len > s->size - a.offset) {
        *why = "[" + std::to_string(a.offset) + ", +" + std::to_string(len) + ") is not in segment " + std::to_string(a.segment);
        return nullptr;
      }
      return s->base + a.offset;
    };
    link_rma_ = std::make_unique<am::LinkRma>(*late_peers_, resolve, wait_until_ready);
    late_peers_ready_.store(late_peers_.get(), std::memory_order_release);
  }
  return *late_peers_;
}

void Runtime::progress() {
  // Only whether it changed matters: a load and a store, no read-modify-write on the hot path.
  progress_calls_.store(progress_calls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  progress_once();
}

void Runtime::progress_once() {
  if (backend_) backend_->progress();
  if (messages_) messages_->progress();
  if (am::StreamLinks* links = late_peers_ready_.load(std::memory_order_acquire)) links->progress();
  if (user_memory_) user_memory_->serve();
  if (auto serve = user_message_progress_.load(std::memory_order_acquire)) serve();
}

// GASKET_STATS=1: one line per counter, prefixed by the PE (gasket-info style "name: values").
void Runtime::print_statistics() const {
  std::vector<std::string> lines = user_memory_ ? user_memory_->statistics() : std::vector<std::string>{};
  if (backend_) lines.push_back("backend " + backend_->describe());
  if (messages_) lines.push_back("active messages: " + messages_->describe());
  std::string out;
  for (const std::string& l : lines) out += "gasket stats: PE " + std::to_string(my_pe_) + ": " + l + "\n";
  std::fputs(out.c_str(), stderr);
}

Status Runtime::stop() {
  if (late_peers_) late_peers_->drain();
  quiet();
  barrier_all();
  Status st = Status::ok();
  if (progress_thread_.joinable()) {
    progress_thread_stop_.store(true, std::memory_order_release);
    progress_thread_.join();
  }
  if (config_.boolean(config::Knob::STATS)) print_statistics();
  user_memory_.reset();  // deregisters cached user memory while the backend is up
  emulated_.reset();
  messages_.reset();
  if (backend_) {
    st = backend_->finalize();  // collective: after the last barrier, before deregistration
    for (const segments::Segment& s : segments_.all()) {
      Status d = backend_->deregister_segment(s.id);
      if (st.is_ok() && !d.is_ok()) st = d;
    }
    backend_.reset();
  }
  Status f = bootstrap_->finalize();
  if (st.is_ok()) st = f;
  log::set_fatal_hook(nullptr);
  instance_ = nullptr;
  g_finalized.store(true);
  delete this;
  return st;
}

bool Runtime::knows_late_peer(int pe) const {
  am::StreamLinks* links = late_peers_ready_.load(std::memory_order_acquire);
  return links != nullptr && links->knows(pe);
}

void Runtime::check_pe(int pe, const char* call) const {
  if (pe < 0 || pe >= n_pes_) {
    log::fatal("%s: target PE %d is out of range: the job has %d PEs (valid 0..%d)", call, pe,
               n_pes_, n_pes_ - 1);
  }
}

const segments::Segment& Runtime::translate_any(const void* addr, size_t bytes, const char* call,
                                                const char* role, size_t* offset) const {
  segments::Translation t = segments_.translate(addr, bytes);
  if (t.segment == nullptr) {
    const segments::Segment* heap = segments_.find(segments::kHeapSegment);
    log::fatal("%s: %s address %p (%zu bytes) is not in any symmetric segment (the symmetric heap "
               "is %p..%p); remote memory must come from the symmetric heap or another segment",
               call, role, addr, bytes, static_cast<void*>(heap->base),
               static_cast<void*>(heap->base + heap->size));
  }
  if (!t.in_bounds) {
    log::fatal("%s: %s address %p + %zu bytes runs past the end of the %s segment (offset %zu of "
               "%zu bytes)",
               call, role, addr, bytes, t.segment->name.c_str(), t.offset, t.segment->size);
  }
  *offset = t.offset;
  return *t.segment;
}

}  // namespace gasket::core

namespace gasket {

void core::Runtime::not_initialised(const char* call) {
  log::fatal("%s: the gasket runtime is not initialised (call init first)", call);
}

using core::Runtime;

namespace {
inline core::Runtime& rt(const char* call) { return core::Runtime::checked(call); }
}  // namespace

Status init(const InitOptions& options) { return Runtime::start(options); }

Status finalize() {
  Runtime* r = Runtime::get();
  if (r == nullptr) return invalid_argument("gasket::finalize: the runtime is not initialised");
  if (r->release_user()) return Status::ok();  // another programming model still uses it
  return r->stop();
}

bool initialized() { return Runtime::get() != nullptr; }

void abort_job(int exit_code, const char* message) {
  Runtime* r = Runtime::get();
  if (r != nullptr) r->bootstrap().abort(exit_code, message);
  log::write(log::Level::kError, "%s", message);
  _exit(exit_code);
}

int my_pe() { return rt("gasket::my_pe").my_pe(); }
int n_pes() { return rt("gasket::n_pes").n_pes(); }
int n_nodes() { return rt("gasket::n_nodes").n_nodes(); }
int node_of(int pe) {
  Runtime& r = rt("gasket::node_of");
  r.check_pe(pe, "gasket::node_of");
  return r.node_of(pe);
}
bool oversubscribed() { return rt("gasket::oversubscribed").oversubscribed(); }

bool backend_running() { return rt("gasket::backend_running").backend() != nullptr; }

const char* transport_name(int pe) {
  Runtime& r = rt("gasket::transport_name");
  r.check_pe(pe, "gasket::transport_name");
  return r.path(pe) == core::Path::kDirect ? "direct" : r.backend()->name();
}

void progress() {
  Runtime* r = Runtime::get();
  if (r != nullptr) r->progress();
}

}  // namespace gasket
