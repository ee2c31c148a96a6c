// C bindings of the collectives and reduction operations: argument checks (communicator, counts,
// types, roots, op/type pairs, MPI_IN_PLACE where the standard allows it), then a schedule of
// mpi/coll run at once (blocking) or started as a request (MPI_I*). Intercommunicators: rooted
// collectives take MPI_ROOT / MPI_PROC_NULL in the root's group; the all-to-all forms exchange
// with the remote group; reductions combine within a group, then the leaders swap the results.
#include <memory>
#include <numeric>
#include <vector>

#include "mpi.h"
#include "mpi/api/call.h"
#include "mpi/api/collective_form.h"
#include "mpi/bindings/large_count.h"
#include "mpi/coll/algorithms.h"
#include "mpi/coll/aliasing.h"
#include "mpi/coll/schedule.h"
#include "mpi/coll/shm.h"
#include "mpi/op/op.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::api::Form;
using gasket::mpi::error;
using gasket::mpi::coll::Schedule;
using gasket::mpi::coll::Typed;
namespace api = gasket::mpi::api;
namespace cm = gasket::mpi::comm;
namespace coll = gasket::mpi::coll;
namespace dt = gasket::mpi::datatype;
namespace op = gasket::mpi::op;
namespace large_count = gasket::mpi::large_count;
namespace p2p = gasket::mpi::p2p;

namespace {

// ---- argument checks ----

Error intra_only(const cm::Communicator& comm, const char* call) {
  if (!comm.is_inter()) return Error::ok();
  return error(MPI_ERR_COMM, "%s: rank %d: %s is an intercommunicator; this collective is defined on "
               "intracommunicators only", call, comm.rank, comm.name.empty() ? "the communicator" : comm.name.c_str());
}

Error check_root(int root, const cm::Communicator& comm, const char* call) {
  if (!comm.is_inter()) {
    if (root >= 0 && root < comm.size()) return Error::ok();
    return error(MPI_ERR_ROOT, "%s: rank %d: root %d is out of range (%d ranks)", call, comm.rank, root, comm.size());
  }
  int remote = static_cast<int>(comm.remote_group->pes.size());
  if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < remote)) return Error::ok();
  return error(MPI_ERR_ROOT,
               "%s: rank %d: root %d is invalid on an intercommunicator (a remote rank below %d, or MPI_ROOT / "
               "MPI_PROC_NULL in the root's group)", call, comm.rank, root, remote);
}

Error no_in_place(const void* buf, const char* which, const cm::Communicator& comm, const char* call) {
  if (buf != MPI_IN_PLACE) return Error::ok();
  return error(MPI_ERR_BUFFER, "%s: rank %d: MPI_IN_PLACE is not allowed as %s here%s", call, comm.rank, which,
               comm.is_inter() ? " (intercommunicator)" : "");
}

// `count` elements of `type` at `buf`, checked.
Error typed(Context& c, const void* buf, MPI_Count count, MPI_Datatype type, const cm::Communicator& comm, const char* call,
            Typed* out) {
  const dt::Datatype* t;
  Error e = api::check_count(count, call, comm);
  if (e.is_ok()) e = api::check_type(c, type, count, call, comm, &t);
  if (e.is_ok()) e = api::check_buffer(buf, count, *t, call, comm);
  if (!e.is_ok()) return e;
  *out = Typed{const_cast<void*>(buf), count, t, type};
  return Error::ok();
}

// Blocks as the aliasing check reads them: a list, or the one block a call names (no list is built
// for the one-block forms: they are on every small reduction's path).
class BlockView {
 public:
  BlockView(const std::vector<Typed>& list) : first_(list.data()), n_(list.size()) {}
  BlockView(const Typed& one) : first_(&one), n_(1) {}
  const Typed* begin() const { return first_; }
  const Typed* end() const { return first_ + n_; }
  size_t size() const { return n_; }

 private:
  const Typed* first_;
  size_t n_;
};

// The blocks this rank sends and those it receives must not overlap (MPI_ERR_BUFFER).
Error not_aliased(BlockView sent, BlockView received, const cm::Communicator& comm, const char* call) {
  // The spans of both kinds first: separate buffers end the check before any list is built.
  auto span = [](BlockView blocks) {
    coll::ByteRange all;
    for (const Typed& b : blocks) all = coll::cover(all, coll::occupied(b.buf, b.count, *b.type));
    return all;
  };
  if (!coll::meet(span(sent), span(received))) return Error::ok();
  auto ranges = [](BlockView blocks) {
    std::vector<coll::ByteRange> out;
    out.reserve(blocks.size());
    for (const Typed& b : blocks) out.push_back(coll::occupied(b.buf, b.count, *b.type));
    return out;
  };
  return coll::check_not_aliased(ranges(sent), ranges(received), call, comm.rank);
}

// The per-rank blocks of a buffer: counts/displacements/types per rank when given (displacements
// in elements of the type, or bytes for the w-forms), else `count` elements each, back to back.
struct Layout {
  const void* buf;
  large_count::CountArray counts;
  large_count::AintArray displs;
  const MPI_Datatype* types;
  MPI_Count count;
  MPI_Datatype type;
  bool byte_displs;
  // A v- or w-form: one count per rank (count < 0), whether or not `counts` is given. The
  // algorithm is chosen from this, never from `counts`, which is significant at the root alone in
  // the rooted forms: a non-root may pass NULL, and every rank must take the same algorithm.
  bool per_rank() const { return count < 0; }
};

