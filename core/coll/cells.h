// The same-node cell protocol: small blocking collectives (barrier, broadcast, reduce/allreduce of
// up to CellArea::kCellBytes of contiguous data) on a PeSet whose members all share this node.
// Shared by MPI (mpi/coll/shm.cc: communicators) and OpenSHMEM (shmem-api: teams, world).
//
// The CellArea is a region of the symmetric heap, allocated collectively once by the programming
// model, with kSlots slots (one per communicator / team). In its slot each member owns two cells
// (by the parity of the collective's sequence number): a flag word (tag << 32 | sequence number),
// stored last with release order, and kCellBytes of data. Members read each other's cells through
// the core's mappings with plain loads. The tag tells the set now holding the slot apart from an
// earlier holder (MPI: the context id; OpenSHMEM: the team's serial): tags given out grow on every
// PE, so a flag of a higher tag means its owner has finished every collective of the older set
// (a slow member still waiting there sees its collective done, never a foreign flag forever).
// A freed set's slot is reused only once all its members have left its last collective
// (CellArea::retire), so nobody still reads a cell the new holder writes.
//
// Protocol, for the set's collective number `seq` (cells of parity seq & 1):
//  1. (seq > 2) wait until every member has entered collective seq - 1: then nobody still reads
//     the cells of seq - 2, which this one reuses (a member writing only its flag, a broadcast's
//     receiver, skips it: see CellRound; done already when this member saw every member's flag
//     in seq - 1: CellSlot::all_entered);
//  2. write the contribution (if any) into this member's cell, then its flag = seq (release);
//  3. wait for the flags needed (every member's for barrier/reduce/allreduce at the receiving
//     ranks, the root's for broadcast) and read the data straight out of the peers' cells.
// One wait phase and no exit barrier: with processes outnumbering cores every extra round costs a
// context switch. A waiter that polls a few times in vain sleeps on the flag's futex when the
// node is oversubscribed; the owner's publish wakes it. Reductions combine
// x0 op (x1 op (... op x_{n-1})): rank order, so non-commutative operations are right too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/base/status.h"
#include "core/coll/coll.h"

namespace gasket::coll {

class CellArea {
 public:
  static constexpr int kSlots = 64;
  static constexpr size_t kCellBytes = 2048;
  static constexpr int kMaxMembers = 64;  // larger sets take the other algorithms
  struct alignas(64) Cell {
    uint64_t flag;
    uint32_t sleepers;  // members blocked in futex_wait on the flag's low word
    uint32_t unused;
    // Its first kInlineBytes share the flag's cache line: a reader of a small contribution (an
    // 8-byte allreduce) takes one line from the writer's cache, not the flag's and then the data's.
    char data[kCellBytes];
  };
  static constexpr size_t kInlineBytes = 48;

  // Collective over all PEs (symmetric allocation, zeroed, then a barrier). `call` names the
  // caller in messages. A failure leaves the area unusable.
  Status create(const char* call);
  // Collective: frees the region.
  void destroy(const char* call);
  bool usable() const { return base_ != nullptr; }

  // Slots free here (bit i: slot i); the programming model takes/releases them as its sets come
  // and go. Slot 0 starts taken (the world's). free_slots() first frees the retired slots every
  // old member has left.
  uint64_t free_slots();
  void take(int slot) { free_ &= ~(uint64_t{1} << slot); }
  // A slot no cell collective ran on (an agreement that did not use it).
  void release(int slot) { free_ |= uint64_t{1} << slot; }
  // The set of `slot` is freed after `seq` cell collectives, its `tag` monotonic (see reached()).
  // Slower members may still be in collective `seq`, reading this member's cells: the slot is
  // freed here only once every member has marked that it left (step 1 of a collective seq + 1,
  // which retire() publishes, without waiting for anybody).
  void retire(int slot, const PeSet& set, uint32_t tag, uint64_t seq);

