// The OpenSHMEM library's state: one Library object per process (teams, contexts, the symmetric
// pool of team synchronisation areas, the thread level, SHMEM_DEBUG), created by shmem_init and
// destroyed by the last shmem_finalize. The C entry points (shmem.cc) are thin: they check
// arguments through this object and call the core (core/gasket.h) and core/coll.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "core/coll/cells.h"
#include "core/coll/coll.h"
#include "core/gasket.h"
#include "shmem.h"

namespace gasket::shmem {

// Team synchronisation areas live in one symmetric pool allocated at init: kMaxTeams slots of
// kSlotWords words (coll::kSyncWords signalling words, then the exchange words of team splits:
// one bit per slot, so a split agrees on free slots in one reduction). Slot s < CellArea::kSlots
// also owns cell slot s; teams in higher slots run the SyncArea algorithms. Slots 0 and 1 are
// SHMEM_TEAM_WORLD and SHMEM_TEAM_SHARED; a split that finds no free slot returns non-zero.
constexpr int kMaxTeams = 1024;
constexpr size_t kSlotMaskWords = kMaxTeams / 64;
constexpr size_t kExchangeWord = coll::kSyncWords;
constexpr size_t kSlotWords = kExchangeWord + kSlotMaskWords;
static_assert(SHMEM_SYNC_SIZE >= static_cast<int>(coll::kSyncWords), "pSync arrays must hold a SyncArea");

struct Team {
  bool alive = false;
  coll::PeSet set;
  int slot = -1;
  coll::SyncArea sync = nullptr;
  shmem_team_config_t config{0};
  // The same-node cell protocol (core/coll/cells.h) in the cell slot `slot`: whether it serves the
  // team (every member mapped here), the team's tag (a serial agreed at creation, increasing on
  // every PE), its count of cell collectives and the last one in which this PE saw every member
  // (coll::CellSlot), and the members' cells (coll::cell_table, made with on_cells).
  bool on_cells = false;
  uint32_t tag = 0;
  uint64_t cell_seq = 0;
  uint64_t cell_all_entered = 0;
  std::vector<coll::CellArea::Cell*> cell_table;
};

struct Context {
  bool alive = false;
  int team = 0;  // index into the team table
  long options = 0;
  bool in_session = false;  // between shmem_ctx_session_start and _stop (hints only)
};

class Library {
 public:
  // The library, or the end of the job with a message naming `call` when not initialised.
  static Library& get(const char* call);
  static bool running() { return instance_ != nullptr; }
  static void start(int requested_thread_level, const char* call);
  static void stop();

  int thread_level() const { return thread_level_; }
  bool debug() const { return debug_; }

  Team& team(shmem_team_t handle, const char* call);
  static shmem_team_t team_handle(int index) { return reinterpret_cast<shmem_team_t>(static_cast<uintptr_t>(index) + 1); }
  const Team& world() const { return teams_[0]; }

  // The job-wide PE of `pe` as named through `ctx` (team contexts number PEs within their team);
  // ends the job with a message when out of range.
  int target_pe(shmem_ctx_t ctx, int pe, const char* call) {
    if (__builtin_expect(ctx == SHMEM_CTX_DEFAULT, 1)) return pe;  // checked by the core
    return ctx_target(ctx, pe, call);
  }
  Context& context(shmem_ctx_t handle, const char* call);
  int create_context(int team_index, long options, shmem_ctx_t* out, const char* call);
  void destroy_context(shmem_ctx_t handle, const char* call);
  shmem_team_t context_team(shmem_ctx_t handle, const char* call);
  // Sessions (1.6) are hints: operations are issued at once either way. open_session returns
  // false when one is already open on the context.
  bool open_session(shmem_ctx_t handle, const char* call);
  void close_session(shmem_ctx_t handle, const char* call);

  // Collective over `parent`: the teams given by `groups` (for each of `count` new teams, the
  // parent ranks of this PE's team, empty when it is not in one). Returns 0, or non-zero when the
  // teams cannot be created (no free slot).
  int split(shmem_team_t parent, const std::vector<std::vector<int>>& groups,
            const std::vector<const shmem_team_config_t*>& configs, std::vector<shmem_team_t*> out,
            const char* call);
  void destroy_team(shmem_team_t handle, const char* call);

  // Whether the cell protocol serves `t` for `bytes` of data (the same answer on every member).
  bool on_cells(const Team& t, size_t bytes) const { return t.on_cells && bytes <= coll::CellArea::kCellBytes; }
  coll::CellSlot cell_slot(Team& t) const {
    return coll::CellSlot{&cells_, t.slot, t.tag, &t.cell_seq, &t.cell_all_entered,
                          t.cell_table.empty() ? nullptr : t.cell_table.data()};
  }
  const coll::CellWait& cell_wait() const { return cell_wait_; }

  // Where the next _any search starts (wait_until_any/test_any and their vector forms): one past
  // the index the last one returned, so successive calls return every satisfied index in turn.
  size_t any_cursor() const { return any_cursor_.load(std::memory_order_relaxed); }
  void any_returned(size_t index) { any_cursor_.store(index + 1, std::memory_order_relaxed); }

  // Checks (under SHMEM_DEBUG) that [addr, addr+bytes) is symmetric memory.
  void check_symmetric(const void* addr, size_t bytes, const char* role, const char* call) const;

 private:
  Library() = default;
  int ctx_target(shmem_ctx_t ctx, int pe, const char* call);
  int add_team(coll::PeSet set, int slot, uint32_t tag, const shmem_team_config_t* config);

  static Library* instance_;
  int thread_level_ = SHMEM_THREAD_SINGLE;
  bool debug_ = false;
  std::recursive_mutex mutex_;  // team and context tables (SHMEM_THREAD_MULTIPLE)
  int64_t* pool_ = nullptr;
  uint64_t used_slots_[kSlotMaskWords] = {};  // bit s: slot s holds a live team on this PE
  coll::CellArea cells_;  // slot s: the team in team slot s
  coll::CellWait cell_wait_;
  uint32_t last_tag_ = 0;  // the highest team tag given out on this PE
  std::vector<Team> teams_;  // 0: SHMEM_TEAM_WORLD, 1: SHMEM_TEAM_SHARED
  std::vector<Context> contexts_;  // 0: SHMEM_CTX_DEFAULT
  std::atomic<size_t> any_cursor_{0};
};

// Maps SHMEM_CMP_* to the core's comparison; ends the job naming `call` on any other value.
Cmp comparison(int cmp, const char* call);

}  // namespace gasket::shmem
