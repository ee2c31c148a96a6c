// C bindings of point-to-point communication: sends in four modes, receives, sendrecv, probes,
// persistent and generalized requests, and the wait/test families.
#include <cstring>
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

// Creates a request and starts it; on failure nothing is left allocated.
Error create_and_start(Context& c, RequestKind kind, SendMode mode, const void* buf, MPI_Count count, MPI_Datatype dt,
                       int peer, int tag, MPI_Comm comm, const char* call, Request** out) {
  Error e = api::new_request(c, kind, mode, buf, count, dt, peer, tag, comm, false, call, out);
  if (!e.is_ok()) return e;
  e = api::start(c, *out, call);
  if (!e.is_ok()) c.engine().requests().release(*out);
  return e;
}

// A standard or ready send of contiguous data with valid arguments that the channel takes at
// once (Engine::send_now): the data has left the user's buffer and the send is complete when this
// returns true, without a request. False: nothing was sent. Inline: MPI_Send and MPI_Isend start
// with it.
[[gnu::always_inline]] inline bool send_at_once(Context& c, SendMode mode, const void* buf, MPI_Count count, MPI_Datatype dt, int peer, int tag,
                  MPI_Comm comm) {
  gasket::mpi::comm::Communicator* cm;
  const gasket::mpi::datatype::Datatype* type;
  return (mode == SendMode::kStandard || mode == SendMode::kReady) && peer != MPI_PROC_NULL &&
         api::valid_arguments(c, false, buf, count, dt, peer, tag, comm, &cm, &type) && type->contiguous() &&
         c.engine().send_now(cm->peers().pes[static_cast<size_t>(peer)], cm->context, cm->rank, tag,
                             static_cast<const char*>(buf) + type->true_lb, static_cast<size_t>(count * type->size));
}

// Nonblocking operation: create + start; *request is the handle. A send the channel takes at once
// needs no request: its handle is p2p::kCompletedSend (the pool's built-in completed send).
int post(const char* call, RequestKind kind, SendMode mode, const void* buf, MPI_Count count, MPI_Datatype dt, int peer,
         int tag, MPI_Comm comm, MPI_Request* request) {
  return api::call(call, comm, [&](Context& c, Guard&) -> Error {
    if (request == nullptr) return error(MPI_ERR_ARG, "%s: the request argument is NULL", call);
    if (kind == RequestKind::kSend && send_at_once(c, mode, buf, count, dt, peer, tag, comm)) {
      *request = gasket::mpi::p2p::kCompletedSend;
      return Error::ok();
    }
    Request* r = api::start_valid(c, kind, mode, buf, count, dt, peer, tag, comm);
    if (r != nullptr) {
      *request = r->handle;
      return Error::ok();
    }
    Error e = create_and_start(c, kind, mode, buf, count, dt, peer, tag, comm, call, &r);
    if (!e.is_ok()) return e;
    *request = r->handle;
    return Error::ok();
  });
}

// The shortcut of a blocking send or receive of contiguous data (no request): an eager send the
// channel takes at once, or a receive posted directly (p2p::DirectReceive). False: nothing done.
bool direct(Context& c, Guard& g, RequestKind kind, SendMode mode, const void* buf, MPI_Count count, MPI_Datatype dt,
            int peer, int tag, MPI_Comm comm, MPI_Status* status, const char* call, Error* result) {
  if (kind == RequestKind::kSend) return send_at_once(c, mode, buf, count, dt, peer, tag, comm);
  gasket::mpi::comm::Communicator* cm;
  const gasket::mpi::datatype::Datatype* type;
  if (!api::valid_arguments(c, true, buf, count, dt, peer, tag, comm, &cm, &type) || !type->contiguous() ||
      peer == MPI_PROC_NULL) {
    return false;
  }
  gasket::mpi::p2p::DirectReceive d;
  d.buf = const_cast<void*>(buf);
  d.count = count;
  d.type = type;
  d.type_handle = dt;
  d.comm = comm;
  d.context = cm->context;
  d.peer_rank = peer;
  d.tag = tag;
  d.my_rank = cm->rank;
  if (!c.engine().begin_direct(&d)) return false;
  c.wait(g, [&d] { return d.done || (d.request != nullptr && d.request->complete); });
  if (d.request != nullptr) {
    MPI_Request h = d.request->handle;
    api::conclude(c, g, &h, d.request, status, result, call);
    return true;
  }
  api::fill_status(status, d.status_source, d.status_tag, d.status_bytes, false);
  if (d.status_error == MPI_ERR_TRUNCATE) {
    *result = api::truncation_error(call, d.my_rank, d.message_bytes, d.status_source, d.status_tag,
                                    count * type->size);
  }
  return true;
}

