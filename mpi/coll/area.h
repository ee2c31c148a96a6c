// The same-node collective area: a region of the symmetric heap, reserved at MPI_Init, with one
// slot per communicator (agreed at communicator creation like the context id; MPI_COMM_WORLD
// has slot 0). In its slot each member owns two cells (by the parity of the collective's
// sequence number): a flag word (context id << 32 | sequence number), stored last with release
// order, and kCellBytes of data. Members on one node read each other's cells through the core's
// mappings with plain loads (see shm.h for the protocol). Not tied to the MPI context, so the
// context can own it; may call core/gasket.h.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/status.h"

namespace gasket::mpi::coll {

class CollectiveArea {
 public:
  static constexpr int kSlots = 64;
  static constexpr size_t kCellBytes = 2048;
  static constexpr int kMaxMembers = 64;  // larger communicators take the schedules
  struct alignas(64) Cell {
    uint64_t flag;
    uint32_t sleepers;  // members blocked in futex_wait on the flag's low word
    char pad[52];
    char data[kCellBytes];
  };

  // Collective over all PEs (symmetric allocation). A failure leaves the area unusable (every
  // collective then takes its point-to-point schedule).
  Status create();
  // Collective: frees the region.
  void destroy();
  bool usable() const { return base_ != nullptr; }

  // Slots free here (bit i: slot i); take/release at communicator creation and free.
  uint64_t free_slots() const { return free_; }
  void take(int slot) { free_ &= ~(uint64_t{1} << slot); }
  void release(int slot) { free_ |= uint64_t{1} << slot; }

  // `pe`'s cell (this PE's own or a same-node peer's mapping); null when `pe` is not mapped here.
  Cell* cell(int pe, int slot, int parity) const;

 private:
  Cell* base_ = nullptr;  // [slot][parity]
  uint64_t free_ = ~uint64_t{1};  // slot 0 is MPI_COMM_WORLD's
};

}  // namespace gasket::mpi::coll
