// C bindings of communicators, groups and attributes. Creation is collective over the parent
// (context ids agreed through mpi/coll); intercommunicators carry a remote group and
// run point-to-point like intracommunicators.
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <set>
#include <vector>

#include "core/gasket.h"
#include "core/topology/topology.h"
#include "mpi.h"
#include "mpi/coll/agree.h"
#include "mpi/coll/algorithms.h"
#include "mpi/coll/shm.h"
#include "mpi/api/attributes.h"
#include "mpi/api/requests.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
namespace api = gasket::mpi::api;
namespace cm = gasket::mpi::comm;
using GroupPtr = std::shared_ptr<const cm::Group>;

namespace {

constexpr int kTagUb = 0x7fffffff;

Error lookup(Context& c, MPI_Comm h, const char* call, cm::Communicator** comm) { return c.comms().lookup(h, call, comm); }

// A new intracommunicator over `pes` (this PE among them) with an agreed context.
MPI_Comm make_comm(Context& c, std::vector<int> pes, uint32_t context, MPI_Errhandler eh, int slot = -1) {
  cm::Communicator n;
  n.context = context;
  n.coll_slot = slot;
  int me = gasket::my_pe();
  n.rank = static_cast<int>(std::find(pes.begin(), pes.end(), me) - pes.begin());
  n.group = std::make_shared<cm::Group>(cm::Group{std::move(pes)});
  n.errhandler = eh;
  return c.comms().add(std::move(n));
}

// The two leaders (local rank 0 of each group) of an intercommunicator swap `out` for the other
// side's `in` (`tag` on the communicator's internal context), then each tells its group.
void swap_between_groups(Context& c, Guard& g, const cm::Communicator& inter, void* out, int64_t out_bytes, void* in,
                         int64_t in_bytes, int tag) {
  cm::Communicator local = inter.local();
  if (local.rank == 0) {
    auto* s = api::new_internal(c, gasket::mpi::p2p::RequestKind::kSend, out, out_bytes, 0, tag, inter,
                                inter.context + 1);
    auto* r = api::new_internal(c, gasket::mpi::p2p::RequestKind::kRecv, in, in_bytes, 0, tag, inter,
                                inter.context + 1);
    c.engine().start_recv(r);
    c.engine().start_send(s);
    c.wait(g, [&] { return r->complete && s->complete; });
    c.engine().requests().release(r);
    c.engine().requests().release(s);
  }
  (void)gasket::mpi::coll::bcast_bytes(c, g, in, in_bytes, 0, local);
}

// An intercommunicator's agreement: each group agrees locally, the leaders swap their results
// (and one int of `extra`, e.g. merge's `high`) over the intercommunicator, and tell their group.
// Returns the context for a new communicator over both groups; *remote_extra is the other side's.
// *local_extra (optional) is the own leader's `extra`.
uint32_t agree_inter(Context& c, Guard& g, const cm::Communicator& inter, int extra, int* remote_extra,
                     int* local_extra = nullptr) {
  cm::Communicator local = inter.local();
  uint32_t mine = c.comms().next_context();
  std::vector<uint32_t> all(static_cast<size_t>(local.size()));
  (void)gasket::mpi::coll::allgather_bytes(c, g, &mine, sizeof mine, all.data(), local);
  int info[2] = {static_cast<int>(*std::max_element(all.begin(), all.end())), extra};
  int remote[3] = {0, 0, extra};  // the other leader's info, then the own leader's extra (bcast)
  swap_between_groups(c, g, inter, info, sizeof info, remote, sizeof remote, 12);
  uint32_t ctx = std::max(static_cast<uint32_t>(info[0]), static_cast<uint32_t>(remote[0]));
  c.comms().use_context(ctx);
  *remote_extra = remote[1];
  if (local_extra != nullptr) *local_extra = remote[2];
  return ctx;
}

// hints: the new communicator's info hints; null keeps comm's (MPI_Comm_dup).
Error dup(Context& c, Guard& g, MPI_Comm comm, MPI_Comm* newcomm, const char* call,
          const gasket::mpi::Info* hints = nullptr) {
  cm::Communicator* old;
  Error e = lookup(c, comm, call, &old);
  if (!e.is_ok()) return e;
  if (newcomm == nullptr) return error(MPI_ERR_ARG, "%s: newcomm is NULL", call);
  cm::Communicator n = *old;  // keeps the topology (immutable, shared)
  int unused;
  if (old->is_inter()) {
    n.context = agree_inter(c, g, n, 0, &unused);
  } else {
    gasket::mpi::coll::Agreement a = gasket::mpi::coll::agree_with_slot(c, g, n);
    n.context = a.context, n.coll_slot = a.slot;
  }
  n.shm_seq = 0;
  n.shm_all_entered = 0;
  if (hints != nullptr) n.hints = *hints;
  gasket::mpi::AttributeList source = std::move(n.attributes);  // *old's when the call started
  n.attributes.clear();
  n.name.clear();
  e = api::copy_attributes(c, g, comm, source, &n.attributes, call);
  if (!e.is_ok()) return e;
  *newcomm = c.comms().add(std::move(n));
  return Error::ok();
}

// The context of an intercommunicator's MPI_Comm_idup, agreed without blocking: each group
// agrees on an id over its local group (coll::ContextAgreement), the two leaders swap their
// groups' ids over the intercommunicator and each tells its group (a bcast schedule). Equal ids
// are the new communicator's; otherwise each group releases its own and agrees again from the
// larger id up, until both groups offer the same one. Every message uses the one tag taken from
// the intercommunicator at the start (the rounds follow each other in order).
class InterContextAgreement {
 public:
  InterContextAgreement(Context& c, const cm::Communicator& inter)
      : c_(c), inter_(inter), local_(inter.local()), local_seq_(inter.coll_seq),
        tag_(gasket::mpi::coll::take_collective_tag(inter)) {
    agree_from(c.next_nonblocking_context());
  }
  // True when done: context() is the new intercommunicator's at both groups.
  bool progress(Error* e) {
    for (;;) {
      if (agreement_ != nullptr) {
        if (!agreement_->progress(e)) return false;
        if (!e->is_ok()) return true;
        mine_ = agreement_->context();
        agreement_.reset();
        start_swap();
      }
      if (!swap_progress(e)) return false;
      if (!e->is_ok() || theirs_ == mine_) return true;
      c_.release_context(mine_);
      agree_from(std::max(mine_, theirs_));
    }
  }
  uint32_t context() const { return mine_; }

