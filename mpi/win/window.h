// One-sided windows (MPI-2/3 RMA) mapped onto gasket's core (ARCHITECTURE.md): a window is, per
// member, the memory it exposes and a control block of words that peers update with the core's
// remote atomics (lock tickets, PSCW counters, fence barrier, the accumulate lock, the table of
// regions reached through core/memreg). Owned by the MPI context (WinTable); may call mpi/base,
// mpi/datatype, mpi/comm, mpi/op and core (gasket.h, runtime.h). README.md explains the mapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/memreg/exposure.h"
#include "core/segments/shared_memory_file.h"
#include "core/segments/shared_pages.h"
#include "mpi.h"
#include "mpi/base/arena.h"
#include "mpi/base/attribute_list.h"
#include "mpi/base/error.h"
#include "mpi/base/handle.h"
#include "mpi/comm/communicator.h"
#include "mpi/datatype/datatype.h"

namespace gasket::mpi::win {

// Progresses the whole library (the MPI engine and the core) until done() holds; the MPI context
// supplies it per call (it releases the lock between polls under MPI_THREAD_MULTIPLE).
using Waiter = std::function<void(const std::function<bool()>& done)>;

// The words of a member's control block, in the MPI_Alloc_mem pool (symmetric heap) so that
// every peer reaches them with gasket::atomic; followed by posts[window size] and the region table.
struct ControlBlock {
  static constexpr int kBarrierRounds = 32;
  uint64_t lock_next;      // passive target: ticket dispenser
  uint64_t lock_serving;   // ticket now served
  uint64_t lock_readers;   // shared holders inside
  uint64_t acc_lock;       // accumulates that are not single atomics: holder PE + 1, or 0
  uint64_t completes;      // PSCW: MPI_Win_complete calls of origins received
  uint64_t table_version;  // region table seqlock: odd while the owner rewrites it
  uint64_t barrier[kBarrierRounds];  // fence: dissemination rounds, counts of arrivals
  // uint64_t posts[n]: MPI_Win_post calls received from each window rank, then the region table.
};

// A range of a member's memory and how peers reach it.
struct Region {
  uint64_t base = 0;  // the owner's virtual address
  uint64_t size = 0;
  int pe = 0;              // the PE whose memory it is
  char* alias = nullptr;   // in a symmetric segment: the address naming it here (gasket::put/get/atomic)
  char* direct = nullptr;  // mapped into this process on the direct path: plain loads and stores
  bool cpu_atomics = false;  // direct, and in a file-backed segment: CPU atomics as the core's
  // Reached through a backend that maps nothing of it here (pciddc; ucx's registered memory and
  // tcp): accumulates of several elements are applied by the owner (Window::accumulate_shipped).
  bool shipped = false;
  std::string descriptor;  // otherwise: exposed through core/memreg,
  // and its whole pages [pages_begin, pages_end) (offsets in the region) moved onto a shared file
  // (core/segments/shared_pages.h) that is mapped here at `pages`: plain loads and stores.
  char* pages = nullptr;
  uint64_t pages_begin = 0, pages_end = 0;
  std::string pages_file;
  bool contains(uint64_t addr, uint64_t len) const { return addr >= base && addr - base <= size && len <= size - (addr - base); }
};

// What every member tells the others at creation (fixed size: one allgather).
struct MemberInfo {
  uint64_t base = 0;        // its virtual address of the window memory
  uint64_t size = 0;
  int32_t disp_unit = 1;
  int32_t in_segment = 0;   // 1: [base, base+size) is in symmetric segment `segment` at `segment_offset`
  uint32_t segment = 0;
  int32_t memory_rank = -1;  // the rank whose segment holds the memory (shared windows: rank 0); -1: its own
  uint64_t segment_offset = 0;
  uint64_t control_offset = 0;  // of its control block in the heap segment (the same offset names it in every job)
};

// One member as seen from this process.
struct Target {
  int pe = 0;
  uint64_t size = 0;
  int disp_unit = 1;
  uint64_t base = 0;
  char* control = nullptr;         // alias of its control block (gasket::atomic/get address)
  bool direct_path = false;        // reached by loads and stores (same node, direct path)
  std::vector<Region> regions;     // static windows: one; dynamic: those attached (cached)
  bool regions_known = false;      // false: fetched from the target's region table on first use
  // The fast path: window bytes [fast_lo, fast_hi) are at fast + offset in this process (mapped
  // segment, own memory or shared pages); fast_hi == 0 when none are.
  uintptr_t fast = 0;
  uint64_t fast_lo = 0, fast_hi = 0;
  uint64_t atomic_lo = 0, atomic_hi = 0;  // within them, where accumulates are CPU atomics
  uint64_t table_version = ~uint64_t{0};
};

enum class LockState : uint8_t { kNone, kShared, kExclusive };

class Window {
 public:
  // `members[r]` is rank r's MemberInfo. Control blocks are allocated by the caller from the MPI
  // context's MPI_Alloc_mem pool (in the heap segment, whose base here is `heap_base`) before the
  // exchange.
  Window(int flavor, MPI_Comm comm, std::shared_ptr<const comm::Group> group, int rank,
         const std::vector<MemberInfo>& members, char* heap_base, char* control, size_t table_bytes);
  ~Window();