Error blocks(Context& c, const Layout& l, int n, const cm::Communicator& comm, const char* call,
             std::vector<Typed>* out) {
  if (!l.counts && l.per_rank()) {
    return error(MPI_ERR_ARG, "%s: rank %d: the counts array is NULL", call, comm.rank);
  }
  out->clear();
  out->reserve(static_cast<size_t>(n));
  const dt::Datatype* t = nullptr;
  for (int i = 0; i < n; ++i) {
    MPI_Count count = l.counts ? l.counts[i] : l.count;
    MPI_Datatype type = l.types != nullptr ? l.types[i] : l.type;
    // One count and type for every block: checked once.
    if (t == nullptr || l.counts || l.types != nullptr) {
      Error e = api::check_count(count, call, comm);
      if (e.is_ok()) e = api::check_type(c, type, count, call, comm, &t);
      if (e.is_ok()) e = api::check_buffer(l.buf, count, *t, call, comm);
      if (!e.is_ok()) return e;
    }
    int64_t disp = !l.displs ? static_cast<int64_t>(i) * count * t->extent()
                   : l.byte_displs       ? l.displs[i]
                                         : static_cast<int64_t>(l.displs[i]) * t->extent();
    out->push_back(Typed{static_cast<char*>(const_cast<void*>(l.buf)) + disp, count, t, type});
  }
  return Error::ok();
}

Layout uniform(const void* buf, MPI_Count count, MPI_Datatype type) { return Layout{buf, nullptr, nullptr, nullptr, count, type, false}; }
Layout varying(const void* buf, large_count::CountArray counts, large_count::AintArray displs,
               MPI_Datatype type) {
  return Layout{buf, counts, displs, nullptr, -1, type, false};
}

// ---- reductions: checks and packed data ----

struct Reduction {
  const dt::Datatype* type;
  int handle;
  MPI_Op op;
  bool commutative;
  int64_t bytes(int64_t count) const { return count * type->size; }
};

Error reduction(Context& c, MPI_Count count, MPI_Datatype type, MPI_Op op, const cm::Communicator& comm, const char* call,
                Reduction* out) {
  const dt::Datatype* t;
  Error e = api::check_count(count, call, comm);
  if (e.is_ok()) e = api::check_type(c, type, count, call, comm, &t);
  if (e.is_ok() && type != MPI_DATATYPE_NULL) e = op::check(c.ops(), c.types(), op, *t, call, comm.rank);
  if (!e.is_ok()) return e;
  *out = Reduction{t, type, op, c.ops().commutative(op)};
  return Error::ok();
}

std::unique_ptr<Schedule> reducing(Context& c, const cm::Communicator& comm, const Reduction& r, const char* call) {
  auto s = std::make_unique<Schedule>(c, comm, call);
  s->set_reduction(r.op, r.handle, r.type);
  return s;
}

// This rank's `count` elements at `buf`, packed into scratch when the schedule starts.
char* packed_input(Schedule& s, const Reduction& r, const void* buf, int64_t count) {
  char* p = s.scratch(r.bytes(count));
  const dt::Datatype* t = r.type;
  s.local([t, buf, count, p] { dt::pack(*t, buf, count, p); });
  return p;
}
// Where the packed result of `count` elements goes: the user's buffer itself for a contiguous
// type, else scratch unpacked into it by unpack_output().
char* output(Schedule& s, const Reduction& r, void* buf, int64_t count) {
  return r.type->contiguous() ? static_cast<char*>(buf) + r.type->true_lb : s.scratch(r.bytes(count));
}
void unpack_output(Schedule& s, const Reduction& r, const char* packed, void* buf, int64_t count) {
  if (r.type->contiguous()) return;
  const dt::Datatype* t = r.type;
  int64_t bytes = r.bytes(count);
  s.next();
  s.local([t, packed, bytes, buf, count] { dt::unpack(*t, packed, bytes, buf, count); });
}

Error finish(Context& c, Guard& g, std::unique_ptr<Schedule> s, MPI_Comm handle, Form form) {
  if (form.blocking()) return s->run(g);
  if (form.kind == Form::kNonblocking) {
    coll::start(c, std::move(s), handle, form.request);
    return Error::ok();
  }
  s->make_persistent(handle);
  p2p::Request* r = c.engine().requests().create(p2p::RequestKind::kOperation);
  r->comm = handle;
  r->persistent = true;
  r->my_rank = s->peers().rank;
  r->operation = std::move(s);
  *form.request = r->handle;
  return Error::ok();
}

// Intercommunicator reductions: the local group reduces to its rank 0 (into `mine`), the
// leaders swap with the remote leader (into `theirs`), and rank 0 broadcasts `theirs`.
void inter_exchange(Schedule& s, const cm::Communicator& comm, char* acc, char* mine, char* theirs, int64_t count,
                    bool commutative, bool spread) {
  int64_t bytes = count * s.packed_size();
  coll::reduce(s, s.local(), acc, mine, count, 0, commutative);
  s.next();
  if (comm.rank == 0) {
    s.send_bytes(s.peers(), 0, mine, bytes);
    s.recv_bytes(s.peers(), 0, theirs, bytes);
  }
  s.next();
  if (spread) coll::bcast(s, s.local(), coll::as_bytes(s, theirs, bytes), 0);
}

