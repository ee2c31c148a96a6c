// A request: one send, receive or generalized operation, and its progress through the protocol.
// Requests live in the RequestPool; their handle (MPI_Request) is index + 1, and the protocol
// names them by the same number on the wire. One more handle, kCompletedSend, names the pool's
// built-in request: every send that completed as it started (no state of its own).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "mpi.h"
#include "core/memreg/exposure.h"
#include "mpi/base/error.h"
#include "mpi/base/handle.h"
#include "mpi/datatype/datatype.h"

namespace gasket::mpi::p2p {

struct Request;

enum class RequestKind : uint8_t { kSend, kRecv, kGeneralized, kOperation, kDone };
enum class SendMode : uint8_t { kStandard, kSync, kReady, kBuffered };

// What a send or receive moves: buffer, datatype, communicator, peer and tag.
struct Transfer {
  void* buf = nullptr;
  int64_t count = 0;
  const datatype::Datatype* type = nullptr;
  int type_handle = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  uint32_t context = 0;
  int peer_rank = 0;  // destination, or source (MPI_ANY_SOURCE allowed)
  int peer_pe = -1;
  int tag = 0;
  int my_rank = 0;    // the sender's rank in the communicator (envelope)
};

// Everything but the staging buffer: trivially copyable, so a pooled request resets by one
// assignment. The operation (Transfer) is set by the bindings.
struct RequestState : Transfer {
  int handle = 0;
  bool live = false;        // allocated from the pool (not yet released)
  RequestKind kind = RequestKind::kDone;
  SendMode mode = SendMode::kStandard;
  bool persistent = false;
  bool active = false;      // started (persistent: until completed by a wait/test)
  bool complete = false;
  bool user_owned = true;   // false after MPI_Request_free: released at completion
  bool cancelled = false;
  bool posted = false;      // in the posted-receive queue
  bool proc_null = false;   // peer MPI_PROC_NULL: completes at once with an empty status

  // Send protocol state: the wire id's serial, whether the data went eager, whether the
  // protocol is done, and whether an MPI_Cancel waits for the receiver's answer.
  uint32_t serial = 0;
  bool eager = false;
  bool send_done = false;
  bool cancel_pending = false;

  // Completion status.
  int status_source = MPI_ANY_SOURCE;
  int status_tag = MPI_ANY_TAG;
  int status_error = MPI_SUCCESS;
  int64_t status_bytes = 0;
  int64_t message_bytes = 0;  // as sent (more than status_bytes when truncated)

  // Data as bytes: the user's buffer when the type is contiguous, else Request::staging.
  const char* send_data = nullptr;
  int64_t send_bytes = 0;
  char* recv_data = nullptr;
  int64_t capacity = 0;

  // Rendezvous (receiver side).
  int rndv_src_pe = -1;
  uint64_t rndv_sreq = 0;
  int64_t rndv_bytes = 0;     // bytes to move (the smaller of message and capacity)
  int64_t rndv_granted = 0;
  int64_t rndv_received = 0;
  bool pull_alone = false;  // same node: never ask the sender to push half (split pull) — its
                            // other transfers or its own copy would make this one wait for it
  int zone = -1;                        // the bounce zone it holds (index in the engine's pool)
  struct Request* zone_next = nullptr;  // waiting for a free bounce zone

  // Buffered send: the block in the attached buffer to give back at completion.
  char* bsend_block = nullptr;

  // Generalized request.
  MPI_Grequest_query_function* query_fn = nullptr;
  MPI_Grequest_free_function* free_fn = nullptr;
  MPI_Grequest_cancel_function* cancel_fn = nullptr;
  void* extra_state = nullptr;

