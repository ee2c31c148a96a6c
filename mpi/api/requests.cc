#include "mpi/api/requests.h"

#include <cstring>

namespace gasket::mpi::api {

using p2p::Request;
using p2p::RequestKind;
using p2p::SendMode;

Error new_request(Context& c, RequestKind kind, SendMode mode, const void* buf, MPI_Count count, MPI_Datatype datatype,
                  int peer, int tag, MPI_Comm comm_handle, bool persistent, const char* call, Request** out) {
  bool recv = kind == RequestKind::kRecv;
  comm::Communicator* comm;
  const datatype::Datatype* type;
  if (!valid_arguments(c, recv, buf, count, datatype, peer, tag, comm_handle, &comm, &type)) {
    Error e = check_comm(c, comm_handle, call, &comm);
    if (e.is_ok()) e = check_count(count, call, *comm);
    if (e.is_ok()) e = check_type(c, datatype, count, call, *comm, &type);
    if (e.is_ok()) e = check_buffer(buf, count, *type, call, *comm);
    if (e.is_ok()) e = check_rank(peer, recv, call, *comm);
    if (e.is_ok()) e = check_tag(tag, recv, call, *comm);
    if (!e.is_ok()) return e;
  }
  *out = make_request(c, kind, mode, buf, count, *type, datatype, peer, tag, comm_handle, *comm, persistent);
  return Error::ok();
}

Request* new_internal(Context& c, RequestKind kind, void* buf, int64_t bytes, int peer_rank, int tag,
                      const comm::Communicator& comm, uint32_t context) {
  Request* r = c.engine().requests().create(kind);
  const datatype::Datatype* byte_type = nullptr;
  (void)c.types().lookup(MPI_BYTE, "", &byte_type);
  r->buf = buf;
  r->count = bytes;
  r->type = byte_type;
  r->type_handle = MPI_BYTE;
  r->context = context;
  r->peer_rank = peer_rank;
  r->peer_pe = comm.peers().pes[static_cast<size_t>(peer_rank)];
  r->tag = tag;
  r->my_rank = comm.rank;
  return r;
}

namespace {
// Copies the data into the attached buffer and sends it from there as an internal request;
// the user's request is complete at once.
Error start_buffered(Context& c, Request* r, const char* call) {
  int64_t bytes = r->count * r->type->size;
  BsendBuffers& buffers = c.bsend_buffers();
  const comm::Communicator* cm = c.comms().find(r->comm);
  BsendBuffers::Owner owner = buffers.owner_for(r->comm, cm != nullptr ? cm->session : MPI_SESSION_NULL);
  char* block = buffers.allocate(owner, static_cast<size_t>(bytes));
  if (block == nullptr) {
    return error(MPI_ERR_BUFFER, "%s: rank %d: the attached buffer (%s) has no room for a %lld-byte message%s", call,
                 r->my_rank, buffers.describe(owner).c_str(), static_cast<long long>(bytes),
                 buffers.attached(owner) ? "" : " (no buffer is attached: MPI_Buffer_attach)");
  }
  datatype::pack(*r->type, r->buf, r->count, block);
  Request* inner = c.engine().requests().create(RequestKind::kSend);
  const datatype::Datatype* byte_type = nullptr;
  (void)c.types().lookup(MPI_BYTE, "", &byte_type);
  inner->buf = block;
  inner->count = bytes;
  inner->type = byte_type;
  inner->type_handle = MPI_BYTE;
  inner->comm = r->comm;
  inner->context = r->context;
  inner->peer_rank = r->peer_rank;
  inner->peer_pe = r->peer_pe;
  inner->tag = r->tag;
  inner->my_rank = r->my_rank;
  inner->user_owned = false;
  inner->bsend_block = block;
  c.engine().start_send(inner);
  r->active = true;
  r->complete = true;
  return Error::ok();
}
}  // namespace

Error start(Context& c, Request* r, const char* call) {
  if (r->persistent && r->active) {
    return error(MPI_ERR_REQUEST, "%s: rank %d: persistent request %d is already active", call, r->my_rank, r->handle);
  }
  r->status_error = MPI_SUCCESS;
  r->cancelled = false;
  if (r->proc_null) {
    r->active = true;
    r->complete = true;
    r->status_source = MPI_PROC_NULL;
    r->status_tag = MPI_ANY_TAG;
    r->status_bytes = 0;
    return Error::ok();
  }
  if (r->kind == RequestKind::kRecv) {
    c.engine().start_recv(r);
    return Error::ok();
  }
  if (r->kind == RequestKind::kOperation) {  // a persistent operation (partitioned, collective): its next round
    Error e = r->operation->restart(call);
    if (e.is_ok()) c.engine().start_operation(r);
    return e;
  }
  if (r->mode == SendMode::kBuffered) return start_buffered(c, r, call);
  c.engine().start_send(r);
  return Error::ok();
}

Error request_not_found(MPI_Request handle, const char* call) {
  const char* why = is_kind(handle, HandleKind::kRequest) ? "never created, or already completed or freed"
                                                            : why_not_found(HandleKind::kRequest, handle);
  return error(MPI_ERR_REQUEST, "%s: %d is not an active request (%s)", call, handle, why);
}

Error truncation_error(const char* call, int my_rank, int64_t message_bytes, int source, int tag, int64_t capacity) {
  return error(MPI_ERR_TRUNCATE,
               "%s: rank %d: a %lld-byte message from rank %d (tag %d) was truncated to the %lld-byte receive buffer",
               call, my_rank, static_cast<long long>(message_bytes), source, tag, static_cast<long long>(capacity));
}

int conclude(Context& c, Guard& g, MPI_Request* handle, Request* r, MPI_Status* status, Error* err, const char* call) {
  int code = r->status_error;
  if (r->kind == RequestKind::kGeneralized) {
    MPI_Status local{};
    MPI_Status* st = status != MPI_STATUS_IGNORE ? status : &local;
    empty_status(st);
    code = c.run_callback(g, [&] { return r->query_fn(r->extra_state, st); });
    int free_code = c.run_callback(g, [&] { return r->free_fn(r->extra_state); });
    if (code == MPI_SUCCESS) code = free_code;
    if (code != MPI_SUCCESS) *err = error(code, "%s: the generalized request's query or free function returned %d", call, code);
    c.engine().requests().release(r);
    *handle = MPI_REQUEST_NULL;
    return code;
  }
  if (r->kind == RequestKind::kOperation) {  // the status an operation recorded (MPI_Isendrecv's receive), else empty
    fill_status(status, r->status_source, r->status_tag, r->status_bytes, false);
    if (code != MPI_SUCCESS) *err = r->operation_error;
  } else if (r->kind == RequestKind::kSend && !r->proc_null) {
    fill_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, r->cancelled);
  } else {
    fill_status(status, r->status_source, r->status_tag, r->status_bytes, r->cancelled);
  }
  if (code == MPI_ERR_TRUNCATE) {
    *err = truncation_error(call, r->my_rank, r->message_bytes, r->status_source, r->status_tag, r->capacity);
  }
  if (r->persistent) {
    r->active = false;
  } else {
    c.engine().requests().release(r);
    *handle = MPI_REQUEST_NULL;
  }
  return code;
}

}  // namespace gasket::mpi::api
