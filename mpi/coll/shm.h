// The same-node fast path of the small blocking collectives (barrier, bcast, reduce, allreduce up
// to CollectiveArea::kCellBytes of contiguous data) on an intracommunicator whose members all
// share this node and which holds a slot of the collective area (area.h).
//
// The protocol (cells, flags, parity, futex sleep) is the core's (core/coll/cells.h), shared
// with OpenSHMEM; this file adapts it: communicator -> PE set + cell slot (tag: the context id),
// MPI op/datatype -> combine callback, waiting with the engine's progress and the context's
// backoff.
#pragma once

#include <cstdint>
#include <vector>

#include "mpi/coll/algorithms.h"
#include "mpi/comm/communicator.h"
#include "mpi/context/context.h"

namespace gasket::mpi::coll {

// Whether the fast path serves `comm` for `bytes` of data (same answer on every member).
bool shm_applies(Context& c, const comm::Communicator& comm, int64_t bytes);

// Node-aware form for a communicator spanning nodes (every member holding the slot; small data;
// commutative ops): members publish into their cells, each node's lowest rank combines its node,
// the node leaders run recursive doubling over point-to-point, and each leader publishes the
// result in its cell for its node. Barrier: count 0.
bool shm_nodes_apply(Context& c, const comm::Communicator& comm, int64_t bytes);
void shm_allreduce_nodes(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out,
                         int64_t count, MPI_Op op, int type_handle, const datatype::Datatype& type);

// `comm` (holding a slot) is being freed: its slot becomes free here once every member has left
// its last cell collective (CollectiveArea::retire).
void shm_retire(Context& c, const comm::Communicator& comm);

// Large blocking bcast/allreduce of contiguous data on the same node, single copy: every member
// exposes its user buffers (core memreg: the kernel copies between the processes) and publishes
// the descriptors in its cell; members read straight out of each other's buffers. Applies from
// GASKET_MPI_COLL_SINGLE_COPY bytes on (default 0: never; e.g. 64K), to intracommunicators with a slot
// whose members are all mapped here.
bool shm_direct_applies(Context& c, const comm::Communicator& comm, int64_t bytes);
// Every member reads the root's buffer (one copy per member, in parallel), then a cell round tells
// the root that all have read it.
// shm_pulled_bcast_applies: where that broadcast replaces the staged one whatever
// GASKET_MPI_COLL_SINGLE_COPY says: from 4 members and 32 KiB up to 1 MiB, while the members
// are at most two per CPU of the node (the same answer on every member; mpi/coll/README.md
// "Broadcast by one kernel copy per receiver").
bool shm_pulled_bcast_applies(Context& c, const comm::Communicator& comm, int64_t bytes);
void shm_direct_bcast(Context& c, Guard& g, const comm::Communicator& comm, void* data, int64_t bytes, int root);
// Reduce-scatter + allgather without intermediate copies: rank q reduces slice q of every
// member's input (x0 op (x1 op ... x_{n-1}), rank order: non-commutative ops too) into slice q of
// its own output; after a cell barrier every member reads the other slices from their owners'
// outputs; a last cell barrier keeps every output exposed until all have read. `in` may equal
// `out` (MPI_IN_PLACE). The result is the same bytes on every member.
void shm_direct_allreduce(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out,
                          int64_t count, MPI_Op op, int type_handle, const datatype::Datatype& type);

// Large blocking bcast/allreduce of contiguous data on the same node through the staging area
// (area.h: per member, four buffers of 1 MiB in the symmetric heap, mapped here): plain memcpys
// instead of kernel copies. Applies from GASKET_MPI_COLL_STAGED bytes on, to intracommunicators
// of 2 or more members holding one of the first StagingArea::kSlots slots, all members mapped
// here, elements of at most a buffer. Data moves in chunks of a buffer, one cell round per chunk
// (bcast) or two (allreduce).
bool shm_staged_applies(Context& c, const comm::Communicator& comm, int64_t bytes, int64_t elem);
// The root copies each piece into its buffer; the others copy it out once the root has published.
// Two ranks past one buffer take the point-to-point schedule (its split pull wins there).
void shm_staged_bcast(Context& c, Guard& g, const comm::Communicator& comm, void* data, int64_t bytes, int root);
// Per chunk of a buffer, slice q reduced by rank q in rank order, x0 op (x1 op ... x_{n-1})
// (non-commutative ops too), then copied out by everyone after a second cell round. From 3 ranks
// every member stages its chunk and rank q reduces into its output and stages the result; at 2
// ranks each stages only the peer's half and reduces its own half into the peer's staged copy
// (mpi/coll/README.md). `in` may equal `out` (MPI_IN_PLACE). Every slice is computed once: every
// member gets the same bytes.
void shm_staged_allreduce(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out,
                          int64_t count, MPI_Op op, int type_handle, const datatype::Datatype& type);

// Blocking gather, scatter, allgather and alltoall of equal blocks (not the v/w forms) on the same
// node through the staging area: one cell round, whatever the number of ranks. Members pack what
// they send into their own buffer (round_buffer of the round), publish, and unpack what they
// receive straight out of the senders' buffers (two memcpys per byte, no point-to-point
// handshakes). Packed data in between, so each side's datatype may differ (signatures match).
// Applies to intracommunicators of 2 or more members that shm_staged_applies serves (the staging
// knob nonzero), every size while the most one member stages, `staged_bytes` (an alltoall's or a
// scatter root's n blocks, a gather's or allgather's one), fits a buffer — at 2 members only up to
// a cell's 2 KiB: the same answer on every member. `mine` null: MPI_IN_PLACE (at the root of gather/scatter; allgather: the block is
// already in all[rank]); an alltoall's `to` empty: in place (the blocks are staged before any
// is read, so `from` may be the send buffer). `all` of gather/scatter: the root's blocks only.
// A gather's root copies its own block across (both layouts contiguous) and the others' blocks in
// the order they come in, waiting for the last one missing when none is in.
bool shm_blocks_apply(Context& c, const comm::Communicator& comm, int64_t staged_bytes);
void shm_staged_gather(Context& c, Guard& g, const comm::Communicator& comm, const Typed* mine,
                       const std::vector<Typed>& all, int root);
void shm_staged_scatter(Context& c, Guard& g, const comm::Communicator& comm, const std::vector<Typed>& all,
                        const Typed* mine, int root);
void shm_staged_allgather(Context& c, Guard& g, const comm::Communicator& comm, const Typed* mine,
                          const std::vector<Typed>& all);
void shm_staged_alltoall(Context& c, Guard& g, const comm::Communicator& comm, const std::vector<Typed>& to,
                         const std::vector<Typed>& from);

// Blocking scatter of equal blocks by one kernel copy per block (core memreg): the root exposes
// its send buffer (its blocks packed back to back first when its type is not contiguous) and
// publishes the descriptor in its cell; every other member pulls its block straight into its
// receive buffer (through scratch when that type is not contiguous) while the root copies its own;
// a last cell round keeps the send buffer exposed, and the root in the call, until all have read.
// Applies from 4 members and 32 KiB blocks where shm_blocks_apply serves the whole send buffer
// (the same answer on every member).
bool shm_pulled_scatter_applies(Context& c, const comm::Communicator& comm, int64_t block);
void shm_pulled_scatter(Context& c, Guard& g, const comm::Communicator& comm, const std::vector<Typed>& all,
                        const Typed* mine, int root);

// Blocking MPI_Reduce (past the cells' 2 KiB) and MPI_Reduce_scatter(_block) of contiguous data
// on the same node, one staged round: every member copies its input (`count` elements, at most a
// buffer: shm_blocks_apply on count * type.size for a reduce, shm_reduce_scatter_applies for a
// reduce_scatter) into its buffer, all but its own part, and publishes; the member that owns part
// q (the root, or rank q of a reduce_scatter: `parts` elements each) combines it out of every
// other staged input and its own input in rank order, x0 op (x1 op ... x_{n-1}) (non-commutative
// ops too), into `out`. `in` may equal `out` (then its own part is staged too, before anything is
// written). `parts` empty: a reduce to `root`.
// shm_reduce_scatter_applies: the communicators shm_blocks_apply serves, at 2 members too past a
// cell (both members stage and both combine: neither waits out a one-way copy).
bool shm_reduce_scatter_applies(Context& c, const comm::Communicator& comm, int64_t bytes);
void shm_staged_reduce(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out, int64_t count,
                       const std::vector<int64_t>& parts, MPI_Op op, int type_handle, const datatype::Datatype& type,
                       int root);

// Blocking MPI_Reduce of contiguous data at 2 ranks from GASKET_MPI_COLL_STAGED bytes
// (shm_staged_applies), any size: the non-root stages its input piece by piece (a quarter of the
// message, at least 16 KiB, one cell round each; oversubscribed whole buffers) and the root
// combines each piece out of its buffer into `out` in rank order (x0 op x1) while the next one is
// staged. `in` may equal `out` (MPI_IN_PLACE).
void shm_pair_reduce(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out, int64_t count,
                     MPI_Op op, int type_handle, const datatype::Datatype& type, int root);

void shm_barrier(Context& c, Guard& g, const comm::Communicator& comm);
void shm_bcast(Context& c, Guard& g, const comm::Communicator& comm, void* data, int64_t bytes, int root);
// `count` elements of `type` (contiguous) from `in` reduced into `out` at `root` (every rank
// when root is -1). `in` may equal `out`.
void shm_reduce(Context& c, Guard& g, const comm::Communicator& comm, const void* in, void* out, int64_t count,
                MPI_Op op, int type_handle, const datatype::Datatype& type, int root);

}  // namespace gasket::mpi::coll
