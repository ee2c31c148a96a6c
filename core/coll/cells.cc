// The same-node cell protocol (see cells.h).
#include "core/coll/cells.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstddef>
#include <cstring>
#include <ctime>

#include "core/gasket.h"

namespace gasket::coll {

namespace {

using Cell = CellArea::Cell;
static_assert(offsetof(Cell, data) + CellArea::kInlineBytes == 64, "a cell's first data bytes share the flag's line");

uint64_t flag_of(uint32_t tag, uint64_t seq) { return (uint64_t{tag} << 32) | (seq & 0xffffffffu); }
// The cell's owner has reached collective `seq` of the set tagged `tag` (or a later one, or has
// moved on to a later set: tags grow).
bool reached(const Cell* cell, uint32_t tag, uint64_t seq) {
  uint64_t f = __atomic_load_n(&cell->flag, __ATOMIC_ACQUIRE);
  uint32_t owner_tag = static_cast<uint32_t>(f >> 32);
  return owner_tag > tag || (owner_tag == tag && (f & 0xffffffffu) >= (seq & 0xffffffffu));
}

// The flag's low word (the sequence number, little-endian) is the futex: the area is a shared
// mapping, so the (non-private) futex works between processes.
int* futex_word(Cell* cell) { return reinterpret_cast<int*>(&cell->flag); }

// Stores `flag` (release) and wakes the members sleeping on it.
void set_flag(Cell* cell, uint64_t flag) {
  __atomic_store_n(&cell->flag, flag, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&cell->sleepers, __ATOMIC_SEQ_CST) != 0) {
    syscall(SYS_futex, futex_word(cell), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
  }
}

void standard_progress(void*) { gasket::progress(); }
void standard_backoff(void*, unsigned* polls) {
  if (++*polls > 64 || gasket::oversubscribed()) sched_yield();
}

}  // namespace

Status CellArea::create(const char* call) {
  size_t bytes = sizeof(Cell) * kSlots * 2;
  base_ = static_cast<Cell*>(gasket::sym_align(64, bytes, call));
  if (base_ == nullptr) {
    return Status(StatusCode::kOutOfMemory, std::string(call) + ": no room for the collective cell area in the symmetric heap");
  }
  std::memset(static_cast<void*>(base_), 0, bytes);
  peer_bases_.assign(static_cast<size_t>(gasket::n_pes()), nullptr);
  for (int pe = 0; pe < gasket::n_pes(); ++pe) {
    peer_bases_[static_cast<size_t>(pe)] = pe == gasket::my_pe() ? base_ : static_cast<Cell*>(gasket::peer_pointer(base_, pe));
  }
  gasket::barrier_all();  // zeroed everywhere before anyone reads a peer's flag
  return Status::ok();
}

void CellArea::destroy(const char* call) {
  if (base_ != nullptr) gasket::sym_free(base_, call);
  base_ = nullptr;
  peer_bases_.clear();
}

uint64_t CellArea::free_slots() {
  for (size_t i = 0; i < retired_.size();) {
    const Retired& r = retired_[i];
    bool left = true;
    for (int m = 0; left && m < r.set.size(); ++m) {
      const Cell* c = cell(r.set.pe(m), r.slot, static_cast<int>(r.seq & 1));
      left = c == nullptr || reached(c, r.tag, r.seq);
    }
    if (!left) {
      ++i;
      continue;
    }
    release(r.slot);
    retired_.erase(retired_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return free_;
}

void CellArea::retire(int slot, const PeSet& set, uint32_t tag, uint64_t seq) {
  if (base_ == nullptr) return release(slot);
  uint64_t mark = seq + 1;
  Cell* mine = cell(gasket::my_pe(), slot, static_cast<int>(mark & 1));
  set_flag(mine, flag_of(tag, mark));  // only the flag: the cell's data (collective seq - 1's) may still be read
  retired_.push_back(Retired{set, slot, tag, mark});
}

Cell* CellArea::unlisted_base(int pe) const { return static_cast<Cell*>(gasket::peer_pointer(base_, pe)); }

CellWait CellWait::standard(bool thread_multiple) {
  CellWait w;
  w.progress = standard_progress;
  w.backoff = standard_backoff;
  w.may_sleep = !thread_multiple;
  return w;
}

bool cells_apply(const CellArea& area, int slot, const PeSet& set, size_t bytes) {
  if (!area.usable() || slot < 0 || bytes > CellArea::kCellBytes || set.size() > CellArea::kMaxMembers) return false;
  for (int r = 0; r < set.size(); ++r) {
    if (area.cell(set.pe(r), slot, 0) == nullptr) return false;  // not on this node
  }
  return true;
}

std::vector<CellArea::Cell*> cell_table(const CellArea& area, int slot, const PeSet& set) {
  const int n = set.size();
  std::vector<Cell*> table(static_cast<size_t>(2 * n));
  for (int parity = 0; parity < 2; ++parity) {
    for (int r = 0; r < n; ++r) table[static_cast<size_t>(parity * n + r)] = area.cell(set.pe(r), slot, parity);
  }
  return table;
}

CellRound::CellRound(const PeSet& set, const CellSlot& slot, const CellWait& wait, bool writes_data)
    : set_(set), wait_(wait), tag_(slot.tag), seq_(++*slot.seq), all_entered_(slot.all_entered), n_(set.size()) {
  const int parity = static_cast<int>(seq_ & 1);
  cells_ = slot.table + parity * n_;
  // Step 1: everyone has entered the previous collective (its flag is in the other cells).
  const bool seen = all_entered_ != nullptr && *all_entered_ + 1 == seq_;
  if (writes_data && seq_ > 2 && !seen) {
    for (int r = 0; r < n_; ++r) {
      if (cells_[r] != nullptr) wait_for(CellArea::other_parity(cells_[r], parity), seq_ - 1);
    }
  }
}

void CellRound::publish(const void* data, size_t bytes) {
  Cell* mine = cells_[set_.my_rank()];
  if (bytes > 0) std::memcpy(mine->data, data, bytes);
  set_flag(mine, flag_of(tag_, seq_));
}

void CellRound::wait_all() {
  for (int r = 0; r < n_; ++r) {
    if (r != set_.my_rank() && cells_[r] != nullptr) wait_for(cells_[r], seq_);
  }
  all_entered();
}

bool CellRound::published(int rank) const { return reached(cells_[rank], tag_, seq_); }

// Polls the flag (progress every 16th poll: other traffic needs it rarely, and it costs more than
// the flag; and after every sleep). When processes outnumber cores, a yield-based wait keeps handing the core back to
// pollers, so after a few polls the waiter sleeps on the flag's futex and publish() wakes it;
// otherwise it sleeps once the core's spin budget is spent, when the core's policy would nap
// (every peer on the direct path: a loaded machine gives the core away and wakes it at once).
void CellRound::wait_for(Cell* cell, uint64_t seq) {
  if (reached(cell, tag_, seq)) return;  // the common case of step 1, and of a late arrival
  const bool crowded = gasket::oversubscribed();
  unsigned polls = 0, step = 0, spun = 0, crowded_polls = wait_.crowded_polls;
  do {
    if ((++step & 15) == 0) wait_.progress(wait_.ctx);
    // Past 4 polls a crowded wait polls on only while the set's members alone share the CPUs
    // (asked every 8th poll: a read of /proc/loadavg costs ~1.4 µs).
    if (crowded && step > 4 && step <= crowded_polls && (step - 5) % 8 == 0 && !gasket::detail::cpus_shared_by_set_alone(n_)) {
      crowded_polls = step - 1;
    }
    bool sleep_due = crowded ? step > crowded_polls : gasket::detail::spin(&spun, /*pause=*/false) && gasket::detail::nap_allowed();
    if (wait_.may_sleep && sleep_due) {
      __atomic_add_fetch(&cell->sleepers, 1, __ATOMIC_SEQ_CST);
      uint64_t f = __atomic_load_n(&cell->flag, __ATOMIC_SEQ_CST);
      if (!reached(cell, tag_, seq)) {
        timespec limit{0, 1000000};  // 1 ms: progress other traffic now and then
        if (wait_.release != nullptr) wait_.release(wait_.ctx);
        syscall(SYS_futex, futex_word(cell), FUTEX_WAIT, static_cast<int>(f & 0xffffffffu), &limit, nullptr, 0);
        if (wait_.retake != nullptr) wait_.retake(wait_.ctx);
      }
      __atomic_sub_fetch(&cell->sleepers, 1, __ATOMIC_SEQ_CST);
      // After every sleep: a sleeper may be the one peers wait for (e.g. memreg's bounce
      // transfers are served by the owner's core progress, which a caller's progress may run only
      // now and then): serve them.
      wait_.progress(wait_.ctx);
      if (wait_.progress != standard_progress) gasket::progress();
      continue;
    }
    wait_.backoff(wait_.ctx, &polls);
  } while (!reached(cell, tag_, seq));
}

void cell_barrier(const PeSet& set, const CellSlot& slot, const CellWait& wait, int releaser) {
  CellRound round(set, slot, wait);
  if (releaser < 0) {
    round.publish(nullptr, 0);
    round.wait_all();
    return;
  }
  if (set.my_rank() != releaser) {
    round.publish(nullptr, 0);
    round.wait_one(releaser);
    round.all_entered();  // the releaser published once every member had
    return;
  }
  round.wait_all();
  round.publish(nullptr, 0);
}

void cell_broadcast(const PeSet& set, const CellSlot& slot, const CellWait& wait, void* data, size_t bytes,
                    int root_rank) {
  const bool root = set.my_rank() == root_rank;
  CellRound round(set, slot, wait, /*writes_data=*/root);
  if (root) {
    round.publish(data, bytes);
    return;
  }
  round.publish(nullptr, 0);  // entered: for step 1 of later collectives
  round.wait_one(root_rank);
  if (bytes > 0) std::memcpy(data, round.cell(root_rank)->data, bytes);
}

void cell_reduce(const PeSet& set, const CellSlot& slot, const CellWait& wait, const void* in, void* out,
                 size_t count, size_t elem_bytes, CellCombineFn combine, void* combine_ctx, int root_rank) {
  CellRound round(set, slot, wait);
  round.publish(in, count * elem_bytes);
  if (root_rank >= 0 && set.my_rank() != root_rank) return;
  round.wait_all();
  int n = set.size();
  if (count == 0) return;
  std::memcpy(out, round.cell(n - 1)->data, count * elem_bytes);
  for (int r = n - 2; r >= 0; --r) combine(combine_ctx, round.cell(r)->data, out, count);
}

namespace detail {
void combine_cells(void* ctx, const void* data, void* acc, size_t count) {
  (*static_cast<CombineFn*>(ctx))(acc, data, count);
}
}  // namespace detail

}  // namespace gasket::coll
