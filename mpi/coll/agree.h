// What communicator creation needs from the collectives (mpi/api/comm.cc, topologies): byte
// broadcasts and allgathers over a communicator's group, and the agreement on a new context id.
// Blocking; they run as schedules on the communicator's collective context.
#pragma once

#include <cstdint>

#include <memory>

#include "mpi/base/error.h"
#include "mpi/coll/schedule.h"
#include "mpi/comm/communicator.h"
#include "mpi/context/context.h"

namespace gasket::mpi::coll {

// The allgather below as a schedule not yet run (MPI_Comm_idup runs it as a request).
// `tag` >= 0: the schedule's tag (else the communicator's next collective number).
std::unique_ptr<Schedule> allgather_schedule(Context& c, const void* mine, int64_t bytes, void* all,
                                             const comm::Communicator& comm, int tag = -1);
Error bcast_bytes(Context& c, Guard& g, void* buf, int64_t bytes, int root, const comm::Communicator& comm);
// all[r * bytes ...] = rank r's `mine` (over the group of an intracommunicator).
Error allgather_bytes(Context& c, Guard& g, const void* mine, int64_t bytes, void* all, const comm::Communicator& comm,
                      int tag = -1);
// A context id unused by every member of `comm` (and now taken by each of them); safe when
// several threads create communicators at once. `tag` >= 0: the messages' tag (see
// allgather_schedule).
uint32_t agree_context(Context& c, Guard& g, const comm::Communicator& comm, int tag = -1);
// The same, and a slot of the collective area free at every member (now taken by each; -1 when
// none is). A member that ends up outside the new communicator gives the slot back.
struct Agreement {
  uint32_t context;
  int slot;
};
Agreement agree_with_slot(Context& c, Guard& g, const comm::Communicator& comm);

}  // namespace gasket::mpi::coll

namespace gasket::mpi::api {
using coll::agree_context;  // the name communicator and topology code has always called
}  // namespace gasket::mpi::api
