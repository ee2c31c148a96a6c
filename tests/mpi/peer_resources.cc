// Backend endpoints are made at first contact, not at MPI_Init, so a PE's endpoints after
// MPI_Init do not grow with the PEs it reaches through the backend: it has contacted only the
// partners of the core's dissemination barrier (ceil(log2 n) rounds, one PE written to and one
// answered per round: emulated atomics are answered) and its neighbours of the symmetric-heap
// allocation check (each PE reads the one before it): at most 2 ceil(log2 n) + 2. After an
// all-to-all, which contacts every peer, there is exactly one per peer reached through the
// backend. Counted by the backend itself (ucx: endpoints created; pciddc tcp: connections
// open), read through bench/memory's counters. At 16 and 32 PEs, where the PEs reached through
// the backend outnumber that bound (before, MPI_Init wrote its pid to every PE: one endpoint each).
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "core/gasket.h"

extern "C" int memory_probe_backend_counters(long* registered_kib, long* endpoints);

extern "C" {
#include "tests/mpi/check.h"
}

namespace {
long endpoints() {
  long registered = -1, n = -1;
  CHECK_EQ(memory_probe_backend_counters(&registered, &n), 0);
  CHECK(n >= 0);  // the paths this runs on count their endpoints
  return n;
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long after_init = endpoints();
  // No PE starts the all-to-all (connecting to this one) before every PE has counted.
  MPI_Barrier(MPI_COMM_WORLD);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static long anchor;  // static data: a symmetric address on every PE
  int backend_peers = 0, rounds = 0;
  for (int pe = 0; pe < size; ++pe) backend_peers += pe != rank && gasket::peer_pointer(&anchor, pe) == nullptr;
  while ((1 << rounds) < size) ++rounds;
  const int bound = 2 * rounds + 2;
  CHECK(backend_peers > bound);  // else the count below could not tell on-demand from eager
  if (after_init > bound) {
    std::fprintf(stderr, "rank %d: %ld endpoints after MPI_Init (%d PEs through the backend), more than the %d PEs it contacted\n",
                 rank, after_init, backend_peers, bound);
  }
  CHECK(after_init <= bound);

  std::vector<int> out(static_cast<size_t>(size)), in(static_cast<size_t>(size), -1);
  for (int pe = 0; pe < size; ++pe) out[static_cast<size_t>(pe)] = rank * 1000 + pe;
  MPI_Alltoall(out.data(), 1, MPI_INT, in.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int pe = 0; pe < size; ++pe) CHECK_EQ(in[static_cast<size_t>(pe)], pe * 1000 + rank);
  MPI_Barrier(MPI_COMM_WORLD);
  CHECK_EQ(endpoints(), backend_peers);
  if (rank == 0) std::printf("endpoints: %ld after MPI_Init, %d after an all-to-all (%d PEs)\n", after_init, backend_peers, size);
  MPI_Finalize();
  return 0;
}