 private:
  // A local agreement from `floor`, on the intercommunicator's tag (the local group's sequence
  // set back to it: every round of the local groups uses that one tag).
  void agree_from(uint32_t floor) {
    local_.coll_seq = local_seq_;
    agreement_ = std::make_unique<gasket::mpi::coll::ContextAgreement>(c_, local_, floor);
  }
  void start_swap() {
    out_ = mine_;
    bcast_.reset();
    if (local_.rank != 0) return;
    using gasket::mpi::p2p::RequestKind;
    send_ = api::new_internal(c_, RequestKind::kSend, &out_, sizeof out_, 0, tag_, inter_, inter_.context + 1);
    recv_ = api::new_internal(c_, RequestKind::kRecv, &theirs_, sizeof theirs_, 0, tag_, inter_, inter_.context + 1);
    c_.engine().start_recv(recv_);
    c_.engine().start_send(send_);
  }
  // The leader's swap, then the bcast of the other group's id from the leader.
  bool swap_progress(Error* e) {
    if (bcast_ == nullptr) {
      if (local_.rank == 0) {
        if (!recv_->complete || !send_->complete) return false;
        c_.engine().requests().release(recv_);
        c_.engine().requests().release(send_);
      }
      namespace coll = gasket::mpi::coll;
      bcast_ = std::make_unique<coll::Schedule>(c_, local_, "MPI_Comm_idup", tag_);
      coll::bcast(*bcast_, bcast_->peers(), coll::as_bytes(*bcast_, &theirs_, sizeof theirs_), 0);
    }
    return bcast_->progress(e);
  }

  Context& c_;
  cm::Communicator inter_;
  cm::Communicator local_;
  uint32_t local_seq_;
  int tag_;
  uint32_t mine_ = 0, out_ = 0, theirs_ = 0;
  std::unique_ptr<gasket::mpi::coll::ContextAgreement> agreement_;
  gasket::mpi::p2p::Request* send_ = nullptr;
  gasket::mpi::p2p::Request* recv_ = nullptr;
  std::unique_ptr<gasket::mpi::coll::Schedule> bcast_;
};

// MPI_Comm_idup in flight: the members agree on a context id without blocking (an
// intracommunicator's coll::ContextAgreement, an intercommunicator's InterContextAgreement, run
// by the engine's progress); at completion the handle is written (attributes copied then). The
// new communicator gets no slot of the same-node collective area (a blocking creation meanwhile
// could take the slot it would agree on), so its collectives always take the schedules.
template <typename Agreement>
class IdupOperation final : public gasket::mpi::p2p::Operation {
 public:
  IdupOperation(Context& c, MPI_Comm old_handle, const cm::Communicator& old, MPI_Comm* out,
                const gasket::mpi::Info* hints)
      : c_(c), old_handle_(old_handle), n_(old), out_(out), agreement_(c, old) {
    if (hints != nullptr) n_.hints = *hints;
  }
  bool progress(Error* e) override {
    if (!agreement_.progress(e)) return false;
    if (!e->is_ok()) return true;
    n_.context = agreement_.context();
    n_.coll_slot = -1;
    n_.coll_seq = 0;
    n_.shm_seq = 0;
    n_.shm_all_entered = 0;
    gasket::mpi::AttributeList source = std::move(n_.attributes);  // the old communicator's at MPI_Comm_idup
    n_.attributes.clear();
    n_.name.clear();
    // Progress runs inside an MPI call of this thread: the guard is re-entrant and the copy
    // callbacks run with the lock held (the engine is mid-progress).
    Guard nested(c_);
    if (c_.comms().find(old_handle_) != nullptr) {
      *e = api::copy_attributes(c_, nested, old_handle_, source, &n_.attributes, "MPI_Comm_idup");
    }
    *out_ = c_.comms().add(std::move(n_));
    return true;
  }

