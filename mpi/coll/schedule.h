// A collective as a schedule (libNBC-style): rounds of sends and receives over the internal
// point-to-point, with local steps (copies, reductions, pack/unpack) before and after each
// round's transfers. The blocking form runs it to completion at once (run()); the non-blocking
// form hands it to the engine as the Operation of a kOperation request (start()), polled on every
// progress call — one implementation for both.
//
// Traffic runs on the communicator's collective context (context + 1; an intercommunicator's own
// group on its local context + 1) with the collective's sequence number as tag, so collectives
// in flight at once on one communicator never match each other's messages. Peers exchange at
// most one message per direction in a round, so the non-overtaking order matches them up.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "mpi.h"
#include "mpi/base/error.h"
#include "mpi/coll/scratch.h"
#include "mpi/comm/communicator.h"
#include "mpi/context/context.h"
#include "mpi/datatype/datatype.h"

namespace gasket::mpi::coll {

// Whom a transfer names: the communicator's peers (an intercommunicator's remote group), or an
// intercommunicator's own local group.
enum class Side : uint8_t { kPeers, kLocal };

// The ranks a builder works on: this process's rank and the size of one side; with `map`, the
// builder's rank i is rank map[i] of the side (a subset, e.g. the node leaders).
struct Ranks {
  int rank = 0;
  int size = 1;
  Side side = Side::kPeers;
  const int* map = nullptr;
};

// The tag of `comm`'s next collective (its sequence number, counted up); a collective made of
// several schedules in turn takes one for all of them. A collective whose messages are told
// apart by channel (a neighborhood collective on a Cartesian grid) takes `n` consecutive tags,
// the returned one and the n - 1 after it, never wrapping.
int take_collective_tag(const comm::Communicator& comm, int n = 1);

class Schedule final : public p2p::Operation {
 public:
  // Takes the next collective sequence number of `comm` for the tag, or uses `tag` as given
  // (MPI_Comm_create_group: the user's tag tells concurrent calls apart).
  Schedule(Context& c, const comm::Communicator& comm, const char* call);
  Schedule(Context& c, const comm::Communicator& comm, const char* call, int tag);
  ~Schedule() override;

  // The ranks of the peers side (intracommunicator: the group; intercommunicator: this process's
  // rank in its group, the remote group's size) and of the local group.
  Ranks peers() const { return Ranks{rank_, static_cast<int>(peer_pes_->pes.size()), Side::kPeers}; }
  Ranks local() const { return Ranks{rank_, static_cast<int>(local_pes_->pes.size()), Side::kLocal}; }

  // The operation reduce() applies (checked by the caller: op::check).
  void set_reduction(MPI_Op op, int type_handle, const datatype::Datatype* type) {
    op_ = op, op_type_handle_ = type_handle, op_type_ = type;
  }

  // Transfers of `count` elements of `type` (bytes: MPI_BYTE) in the current round.
  void send(const Ranks& to, int peer, const void* buf, int64_t count, const datatype::Datatype* type, int handle);
  void recv(const Ranks& from, int peer, void* buf, int64_t count, const datatype::Datatype* type, int handle);
  void send_bytes(const Ranks& to, int peer, const void* buf, int64_t bytes);
  void recv_bytes(const Ranks& from, int peer, void* buf, int64_t bytes);
  // Local steps: before the current round's transfers when it has none yet, else after them.
  void copy(void* dst, const void* src, int64_t bytes);
  // inout = in (op) inout over `count` packed elements of the reduction's type.
  void reduce(const void* in, void* inout, int64_t count);
  void local(std::function<void()> step);
  // A local step run once the current round's transfers have started, while they are in flight
  // (a rooted collective's own block, copied while the peers move theirs).
  void alongside(std::function<void()> step);
  // Ends the round: later transfers start once everything before has completed.
  void next();
  // The receives added from now on pull a same-node rendezvous alone, never asking the sender to
  // copy half (p2p split pull): for senders with other transfers or their own block to copy
  // meanwhile (a scatter's root), and for rounds whose peers need not run at the same time
  // (oversubscribed).
  void pull_alone() { pull_alone_ = true; }
  // Scratch memory owned by the schedule (stable address, 16-byte aligned).
  char* scratch(int64_t bytes);

  bool progress(Error* error) override;
  // Persistent collectives (MPI_*_init): the schedule built once runs again at each MPI_Start,
  // under the tag it took at its initialization: persistent collectives match in the order of
  // their *_init calls, whatever the order of the starts (MPI 4.1 section 6.13); one request's
  // rounds follow each other, so its messages of one start never meet those of the next. Its
  // local steps read the user's buffers anew.
  void make_persistent(MPI_Comm handle) { persistent_comm_ = handle; }
  Error restart(const char* call) override;
  // Blocking: runs to completion.
  Error run(Guard& g);

  const char* call() const { return call_; }
  const datatype::Datatype* byte_type() const { return byte_type_; }
  int64_t packed_size() const { return op_type_ != nullptr ? op_type_->size : 1; }

 private:
  struct Transfer {
    bool is_send;
    Side side;
    int peer;
    void* buf;
    int64_t count;
    const datatype::Datatype* type;
    int handle;
    bool pull_alone;  // a receive: Request::pull_alone
  };
  struct Round {
    std::vector<std::function<void()>> before, alongside, after;
    std::vector<Transfer> transfers;
  };
  Round& open_round();
  void add_transfer(Transfer t);
  void start_round(Round& r);

  Context& c_;
  const char* call_;
  std::shared_ptr<const comm::Group> peer_pes_, local_pes_;
  uint32_t peer_context_, local_context_;
  int rank_;
  int tag_;
  MPI_Op op_ = MPI_OP_NULL;
  int op_type_handle_ = 0;
  const datatype::Datatype* op_type_ = nullptr;
  const datatype::Datatype* byte_type_;

  std::vector<Round> rounds_;
  bool closed_ = false;  // next() was called: the next step opens a round
  size_t current_ = 0;
  bool started_ = false;
  bool pull_alone_ = false;
  std::vector<p2p::Request*> pending_;
  std::vector<ScratchPool::Block> scratch_;
  MPI_Comm persistent_comm_ = MPI_COMM_NULL;
};

// Blocking: runs `s`. Non-blocking: a started kOperation request for it in *request (errors go
// to `comm`'s handler when it is waited for).
Error run(Guard& g, Schedule& s);
void start(Context& c, std::unique_ptr<Schedule> s, MPI_Comm comm, MPI_Request* request);

}  // namespace gasket::mpi::coll
