// The buffers of buffered sends per process, communicator and session (MPI 4.1 section 3.6.1):
// MPI_Comm_attach_buffer/detach_buffer (int and _c), MPI_Buffer_flush/iflush,
// MPI_Comm_flush_buffer/iflush_buffer, and the detach, flush and iflush the session forms share
// (their bindings are in session.cc, which owns the session's error path). MPI_Buffer_attach/
// detach are in p2p.cc. The buffers themselves: mpi/context/bsend_buffers.h.
#include <memory>

#include "mpi.h"
#include "mpi/api/call.h"
#include "mpi/api/requests.h"
#include "mpi/bindings/large_count.h"

using gasket::mpi::BsendBuffers;
using gasket::mpi::Context;
using gasket::mpi::Error;
using gasket::mpi::Guard;
using gasket::mpi::error;
using gasket::mpi::p2p::Request;
using gasket::mpi::p2p::RequestKind;
namespace api = gasket::mpi::api;

namespace {

// The request of an iflush: complete once no message of the owner's buffer is left in it.
class FlushOperation : public gasket::mpi::p2p::Operation {
 public:
  FlushOperation(Context& c, BsendBuffers::Owner owner) : c_(c), owner_(owner) {}
  bool progress(Error*) override { return c_.bsend_buffers().in_use(owner_) == 0; }

 private:
  Context& c_;
  BsendBuffers::Owner owner_;
};

Error comm_owner(Context& c, MPI_Comm comm, const char* call, BsendBuffers::Owner* owner) {
  gasket::mpi::comm::Communicator* cm;
  Error e = api::check_comm(c, comm, call, &cm);
  *owner = BsendBuffers::of_comm(comm);
  return e;
}

}  // namespace

namespace gasket::mpi::api {

Error detach_buffer(Context& c, Guard& g, BsendBuffers::Owner owner, void* buffer_addr, MPI_Count* size,
                    const char* call) {
  if (buffer_addr == nullptr || size == nullptr) return error(MPI_ERR_ARG, "%s: a NULL argument", call);
  // Blocks until every message buffered there has left the buffer.
  c.wait(g, [&] { return c.bsend_buffers().in_use(owner) == 0; });
  c.bsend_buffers().detach(owner, static_cast<void**>(buffer_addr), size);
  return Error::ok();
}

Error flush_buffer(Context& c, Guard& g, BsendBuffers::Owner owner) {
  c.wait(g, [&] { return c.bsend_buffers().in_use(owner) == 0; });
  return Error::ok();
}

Error iflush_buffer(Context& c, BsendBuffers::Owner owner, MPI_Request* request, const char* call) {
  if (request == nullptr) return error(MPI_ERR_ARG, "%s: the request argument is NULL", call);
  Request* r = c.engine().requests().create(RequestKind::kOperation);
  r->comm = owner.scope == BsendBuffers::Scope::kComm ? owner.handle : MPI_COMM_WORLD;
  r->operation = std::make_unique<FlushOperation>(c, owner);
  c.engine().start_operation(r);
  *request = r->handle;
  return Error::ok();
}

}  // namespace gasket::mpi::api

namespace gasket::mpi::large_count {

int Comm_attach_buffer(const char* call, MPI_Comm comm, void* buffer, MPI_Count size) {
  return api::call(call, comm, [&](Context& c, Guard&) -> Error {
    BsendBuffers::Owner owner;
    Error e = comm_owner(c, comm, call, &owner);
    return e.is_ok() ? c.bsend_buffers().attach(owner, buffer, size, call) : e;
  });
}

int Comm_detach_buffer(const char* call, MPI_Comm comm, void* buffer_addr, MPI_Count* size) {
  return api::call(call, comm, [&](Context& c, Guard& g) -> Error {
    BsendBuffers::Owner owner;
    Error e = comm_owner(c, comm, call, &owner);
    return e.is_ok() ? api::detach_buffer(c, g, owner, buffer_addr, size, call) : e;
  });
}

}  // namespace gasket::mpi::large_count

extern "C" {

int PMPI_Buffer_flush(void) {
  return api::call("MPI_Buffer_flush", MPI_COMM_WORLD, [&](Context& c, Guard& g) -> Error {
    return api::flush_buffer(c, g, BsendBuffers::process());
  });
}

int PMPI_Buffer_iflush(MPI_Request* request) {
  return api::call("MPI_Buffer_iflush", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    return api::iflush_buffer(c, BsendBuffers::process(), request, "MPI_Buffer_iflush");
  });
}

int PMPI_Comm_flush_buffer(MPI_Comm comm) {
  const char* call = "MPI_Comm_flush_buffer";
  return api::call(call, comm, [&](Context& c, Guard& g) -> Error {
    BsendBuffers::Owner owner;
    Error e = comm_owner(c, comm, call, &owner);
    return e.is_ok() ? api::flush_buffer(c, g, owner) : e;
  });
}

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request* request) {
  const char* call = "MPI_Comm_iflush_buffer";
  return api::call(call, comm, [&](Context& c, Guard&) -> Error {
    BsendBuffers::Owner owner;
    Error e = comm_owner(c, comm, call, &owner);
    return e.is_ok() ? api::iflush_buffer(c, owner, request, call) : e;
  });
}

}  // extern "C"