// ---- the collectives (blocking, non-blocking or persistent: Form) ----

Error barrier(Context& c, Guard& g, MPI_Comm handle, Form form, const char* call) {
  cm::Communicator* comm;
  Error e = api::check_comm(c, handle, call, &comm);
  if (!e.is_ok()) return e;
  if (form.blocking() && coll::shm_applies(c, *comm, 0)) {
    coll::shm_barrier(c, g, *comm);
    return Error::ok();
  }
  if (form.blocking() && coll::shm_nodes_apply(c, *comm, 0)) {
    const dt::Datatype* bytes = c.types().find_committed(MPI_BYTE);
    coll::shm_allreduce_nodes(c, g, *comm, nullptr, nullptr, 0, MPI_BOR, MPI_BYTE, *bytes);
    return Error::ok();
  }
  auto s = std::make_unique<Schedule>(c, *comm, call);
  if (!comm->is_inter()) {
    coll::barrier(*s, s->peers());
  } else {
    // Local barrier, leaders meet, local barrier: nobody leaves before both groups have entered.
    coll::barrier(*s, s->local());
    if (comm->rank == 0) {
      s->send_bytes(s->peers(), 0, nullptr, 0);
      s->recv_bytes(s->peers(), 0, nullptr, 0);
    }
    s->next();
    coll::barrier(*s, s->local());
  }
  return finish(c, g, std::move(s), handle, form);
}

Error bcast(Context& c, Guard& g, void* buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm handle,
            Form form, const char* call) {
  cm::Communicator* comm;
  Typed d;
  Error e = api::check_comm(c, handle, call, &comm);
  if (e.is_ok()) e = check_root(root, *comm, call);
  if (e.is_ok() && root != MPI_PROC_NULL) e = typed(c, buf, count, type, *comm, call, &d);
  if (!e.is_ok()) return e;
  if (form.blocking() && !comm->is_inter()) {
    // The path is chosen from the byte count alone: the ranks' type signatures match, their types
    // need not (the root's vector against the others' contiguous ints), so a rank whose type is
    // not contiguous moves a packed copy along the same path.
    using Path = void (*)(Context&, Guard&, const cm::Communicator&, void*, int64_t, int);
    int64_t bytes = d.bytes();
    Path path = coll::shm_applies(c, *comm, bytes)                   ? coll::shm_bcast
                : coll::shm_pulled_bcast_applies(c, *comm, bytes)   ? coll::shm_direct_bcast
                : coll::shm_staged_applies(c, *comm, bytes, 1)      ? coll::shm_staged_bcast
                : coll::shm_direct_applies(c, *comm, bytes)         ? coll::shm_direct_bcast
                                                                     : nullptr;
    if (path != nullptr) {
      bool packed = !d.type->contiguous();
      std::vector<char> copy(packed ? static_cast<size_t>(bytes) : 0);
      if (packed && comm->rank == root) dt::pack(*d.type, d.buf, d.count, copy.data());
      path(c, g, *comm, packed ? copy.data() : static_cast<char*>(buf) + d.type->true_lb, bytes, root);
      if (packed && comm->rank != root) dt::unpack(*d.type, copy.data(), bytes, d.buf, d.count);
      return Error::ok();
    }
  }
  auto s = std::make_unique<Schedule>(c, *comm, call);
  if (!comm->is_inter()) {
    coll::bcast(*s, s->peers(), d, root);
  } else if (root == MPI_ROOT) {
    s->send(s->peers(), 0, d.buf, d.count, d.type, d.handle);
  } else if (root != MPI_PROC_NULL) {
    if (comm->rank == 0) s->recv(s->peers(), root, d.buf, d.count, d.type, d.handle);
    s->next();
    coll::bcast(*s, s->local(), d, 0);
  }
  return finish(c, g, std::move(s), handle, form);
}

