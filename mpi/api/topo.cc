// C bindings of process topologies (mpi/topo) and the neighborhood collectives.
//
// A topology lives on a new communicator made like the others (context agreed over the parent,
// CommTable::add); ranks are never reordered, so `reorder` is accepted and changes nothing.
// MPI_Comm_dup keeps the topology. The neighborhood collectives are one exchange: every receive and
// send started at once on the collective context (context + 1), complete when all are; the
// blocking calls are the non-blocking ones plus a wait. Each neighborhood collective takes the
// communicator's next collective tags at its call (a persistent one at its *_init), one per
// channel (Topology::send/recv_channel): persistent ones started in any order, and blocking or
// non-blocking ones beside them, never take each other's messages. Fixed internal tags on the
// collective context:
//   kDistGraphTag (+1)       MPI_Dist_graph_create's edge counts (and then the edges)
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <tuple>
#include <vector>

#include "mpi.h"
#include "mpi/coll/agree.h"
#include "mpi/coll/aliasing.h"
#include "mpi/coll/schedule.h"
#include "mpi/api/collective_form.h"
#include "mpi/api/requests.h"
#include "mpi/bindings/large_count.h"
#include "mpi/topo/topology.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::api::Form;
using gasket::mpi::error;
using gasket::mpi::datatype::Datatype;
using gasket::mpi::p2p::Request;
using gasket::mpi::p2p::RequestKind;
using gasket::mpi::topo::Kind;
using gasket::mpi::topo::Topology;
namespace api = gasket::mpi::api;
namespace cm = gasket::mpi::comm;
namespace topo = gasket::mpi::topo;
namespace large_count = gasket::mpi::large_count;