 private:
  Context& c_;
  MPI_Comm old_handle_;
  cm::Communicator n_;
  MPI_Comm* out_;
  Agreement agreement_;
};

// MPI_Comm_idup(_with_info): hints null keeps comm's.
Error idup(Context& c, Guard& g, MPI_Comm comm, const gasket::mpi::Info* hints, MPI_Comm* newcomm,
           MPI_Request* request, const char* call) {
  if (request == nullptr) return error(MPI_ERR_ARG, "%s: request is NULL", call);
  cm::Communicator* old;
  Error e = lookup(c, comm, call, &old);
  if (!e.is_ok()) return e;
  if (newcomm == nullptr) return error(MPI_ERR_ARG, "%s: newcomm is NULL", call);
  gasket::mpi::p2p::Request* r = c.engine().requests().create(gasket::mpi::p2p::RequestKind::kOperation);
  r->comm = comm;
  if (old->is_inter()) {
    r->operation = std::make_unique<IdupOperation<InterContextAgreement>>(c, comm, *old, newcomm, hints);
  } else {
    r->operation = std::make_unique<IdupOperation<gasket::mpi::coll::ContextAgreement>>(c, comm, *old, newcomm, hints);
  }
  c.engine().start_operation(r);
  *request = r->handle;
  return Error::ok();
}

// The hints of an info argument (MPI_INFO_NULL: none).
Error hints_of(Context& c, MPI_Info info, const char* call, const gasket::mpi::Info** hints) {
  static const gasket::mpi::Info kNone;
  Error e = api::check_info(c, info, call);
  if (!e.is_ok()) return e;
  *hints = info == MPI_INFO_NULL ? &kNone : c.find_info(info);
  return Error::ok();
}

struct SplitRecord {
  int color, key, rank;
};

// The PEs of `group` whose records have `color`, ordered by key, then by old rank.
std::vector<int> members_of(const std::vector<SplitRecord>& records, int color, const cm::Group& group) {
  std::vector<SplitRecord> members;
  for (const SplitRecord& r : records) {
    if (r.color == color) members.push_back(r);
  }
  std::stable_sort(members.begin(), members.end(), [](const SplitRecord& a, const SplitRecord& b) {
    return a.key != b.key ? a.key < b.key : a.rank < b.rank;
  });
  std::vector<int> pes;
  for (const SplitRecord& r : members) pes.push_back(group.pes[static_cast<size_t>(r.rank)]);
  return pes;
}

// MPI_Comm_split of an intercommunicator: each group splits by colour as an intracommunicator
// would, and the parts of the same colour on both sides form a new intercommunicator (none when
// either side has no process of that colour).
Error split_inter(Context& c, Guard& g, cm::Communicator parent, int color, int key, MPI_Comm* newcomm) {
  int unused = 0;
  uint32_t ctx = agree_inter(c, g, parent, 0, &unused);
  cm::Communicator local = parent.local();
  SplitRecord mine{color, key, parent.rank};
  std::vector<SplitRecord> ours(static_cast<size_t>(local.size()));
  std::vector<SplitRecord> theirs(parent.remote_group->pes.size());
  Error e = gasket::mpi::coll::allgather_bytes(c, g, &mine, sizeof mine, ours.data(), local);
  if (!e.is_ok()) return e;
  swap_between_groups(c, g, parent, ours.data(), static_cast<int64_t>(ours.size() * sizeof(SplitRecord)),
                      theirs.data(), static_cast<int64_t>(theirs.size() * sizeof(SplitRecord)), 14);
  std::vector<int> remote = members_of(theirs, color, *parent.remote_group);
  *newcomm = MPI_COMM_NULL;
  if (color == MPI_UNDEFINED || remote.empty()) return Error::ok();
  cm::Communicator n;
  n.context = ctx;
  n.group = std::make_shared<cm::Group>(cm::Group{members_of(ours, color, *parent.group)});
  n.rank = n.group->rank_of_pe(gasket::my_pe());
  n.remote_group = std::make_shared<cm::Group>(cm::Group{std::move(remote)});
  n.errhandler = parent.errhandler;
  *newcomm = c.comms().add(std::move(n));
  return Error::ok();
}

// MPI_Comm_create of an intercommunicator (MPI 4.1 section 7.4.2): each side names a subgroup of
// its own group (the same at every member of the side); the leaders swap the local ranks their
// side chose, and the chosen processes of both sides form a new intercommunicator, none when
// either side chose nobody (MPI_COMM_NULL then, and for the processes not chosen).
Error create_inter(Context& c, Guard& g, cm::Communicator parent, const cm::Group& chosen, MPI_Comm* newcomm) {
  int unused = 0;
  uint32_t ctx = agree_inter(c, g, parent, 0, &unused);
  std::vector<int> ours{static_cast<int>(chosen.pes.size())};  // [n, local ranks...]
  for (int pe : chosen.pes) ours.push_back(parent.group->rank_of_pe(pe));
  std::vector<int> theirs(parent.remote_group->pes.size() + 1);
  swap_between_groups(c, g, parent, ours.data(), static_cast<int64_t>(ours.size() * sizeof(int)), theirs.data(),
                      static_cast<int64_t>(theirs.size() * sizeof(int)), 15);
  std::vector<int> remote;
  for (int i = 0; i < theirs[0]; ++i) remote.push_back(parent.remote_group->pes[static_cast<size_t>(theirs[1 + i])]);
  *newcomm = MPI_COMM_NULL;
  if (remote.empty() || chosen.rank_of_pe(gasket::my_pe()) == MPI_UNDEFINED) return Error::ok();
  cm::Communicator n;
  n.context = ctx;
  n.group = std::make_shared<cm::Group>(chosen);
  n.rank = n.group->rank_of_pe(gasket::my_pe());
  n.remote_group = std::make_shared<cm::Group>(cm::Group{std::move(remote)});
  n.errhandler = parent.errhandler;
  *newcomm = c.comms().add(std::move(n));
  return Error::ok();
}

Error split(Context& c, Guard& g, MPI_Comm comm, int color, int key, MPI_Comm* newcomm, const char* call) {
  cm::Communicator* old;
  Error e = lookup(c, comm, call, &old);
  if (!e.is_ok()) return e;
  if (newcomm == nullptr) return error(MPI_ERR_ARG, "%s: newcomm is NULL", call);
  if (color < 0 && color != MPI_UNDEFINED) {
    return error(MPI_ERR_ARG, "%s: rank %d: color %d is negative (and not MPI_UNDEFINED)", call, old->rank, color);
  }
  if (old->is_inter()) return split_inter(c, g, *old, color, key, newcomm);
  cm::Communicator parent = *old;  // the table may grow below
  gasket::mpi::coll::Agreement agreed = gasket::mpi::coll::agree_with_slot(c, g, parent);
  uint32_t ctx = agreed.context;
  SplitRecord mine{color, key, parent.rank};
  std::vector<SplitRecord> all(static_cast<size_t>(parent.size()));
  e = gasket::mpi::coll::allgather_bytes(c, g, &mine, sizeof mine, all.data(), parent);
  if (!e.is_ok()) return e;
  if (color == MPI_UNDEFINED) {
    if (agreed.slot >= 0) c.area().release(agreed.slot);
    *newcomm = MPI_COMM_NULL;
    return Error::ok();
  }
  *newcomm = make_comm(c, members_of(all, color, *parent.group), ctx, parent.errhandler, agreed.slot);
  return Error::ok();
}

bool same_members(const cm::Group& a, const cm::Group& b) {
  return std::set<int>(a.pes.begin(), a.pes.end()) == std::set<int>(b.pes.begin(), b.pes.end());
}

int compare_groups(const cm::Group& a, const cm::Group& b) {
  if (a.pes == b.pes) return MPI_IDENT;
  if (a.pes.size() == b.pes.size() && same_members(a, b)) return MPI_SIMILAR;
  return MPI_UNEQUAL;
}

Error group_of(Context& c, MPI_Group h, const char* call, GroupPtr* g) { return c.comms().lookup_group(h, call, g); }

Error check_ranks(const cm::Group& g, int n, const int ranks[], const char* call, bool distinct) {
  if (n < 0) return error(MPI_ERR_ARG, "%s: n %d is negative", call, n);
  if (n > 0 && ranks == nullptr) return error(MPI_ERR_ARG, "%s: the ranks array is NULL", call);
  std::set<int> seen;
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= static_cast<int>(g.pes.size())) {
      return error(MPI_ERR_RANK, "%s: rank %d (entry %d) is not in the group of %zu", call, ranks[i], i, g.pes.size());
    }
    if (distinct && !seen.insert(ranks[i]).second) {
      return error(MPI_ERR_RANK, "%s: rank %d appears twice", call, ranks[i]);
    }
  }
  return Error::ok();
}

// Expands range triplets to ranks (MPI_Group_range_incl/excl).
Error expand_ranges(const cm::Group& g, int n, int ranges[][3], const char* call, std::vector<int>* out) {
  if (n < 0 || (n > 0 && ranges == nullptr)) return error(MPI_ERR_ARG, "%s: bad range count %d", call, n);
  for (int i = 0; i < n; ++i) {
    int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0) return error(MPI_ERR_ARG, "%s: range %d has stride 0", call, i);
    int n_ranks = static_cast<int>(g.pes.size());
    if (first < 0 || first >= n_ranks || last < 0 || last >= n_ranks) {  // as MPICH: both ends in the group
      return error(MPI_ERR_RANK, "%s: range %d (%d, %d, %d) reaches outside the group of %d", call, i, first, last,
                   stride, n_ranks);
    }
    for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) out->push_back(r);
  }
  return check_ranks(g, static_cast<int>(out->size()), out->data(), call, true);
}

