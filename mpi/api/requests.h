// Requests as the bindings see them: creation with argument checks, start (standard, sync,
// ready and buffered modes, MPI_PROC_NULL), and concluding a completed request for the user
// (status, persistent deactivation, generalized-request callbacks, release).
#pragma once

#include <vector>

#include "mpi.h"
#include "mpi/api/call.h"
#include "mpi/p2p/engine.h"
#include "mpi/p2p/request.h"

namespace gasket::mpi::api {

// The common case's argument check, without building Error values: true (and the communicator
// and committed type behind the handles) when every argument of a send (peer = destination) or
// receive (peer = source) is valid; false: new_request's checks explain what is wrong.
// Inline: every send and receive call starts with it (the callers' constant `recv` folds away).
[[gnu::always_inline]] inline bool valid_arguments(Context& c, bool recv, const void* buf, MPI_Count count,
                                                   MPI_Datatype datatype, int peer, int tag, MPI_Comm comm_handle,
                                                   comm::Communicator** cm, const datatype::Datatype** type) {
  comm::Communicator* comm = *cm = c.comms().find(comm_handle);
  const datatype::Datatype* t = *type = c.types().find_committed(datatype);
  return comm != nullptr && t != nullptr && count >= 0 && (buf != nullptr || count == 0 || t->size == 0 || t->true_lb != 0) &&
         ((peer >= 0 && peer < static_cast<int>(comm->peers().pes.size())) || peer == MPI_PROC_NULL ||
          (recv && peer == MPI_ANY_SOURCE)) &&
         (tag >= 0 || (recv && tag == MPI_ANY_TAG));
}
// Checks the arguments of a send (peer = destination) or receive (peer = source) and creates
// its request, not yet started.
Error new_request(Context& c, p2p::RequestKind kind, p2p::SendMode mode, const void* buf, MPI_Count count,
                  MPI_Datatype datatype, int peer, int tag, MPI_Comm comm, bool persistent, const char* call,
                  p2p::Request** out);
// Every request of a send or receive is filled here, from valid arguments.
[[gnu::always_inline]] inline p2p::Request* make_request(Context& c, p2p::RequestKind kind, p2p::SendMode mode,
                                                         const void* buf, MPI_Count count, const datatype::Datatype& type,
                                                         MPI_Datatype datatype, int peer, int tag, MPI_Comm comm_handle,
                                                         const comm::Communicator& comm, bool persistent) {
  p2p::Request* r = c.engine().requests().create(kind);
  r->mode = mode;
  r->persistent = persistent;
  r->complete = persistent;  // an inactive persistent request waits as complete
  r->buf = const_cast<void*>(buf);
  r->count = count;
  r->type = &type;
  r->type_handle = datatype;
  r->comm = comm_handle;
  r->context = comm.context;
  r->peer_rank = peer;
  r->proc_null = peer == MPI_PROC_NULL;
  r->peer_pe = (peer >= 0) ? comm.peers().pes[static_cast<size_t>(peer)] : -1;
  r->tag = tag;
  r->my_rank = comm.rank;
  return r;
}
// The common case of a non-blocking send or receive in one step: valid arguments, a peer (not
// MPI_PROC_NULL), not buffered: the request is made and started, no Error built. Null: nothing
// was done (new_request + start handle the rest, and explain what is wrong). Inline into the
// bindings (their constant kind folds the branches away).
[[gnu::always_inline]] inline p2p::Request* start_valid(Context& c, p2p::RequestKind kind, p2p::SendMode mode,
                                                        const void* buf, MPI_Count count, MPI_Datatype datatype,
                                                        int peer, int tag, MPI_Comm comm_handle) {
  comm::Communicator* comm;
  const datatype::Datatype* type;
  if (mode == p2p::SendMode::kBuffered || peer == MPI_PROC_NULL ||
      !valid_arguments(c, kind == p2p::RequestKind::kRecv, buf, count, datatype, peer, tag, comm_handle, &comm, &type)) {
    return nullptr;
  }
  p2p::Request* r = make_request(c, kind, mode, buf, count, *type, datatype, peer, tag, comm_handle, *comm, false);
  if (kind == p2p::RequestKind::kRecv) {
    c.engine().start_recv(r);
  } else {
    c.engine().start_send(r);
  }
  return r;
}
// Starts it (a persistent request: once more). Fails for a buffered send the attached buffer
// cannot hold, or a persistent request that is still active.
Error start(Context& c, p2p::Request* r, const char* call);
// Internal traffic of the collectives and topologies: `context` is the communicator's context + 1.
p2p::Request* new_internal(Context& c, p2p::RequestKind kind, void* buf, int64_t bytes, int peer_rank,
                           int tag, const comm::Communicator& comm, uint32_t context);

// The buffers of buffered sends (buffers.cc): detach (waits until the owner's messages have left),
// flush (the same wait), iflush (a request completing then).
Error detach_buffer(Context& c, Guard& g, BsendBuffers::Owner owner, void* buffer_addr, MPI_Count* size,
                    const char* call);
Error flush_buffer(Context& c, Guard& g, BsendBuffers::Owner owner);
Error iflush_buffer(Context& c, BsendBuffers::Owner owner, MPI_Request* request, const char* call);

// MPI_ERR_TRUNCATE naming the call, the rank, the message and the buffer.
Error truncation_error(const char* call, int my_rank, int64_t message_bytes, int source, int tag, int64_t capacity);

// MPI_ERR_REQUEST for a handle that names no active request of the user's.
Error request_not_found(MPI_Request handle, const char* call);
// The request behind a handle; null for MPI_REQUEST_NULL. Inline: every wait and test call looks
// up each of its requests.
inline Error lookup_request(Context& c, MPI_Request handle, const char* call, p2p::Request** r) {
  *r = nullptr;
  if (handle == MPI_REQUEST_NULL) return Error::ok();
  *r = c.engine().requests().user_request(handle);
  return *r != nullptr ? Error::ok() : request_not_found(handle, call);
}
inline bool inactive(const p2p::Request* r) { return r == nullptr || (r->persistent && !r->active); }
// The requests of an array argument (the wait, test and MPI_Request_get_status_* families),
// looked up once (null/inactive entries stay null). A window
// of requests fits inline: a wait or test call makes no heap allocation for it.
class RequestList {
 public:
  RequestList() = default;
  RequestList(const RequestList&) = delete;
  RequestList& operator=(const RequestList&) = delete;
  Error gather(Context& c, int count, const MPI_Request requests[], const char* call) {
    if (count < 0) return error(MPI_ERR_COUNT, "%s: count %d is negative", call, count);
    if (count > 0 && requests == nullptr) return error(MPI_ERR_ARG, "%s: the request array is NULL", call);
    size_ = static_cast<size_t>(count);
    if (size_ > kInline) {
      spilled_.assign(size_, nullptr);
      items_ = spilled_.data();
    }
    p2p::RequestPool& pool = c.engine().requests();
    first_pending_ = size_;
    for (int i = 0; i < count; ++i) {  // lookup_request without an Error value per request
      MPI_Request h = requests[i];
      p2p::Request* r = items_[i] = h == MPI_REQUEST_NULL ? nullptr : pool.user_request(h);
      if (h != MPI_REQUEST_NULL && r == nullptr) return request_not_found(h, call);
      if (first_pending_ == size_ && !inactive(r) && !r->complete) first_pending_ = static_cast<size_t>(i);
    }
    return Error::ok();
  }
  size_t size() const { return size_; }
  // The first active request that was not complete when gathered (size(): none).
  size_t first_pending() const { return first_pending_; }
  // The first active request that is complete (size(): none); *any_active: whether a request was
  // found active before it (all of them when none is complete).
  size_t first_complete(bool* any_active) const {
    *any_active = false;
    for (size_t i = 0; i < size_; ++i) {
      if (inactive(items_[i])) continue;
      *any_active = true;
      if (items_[i]->complete) return i;
    }
    return size_;
  }
  p2p::Request* operator[](size_t i) const { return items_[i]; }
  p2p::Request* const* begin() const { return items_; }
  p2p::Request* const* end() const { return items_ + size_; }