namespace {

int unweighted_sentinel, weights_empty_sentinel;  // see MPI_UNWEIGHTED below

constexpr int kDistGraphTag = 0x64670000;  // "dg"

const char* describe(Kind kind) {
  switch (kind) {
    case Kind::kCartesian:
      return "a Cartesian topology";
    case Kind::kGraph:
      return "a graph topology";
    case Kind::kDistGraph:
      return "a distributed graph topology";
  }
  return "?";
}

// An intracommunicator (topologies live on those only).
Error intra(Context& c, MPI_Comm handle, const char* call, cm::Communicator** comm) {
  Error e = api::check_comm(c, handle, call, comm);
  if (e.is_ok() && (*comm)->is_inter()) {
    return error(MPI_ERR_COMM, "%s: rank %d: topologies are for intracommunicators, not an intercommunicator", call,
                 (*comm)->rank);
  }
  return e;
}

// The communicator's topology, which must be of `kind` (any kind when null).
Error check_kind(const cm::Communicator& comm, const Kind* kind, const char* call, const Topology** t) {
  *t = comm.topology.get();
  if (*t == nullptr || (kind != nullptr && (*t)->kind() != *kind)) {
    return error(MPI_ERR_TOPOLOGY, "%s: rank %d: the communicator has %s, not %s", call, comm.rank,
                 *t == nullptr ? "no topology" : describe((*t)->kind()), kind == nullptr ? "one" : describe(*kind));
  }
  return Error::ok();
}

Error topology_of(Context& c, MPI_Comm handle, const char* call, const Kind* kind, cm::Communicator** comm,
                  const Topology** t) {
  Error e = api::check_comm(c, handle, call, comm);
  return e.is_ok() ? check_kind(**comm, kind, call, t) : e;
}

constexpr Kind kCart = Kind::kCartesian, kGraph = Kind::kGraph, kDist = Kind::kDistGraph;

Error null_arg(const void* p, bool needed, const char* what, const char* call, const cm::Communicator& comm) {
  if (needed && p == nullptr) return error(MPI_ERR_ARG, "%s: rank %d: %s is NULL", call, comm.rank, what);
  return Error::ok();
}
template <typename T>
Error null_arg(const large_count::WideArray<T>& a, bool needed, const char* what, const char* call,
               const cm::Communicator& comm) {
  return null_arg(a ? &a : nullptr, needed, what, call, comm);
}

// What a creation call describes: the parent's ranks that take part (in their new order) and
// the topology of each new rank.
struct Layout {
  std::vector<int> members;
  std::function<std::shared_ptr<const Topology>(int new_rank)> topology;
};

// Collective over `parent`: a new communicator of the layout's members carrying their
// topologies; MPI_COMM_NULL for the processes not among them.
MPI_Comm attach(Context& c, Guard& g, const cm::Communicator& parent, const Layout& layout) {
  gasket::mpi::coll::Agreement agreed = gasket::mpi::coll::agree_with_slot(c, g, parent);
  auto at = std::find(layout.members.begin(), layout.members.end(), parent.rank);
  if (at == layout.members.end()) {
    if (agreed.slot >= 0) c.area().release(agreed.slot);
    return MPI_COMM_NULL;
  }
  cm::Communicator n;
  n.context = agreed.context;
  n.coll_slot = agreed.slot;
  std::vector<int> pes;
  for (int r : layout.members) pes.push_back(parent.group->pes[static_cast<size_t>(r)]);
  n.group = std::make_shared<cm::Group>(cm::Group{std::move(pes)});
  n.rank = static_cast<int>(at - layout.members.begin());
  n.errhandler = parent.errhandler;
  n.topology = layout.topology(n.rank);
  return c.comms().add(std::move(n));
}

// The frame of the creation calls: describe(c, g, parent, &layout) -> Error checks the user's
// arguments (and may communicate over the parent: MPI_Dist_graph_create); then the new
// communicator.
template <typename Describe>
int create(const char* call, MPI_Comm parent_handle, MPI_Comm* out, Describe describe) {
  return api::call(call, parent_handle, [&](Context& c, Guard& g) -> Error {
    cm::Communicator* old;
    Error e = intra(c, parent_handle, call, &old);
    if (e.is_ok()) e = null_arg(out, true, "the new communicator's handle", call, *old);
    if (!e.is_ok()) return e;
    cm::Communicator parent = *old;  // the table may grow below
    Layout layout;
    e = describe(c, g, parent, &layout);
    if (!e.is_ok()) return e;
    *out = attach(c, g, parent, layout);
    return Error::ok();
  });
}

// The frame of the query calls: the communicator must carry a topology of `kind` (any kind when
// null); body(comm, topology) -> Error.
template <typename Body>
int query(const char* call, MPI_Comm handle, const Kind* kind, Body body) {
  return api::call(call, handle, [&](Context& c, Guard&) -> Error {
    cm::Communicator* comm;
    const Topology* t;
    Error e = topology_of(c, handle, call, kind, &comm, &t);
    return e.is_ok() ? body(*comm, *t) : e;
  });
}

// The frame of MPI_Cart_map / MPI_Graph_map: nodes(comm, &n) -> Error checks the description and
// gives its number of processes; ranks are kept.
template <typename Nodes>
int map(const char* call, MPI_Comm handle, int* newrank, Nodes nodes) {
  return api::call(call, handle, [&](Context& c, Guard&) -> Error {
    cm::Communicator* comm;
    int n = 0;
    Error e = intra(c, handle, call, &comm);
    if (e.is_ok()) e = null_arg(newrank, true, "newrank", call, *comm);
    if (e.is_ok()) e = nodes(*comm, &n);
    if (!e.is_ok()) return e;
    *newrank = comm->rank < n ? comm->rank : MPI_UNDEFINED;
    return Error::ok();
  });
}

std::vector<int> first_ranks(int n) {
  std::vector<int> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

// ---- the exchange behind the neighborhood collectives (and MPI_Dist_graph_create) ----

// Internal sends and receives on the collective context, started together; done when all are.
// The transfers are recorded first and become requests at start(): a persistent neighborhood
// collective (MPI_Neighbor_*_init) starts the same exchange again at each MPI_Start.
class Exchange final : public gasket::mpi::p2p::Operation {
 public:
  Exchange(Context& c, const cm::Communicator& comm, const char* call) : c_(c), rank_(comm.rank), call_(call) {}
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  void reserve(size_t transfers) { transfers_.reserve(transfers); }
  // count elements of `type` at buf to / from `peer` of comm (nothing for MPI_PROC_NULL).
  void add(RequestKind kind, int peer, const void* buf, int64_t count, int type_handle, const Datatype* type, int tag) {
    if (peer == MPI_PROC_NULL) return;
    transfers_.push_back(Transfer{kind, peer, buf, count, type_handle, type, tag});
  }
  void add_bytes(RequestKind kind, int peer, const void* buf, int64_t bytes, int tag) {
    add(kind, peer, buf, bytes, MPI_BYTE, nullptr, tag);
  }
  // Receives first (fewer unexpected messages), each kind in order: repeated edges between two
  // processes pair up in order (the engine keeps the order per source).
  void start(const cm::Communicator& comm) {
    for (RequestKind kind : {RequestKind::kRecv, RequestKind::kSend}) {
      for (const Transfer& t : transfers_) {
        if (t.kind != kind) continue;
        Request* r = api::new_internal(c_, kind, const_cast<void*>(t.buf), t.count, t.peer, t.tag, comm,
                                       comm.context + 1);
        if (t.type != nullptr) r->type = t.type, r->type_handle = t.type_handle;
        (kind == RequestKind::kRecv ? recvs_ : sends_).push_back(r);
        kind == RequestKind::kRecv ? c_.engine().start_recv(r) : c_.engine().start_send(r);
      }
    }
  }
  bool progress(Error* e) override {
    for (Request* r : recvs_) {
      if (!r->complete) return false;
    }
    for (Request* r : sends_) {
      if (!r->complete) return false;
    }
    for (Request* r : recvs_) {
      if (r->status_error != MPI_SUCCESS && e->is_ok()) {
        *e = error(r->status_error,
                   "%s: rank %d: the %lld-byte block from rank %d does not fit its %lld-byte receive block", call_,
                   rank_, static_cast<long long>(r->message_bytes), r->status_source,
                   static_cast<long long>(r->capacity));
      }
      c_.engine().requests().release(r);
    }
    for (Request* r : sends_) c_.engine().requests().release(r);
    recvs_.clear();
    sends_.clear();
    return true;
  }
  // Persistent: the communicator whose exchange MPI_Start starts again.
  void make_persistent(MPI_Comm handle) { persistent_comm_ = handle; }
  Error restart(const char* call) override {
    cm::Communicator* comm;
    if (persistent_comm_ == MPI_COMM_NULL || !recvs_.empty() || !sends_.empty()) {
      return error(MPI_ERR_REQUEST, "%s: rank %d: the %s exchange is not a persistent one at rest", call, rank_, call_);
    }
    Error e = c_.comms().lookup(persistent_comm_, call, &comm);
    if (e.is_ok()) start(*comm);
    return e;
  }
  // Blocking: start, then progress until done.
  Error run(Guard& g, const cm::Communicator& comm) {
    start(comm);
    Error e;
    c_.wait(g, [&] { return progress(&e); });
    return e;
  }

 private:
  struct Transfer {
    RequestKind kind;
    int peer;
    const void* buf;
    int64_t count;  // of `type`; bytes when type is null
    int type_handle;
    const Datatype* type;
    int tag;
  };
  Context& c_;
  int rank_;
  const char* call_;
  std::vector<Transfer> transfers_;
  std::vector<Request*> recvs_, sends_;
  MPI_Comm persistent_comm_ = MPI_COMM_NULL;
};

// One block of a neighborhood collective in the user's buffer.
struct Block {
  const char* buf;
  int64_t count;
  int type_handle;
  const Datatype* type;
};

struct Plan {
  std::vector<Block> sends, recvs;  // one per destination / source, in the topology's order
};

Error check_block(const Block& b, int i, bool send, const char* call, const cm::Communicator& comm) {
  if (b.count < 0) {
    return error(MPI_ERR_COUNT, "%s: rank %d: the %s count for neighbor %d is %lld (negative)", call, comm.rank,
                 send ? "send" : "receive", i, static_cast<long long>(b.count));
  }
  return api::check_buffer(b.buf, b.count, *b.type, call, comm);
}

// The shared part of the ten neighborhood calls: checks the plan, then starts the exchange as a
// request of kind kOperation; the blocking calls wait for it.
template <typename Planner>
int neighborhood(const char* call, MPI_Comm handle, Form form, Planner planner) {
  return api::call(call, handle, [&](Context& c, Guard& g) -> Error {
    cm::Communicator* comm;
    const Topology* t;
    Error e = topology_of(c, handle, call, nullptr, &comm, &t);
    if (e.is_ok()) e = api::check_form(c, form, call);
    Plan plan;
    if (e.is_ok()) {
      plan.sends.reserve(t->destinations().size());
      plan.recvs.reserve(t->sources().size());
      e = planner(c, *comm, *t, &plan);
    }
    for (size_t i = 0; e.is_ok() && i < plan.sends.size(); ++i) {
      e = check_block(plan.sends[i], static_cast<int>(i), true, call, *comm);
    }
    for (size_t i = 0; e.is_ok() && i < plan.recvs.size(); ++i) {
      e = check_block(plan.recvs[i], static_cast<int>(i), false, call, *comm);
    }
    if (e.is_ok()) {
      auto ranges = [](const std::vector<Block>& blocks) {
        std::vector<gasket::mpi::coll::ByteRange> out;
        for (const Block& b : blocks) out.push_back(gasket::mpi::coll::occupied(b.buf, b.count, *b.type));
        return out;
      };
      e = gasket::mpi::coll::check_not_aliased(ranges(plan.sends), ranges(plan.recvs), call, comm->rank);
    }
    if (!e.is_ok()) return e;
    const int tag = gasket::mpi::coll::take_collective_tag(*comm, t->channels());
    auto exchange = std::make_unique<Exchange>(c, *comm, call);
    exchange->reserve(plan.recvs.size() + plan.sends.size());
    for (size_t i = 0; i < plan.recvs.size(); ++i) {
      const Block& b = plan.recvs[i];
      exchange->add(RequestKind::kRecv, t->sources()[i], b.buf, b.count, b.type_handle, b.type,
                    tag + t->recv_channel(static_cast<int>(i)));
    }
    for (size_t i = 0; i < plan.sends.size(); ++i) {
      const Block& b = plan.sends[i];
      exchange->add(RequestKind::kSend, t->destinations()[i], b.buf, b.count, b.type_handle, b.type,
                    tag + t->send_channel(static_cast<int>(i)));
    }
    Request* r = c.engine().requests().create(RequestKind::kOperation);
    r->comm = handle;
    r->context = comm->context;
    r->my_rank = comm->rank;
    if (form.kind == Form::kPersistent) {  // started by MPI_Start
      exchange->make_persistent(handle);
      r->persistent = true;
      r->operation = std::move(exchange);
      *form.request = r->handle;
      return Error::ok();
    }
    exchange->start(*comm);
    r->operation = std::move(exchange);
    c.engine().start_operation(r);
    if (form.kind == Form::kNonblocking) {
      *form.request = r->handle;
      return Error::ok();
    }
    c.wait(g, [r] { return r->complete; });
    MPI_Request h = r->handle;
    Error op;
    api::conclude(c, g, &h, r, MPI_STATUS_IGNORE, &op, call);
    return op;
  });
}

Error no_in_place(const void* sendbuf, const char* call, const cm::Communicator& comm) {
  if (sendbuf == MPI_IN_PLACE) {
    return error(MPI_ERR_BUFFER, "%s: rank %d: MPI_IN_PLACE is not allowed for neighborhood collectives", call,
                 comm.rank);
  }
  return Error::ok();
}

// The send blocks of allgather(v) (the same buffer to every destination) or alltoall (block i at
// i * count extents).
Error uniform_sends(Context& c, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, bool same_block,
                    const cm::Communicator& comm, const Topology& t, const char* call, Plan* plan) {
  const Datatype* st;
  Error e = no_in_place(sendbuf, call, comm);
  if (e.is_ok()) e = api::check_type(c, sendtype, sendcount, call, comm, &st);
  if (!e.is_ok()) return e;
  for (size_t i = 0; i < t.destinations().size(); ++i) {
    int64_t offset = same_block ? 0 : static_cast<int64_t>(i) * sendcount * st->extent();
    plan->sends.push_back(Block{static_cast<const char*>(sendbuf) + offset, sendcount, sendtype, st});
  }
  return Error::ok();
}

// Blocks of per-neighbor counts and displacements (in extents of `type`), the v forms.
Error varying_blocks(Context& c, const void* buf, large_count::CountArray counts, large_count::AintArray displs,
                     MPI_Datatype type,
                     size_t n, const cm::Communicator& comm, const char* call, std::vector<Block>* out) {
  const Datatype* dt;
  Error e = null_arg(counts, n > 0, "the counts array", call, comm);
  if (e.is_ok()) e = null_arg(displs, n > 0, "the displacements array", call, comm);
  MPI_Count largest = 0;  // MPI_DATATYPE_NULL is no data when every count is 0
  for (size_t i = 0; e.is_ok() && i < n; ++i) largest = std::max<MPI_Count>(largest, counts[i]);
  if (e.is_ok()) e = api::check_type(c, type, largest, call, comm, &dt);
  if (!e.is_ok()) return e;
  for (size_t i = 0; i < n; ++i) {
    out->push_back(Block{static_cast<const char*>(buf) + static_cast<int64_t>(displs[i]) * dt->extent(), counts[i],
                         type, dt});
  }
  return Error::ok();
}

int allgather(const char* call, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, Form form, bool alltoall) {
  return neighborhood(call, comm, form,
                      [&](Context& c, const cm::Communicator& cmm, const Topology& t, Plan* plan) -> Error {
                        const Datatype* rt;
                        Error e = uniform_sends(c, sendbuf, sendcount, sendtype, !alltoall, cmm, t, call, plan);
                        if (e.is_ok()) e = api::check_type(c, recvtype, recvcount, call, cmm, &rt);
                        if (!e.is_ok()) return e;
                        for (size_t i = 0; i < t.sources().size(); ++i) {
                          int64_t offset = static_cast<int64_t>(i) * recvcount * rt->extent();
                          plan->recvs.push_back(Block{static_cast<char*>(recvbuf) + offset, recvcount, recvtype, rt});
                        }
                        return Error::ok();
                      });
}

int allgatherv(const char* call, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
               large_count::CountArray recvcounts, large_count::AintArray displs, MPI_Datatype recvtype, MPI_Comm comm,
               Form form) {
  return neighborhood(call, comm, form,
                      [&](Context& c, const cm::Communicator& cmm, const Topology& t, Plan* plan) -> Error {
                        Error e = uniform_sends(c, sendbuf, sendcount, sendtype, true, cmm, t, call, plan);
                        if (!e.is_ok()) return e;
                        return varying_blocks(c, recvbuf, recvcounts, displs, recvtype, t.sources().size(), cmm, call,
                                              &plan->recvs);
                      });
}

int alltoallv(const char* call, const void* sendbuf, large_count::CountArray sendcounts, large_count::AintArray sdispls,
              MPI_Datatype sendtype, void* recvbuf, large_count::CountArray recvcounts, large_count::AintArray rdispls,
              MPI_Datatype recvtype, MPI_Comm comm, Form form) {
  return neighborhood(call, comm, form,
                      [&](Context& c, const cm::Communicator& cmm, const Topology& t, Plan* plan) -> Error {
                        Error e = no_in_place(sendbuf, call, cmm);
                        if (e.is_ok()) {
                          e = varying_blocks(c, sendbuf, sendcounts, sdispls, sendtype, t.destinations().size(), cmm,
                                             call, &plan->sends);
                        }
                        if (!e.is_ok()) return e;
                        return varying_blocks(c, recvbuf, recvcounts, rdispls, recvtype, t.sources().size(), cmm, call,
                                              &plan->recvs);
                      });
}

// alltoallw's blocks: byte displacements and a type per neighbor.
Error typed_blocks(Context& c, const void* buf, large_count::CountArray counts, large_count::AintArray displs,
                   const MPI_Datatype types[], size_t n, const cm::Communicator& comm, const char* call,
                   std::vector<Block>* out) {
  Error e = null_arg(counts, n > 0, "the counts array", call, comm);
  if (e.is_ok()) e = null_arg(displs, n > 0, "the displacements array", call, comm);
  if (e.is_ok()) e = null_arg(types, n > 0, "the types array", call, comm);
  for (size_t i = 0; e.is_ok() && i < n; ++i) {
    const Datatype* dt;
    e = api::check_type(c, types[i], counts[i], call, comm, &dt);
    if (e.is_ok()) out->push_back(Block{static_cast<const char*>(buf) + displs[i], counts[i], types[i], dt});
  }
  return e;
}

int alltoallw(const char* call, const void* sendbuf, large_count::CountArray sendcounts, large_count::AintArray sdispls,
              const MPI_Datatype sendtypes[], void* recvbuf, large_count::CountArray recvcounts,
              large_count::AintArray rdispls, const MPI_Datatype recvtypes[], MPI_Comm comm, Form form) {
  return neighborhood(call, comm, form,
                      [&](Context& c, const cm::Communicator& cmm, const Topology& t, Plan* plan) -> Error {
                        Error e = no_in_place(sendbuf, call, cmm);
                        if (e.is_ok()) {
                          e = typed_blocks(c, sendbuf, sendcounts, sdispls, sendtypes, t.destinations().size(), cmm,
                                           call, &plan->sends);
                        }
                        if (!e.is_ok()) return e;
                        return typed_blocks(c, recvbuf, recvcounts, rdispls, recvtypes, t.sources().size(), cmm, call,
                                            &plan->recvs);
                      });
}

// ---- distributed graphs ----

// Weights of one side: MPI_UNWEIGHTED (none), MPI_WEIGHTS_EMPTY or NULL for no edges, else `n`
// non-negative values.
Error read_weights(const int weights[], int n, const char* what, const char* call, const cm::Communicator& comm,
                   bool* weighted, std::vector<int>* out) {
  *weighted = weights != MPI_UNWEIGHTED;
  if (!*weighted) return Error::ok();
  if (n > 0 && (weights == nullptr || weights == MPI_WEIGHTS_EMPTY)) {
    return error(MPI_ERR_ARG, "%s: rank %d: %s is %s for %d edges (MPI_UNWEIGHTED means no weights)", call, comm.rank,
                 what, weights == nullptr ? "NULL" : "MPI_WEIGHTS_EMPTY", n);
  }
  for (int i = 0; i < n; ++i) {
    if (weights[i] < 0) return error(MPI_ERR_ARG, "%s: rank %d: %s[%d] = %d is negative", call, comm.rank, what, i, weights[i]);
    out->push_back(weights[i]);
  }
  return Error::ok();
}

Error check_ranks(const int ranks[], int n, const char* what, const char* call, const cm::Communicator& comm) {
  Error e = null_arg(ranks, n > 0, what, call, comm);
  for (int i = 0; e.is_ok() && i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= comm.size()) {
      e = error(MPI_ERR_RANK, "%s: rank %d: %s[%d] = %d is not a rank of the communicator (0..%d)", call, comm.rank,
                what, i, ranks[i], comm.size() - 1);
    }
  }
  return e;
}

Error check_degree(int degree, const char* what, const char* call, const cm::Communicator& comm) {
  if (degree < 0) return error(MPI_ERR_ARG, "%s: rank %d: %s %d is negative", call, comm.rank, what, degree);
  return Error::ok();
}

// An edge of MPI_Dist_graph_create as sent to its two ends: who gave it (rank, position) orders
// repeated edges the same way at both ends.
struct Edge {
  int source, destination, weight, given_by, position;
};

// Sends every edge to its source and its destination (once for a self-loop); each process keeps
// the edges that end or start at it. First every pair swaps a count and whether it gave weights.
Error distribute_edges(Context& c, Guard& g, const cm::Communicator& comm, const std::vector<Edge>& given,
                       bool weighted_here, const char* call, topo::DistGraph* out) {
  size_t n = static_cast<size_t>(comm.size());
  std::vector<std::vector<Edge>> to(n);
  for (const Edge& e : given) {
    to[static_cast<size_t>(e.source)].push_back(e);
    if (e.destination != e.source) to[static_cast<size_t>(e.destination)].push_back(e);
  }
  std::vector<int> counts_out(2 * n), counts_in(2 * n);
  Exchange counts(c, comm, call);
  for (size_t r = 0; r < n; ++r) {
    counts_out[2 * r] = static_cast<int>(to[r].size());
    counts_out[2 * r + 1] = weighted_here ? 1 : 0;
    counts.add_bytes(RequestKind::kRecv, static_cast<int>(r), &counts_in[2 * r], 2 * sizeof(int), kDistGraphTag);
    counts.add_bytes(RequestKind::kSend, static_cast<int>(r), &counts_out[2 * r], 2 * sizeof(int), kDistGraphTag);
  }
  Error e = counts.run(g, comm);
  if (!e.is_ok()) return e;
  std::vector<std::vector<Edge>> from(n);
  Exchange edges(c, comm, call);
  out->weighted = false;
  for (size_t r = 0; r < n; ++r) {
    from[r].resize(static_cast<size_t>(counts_in[2 * r]));
    out->weighted = out->weighted || counts_in[2 * r + 1] != 0;
    if (!from[r].empty()) {
      edges.add_bytes(RequestKind::kRecv, static_cast<int>(r), from[r].data(),
                      static_cast<int64_t>(from[r].size() * sizeof(Edge)), kDistGraphTag + 1);
    }
    if (!to[r].empty()) {
      edges.add_bytes(RequestKind::kSend, static_cast<int>(r), to[r].data(),
                      static_cast<int64_t>(to[r].size() * sizeof(Edge)), kDistGraphTag + 1);
    }
  }
  e = edges.run(g, comm);
  if (!e.is_ok()) return e;
  std::vector<Edge> in, outgoing;
  for (const auto& list : from) {
    for (const Edge& edge : list) {
      if (edge.destination == comm.rank) in.push_back(edge);
      if (edge.source == comm.rank) outgoing.push_back(edge);
    }
  }
  auto key = [](int peer, const Edge& x) { return std::make_tuple(peer, x.given_by, x.position); };
  std::sort(in.begin(), in.end(), [&](const Edge& a, const Edge& b) { return key(a.source, a) < key(b.source, b); });
  std::sort(outgoing.begin(), outgoing.end(),
            [&](const Edge& a, const Edge& b) { return key(a.destination, a) < key(b.destination, b); });
  for (const Edge& x : in) {
    out->sources.push_back(x.source);
    if (out->weighted) out->source_weights.push_back(x.weight);
  }
  for (const Edge& x : outgoing) {
    out->destinations.push_back(x.destination);
    if (out->weighted) out->destination_weights.push_back(x.weight);
  }
  return Error::ok();
}

// Every process of the parent, each with its own part of the graph.
Layout whole(const cm::Communicator& parent, topo::DistGraph dist) {
  auto t = std::make_shared<const Topology>(std::move(dist));
  return Layout{first_ranks(parent.size()), [t](int) { return t; }};
}

template <typename T>
void copy_out(const std::vector<T>& from, int max, T* to) {
  size_t n = std::min(from.size(), static_cast<size_t>(std::max(max, 0)));
  std::copy(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(n), to);
}

Error check_max(int max, const char* what, const char* call, const cm::Communicator& comm) {
  if (max < 0) return error(MPI_ERR_ARG, "%s: rank %d: %s %d is negative", call, comm.rank, what, max);
  return Error::ok();
}

// A node of the graph (MPI_Graph_neighbors(_count)).
Error check_node(const topo::Graph& graph, int rank, const char* call, const cm::Communicator& comm) {
  if (rank < 0 || rank >= graph.nnodes()) {
    return error(MPI_ERR_RANK, "%s: rank %d: rank %d is not a node of the graph (0..%d)", call, comm.rank, rank,
                 graph.nnodes() - 1);
  }
  return Error::ok();
}

}  // namespace

