#include "mpi/coll/shm.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include <vector>

#include "core/gasket.h"
#include "mpi/coll/algorithms.h"
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
      for (int r = 0; r < n_; ++r) {
        if (previous_[r] != nullptr) wait_for(previous_[r], seq_ - 1);
      }
    }
  }
  Cell* cell(int rank) const { return cells_[rank]; }
  void publish(const void* data, int64_t bytes) {
    Cell* mine = cells_[comm_.rank];
    if (mine == nullptr) return;  // (never: this PE's own cell)
    if (bytes > 0) std::memcpy(mine->data, data, static_cast<size_t>(bytes));
    __atomic_store_n(&mine->flag, flag_of(comm_, seq_), __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&mine->sleepers, __ATOMIC_SEQ_CST) != 0) {
      syscall(SYS_futex, futex_word(mine), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
    }
  }
  // Step 3: the contributions of the other members on this node.
  void wait_all() {
    for (int r = 0; r < n_; ++r) {
      if (r != comm_.rank && cells_[r] != nullptr) wait_for(cells_[r], seq_);
    }
  }
  void wait_one(int rank) { wait_for(cells_[rank], seq_); }
  uint64_t seq() const { return seq_; }

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
        // A sleeper may be the one peers wait for (e.g. memreg's bounce transfers are served by
        // the owner's core progress, which the engine runs only now and then): serve them.
        c_.engine().progress();
        gasket::progress();
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

bool shm_nodes_apply(Context& c, const comm::Communicator& comm, int64_t bytes) {
  if (comm.is_inter() || comm.coll_slot < 0 || bytes > static_cast<int64_t>(CollectiveArea::kCellBytes) ||
      !c.area().usable() || comm.size() > CollectiveArea::kMaxMembers) {
    return false;
  }
  // Mapped exactly when on this node (not so when same-node traffic is forced through a backend).
  int here = gasket::node_of(gasket::my_pe());
  bool spans = false;
  for (int pe : comm.group->pes) {
    bool mapped = c.area().cell(pe, comm.coll_slot, 0) != nullptr, local = gasket::node_of(pe) == here;
    if (mapped != local) return false;
    spans = spans || !local;
  }
  return spans;
}

void shm_allreduce_nodes(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out,
                         int64_t count, MPI_Op op, int type_handle, const datatype::Datatype& type) {
  Round round(c, g, comm);
  int64_t bytes = count * type.size;
  // The leader of a node is its lowest rank; leaders[] in rank order.
  std::vector<int> leaders;
  std::vector<int> leader_of_node(static_cast<size_t>(gasket::n_nodes()), -1);
  for (int r = 0; r < comm.size(); ++r) {
    int& l = leader_of_node[static_cast<size_t>(gasket::node_of(comm.group->pes[static_cast<size_t>(r)]))];
    if (l < 0) l = r, leaders.push_back(r);
  }
  int mine = leader_of_node[static_cast<size_t>(gasket::node_of(gasket::my_pe()))];
  if (comm.rank != mine) {
    round.publish(in, bytes);
    round.wait_one(mine);
    if (bytes > 0) std::memcpy(out, round.cell(mine)->data, static_cast<size_t>(bytes));
    return;
  }
  // The leader combines its node, then the leaders run recursive doubling (commutative ops).
  if (bytes > 0 && out != in) std::memmove(out, in, static_cast<size_t>(bytes));
  round.wait_all();
  for (int r = 0; r < comm.size(); ++r) {
    if (r != comm.rank && round.cell(r) != nullptr) op::apply(c.ops(), op, type_handle, type, round.cell(r)->data, out, count);
  }
  Schedule s(c, comm, "MPI_Allreduce", static_cast<int>(round.seq() & 0x3fffffff));
  s.set_reduction(op, type_handle, &type);
  int index = static_cast<int>(std::find(leaders.begin(), leaders.end(), comm.rank) - leaders.begin());
  char* acc = s.scratch(bytes);
  if (bytes > 0) std::memcpy(acc, out, static_cast<size_t>(bytes));
  allreduce(s, Ranks{index, static_cast<int>(leaders.size()), Side::kPeers, leaders.data()}, acc,
            static_cast<char*>(out), count, true);
  (void)s.run(g);
  round.publish(out, bytes);
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