int new_group(Context& c, std::vector<int> pes, MPI_Group* out) {
  *out = pes.empty() ? MPI_GROUP_EMPTY : c.comms().add_group(std::make_shared<cm::Group>(cm::Group{std::move(pes)}));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int gasket_comm_null_copy_fn(MPI_Comm, int, void*, void*, void*, int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}
int gasket_comm_dup_fn(MPI_Comm, int, void*, void* in, void* out, int* flag) {
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}
int gasket_comm_null_delete_fn(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }

int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  return api::call("MPI_Comm_rank", comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    Error e = lookup(c, comm, "MPI_Comm_rank", &cmm);
    if (!e.is_ok()) return e;
    if (rank == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_rank: rank is NULL");
    *rank = cmm->rank;
    return Error::ok();
  });
}

int PMPI_Comm_size(MPI_Comm comm, int* size) {
  return api::call("MPI_Comm_size", comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    Error e = lookup(c, comm, "MPI_Comm_size", &cmm);
    if (!e.is_ok()) return e;
    if (size == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_size: size is NULL");
    *size = cmm->size();
    return Error::ok();
  });
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return api::call("MPI_Comm_dup", comm,
                   [&](Context& c, Guard& g) { return dup(c, g, comm, newcomm, "MPI_Comm_dup"); });
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* request) {
  return api::call("MPI_Comm_idup", comm,
                   [&](Context& c, Guard& g) { return idup(c, g, comm, nullptr, newcomm, request, "MPI_Comm_idup"); });
}

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm) {
  return api::call("MPI_Comm_dup_with_info", comm, [&](Context& c, Guard& g) -> Error {
    const gasket::mpi::Info* hints;
    Error e = hints_of(c, info, "MPI_Comm_dup_with_info", &hints);
    return e.is_ok() ? dup(c, g, comm, newcomm, "MPI_Comm_dup_with_info", hints) : e;
  });
}

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm, MPI_Request* request) {
  return api::call("MPI_Comm_idup_with_info", comm, [&](Context& c, Guard& g) -> Error {
    const gasket::mpi::Info* hints;
    Error e = hints_of(c, info, "MPI_Comm_idup_with_info", &hints);
    return e.is_ok() ? idup(c, g, comm, hints, newcomm, request, "MPI_Comm_idup_with_info") : e;
  });
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  return api::call("MPI_Comm_set_info", comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    const gasket::mpi::Info* hints;
    Error e = lookup(c, comm, "MPI_Comm_set_info", &cmm);
    if (e.is_ok()) e = hints_of(c, info, "MPI_Comm_set_info", &hints);
    if (!e.is_ok()) return e;
    for (const auto& [key, value] : *hints) {  // a key set again takes the new value; others stay
      auto it = std::find_if(cmm->hints.begin(), cmm->hints.end(), [&](const auto& kv) { return kv.first == key; });
      if (it != cmm->hints.end()) {
        it->second = value;
      } else {
        cmm->hints.emplace_back(key, value);
      }
    }
    return Error::ok();
  });
}

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  return api::call("MPI_Comm_get_info", comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    Error e = lookup(c, comm, "MPI_Comm_get_info", &cmm);
    if (!e.is_ok()) return e;
    if (info_used == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_get_info: info_used is NULL");
    *info_used = c.add_info(cmm->hints);  // a new object the caller frees
    return Error::ok();
  });
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return api::call("MPI_Comm_split", comm,
                   [&](Context& c, Guard& g) { return split(c, g, comm, color, key, newcomm, "MPI_Comm_split"); });
}

namespace {

constexpr const char* kHardwareKey = "mpi_hw_resource_type";

// The new communicator of a hardware split names its level under kHardwareKey.
int name_level(MPI_Comm comm, const std::string& level) {
  if (comm == MPI_COMM_NULL) return MPI_SUCCESS;
  return api::call("MPI_Comm_split_type", comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    Error e = lookup(c, comm, "MPI_Comm_split_type", &cmm);
    if (e.is_ok()) cmm->hints.emplace_back(kHardwareKey, level);
    return e;
  });
}

// The processes of `node` (one node's) holding the same instance of a level as this one;
// MPI_COMM_NULL here when this process's binding spans several instances.
int split_by_instance(MPI_Comm node, int instance, int key, MPI_Comm* out) {
  return PMPI_Comm_split(node, instance < 0 ? MPI_UNDEFINED : instance, key, out);
}