extern "C" {

// The weights sentinels: distinct addresses, never read or written.
int* const MPI_UNWEIGHTED = &unweighted_sentinel;
int* const MPI_WEIGHTS_EMPTY = &weights_empty_sentinel;

int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  return api::call("MPI_Dims_create", MPI_COMM_WORLD,
                   [&](Context&, Guard&) { return topo::dims_create(nnodes, ndims, dims, "MPI_Dims_create"); });
}

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm* comm_cart) {
  const char* call = "MPI_Cart_create";
  (void)reorder;  // ranks are kept (allowed)
  return create(call, comm_old, comm_cart, [&](Context&, Guard&, const cm::Communicator& parent, Layout* layout) {
    topo::Cartesian cart;
    Error e = Topology::cartesian(ndims, dims, periods, parent.size(), parent.rank, call, &cart);
    if (e.is_ok()) {
      *layout = Layout{first_ranks(cart.size()), [cart](int r) { return std::make_shared<const Topology>(cart, r); }};
    }
    return e;
  });
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  const char* call = "MPI_Cart_sub";
  return create(call, comm, newcomm, [&](Context&, Guard&, const cm::Communicator& parent, Layout* layout) {
    const Topology* t;
    Error e = check_kind(parent, &kCart, call, &t);
    if (e.is_ok()) e = null_arg(remain_dims, t->cartesian().ndims() > 0, "remain_dims", call, parent);
    if (!e.is_ok()) return e;
    const topo::Cartesian& grid = t->cartesian();
    topo::Cartesian sub;
    for (int d = 0; d < grid.ndims(); ++d) {
      if (!remain_dims[d]) continue;
      sub.dims.push_back(grid.dims[static_cast<size_t>(d)]);
      sub.periods.push_back(grid.periods[static_cast<size_t>(d)]);
    }
    // The members share this process's coordinates in the dropped dimensions; in rank order they
    // are in row-major order of the kept ones. No communication: every process knows the grid.
    std::vector<int> mine = grid.coords_of(parent.rank);
    for (int r = 0; r < grid.size(); ++r) {
      std::vector<int> coords = grid.coords_of(r);
      bool same = true;
      for (int d = 0; d < grid.ndims(); ++d) same = same && (remain_dims[d] || coords[d] == mine[d]);
      if (same) layout->members.push_back(r);
    }
    layout->topology = [sub](int r) { return std::make_shared<const Topology>(sub, r); };
    return Error::ok();
  });
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  const char* call = "MPI_Cart_get";
  return query(call, comm, &kCart, [&](const cm::Communicator& cmm, const Topology& t) {
    const topo::Cartesian& grid = t.cartesian();
    if (maxdims < grid.ndims()) {
      return error(MPI_ERR_ARG, "%s: rank %d: maxdims %d is less than the grid's %d dimensions", call, cmm.rank,
                   maxdims, grid.ndims());
    }
    if (grid.ndims() > 0 && (dims == nullptr || periods == nullptr || coords == nullptr)) {
      return error(MPI_ERR_ARG, "%s: rank %d: dims, periods or coords is NULL", call, cmm.rank);
    }
    std::vector<int> mine = grid.coords_of(cmm.rank);
    for (int d = 0; d < grid.ndims(); ++d) {
      dims[d] = grid.dims[static_cast<size_t>(d)];
      periods[d] = grid.periods[static_cast<size_t>(d)] ? 1 : 0;
      coords[d] = mine[static_cast<size_t>(d)];
    }
    return Error::ok();
  });
}

