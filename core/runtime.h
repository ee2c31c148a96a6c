// The runtime context: the one object that owns every piece of process-wide state of the core
// (configuration, bootstrap, segments, allocator, backend, per-PE paths). Internal to core/; the
// API layers use core/gasket.h.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backends/backend.h"
#include "core/am/emulated_rma.h"
#include "core/am/link_rma.h"
#include "core/am/message_layer.h"
#include "core/am/stream_links.h"
#include "core/bell_socket.h"
#include "core/bootstrap/bootstrap.h"
#include "core/config/config.h"
#include "core/gasket.h"
#include "core/run_queue.h"
#include "core/segments/segment_table.h"
#include "core/segments/shared_memory_file.h"
#include "core/segments/symmetric_allocator.h"
#include "core/memreg/kernel_copy.h"
#include "core/memreg/user_memory.h"

namespace gasket::core {

// Every segment starts on this boundary on every PE, or a larger one (segment_alignment).
constexpr size_t kSegmentAlignment = size_t{2} << 20;
// A segment of `size` bytes starts on the smallest power of two (at least kSegmentAlignment)
// that holds it, on every PE: an offset aligned to any power of two the segment can hold is then
// an equally aligned address everywhere (sym_align).
inline size_t segment_alignment(size_t size) {
  size_t alignment = kSegmentAlignment;
  while (alignment < size) alignment <<= 1;
  return alignment;
}

// How this PE reaches a given PE.
enum class Path : uint8_t {
  kDirect,   // same node: loads/stores/CPU atomics on the peer's mapped segment
  kBackend,  // through the backend
  kLink,     // a late peer (another job): active messages over its stream link (core/am/link_rma.h)
};

// Layout of the internal segment (segment 0): runtime scratch that peers write into.
struct InternalArea {
  static constexpr int kMaxBarrierRounds = 32;
  // Dissemination barrier: flag[k] is written only by PE (me - 2^k) mod n, with the epoch.
  alignas(64) uint64_t barrier_flags[kMaxBarrierRounds];
  // Collective allocation records, two slots (a PE is at most one allocation ahead of another).
  struct AllocRecord {
    uint64_t sequence;
    uint64_t bytes;
    uint64_t alignment;
    uint64_t kind;  // which call: malloc/calloc/align/realloc/free
  };
  alignas(64) AllocRecord alloc_records[2];
  // Held (owner PE + 1) around atomics on this PE's static data when it is not redistributed
  // (GASKET_REDISTRIBUTE=no): same-node peers run them as kernel-copy read-modify-writes.
  alignas(64) uint64_t static_data_lock;
  // Waiters past their spin budget sleep on `rings` (a futex in shared memory) while `nappers`
  // is non-zero; each nap sets `armed`. A same-node peer that writes into this PE and finds it
  // armed clears it, bumps `rings` and wakes them (gasket::detail::ring): one wake-up call per
  // nap, however many writes land while the napper sleeps or is waking. `pollers` of the nappers
  // sleep in poll() instead (backend paths, late peers): the ringer also sends them a byte on
  // this PE's BellSocket.
  struct Doorbell {
    uint32_t rings;
    uint32_t nappers;
    uint32_t armed;
    uint32_t pollers;
  };
  alignas(64) Doorbell doorbell;
};

class Runtime {
 public:
  static Runtime* get() { return instance_; }
  // The running runtime, or a fatal error naming `call` before init / after finalize.
  static Runtime& checked(const char* call) {
    if (__builtin_expect(instance_ == nullptr, 0)) not_initialised(call);
    return *instance_;
  }

  // Starts the runtime, or joins it when already started (MPI and OpenSHMEM in one program).
  static Status start(const InitOptions& options);
  // True when other users remain after this one leaves; the last one then calls stop().
  bool release_user() { return --users_ > 0; }
  Status stop();

  // Validation + translation shared by every operation. Ends the job with a message on bad input.
  void check_pe(int pe, const char* call) const;
  // Translates a symmetric address on this PE; checks it lies in a segment with `bytes` to spare.
  // The symmetric heap, where most operations land, is checked inline first.
  const segments::Segment& translate(const void* addr, size_t bytes, const char* call,
                                     const char* role, size_t* offset) const {
    if (__builtin_expect(heap_ != nullptr, 1)) {
      const uintptr_t into_heap = reinterpret_cast<uintptr_t>(addr) - reinterpret_cast<uintptr_t>(heap_->base);
      if (__builtin_expect(into_heap < heap_->size && bytes <= heap_->size - into_heap, 1)) {
        *offset = into_heap;
        return *heap_;
      }
    }
    return translate_any(addr, bytes, call, role, offset);
  }

