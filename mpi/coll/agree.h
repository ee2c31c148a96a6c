// What communicator creation needs from the collectives (mpi/api/comm.cc, topologies): byte
// broadcasts and allgathers over a communicator's group, and the agreement on a new context id.
// Blocking; they run as schedules on the communicator's collective context.
#pragma once

#include <cstdint>

#include <memory>
#include <vector>

#include "mpi/base/error.h"
#include "mpi/coll/schedule.h"
#include "mpi/comm/communicator.h"
#include "mpi/context/context.h"

namespace gasket::mpi::coll {

// The allgather below as a schedule not yet run (MPI_Comm_idup runs it as a request).
// `tag` >= 0: the schedule's tag (else the communicator's next collective number). `members`
// (optional): the ranks in `comm` of the processes taking part, this one among them (all[i] is
// then members[i]'s); the messages carry ranks of `comm`.
std::unique_ptr<Schedule> allgather_schedule(Context& c, const void* mine, int64_t bytes, void* all,
                                             const comm::Communicator& comm, int tag = -1,
                                             const std::vector<int>* members = nullptr);
Error bcast_bytes(Context& c, Guard& g, void* buf, int64_t bytes, int root, const comm::Communicator& comm);
// all[r * bytes ...] = rank r's `mine` (over the group of an intracommunicator).
Error allgather_bytes(Context& c, Guard& g, const void* mine, int64_t bytes, void* all, const comm::Communicator& comm,
                      int tag = -1, const std::vector<int>* members = nullptr);
// A context id unused by every member of `comm` (and now taken by each of them); safe when
// several threads create communicators at once. `tag` >= 0: the messages' tag; `members`: only
// those ranks of `comm` take part (see allgather_schedule).
uint32_t agree_context(Context& c, Guard& g, const comm::Communicator& comm, int tag = -1,
                       const std::vector<int>* members = nullptr);
// The same, and a slot of the collective area free at every member (now taken by each; -1 when
// none is). A member that ends up outside the new communicator gives the slot back.
struct Agreement {
  uint32_t context;
  int slot;
};
Agreement agree_with_slot(Context& c, Guard& g, const comm::Communicator& comm);

// The agreement on a context id without blocking (MPI_Comm_idup), from the non-blocking range
// (Context::next_nonblocking_context): rounds of offers and verdicts as agree_context's, each an
// allgather progressed by the engine, all on the one tag taken from `comm` at the start (rounds
// follow each other in order, so their messages match in order). Several may be in flight at
// one process on overlapping communicators: a candidate id is taken tentatively at each member
// before all confirm it, so two of them never settle on the same id; a refused candidate is
// retried above it, by a step drawn from the parent's context, so that two agreements that
// refused each other's candidate do not keep meeting.
class ContextAgreement {
 public:
  ContextAgreement(Context& c, const comm::Communicator& comm);
  // Offers start at `floor` itself, below the non-blocking range's next id if need be (ids are
  // checked against the taken ones only): an intercommunicator's two groups meet on one id.
  ContextAgreement(Context& c, const comm::Communicator& comm, uint32_t floor);
  // True when done: context() is agreed (taken at this process and marked used).
  bool progress(Error* e);
  uint32_t context() const { return candidate_; }

 private:
  ContextAgreement(Context& c, const comm::Communicator& comm, uint32_t floor, bool from_floor);
  void start_offers();

  Context& c_;
  comm::Communicator comm_;
  int tag_;
  uint32_t floor_;
  bool from_floor_;  // offers start at floor_ even below next_nonblocking_context
  uint32_t mine_ = 0, candidate_ = 0;
  int verdict_ = 0;
  bool verdicts_round_ = false;
  std::vector<uint32_t> offers_;
  std::vector<int> verdicts_;
  std::unique_ptr<Schedule> round_;
};

}  // namespace gasket::mpi::coll

namespace gasket::mpi::api {
using coll::agree_context;  // the name communicator and topology code has always called
}  // namespace gasket::mpi::api
