#include "mpi/coll/agree.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "mpi/coll/algorithms.h"

namespace gasket::mpi::coll {

Error bcast_bytes(Context& c, Guard& g, void* buf, int64_t bytes, int root, const comm::Communicator& comm) {
  Schedule s(c, comm, "MPI_Bcast");
  bcast(s, s.peers(), as_bytes(s, buf, bytes), root);
  return s.run(g);
}

std::unique_ptr<Schedule> allgather_schedule(Context& c, const void* mine, int64_t bytes, void* all,
                                             const comm::Communicator& comm) {
  auto s = std::make_unique<Schedule>(c, comm, "MPI_Allgather");
  char* out = static_cast<char*>(all);
  std::memcpy(out + comm.rank * bytes, mine, static_cast<size_t>(bytes));
  std::vector<Typed> blocks;
  for (int r = 0; r < comm.size(); ++r) blocks.push_back(as_bytes(*s, out + r * bytes, bytes));
  allgather(*s, s->peers(), as_bytes(*s, const_cast<void*>(mine), bytes), blocks, true);
  return s;
}

Error allgather_bytes(Context& c, Guard& g, const void* mine, int64_t bytes, void* all, const comm::Communicator& comm) {
  return allgather_schedule(c, mine, bytes, all, comm)->run(g);
}

namespace {
struct Offer {
  uint64_t free_slots;
  uint32_t context;
  uint32_t unused;
};

Agreement agree(Context& c, Guard& g, const comm::Communicator& comm, bool with_slot) {
  Offer mine{with_slot && c.area().usable() ? c.area().free_slots() : 0, c.comms().next_context(), 0};
  std::vector<Offer> all(static_cast<size_t>(comm.size()));
  (void)allgather_bytes(c, g, &mine, sizeof mine, all.data(), comm);
  Agreement a{0, -1};
  uint64_t free = ~uint64_t{0};
  for (const Offer& o : all) a.context = std::max(a.context, o.context), free &= o.free_slots;
  c.comms().use_context(a.context);
  if (free != 0) {
    a.slot = __builtin_ctzll(free);
    c.area().take(a.slot);
  }
  return a;
}
}  // namespace

uint32_t agree_context(Context& c, Guard& g, const comm::Communicator& comm) { return agree(c, g, comm, false).context; }

Agreement agree_with_slot(Context& c, Guard& g, const comm::Communicator& comm) { return agree(c, g, comm, true); }

}  // namespace gasket::mpi::coll