  Path path(int pe) const { return pe >= n_pes_ ? Path::kLink : paths_[static_cast<size_t>(pe)]; }
  backend::Backend* backend() const { return backend_.get(); }
  void progress();
  // The active messages of core/gasket.h's clients (core/am/user_messages.cc), served by progress().
  void set_user_message_progress(void (*serve)()) { user_message_progress_.store(serve, std::memory_order_release); }
  // Chosen once at init: the backend's native read, or null (emulated over active messages).
  backend::RemoteRead* native_read() const { return native_read_; }
  // Whether atomic `op` on `width` bytes runs natively on the backend (else emulated).
  bool native_atomic(size_t width, backend::AtomicOp op) const {
    return (native_atomic_ops_[width == 4 ? 0 : 1] & backend::op_bit(op)) != 0;
  }
  am::EmulatedRma* emulated() const { return emulated_.get(); }
  // Same-node single copy into segments peers cannot map (static data with GASKET_REDISTRIBUTE=no);
  // null when every segment is shared.
  const memreg::KernelCopy* kernel_copy() const { return kernel_copy_.get(); }
  am::MessageLayer* messages() const { return messages_.get(); }
  // Links to processes of other jobs (late peers, PE numbers from n_pes() on), made on first use.
  am::StreamLinks& late_peers();
  // A PE number from n_pes() on that names a process of another job this one has linked to (any
  // other number is out of range, and check_pe says so).
  bool is_late_peer(int pe) const { return pe >= n_pes_ && knows_late_peer(pe); }
  bool knows_late_peer(int pe) const;
  // The target of a put, get or atomic: a PE of this job (false) or a late peer linked to it
  // (true); any other number ends the job with check_pe's message naming `call`.
  bool check_target(int pe, const char* call) const {
    if (__builtin_expect(pe >= 0 && pe < n_pes_, 1)) return false;
    if (is_late_peer(pe)) return true;
    check_pe(pe, call);  // does not return
    return false;
  }
  bool has_late_peers() const { return late_peers_ready_.load(std::memory_order_acquire) != nullptr; }
  // put/get/atomics on late peers' segments (made with the links).
  am::LinkRma& link_rma() {
    late_peers();
    return *link_rma_;
  }
  // User memory exposed to peers (gasket::memreg::expose/put/get).
  memreg::UserMemory* user_memory() const { return user_memory_.get(); }
  // Non-blocking fetching atomics run natively by the backend (gasket::atomic_nbi): the backend
  // writes the old value into a staging word, which a quiet copies to the caller's `width` bytes
  // at `dst` once the backend has completed (the caller's buffer may be 4 bytes, the backend
  // writes 8). Any thread's quiet may complete any thread's fetch:
  // - stage_fetch stages and issues (`issue(staging word)`) under one lock, so a fetch is never
  //   seen staged but not yet issued;
  // - a quiet notes fetches_staged() before the backend's quiet and then complete_fetches(upto)
  //   copies out every fetch staged up to then that no other quiet has copied yet: when a quiet
  //   returns, every fetch issued before it began is in its caller's buffer, whichever thread's
  //   quiet did the copy.
  struct PendingFetch {
    uint64_t staged = 0;
    void* dst = nullptr;
    unsigned width = 0;
  };
  template <typename Issue>
  Status stage_fetch(void* dst, unsigned width, Issue&& issue) {
    std::lock_guard<std::mutex> lock(fetch_mutex_);
    pending_fetches_.push_back(PendingFetch{0, dst, width});  // push_back keeps older elements in place
    Status st = issue(&pending_fetches_.back().staged);
    fetches_staged_.fetch_add(1, std::memory_order_release);
    return st;
  }
  uint64_t fetches_staged() const { return fetches_staged_.load(std::memory_order_acquire); }
  void complete_fetches(uint64_t upto);
  // Whether this fetching atomic is the one of every kFetchesPerServe that serves incoming traffic
  // (gasket::atomic, core/rma.cc). Threads racing on the count may lose a count: a serve then
  // comes a few calls later.
  static constexpr unsigned kFetchesPerServe = 16;
  bool fetch_serves() {
    const unsigned n = fetches_unserved_.load(std::memory_order_relaxed) + 1;
    fetches_unserved_.store(n >= kFetchesPerServe ? 0 : n, std::memory_order_relaxed);
    return n >= kFetchesPerServe;
  }