// Gather and scatter share their checks: `gathering` says which way the data flows.
Error rooted(Context& c, Guard& g, bool gathering, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
             const Layout& root_side, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
             MPI_Comm handle, Form form, const char* call) {
  cm::Communicator* comm;
  Error e = api::check_comm(c, handle, call, &comm);
  if (e.is_ok()) e = check_root(root, *comm, call);
  if (!e.is_ok()) return e;
  bool inter = comm->is_inter();
  bool is_root = inter ? root == MPI_ROOT : comm->rank == root;
  bool member = !inter || (root != MPI_ROOT && root != MPI_PROC_NULL);  // sends (gather) / receives (scatter)
  // This rank's own block: the send side of a gather, the receive side of a scatter.
  const void* own = gathering ? sendbuf : recvbuf;
  MPI_Count own_count = gathering ? sendcount : recvcount;
  MPI_Datatype own_type = gathering ? sendtype : recvtype;
  bool in_place = own == MPI_IN_PLACE;
  if (in_place && !(is_root && !inter)) {
    e = no_in_place(own, gathering ? "sendbuf (only the root may pass it)" : "recvbuf (only the root may pass it)",
                    *comm, call);
  }
  if (gathering ? recvbuf == MPI_IN_PLACE : sendbuf == MPI_IN_PLACE) {
    e = no_in_place(MPI_IN_PLACE, gathering ? "recvbuf" : "sendbuf", *comm, call);
  }
  Typed mine;
  if (e.is_ok() && member && !in_place) e = typed(c, own, own_count, own_type, *comm, call, &mine);
  std::vector<Typed> all;
  if (e.is_ok() && is_root) e = blocks(c, root_side, static_cast<int>(comm->peers().pes.size()), *comm, call, &all);
  if (e.is_ok() && is_root && !inter && !in_place) e = not_aliased(mine, all, *comm, call);
  if (!e.is_ok()) return e;
  if (form.blocking() && !inter && !root_side.per_rank()) {
    int64_t block = is_root ? all[0].bytes() : mine.bytes();
    if (!gathering && coll::shm_pulled_scatter_applies(c, *comm, block)) {
      coll::shm_pulled_scatter(c, g, *comm, all, in_place ? nullptr : &mine, root);
      return Error::ok();
    }
    if (coll::shm_blocks_apply(c, *comm, gathering ? block : block * comm->size())) {
      const Typed* own_block = in_place ? nullptr : &mine;
      gathering ? coll::shm_staged_gather(c, g, *comm, own_block, all, root)
                : coll::shm_staged_scatter(c, g, *comm, all, own_block, root);
      return Error::ok();
    }
  }
  auto s = std::make_unique<Schedule>(c, *comm, call);
  if (is_root && !inter && !in_place) {
    // The root's own block is copied once its transfers have started: the peers pull theirs
    // meanwhile (scatter 1 MiB at 2 ranks: the receiver waited out the root's 1 MiB copy first).
    Typed& slot = all[static_cast<size_t>(comm->rank)];
    gathering ? coll::copy_typed(*s, slot, mine, true) : coll::copy_typed(*s, mine, slot, true);
  }
  if (is_root || member) {
    if (gathering) {
      coll::gather(*s, s->peers(), mine, all, root, !inter);
    } else {
      coll::scatter(*s, s->peers(), all, mine, root, !inter);
    }
  }
  return finish(c, g, std::move(s), handle, form);
}

Error allgather(Context& c, Guard& g, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, const Layout& out,
                MPI_Comm handle, Form form, const char* call) {
  cm::Communicator* comm;
  Error e = api::check_comm(c, handle, call, &comm);
  if (!e.is_ok()) return e;
  bool inter = comm->is_inter();
  if (inter) e = no_in_place(sendbuf, "sendbuf", *comm, call);
  std::vector<Typed> all;
  Typed mine;
  if (e.is_ok()) e = no_in_place(out.buf, "recvbuf", *comm, call);
  if (e.is_ok()) e = blocks(c, out, static_cast<int>(comm->peers().pes.size()), *comm, call, &all);
  if (e.is_ok() && sendbuf != MPI_IN_PLACE) e = typed(c, sendbuf, sendcount, sendtype, *comm, call, &mine);
  if (e.is_ok() && sendbuf != MPI_IN_PLACE) e = not_aliased(mine, all, *comm, call);
  if (!e.is_ok()) return e;
  if (form.blocking() && !out.per_rank() && coll::shm_blocks_apply(c, *comm, all[0].bytes())) {
    coll::shm_staged_allgather(c, g, *comm, sendbuf == MPI_IN_PLACE ? nullptr : &mine, all);
    return Error::ok();
  }
  auto s = std::make_unique<Schedule>(c, *comm, call);
  if (!inter) {
    Typed& slot = all[static_cast<size_t>(comm->rank)];
    if (sendbuf == MPI_IN_PLACE) {
      mine = slot;
    } else {
      // While the peers pull this rank's block out of the send buffer (nothing sends the slot).
      coll::copy_typed(*s, slot, mine, /*alongside=*/true);
    }
  }
  coll::allgather(*s, s->peers(), mine, all, !inter);
  return finish(c, g, std::move(s), handle, form);
}

Error alltoall(Context& c, Guard& g, Layout in, const Layout& out, MPI_Comm handle, Form form, const char* call) {
  cm::Communicator* comm;
  Error e = api::check_comm(c, handle, call, &comm);
  if (!e.is_ok()) return e;
  bool in_place = in.buf == MPI_IN_PLACE;
  if (comm->is_inter()) e = no_in_place(in.buf, "sendbuf", *comm, call);
  if (e.is_ok()) e = no_in_place(out.buf, "recvbuf", *comm, call);
  int n = static_cast<int>(comm->peers().pes.size());
  std::vector<Typed> to, from;
  if (e.is_ok()) e = blocks(c, out, n, *comm, call, &from);
  if (e.is_ok() && !in_place) e = blocks(c, in, n, *comm, call, &to);
  if (e.is_ok() && !in_place) e = not_aliased(to, from, *comm, call);
  if (!e.is_ok()) return e;
  if (form.blocking() && !out.per_rank() &&
      coll::shm_blocks_apply(c, *comm, from[0].bytes() * n)) {
    coll::shm_staged_alltoall(c, g, *comm, to, from);
    return Error::ok();
  }
  auto s = std::make_unique<Schedule>(c, *comm, call);
  if (in_place) {
    // The blocks go out of a packed copy of the receive buffer taken when the schedule starts.
    int64_t total = 0;
    for (const Typed& b : from) total += b.bytes();
    char* snapshot = s->scratch(total);
    for (const Typed& b : from) {
      to.push_back(coll::as_bytes(*s, snapshot, b.bytes()));
      snapshot += b.bytes();
    }
    std::vector<Typed> blocks_in = from, blocks_out = to;
    s->local([blocks_in, blocks_out] {
      for (size_t i = 0; i < blocks_in.size(); ++i) {
        dt::pack(*blocks_in[i].type, blocks_in[i].buf, blocks_in[i].count, static_cast<char*>(blocks_out[i].buf));
      }
    });
  }
  coll::alltoall(*s, s->peers(), to, from, !comm->is_inter());
  return finish(c, g, std::move(s), handle, form);
}

