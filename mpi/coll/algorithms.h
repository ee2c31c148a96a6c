// The collective algorithms, written as schedules (schedule.h). Choices by size:
//  - barrier: dissemination (ceil(log2 n) rounds of zero-byte messages);
//  - bcast: binomial tree; from kLargeBytes on (n > 2, contiguous data) scatter + ring allgather;
//  - reduce: binomial tree (rooted at 0 and forwarded for non-commutative ops, so that operands
//    always combine in rank order);
//  - allreduce: recursive doubling (odd process counts folded in first, rank order kept); from
//    kLargeBytes on with commutative ops a ring reduce-scatter + ring allgather;
//  - reduce_scatter: ring for commutative ops, else reduce + scatter;
//  - scan/exscan: recursive doubling;
//  - gather/scatter: linear at the root; allgather: every block to every peer in one round (below
//    1 MiB blocks the receives pull alone), from kLargeBytes on a ring; alltoall: one round, from
//    kLargeBytes on pairwise rounds.
// Reductions work on packed data (datatype::pack's stream) in scratch buffers; the rest move
// typed data straight between user buffers.
#pragma once

#include <cstdint>
#include <vector>

#include "mpi/coll/schedule.h"

namespace gasket::mpi::coll {

constexpr int64_t kLargeBytes = 64 << 10;

// Typed data in user memory: `count` elements of `type` at `buf`.
struct Typed {
  void* buf = nullptr;
  int64_t count = 0;
  const datatype::Datatype* type = nullptr;
  int handle = MPI_DATATYPE_NULL;
  int64_t bytes() const { return count * type->size; }
};

// `bytes` bytes at `buf` as Typed data.
inline Typed as_bytes(const Schedule& s, void* buf, int64_t bytes) { return Typed{buf, bytes, s.byte_type(), MPI_BYTE}; }

// A local step copying `src` into `dst` (packed through a temporary unless both are contiguous);
// `alongside`: while the current round's transfers are in flight (Schedule::alongside).
void copy_typed(Schedule& s, const Typed& dst, const Typed& src, bool alongside = false);

void barrier(Schedule& s, const Ranks& g);
void bcast(Schedule& s, const Ranks& g, const Typed& data, int root);

// Reductions over `count` packed elements. `acc` is this rank's contribution in scratch (it is
// overwritten); the result lands in `out` (at `root` only for reduce).
void reduce(Schedule& s, const Ranks& g, char* acc, char* out, int64_t count, int root, bool commutative);
void allreduce(Schedule& s, const Ranks& g, char* acc, char* out, int64_t count, bool commutative);
// Rank i's part is counts[i] elements; out receives this rank's part.
void reduce_scatter(Schedule& s, const Ranks& g, char* acc, const std::vector<int64_t>& counts, char* out,
                    bool commutative);
// out = the reduction over ranks 0..rank (exclusive: 0..rank-1; rank 0's out is left alone).
void scan(Schedule& s, const Ranks& g, const char* mine, char* out, int64_t count, bool exclusive,
          bool commutative);

// Linear gather/scatter. The root passes `blocks` (blocks[i]: rank i's block; with `self` its
// own is skipped: the caller copies it) and the others an empty list and their block `mine`,
// which goes to / comes from rank `root`.
void gather(Schedule& s, const Ranks& g, const Typed& mine, const std::vector<Typed>& blocks, int root, bool self);
void scatter(Schedule& s, const Ranks& g, const std::vector<Typed>& blocks, const Typed& mine, int root, bool self);
// Every rank's block to every rank: blocks[i] (this rank's block already in place when `self`
// is false — an intercommunicator has none). `mine` is what this rank sends.
void allgather(Schedule& s, const Ranks& g, const Typed& mine, const std::vector<Typed>& blocks, bool self);
// to[i] goes to rank i, from[i] comes from rank i (to/from[rank] copied locally when `self`).
void alltoall(Schedule& s, const Ranks& g, const std::vector<Typed>& to, const std::vector<Typed>& from, bool self);

}  // namespace gasket::mpi::coll