  // Posted-receive queue links.
  struct Request* prev = nullptr;
  struct Request* next = nullptr;
};

// What a request of kind kOperation does: a non-blocking collective's schedule, a request-based
// RMA operation. The engine polls every started operation on each progress() call until it
// reports completion, so any MPI call (and any wait) moves it forward.
class Operation {
 public:
  virtual ~Operation() = default;
  // Advances as far as possible without blocking; true once complete. May start internal sends
  // and receives. A failure is reported by returning true with *error set (it names the call).
  virtual bool progress(Error* error) = 0;
  // A persistent operation request (partitioned communication, persistent collectives): MPI_Start
  // begins its next round, then the engine polls it again. Fails (naming `call`) when it cannot
  // start now.
  virtual Error restart(const char* call) {
    return gasket::mpi::error(MPI_ERR_REQUEST, "%s: this operation request cannot be started again", call);
  }
};

struct Request : RequestState {
  // Data as bytes for non-contiguous types (packed send data, or the receive's landing area).
  std::vector<char> staging;
  // The receive buffer exposed through core/memreg for a rendezvous (released at completion).
  memreg::Exposure exposure;
  // kOperation: what it does, and how it ended (status_error holds the class).
  std::unique_ptr<Operation> operation;
  Error operation_error;
};

// The handle of every send that completed as it started (Engine::send_now took it: contiguous,
// standard or ready mode, the data out of the user's buffer before MPI_Isend returns): the
// request kind's last slot, which the pool never gives out. The wait, test, free, cancel and
// status calls find the pool's built-in complete send behind it (RequestPool::user_request).
constexpr int kCompletedSend = handle_of(HandleKind::kRequest, GASKET_HANDLE_SLOT_MASK);

class RequestPool {
 public:
  RequestPool() {
    completed_send_.handle = kCompletedSend;
    completed_send_.live = true;
    completed_send_.kind = RequestKind::kSend;
    completed_send_.active = true;
    completed_send_.complete = true;
    completed_send_.eager = true;
    completed_send_.send_done = true;
  }
  [[gnu::always_inline]] Request* create(RequestKind kind) {
    Request* r;
    if (!free_.empty()) {
      r = free_.back();
      free_.pop_back();
      int h = r->handle;
      static_cast<RequestState&>(*r) = RequestState{};
      r->handle = h;
    } else if (!empty_slots_.empty()) {  // a slot whose request was freed: its handle again
      size_t i = empty_slots_.back();
      empty_slots_.pop_back();
      all_[i] = std::make_unique<Request>();
      r = all_[i].get();
      r->handle = handle_of(HandleKind::kRequest, i + 1);
    } else {
      all_.push_back(std::make_unique<Request>());
      r = all_.back().get();
      r->handle = handle_of(HandleKind::kRequest, all_.size());  // slot i + 1: all_[i]
    }
    r->kind = kind;
    r->live = true;
    return r;
  }
  // Inline: one test for the common request, which used none of the extras. The built-in
  // completed send is never released (every completed-at-start handle names it).
  void release(Request* r) {
    if (r == &completed_send_) return;
    r->live = false;
    if (r->exposure.id != 0 || !r->exposure.descriptor.empty() || r->operation || !r->operation_error.is_ok() ||
        r->staging.capacity() > 0) {
      drop_extras(r);
    }
    if (free_.size() < kSpareRequests) {
      free_.push_back(r);
    } else {  // beyond the spares: freed, its slot kept for the next request that needs one
      size_t i = slot_of(HandleKind::kRequest, r->handle) - 1;
      all_[i].reset();
      empty_slots_.push_back(static_cast<uint32_t>(i));
    }
  }
  // The live request behind a handle / wire id, or null.
  Request* find(int64_t handle) const {
    if (handle <= 0 || handle > INT32_MAX) return nullptr;
    size_t slot = slot_of(HandleKind::kRequest, static_cast<int>(handle));
    if (slot == 0 || slot > all_.size()) return nullptr;
    Request* r = all_[slot - 1].get();
    return r != nullptr && r->live ? r : nullptr;
  }
  // The request a user's handle (not MPI_REQUEST_NULL) names: a live one the user still owns,
  // the built-in completed send for kCompletedSend, else null.
  Request* user_request(int handle) {
    if (handle == kCompletedSend) return &completed_send_;
    Request* found = find(handle);
    return found != nullptr && found->user_owned ? found : nullptr;
  }
  bool is_completed_send(const Request* r) const { return r == &completed_send_; }

 private:
  // What a request used besides its state: exposure, operation, its error, staging.
  [[gnu::noinline]] static void drop_extras(Request* r) {
    r->exposure = memreg::Exposure{};
    r->operation.reset();
    r->operation_error = Error::ok();
    std::vector<char>().swap(r->staging);
  }
  // Every request by slot (null: freed), the released ones kept for reuse, and the slots freed.
  // At most kSpareRequests are kept: a burst of requests (an all-to-all posts two per peer) leaves
  // 12 bytes per slot behind, not a whole request (~360 bytes) per peer of the burst.
  static constexpr size_t kSpareRequests = 16;
  std::vector<std::unique_ptr<Request>> all_;
  std::vector<Request*> free_;
  std::vector<uint32_t> empty_slots_;
  // Behind kCompletedSend: a plain send, complete, never released, cancelled or changed (its
  // status: MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS, 0 bytes, not cancelled).
  Request completed_send_;
};

}  // namespace gasket::mpi::p2p