// Blocking operation: create + start + wait + conclude (or the shortcut above).
int blocking(const char* call, RequestKind kind, SendMode mode, const void* buf, MPI_Count count, MPI_Datatype dt, int peer,
             int tag, MPI_Comm comm, MPI_Status* status) {
  return api::call(call, comm, [&](Context& c, Guard& g) -> Error {
    Error result;
    if (direct(c, g, kind, mode, buf, count, dt, peer, tag, comm, status, call, &result)) return result;
    Request* r;
    Error e = create_and_start(c, kind, mode, buf, count, dt, peer, tag, comm, call, &r);
    if (!e.is_ok()) return e;
    if (!r->complete) c.wait(g, [r] { return r->complete; });
    MPI_Request h = r->handle;
    Error op;
    api::conclude(c, g, &h, r, status, &op, call);
    return op;
  });
}

int persistent(const char* call, RequestKind kind, SendMode mode, const void* buf, MPI_Count count, MPI_Datatype dt,
               int peer, int tag, MPI_Comm comm, MPI_Request* request) {
  return api::call(call, comm, [&](Context& c, Guard&) -> Error {
    if (request == nullptr) return error(MPI_ERR_ARG, "%s: the request argument is NULL", call);
    Request* r;
    Error e = api::new_request(c, kind, mode, buf, count, dt, peer, tag, comm, true, call, &r);
    if (!e.is_ok()) return e;
    *request = r->handle;
    return Error::ok();
  });
}

}  // namespace

namespace gasket::mpi::large_count {

int Send(const char* call, const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return blocking(call, RequestKind::kSend, SendMode::kStandard, buf, count, dt, dest, tag, comm,
                  MPI_STATUS_IGNORE);
}
int Ssend(const char* call, const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return blocking(call, RequestKind::kSend, SendMode::kSync, buf, count, dt, dest, tag, comm,
                  MPI_STATUS_IGNORE);
}
int Rsend(const char* call, const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return blocking(call, RequestKind::kSend, SendMode::kReady, buf, count, dt, dest, tag, comm,
                  MPI_STATUS_IGNORE);
}
int Bsend(const char* call, const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm) {
  return blocking(call, RequestKind::kSend, SendMode::kBuffered, buf, count, dt, dest, tag, comm,
                  MPI_STATUS_IGNORE);
}
int Recv(const char* call, void* buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return blocking(call, RequestKind::kRecv, SendMode::kStandard, buf, count, dt, source, tag, comm, status);
}
int Isend(const char* call, const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  return post(call, RequestKind::kSend, SendMode::kStandard, buf, count, dt, dest, tag, comm, request);
}
int Issend(const char* call, const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  return post(call, RequestKind::kSend, SendMode::kSync, buf, count, dt, dest, tag, comm, request);
}
int Irsend(const char* call, const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  return post(call, RequestKind::kSend, SendMode::kReady, buf, count, dt, dest, tag, comm, request);
}
int Ibsend(const char* call, const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm, MPI_Request* request) {
  return post(call, RequestKind::kSend, SendMode::kBuffered, buf, count, dt, dest, tag, comm, request);
}
int Irecv(const char* call, void* buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  return post(call, RequestKind::kRecv, SendMode::kStandard, buf, count, dt, source, tag, comm, request);
}

int Send_init(const char* call, const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return persistent(call, RequestKind::kSend, SendMode::kStandard, buf, count, dt, dest, tag, comm,
                    request);
}
int Ssend_init(const char* call, const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return persistent(call, RequestKind::kSend, SendMode::kSync, buf, count, dt, dest, tag, comm, request);
}
int Rsend_init(const char* call, const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return persistent(call, RequestKind::kSend, SendMode::kReady, buf, count, dt, dest, tag, comm, request);
}
int Bsend_init(const char* call, const void* buf, MPI_Count count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return persistent(call, RequestKind::kSend, SendMode::kBuffered, buf, count, dt, dest, tag, comm,
                    request);
}
int Recv_init(const char* call, void* buf, MPI_Count count, MPI_Datatype dt, int source, int tag, MPI_Comm comm, MPI_Request* request) {
  return persistent(call, RequestKind::kRecv, SendMode::kStandard, buf, count, dt, source, tag, comm,
                    request);
}

}  // namespace gasket::mpi::large_count

