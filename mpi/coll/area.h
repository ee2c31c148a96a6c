// The same-node collective area of MPI: the core's cell area (core/coll/cells.h), reserved at
// MPI_Init, with one slot per communicator (agreed at communicator creation like the context id;
// MPI_COMM_WORLD has slot 0). The flags' tag is the communicator's context id.
// Beside it, the staging area of the large same-node bcast/allreduce (mpi/coll/shm.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/coll/cells.h"
#include "core/gasket.h"

namespace gasket::mpi::coll {

using CollectiveArea = gasket::coll::CellArea;

// Per PE, for the first kSlots slots of the collective area, four buffers of kBufferBytes in the
// symmetric heap, mapped by the PEs of this node: a large blocking bcast/allreduce copies its data
// in and peers copy it out with plain loads (two memcpys at tens of GB/s instead of one kernel
// copy at ~7). A buffer written in cell round seq is reused only once the cell protocol's step 1
// (everyone has entered the previous round) shows that all its readers are done, with no extra
// synchronisation: data read until its readers enter seq + 1 takes round_buffer (seq & 1); data
// read until seq + 2 (the 2-rank allreduce reduces into the staged inputs and copies the results
// out after its second round) takes two_round_buffer, 2 + ((seq >> 1) & 1): the next chunk, two
// rounds on, takes the other one. Sparse like the heap: a slot's pages cost memory once a large
// collective has used them.
class StagingArea {
 public:
  static constexpr int kSlots = 8;
  static constexpr int kBuffers = 4;
  static constexpr size_t kBufferBytes = size_t{1} << 20;

  // Collective over all PEs (after the collective area); false: no room (the collectives then
  // take the other algorithms).
  bool create(const char* call) {
    base_ = static_cast<char*>(gasket::sym_align(64, kSlots * kBuffers * kBufferBytes, call));
    if (base_ == nullptr) return false;
    peer_bases_.assign(static_cast<size_t>(gasket::n_pes()), nullptr);
    for (int pe = 0; pe < gasket::n_pes(); ++pe) {
      peer_bases_[static_cast<size_t>(pe)] = pe == gasket::my_pe() ? base_ : static_cast<char*>(gasket::peer_pointer(base_, pe));
    }
    return true;
  }
  void destroy(const char* call) {
    if (base_ != nullptr) gasket::sym_free(base_, call);
    base_ = nullptr;
    peer_bases_.clear();
  }
  bool serves(int slot) const { return base_ != nullptr && slot >= 0 && slot < kSlots; }
  // `pe`'s buffer of `slot` for data written in cell round `seq` and read until its readers enter
  // round seq + 1 / seq + 2, as mapped here (`pe` on this node, serves(slot)).
  char* round_buffer(int pe, int slot, uint64_t seq) const { return buffer(pe, slot, seq & 1); }
  char* two_round_buffer(int pe, int slot, uint64_t seq) const { return buffer(pe, slot, 2 + ((seq >> 1) & 1)); }

 private:
  char* buffer(int pe, int slot, uint64_t index) const {
    return peer_bases_[static_cast<size_t>(pe)] + (static_cast<size_t>(slot) * kBuffers + index) * kBufferBytes;
  }
  char* base_ = nullptr;
  std::vector<char*> peer_bases_;
};

}  // namespace gasket::mpi::coll