// MPI_COMM_TYPE_HW_GUIDED and HW_UNGUIDED (MPI 4.1 section 7.4.2), and MPI 5.0's
// MPI_COMM_TYPE_RESOURCE_GUIDED (guided by mpi_hw_resource_type as HW_GUIDED; the key
// mpi_pset_name is not acted on: MPI_COMM_NULL, as for any guide not recognised), made of public calls over
// `comm`'s node communicators: the processes of one node whose CPU bindings lie in the same
// object of a hardware level (topology::Placement). Guided, the level is the info key's value
// ("mpi_shared_memory" is MPI_COMM_TYPE_SHARED's split); no info, no key or a level the machine
// lacks give MPI_COMM_NULL. Unguided, the first level from the machine down whose groups are
// strict subsets of `comm` (agreed by an allreduce of the smallest group), MPI_COMM_NULL when no
// level splits `comm`. A process whose binding spans several objects of the level gets
// MPI_COMM_NULL; every new communicator names its level under the info key.
int hardware_split(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_split_type";
  int rc = api::call(call, comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    Error e = lookup(c, comm, call, &cmm);
    if (e.is_ok()) e = api::check_info(c, info, call);
    if (e.is_ok() && newcomm == nullptr) e = error(MPI_ERR_ARG, "%s: rank %d: newcomm is NULL", call, cmm->rank);
    if (e.is_ok() && cmm->is_inter()) {
      e = error(MPI_ERR_COMM, "%s: rank %d: hardware split types take an intracommunicator", call, cmm->rank);
    }
    return e;
  });
  if (rc != MPI_SUCCESS) return rc;
  *newcomm = MPI_COMM_NULL;
  MPI_Comm node;
  rc = PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL, &node);
  if (rc != MPI_SUCCESS) return rc;
  if (split_type != MPI_COMM_TYPE_HW_UNGUIDED) {
    char level[MPI_MAX_INFO_VAL + 1] = "";
    int length = sizeof level, flag = 0;
    if (info != MPI_INFO_NULL) rc = PMPI_Info_get_string(info, kHardwareKey, &length, level, &flag);
    gasket::topology::Placement p;
    if (rc == MPI_SUCCESS && flag && std::strcmp(level, "mpi_shared_memory") == 0) {
      rc = PMPI_Comm_dup(node, newcomm);
    } else if (rc == MPI_SUCCESS && flag && gasket::topology::placement_in(level, &p)) {
      rc = split_by_instance(node, p.instance, key, newcomm);
    }
    if (rc == MPI_SUCCESS && flag) rc = name_level(*newcomm, level);
  } else {
    std::vector<gasket::topology::Placement> levels = gasket::topology::placements();
    int size = 0, depth = static_cast<int>(levels.size()), deepest = 0;
    PMPI_Comm_size(comm, &size);
    rc = PMPI_Allreduce(&depth, &deepest, 1, MPI_INT, MPI_MAX, comm);
    for (int d = 0; rc == MPI_SUCCESS && d < deepest; ++d) {
      MPI_Comm group;
      rc = split_by_instance(node, d < depth ? levels[d].instance : -1, key, &group);
      int mine = size, smallest = size;  // a process in no group leaves the others a strict subset
      if (rc == MPI_SUCCESS) mine = group == MPI_COMM_NULL ? 0 : (PMPI_Comm_size(group, &mine), mine);
      if (rc == MPI_SUCCESS) rc = PMPI_Allreduce(&mine, &smallest, 1, MPI_INT, MPI_MIN, comm);
      if (rc == MPI_SUCCESS && smallest < size) {
        *newcomm = group;
        rc = name_level(group, levels[d].level);
        break;
      }
      if (group != MPI_COMM_NULL) PMPI_Comm_free(&group);
    }
  }
  PMPI_Comm_free(&node);
  return rc;
}

}  // namespace

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  if (split_type == MPI_COMM_TYPE_HW_GUIDED || split_type == MPI_COMM_TYPE_HW_UNGUIDED ||
      split_type == MPI_COMM_TYPE_RESOURCE_GUIDED) {
    return hardware_split(comm, split_type, key, info, newcomm);
  }
  return api::call("MPI_Comm_split_type", comm, [&](Context& c, Guard& g) -> Error {
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED) {
      return error(MPI_ERR_ARG, "MPI_Comm_split_type: split type %d is not MPI_COMM_TYPE_SHARED, "
                   "MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED, MPI_COMM_TYPE_RESOURCE_GUIDED or MPI_UNDEFINED", split_type);
    }
    Error e = api::check_info(c, info, "MPI_Comm_split_type");
    if (!e.is_ok()) return e;
    int color = split_type == MPI_UNDEFINED ? MPI_UNDEFINED : gasket::node_of(gasket::my_pe());
    return split(c, g, comm, color, key, newcomm, "MPI_Comm_split_type");
  });
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return api::call("MPI_Comm_create", comm, [&](Context& c, Guard& g) -> Error {
    cm::Communicator* old;
    GroupPtr grp;
    Error e = lookup(c, comm, "MPI_Comm_create", &old);
    if (e.is_ok()) e = group_of(c, group, "MPI_Comm_create", &grp);
    if (!e.is_ok()) return e;
    if (newcomm == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_create: newcomm is NULL");
    for (int pe : grp->pes) {
      if (old->group->rank_of_pe(pe) == MPI_UNDEFINED) {
        return error(MPI_ERR_GROUP, "MPI_Comm_create: rank %d: the group holds PE %d, which is not in the %s", old->rank,
                     pe, old->is_inter() ? "intercommunicator's local group" : "communicator");
      }
    }
    if (old->is_inter()) return create_inter(c, g, *old, *grp, newcomm);
    cm::Communicator parent = *old;
    gasket::mpi::coll::Agreement agreed = gasket::mpi::coll::agree_with_slot(c, g, parent);
    if (grp->rank_of_pe(gasket::my_pe()) == MPI_UNDEFINED) {
      if (agreed.slot >= 0) c.area().release(agreed.slot);
      *newcomm = MPI_COMM_NULL;
      return Error::ok();
    }
    *newcomm = make_comm(c, grp->pes, agreed.context, parent.errhandler, agreed.slot);
    return Error::ok();
  });
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  return api::call("MPI_Comm_create_group", comm, [&](Context& c, Guard& g) -> Error {
    cm::Communicator* old;
    GroupPtr grp;
    Error e = lookup(c, comm, "MPI_Comm_create_group", &old);
    if (e.is_ok()) e = group_of(c, group, "MPI_Comm_create_group", &grp);
    if (!e.is_ok()) return e;
    if (newcomm == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_create_group: newcomm is NULL");
    if (old->is_inter()) return error(MPI_ERR_COMM, "MPI_Comm_create_group: intercommunicators are not supported");
    if (tag < 0) return error(MPI_ERR_TAG, "MPI_Comm_create_group: tag %d is negative", tag);
    if (grp->rank_of_pe(gasket::my_pe()) == MPI_UNDEFINED) {
      return error(MPI_ERR_GROUP, "MPI_Comm_create_group: rank %d is not in the group (only members call it)",
                   old->rank);
    }
    // Only the group's members take part: they agree among themselves on context + 2 of the
    // parent (unused by intracommunicators), with the user's tag as the messages' tag, so
    // concurrent create_group calls on one parent (overlapping groups, different tags) are told
    // apart. The messages carry the members' ranks in the parent: calls with one tag on
    // different groups, one after the other at some members while others still finish the
    // previous one, never take each other's messages.
    std::vector<int> members;
    for (int pe : grp->pes) {
      int r = old->group->rank_of_pe(pe);
      if (r == MPI_UNDEFINED) {
        return error(MPI_ERR_GROUP, "MPI_Comm_create_group: rank %d: the group holds PE %d, which is not in the "
                     "communicator", old->rank, pe);
      }
      members.push_back(r);
    }
    cm::Communicator among;
    among.group = old->group;
    among.rank = old->rank;
    among.context = old->context + 1;  // collective traffic goes to context + 1 of this
    uint32_t ctx = gasket::mpi::coll::agree_context(c, g, among, tag, &members);
    *newcomm = make_comm(c, grp->pes, ctx, old->errhandler);
    return Error::ok();
  });
}

int PMPI_Comm_free(MPI_Comm* comm) {
  return api::call("MPI_Comm_free", comm ? *comm : MPI_COMM_NULL, [&](Context& c, Guard& g) -> Error {
    if (comm == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_free: comm is NULL");
    cm::Communicator* cmm;
    Error e = lookup(c, *comm, "MPI_Comm_free", &cmm);
    if (!e.is_ok()) return e;
    e = api::delete_attributes(c, g, api::comm_attributes, *comm, "MPI_Comm_free");
    if (!e.is_ok()) return e;
    cmm = c.comms().find(*comm);
    if (cmm == nullptr) {  // freed by one of its own delete callbacks
      *comm = MPI_COMM_NULL;
      return Error::ok();
    }
    bool predefined = *comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF;  // free() refuses them
    if (cmm->coll_slot >= 0 && !predefined) gasket::mpi::coll::shm_retire(c, *cmm);
    return c.comms().free(comm, "MPI_Comm_free");
  });
}

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  return api::call("MPI_Comm_compare", comm1, [&](Context& c, Guard&) -> Error {
    cm::Communicator *a, *b;
    Error e = lookup(c, comm1, "MPI_Comm_compare", &a);
    if (e.is_ok()) e = lookup(c, comm2, "MPI_Comm_compare", &b);
    if (!e.is_ok()) return e;
    if (result == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_compare: result is NULL");
    if (comm1 == comm2) {
      *result = MPI_IDENT;
      return Error::ok();
    }
    int r = compare_groups(*a->group, *b->group);
    if (a->is_inter() != b->is_inter()) r = MPI_UNEQUAL;
    if (r == MPI_IDENT && a->is_inter()) r = compare_groups(*a->remote_group, *b->remote_group);
    *result = r == MPI_IDENT ? MPI_CONGRUENT : r;
    return Error::ok();
  });
}

int PMPI_Comm_set_name(MPI_Comm comm, const char* name) {
  return api::call("MPI_Comm_set_name", comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    Error e = lookup(c, comm, "MPI_Comm_set_name", &cmm);
    if (!e.is_ok()) return e;
    if (name == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_set_name: name is NULL");
    cmm->name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
    return Error::ok();
  });
}

int PMPI_Comm_get_name(MPI_Comm comm, char* name, int* resultlen) {
  if (comm == MPI_COMM_NULL) return api::name_of_null("MPI_Comm_get_name", "MPI_COMM_NULL", name, resultlen);
  return api::call("MPI_Comm_get_name", comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    Error e = lookup(c, comm, "MPI_Comm_get_name", &cmm);
    if (!e.is_ok()) return e;
    if (name == nullptr || resultlen == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_get_name: a NULL argument");
    std::memcpy(name, cmm->name.c_str(), cmm->name.size() + 1);
    *resultlen = static_cast<int>(cmm->name.size());
    return Error::ok();
  });
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  return api::call("MPI_Comm_group", comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    Error e = lookup(c, comm, "MPI_Comm_group", &cmm);
    if (!e.is_ok()) return e;
    if (group == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_group: group is NULL");
    *group = c.comms().add_group(cmm->group);
    return Error::ok();
  });
}

int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  return api::call("MPI_Comm_test_inter", comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    Error e = lookup(c, comm, "MPI_Comm_test_inter", &cmm);
    if (!e.is_ok()) return e;
    if (flag == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_test_inter: flag is NULL");
    *flag = cmm->is_inter() ? 1 : 0;
    return Error::ok();
  });
}

int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  return api::call("MPI_Comm_remote_size", comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    Error e = lookup(c, comm, "MPI_Comm_remote_size", &cmm);
    if (!e.is_ok()) return e;
    if (!cmm->is_inter()) return error(MPI_ERR_COMM, "MPI_Comm_remote_size: not an intercommunicator");
    if (size == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_remote_size: size is NULL");
    *size = static_cast<int>(cmm->remote_group->pes.size());
    return Error::ok();
  });
}

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  return api::call("MPI_Comm_remote_group", comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    Error e = lookup(c, comm, "MPI_Comm_remote_group", &cmm);
    if (!e.is_ok()) return e;
    if (!cmm->is_inter()) return error(MPI_ERR_COMM, "MPI_Comm_remote_group: not an intercommunicator");
    if (group == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_remote_group: group is NULL");
    *group = c.comms().add_group(cmm->remote_group);
    return Error::ok();
  });
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                         MPI_Comm* newintercomm) {
  const char* call = "MPI_Intercomm_create";
  return api::call(call, local_comm, [&](Context& c, Guard& g) -> Error {
    cm::Communicator* local;
    Error e = lookup(c, local_comm, call, &local);
    if (!e.is_ok()) return e;
    if (local->is_inter()) return error(MPI_ERR_COMM, "%s: the local communicator is an intercommunicator", call);
    if (newintercomm == nullptr) return error(MPI_ERR_ARG, "%s: newintercomm is NULL", call);
    if (local_leader < 0 || local_leader >= local->size()) {
      return error(MPI_ERR_RANK, "%s: rank %d: local leader %d is out of range", call, local->rank, local_leader);
    }
    cm::Communicator lc = *local;
    // Leaders: exchange (their group's PEs, the group's largest free context) over peer_comm.
    uint32_t mine = c.comms().next_context();
    std::vector<uint32_t> all(static_cast<size_t>(lc.size()));
    e = gasket::mpi::coll::allgather_bytes(c, g, &mine, sizeof mine, all.data(), lc);
    if (!e.is_ok()) return e;
    uint32_t ctx = *std::max_element(all.begin(), all.end());
    std::vector<int> remote_pes;
    int n_remote = 0;
    if (lc.rank == local_leader) {
      cm::Communicator* peer;
      e = lookup(c, peer_comm, call, &peer);
      if (e.is_ok()) e = api::check_rank(remote_leader, false, call, *peer);
      if (e.is_ok() && remote_leader == MPI_PROC_NULL) e = error(MPI_ERR_RANK, "%s: the remote leader is MPI_PROC_NULL", call);
      if (!e.is_ok()) return e;
      cm::Communicator pc = *peer;
      // Message 1: [ctx, n, pes...] both ways, on the peer communicator's point-to-point context.
      std::vector<int> out{static_cast<int>(ctx), lc.size()};
      out.insert(out.end(), lc.group->pes.begin(), lc.group->pes.end());
      std::vector<int> in(2 + static_cast<size_t>(gasket::n_pes()));
      auto* s = api::new_internal(c, gasket::mpi::p2p::RequestKind::kSend, out.data(),
                                  static_cast<int64_t>(out.size() * sizeof(int)), remote_leader, tag, pc, pc.context);
      auto* r = api::new_internal(c, gasket::mpi::p2p::RequestKind::kRecv, in.data(),
                                  static_cast<int64_t>(in.size() * sizeof(int)), remote_leader, tag, pc, pc.context);
      c.engine().start_recv(r);
      c.engine().start_send(s);
      c.wait(g, [&] { return r->complete && s->complete; });
      c.engine().requests().release(r);
      c.engine().requests().release(s);
      ctx = std::max(ctx, static_cast<uint32_t>(in[0]));
      n_remote = in[1];
      remote_pes.assign(in.begin() + 2, in.begin() + 2 + n_remote);
    }
    // The leader tells its group the context and the remote group.
    std::vector<int> info(2 + static_cast<size_t>(gasket::n_pes()));
    if (lc.rank == local_leader) {
      info[0] = static_cast<int>(ctx);
      info[1] = n_remote;
      std::copy(remote_pes.begin(), remote_pes.end(), info.begin() + 2);
    }
    e = gasket::mpi::coll::bcast_bytes(c, g, info.data(), static_cast<int64_t>(info.size() * sizeof(int)), local_leader, lc);
    if (!e.is_ok()) return e;
    ctx = static_cast<uint32_t>(info[0]);
    c.comms().use_context(ctx);
    cm::Communicator n;
    n.context = ctx;
    n.group = lc.group;
    n.rank = lc.rank;
    n.remote_group = std::make_shared<cm::Group>(cm::Group{std::vector<int>(info.begin() + 2, info.begin() + 2 + info[1])});
    n.errhandler = lc.errhandler;
    *newintercomm = c.comms().add(std::move(n));
    return Error::ok();
  });
}

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  const char* call = "MPI_Intercomm_merge";
  return api::call(call, intercomm, [&](Context& c, Guard& g) -> Error {
    cm::Communicator* ic;
    Error e = lookup(c, intercomm, call, &ic);
    if (!e.is_ok()) return e;
    if (!ic->is_inter()) return error(MPI_ERR_COMM, "%s: not an intercommunicator", call);
    if (newintracomm == nullptr) return error(MPI_ERR_ARG, "%s: newintracomm is NULL", call);
    cm::Communicator inter = *ic;
    // Each side's `high` and its leader's process id: the groups of an intercommunicator between
    // jobs (dynamic processes) number each other's PEs differently, so the tie-break is the
    // leaders' pids there (one machine: gasketrun), and the leaders' PEs within a job.
    int remote_extra = 0, leader_extra = 0;
    uint32_t ctx = agree_inter(c, g, inter, (high ? 1 : 0) | (static_cast<int>(::getpid()) << 1), &remote_extra,
                               &leader_extra);
    int n = gasket::n_pes();
    auto in_job = [n](const std::vector<int>& pes) {
      return std::all_of(pes.begin(), pes.end(), [n](int pe) { return pe < n; });
    };
    bool one_job = in_job(inter.group->pes) && in_job(inter.remote_group->pes);
    // Low group first; with equal `high`, the group of the lower leader first.
    bool mine_first = (leader_extra & 1) != (remote_extra & 1) ? (leader_extra & 1) == 0
                      : one_job ? inter.group->pes[0] < inter.remote_group->pes[0]
                                : (leader_extra >> 1) < (remote_extra >> 1);
    std::vector<int> pes = mine_first ? inter.group->pes : inter.remote_group->pes;
    const std::vector<int>& second = mine_first ? inter.remote_group->pes : inter.group->pes;
    pes.insert(pes.end(), second.begin(), second.end());
    *newintracomm = make_comm(c, std::move(pes), ctx, inter.errhandler);
    return Error::ok();
  });
}