Error reduce(Context& c, Guard& g, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type, MPI_Op op,
             int root, MPI_Comm handle, Form form, const char* call) {
  cm::Communicator* comm;
  Reduction r;
  Error e = api::check_comm(c, handle, call, &comm);
  if (e.is_ok()) e = check_root(root, *comm, call);
  if (e.is_ok()) e = reduction(c, count, type, op, *comm, call, &r);
  if (!e.is_ok()) return e;
  bool inter = comm->is_inter();
  bool is_root = inter ? root == MPI_ROOT : comm->rank == root;
  bool member = !inter || (root != MPI_ROOT && root != MPI_PROC_NULL);
  if (sendbuf == MPI_IN_PLACE && (inter || !is_root)) e = no_in_place(sendbuf, "sendbuf (only the root may pass it)", *comm, call);
  if (e.is_ok() && recvbuf == MPI_IN_PLACE) e = no_in_place(recvbuf, "recvbuf", *comm, call);
  if (e.is_ok() && member) e = api::check_buffer(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count, *r.type, call, *comm);
  if (e.is_ok() && is_root) e = api::check_buffer(recvbuf, count, *r.type, call, *comm);
  if (e.is_ok() && is_root && sendbuf != MPI_IN_PLACE && !inter) {
    e = not_aliased(Typed{const_cast<void*>(sendbuf), count, r.type, type}, Typed{recvbuf, count, r.type, type},
                    *comm, call);
  }
  if (!e.is_ok()) return e;
  if (form.blocking() && r.type->contiguous() && coll::shm_applies(c, *comm, r.bytes(count))) {
    const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    coll::shm_reduce(c, g, *comm, static_cast<const char*>(in) + r.type->true_lb,
                     static_cast<char*>(recvbuf) + r.type->true_lb, count, op, type, *r.type, root);
    return Error::ok();
  }
  // Reductions take the same datatype and count on every rank, so the path below is the same
  // everywhere.
  if (form.blocking() && r.type->contiguous() && comm->size() == 2 &&
      coll::shm_staged_applies(c, *comm, r.bytes(count), r.type->size)) {
    const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    coll::shm_pair_reduce(c, g, *comm, static_cast<const char*>(in) + r.type->true_lb,
                          static_cast<char*>(recvbuf) + r.type->true_lb, count, op, type, *r.type, root);
    return Error::ok();
  }
  if (form.blocking() && r.type->contiguous() && coll::shm_blocks_apply(c, *comm, r.bytes(count))) {
    const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    coll::shm_staged_reduce(c, g, *comm, static_cast<const char*>(in) + r.type->true_lb,
                            static_cast<char*>(recvbuf) + r.type->true_lb, count, {}, op, type, *r.type, root);
    return Error::ok();
  }
  auto s = reducing(c, *comm, r, call);
  char* out = is_root ? output(*s, r, recvbuf, count) : s->scratch(r.bytes(count));
  if (!inter) {
    char* acc = packed_input(*s, r, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count);
    coll::reduce(*s, s->peers(), acc, out, count, root, r.commutative);
  } else if (is_root) {
    s->recv_bytes(s->peers(), 0, out, r.bytes(count));
  } else if (member) {
    char* acc = packed_input(*s, r, sendbuf, count);
    coll::reduce(*s, s->local(), acc, out, count, 0, r.commutative);
    s->next();
    if (comm->rank == 0) s->send_bytes(s->peers(), root, out, r.bytes(count));
  }
  if (is_root) unpack_output(*s, r, out, recvbuf, count);
  return finish(c, g, std::move(s), handle, form);
}

// Allreduce, scan and exscan: every rank contributes and receives `count` elements.
enum class AllKind { kAllreduce, kScan, kExscan };