  // `pe`'s cell (this PE's own or a same-node peer's mapping); null when `pe` is not mapped here.
  // Inline: every collective finds each member's cell.
  Cell* cell(int pe, int slot, int parity) const {
    auto i = static_cast<size_t>(pe);
    Cell* base = i < peer_bases_.size() ? peer_bases_[i] : unlisted_base(pe);
    return base == nullptr ? nullptr : base + slot * 2 + parity;
  }
  // The same member's cell of the other parity in the same slot (`c` is of `parity`).
  static Cell* other_parity(Cell* c, int parity) { return parity == 0 ? c + 1 : c - 1; }

 private:
  struct Retired {
    PeSet set;
    int slot;
    uint32_t tag;
    uint64_t seq;  // the mark: the collective after the set's last one
  };
  // base_ as mapped here for a PE past those listed at create() (a process added later).
  Cell* unlisted_base(int pe) const;
  Cell* base_ = nullptr;  // [slot][parity]
  // base_ as mapped here for each PE of the job (its own: base_; null: not mapped here), found
  // once at create(): cell() is on every collective's path.
  std::vector<Cell*> peer_bases_;
  uint64_t free_ = ~uint64_t{1};
  std::vector<Retired> retired_;
};

// Where a set's collectives run: its slot, its tag, its collective counter (incremented by every
// cell collective; starts at 0, equal on every member) and every member's cell by parity,
// `table[parity * set size + rank]` (cell_table(), made once by the set's owner: a collective does
// not look them up). Optional: `all_entered` (starts at 0, reset with `seq`): the last collective
// in which this member saw every member's flag, so that step 1 of the next one is already done.
struct CellSlot {
  const CellArea* area = nullptr;
  int slot = -1;
  uint32_t tag = 0;
  uint64_t* seq = nullptr;
  uint64_t* all_entered = nullptr;
  CellArea::Cell* const* table = nullptr;
};

// The cells of `set` in `slot` for CellSlot::table (2 x set size entries).
std::vector<CellArea::Cell*> cell_table(const CellArea& area, int slot, const PeSet& set);

// How a member waits: `progress` (every 16th poll) and `backoff` (other polls) with `ctx`;
// `may_sleep`: whether no other thread of this process could need to run the wait's progress;
// then the waiter sleeps on the flag's futex after a few polls when processes outnumber cores,
// else past the core's spin budget when the core's policy naps. Default: gasket::progress(),
// a yield when oversubscribed, sleeping unless MULTIPLE.
// `release`/`retake` (optional): called around each futex sleep, so that other threads of this
// process run meanwhile (MPI under MULTIPLE: its lock; their progress is then their own).
// `crowded_polls`: the polls before that sleep when processes outnumber cores. Past 4 they are
// made only while the set has at most two members per CPU and no more tasks are runnable on the
// machine than it has members (the CPUs are shared by the set alone, so each backoff's yield
// hands this CPU to the member sharing it, maybe the writer awaited): for waits on a peer's copy
// of kilobytes, which a cross-CPU wake-up (12-15 µs on the 2-vCPU guest) costs more than
// (mpi/coll/README.md "Waiting on staged data").
struct CellWait {
  void (*progress)(void* ctx) = nullptr;
  void (*backoff)(void* ctx, unsigned* polls) = nullptr;
  void (*release)(void* ctx) = nullptr;
  void (*retake)(void* ctx) = nullptr;
  void* ctx = nullptr;
  bool may_sleep = false;
  unsigned crowded_polls = 4;
  static CellWait standard(bool thread_multiple);
};

// `acc` = `data` op `acc` elementwise for `count` elements; `data` is the lower rank's (a peer's
// mapped cell, any alignment).
using CellCombineFn = void (*)(void* ctx, const void* data, void* acc, size_t count);

// Whether the cell protocol serves `set` on `area` for `bytes` of data: the area is usable, the set
// small enough and every member mapped here (the same answer on every member).
bool cells_apply(const CellArea& area, int slot, const PeSet& set, size_t bytes);

// One collective on the cells (steps 1-3 above): for algorithms built around the protocol (MPI's
// node-aware allreduce). The constructor runs step 1.
class CellRound {
 public:
  using Cell = CellArea::Cell;
  // `writes_data`: false for a member that will publish its flag only (a broadcast's receivers):
  // it skips step 1, since raising its flag from seq - 2 to seq keeps "reached" true for anyone
  // still waiting on the old one and leaves the cell's data as it was; the writers of data still
  // wait. A receiver thus never sleeps on another receiver (oversubscribed broadcasts: one wake-up
  // per receiver, from the root).
  // Step 1 is skipped when this member saw every member's flag in the previous collective
  // (CellSlot::all_entered).
  CellRound(const PeSet& set, const CellSlot& slot, const CellWait& wait, bool writes_data = true);
  // The member of `rank`'s cell of this collective (null when not mapped here).
  Cell* cell(int rank) const { return cells_[rank]; }
  // Step 2: `bytes` of `data` into this member's cell, then the flag (waking sleepers).
  void publish(const void* data, size_t bytes);
  // Step 3: every other mapped member has published / `rank` has.
  void wait_all();
  void wait_one(int rank) { wait_for(cells_[rank], seq_); }
  // Whether `rank` has published in this collective, without waiting (a mapped member's cell).
  bool published(int rank) const;
  // The caller knows that every member has entered this collective (the flag of a member that
  // publishes only once all have): step 1 of the next one is done.
  void all_entered() {
    if (all_entered_ != nullptr) *all_entered_ = seq_;
  }
  uint64_t seq() const { return seq_; }