int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  const char* call = "MPI_Cartdim_get";
  return query(call, comm, &kCart, [&](const cm::Communicator& cmm, const Topology& t) {
    Error e = null_arg(ndims, true, "ndims", call, cmm);
    if (e.is_ok()) *ndims = t.cartesian().ndims();
    return e;
  });
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  const char* call = "MPI_Cart_coords";
  return query(call, comm, &kCart, [&](const cm::Communicator& cmm, const Topology& t) {
    const topo::Cartesian& grid = t.cartesian();
    if (rank < 0 || rank >= grid.size()) {
      return error(MPI_ERR_RANK, "%s: rank %d: rank %d is not in the grid (0..%d)", call, cmm.rank, rank,
                   grid.size() - 1);
    }
    if (maxdims < grid.ndims()) {
      return error(MPI_ERR_ARG, "%s: rank %d: maxdims %d is less than the grid's %d dimensions", call, cmm.rank,
                   maxdims, grid.ndims());
    }
    Error e = null_arg(coords, grid.ndims() > 0, "coords", call, cmm);
    if (!e.is_ok()) return e;
    std::vector<int> v = grid.coords_of(rank);
    std::copy(v.begin(), v.end(), coords);
    return Error::ok();
  });
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  const char* call = "MPI_Cart_rank";
  return query(call, comm, &kCart, [&](const cm::Communicator& cmm, const Topology& t) {
    const topo::Cartesian& grid = t.cartesian();
    Error e = null_arg(coords, grid.ndims() > 0, "coords", call, cmm);
    if (e.is_ok()) e = null_arg(rank, true, "rank", call, cmm);
    for (int d = 0; e.is_ok() && d < grid.ndims(); ++d) {
      if (!grid.periods[static_cast<size_t>(d)] && (coords[d] < 0 || coords[d] >= grid.dims[static_cast<size_t>(d)])) {
        e = error(MPI_ERR_ARG, "%s: rank %d: coords[%d] = %d is outside the non-periodic dimension 0..%d", call,
                  cmm.rank, d, coords[d], grid.dims[static_cast<size_t>(d)] - 1);
      }
    }
    if (e.is_ok()) *rank = grid.rank_of(coords);
    return e;
  });
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  const char* call = "MPI_Cart_shift";
  return query(call, comm, &kCart, [&](const cm::Communicator& cmm, const Topology& t) {
    if (rank_source == nullptr || rank_dest == nullptr) {
      return error(MPI_ERR_ARG, "%s: rank %d: rank_source or rank_dest is NULL", call, cmm.rank);
    }
    if (direction < 0 || direction >= t.cartesian().ndims()) {
      return error(MPI_ERR_ARG, "%s: rank %d: direction %d is not a dimension of the grid (0..%d)", call, cmm.rank,
                   direction, t.cartesian().ndims() - 1);
    }
    t.cartesian().shift(cmm.rank, direction, disp, rank_source, rank_dest);
    return Error::ok();
  });
}

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  const char* call = "MPI_Cart_map";
  return map(call, comm, newrank, [&](const cm::Communicator& cmm, int* n) {
    topo::Cartesian cart;
    Error e = Topology::cartesian(ndims, dims, periods, cmm.size(), cmm.rank, call, &cart);
    *n = cart.size();
    return e;
  });
}

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                     MPI_Comm* comm_graph) {
  const char* call = "MPI_Graph_create";
  (void)reorder;
  return create(call, comm_old, comm_graph, [&](Context&, Guard&, const cm::Communicator& parent, Layout* layout) {
    topo::Graph graph;
    Error e = Topology::graph(nnodes, index, edges, parent.size(), parent.rank, call, &graph);
    if (e.is_ok()) {
      *layout = Layout{first_ranks(nnodes), [graph](int r) { return std::make_shared<const Topology>(graph, r); }};
    }
    return e;
  });
}

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  const char* call = "MPI_Graph_map";
  return map(call, comm, newrank, [&](const cm::Communicator& cmm, int* n) {
    topo::Graph graph;
    *n = nnodes;
    return Topology::graph(nnodes, index, edges, cmm.size(), cmm.rank, call, &graph);
  });
}

