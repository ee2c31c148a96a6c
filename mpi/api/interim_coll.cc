// INTERIM collectives over point-to-point, for the test programs of issue 7: MPI_Barrier,
// MPI_Bcast, MPI_Reduce and MPI_Allreduce. To be replaced by core/coll (issue 8). They use the
// communicator's collective context (context + 1), so they never match user messages.
#include <algorithm>
#include <cstring>
#include <vector>

#include "mpi/api/interim_coll.h"

#include "mpi.h"
#include "mpi/api/requests.h"
#include "mpi/op/op.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
using gasket::mpi::p2p::Request;
using gasket::mpi::p2p::RequestKind;
namespace api = gasket::mpi::api;
namespace cm = gasket::mpi::comm;
namespace op = gasket::mpi::op;

namespace {

constexpr int kBarrierTag = 1, kBcastTag = 2, kReduceTag = 3, kGatherTag = 4;

// Blocking transfer on the collective context.
void transfer(Context& c, Guard& g, RequestKind kind, void* buf, int64_t bytes, int peer, int tag,
              const cm::Communicator& comm) {
  Request* r = api::new_internal(c, kind, buf, bytes, peer, tag, comm, comm.context + 1);
  if (kind == RequestKind::kSend) {
    c.engine().start_send(r);
  } else {
    c.engine().start_recv(r);
  }
  c.wait(g, [r] { return r->complete; });
  c.engine().requests().release(r);
}

Error intra(Context& c, MPI_Comm handle, const char* call, cm::Communicator** comm) {
  Error e = api::check_comm(c, handle, call, comm);
  if (e.is_ok() && (*comm)->is_inter()) {
    return error(MPI_ERR_COMM, "%s: intercommunicators are not supported by the interim collectives", call);
  }
  return e;
}

// Linear reduce to `root` (rank order, so non-commutative use stays deterministic).
Error reduce(Context& c, Guard& g, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
             int root, const cm::Communicator& comm, const char* call) {
  const gasket::mpi::datatype::Datatype* t;
  Error e = api::check_count(count, call, comm);
  if (e.is_ok()) e = api::check_type(c, type, call, comm, &t);
  if (!e.is_ok()) return e;
  if (root < 0 || root >= comm.size()) {
    return error(MPI_ERR_ROOT, "%s: rank %d: root %d is out of range (%d ranks)", call, comm.rank, root, comm.size());
  }
  if (!t->predefined) {
    return error(MPI_ERR_TYPE, "%s: rank %d: the interim reductions take predefined types only", call, comm.rank);
  }
  int64_t bytes = count * t->extent();
  const void* mine = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
  if (comm.rank != root) {
    transfer(c, g, RequestKind::kSend, const_cast<void*>(mine), bytes, root, kReduceTag, comm);
    return Error::ok();
  }
  std::vector<char> acc(static_cast<size_t>(bytes)), in(static_cast<size_t>(bytes));
  for (int r = comm.size() - 1; r >= 0; --r) {  // acc = x0 op (x1 op (... op x_{n-1}))
    const void* part = mine;
    if (r != root) {
      transfer(c, g, RequestKind::kRecv, in.data(), bytes, r, kReduceTag, comm);
      part = in.data();
    }
    if (r == comm.size() - 1) {
      std::memcpy(acc.data(), part, static_cast<size_t>(bytes));
    } else {
      std::vector<char> x(static_cast<const char*>(part), static_cast<const char*>(part) + bytes);
      if (!op::apply_predefined(op, type, acc.data(), x.data(), count)) {
        return error(MPI_ERR_OP, "%s: rank %d: operation %d is not defined for %s", call, comm.rank, op,
                     t->name.c_str());
      }
      acc.swap(x);
    }
  }
  std::memcpy(recvbuf, acc.data(), static_cast<size_t>(bytes));
  return Error::ok();
}

}  // namespace