// ---- attributes ----

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* copy_fn, MPI_Comm_delete_attr_function* delete_fn,
                           int* keyval, void* extra_state) {
  return api::call("MPI_Comm_create_keyval", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (keyval == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_create_keyval: keyval is NULL");
    *keyval = c.comms().add_keyval(cm::Keyval{copy_fn, delete_fn, extra_state, false, cm::KeyvalKind::kComm});
    return Error::ok();
  });
}

int PMPI_Comm_free_keyval(int* keyval) {
  return api::call("MPI_Comm_free_keyval", MPI_COMM_WORLD,
                   [&](Context& c, Guard&) { return api::free_keyval(c, keyval, cm::KeyvalKind::kComm, "MPI_Comm_free_keyval"); });
}

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void* value) {
  return api::call("MPI_Comm_set_attr", comm, [&](Context& c, Guard& g) -> Error {
    cm::Communicator* cmm;
    cm::Keyval* k;
    Error e = lookup(c, comm, "MPI_Comm_set_attr", &cmm);
    if (e.is_ok() && keyval <= MPI_LASTUSEDCODE) {
      e = error(MPI_ERR_KEYVAL, "MPI_Comm_set_attr: keyval %d is predefined and read-only", keyval);
    }
    if (e.is_ok()) e = c.comms().lookup_keyval(keyval, cm::KeyvalKind::kComm, cmm->rank, "MPI_Comm_set_attr", &k);
    if (!e.is_ok()) return e;
    if (cmm->attributes.count(keyval)) {
      e = api::delete_attribute(c, g, api::comm_attributes, comm, keyval, "MPI_Comm_set_attr");
      if (e.is_ok()) e = lookup(c, comm, "MPI_Comm_set_attr", &cmm);  // the callback may free it
      if (!e.is_ok()) return e;
    }
    cmm->attributes[keyval] = value;
    return Error::ok();
  });
}

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* value, int* flag) {
  return api::call("MPI_Comm_get_attr", comm, [&](Context& c, Guard&) -> Error {
    cm::Communicator* cmm;
    Error e = lookup(c, comm, "MPI_Comm_get_attr", &cmm);
    if (!e.is_ok()) return e;
    if (value == nullptr || flag == nullptr) return error(MPI_ERR_ARG, "MPI_Comm_get_attr: a NULL argument");
    if (keyval >= MPI_TAG_UB && keyval <= MPI_LASTUSEDCODE) {
      // Predefined: the value is a pointer to an int owned by the library.
      static const int kValues[] = {0, kTagUb, MPI_PROC_NULL, MPI_ANY_SOURCE, 0, 0, 0, MPI_ERR_LASTCODE};
      if (keyval == MPI_APPNUM) {
        *static_cast<void**>(value) = c.appnum();
      } else if (keyval == MPI_UNIVERSE_SIZE) {
        *static_cast<void**>(value) = c.universe_size();
      } else if (keyval == MPI_LASTUSEDCODE) {
        *static_cast<void**>(value) = const_cast<int*>(c.user_errors().last_used());
      } else {
        *static_cast<void**>(value) = const_cast<int*>(&kValues[keyval]);
      }
      *flag = 1;
      return Error::ok();
    }
    auto it = cmm->attributes.find(keyval);
    cm::Keyval* k;
    e = c.comms().lookup_keyval(keyval, cm::KeyvalKind::kComm, cmm->rank, "MPI_Comm_get_attr", &k,
                               it != cmm->attributes.end());
    if (!e.is_ok()) return e;
    *flag = it != cmm->attributes.end();
    if (*flag) *static_cast<void**>(value) = it->second;
    return Error::ok();
  });
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval) {
  return api::call("MPI_Comm_delete_attr", comm, [&](Context& c, Guard& g) -> Error {
    cm::Communicator* cmm;
    cm::Keyval* k;
    Error e = lookup(c, comm, "MPI_Comm_delete_attr", &cmm);
    if (e.is_ok()) e = c.comms().lookup_keyval(keyval, cm::KeyvalKind::kComm, cmm->rank, "MPI_Comm_delete_attr", &k, true);
    if (!e.is_ok()) return e;
    return api::delete_attribute(c, g, api::comm_attributes, comm, keyval, "MPI_Comm_delete_attr");
  });
}