  int my_pe() const { return my_pe_; }
  int n_pes() const { return n_pes_; }
  int n_nodes() const { return n_nodes_; }
  int node_of(int pe) const { return node_of_pe_[static_cast<size_t>(pe)]; }
  bool oversubscribed() const { return oversubscribed_; }
  unsigned spin_count() const { return spin_count_; }
  // How far a wait may poll past spin_count() while the machine's CPUs are not contested
  // (oversubscribed: GASKET_SPIN_COUNT; else kFreeCpusSpinFactor times it, but only where a nap is
  // a futex nap, i.e. every peer on the direct path), and whether they are now (core/run_queue.h;
  // detail::spin asks every 8th poll past spin_count()). A poll nap on a backend path is woken by
  // the backend's input signal: there polling on (a yield and a run-queue read every 8th poll)
  // answered pciddc-shm's emulated gets and atomics 2x slower than napping did.
  static constexpr unsigned kFreeCpusSpinFactor = 4;
  unsigned free_cpus_spin_count() const {
    return oversubscribed_ || naps_allowed() ? free_cpus_spin_count_ : 0u;
  }
  bool cpus_contested() const { return run_queue_ == nullptr || run_queue_->contested(); }
  const RunQueue* run_queue() const { return run_queue_.get(); }
  // The nap past the spin budget (core/rma.cc, detail::nap_*): allowed when every peer rings this
  // PE's doorbell when it writes (all on the direct path: no backend, no late peers).
  bool naps_allowed() const {
    if (nap_limit_us_ == 0 || backend_) return false;
    am::StreamLinks* links = late_peers_ready_.load(std::memory_order_relaxed);
    return links == nullptr || !links->in_use();
  }
  // How a wait past its spin budget sleeps (detail::nap_begin): on the doorbell's futex when every
  // peer rings it (naps_allowed), else in poll() on the doorbell's socket plus the fds of every
  // other source of input (the backend's InputSignal, late peers' links), else not at all (yield:
  // GASKET_NAP_LIMIT=0, a backend without an input signal, several threads or a progress thread
  // that may take the input a sleeper waits for).
  enum class NapKind { kNone, kFutex, kPoll };
  NapKind nap_kind() const {
    if (naps_allowed()) return NapKind::kFutex;
    if (nap_limit_us_ == 0 || !poll_naps_ || (backend_ && input_signal_ == nullptr)) return NapKind::kNone;
    return NapKind::kPoll;
  }
  // For a poll nap: appends the fds of the backend's input and the late peers' links; false when
  // input may be waiting unseen (do not sleep).
  bool prepare_sleep(std::vector<pollfd>* fds) const;
  const BellSocket& bell() const { return bell_; }
  unsigned nap_limit_us() const { return nap_limit_us_; }
  // PE `pe`'s doorbell as mapped here (same node), or null.
  InternalArea::Doorbell* doorbell(int pe) const { return doorbells_[static_cast<size_t>(pe)]; }
  const config::Config& config() const { return config_; }
  bootstrap::Bootstrap& bootstrap() { return *bootstrap_; }
  segments::SegmentTable& segments() { return segments_; }
  InternalArea* internal() const { return internal_; }
  // Where PE `pe`'s internal area is reachable: its mapped copy (direct path) or null.
  uint64_t next_barrier_epoch() { return ++barrier_epoch_; }

  // Symmetric heap allocation (core/heap.cc).
  void* heap_allocate(uint64_t kind, size_t bytes, size_t alignment, const char* call);
  void* heap_reallocate(void* ptr, size_t bytes, const char* call);
  void heap_release(void* ptr, const char* call);
  // Gives the whole pages of a freed block of the heap (or of a pool inside it) back to the
  // system: resident memory drops, the pages read zero again. Not while a ucx backend holds the
  // heap registered (an RDMA device may have pinned the pages: it would keep writing the old ones).
  void return_heap_pages(void* p, size_t bytes);
  const segments::SymmetricAllocator& allocator() const { return allocator_; }