extern "C" {

int PMPI_Start(MPI_Request* request) { return PMPI_Startall(1, request); }

int PMPI_Startall(int count, MPI_Request requests[]) {
  MPI_Comm ec = MPI_COMM_WORLD;
  return api::call_ref("MPI_Startall", ec, [&](Context& c, Guard&) -> Error {
    if (count < 0) return error(MPI_ERR_COUNT, "MPI_Startall: count %d is negative", count);
    if (count > 0 && requests == nullptr) return error(MPI_ERR_ARG, "MPI_Start: the request array is NULL");
    for (int i = 0; i < count; ++i) {
      Request* r;
      Error e = api::lookup_request(c, requests[i], "MPI_Start", &r);
      if (e.is_ok() && (r == nullptr || !r->persistent)) {
        e = error(MPI_ERR_REQUEST, "MPI_Start: request %d is not a persistent request", requests[i]);
      }
      if (!e.is_ok()) return e;
      ec = r->comm;
      e = api::start(c, r, "MPI_Start");
      if (!e.is_ok()) return e;
    }
    return Error::ok();
  });
}

}  // extern "C" (helpers below have internal linkage, not C linkage)
namespace {
// The Sendrecv forms: starts the receive and the send, waits for both, concludes both (the
// receive's status goes to `status`).
Error complete_pair(Context& c, Guard& g, Request* s, Request* r, MPI_Status* status, const char* call) {
  (void)api::start(c, r, call);
  (void)api::start(c, s, call);
  c.wait(g, [&] { return r->complete && s->complete; });
  MPI_Request hs = s->handle, hr = r->handle;
  Error op;
  api::conclude(c, g, &hs, s, MPI_STATUS_IGNORE, &op, call);
  api::conclude(c, g, &hr, r, status, &op, call);
  return op;
}
}  // namespace

namespace gasket::mpi::large_count {

int Sendrecv(const char* call, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Status* status) {
  return api::call(call, comm, [&](Context& c, Guard& g) -> Error {
    Request *s, *r;
    Error e = api::new_request(c, RequestKind::kSend, SendMode::kStandard, sendbuf, sendcount, sendtype, dest, sendtag,
                               comm, false, call, &s);
    if (!e.is_ok()) return e;
    e = api::new_request(c, RequestKind::kRecv, SendMode::kStandard, recvbuf, recvcount, recvtype, source, recvtag,
                         comm, false, call, &r);
    if (!e.is_ok()) {
      c.engine().requests().release(s);
      return e;
    }
    return complete_pair(c, g, s, r, status, call);
  });
}

int Sendrecv_replace(const char* call, void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return api::call(call, comm, [&](Context& c, Guard& g) -> Error {
    Request *s, *r;
    Error e = api::new_request(c, RequestKind::kRecv, SendMode::kStandard, buf, count, datatype, source, recvtag, comm,
                               false, call, &r);
    if (!e.is_ok()) return e;
    // The outgoing copy, packed: the receive may overwrite `buf` before the send has left.
    std::vector<char> copy(static_cast<size_t>(count * r->type->size));
    gasket::mpi::datatype::pack(*r->type, buf, count, copy.data());
    e = api::new_request(c, RequestKind::kSend, SendMode::kStandard, copy.data(), static_cast<MPI_Count>(copy.size()),
                         MPI_BYTE, dest, sendtag, comm, false, call, &s);
    if (!e.is_ok()) {
      c.engine().requests().release(r);
      return e;
    }
    return complete_pair(c, g, s, r, status, call);
  });
}

int Buffer_attach(const char* call, void* buffer, MPI_Count size) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    return c.bsend_buffers().attach(BsendBuffers::process(), buffer, size, call);
  });
}

