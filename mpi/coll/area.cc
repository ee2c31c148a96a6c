#include "mpi/coll/area.h"

#include <cstring>

#include "core/gasket.h"

namespace gasket::mpi::coll {

Status CollectiveArea::create() {
  size_t bytes = sizeof(Cell) * kSlots * 2;
  base_ = static_cast<Cell*>(gasket::sym_align(64, bytes, "MPI_Init (collective area)"));
  if (base_ == nullptr) return Status(StatusCode::kOutOfMemory, "MPI_Init: no room for the collective area in the symmetric heap");
  std::memset(static_cast<void*>(base_), 0, bytes);
  gasket::barrier_all();  // zeroed everywhere before anyone reads a peer's flag
  return Status::ok();
}

void CollectiveArea::destroy() {
  if (base_ != nullptr) gasket::sym_free(base_, "MPI_Finalize (collective area)");
  base_ = nullptr;
}

CollectiveArea::Cell* CollectiveArea::cell(int pe, int slot, int parity) const {
  Cell* mine = base_ + slot * 2 + parity;
  if (pe == gasket::my_pe()) return mine;
  return static_cast<Cell*>(gasket::peer_pointer(mine, pe));
}

}  // namespace gasket::mpi::coll
