#include "mpi/coll/shm.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "core/coll/cells.h"
#include "core/gasket.h"
#include "mpi/coll/algorithms.h"
#include "mpi/op/op.h"

namespace gasket::mpi::coll {

namespace {

using gasket::coll::CellRound;
using gasket::coll::CellSlot;
using gasket::coll::CellWait;
using gasket::coll::PeSet;

// The communicator's group as the core's PE set, built once and kept on the communicator.
const PeSet& set_of(const comm::Communicator& comm) {
  const std::vector<int>& pes = comm.group->pes;
  const PeSet* s = comm.cell_set.get();
  bool same = s != nullptr && s->size() == comm.size();
  for (int r = 0; same && r < comm.size(); ++r) same = s->pe(r) == pes[static_cast<size_t>(r)];
  if (!same) comm.cell_set = std::make_shared<const PeSet>(PeSet::of_list(pes, "MPI collective"));
  return *comm.cell_set;
}

CellSlot slot_of(Context& c, const comm::Communicator& comm) {
  return CellSlot{&c.area(), comm.coll_slot, comm.context, &comm.shm_seq};
}

}  // namespace

void shm_retire(Context& c, const comm::Communicator& comm) {
  c.area().retire(comm.coll_slot, set_of(comm), comm.context, comm.shm_seq);
}

namespace {

// Waiting inside an MPI call: the engine's progress and the context's backoff (which lets other
// threads in under MPI_THREAD_MULTIPLE; no futex sleep then).
struct Waiting {
  Context& c;
  Guard& g;
  CellWait wait;
  Waiting(Context& c_, Guard& g_) : c(c_), g(g_) {
    wait.progress = [](void* ctx) { static_cast<Waiting*>(ctx)->c.engine().progress(); };
    wait.backoff = [](void* ctx, unsigned* polls) {
      auto* w = static_cast<Waiting*>(ctx);
      w->c.backoff(w->g, polls);
    };
    wait.ctx = this;
    wait.may_sleep = c.thread_level() != MPI_THREAD_MULTIPLE;
  }
};

// An MPI reduction as the core's combine callback: acc = data op acc.
struct Combine {
  Context& c;
  MPI_Op op;
  int type_handle;
  const datatype::Datatype& type;
  static void apply(void* ctx, const void* data, void* acc, size_t count) {
    auto* m = static_cast<Combine*>(ctx);
    op::apply(m->c.ops(), m->op, m->type_handle, m->type, data, acc, static_cast<int64_t>(count));
  }
};

}  // namespace

bool shm_applies(Context& c, const comm::Communicator& comm, int64_t bytes) {
  if (comm.is_inter() || comm.coll_slot < 0 || bytes > static_cast<int64_t>(CollectiveArea::kCellBytes) ||
      !c.area().usable() || comm.size() > CollectiveArea::kMaxMembers) {
    return false;
  }
  return gasket::coll::cells_apply(c.area(), comm.coll_slot, set_of(comm), static_cast<size_t>(bytes));
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
  Waiting w(c, g);
  CellRound round(set_of(comm), slot_of(c, comm), w.wait);
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
    round.publish(in, static_cast<size_t>(bytes));
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
  round.publish(out, static_cast<size_t>(bytes));
}

void shm_barrier(Context& c, Guard& g, const comm::Communicator& comm) {
  Waiting w(c, g);
  gasket::coll::cell_barrier(set_of(comm), slot_of(c, comm), w.wait);
}

void shm_bcast(Context& c, Guard& g, const comm::Communicator& comm, void* data, int64_t bytes, int root) {
  Waiting w(c, g);
  gasket::coll::cell_broadcast(set_of(comm), slot_of(c, comm), w.wait, data, static_cast<size_t>(bytes), root);
}

void shm_reduce(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out, int64_t count,
                MPI_Op op, int type_handle, const datatype::Datatype& type, int root) {
  Waiting w(c, g);
  Combine combine{c, op, type_handle, type};
  gasket::coll::cell_reduce(set_of(comm), slot_of(c, comm), w.wait, in, out, static_cast<size_t>(count),
                            static_cast<size_t>(type.size), Combine::apply, &combine, root);
}

}  // namespace gasket::mpi::coll
