// Scratch memory of the collective schedules, kept between collectives: large blocks from
// malloc are fresh mappings each time (a page fault per 4 KiB touched, an munmap at free), which
// dominated large reductions. Owned by the MPI context; keeps at most kKept blocks.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace gasket::mpi::coll {

class ScratchPool {
 public:
  struct Block {
    std::unique_ptr<char[]> memory;
    size_t bytes = 0;
  };
  // A block of at least `bytes` (the smallest kept one that fits, else a new one).
  Block take(size_t bytes) {
    size_t best = kept_.size();
    for (size_t i = 0; i < kept_.size(); ++i) {
      if (kept_[i].bytes >= bytes && (best == kept_.size() || kept_[i].bytes < kept_[best].bytes)) best = i;
    }
    if (best == kept_.size()) return Block{std::unique_ptr<char[]>(new char[bytes > 0 ? bytes : 1]), bytes};
    Block b = std::move(kept_[best]);
    kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(best));
    return b;
  }
  // Gives a block back (the smallest kept one is dropped when full).
  void give(Block b) {
    kept_.push_back(std::move(b));
    if (kept_.size() > kKept) {
      size_t smallest = 0;
      for (size_t i = 1; i < kept_.size(); ++i) {
        if (kept_[i].bytes < kept_[smallest].bytes) smallest = i;
      }
      kept_.erase(kept_.begin() + static_cast<std::ptrdiff_t>(smallest));
    }
  }

 private:
  static constexpr size_t kKept = 16;
  std::vector<Block> kept_;
};

}  // namespace gasket::mpi::coll