int Buffer_detach(const char* call, void* buffer_addr, MPI_Count* size) {
  return api::call(call, MPI_COMM_WORLD, [&](Context& c, Guard& g) -> Error {
    return api::detach_buffer(c, g, BsendBuffers::process(), buffer_addr, size, call);
  });
}

}  // namespace gasket::mpi::large_count

// ---- probes ----


namespace {
Error check_probe(Context& c, int source, int tag, MPI_Comm comm, const char* call,
                  gasket::mpi::comm::Communicator** cm) {
  Error e = api::check_comm(c, comm, call, cm);
  if (e.is_ok()) e = api::check_rank(source, true, call, **cm);
  if (e.is_ok()) e = api::check_tag(tag, true, call, **cm);
  return e;
}

void proc_null_status(MPI_Status* status) {
  api::fill_status(status, MPI_PROC_NULL, MPI_ANY_TAG, 0, false);
}

int probe(const char* call, bool blocking, bool take, int source, int tag, MPI_Comm comm, int* flag,
          MPI_Message* message, MPI_Status* status) {
  return api::call(call, comm, [&](Context& c, Guard& g) -> Error {
    gasket::mpi::comm::Communicator* cm;
    Error e = check_probe(c, source, tag, comm, call, &cm);
    if (!e.is_ok()) return e;
    if ((!blocking && flag == nullptr) || (take && message == nullptr)) {
      return error(MPI_ERR_ARG, "%s: a NULL flag or message argument", call);
    }
    if (source == MPI_PROC_NULL) {
      if (flag) *flag = 1;
      if (take) *message = MPI_MESSAGE_NO_PROC;
      proc_null_status(status);
      return Error::ok();
    }
    uint32_t ctx = cm->context;
    gasket::mpi::p2p::ProbeResult res;
    std::unique_ptr<gasket::mpi::p2p::Unexpected> msg;
    auto look = [&] {
      c.engine().progress();
      if (take) {
        msg = c.engine().improbe(ctx, source, tag, &res);
      } else {
        res = c.engine().iprobe(ctx, source, tag);
      }
      return res.found;
    };
    if (blocking) {
      c.wait(g, look);
    } else {
      look();
    }
    if (flag) *flag = res.found ? 1 : 0;
    if (!res.found) return Error::ok();
    if (take) *message = c.add_message(std::move(msg));
    api::fill_status(status, res.source, res.tag, res.bytes, false);
    return Error::ok();
  });
}

int matched_receive(const char* call, void* buf, MPI_Count count, MPI_Datatype dt, MPI_Message* message,
                    MPI_Request* request, MPI_Status* status) {
  MPI_Comm ec = MPI_COMM_WORLD;
  int rc = api::call_ref(call, ec, [&](Context& c, Guard& g) -> Error {
    if (message != nullptr && *message == MPI_MESSAGE_NO_PROC) {
      const gasket::mpi::datatype::Datatype* type;
      Error checked = c.types().lookup_data(dt, count, call, &type);  // a valid type even for no process
      if (!checked.is_ok()) return checked;
      *message = MPI_MESSAGE_NULL;
      Request* r = c.engine().requests().create(RequestKind::kRecv);
      r->proc_null = true;
      r->type = nullptr;
      (void)api::start(c, r, call);
      MPI_Request h = r->handle;
      if (request != nullptr) {
        *request = h;
      } else {
        Error op;
        api::conclude(c, g, &h, r, status, &op, call);
      }
      return Error::ok();
    }
    std::unique_ptr<gasket::mpi::p2p::Unexpected> msg;
    Error e = c.take_message(message, call, &msg);
    if (!e.is_ok()) return e;
    // The message remembers its communicator only by context: the checks use MPI_COMM_WORLD's
    // rank for messages.
    gasket::mpi::comm::Communicator* world;
    (void)c.comms().lookup(MPI_COMM_WORLD, call, &world);
    const gasket::mpi::datatype::Datatype* type;
    e = api::check_count(count, call, *world);
    if (e.is_ok()) e = api::check_type(c, dt, count, call, *world, &type);
    if (e.is_ok()) e = api::check_buffer(buf, count, *type, call, *world);
    if (!e.is_ok()) {
      *message = c.add_message(std::move(msg));
      return e;
    }
    Request* r = c.engine().requests().create(RequestKind::kRecv);
    r->buf = buf;
    r->count = count;
    r->type = type;
    r->type_handle = dt;
    r->context = msg->context;
    r->peer_rank = msg->src_rank;
    r->tag = msg->tag;
    r->my_rank = world->rank;
    c.engine().start_matched_recv(r, std::move(msg));
    if (request != nullptr) {
      *request = r->handle;
      return Error::ok();
    }
    if (!r->complete) c.wait(g, [r] { return r->complete; });
    MPI_Request h = r->handle;
    Error op;
    api::conclude(c, g, &h, r, status, &op, call);
    return op;
  });
  return rc;
}
}  // namespace
extern "C" {

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return probe("MPI_Probe", true, false, source, tag, comm, nullptr, nullptr, status);
}
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return probe("MPI_Iprobe", false, false, source, tag, comm, flag, nullptr, status);
}
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  return probe("MPI_Mprobe", true, true, source, tag, comm, nullptr, message, status);
}
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status) {
  return probe("MPI_Improbe", false, true, source, tag, comm, flag, message, status);
}
}  // extern "C"

