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

Error allgather_bytes(Context& c, Guard& g, const void* mine, int64_t bytes, void* all, const comm::Communicator& comm) {
  Schedule s(c, comm, "MPI_Allgather");
  char* out = static_cast<char*>(all);
  std::memcpy(out + comm.rank * bytes, mine, static_cast<size_t>(bytes));
  std::vector<Typed> blocks;
  for (int r = 0; r < comm.size(); ++r) blocks.push_back(as_bytes(s, out + r * bytes, bytes));
  allgather(s, s.peers(), as_bytes(s, const_cast<void*>(mine), bytes), blocks, true);
  return s.run(g);
}

uint32_t agree_context(Context& c, Guard& g, const comm::Communicator& comm) {
  uint32_t mine = c.comms().next_context();
  std::vector<uint32_t> all(static_cast<size_t>(comm.size()));
  (void)allgather_bytes(c, g, &mine, sizeof mine, all.data(), comm);
  uint32_t agreed = *std::max_element(all.begin(), all.end());
  c.comms().use_context(agreed);
  return agreed;
}

}  // namespace gasket::mpi::coll