  // Bytes of a control block for a window of `n` members with a region table of `table_bytes`.
  static size_t control_bytes(int n, size_t table_bytes) {
    return sizeof(ControlBlock) + 8 * static_cast<size_t>(n) + table_bytes;
  }

  // ---- identity and attributes ----
  int flavor() const { return flavor_; }
  MPI_Comm comm() const { return comm_; }
  const std::shared_ptr<const comm::Group>& group() const { return group_; }
  int rank() const { return rank_; }
  int size() const { return static_cast<int>(targets_.size()); }
  const Target& target(int rank) const { return targets_[static_cast<size_t>(rank)]; }
  std::string name;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::vector<std::pair<std::string, std::string>> info;
  AttributeList attributes;
  // The values MPI_Win_get_attr points at.
  void* attr_base = nullptr;
  MPI_Aint attr_size = 0;
  int attr_disp_unit = 1;
  int attr_flavor = 0;
  int attr_model = MPI_WIN_UNIFIED;
  // What MPI_Win_free gives back: pool blocks and memreg exposures of this rank's memory.
  std::vector<char*> pool_blocks;
  // MPI_Win_allocate memory the pool could not hold (posix_memalign), freed with the window.
  std::vector<char*> system_blocks;
  // This rank's region made reachable (Win_create on memory outside every segment).
  Error publish_region(void* base, uint64_t size, const char* call);
  // MPI_Win_shared_query: where `rank`'s memory is mapped here (null when not on this node).
  char* shared_pointer(int rank) const;

  // A label for messages: "window NAME" or "window #HANDLE".
  std::string label() const;
  int handle = MPI_WIN_NULL;

  // ---- dynamic windows ----
  Error attach(void* base, uint64_t size, const char* call);
  Error detach(const void* base, const char* call);

  // ---- communication (ranks checked by the caller; MPI_PROC_NULL filtered out) ----
  // Every target range is checked against the window / the attached regions (MPI_ERR_RMA_RANGE)
  // and the access epoch (MPI_ERR_RMA_SYNC).
  // The common case without building Error values: `bytes` contiguous bytes at displacement `disp`
  // of `rank` (a static window) mapped here, in an access epoch. False: take put()/get().
  bool copy_direct(bool is_put, char* origin, int64_t bytes, int rank, int64_t disp) {
    const Target& t = targets_[static_cast<size_t>(rank)];
    uint64_t off = static_cast<uint64_t>(disp) * static_cast<uint64_t>(t.disp_unit);
    if (disp < 0 || off < t.fast_lo || off + static_cast<uint64_t>(bytes) > t.fast_hi || !accessible(rank)) return false;
    char* remote = reinterpret_cast<char*>(t.fast + off);
    __builtin_memcpy(is_put ? remote : origin, is_put ? origin : remote, static_cast<size_t>(bytes));
    return true;
  }
  // The same for an accumulate/get_accumulate/fetch_and_op of `count` contiguous elements of a
  // predefined type of 1, 2, 4 or 8 bytes without holes (`origin` null for MPI_NO_OP, `result`
  // null when nothing is fetched), or a one-element compare-and-swap (`compare` non-null): CPU
  // atomics on the mapped memory, where accumulate() would run them too.
  bool atomic_direct(MPI_Op op, MPI_Datatype basic, int width, int64_t count, const void* origin, void* result,
                     int rank, int64_t disp, const void* compare = nullptr);
  bool accessible(int rank) const {
    return fence_epoch_ || lock_all_ || locks_[static_cast<size_t>(rank)] != LockState::kNone ||
           in_access_group_[static_cast<size_t>(rank)];
  }
  Error put(const void* origin, int64_t origin_count, const datatype::Datatype& origin_type, int rank,
            int64_t disp, int64_t target_count, const datatype::Datatype& target_type, const char* call);
  Error get(void* origin, int64_t origin_count, const datatype::Datatype& origin_type, int rank, int64_t disp,
            int64_t target_count, const datatype::Datatype& target_type, const char* call);
  // Accumulate and get_accumulate (`result` non-null): `basic` is the predefined type every
  // element is made of; `origin_packed` holds the origin's elements packed (null for MPI_NO_OP);
  // `result_packed` receives the old target elements packed; `basic_type` is `basic`'s datatype
  // (its layout in memory: pair types may have a hole). Atomic per element (README.md).
  Error accumulate(const char* origin_packed, int64_t elements, const datatype::Datatype& basic_type,
                   MPI_Datatype basic, int basic_size, MPI_Op op, int rank, int64_t disp, int64_t target_count,
                   const datatype::Datatype& target_type, char* result_packed, const char* call);
  // `type` is predefined (one element).
  Error compare_and_swap(const void* origin, const void* compare, void* result, const datatype::Datatype& type,
                         int rank, int64_t disp, const char* call);

