// The ucx backend makes an endpoint to a PE at first contact, same-host PEs included: over shared
// memory (ucx-shm) the mapping of a peer's segments, which needs the endpoint, is made when the
// peer is first reached too, not at MPI_Init. So after MPI_Init a PE has endpoints only to the PEs
// init contacted (the barrier's partners and the heap check's neighbours: at most
// 2 ceil(log2 n) + 2); then each PE reaches half of the PEs it has no endpoint to, each by one kind
// of first contact (a put, a get, an atomic fetch-add on the symmetric heap, or an MPI send: the
// backend's active messages), rotating the kind by rank so that every kind is a first contact
// somewhere. Each first contact must make that endpoint and its data must arrive (checked by the
// target, from the plan every PE shares afterwards); the PEs never contacted must still have none.
// Endpoints are read from the backend itself (backends/ucx has_endpoint).
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "backends/ucx/ucx_backend.h"
#include "core/gasket.h"
#include "core/runtime.h"

extern "C" {
#include "tests/mpi/check.h"
}

namespace {

constexpr size_t kBlock = 256;
enum Kind { kPut, kGet, kAtomic, kMessage, kKinds };
const char* const kKindNames[kKinds] = {"put", "get", "atomic", "message"};

unsigned char pattern(int from, int to, size_t i) { return static_cast<unsigned char>(from * 131 + to * 17 + i * 7); }

bool endpoint_to(int pe) { return gasket::backend::ucx::has_endpoint(*gasket::core::Runtime::get()->backend(), pe); }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(gasket::core::Runtime::get()->backend() != nullptr);  // the paths this runs on reach every peer through ucx
  // Symmetric blocks, allocated before endpoints are counted (the allocation is collective).
  auto* inbox = static_cast<unsigned char*>(gasket::sym_calloc(static_cast<size_t>(size), kBlock));
  auto* source = static_cast<unsigned char*>(gasket::sym_malloc(kBlock));
  auto* counter = static_cast<uint64_t*>(gasket::sym_calloc(1, sizeof(uint64_t)));
  CHECK(inbox != nullptr && source != nullptr && counter != nullptr);
  for (size_t i = 0; i < kBlock; ++i) source[i] = pattern(rank, rank, i);
  MPI_Barrier(MPI_COMM_WORLD);

  std::vector<int> uncontacted;
  for (int k = 1; k < size; ++k) {
    const int pe = (rank + k) % size;
    if (!endpoint_to(pe)) uncontacted.push_back(pe);
  }
  const int contacted = size - 1 - static_cast<int>(uncontacted.size());
  int rounds = 0;
  while ((1 << rounds) < size) ++rounds;
  if (contacted > 2 * rounds + 2) {
    std::fprintf(stderr, "rank %d: endpoints to %d of %d PEs after MPI_Init, more than the %d it contacted\n", rank,
                 contacted, size - 1, 2 * rounds + 2);
  }
  CHECK(contacted <= 2 * rounds + 2);

  // First contacts: half of the uncontacted PEs (rounded up), one kind each.
  std::vector<int> plan(static_cast<size_t>(size), -1);  // per target: the kind of its first contact
  std::vector<MPI_Request> sends;
  std::vector<std::vector<unsigned char>> messages;
  const size_t n_targets = (uncontacted.size() + 1) / 2;
  int kinds_used = 0;
  for (size_t i = 0; i < n_targets; ++i) {
    const int pe = uncontacted[i];
    const int kind = static_cast<int>((static_cast<size_t>(rank) + i) % kKinds);
    plan[static_cast<size_t>(pe)] = kind;
    kinds_used |= 1 << kind;
    unsigned char block[kBlock];
    for (size_t b = 0; b < kBlock; ++b) block[b] = pattern(rank, pe, b);
    switch (kind) {
      case kPut:
        gasket::put(inbox + static_cast<size_t>(rank) * kBlock, block, kBlock, pe);
        gasket::quiet();
        break;
      case kGet: {
        unsigned char got[kBlock];
        gasket::get(got, source, kBlock, pe);
        size_t bad = 0;
        for (size_t b = 0; b < kBlock; ++b) bad += got[b] != pattern(pe, pe, b);
        if (bad != 0) std::fprintf(stderr, "rank %d: get of PE %d's block: %zu bytes wrong\n", rank, pe, bad);
        CHECK_EQ(bad, size_t{0});
        break;
      }
      case kAtomic:
        gasket::atomic_fetch_add(counter, uint64_t(rank) + 1, pe);
        break;
      case kMessage:
        messages.emplace_back(block, block + kBlock);
        sends.emplace_back();
        MPI_Isend(messages.back().data(), static_cast<int>(kBlock), MPI_BYTE, pe, 7, MPI_COMM_WORLD, &sends.back());
        break;
    }
    if (!endpoint_to(pe)) std::fprintf(stderr, "rank %d: no endpoint to PE %d after a %s\n", rank, pe, kKindNames[kind]);
    CHECK(endpoint_to(pe));
  }
  for (size_t i = n_targets; i < uncontacted.size(); ++i) {
    const int pe = uncontacted[i];
    if (endpoint_to(pe)) std::fprintf(stderr, "rank %d: an endpoint to PE %d, never contacted\n", rank, pe);
    CHECK(!endpoint_to(pe));
  }

  // Every target checks what its first contacts left, from the plans of all PEs.
  std::vector<int> from(static_cast<size_t>(size), -1);
  MPI_Alltoall(plan.data(), 1, MPI_INT, from.data(), 1, MPI_INT, MPI_COMM_WORLD);
  uint64_t added = 0;
  for (int pe = 0; pe < size; ++pe) {
    const int kind = from[static_cast<size_t>(pe)];
    const unsigned char* put = inbox + static_cast<size_t>(pe) * kBlock;
    size_t bad = 0;
    for (size_t b = 0; b < kBlock; ++b) bad += put[b] != (kind == kPut ? pattern(pe, rank, b) : 0);
    if (kind == kAtomic) added += uint64_t(pe) + 1;
    if (kind == kMessage) {
      unsigned char got[kBlock];
      MPI_Status status;
      MPI_Recv(got, static_cast<int>(kBlock), MPI_BYTE, pe, 7, MPI_COMM_WORLD, &status);
      for (size_t b = 0; b < kBlock; ++b) bad += got[b] != pattern(pe, rank, b);
    }
    if (bad != 0) std::fprintf(stderr, "rank %d: %zu bytes wrong from PE %d's %s\n", rank, bad, pe, kind < 0 ? "nothing" : kKindNames[kind]);
    CHECK_EQ(bad, size_t{0});
  }
  CHECK_EQ(*counter, added);
  MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE);

  int all_kinds = 0;
  MPI_Allreduce(&kinds_used, &all_kinds, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
  // From 8 PEs every PE has uncontacted peers (at most 2 ceil(log2 n) + 2 contacted, fewer than
  // n - 1 from 16 on; at 8 the barrier's and the heap check's partners coincide in part), so the
  // rotation makes each kind a first contact somewhere.
  if (size >= 8) CHECK_EQ(all_kinds, (1 << kKinds) - 1);
  if (rank == 0) {
    std::printf("first contacts by kind (mask %d); rank 0 had endpoints to %d of %d PEs after MPI_Init\n", all_kinds,
                contacted, size - 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  gasket::sym_free(counter);
  gasket::sym_free(source);
  gasket::sym_free(inbox);
  MPI_Finalize();
  return 0;
}