Error all_reduce(Context& c, Guard& g, AllKind kind, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype type,
                 MPI_Op op, MPI_Comm handle, Form form, const char* call) {
  cm::Communicator* comm;
  Reduction r;
  Error e = api::check_comm(c, handle, call, &comm);
  if (e.is_ok() && kind != AllKind::kAllreduce) e = intra_only(*comm, call);
  if (e.is_ok()) e = reduction(c, count, type, op, *comm, call, &r);
  if (e.is_ok() && comm->is_inter()) e = no_in_place(sendbuf, "sendbuf", *comm, call);
  if (e.is_ok()) e = no_in_place(recvbuf, "recvbuf", *comm, call);
  if (e.is_ok() && sendbuf != MPI_IN_PLACE) e = api::check_buffer(sendbuf, count, *r.type, call, *comm);
  if (e.is_ok()) e = api::check_buffer(recvbuf, count, *r.type, call, *comm);
  if (e.is_ok() && sendbuf != MPI_IN_PLACE) {
    e = not_aliased(Typed{const_cast<void*>(sendbuf), count, r.type, type}, Typed{recvbuf, count, r.type, type},
                    *comm, call);
  }
  if (!e.is_ok()) return e;
  if (kind == AllKind::kAllreduce && form.blocking() && r.type->contiguous() &&
      coll::shm_applies(c, *comm, r.bytes(count))) {
    const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    coll::shm_reduce(c, g, *comm, static_cast<const char*>(in) + r.type->true_lb,
                     static_cast<char*>(recvbuf) + r.type->true_lb, count, op, type, *r.type, -1);
    return Error::ok();
  }
  if (kind == AllKind::kAllreduce && form.blocking() && r.type->contiguous() &&
      coll::shm_staged_applies(c, *comm, r.bytes(count), r.type->size)) {
    const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    coll::shm_staged_allreduce(c, g, *comm, static_cast<const char*>(in) + r.type->true_lb,
                               static_cast<char*>(recvbuf) + r.type->true_lb, count, op, type, *r.type);
    return Error::ok();
  }
  if (kind == AllKind::kAllreduce && form.blocking() && r.type->contiguous() &&
      coll::shm_direct_applies(c, *comm, r.bytes(count))) {
    const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    coll::shm_direct_allreduce(c, g, *comm, static_cast<const char*>(in) + r.type->true_lb,
                               static_cast<char*>(recvbuf) + r.type->true_lb, count, op, type, *r.type);
    return Error::ok();
  }
  if (kind == AllKind::kAllreduce && form.blocking() && r.type->contiguous() && r.commutative &&
      coll::shm_nodes_apply(c, *comm, r.bytes(count))) {
    const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    coll::shm_allreduce_nodes(c, g, *comm, static_cast<const char*>(in) + r.type->true_lb,
                              static_cast<char*>(recvbuf) + r.type->true_lb, count, op, type, *r.type);
    return Error::ok();
  }
  auto s = reducing(c, *comm, r, call);
  char* out = kind == AllKind::kExscan && comm->rank == 0 ? s->scratch(r.bytes(count)) : output(*s, r, recvbuf, count);
  char* acc;
  if (kind == AllKind::kAllreduce && !comm->is_inter() && r.type->contiguous()) {
    // Works in the receive buffer itself (one copy fewer for large data).
    acc = out;
    if (sendbuf != MPI_IN_PLACE) s->copy(acc, static_cast<const char*>(sendbuf) + r.type->true_lb, r.bytes(count));
  } else {
    acc = packed_input(*s, r, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, count);
  }
  if (comm->is_inter()) {
    inter_exchange(*s, *comm, acc, s->scratch(r.bytes(count)), out, count, r.commutative, true);
  } else if (kind == AllKind::kAllreduce) {
    coll::allreduce(*s, s->peers(), acc, out, count, r.commutative);
  } else {
    coll::scan(*s, s->peers(), acc, out, count, kind == AllKind::kExscan, r.commutative);
  }
  if (!(kind == AllKind::kExscan && comm->rank == 0)) unpack_output(*s, r, out, recvbuf, count);
  return finish(c, g, std::move(s), handle, form);
}

// counts == null: every rank gets `count` elements (the block form).
Error reduce_scatter(Context& c, Guard& g, const void* sendbuf, void* recvbuf, large_count::CountArray counts, MPI_Count count,
                     MPI_Datatype type, MPI_Op op, MPI_Comm handle, Form form, const char* call) {
  cm::Communicator* comm;
  Reduction r;
  Error e = api::check_comm(c, handle, call, &comm);
  if (!e.is_ok()) return e;
  int n = comm->size();
  std::vector<int64_t> parts(static_cast<size_t>(n), count);
  if (counts) {
    for (int i = 0; i < n; ++i) {
      if (counts[i] < 0) {
        return error(MPI_ERR_COUNT, "%s: rank %d: recvcounts[%d] = %lld is negative", call, comm->rank, i,
                     static_cast<long long>(counts[i]));
      }
      parts[static_cast<size_t>(i)] = counts[i];
    }
  }
  int64_t total = std::accumulate(parts.begin(), parts.end(), int64_t{0});
  // The type is checked against the elements moved: MPI_DATATYPE_NULL only when there are none.
  e = reduction(c, counts ? total : count, type, op, *comm, call, &r);
  if (!e.is_ok()) return e;
  int64_t mine = parts[static_cast<size_t>(comm->rank)];
  if (comm->is_inter()) e = no_in_place(sendbuf, "sendbuf", *comm, call);
  if (e.is_ok()) e = no_in_place(recvbuf, "recvbuf", *comm, call);
  if (e.is_ok() && sendbuf != MPI_IN_PLACE) e = api::check_buffer(sendbuf, total, *r.type, call, *comm);
  if (e.is_ok()) e = api::check_buffer(recvbuf, mine, *r.type, call, *comm);
  if (e.is_ok() && sendbuf != MPI_IN_PLACE) {
    e = not_aliased(Typed{const_cast<void*>(sendbuf), total, r.type, type}, Typed{recvbuf, mine, r.type, type},
                    *comm, call);
  }
  if (!e.is_ok()) return e;
  if (form.blocking() && r.type->contiguous() && coll::shm_reduce_scatter_applies(c, *comm, r.bytes(total))) {
    const void* in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    coll::shm_staged_reduce(c, g, *comm, static_cast<const char*>(in) + r.type->true_lb,
                            static_cast<char*>(recvbuf) + r.type->true_lb, total, parts, op, type, *r.type, -1);
    return Error::ok();
  }
  auto s = reducing(c, *comm, r, call);
  char* acc = packed_input(*s, r, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf, total);
  char* out = output(*s, r, recvbuf, mine);
  if (!comm->is_inter()) {
    coll::reduce_scatter(*s, s->peers(), acc, parts, out, r.commutative);
  } else {
    // The other group's reduction, scattered over this group by its leader.
    char* theirs = s->scratch(r.bytes(total));
    inter_exchange(*s, *comm, acc, s->scratch(r.bytes(total)), theirs, total, r.commutative, false);
    std::vector<Typed> pieces;
    if (comm->rank == 0) {
      char* p = theirs;
      for (int64_t k : parts) pieces.push_back(coll::as_bytes(*s, p, r.bytes(k))), p += r.bytes(k);
      s->copy(out, theirs, r.bytes(mine));
    }
    coll::scatter(*s, s->local(), pieces, coll::as_bytes(*s, out, r.bytes(mine)), 0, true);
  }
  unpack_output(*s, r, out, recvbuf, mine);
  return finish(c, g, std::move(s), handle, form);
}