  // ---- synchronisation ----
  Error fence(int assert, const Waiter& wait, const char* call);
  Error post(const std::vector<int>& ranks, const char* call);
  Error start(const std::vector<int>& ranks, const Waiter& wait, const char* call);
  Error complete(const char* call);
  Error wait_exposure(const Waiter& wait, bool test_only, bool* done, const char* call);
  // nocheck (MPI_MODE_NOCHECK): no conflicting lock is held or asked for; the lock word is left alone.
  Error lock(int lock_type, int rank, bool nocheck, const Waiter& wait, const char* call);
  Error unlock(int rank, const char* call);
  Error lock_all(bool nocheck, const Waiter& wait, const char* call);
  Error unlock_all(const char* call);
  // flush / flush_local (rank >= 0) and their _all forms (rank < 0).
  Error flush(int rank);
  // In a passive-target epoch on `rank` (request-based operations need one).
  bool passive_epoch(int rank) const { return lock_all_ || locks_[static_cast<size_t>(rank)] != LockState::kNone; }
  // The heap offset of this rank's control block: how peers name the window when they ship an
  // accumulate to this rank (WinTable::serve_accumulate).
  uint64_t control_offset() const;
  // The target side of accumulate_shipped: applies one request of a peer (PE `src_pe`) to this
  // rank's memory and returns its status; `out` receives the old values (get_accumulate). Runs from
  // progress (the core's service), under the window table's served_mutex.
  uint64_t serve_accumulate(int src_pe, const char* in, size_t in_len, char* out, size_t out_len);
  // The window table's served_mutex (set by WinTable::add): held while attach/detach change the
  // regions serve_accumulate reads.
  std::mutex* served_mutex = nullptr;
  // Some epoch is open: a lock or lock_all, a fence's, a start or a post.
  bool any_epoch() const { return lock_all_ || locks_held_ > 0 || fence_epoch_ || access_epoch_ || exposure_size_ >= 0; }
  // Collective end of the window: completes, waits for every member, releases the memory.
  Error free(const Waiter& wait, Arena& pool, const char* call);

 private:
  struct Location;  // one target range resolved to a region
  Error check_access(int rank, const char* call) const;
  // may_span: in a dynamic window the range may continue across adjacent attached regions (puts
  // and gets: transfer() splits at the region ends; accumulates stay within one region).
  Error resolve(int rank, int64_t disp, int64_t target_count, const datatype::Datatype& type, const char* call,
                Location* loc, bool may_span = false);
  // The region of `t` holding byte `addr`, or null.
  static const Region* region_at(const Target& t, uint64_t addr);
  Error refresh_regions(Target& t, const char* call);
  void update_fast(Target& t);
  void set_fast(Target& t, const Region& r);
  void write_table();
  Error move(bool is_put, char* origin, int64_t origin_count, const datatype::Datatype& origin_type, int rank,
             int64_t disp, int64_t target_count, const datatype::Datatype& target_type, const char* call);
  Error transfer(bool is_put, const Location& loc, uint64_t offset, char* local, size_t len, const char* call);
  // Accumulate, get_accumulate (result non-null) or compare_and_swap (`compare` non-null) of the
  // elements starting at `starts` (offsets from the target buffer in `loc`'s region, which the
  // owner serves: shippable) applied by the target itself: the origin's elements packed with
  // runs of element offsets into a request per half zone, the old values packed back
  // (EmulatedRma::call_service). Outside an exclusive epoch the target's accumulate lock is held
  // throughout: taken by the first request, released by the last.
  bool shippable(const Location& loc) const;
  // Holds served_mutex (when the window is in a table) while the published regions change.
  std::unique_lock<std::mutex> lock_served() const {
    return served_mutex != nullptr ? std::unique_lock<std::mutex>(*served_mutex) : std::unique_lock<std::mutex>();
  }
  Error accumulate_shipped(const Location& loc, const std::vector<int64_t>& starts, const datatype::Datatype& basic_type,
                           MPI_Datatype basic, int basic_size, MPI_Op op, const char* origin, const char* compare,
                           char* result, bool exclusive, const char* call);
  // This rank's region holding [addr, addr + len) as a target of shipped accumulates, or null.
  const Region* served_region(uint64_t addr, uint64_t len) const;
  Error accumulate_locked(const Location& loc, const std::vector<std::pair<int64_t, int64_t>>& chunks,
                          const char* origin, MPI_Datatype basic, int basic_size, MPI_Op op, char* result,
                          bool take_lock, const char* call);
  // accumulate()'s element loop: one atomic per element (CPU or core), runs of elements that are
  // not words under the accumulate lock (`take_lock`: not already held for the call).
  Error accumulate_elements(const Location& loc, const std::pair<int64_t, int64_t>* first, size_t pieces,
                            const char* origin_packed, MPI_Datatype basic, int basic_size, MPI_Op op,
                            char* result_packed, bool take_lock, const char* call);
  uint64_t* control_word(int rank, size_t offset) const {
    return reinterpret_cast<uint64_t*>(targets_[static_cast<size_t>(rank)].control + offset);
  }
  uint64_t* posts_word(int rank, int from) const {
    return control_word(rank, sizeof(ControlBlock) + 8 * static_cast<size_t>(from));
  }
  char* cpu_word(const Location& loc, int64_t offset, size_t width) const;
  void acquire_acc_lock(int rank);
  void release_acc_lock(int rank);
  void barrier(const Waiter& wait);
  void complete_all();  // quiet (every outstanding operation of this process)