 private:
  static constexpr size_t kInline = 64;
  p2p::Request* inline_[kInline];
  std::vector<p2p::Request*> spilled_;
  p2p::Request** items_ = inline_;
  size_t size_ = 0;
  size_t first_pending_ = 0;
};

// What MPI_Request_get_status reports, changing nothing (status_access.cc): true when complete
// (a null or inactive request: with an empty status); the status is filled when complete.
bool peek(const p2p::Request* r, MPI_Status* status);
// conclude() of the common request (a send or receive, not persistent, that succeeded) whose
// status is ignored: released, the handle nulled (the built-in completed send is a plain send,
// which release() leaves alone). False: nothing done, conclude() it.
inline bool conclude_plain(Context& c, MPI_Request* handle, p2p::Request* r) {
  if ((r->kind != p2p::RequestKind::kSend && r->kind != p2p::RequestKind::kRecv) || r->persistent ||
      r->status_error != MPI_SUCCESS) {
    return false;
  }
  c.engine().requests().release(r);
  *handle = MPI_REQUEST_NULL;
  return true;
}
// For a completed request: fills `status`, releases (or deactivates) it, sets *handle; returns
// the operation's error class (MPI_ERR_TRUNCATE...) and its message in *err.
int conclude(Context& c, Guard& g, MPI_Request* handle, p2p::Request* r, MPI_Status* status, Error* err,
             const char* call);

}  // namespace gasket::mpi::api
