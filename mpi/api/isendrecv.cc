// MPI_Isendrecv and MPI_Isendrecv_replace (MPI 4.0), with their _c forms: one request over an
// internal send and receive, both started at the call (so they overlap with the caller's work and
// each other); it completes when both have, with the receive's status. The replace form sends a
// packed copy of the buffer, so the receive may land in the buffer at any time.
#include <utility>
#include <vector>

#include "mpi.h"
#include "mpi/api/requests.h"
#include "mpi/bindings/large_count.h"

using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
using gasket::mpi::p2p::Request;
using gasket::mpi::p2p::RequestKind;
using gasket::mpi::p2p::SendMode;
namespace api = gasket::mpi::api;

namespace {

class SendrecvOperation final : public gasket::mpi::p2p::Operation {
 public:
  SendrecvOperation(Context& c, Request* self, Request* send, Request* recv, std::vector<char> outgoing,
                    const char* call)
      : c_(c), self_(self), send_(send), recv_(recv), outgoing_(std::move(outgoing)), call_(call) {}
  bool progress(Error* e) override {
    if (!send_->complete || !recv_->complete) return false;
    // Progress runs inside an MPI call of this thread: the guard is re-entrant.
    Guard nested(c_);
    MPI_Request hs = send_->handle, hr = recv_->handle;
    MPI_Status status;
    Error failure;
    api::conclude(c_, nested, &hs, send_, MPI_STATUS_IGNORE, &failure, call_);
    api::conclude(c_, nested, &hr, recv_, &status, &failure, call_);
    self_->status_source = status.MPI_SOURCE;
    self_->status_tag = status.MPI_TAG;
    self_->status_bytes = status.gasket_bytes;
    *e = failure;
    return true;
  }

 private:
  Context& c_;
  Request* self_;
  Request *send_, *recv_;
  std::vector<char> outgoing_;  // the replace form's packed copy, until the send completes
  const char* call_;
};

// Starts the pair and the request joining them. sendbuf null: the replace form (sends a copy of
// recvbuf's recvcount elements of recvtype).
Error isendrecv(Context& c, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                MPI_Request* request, bool replace, const char* call) {
  if (request == nullptr) return error(MPI_ERR_ARG, "%s: the request argument is NULL", call);
  Request *s, *r;
  Error e = api::new_request(c, RequestKind::kRecv, SendMode::kStandard, recvbuf, recvcount, recvtype, source, recvtag,
                             comm, false, call, &r);
  if (!e.is_ok()) return e;
  std::vector<char> outgoing;
  if (replace) {
    outgoing.resize(static_cast<size_t>(recvcount * r->type->size));
    gasket::mpi::datatype::pack(*r->type, recvbuf, recvcount, outgoing.data());
    sendbuf = outgoing.data(), sendcount = static_cast<MPI_Count>(outgoing.size()), sendtype = MPI_BYTE;
  }
  e = api::new_request(c, RequestKind::kSend, SendMode::kStandard, sendbuf, sendcount, sendtype, dest, sendtag, comm,
                       false, call, &s);
  if (!e.is_ok()) {
    c.engine().requests().release(r);
    return e;
  }
  e = api::start(c, r, call);
  if (e.is_ok()) e = api::start(c, s, call);
  if (!e.is_ok()) return e;
  Request* joined = c.engine().requests().create(RequestKind::kOperation);
  joined->comm = comm;
  joined->operation = std::make_unique<SendrecvOperation>(c, joined, s, r, std::move(outgoing), call);
  c.engine().start_operation(joined);
  *request = joined->handle;
  return Error::ok();
}

}  // namespace

namespace gasket::mpi::large_count {

int Isendrecv(const char* call, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
              int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
              MPI_Comm comm, MPI_Request* request) {
  return api::call(call, comm, [&](Context& c, Guard&) {
    return isendrecv(c, sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                     comm, request, false, call);
  });
}
int Isendrecv_replace(const char* call, void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                      int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return api::call(call, comm, [&](Context& c, Guard&) {
    return isendrecv(c, nullptr, 0, datatype, dest, sendtag, buf, count, datatype, source, recvtag, comm, request, true,
                     call);
  });
}

}  // namespace gasket::mpi::large_count