namespace gasket::mpi::large_count {

int Mrecv(const char* call, void* buf, MPI_Count count, MPI_Datatype dt, MPI_Message* message, MPI_Status* status) {
  return matched_receive(call, buf, count, dt, message, nullptr, status);
}
int Imrecv(const char* call, void* buf, MPI_Count count, MPI_Datatype dt, MPI_Message* message,
                  MPI_Request* request) {
  if (request == nullptr) return api::call(call, MPI_COMM_WORLD, [call](Context&, Guard&) {
      return error(MPI_ERR_ARG, "%s: the request argument is NULL", call);
    });
  return matched_receive(call, buf, count, dt, message, request, MPI_STATUS_IGNORE);
}

}  // namespace gasket::mpi::large_count

// ---- completion ----

namespace {

MPI_Status* status_at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

// The error codes of a call returning several statuses. MPI 4.1 section 3.2.5: the MPI_ERROR
// fields are written if and only if the call returns MPI_ERR_IN_STATUS, then every one of them
// (MPI_SUCCESS for the operations that succeeded); otherwise they stay the caller's. Nothing is
// kept until the first failure: the entries before it all succeeded.
class ErrorsInStatus {
 public:
  bool failed() const { return !codes_.empty(); }
  void record(int at, int code) {  // entries skipped before `at` (null requests) succeeded
    if (code == MPI_SUCCESS && codes_.empty()) return;
    codes_.resize(static_cast<size_t>(at), MPI_SUCCESS);
    codes_.push_back(code);
  }
  void write(MPI_Status statuses[], int n) const {
    if (statuses == MPI_STATUSES_IGNORE) return;
    for (int i = 0; i < n; ++i) {
      statuses[i].MPI_ERROR = static_cast<size_t>(i) < codes_.size() ? codes_[static_cast<size_t>(i)] : MPI_SUCCESS;
    }
  }