namespace gasket::mpi::api {

Error coll_bcast(Context& c, Guard& g, void* buf, int64_t bytes, int root, const cm::Communicator& comm) {
  // Binomial tree rooted at `root`.
  int n = comm.size(), me = (comm.rank - root + n) % n;
  int mask = 1;
  while (mask < n) {
    if (me & mask) {
      transfer(c, g, RequestKind::kRecv, buf, bytes, (me - mask + root) % n, kBcastTag, comm);
      break;
    }
    mask <<= 1;
  }
  mask >>= 1;
  while (mask > 0) {
    if (me + mask < n) transfer(c, g, RequestKind::kSend, buf, bytes, (me + mask + root) % n, kBcastTag, comm);
    mask >>= 1;
  }
  return Error::ok();
}

Error coll_allgather(Context& c, Guard& g, const void* mine, int64_t bytes, void* all, const cm::Communicator& comm) {
  char* out = static_cast<char*>(all);
  std::memcpy(out + comm.rank * bytes, mine, static_cast<size_t>(bytes));
  if (comm.rank == 0) {
    for (int r = 1; r < comm.size(); ++r) transfer(c, g, RequestKind::kRecv, out + r * bytes, bytes, r, kGatherTag, comm);
  } else {
    transfer(c, g, RequestKind::kSend, const_cast<void*>(mine), bytes, 0, kGatherTag, comm);
  }
  return coll_bcast(c, g, all, bytes * comm.size(), 0, comm);
}

uint32_t agree_context(Context& c, Guard& g, const cm::Communicator& comm) {
  uint32_t mine = c.comms().next_context();
  std::vector<uint32_t> all(static_cast<size_t>(comm.size()));
  (void)coll_allgather(c, g, &mine, sizeof mine, all.data(), comm);
  uint32_t agreed = *std::max_element(all.begin(), all.end());
  c.comms().use_context(agreed);
  return agreed;
}

}  // namespace gasket::mpi::api

namespace {
using api::coll_bcast;
}  // namespace

extern "C" {

int MPI_Barrier(MPI_Comm comm) {
  return api::call("MPI_Barrier", comm, [&](Context& c, Guard& g) -> Error {
    cm::Communicator* cmm;
    Error e = intra(c, comm, "MPI_Barrier", &cmm);
    if (!e.is_ok()) return e;
    // Dissemination: round k exchanges a zero-byte message with rank +/- 2^k.
    int n = cmm->size();
    for (int k = 1; k < n; k <<= 1) {
      Request* s = api::new_internal(c, RequestKind::kSend, nullptr, 0, (cmm->rank + k) % n, kBarrierTag, *cmm,
                                     cmm->context + 1);
      Request* r = api::new_internal(c, RequestKind::kRecv, nullptr, 0, (cmm->rank - k + n) % n, kBarrierTag, *cmm,
                                     cmm->context + 1);
      c.engine().start_recv(r);
      c.engine().start_send(s);
      c.wait(g, [&] { return r->complete && s->complete; });
      c.engine().requests().release(r);
      c.engine().requests().release(s);
    }
    return Error::ok();
  });
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return api::call("MPI_Bcast", comm, [&](Context& c, Guard& g) -> Error {
    cm::Communicator* cmm;
    const gasket::mpi::datatype::Datatype* t;
    Error e = intra(c, comm, "MPI_Bcast", &cmm);
    if (e.is_ok()) e = api::check_count(count, "MPI_Bcast", *cmm);
    if (e.is_ok()) e = api::check_type(c, datatype, "MPI_Bcast", *cmm, &t);
    if (e.is_ok() && (root < 0 || root >= cmm->size())) {
      e = error(MPI_ERR_ROOT, "MPI_Bcast: rank %d: root %d is out of range (%d ranks)", cmm->rank, root, cmm->size());
    }
    if (!e.is_ok()) return e;
    std::vector<char> packed(static_cast<size_t>(count * t->size));
    if (cmm->rank == root) gasket::mpi::datatype::pack(*t, buffer, count, packed.data());
    e = coll_bcast(c, g, packed.data(), static_cast<int64_t>(packed.size()), root, *cmm);
    if (cmm->rank != root) gasket::mpi::datatype::unpack(*t, packed.data(), static_cast<int64_t>(packed.size()), buffer, count);
    return e;
  });
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm) {
  return api::call("MPI_Reduce", comm, [&](Context& c, Guard& g) -> Error {
    cm::Communicator* cmm;
    Error e = intra(c, comm, "MPI_Reduce", &cmm);
    if (!e.is_ok()) return e;
    return reduce(c, g, sendbuf, recvbuf, count, datatype, op, root, *cmm, "MPI_Reduce");
  });
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return api::call("MPI_Allreduce", comm, [&](Context& c, Guard& g) -> Error {
    cm::Communicator* cmm;
    Error e = intra(c, comm, "MPI_Allreduce", &cmm);
    if (!e.is_ok()) return e;
    e = reduce(c, g, sendbuf, recvbuf, count, datatype, op, 0, *cmm, "MPI_Allreduce");
    if (!e.is_ok()) return e;
    const gasket::mpi::datatype::Datatype* t;
    (void)c.types().lookup(datatype, "", &t);
    return coll_bcast(c, g, recvbuf, count * t->extent(), 0, *cmm);
  });
}

}  // extern "C"