int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  const char* call = "MPI_Graphdims_get";
  return query(call, comm, &kGraph, [&](const cm::Communicator& cmm, const Topology& t) {
    if (nnodes == nullptr || nedges == nullptr) {
      return error(MPI_ERR_ARG, "%s: rank %d: nnodes or nedges is NULL", call, cmm.rank);
    }
    *nnodes = t.graph().nnodes();
    *nedges = static_cast<int>(t.graph().edges.size());
    return Error::ok();
  });
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  const char* call = "MPI_Graph_get";
  return query(call, comm, &kGraph, [&](const cm::Communicator& cmm, const Topology& t) {
    Error e = check_max(maxindex, "maxindex", call, cmm);
    if (e.is_ok()) e = check_max(maxedges, "maxedges", call, cmm);
    if (e.is_ok()) e = null_arg(index, maxindex > 0, "index", call, cmm);
    if (e.is_ok()) e = null_arg(edges, maxedges > 0, "edges", call, cmm);
    if (!e.is_ok()) return e;
    copy_out(t.graph().index, maxindex, index);
    copy_out(t.graph().edges, maxedges, edges);
    return Error::ok();
  });
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  const char* call = "MPI_Graph_neighbors_count";
  return query(call, comm, &kGraph, [&](const cm::Communicator& cmm, const Topology& t) {
    Error e = check_node(t.graph(), rank, call, cmm);
    if (e.is_ok()) e = null_arg(nneighbors, true, "nneighbors", call, cmm);
    if (e.is_ok()) *nneighbors = t.graph().degree(rank);
    return e;
  });
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  const char* call = "MPI_Graph_neighbors";
  return query(call, comm, &kGraph, [&](const cm::Communicator& cmm, const Topology& t) {
    Error e = check_node(t.graph(), rank, call, cmm);
    if (e.is_ok()) e = check_max(maxneighbors, "maxneighbors", call, cmm);
    if (e.is_ok()) e = null_arg(neighbors, maxneighbors > 0, "neighbors", call, cmm);
    if (!e.is_ok()) return e;
    const int* first = t.graph().neighbors(rank);
    copy_out(std::vector<int>(first, first + t.graph().degree(rank)), maxneighbors, neighbors);
    return Error::ok();
  });
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* comm_dist_graph) {
  const char* call = "MPI_Dist_graph_create_adjacent";
  (void)reorder;
  return create(call, comm_old, comm_dist_graph, [&](Context& c, Guard&, const cm::Communicator& parent, Layout* layout) {
    topo::DistGraph dist;
    bool in_weighted = false, out_weighted = false;
    Error e = api::check_info(c, info, call);
    if (e.is_ok()) e = check_degree(indegree, "indegree", call, parent);
    if (e.is_ok()) e = check_degree(outdegree, "outdegree", call, parent);
    if (e.is_ok()) e = check_ranks(sources, indegree, "sources", call, parent);
    if (e.is_ok()) e = check_ranks(destinations, outdegree, "destinations", call, parent);
    if (e.is_ok()) {
      e = read_weights(sourceweights, indegree, "sourceweights", call, parent, &in_weighted, &dist.source_weights);
    }
    if (e.is_ok()) {
      e = read_weights(destweights, outdegree, "destweights", call, parent, &out_weighted, &dist.destination_weights);
    }
    if (e.is_ok() && in_weighted != out_weighted) {
      e = error(MPI_ERR_ARG, "%s: rank %d: %s is MPI_UNWEIGHTED but %s is not", call, parent.rank,
                in_weighted ? "destweights" : "sourceweights", in_weighted ? "sourceweights" : "destweights");
    }
    if (!e.is_ok()) return e;
    dist.weighted = in_weighted;
    dist.sources.assign(sources, sources + indegree);
    dist.destinations.assign(destinations, destinations + outdegree);
    *layout = whole(parent, std::move(dist));
    return Error::ok();
  });
}

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm* comm_dist_graph) {
  const char* call = "MPI_Dist_graph_create";
  (void)reorder;
  return create(call, comm_old, comm_dist_graph, [&](Context& c, Guard& g, const cm::Communicator& parent,
                                                     Layout* layout) {
    Error e = api::check_info(c, info, call);
    if (e.is_ok()) e = check_degree(n, "n", call, parent);
    if (e.is_ok()) e = check_ranks(sources, n, "sources", call, parent);
    if (e.is_ok()) e = null_arg(degrees, n > 0, "degrees", call, parent);
    int total = 0;
    for (int i = 0; e.is_ok() && i < n; ++i) {
      if (degrees[i] < 0) {
        e = error(MPI_ERR_ARG, "%s: rank %d: degrees[%d] = %d is negative", call, parent.rank, i, degrees[i]);
      }
      total += degrees[i];
    }
    if (e.is_ok()) e = check_ranks(destinations, total, "destinations", call, parent);
    bool weighted = false;
    std::vector<int> w;
    if (e.is_ok()) e = read_weights(weights, total, "weights", call, parent, &weighted, &w);
    if (!e.is_ok()) return e;
    std::vector<Edge> given;
    for (int i = 0, k = 0; i < n; ++i) {
      for (int j = 0; j < degrees[i]; ++j, ++k) {
        given.push_back(Edge{sources[i], destinations[k], weighted ? w[static_cast<size_t>(k)] : 1, parent.rank, k});
      }
    }
    topo::DistGraph dist;
    e = distribute_edges(c, g, parent, given, weighted, call, &dist);
    if (e.is_ok()) *layout = whole(parent, std::move(dist));
    return e;
  });
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  const char* call = "MPI_Dist_graph_neighbors_count";
  return query(call, comm, &kDist, [&](const cm::Communicator& cmm, const Topology& t) {
    if (indegree == nullptr || outdegree == nullptr || weighted == nullptr) {
      return error(MPI_ERR_ARG, "%s: rank %d: indegree, outdegree or weighted is NULL", call, cmm.rank);
    }
    *indegree = static_cast<int>(t.sources().size());
    *outdegree = static_cast<int>(t.destinations().size());
    *weighted = t.dist_graph().weighted ? 1 : 0;
    return Error::ok();
  });
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree,
                             int destinations[], int destweights[]) {
  const char* call = "MPI_Dist_graph_neighbors";
  return query(call, comm, &kDist, [&](const cm::Communicator& cmm, const Topology& t) {
    Error e = check_max(maxindegree, "maxindegree", call, cmm);
    if (e.is_ok()) e = check_max(maxoutdegree, "maxoutdegree", call, cmm);
    if (e.is_ok()) e = null_arg(sources, maxindegree > 0, "sources", call, cmm);
    if (e.is_ok()) e = null_arg(destinations, maxoutdegree > 0, "destinations", call, cmm);
    if (!e.is_ok()) return e;
    const topo::DistGraph& dist = t.dist_graph();
    copy_out(dist.sources, maxindegree, sources);
    copy_out(dist.destinations, maxoutdegree, destinations);
    // Weights only of a weighted graph, into arrays that are not MPI_UNWEIGHTED.
    auto real = [](const int* p) { return p != nullptr && p != MPI_UNWEIGHTED && p != MPI_WEIGHTS_EMPTY; };
    if (dist.weighted && real(sourceweights)) copy_out(dist.source_weights, maxindegree, sourceweights);
    if (dist.weighted && real(destweights)) copy_out(dist.destination_weights, maxoutdegree, destweights);
    return Error::ok();
  });
}