// ---- groups ----

int PMPI_Group_size(MPI_Group group, int* size) {
  return api::call("MPI_Group_size", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    GroupPtr g;
    Error e = group_of(c, group, "MPI_Group_size", &g);
    if (!e.is_ok()) return e;
    if (size == nullptr) return error(MPI_ERR_ARG, "MPI_Group_size: size is NULL");
    *size = static_cast<int>(g->pes.size());
    return Error::ok();
  });
}

int PMPI_Group_rank(MPI_Group group, int* rank) {
  return api::call("MPI_Group_rank", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    GroupPtr g;
    Error e = group_of(c, group, "MPI_Group_rank", &g);
    if (!e.is_ok()) return e;
    if (rank == nullptr) return error(MPI_ERR_ARG, "MPI_Group_rank: rank is NULL");
    *rank = g->rank_of_pe(gasket::my_pe());
    return Error::ok();
  });
}

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
  return api::call("MPI_Group_translate_ranks", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    GroupPtr a, b;
    Error e = group_of(c, group1, "MPI_Group_translate_ranks", &a);
    if (e.is_ok()) e = group_of(c, group2, "MPI_Group_translate_ranks", &b);
    if (!e.is_ok()) return e;
    if (n < 0) return error(MPI_ERR_ARG, "MPI_Group_translate_ranks: n %d is negative", n);
    if (n > 0 && (ranks1 == nullptr || ranks2 == nullptr)) {
      return error(MPI_ERR_ARG, "MPI_Group_translate_ranks: %s is NULL (n = %d)", ranks1 == nullptr ? "ranks1" : "ranks2",
                   n);
    }
    for (int i = 0; i < n; ++i) {
      if (ranks1[i] == MPI_PROC_NULL) {
        ranks2[i] = MPI_PROC_NULL;
        continue;
      }
      e = check_ranks(*a, 1, &ranks1[i], "MPI_Group_translate_ranks", false);
      if (!e.is_ok()) return e;
      ranks2[i] = b->rank_of_pe(a->pes[static_cast<size_t>(ranks1[i])]);
    }
    return Error::ok();
  });
}

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  return api::call("MPI_Group_compare", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    GroupPtr a, b;
    Error e = group_of(c, group1, "MPI_Group_compare", &a);
    if (e.is_ok()) e = group_of(c, group2, "MPI_Group_compare", &b);
    if (!e.is_ok()) return e;
    if (result == nullptr) return error(MPI_ERR_ARG, "MPI_Group_compare: result is NULL");
    *result = compare_groups(*a, *b);
    return Error::ok();
  });
}

}  // extern "C" (helpers below have internal linkage, not C linkage)
namespace {
// union / intersection / difference: order from the first group, then the second (MPI's rule).
int set_op(const char* call, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup, int op) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    GroupPtr a, b;
    Error e = group_of(c, group1, call, &a);
    if (e.is_ok()) e = group_of(c, group2, call, &b);
    if (!e.is_ok()) return e;
    if (newgroup == nullptr) return error(MPI_ERR_ARG, "%s: newgroup is NULL", call);
    std::vector<int> out;
    for (int pe : a->pes) {
      bool in_b = b->rank_of_pe(pe) != MPI_UNDEFINED;
      if (op == 0 || (op == 1 && in_b) || (op == 2 && !in_b)) out.push_back(pe);
    }
    if (op == 0) {
      for (int pe : b->pes) {
        if (a->rank_of_pe(pe) == MPI_UNDEFINED) out.push_back(pe);
      }
    }
    new_group(c, std::move(out), newgroup);
    return Error::ok();
  });
}