// Runs build(c, g, args..., form, call) for a binding in the form asked, after the checks of the
// request (non-blocking, persistent) and info (persistent) arguments.
template <typename Builder, typename... Args>
int binding(const char* call, MPI_Comm comm, Form form, Builder build, const Args&... args) {
  return api::call(call, comm, [&](Context& c, Guard& g) -> Error {
    Error e = api::check_form(c, form, call);
    return e.is_ok() ? build(c, g, args..., form, call) : e;
  });
}

// The w-forms' layout: a type per rank, displacements in bytes.
Layout by_type(const void* buf, large_count::CountArray counts, large_count::AintArray displs,
               const MPI_Datatype* types) {
  return Layout{buf, counts, displs, types, -1, 0, true};
}

Error reduce_scatter_counts(Context& c, Guard& g, const void* sendbuf, void* recvbuf, large_count::CountArray counts,
                            MPI_Datatype type, MPI_Op op, MPI_Comm handle, Form form, const char* call) {
  if (!counts) return error(MPI_ERR_ARG, "%s: recvcounts is NULL", call);
  return reduce_scatter(c, g, sendbuf, recvbuf, counts, 0, type, op, handle, form, call);
}
Error reduce_scatter_block(Context& c, Guard& g, const void* sendbuf, void* recvbuf, MPI_Count count,
                           MPI_Datatype type, MPI_Op op, MPI_Comm handle, Form form, const char* call) {
  return reduce_scatter(c, g, sendbuf, recvbuf, nullptr, count, type, op, handle, form, call);
}

}  // namespace

extern "C" {

// ---- reduction operations ----

}  // extern "C"

namespace {
// MPI_Op_create and MPI_Op_create_c: the function takes an int or an MPI_Count length.
int op_create(const char* call, const op::UserOp& user, MPI_Op* op) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (user.function == nullptr && user.function_c == nullptr) {
      return error(MPI_ERR_ARG, "%s: the user function is NULL", call);
    }
    if (op == nullptr) return error(MPI_ERR_ARG, "%s: op is NULL", call);
    *op = c.ops().add(user);
    return Error::ok();
  });
}
}  // namespace

extern "C" {

int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  return op_create("MPI_Op_create", op::UserOp{user_fn, nullptr, commute != 0}, op);
}
int PMPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  return op_create("MPI_Op_create_c", op::UserOp{nullptr, user_fn, commute != 0}, op);
}

int PMPI_Op_free(MPI_Op* op) {
  return api::call("MPI_Op_free", MPI_COMM_WORLD, [&](Context& c, Guard&) { return c.ops().free(op, "MPI_Op_free"); });
}

int PMPI_Op_commutative(MPI_Op op, int* commute) {
  return api::call("MPI_Op_commutative", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (!c.ops().valid(op)) return error(MPI_ERR_OP, "MPI_Op_commutative: %d is not an operation", op);
    if (commute == nullptr) return error(MPI_ERR_ARG, "MPI_Op_commutative: commute is NULL");
    *commute = c.ops().commutative(op) ? 1 : 0;
    return Error::ok();
  });
}

}  // extern "C"