 private:
  std::vector<int> codes_;
};

// wait/test over all: returns MPI_ERR_IN_STATUS when an operation failed (its status says which).
int all(const char* call, bool blocking, int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  MPI_Comm ec = MPI_COMM_WORLD;
  return api::call_ref(call, ec, [&](Context& c, Guard& g) -> Error {
    api::RequestList rs;
    Error e = rs.gather(c, count, requests, call);
    if (!e.is_ok()) return e;
    // Requests complete in about the order they were started: each poll resumes at the first one
    // not seen complete, and once all are, under MULTIPLE one more pass confirms it (another
    // thread's MPI_Cancel of a completed send makes it incomplete again until answered).
    auto finished = [&rs](size_t i) { return api::inactive(rs[i]) || rs[i]->complete; };
    size_t next = rs.first_pending();
    bool confirm = c.thread_level() == MPI_THREAD_MULTIPLE;
    auto done = [&] {
      while (next < rs.size() && finished(next)) ++next;
      if (next < rs.size()) return false;
      if (!confirm) return true;
      for (next = 0; next < rs.size() && finished(next); ++next) {
      }
      return next == rs.size();
    };
    if (blocking) {
      c.wait(g, done);
    } else {
      c.engine().progress();
      *flag = done() ? 1 : 0;
      if (!*flag) return Error::ok();
    }
    Error first;
    ErrorsInStatus errors;
    for (int i = 0; i < count; ++i) {
      Request* r = rs[static_cast<size_t>(i)];
      if (api::inactive(r)) {
        api::empty_status(status_at(statuses, i));
        continue;
      }
      if (statuses == MPI_STATUSES_IGNORE && api::conclude_plain(c, &requests[i], r)) continue;
      Error op;
      MPI_Comm comm = r->comm;
      int code = api::conclude(c, g, &requests[i], r, status_at(statuses, i), &op, call);
      if (code != MPI_SUCCESS && !errors.failed()) {
        first = op;
        if (comm != MPI_COMM_NULL) ec = comm;  // the first failed request's handler reports
      }
      errors.record(i, code);
    }
    if (!errors.failed()) return Error::ok();
    errors.write(statuses, count);
    return Error(MPI_ERR_IN_STATUS, first.message());
  });
}

int any(const char* call, bool blocking, int count, MPI_Request requests[], int* index, int* flag,
        MPI_Status* status) {
  MPI_Comm ec = MPI_COMM_WORLD;
  return api::call_ref(call, ec, [&](Context& c, Guard& g) -> Error {
    if (index == nullptr) return error(MPI_ERR_ARG, "%s: the index argument is NULL", call);
    api::RequestList rs;
    Error e = rs.gather(c, count, requests, call);
    if (!e.is_ok()) return e;
    int found = MPI_UNDEFINED;
    bool any_active = false;
    auto look = [&] {
      size_t i = rs.first_complete(&any_active);
      if (i < rs.size()) found = static_cast<int>(i);
      return i < rs.size() || !any_active;
    };
    if (blocking) {
      c.wait(g, look);
    } else {
      c.engine().progress();
      look();
    }
    *index = found;
    if (flag) *flag = (found != MPI_UNDEFINED || !any_active) ? 1 : 0;
    if (found == MPI_UNDEFINED) {
      if (!any_active) api::empty_status(status);
      return Error::ok();
    }
    Request* r = rs[static_cast<size_t>(found)];
    if (status == MPI_STATUS_IGNORE && api::conclude_plain(c, &requests[found], r)) return Error::ok();
    if (r->comm != MPI_COMM_NULL) ec = r->comm;
    Error op;
    api::conclude(c, g, &requests[found], r, status, &op, call);
    return op;
  });
}

int some(const char* call, bool blocking, int incount, MPI_Request requests[], int* outcount, int indices[],
         MPI_Status statuses[]) {
  MPI_Comm ec = MPI_COMM_WORLD;
  return api::call_ref(call, ec, [&](Context& c, Guard& g) -> Error {
    if (outcount == nullptr || (incount > 0 && indices == nullptr)) {
      return error(MPI_ERR_ARG, "%s: a NULL outcount or indices argument", call);
    }
    api::RequestList rs;
    Error e = rs.gather(c, incount, requests, call);
    if (!e.is_ok()) return e;
    bool any_active = false;
    auto look = [&] {
      any_active = false;
      bool ready = false;
      for (Request* r : rs) {
        if (api::inactive(r)) continue;
        any_active = true;
        ready = ready || r->complete;
      }
      return ready || !any_active;
    };
    if (blocking) {
      c.wait(g, look);
    } else {
      c.engine().progress();
      look();
    }
    if (!any_active) {
      *outcount = MPI_UNDEFINED;
      return Error::ok();
    }
    int n = 0;
    Error first;
    ErrorsInStatus errors;
    for (int i = 0; i < incount; ++i) {
      Request* r = rs[static_cast<size_t>(i)];
      if (api::inactive(r) || !r->complete) continue;
      Error op;
      MPI_Comm comm = r->comm;
      int code = api::conclude(c, g, &requests[i], r, status_at(statuses, n), &op, call);
      if (code != MPI_SUCCESS && !errors.failed()) {
        first = op;
        if (comm != MPI_COMM_NULL) ec = comm;  // the first failed request's handler reports
      }
      errors.record(n, code);
      indices[n++] = i;
    }
    *outcount = n;
    if (!errors.failed()) return Error::ok();
    errors.write(statuses, n);
    return Error(MPI_ERR_IN_STATUS, first.message());
  });
}

}  // namespace
extern "C" {

int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  int index;
  if (request == nullptr) {
    return api::call("MPI_Wait", MPI_COMM_WORLD,
                     [](Context&, Guard&) { return error(MPI_ERR_ARG, "MPI_Wait: the request argument is NULL"); });
  }
  return any("MPI_Wait", true, 1, request, &index, nullptr, status);
}
int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  int index;
  if (request == nullptr || flag == nullptr) {
    return api::call("MPI_Test", MPI_COMM_WORLD,
                     [](Context&, Guard&) { return error(MPI_ERR_ARG, "MPI_Test: a NULL argument"); });
  }
  return any("MPI_Test", false, 1, request, &index, flag, status);
}
int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  return all("MPI_Waitall", true, count, requests, nullptr, statuses);
}
int PMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  if (flag == nullptr) {
    return api::call("MPI_Testall", MPI_COMM_WORLD,
                     [](Context&, Guard&) { return error(MPI_ERR_ARG, "MPI_Testall: the flag argument is NULL"); });
  }
  return all("MPI_Testall", false, count, requests, flag, statuses);
}
int PMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  return any("MPI_Waitany", true, count, requests, index, nullptr, status);
}
int PMPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  if (flag == nullptr) {
    return api::call("MPI_Testany", MPI_COMM_WORLD,
                     [](Context&, Guard&) { return error(MPI_ERR_ARG, "MPI_Testany: the flag argument is NULL"); });
  }
  return any("MPI_Testany", false, count, requests, index, flag, status);
}
int PMPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  return some("MPI_Waitsome", true, incount, requests, outcount, indices, statuses);
}
int PMPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  return some("MPI_Testsome", false, incount, requests, outcount, indices, statuses);
}

