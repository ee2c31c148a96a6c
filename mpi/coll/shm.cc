#include "mpi/coll/shm.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/coll/cells.h"
#include "core/gasket.h"
#include "mpi/coll/algorithms.h"
#include "mpi/datatype/datatype.h"
#include "mpi/op/op.h"

namespace gasket::mpi::coll {

namespace {

using gasket::coll::CellRound;
using gasket::coll::CellSlot;
using gasket::coll::CellWait;
using gasket::coll::PeSet;

// The communicator's group as the core's PE set, built once per group and kept on the
// communicator (a copy of a communicator given another group rebuilds it).
const PeSet& set_of(const comm::Communicator& comm) {
  if (comm.cell_set == nullptr || comm.cell_set_group != comm.group) {
    comm.cell_set = std::make_shared<const PeSet>(PeSet::of_list(comm.group->pes, "MPI collective"));
    comm.cell_set_group = comm.group;
    comm.cells_slot = -1;
  }
  return *comm.cell_set;
}

}  // namespace

struct CellTable {
  std::vector<gasket::coll::CellArea::Cell*> cells;
};

namespace {

// What the cells give `comm` in its slot, found once per (group, slot): whether they serve it
// (every member mapped here and few enough) and the members' cells. On every small collective's
// path.
void find_cells(Context& c, const comm::Communicator& comm) {
  const PeSet& set = set_of(comm);
  if (comm.cells_slot == comm.coll_slot) return;
  comm.cells_serve = gasket::coll::cells_apply(c.area(), comm.coll_slot, set, 0);
  comm.cells_table = std::make_shared<const CellTable>(CellTable{gasket::coll::cell_table(c.area(), comm.coll_slot, set)});
  comm.cells_slot = comm.coll_slot;
}

// Whether the cells serve `comm` (an intracommunicator holding a slot).
bool cells_serve(Context& c, const comm::Communicator& comm) {
  find_cells(c, comm);
  return comm.cells_serve;
}

CellSlot slot_of(Context& c, const comm::Communicator& comm) {
  find_cells(c, comm);
  return CellSlot{&c.area(), comm.coll_slot, comm.context, &comm.shm_seq, &comm.shm_all_entered,
                  comm.cells_table->cells.data()};
}

}  // namespace

void shm_retire(Context& c, const comm::Communicator& comm) {
  c.area().retire(comm.coll_slot, set_of(comm), comm.context, comm.shm_seq);
}

namespace {

// Waiting inside an MPI call: the engine's progress and the context's backoff (which lets other
// threads in under MPI_THREAD_MULTIPLE). The futex sleep releases the lock under MULTIPLE: the
// cell's owner wakes the sleeper, and the other threads run their own progress meanwhile.
// Large staged data (`staged`): waits on a peer's copy of kilobytes poll on longer when the job
// alone is oversubscribed (core/coll/cells.h `crowded_polls`; "Waiting on staged data" in
// mpi/coll/README.md).
constexpr unsigned kStagedCrowdedPolls = 64;
struct Waiting {
  Context& c;
  Guard& g;
  CellWait wait;
  Waiting(Context& c_, Guard& g_, bool staged = false) : c(c_), g(g_) {
    if (staged) wait.crowded_polls = kStagedCrowdedPolls;
    wait.progress = [](void* ctx) { static_cast<Waiting*>(ctx)->c.engine().progress(); };
    wait.backoff = [](void* ctx, unsigned* polls) {
      auto* w = static_cast<Waiting*>(ctx);
      w->c.backoff(w->g, polls);
    };
    if (c.thread_level() == MPI_THREAD_MULTIPLE) {
      wait.release = [](void* ctx) { static_cast<Waiting*>(ctx)->g.unlock(); };
      wait.retake = [](void* ctx) { static_cast<Waiting*>(ctx)->g.relock(); };
    }
    wait.ctx = this;
    wait.may_sleep = true;
  }
};

// An MPI reduction (op::Combiner, resolved once per collective) as the core's combine callback:
// acc = data op acc.
void combine_cells(void* combiner, const void* data, void* acc, size_t count) {
  (*static_cast<const op::Combiner*>(combiner))(data, acc, static_cast<int64_t>(count));
}

}  // namespace

bool shm_applies(Context& c, const comm::Communicator& comm, int64_t bytes) {
  if (comm.is_inter() || comm.coll_slot < 0 || bytes > static_cast<int64_t>(CollectiveArea::kCellBytes)) return false;
  return cells_serve(c, comm);
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
  const op::Combiner combine(c.ops(), op, type_handle, type);
  for (int r = 0; r < comm.size(); ++r) {
    if (r != comm.rank && round.cell(r) != nullptr) combine(round.cell(r)->data, out, count);
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

// From 3 ranks the first barrier after a broadcast or scatter is released by its root (a
// benchmark loop, or an application alternating barriers with broadcasts from one root): that
// root leaves first, so when the next broadcast follows, its receivers come out of the barrier to
// find the data there (4 ranks on 2 cores, one 8-byte MPI_Bcast timed after a barrier: half the
// receivers left the symmetric barrier before the root and waited 2 us for it, 0.2 after). After
// a reduce or gather to a root, and after a barrier (barriers back to back: a release costs a
// phase more), the barrier is symmetric: a root leaving first would wait for every contribution.
// At 2 ranks always symmetric (a release costs two one-way latencies, not one).
void shm_barrier(Context& c, Guard& g, const comm::Communicator& comm) {
  Waiting w(c, g);
  const int releaser = comm.size() >= 3 ? comm.barrier_releaser : -1;
  comm.barrier_releaser = -1;
  gasket::coll::cell_barrier(set_of(comm), slot_of(c, comm), w.wait, releaser);
}

void shm_bcast(Context& c, Guard& g, const comm::Communicator& comm, void* data, int64_t bytes, int root) {
  comm.barrier_releaser = root;
  Waiting w(c, g);
  gasket::coll::cell_broadcast(set_of(comm), slot_of(c, comm), w.wait, data, static_cast<size_t>(bytes), root);
}

void shm_reduce(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out, int64_t count,
                MPI_Op op, int type_handle, const datatype::Datatype& type, int root) {
  if (root >= 0) comm.barrier_releaser = -1;
  Waiting w(c, g);
  op::Combiner combine(c.ops(), op, type_handle, type);
  gasket::coll::cell_reduce(set_of(comm), slot_of(c, comm), w.wait, in, out, static_cast<size_t>(count),
                            static_cast<size_t>(type.size), combine_cells, &combine, root);
}

// ---- single copy through exposed user buffers (large data) ----

bool shm_direct_applies(Context& c, const comm::Communicator& comm, int64_t bytes) {
  int64_t from = c.coll_single_copy_bytes();
  return from > 0 && bytes >= from && comm.size() > 1 && shm_applies(c, comm, 0);
}

namespace {

// This member's exposures of a collective, released when it ends (after its last cell round).
class Exposures {
 public:
  explicit Exposures(const char* call) : call_(call) {}
  Exposures(const Exposures&) = delete;
  Exposures& operator=(const Exposures&) = delete;
  ~Exposures() {
    for (const memreg::Exposure& e : held_) (void)memreg::release(e, call_);
  }
  // Exposes `bytes` at `addr`; returns the descriptor peers use.
  const std::string& expose(const void* addr, int64_t bytes) {
    Result<memreg::Exposure> e = memreg::expose(addr, static_cast<size_t>(bytes), call_);
    if (!e.is_ok()) fail(e.status().message());
    held_.push_back(std::move(e.value()));
    return held_.back().descriptor;
  }
  [[noreturn]] void fail(const std::string& why) const {
    std::string message = std::string(call_) + " (same-node single copy): " + why;
    gasket::abort_job(1, message.c_str());
  }

 private:
  const char* call_;
  std::deque<memreg::Exposure> held_;  // a deque: expose() returns references into it that must outlive later calls
};

// The last round of a collective through exposed buffers: every member says it is done reading;
// `waits` members (the exposing root, or every member) wait for all, so that no exposure is
// released, nor a buffer reused, while a peer still reads it.
void readers_done(Context& c, const comm::Communicator& comm, Waiting& w, bool waits) {
  CellRound done(set_of(comm), slot_of(c, comm), w.wait, /*writes_data=*/false);
  done.publish(nullptr, 0);
  if (waits) done.wait_all();
}

// Descriptors travel in a cell as [length][bytes]... (a few dozen bytes each).
std::string pack_descriptors(const Exposures& x, std::initializer_list<const std::string*> list) {
  std::string cell;
  for (const std::string* d : list) {
    auto len = static_cast<uint32_t>(d->size());
    cell.append(reinterpret_cast<const char*>(&len), sizeof len);
    cell.append(*d);
  }
  if (cell.size() > CollectiveArea::kCellBytes) x.fail("descriptors larger than a cell");
  return cell;
}

// The `index`th descriptor in `rank`'s cell.
std::string_view descriptor_in(const CellRound& round, int rank, int index) {
  const char* p = round.cell(rank)->data;
  uint32_t len;
  for (;;) {
    std::memcpy(&len, p, sizeof len);
    if (index-- == 0) return std::string_view(p + sizeof len, len);
    p += sizeof len + len;
  }
}

void get_from(const Exposures& x, const comm::Communicator& comm, int rank, std::string_view descriptor,
              int64_t offset, void* dst, int64_t bytes) {
  if (bytes == 0) return;
  Status st = memreg::get(comm.group->pes[static_cast<size_t>(rank)], descriptor, static_cast<size_t>(offset), dst,
                          static_cast<size_t>(bytes), "MPI collective (single copy)");
  if (!st.is_ok()) x.fail(st.message());
}

void put_to(const Exposures& x, const comm::Communicator& comm, int rank, std::string_view descriptor, int64_t offset,
            const void* src, int64_t bytes) {
  if (bytes == 0) return;
  Status st = memreg::put(comm.group->pes[static_cast<size_t>(rank)], descriptor, static_cast<size_t>(offset), src,
                          static_cast<size_t>(bytes), "MPI collective (single copy)");
  if (!st.is_ok()) x.fail(st.message());
}

}  // namespace

void shm_direct_bcast(Context& c, Guard& g, const comm::Communicator& comm, void* data, int64_t bytes, int root) {
  Waiting w(c, g, /*staged=*/true);
  Exposures x("MPI_Bcast");
  {
    CellRound round(set_of(comm), slot_of(c, comm), w.wait);
    if (comm.rank == root) {
      std::string cell = pack_descriptors(x, {&x.expose(data, bytes)});
      round.publish(cell.data(), cell.size());
    } else {
      round.publish(nullptr, 0);
      round.wait_one(root);
      get_from(x, comm, root, descriptor_in(round, root, 0), 0, data, bytes);
    }
  }
  // Everyone has read: the root may release its exposure (and the caller reuse the buffer).
  readers_done(c, comm, w, comm.rank == root);
}

void shm_direct_allreduce(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out,
                          int64_t count, MPI_Op op, int type_handle, const datatype::Datatype& type) {
  Waiting w(c, g, /*staged=*/true);
  Exposures x("MPI_Allreduce");
  const int n = comm.size(), me = comm.rank;
  const int64_t elem = type.size;
  // Slice q: elements [first(q), first(q + 1)).
  auto first = [count, n](int q) { return count * q / n; };
  const int64_t mine = first(me) * elem, slice = (first(me + 1) - first(me)) * elem;
  char* result = static_cast<char*>(out);
  {
    CellRound round(set_of(comm), slot_of(c, comm), w.wait);
    const std::string& in_desc = x.expose(in, count * elem);
    const std::string& out_desc = in == out ? in_desc : x.expose(out, count * elem);
    std::string cell = pack_descriptors(x, {&in_desc, &out_desc});
    round.publish(cell.data(), cell.size());
    round.wait_all();
    // The peers' cells stay as they are until this member publishes the next round (a later
    // collective reuses this parity only once everyone has entered the next one).
    // My slice of every input, combined in rank order into scratch.
    ScratchPool::Block acc = c.scratch().take(static_cast<size_t>(slice));
    ScratchPool::Block tmp = c.scratch().take(static_cast<size_t>(slice));
    auto input_of = [&](int r, char* into) -> const char* {
      if (r == me) return static_cast<const char*>(in) + mine;
      get_from(x, comm, r, descriptor_in(round, r, 0), mine, into, slice);
      return into;
    };
    const char* last = input_of(n - 1, acc.memory.get());
    if (last != acc.memory.get() && slice > 0) std::memcpy(acc.memory.get(), last, static_cast<size_t>(slice));
    const op::Combiner combine(c.ops(), op, type_handle, type);
    for (int r = n - 2; r >= 0; --r) combine(input_of(r, tmp.memory.get()), acc.memory.get(), slice / elem);
    // Slice `me` of every output is written only here, and slice `me` of every input (the same
    // memory under MPI_IN_PLACE) was read only here: push the result into every output.
    if (slice > 0) std::memcpy(result + mine, acc.memory.get(), static_cast<size_t>(slice));
    for (int k = 1; k < n; ++k) {
      int q = (me + k) % n;  // start at different owners: spread the writers
      put_to(x, comm, q, descriptor_in(round, q, 1), mine, acc.memory.get(), slice);
    }
    c.scratch().give(std::move(tmp));
    c.scratch().give(std::move(acc));
  }
  // Every member has pushed its slice (so read every input): the output is complete, and the
  // exposures may go, the buffers be reused.
  readers_done(c, comm, w, true);
}

// ---- staged through the staging area (large data) ----

bool shm_staged_applies(Context& c, const comm::Communicator& comm, int64_t bytes, int64_t elem) {
  int64_t from = c.coll_staged_bytes();
  return from > 0 && bytes >= from && comm.size() > 1 && elem <= static_cast<int64_t>(StagingArea::kBufferBytes) &&
         c.staging().serves(comm.coll_slot) && shm_applies(c, comm, 0);
}

namespace {

// `rank`'s staging buffers for data written in cell round `seq` and read within the round /
// until the round after (area.h).
char* round_staging(Context& c, const comm::Communicator& comm, int rank, uint64_t seq) {
  return c.staging().round_buffer(comm.group->pes[static_cast<size_t>(rank)], comm.coll_slot, seq);
}
char* two_round_staging(Context& c, const comm::Communicator& comm, int rank, uint64_t seq) {
  return c.staging().two_round_buffer(comm.group->pes[static_cast<size_t>(rank)], comm.coll_slot, seq);
}

// One chunk of a staged allreduce: `chunk` elements of `elem` bytes from `in` reduced into `out`
// on every member; slice q (elements [chunk * q / n, chunk * (q + 1) / n)) is reduced by rank q.
struct StagedChunk {
  Context& c;
  const comm::Communicator& comm;
  const CellWait& wait;
  const op::Combiner& combine;
  const char* in;
  char* out;
  int64_t chunk, elem;
  int64_t first(int q) const { return chunk * q / comm.size() * elem; }  // slice q's byte offset
  size_t bytes(int q) const { return static_cast<size_t>(first(q + 1) - first(q)); }
  int64_t elements(int q) const { return static_cast<int64_t>(bytes(q)) / elem; }
};

// From 3 ranks: every member stages its whole chunk; rank q reduces slice q of every staged input,
// x0 op (x1 op ... x_{n-1}) (rank order: non-commutative ops too), into its output and stages the
// result in its next buffer; after a round everyone copies the others' results out.
void reduce_chunk_owned(const StagedChunk& k) {
  Context& c = k.c;
  const comm::Communicator& comm = k.comm;
  const int n = comm.size(), me = comm.rank;
  // Round 1: every input chunk in its owner's buffer (copied first: `out` may be `in`).
  CellRound inputs(set_of(comm), slot_of(c, comm), k.wait);
  std::memcpy(round_staging(c, comm, me, inputs.seq()), k.in, static_cast<size_t>(k.first(n)));
  inputs.publish(nullptr, 0);
  inputs.wait_all();
  // My slice, read straight out of the peers' buffers into my output, then into my buffer of the
  // next round (every member has entered this round, so all are done with its previous use).
  if (k.bytes(me) > 0) {
    char* acc = k.out + k.first(me);
    std::memcpy(acc, round_staging(c, comm, n - 1, inputs.seq()) + k.first(me), k.bytes(me));
    for (int r = n - 2; r >= 0; --r) k.combine(round_staging(c, comm, r, inputs.seq()) + k.first(me), acc, k.elements(me));
    std::memcpy(round_staging(c, comm, me, inputs.seq() + 1) + k.first(me), acc, k.bytes(me));
  }
  // Round 2: every slice reduced; copy the others' out of their buffers.
  CellRound results(set_of(comm), slot_of(c, comm), k.wait);
  results.publish(nullptr, 0);
  results.wait_all();
  for (int j = 1; j < n; ++j) {
    int q = (me + j) % n;  // start at different owners: spread the readers
    std::memcpy(k.out + k.first(q), round_staging(c, comm, q, results.seq()) + k.first(q), k.bytes(q));
  }
}

// 2 ranks: each stages only the half its peer reduces; rank q combines its own half of `in` into
// the peer's staged copy of that half (x0 op x1 either way round: for a non-commutative op rank 1
// hosts both halves, staging its whole chunk); after a round both copy both results out of their
// hosts' buffers. `out` is written only then, so MPI_IN_PLACE is safe (no peer reads `in`).
void reduce_chunk_hosted(const StagedChunk& k, bool commutative) {
  Context& c = k.c;
  const comm::Communicator& comm = k.comm;
  const int me = comm.rank;
  auto host = [commutative](int q) { return commutative ? 1 - q : 1; };
  // Round 1: what the peer reads (its half; my own too when I host it).
  CellRound inputs(set_of(comm), slot_of(c, comm), k.wait);
  for (int q = 0; q < 2; ++q) {
    if (q != me || host(q) == me) std::memcpy(two_round_staging(c, comm, me, inputs.seq()) + k.first(q), k.in + k.first(q), k.bytes(q));
  }
  inputs.publish(nullptr, 0);
  inputs.wait_all();
  if (k.bytes(me) > 0) {
    // The accumulator holds the host's input; the other operand is the peer's staged input
    // (non-commutative op at rank 1) or my own.
    char* acc = two_round_staging(c, comm, host(me), inputs.seq()) + k.first(me);
    const char* other = host(me) == me ? two_round_staging(c, comm, 1 - me, inputs.seq()) : k.in;
    k.combine(other + k.first(me), acc, k.elements(me));
  }
  // Round 2: both halves reduced; copy them out (the staged inputs stay until both have entered
  // the round after: area.h).
  CellRound results(set_of(comm), slot_of(c, comm), k.wait);
  results.publish(nullptr, 0);
  results.wait_all();
  for (int j = 0; j < 2; ++j) {
    int q = (me + j) % 2;
    std::memcpy(k.out + k.first(q), two_round_staging(c, comm, host(q), inputs.seq()) + k.first(q), k.bytes(q));
  }
}

}  // namespace

namespace {

// Bytes per piece of a pipelined staged transfer of `bytes` (a multiple of `elem`): when every PE
// has a core, a quarter of the message (at least `least`), so the reader copies (or combines)
// piece k out while the writer stages piece k + 1; oversubscribed, every round costs the reader a
// wake-up: whole buffers. The writer decides and sends its choice in its first cell, so members configured
// differently (GASKET_OVERSUBSCRIBED) still agree.
int64_t piece_bytes(int64_t bytes, int64_t elem, int64_t least) {
  const auto buffer = static_cast<int64_t>(StagingArea::kBufferBytes);
  int64_t piece = gasket::oversubscribed() ? buffer : std::clamp<int64_t>(bytes / 4, least, buffer);
  return std::max<int64_t>(piece / elem, 1) * elem;
}

}  // namespace

void shm_staged_bcast(Context& c, Guard& g, const comm::Communicator& comm, void* data, int64_t bytes, int root) {
  if (comm.size() == 2) {
    // Two ranks take the point-to-point rendezvous: the receiver copies once out of the root's
    // buffer, where staging copies twice and every call rewrites the staging buffer, so the
    // receiver pulls lines the root's cache just took back (64 KiB alone after a barrier: 3.6 vs
    // 8.8 us; 1 MiB back to back 76 vs 160; mpi/coll/README.md "Same-node fast path").
    Schedule s(c, comm, "MPI_Bcast");
    bcast(s, s.peers(), as_bytes(s, data, bytes), root);
    (void)s.run(g);
    return;
  }
  Waiting w(c, g, /*staged=*/true);
  char* buf = static_cast<char*>(data);
  // The root copies piece k + 1 in while the others copy piece k out (it runs up to a round ahead).
  int64_t step = piece_bytes(bytes, 1, 64 << 10);
  for (int64_t at = 0; at < bytes; at += step) {
    CellRound round(set_of(comm), slot_of(c, comm), w.wait);
    if (comm.rank == root) {
      std::memcpy(round_staging(c, comm, root, round.seq()), buf + at, static_cast<size_t>(std::min(step, bytes - at)));
      round.publish(&step, sizeof step);
    } else {
      round.publish(nullptr, 0);  // entered (step 1 of later rounds: done reading earlier buffers)
      round.wait_one(root);
      if (at == 0) std::memcpy(&step, round.cell(root)->data, sizeof step);
      std::memcpy(buf + at, round_staging(c, comm, root, round.seq()), static_cast<size_t>(std::min(step, bytes - at)));
    }
  }
}

void shm_staged_allreduce(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out,
                          int64_t count, MPI_Op op, int type_handle, const datatype::Datatype& type) {
  Waiting w(c, g, /*staged=*/true);
  const int64_t elem = type.size, per_chunk = static_cast<int64_t>(StagingArea::kBufferBytes) / elem;
  const op::Combiner combine(c.ops(), op, type_handle, type);
  const bool commutative = c.ops().commutative(op);
  for (int64_t at = 0; at < count; at += per_chunk) {
    const StagedChunk k{c, comm, w.wait, combine, static_cast<const char*>(in) + at * elem,
                        static_cast<char*>(out) + at * elem, std::min(per_chunk, count - at), elem};
    if (comm.size() == 2) {
      reduce_chunk_hosted(k, commutative);
    } else {
      reduce_chunk_owned(k);
    }
  }
}

void shm_pair_reduce(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out, int64_t count,
                     MPI_Op op, int type_handle, const datatype::Datatype& type, int root) {
  Waiting w(c, g, /*staged=*/true);
  const int64_t elem = type.size, bytes = count * elem;
  const int peer = 1 - comm.rank;
  const char* mine = static_cast<const char*>(in);
  // Up to a quarter of a buffer: piece k at its own offset of its round's buffer, so the sender
  // never waits for the root to be done with an earlier piece (only round 1's step 1: the root has
  // entered this collective, so the other buffer's previous readers are done). Larger messages
  // keep the two alternating pieces (1 MiB with own offsets not decided under load, mpi/coll/README.md).
  const bool own_offsets = bytes <= static_cast<int64_t>(StagingArea::kBufferBytes / 4);
  if (comm.rank != root) {
    const int64_t step = piece_bytes(bytes, elem, 16 << 10);
    for (int64_t at = 0, k = 0; at < bytes; at += step, ++k) {
      CellRound round(set_of(comm), slot_of(c, comm), w.wait, /*writes_data=*/!own_offsets || k < 2);
      char* piece = round_staging(c, comm, comm.rank, round.seq()) + (own_offsets ? at : 0);
      std::memcpy(piece, mine + at, static_cast<size_t>(std::min(step, bytes - at)));
      round.publish(&step, k == 0 ? sizeof step : 0);
    }
    return;
  }
  // The root writes only its flag (no step 1): it enters round k + 1 once done reading piece k,
  // which is what the sender's step 1 waits for before rewriting that buffer two rounds on.
  const op::Combiner combine(c.ops(), op, type_handle, type);
  char* acc = static_cast<char*>(out);
  ScratchPool::Block own;  // root 0 under MPI_IN_PLACE: its piece of x0 before `out` is overwritten
  int64_t step = 0;
  for (int64_t at = 0; at < bytes; at += step) {
    CellRound round(set_of(comm), slot_of(c, comm), w.wait, /*writes_data=*/false);
    round.publish(nullptr, 0);
    round.wait_one(peer);
    if (at == 0) std::memcpy(&step, round.cell(peer)->data, sizeof step);
    const auto len = static_cast<size_t>(std::min(step, bytes - at));
    const char* staged = round_staging(c, comm, peer, round.seq()) + (own_offsets ? at : 0);
    // Rank order: x0 op x1, the accumulator starting as x1.
    if (root == 1) {
      if (in != out) std::memcpy(acc + at, mine + at, len);
      combine(staged, acc + at, static_cast<int64_t>(len) / elem);
      continue;
    }
    const char* x0 = mine + at;
    if (in == out) {
      if (own.memory == nullptr) own = c.scratch().take(static_cast<size_t>(step));
      std::memcpy(own.memory.get(), x0, len);
      x0 = own.memory.get();
    }
    std::memcpy(acc + at, staged, len);
    combine(x0, acc + at, static_cast<int64_t>(len) / elem);
  }
  if (own.memory != nullptr) c.scratch().give(std::move(own));
}

// ---- blocks staged in one round (gather, scatter, allgather, alltoall) ----

namespace {

// One round through the staging buffers serves `comm` for `bytes` staged per member: an
// intracommunicator of 2 or more members on this node whose slot has staging buffers.
bool staging_holds(Context& c, const comm::Communicator& comm, int64_t bytes) {
  return !comm.is_inter() && bytes <= static_cast<int64_t>(StagingArea::kBufferBytes) && c.coll_staged_bytes() > 0 &&
         comm.size() > 1 && c.staging().serves(comm.coll_slot) && shm_applies(c, comm, 0);
}

}  // namespace

bool shm_blocks_apply(Context& c, const comm::Communicator& comm, int64_t staged_bytes) {
  // Two ranks past a cell's worth take the schedules: their rendezvous lets the receiver pull at
  // once, where here it waits out the sender's copy into its buffer and, on a loaded machine, naps
  // through it (scatter 64 KiB timed alone after a barrier: 27-132 µs staged, 4.4-5.7 the schedules).
  if (comm.size() == 2 && staged_bytes > static_cast<int64_t>(CollectiveArea::kCellBytes)) return false;
  return staging_holds(c, comm, staged_bytes);
}

bool shm_reduce_scatter_applies(Context& c, const comm::Communicator& comm, int64_t bytes) {
  return staging_holds(c, comm, bytes);  // 2 members too: each combines its part where it lies
}

namespace {

// The pulled scatter (shm_pulled_scatter_applies): from 4 members and 32 KiB blocks, measured
// against the staged round (mpi/coll/README.md "Scatter by one kernel copy per block").
constexpr int kPulledScatterMembers = 4;
constexpr int64_t kPulledScatterBlock = 32 << 10;
// The pulled broadcast (shm_pulled_bcast_applies), measured against the staged one.
constexpr int kPulledBcastMembers = 4;
constexpr int64_t kPulledBcastFrom = 32 << 10, kPulledBcastTo = 1 << 20;

// Where `rank` stages in `round`: its cell's data when the most any member stages, `most_staged`
// bytes (the same figure on every member), fits a cell, else its staging buffer of the round. The
// cell's first bytes share its flag's line, so a reader of small blocks (8 B scattered to 4 ranks)
// takes one line from the writer's cache, not the flag's and then a buffer's; both are rewritten
// two rounds on, after step 1 has seen every reader enter the next one.
char* staged_at(Context& c, const comm::Communicator& comm, const CellRound& round, int rank, int64_t most_staged) {
  if (most_staged <= static_cast<int64_t>(CollectiveArea::kCellBytes)) return round.cell(rank)->data;
  return round_staging(c, comm, rank, round.seq());
}

// One round of staged blocks: this member packs `sent` back to back where it stages (staged_at)
// and publishes; receive() then unpacks a block out of a sender's staged bytes once it has
// published.
class StagedBlocks {
 public:
  // `block`: the bytes of one block (large blocks wait as staged data); `most_staged`: the most
  // bytes any member stages (the same figure on every member).
  StagedBlocks(Context& c, Guard& g, const comm::Communicator& comm, bool writes_data, int64_t block,
               int64_t most_staged)
      : c_(c),
        comm_(comm),
        waiting_(c, g, block > static_cast<int64_t>(CollectiveArea::kCellBytes)),
        round_(set_of(comm), slot_of(c, comm), waiting_.wait, writes_data),
        most_staged_(most_staged) {}
  void stage(const Typed& block) {
    datatype::pack(*block.type, block.buf, block.count, staged_at(c_, comm_, round_, comm_.rank, most_staged_) + staged_);
    staged_ += block.bytes();
  }
  // Leaves `bytes` unstaged (a block no one reads from here), keeping the others' offsets.
  void skip(int64_t bytes) { staged_ += bytes; }
  void publish() { round_.publish(nullptr, 0); }
  // Whether `rank` has published in this round, without waiting.
  bool published(int rank) const { return round_.published(rank); }
  // `into` from `rank`'s staged bytes at byte `offset`.
  void receive(int rank, int64_t offset, const Typed& into) {
    if (rank != comm_.rank) round_.wait_one(rank);
    const char* from = staged_at(c_, comm_, round_, rank, most_staged_) + offset;
    datatype::unpack(*into.type, from, into.bytes(), into.buf, into.count);
  }

 private:
  Context& c_;
  const comm::Communicator& comm_;
  Waiting waiting_;
  CellRound round_;
  const int64_t most_staged_;
  int64_t staged_ = 0;
};

// The bytes of one block: this member's, else (a root in place) its entry of `all`.
int64_t one_block(const Typed* mine, const std::vector<Typed>& all, int rank) {
  return mine != nullptr ? mine->bytes() : all[static_cast<size_t>(rank)].bytes();
}

}  // namespace

void shm_staged_gather(Context& c, Guard& g, const comm::Communicator& comm, const Typed* mine,
                       const std::vector<Typed>& all, int root) {
  comm.barrier_releaser = -1;
  const bool is_root = comm.rank == root;
  const int64_t block = one_block(mine, all, root);
  // The root's own block goes straight across when both its layouts are contiguous (one memcpy,
  // not two through its buffer; the root then writes no data and skips step 1).
  const Typed* own_slot = is_root && mine != nullptr ? &all[static_cast<size_t>(root)] : nullptr;
  const bool own_across = own_slot != nullptr && mine->type->contiguous() && own_slot->type->contiguous();
  StagedBlocks round(c, g, comm, /*writes_data=*/!is_root || (mine != nullptr && !own_across), block, block);
  if (!is_root) {
    round.stage(*mine);
    round.publish();
    return;
  }
  if (own_slot != nullptr && !own_across) round.stage(*mine);
  round.publish();
  if (own_slot != nullptr) {
    if (!own_across) {
      round.receive(root, 0, *own_slot);
    } else if (block > 0) {
      std::memcpy(static_cast<char*>(own_slot->buf) + own_slot->type->true_lb,
                  static_cast<const char*>(mine->buf) + mine->type->true_lb, static_cast<size_t>(block));
    }
  }
  // The others' blocks in the order they come in: every block already published is copied out;
  // with none in, the root waits (and maybe sleeps) for the last one missing, so that the others
  // are likely in when it wakes: one wake-up for all of them, not one per sender.
  std::vector<int> missing;
  for (int j = 1; j < comm.size(); ++j) missing.push_back((root + j) % comm.size());
  while (!missing.empty()) {
    auto ready = std::stable_partition(missing.begin(), missing.end(), [&](int q) { return !round.published(q); });
    if (ready == missing.end()) --ready;  // none in: wait for the last one missing
    for (auto q = ready; q != missing.end(); ++q) round.receive(*q, 0, all[static_cast<size_t>(*q)]);
    missing.erase(ready, missing.end());
  }
}

void shm_staged_scatter(Context& c, Guard& g, const comm::Communicator& comm, const std::vector<Typed>& all,
                        const Typed* mine, int root) {
  comm.barrier_releaser = root;
  const bool is_root = comm.rank == root;
  const int64_t block = one_block(mine, all, root);
  StagedBlocks round(c, g, comm, /*writes_data=*/is_root, block, block * comm.size());
  if (!is_root) {
    round.publish();  // entered (step 1 of later rounds: done reading earlier buffers)
    round.receive(root, mine->bytes() * comm.rank, *mine);
    return;
  }
  for (const Typed& b : all) round.stage(b);
  round.publish();
  if (mine != nullptr) round.receive(root, all[0].bytes() * root, *mine);
}

// ---- broadcast and scatter by one kernel copy per receiver ----

bool shm_pulled_bcast_applies(Context& c, const comm::Communicator& comm, int64_t bytes) {
  return comm.size() >= kPulledBcastMembers && bytes >= kPulledBcastFrom && bytes < kPulledBcastTo &&
         comm.size() <= 2 * gasket::detail::cpus_online() && shm_staged_applies(c, comm, bytes, 1);
}

bool shm_pulled_scatter_applies(Context& c, const comm::Communicator& comm, int64_t block) {
  return comm.size() >= kPulledScatterMembers && block >= kPulledScatterBlock &&
         shm_blocks_apply(c, comm, block * comm.size());
}

void shm_pulled_scatter(Context& c, Guard& g, const comm::Communicator& comm, const std::vector<Typed>& all,
                        const Typed* mine, int root) {
  comm.barrier_releaser = root;
  Waiting w(c, g, /*staged=*/true);
  Exposures x("MPI_Scatter");
  const bool is_root = comm.rank == root;
  ScratchPool::Block packed;  // the root's blocks back to back when its type is not contiguous
  {
    CellRound round(set_of(comm), slot_of(c, comm), w.wait, /*writes_data=*/is_root);
    if (is_root) {
      const int64_t block = all[0].bytes();
      const char* span = static_cast<const char*>(all[0].buf) + all[0].type->true_lb;
      if (!all[0].type->contiguous()) {
        packed = c.scratch().take(static_cast<size_t>(block * comm.size()));
        for (size_t q = 0; q < all.size(); ++q) {
          datatype::pack(*all[q].type, all[q].buf, all[q].count, packed.memory.get() + block * static_cast<int64_t>(q));
        }
        span = packed.memory.get();
      }
      std::string cell = pack_descriptors(x, {&x.expose(span, block * comm.size())});
      round.publish(cell.data(), cell.size());
      if (mine != nullptr) {  // the root's own block while the others pull theirs
        const char* own = span + block * root;
        datatype::unpack(*mine->type, own, mine->bytes(), mine->buf, mine->count);
      }
    } else {
      round.publish(nullptr, 0);
      round.wait_one(root);
      const std::string_view sender = descriptor_in(round, root, 0);
      const int64_t offset = mine->bytes() * comm.rank;
      if (mine->type->contiguous()) {
        get_from(x, comm, root, sender, offset, static_cast<char*>(mine->buf) + mine->type->true_lb, mine->bytes());
      } else {
        ScratchPool::Block tmp = c.scratch().take(static_cast<size_t>(mine->bytes()));
        get_from(x, comm, root, sender, offset, tmp.memory.get(), mine->bytes());
        datatype::unpack(*mine->type, tmp.memory.get(), mine->bytes(), mine->buf, mine->count);
        c.scratch().give(std::move(tmp));
      }
    }
  }
  // Every receiver has pulled its block: the root's exposure may go and its send buffer be reused.
  readers_done(c, comm, w, is_root);
  if (packed.memory != nullptr) c.scratch().give(std::move(packed));
}

void shm_staged_allgather(Context& c, Guard& g, const comm::Communicator& comm, const Typed* mine,
                          const std::vector<Typed>& all) {
  const Typed& sent = mine != nullptr ? *mine : all[static_cast<size_t>(comm.rank)];
  StagedBlocks round(c, g, comm, true, sent.bytes(), sent.bytes());
  round.stage(sent);
  round.publish();
  for (int j = mine != nullptr ? 0 : 1; j < comm.size(); ++j) {
    int q = (comm.rank + j) % comm.size();  // start at different senders: spread the readers
    round.receive(q, 0, all[static_cast<size_t>(q)]);
  }
}

void shm_staged_alltoall(Context& c, Guard& g, const comm::Communicator& comm, const std::vector<Typed>& to,
                         const std::vector<Typed>& from) {
  const int n = comm.size(), me = comm.rank;
  const int64_t block = from[0].bytes();
  StagedBlocks round(c, g, comm, true, block, block * n);
  // My own block goes straight across when both layouts are contiguous, and stays where it is in
  // place; else it is packed and unpacked like the others (the two layouts may differ).
  const Typed& own_to = to.empty() ? from[static_cast<size_t>(me)] : to[static_cast<size_t>(me)];
  const Typed& own_from = from[static_cast<size_t>(me)];
  const bool own_across = to.empty() || (own_to.type->contiguous() && own_from.type->contiguous());
  for (int q = 0; q < n; ++q) {
    if (q == me && own_across) {
      round.skip(block);
    } else {
      round.stage(to.empty() ? from[static_cast<size_t>(q)] : to[static_cast<size_t>(q)]);
    }
  }
  round.publish();
  if (!to.empty() && own_across && block > 0) {
    std::memcpy(static_cast<char*>(own_from.buf) + own_from.type->true_lb,
                static_cast<const char*>(own_to.buf) + own_to.type->true_lb, static_cast<size_t>(block));
  }
  for (int j = own_across ? 1 : 0; j < n; ++j) {
    int q = (me + j) % n;
    round.receive(q, block * me, from[static_cast<size_t>(q)]);  // my block in every sender's buffer
  }
}

void shm_staged_reduce(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out, int64_t count,
                       const std::vector<int64_t>& parts, MPI_Op op, int type_handle, const datatype::Datatype& type,
                       int root) {
  if (parts.empty()) comm.barrier_releaser = -1;
  Waiting w(c, g, /*staged=*/count * type.size > static_cast<int64_t>(CollectiveArea::kCellBytes));
  CellRound round(set_of(comm), slot_of(c, comm), w.wait);
  const int n = comm.size(), me = comm.rank;
  const int64_t elem = type.size;
  // My part: the whole vector at the root of a reduce, part `me` of a reduce_scatter.
  int64_t first = 0, mine = count;
  if (!parts.empty()) {
    for (int q = 0; q < me; ++q) first += parts[static_cast<size_t>(q)];
    mine = parts[static_cast<size_t>(me)];
  } else if (me != root) {
    mine = 0;
  }
  // Only I read my part of my input: it stays unstaged, read where it is, unless `out` overlaps
  // it (MPI_IN_PLACE), which the combine below starts writing before it reads my part.
  const char* my_input = static_cast<const char*>(in) + first * elem;
  const auto bytes = static_cast<size_t>(mine * elem);
  const bool mine_in_place = mine > 0 && my_input < static_cast<const char*>(out) + bytes &&
                             static_cast<const char*>(out) < my_input + bytes;
  char* staging = staged_at(c, comm, round, me, count * elem);
  if (mine == 0 || mine_in_place) {
    if (count > 0) std::memcpy(staging, in, static_cast<size_t>(count * elem));
  } else {
    const int64_t after = first + mine;
    std::memcpy(staging, in, static_cast<size_t>(first * elem));
    std::memcpy(staging + after * elem, my_input + bytes, static_cast<size_t>((count - after) * elem));
  }
  round.publish(nullptr, 0);
  // A member with nothing to receive (a non-root of a reduce, a zero part of a reduce_scatter)
  // leaves at once: its buffer is rewritten only once the readers have entered a later round
  // (step 1).
  if (mine == 0) return;
  round.wait_all();
  auto part = [&](int r) {
    return r == me && !mine_in_place ? my_input : staged_at(c, comm, round, r, count * elem) + first * elem;
  };
  std::memcpy(out, part(n - 1), bytes);
  const op::Combiner combine(c.ops(), op, type_handle, type);
  for (int r = n - 2; r >= 0; --r) combine(part(r), out, mine);
}

}  // namespace gasket::mpi::coll