int select(const char* call, MPI_Group group, int n, const int* ranks, int (*ranges)[3], bool by_ranges,
           bool include, MPI_Group* newgroup) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    GroupPtr g;
    Error e = group_of(c, group, call, &g);
    if (!e.is_ok()) return e;
    if (newgroup == nullptr) return error(MPI_ERR_ARG, "%s: newgroup is NULL", call);
    std::vector<int> chosen;
    if (ranges == nullptr && ranks == nullptr && n > 0) {
      return error(MPI_ERR_ARG, "%s: the %s array is NULL (n = %d)", call, by_ranges ? "ranges" : "ranks", n);
    }
    if (by_ranges) {
      e = expand_ranges(*g, n, ranges, call, &chosen);
    } else {
      e = check_ranks(*g, n, ranks, call, true);
      if (e.is_ok()) chosen.assign(ranks, ranks + n);
    }
    if (!e.is_ok()) return e;
    std::vector<int> out;
    if (include) {
      for (int r : chosen) out.push_back(g->pes[static_cast<size_t>(r)]);
    } else {
      std::set<int> drop(chosen.begin(), chosen.end());
      for (size_t r = 0; r < g->pes.size(); ++r) {
        if (!drop.count(static_cast<int>(r))) out.push_back(g->pes[r]);
      }
    }
    new_group(c, std::move(out), newgroup);
    return Error::ok();
  });
}
}  // namespace
extern "C" {

int PMPI_Group_union(MPI_Group a, MPI_Group b, MPI_Group* n) { return set_op("MPI_Group_union", a, b, n, 0); }
int PMPI_Group_intersection(MPI_Group a, MPI_Group b, MPI_Group* n) {
  return set_op("MPI_Group_intersection", a, b, n, 1);
}
int PMPI_Group_difference(MPI_Group a, MPI_Group b, MPI_Group* n) { return set_op("MPI_Group_difference", a, b, n, 2); }
int PMPI_Group_incl(MPI_Group g, int n, const int ranks[], MPI_Group* out) {
  return select("MPI_Group_incl", g, n, ranks, nullptr, false, true, out);
}
int PMPI_Group_excl(MPI_Group g, int n, const int ranks[], MPI_Group* out) {
  return select("MPI_Group_excl", g, n, ranks, nullptr, false, false, out);
}
int PMPI_Group_range_incl(MPI_Group g, int n, int ranges[][3], MPI_Group* out) {
  return select("MPI_Group_range_incl", g, n, nullptr, ranges, true, true, out);
}
int PMPI_Group_range_excl(MPI_Group g, int n, int ranges[][3], MPI_Group* out) {
  return select("MPI_Group_range_excl", g, n, nullptr, ranges, true, false, out);
}
int PMPI_Group_free(MPI_Group* group) {
  return api::call("MPI_Group_free", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (group == nullptr) return error(MPI_ERR_ARG, "MPI_Group_free: group is NULL");
    return c.comms().free_group(group, "MPI_Group_free");
  });
}

}  // extern "C"