  int flavor_;
  MPI_Comm comm_;
  std::shared_ptr<const comm::Group> group_;
  int rank_;
  std::vector<Target> targets_;
  bool all_direct_ = false;  // every member reached by loads and stores (one node, direct path)
  ControlBlock* mine_;         // this rank's control block (local memory)
  size_t table_bytes_;
  // This rank's regions (dynamic: attached; create outside segments: its memory) and exposures.
  struct Published {
    Region region;
    memreg::Exposure exposure;
    segments::SharedPages pages;
    bool in_segment = false;
    uint32_t segment = 0;
    uint64_t segment_offset = 0;
  };
  std::vector<Published> published_;
  // Same-node peers' shared pages mapped here, by file name (unmapped with the window).
  std::map<std::string, segments::SharedMemoryFile> peer_pages_;
  void unpublish(Published& p, const char* call);
  void map_pages(Region* r, uint64_t begin, uint64_t end, const char* call);
  Error transfer_exposed(bool is_put, const Region& r, int rank, uint64_t offset, char* local, size_t len,
                         const char* call);

  // Epochs.
  bool fence_epoch_ = false;
  bool lock_all_ = false;
  std::vector<LockState> locks_;
  std::vector<bool> lock_unheld_;  // locked with MPI_MODE_NOCHECK: nothing to release
  int locks_held_ = 0;
  std::vector<int> access_group_;      // PSCW access epoch (start .. complete)
  std::vector<bool> in_access_group_;
  bool access_epoch_ = false;
  int exposure_size_ = -1;             // PSCW exposure epoch (post .. wait): origins, or -1
  std::vector<uint64_t> starts_done_;  // posts consumed from each rank
  uint64_t completes_expected_ = 0;
  uint64_t barrier_epoch_ = 0;
};

// The service id of shipped accumulates in the core's EmulatedRma (installed by the MPI context).
constexpr unsigned kAccumulateService = 0;

class WinTable {
 public:
  MPI_Win add(std::unique_ptr<Window> w);
  // The core's service for accumulates shipped to this process: finds the window by the heap
  // offset of its control block (the first word of the request) and applies the request there.
  uint64_t serve_accumulate(int src_pe, const char* in, size_t in_len, char* out, size_t out_len);
  // The window behind `handle`, or an error naming `call` (MPI_ERR_WIN).
  Error lookup(MPI_Win handle, const char* call, Window** w);
  Window* find(MPI_Win handle) {
    auto* entry = entry_of(wins_, HandleKind::kWin, handle);
    return entry != nullptr ? entry->get() : nullptr;
  }
  void remove(MPI_Win handle);

 private:
  std::vector<std::unique_ptr<Window>> wins_ = std::vector<std::unique_ptr<Window>>(1);  // 0: MPI_WIN_NULL
  // Windows by control-block offset, for serve_accumulate (which may run on the core's progress
  // thread while MPI calls add and remove windows).
  std::mutex served_mutex_;
  std::map<uint64_t, Window*> served_;
};

}  // namespace gasket::mpi::win
