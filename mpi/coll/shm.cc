#include "mpi/coll/shm.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstring>

#include "core/gasket.h"
#include "mpi/op/op.h"

namespace gasket::mpi::coll {

namespace {

using Cell = CollectiveArea::Cell;

uint64_t flag_of(const comm::Communicator& comm, uint64_t seq) {
  return (uint64_t{comm.context} << 32) | (seq & 0xffffffffu);
}
// The cell's owner has reached collective `seq` of this communicator (or a later one).
bool reached(const Cell* cell, const comm::Communicator& comm, uint64_t seq) {
  uint64_t f = __atomic_load_n(&cell->flag, __ATOMIC_ACQUIRE);
  return (f >> 32) == comm.context && (f & 0xffffffffu) >= (seq & 0xffffffffu);
}

// The flag's low word (the sequence number, little-endian) is the futex: the area is a shared
// mapping, so the (non-private) futex works between processes.
int* futex_word(Cell* cell) { return reinterpret_cast<int*>(&cell->flag); }

// One collective on the area: the cells of its parity, and the waits of the protocol.
class Round {
 public:
  Round(Context& c, Guard& g, const comm::Communicator& comm)
      : c_(c), g_(g), comm_(comm), seq_(++comm.shm_seq), n_(comm.size()), sleepy_(gasket::oversubscribed()) {
    for (int r = 0; r < n_; ++r) {
      int pe = comm.group->pes[static_cast<size_t>(r)];
      cells_[r] = c.area().cell(pe, comm.coll_slot, static_cast<int>(seq_ & 1));
      previous_[r] = c.area().cell(pe, comm.coll_slot, static_cast<int>((seq_ - 1) & 1));
    }
    // Step 1: everyone has entered the previous collective (its flag is in the other cells).
    if (seq_ > 2) {
      for (int r = 0; r < n_; ++r) wait_for(previous_[r], seq_ - 1);
    }
  }
  Cell* cell(int rank) const { return cells_[rank]; }
  void publish(const void* data, int64_t bytes) {
    Cell* mine = cells_[comm_.rank];
    if (bytes > 0) std::memcpy(mine->data, data, static_cast<size_t>(bytes));
    __atomic_store_n(&mine->flag, flag_of(comm_, seq_), __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&mine->sleepers, __ATOMIC_SEQ_CST) != 0) {
      syscall(SYS_futex, futex_word(mine), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
    }
  }
  // Step 3: the members' contributions to this collective.
  void wait_all() {
    for (int r = 0; r < n_; ++r) wait_for(cells_[r], seq_);
  }
  void wait_one(int rank) { wait_for(cells_[rank], seq_); }

 private:
  Context& c_;
  Guard& g_;
  const comm::Communicator& comm_;
  uint64_t seq_;
  int n_;
  bool sleepy_;
  Cell* cells_[CollectiveArea::kMaxMembers] = {};
  Cell* previous_[CollectiveArea::kMaxMembers] = {};

  // Polls the flag (the engine progresses every 16th poll: other traffic needs it rarely, and it
  // costs more than the flag). When processes outnumber cores, a yield-based wait keeps handing
  // the core back to pollers, so after a few polls the waiter sleeps on the flag's futex and the
  // owner's publish() wakes it.
  void wait_for(Cell* cell, uint64_t seq) {
    unsigned polls = 0, step = 0;
    while (!reached(cell, comm_, seq)) {
      if ((++step & 15) == 0) c_.engine().progress();
      if (sleepy_ && step > 4 && c_.thread_level() != MPI_THREAD_MULTIPLE) {
        __atomic_add_fetch(&cell->sleepers, 1, __ATOMIC_SEQ_CST);
        uint64_t f = __atomic_load_n(&cell->flag, __ATOMIC_SEQ_CST);
        if (!reached(cell, comm_, seq)) {
          timespec limit{0, 1000000};  // 1 ms: progress other traffic now and then
          syscall(SYS_futex, futex_word(cell), FUTEX_WAIT, static_cast<int>(f & 0xffffffffu), &limit, nullptr, 0);
        }
        __atomic_sub_fetch(&cell->sleepers, 1, __ATOMIC_SEQ_CST);
        continue;
      }
      c_.backoff(g_, &polls);
    }
  }
};

}  // namespace

bool shm_applies(Context& c, const comm::Communicator& comm, int64_t bytes) {
  if (comm.is_inter() || comm.coll_slot < 0 || bytes > static_cast<int64_t>(CollectiveArea::kCellBytes) ||
      !c.area().usable() || comm.size() > CollectiveArea::kMaxMembers) {
    return false;
  }
  for (int pe : comm.group->pes) {
    if (c.area().cell(pe, comm.coll_slot, 0) == nullptr) return false;  // not on this node
  }
  return true;
}

void shm_barrier(Context& c, Guard& g, const comm::Communicator& comm) {
  Round round(c, g, comm);
  round.publish(nullptr, 0);
  round.wait_all();
}

void shm_bcast(Context& c, Guard& g, const comm::Communicator& comm, void* data, int64_t bytes, int root) {
  Round round(c, g, comm);
  if (comm.rank == root) {
    round.publish(data, bytes);
    return;
  }
  round.publish(nullptr, 0);  // entered: for step 1 of later collectives
  round.wait_one(root);
  std::memcpy(data, round.cell(root)->data, static_cast<size_t>(bytes));
}

void shm_reduce(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out, int64_t count,
                MPI_Op op, int type_handle, const datatype::Datatype& type, int root) {
  Round round(c, g, comm);
  round.publish(in, count * type.size);
  if (root >= 0 && comm.rank != root) return;
  round.wait_all();
  int n = comm.size();
  std::memcpy(out, round.cell(n - 1)->data, static_cast<size_t>(count * type.size));
  for (int r = n - 2; r >= 0; --r) op::apply(c.ops(), op, type_handle, type, round.cell(r)->data, out, count);
}

}  // namespace gasket::mpi::coll