int PMPI_Topo_test(MPI_Comm comm, int* status) {
  const char* call = "MPI_Topo_test";
  return api::call(call, comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    Error e = api::check_comm(c, comm, call, &cmm);
    if (e.is_ok()) e = null_arg(status, true, "status", call, *cmm);
    if (!e.is_ok()) return e;
    *status = cmm->topology ? static_cast<int>(cmm->topology->kind()) : MPI_UNDEFINED;
    return Error::ok();
  });
}

}  // extern "C"

// ---- neighborhood collectives: one implementation each, run in the form its binding passes; the
// bindings of the blocking, non-blocking and persistent forms, int and _c, are generated (`forms`
// in mpi/bindings/large_count.txt) ----
namespace gasket::mpi::large_count {

int Neighbor_allgather(const char* call, Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, form, false);
}

int Neighbor_alltoall(const char* call, Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather(call, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, form, true);
}

int Neighbor_allgatherv(const char* call, Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, WideArray<MPI_Count> recvcounts, WideArray<MPI_Aint> displs, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv(call, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, form);
}

int Neighbor_alltoallv(const char* call, Form form, const void* sendbuf, WideArray<MPI_Count> sendcounts, WideArray<MPI_Aint> sdispls, MPI_Datatype sendtype, void* recvbuf, WideArray<MPI_Count> recvcounts, WideArray<MPI_Aint> rdispls, MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoallv(call, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, form);
}

int Neighbor_alltoallw(const char* call, Form form, const void* sendbuf, WideArray<MPI_Count> sendcounts, const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, WideArray<MPI_Count> recvcounts, const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoallw(call, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes,
                   comm, form);
}
}  // namespace gasket::mpi::large_count