int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  return api::call("MPI_Request_get_status", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (flag == nullptr) return error(MPI_ERR_ARG, "MPI_Request_get_status: the flag argument is NULL");
    Request* r;
    Error e = api::lookup_request(c, request, "MPI_Request_get_status", &r);
    if (!e.is_ok()) return e;
    if (api::inactive(r)) {
      api::empty_status_queried(status);
      *flag = 1;
      return Error::ok();
    }
    c.engine().progress();
    *flag = api::peek(r, status) ? 1 : 0;
    return Error::ok();
  });
}

int PMPI_Request_free(MPI_Request* request) {
  return api::call("MPI_Request_free", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (request == nullptr) return error(MPI_ERR_ARG, "MPI_Request_free: the request argument is NULL");
    Request* r;
    Error e = api::lookup_request(c, *request, "MPI_Request_free", &r);
    if (!e.is_ok()) return e;
    if (r == nullptr) return error(MPI_ERR_REQUEST, "MPI_Request_free: the request is MPI_REQUEST_NULL");
    if (r->complete || (r->persistent && !r->active)) {
      c.engine().requests().release(r);
    } else {
      r->user_owned = false;  // the engine releases it when it completes
    }
    *request = MPI_REQUEST_NULL;
    return Error::ok();
  });
}