 private:
  const PeSet& set_;
  const CellWait& wait_;
  uint32_t tag_;
  uint64_t seq_;
  uint64_t* all_entered_;
  int n_;
  Cell* const* cells_;  // this collective's parity in the slot's table
  void wait_for(Cell* cell, uint64_t seq);
};

// `releaser` -1: every member publishes and waits for all (one wait phase). A rank: the others
// publish and wait for its flag alone, and it publishes once every member has arrived, so it
// leaves first: a collective rooted there that follows finds its root done when the others come
// out, instead of some of them waiting for a root still being scheduled (oversubscribed). Every
// member passes the same value.
void cell_barrier(const PeSet& set, const CellSlot& slot, const CellWait& wait, int releaser);
// `bytes` of `data` at `root_rank` copied into `data` of every other member.
void cell_broadcast(const PeSet& set, const CellSlot& slot, const CellWait& wait, void* data, size_t bytes,
                    int root_rank);
// `count` elements of `elem_bytes` from `in` reduced (rank order) into `out` at `root_rank` (every
// member when root_rank is -1). `in` and `out` may be any memory of this PE and may be equal.
void cell_reduce(const PeSet& set, const CellSlot& slot, const CellWait& wait, const void* in, void* out,
                 size_t count, size_t elem_bytes, CellCombineFn combine, void* combine_ctx, int root_rank);

namespace detail {
// A core reduction combiner (`ctx`: its CombineFn) as a cell combine callback; for the commutative
// ReduceOps the operand order does not matter.
void combine_cells(void* ctx, const void* data, void* acc, size_t count);
}  // namespace detail

// reduce() of coll.h on the cells, every member receiving the result (`src`, `dest`: any memory).
template <typename T>
void cell_reduce(const PeSet& set, const CellSlot& slot, const CellWait& wait, T* dest, const T* src, size_t count,
                 ReduceOp op, const char* call) {
  if (!detail::op_defined<T>(op)) detail::undefined_op(op, typeid(T).name(), call);
  detail::CombineFn fn = detail::combiner<T>(op);
  cell_reduce(set, slot, wait, src, dest, count, sizeof(T), detail::combine_cells, &fn, -1);
}

}  // namespace gasket::coll