// One implementation per collective, run in the form its binding passes (blocking, non-blocking,
// persistent); the bindings of the three forms, int and _c, are generated (`forms` in
// mpi/bindings/large_count.txt).
namespace gasket::mpi::large_count {

int Barrier(const char* call, Form form, MPI_Comm comm) { return binding(call, comm, form, barrier, comm); }

int Reduce_local(const char* call, const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype,
                 MPI_Op op) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    cm::Communicator* world;
    Reduction r;
    Error e = api::check_comm(c, MPI_COMM_WORLD, call, &world);
    if (e.is_ok()) e = reduction(c, count, datatype, op, *world, call, &r);
    if (e.is_ok()) e = api::check_buffer(inbuf, count, *r.type, call, *world);
    if (e.is_ok()) e = api::check_buffer(inoutbuf, count, *r.type, call, *world);
    if (e.is_ok() && (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)) {
      e = error(MPI_ERR_BUFFER, "%s: rank %d: MPI_IN_PLACE is not allowed", call, world->rank);
    }
    if (e.is_ok() && inbuf == inoutbuf && count > 0 && r.type->size > 0) {  // MPI 4.1 section 6.9.7: no aliasing
      e = error(MPI_ERR_BUFFER, "%s: rank %d: inbuf and inoutbuf are the same buffer (%p)", call, world->rank, inbuf);
    }
    if (!e.is_ok()) return e;
    if (r.type->contiguous()) {  // packed form = memory
      op::apply(c.ops(), op, datatype, *r.type, static_cast<const char*>(inbuf) + r.type->true_lb,
                static_cast<char*>(inoutbuf) + r.type->true_lb, count);
      return Error::ok();
    }
    std::vector<char> in(static_cast<size_t>(r.bytes(count))), io(in.size());
    dt::pack(*r.type, inbuf, count, in.data());
    dt::pack(*r.type, inoutbuf, count, io.data());
    op::apply(c.ops(), op, datatype, *r.type, in.data(), io.data(), count);
    dt::unpack(*r.type, io.data(), r.bytes(count), inoutbuf, count);
    return Error::ok();
  });
}

int Bcast(const char* call, Form form, void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return binding(call, comm, form, bcast, buffer, count, datatype, root, comm);
}

int Gather(const char* call, Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return binding(call, comm, form, rooted, true, sendbuf, sendcount, sendtype, uniform(recvbuf, recvcount, recvtype), recvbuf, 0, recvtype, root, comm);
}

int Gatherv(const char* call, Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, WideArray<MPI_Count> recvcounts, WideArray<MPI_Aint> displs, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return binding(call, comm, form, rooted, true, sendbuf, sendcount, sendtype, varying(recvbuf, recvcounts, displs, recvtype), recvbuf, 0, recvtype, root, comm);
}

int Scatter(const char* call, Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return binding(call, comm, form, rooted, false, sendbuf, 0, sendtype, uniform(sendbuf, sendcount, sendtype), recvbuf, recvcount, recvtype, root, comm);
}

int Scatterv(const char* call, Form form, const void* sendbuf, WideArray<MPI_Count> sendcounts, WideArray<MPI_Aint> displs, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return binding(call, comm, form, rooted, false, sendbuf, 0, sendtype, varying(sendbuf, sendcounts, displs, sendtype), recvbuf, recvcount, recvtype, root, comm);
}

int Allgather(const char* call, Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return binding(call, comm, form, allgather, sendbuf, sendcount, sendtype, uniform(recvbuf, recvcount, recvtype), comm);
}

int Allgatherv(const char* call, Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, WideArray<MPI_Count> recvcounts, WideArray<MPI_Aint> displs, MPI_Datatype recvtype, MPI_Comm comm) {
  return binding(call, comm, form, allgather, sendbuf, sendcount, sendtype, varying(recvbuf, recvcounts, displs, recvtype), comm);
}

int Alltoall(const char* call, Form form, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return binding(call, comm, form, alltoall, uniform(sendbuf, sendcount, sendtype), uniform(recvbuf, recvcount, recvtype), comm);
}

int Alltoallv(const char* call, Form form, const void* sendbuf, WideArray<MPI_Count> sendcounts, WideArray<MPI_Aint> sdispls, MPI_Datatype sendtype, void* recvbuf, WideArray<MPI_Count> recvcounts, WideArray<MPI_Aint> rdispls, MPI_Datatype recvtype, MPI_Comm comm) {
  return binding(call, comm, form, alltoall, varying(sendbuf, sendcounts, sdispls, sendtype), varying(recvbuf, recvcounts, rdispls, recvtype), comm);
}

int Alltoallw(const char* call, Form form, const void* sendbuf, WideArray<MPI_Count> sendcounts, WideArray<MPI_Aint> sdispls, const MPI_Datatype sendtypes[], void* recvbuf, WideArray<MPI_Count> recvcounts, WideArray<MPI_Aint> rdispls, const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return binding(call, comm, form, alltoall, by_type(sendbuf, sendcounts, sdispls, sendtypes), by_type(recvbuf, recvcounts, rdispls, recvtypes), comm);
}

int Reduce(const char* call, Form form, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  return binding(call, comm, form, reduce, sendbuf, recvbuf, count, datatype, op, root, comm);
}

int Allreduce(const char* call, Form form, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return binding(call, comm, form, all_reduce, AllKind::kAllreduce, sendbuf, recvbuf, count, datatype, op, comm);
}

int Scan(const char* call, Form form, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return binding(call, comm, form, all_reduce, AllKind::kScan, sendbuf, recvbuf, count, datatype, op, comm);
}

int Exscan(const char* call, Form form, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return binding(call, comm, form, all_reduce, AllKind::kExscan, sendbuf, recvbuf, count, datatype, op, comm);
}

int Reduce_scatter(const char* call, Form form, const void* sendbuf, void* recvbuf, WideArray<MPI_Count> recvcounts, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return binding(call, comm, form, reduce_scatter_counts, sendbuf, recvbuf, recvcounts, datatype, op, comm);
}

int Reduce_scatter_block(const char* call, Form form, const void* sendbuf, void* recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return binding(call, comm, form, reduce_scatter_block, sendbuf, recvbuf, recvcount, datatype, op, comm);
}

}  // namespace gasket::mpi::large_count
