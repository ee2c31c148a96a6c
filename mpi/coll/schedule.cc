#include "mpi/coll/schedule.h"

#include <cstring>
#include <utility>

namespace gasket::mpi::coll {

namespace {
// Collective tags live above every fixed internal tag.
constexpr int kTagBase = 1 << 30;
}  // namespace

int take_collective_tag(const comm::Communicator& comm, int n) {
  uint32_t first = comm.coll_seq & (kTagBase - 1);
  if (first + static_cast<uint32_t>(n) > static_cast<uint32_t>(kTagBase)) {  // every member skips alike
    comm.coll_seq += kTagBase - first;
    first = 0;
  }
  comm.coll_seq += static_cast<uint32_t>(n);
  return kTagBase + static_cast<int>(first);
}

Schedule::Schedule(Context& c, const comm::Communicator& comm, const char* call)
    : Schedule(c, comm, call, take_collective_tag(comm)) {}

Schedule::Schedule(Context& c, const comm::Communicator& comm, const char* call, int tag)
    : c_(c),
      call_(call),
      peer_pes_(comm.is_inter() ? comm.remote_group : comm.group),
      local_pes_(comm.group),
      peer_context_(comm.context + 1),
      local_context_(comm.is_inter() ? comm.context + 2 + 1 : comm.context + 1),
      rank_(comm.rank),
      tag_(tag),
      byte_type_(c.types().find_committed(MPI_BYTE)) {}

Schedule::Round& Schedule::open_round() {
  if (rounds_.empty() || closed_) {
    rounds_.emplace_back();
    closed_ = false;
  }
  return rounds_.back();
}

void Schedule::add_transfer(Transfer t) {
  if (!rounds_.empty() && !rounds_.back().after.empty()) closed_ = true;  // after local steps: a new round
  open_round().transfers.push_back(t);
}

void Schedule::send(const Ranks& to, int peer, const void* buf, int64_t count, const datatype::Datatype* type,
                    int handle) {
  add_transfer(Transfer{true, to.side, to.map ? to.map[peer] : peer, const_cast<void*>(buf), count, type, handle, false});
}
void Schedule::recv(const Ranks& from, int peer, void* buf, int64_t count, const datatype::Datatype* type,
                    int handle) {
  add_transfer(Transfer{false, from.side, from.map ? from.map[peer] : peer, buf, count, type, handle, pull_alone_});
}
void Schedule::send_bytes(const Ranks& to, int peer, const void* buf, int64_t bytes) {
  send(to, peer, buf, bytes, byte_type_, MPI_BYTE);
}
void Schedule::recv_bytes(const Ranks& from, int peer, void* buf, int64_t bytes) {
  recv(from, peer, buf, bytes, byte_type_, MPI_BYTE);
}

void Schedule::local(std::function<void()> step) {
  Round& r = open_round();
  (r.transfers.empty() ? r.before : r.after).push_back(std::move(step));
}

void Schedule::alongside(std::function<void()> step) { open_round().alongside.push_back(std::move(step)); }

void Schedule::copy(void* dst, const void* src, int64_t bytes) {
  if (bytes == 0 || dst == src) return;
  local([dst, src, bytes] { std::memmove(dst, src, static_cast<size_t>(bytes)); });
}

void Schedule::reduce(const void* in, void* inout, int64_t count) {
  if (count == 0) return;
  local([this, in, inout, count] { op::apply(c_.ops(), op_, op_type_handle_, *op_type_, in, inout, count); });
}

void Schedule::next() {
  if (!rounds_.empty()) closed_ = true;
}

char* Schedule::scratch(int64_t bytes) {
  scratch_.push_back(c_.scratch().take(static_cast<size_t>(bytes)));
  return scratch_.back().memory.get();
}

Schedule::~Schedule() {
  for (ScratchPool::Block& b : scratch_) c_.scratch().give(std::move(b));
}

void Schedule::start_round(Round& r) {
  for (auto& step : r.before) step();
  for (const Transfer& t : r.transfers) {
    p2p::Request* q = c_.engine().requests().create(t.is_send ? p2p::RequestKind::kSend : p2p::RequestKind::kRecv);
    bool local = t.side == Side::kLocal;
    q->buf = t.buf;
    q->count = t.count;
    q->type = t.type;
    q->type_handle = t.handle;
    q->context = local ? local_context_ : peer_context_;
    q->peer_rank = t.peer;
    q->peer_pe = (local ? local_pes_ : peer_pes_)->pes[static_cast<size_t>(t.peer)];
    q->tag = tag_;
    q->my_rank = rank_;
    q->user_owned = true;
    q->pull_alone = t.pull_alone;
    pending_.push_back(q);
    if (t.is_send) {
      c_.engine().start_send(q);
    } else {
      c_.engine().start_recv(q);
    }
  }
  for (auto& step : r.alongside) step();
}

bool Schedule::progress(Error* error) {
  while (current_ < rounds_.size()) {
    Round& r = rounds_[current_];
    if (!started_) {
      started_ = true;
      start_round(r);
    }
    for (p2p::Request* q : pending_) {
      if (!q->complete) return false;
    }
    int failed = MPI_SUCCESS;
    int64_t got = 0, capacity = 0;
    for (p2p::Request* q : pending_) {
      if (q->status_error != MPI_SUCCESS && failed == MPI_SUCCESS) {
        failed = q->status_error, got = q->message_bytes, capacity = q->capacity;
      }
      c_.engine().requests().release(q);
    }
    pending_.clear();
    if (failed != MPI_SUCCESS) {
      // Only mismatched counts between the processes can do this.
      *error = gasket::mpi::error(failed,
                                  "%s: rank %d: a %lld-byte message of the collective did not fit the %lld bytes "
                                  "this rank expects (the processes disagree on counts or types)",
                                  call_, rank_, static_cast<long long>(got), static_cast<long long>(capacity));
      current_ = rounds_.size();
      return true;
    }
    for (auto& step : r.after) step();
    ++current_;
    started_ = false;
  }
  return true;
}

Error Schedule::restart(const char* call) {
  if (persistent_comm_ == MPI_COMM_NULL || !pending_.empty()) {
    return gasket::mpi::error(MPI_ERR_REQUEST, "%s: rank %d: the %s schedule is not a persistent one at rest", call,
                              rank_, call_);
  }
  comm::Communicator* comm;
  Error e = c_.comms().lookup(persistent_comm_, call, &comm);
  if (!e.is_ok()) return e;
  current_ = 0;
  started_ = false;
  return Error::ok();
}

Error Schedule::run(Guard& g) {
  Error e;
  if (progress(&e)) return e;
  c_.wait(g, [&] { return progress(&e); });
  return e;
}

Error run(Guard& g, Schedule& s) { return s.run(g); }

void start(Context& c, std::unique_ptr<Schedule> s, MPI_Comm comm, MPI_Request* request) {
  p2p::Request* r = c.engine().requests().create(p2p::RequestKind::kOperation);
  r->comm = comm;
  r->operation = std::move(s);
  c.engine().start_operation(r);
  *request = r->handle;
}

}  // namespace gasket::mpi::coll