 private:
  [[noreturn]] static void not_initialised(const char* call);
  // translate() beyond the heap: every segment, and the error for an address in none.
  const segments::Segment& translate_any(const void* addr, size_t bytes, const char* call, const char* role,
                                         size_t* offset) const;
  Runtime() : allocator_(0) {}
  // Unmaps the same-node peers' copies mapped from their files (map_peer_segments).
  ~Runtime();
  Status start_impl(const InitOptions& options);
  Status find_nodes();
  Status create_segment(segments::SegmentId id, const char* name, size_t size);
  // The main program's static data as segment kDataSegment: redistributed onto a shared file, or
  // (GASKET_REDISTRIBUTE=no) registered in place (core/segments/data_segment.h).
  Status create_data_segment();
  Status map_peer_segments();
  // The backend is created before the segments (it may provide their memory) and registers them
  // once they exist and same-node peers have mapped them (start_backend).
  Status create_backend(bool thread_multiple);
  // The backend that allocates this PE's segments, or null (no backend, or a same-node peer on
  // the direct path maps the core's memory files).
  backend::SegmentMemory* segment_provider() const;
  Status start_backend();
  void open_bell_socket(bool unwoken_threads);
  Status start_active_messages();
  void start_user_memory();
  void print_statistics() const;
  void unlink_segment_files();
  std::string segment_file(int pe, const std::string& name) const;
  void check_collective_call(uint64_t kind, size_t bytes, size_t alignment, const char* call);
  void warn_if_shared_memory_short(size_t bytes, const char* call);
  // Clears [p, p + bytes) up to `untouched` (the allocator's untouched_from before the block was
  // carved, as an address), past which a fresh heap still reads zero (heap_starts_zeroed_).
  void zero_heap_block(char* p, size_t bytes, const char* untouched);
  bool pages_returnable() const;

  static Runtime* instance_;
  int users_ = 1;  // init calls not yet matched by finalize

  config::Config config_;
  std::unique_ptr<bootstrap::Bootstrap> bootstrap_;
  int my_pe_ = 0;
  int n_pes_ = 1;
  int n_nodes_ = 1;
  std::vector<int> node_of_pe_;
  std::vector<Path> paths_;
  bool oversubscribed_ = false;
  unsigned spin_count_ = 0;
  unsigned free_cpus_spin_count_ = 0;
  std::unique_ptr<RunQueue> run_queue_;  // read past the spin budget (free_cpus_spin_count)
  unsigned nap_limit_us_ = 0;
  std::vector<InternalArea::Doorbell*> doorbells_;  // per PE, null where not mapped (other nodes)
  BellSocket bell_;
  bool poll_naps_ = false;  // one thread calls the runtime (or its threads are woken), no progress thread: poll naps may sleep
  backend::InputSignal* input_signal_ = nullptr;

  segments::SegmentTable segments_;
  // This PE's own segment files. Peers' files are mapped by a name computed from their PE and kept
  // only as Segment::peer_base (unmapped by ~Runtime): no record per peer.
  std::vector<segments::SharedMemoryFile> files_;
  std::string data_file_;  // the redistributed data segment's file until unlinked (never unmapped)
  InternalArea* internal_ = nullptr;
  const segments::Segment* heap_ = nullptr;  // segments_'s heap (translate's first look), set at init
  segments::SymmetricAllocator allocator_;
  // The heap's memory read zero when it was made: the core's own new file, or memory a backend
  // allocated at a size that only fresh mappings give (heap_starts_zeroed in init).
  bool heap_starts_zeroed_ = false;
  std::mutex heap_mutex_;
  uint64_t alloc_sequence_ = 0;
  uint64_t barrier_epoch_ = 0;

  std::unique_ptr<backend::Backend> backend_;
  am::MailboxLayout mailbox_layout_;
  std::unique_ptr<am::MessageLayer> messages_;
  std::mutex late_peers_mutex_;
  std::unique_ptr<am::StreamLinks> late_peers_;
  std::atomic<void (*)()> user_message_progress_{nullptr};
  std::atomic<am::StreamLinks*> late_peers_ready_{nullptr};  // read by progress() without the lock
  std::unique_ptr<am::LinkRma> link_rma_;
  std::unique_ptr<am::EmulatedRma> emulated_;
  std::unique_ptr<memreg::KernelCopy> kernel_copy_;
  std::unique_ptr<memreg::UserMemory> user_memory_;
  backend::RemoteRead* native_read_ = nullptr;
  uint32_t native_atomic_ops_[2] = {0, 0};  // 32- and 64-bit op masks used natively
  std::mutex fetch_mutex_;
  std::deque<PendingFetch> pending_fetches_;  // stable addresses: the backend writes into them
  // Fetches staged so far, and how many of the first ones are copied out and popped (both change
  // under fetch_mutex_; read without it, a quiet with nothing staged takes no lock).
  std::atomic<uint64_t> fetches_staged_{0};
  std::atomic<uint64_t> fetches_completed_{0};
  std::atomic<unsigned> fetches_unserved_{0};  // fetching atomics since one last served (fetch_serves)
  std::thread progress_thread_;
  std::atomic<bool> progress_thread_stop_{false};
  // Changed by every progress() call from the PE's own threads: the progress thread steps in only
  // for an interval in which none progressed (a PE computing outside the library).
  std::atomic<uint64_t> progress_calls_{0};
  void progress_once();
};

// Backends linked into this build (core/backends_builtin.cc).
const std::vector<backend::Registration>& builtin_backends();

}  // namespace gasket::core