int PMPI_Cancel(MPI_Request* request) {
  return api::call("MPI_Cancel", MPI_COMM_WORLD, [&](Context& c, Guard& g) -> Error {
    if (request == nullptr) return error(MPI_ERR_ARG, "MPI_Cancel: the request argument is NULL");
    Request* r;
    Error e = api::lookup_request(c, *request, "MPI_Cancel", &r);
    if (!e.is_ok()) return e;
    if (r == nullptr) return error(MPI_ERR_REQUEST, "MPI_Cancel: the request is MPI_REQUEST_NULL");
    if (r->kind == RequestKind::kRecv) {
      c.engine().cancel_recv(r);  // a receive that matched already completes normally
    } else if (r->kind == RequestKind::kSend) {
      // The receiver drops the message if it has not matched it (MPI_Test_cancelled then says
      // so); a matched send completes normally. A buffered send has left the user's request
      // already (its copy is sent by an internal request): it completes normally too, and so
      // does a send that completed as it started (p2p::kCompletedSend: its message carries no
      // id to cancel by).
      if (r->mode != SendMode::kBuffered && !r->proc_null && !c.engine().requests().is_completed_send(r)) {
        c.engine().cancel_send(r);
      }
    } else if (r->kind == RequestKind::kGeneralized) {
      bool complete = r->complete;
      int code = c.run_callback(g, [&] { return r->cancel_fn(r->extra_state, complete ? 1 : 0); });
      if (code != MPI_SUCCESS) return error(code, "MPI_Cancel: the generalized request's cancel function returned %d", code);
    }
    return Error::ok();
  });
}

int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  if (status == nullptr || flag == nullptr) {
    return api::call("MPI_Test_cancelled", MPI_COMM_WORLD,
                     [](Context&, Guard&) { return error(MPI_ERR_ARG, "MPI_Test_cancelled: a NULL argument"); });
  }
  *flag = status->gasket_cancelled;
  return MPI_SUCCESS;
}

int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                       MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request) {
  return api::call("MPI_Grequest_start", MPI_COMM_WORLD, [&](Context& c, Guard&) -> Error {
    if (query_fn == nullptr || free_fn == nullptr || cancel_fn == nullptr || request == nullptr) {
      return error(MPI_ERR_ARG, "MPI_Grequest_start: a NULL function or request argument");
    }
    Request* r = c.engine().requests().create(RequestKind::kGeneralized);
    r->query_fn = query_fn;
    r->free_fn = free_fn;
    r->cancel_fn = cancel_fn;
    r->extra_state = extra_state;
    r->active = true;
    *request = r->handle;
    return Error::ok();
  });
}

int PMPI_Grequest_complete(MPI_Request request) {
  return api::call("MPI_Grequest_complete", MPI_COMM_WORLD, [&](Context& c, Guard& g) -> Error {
    Request* r = c.engine().requests().find(request);
    if (r == nullptr || r->kind != RequestKind::kGeneralized) {
      return error(MPI_ERR_REQUEST, "MPI_Grequest_complete: %d is not a generalized request", request);
    }
    r->complete = true;
    if (!r->user_owned) {  // freed by the user already: nothing will conclude it
      (void)c.run_callback(g, [&] { return r->free_fn(r->extra_state); });
      c.engine().requests().release(r);
    }
    return Error::ok();
  });
}

int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  if (status == nullptr) {
    return api::call("MPI_Status_set_cancelled", MPI_COMM_WORLD,
                     [](Context&, Guard&) { return error(MPI_ERR_ARG, "MPI_Status_set_cancelled: status is NULL"); });
  }
  status->gasket_cancelled = flag != 0;
  return MPI_SUCCESS;
}


}  // extern "C"
