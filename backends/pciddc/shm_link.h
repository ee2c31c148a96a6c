// The shm link of the PCI-DDC model, for PEs on one host: the poster itself copies each entry into
// the target's segment (mapped here) and appends the id of a notifying entry to the target's LMR,
// which lives in a shared-memory file of the target ("<job>-<pe>-pciddc-lmr"). Copies are done
// when write() returns, in issue order, so delivery per pair is FIFO and quiet() is immediate.
// Then it wakes the target's waiter (StartInfo::wake), since no fd announces such a write.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "backends/pciddc/link.h"
#include "backends/pciddc/receive_list.h"
#include "backends/pciddc/wire.h"
#include "core/segments/shared_memory_file.h"

namespace gasket::backend::pciddc {

class ShmLink final : public Link {
 public:
  struct Options {
    StartInfo start;  // a copy: the core's StartInfo does not outlive create()
    std::vector<bool> reached;  // per PE: reached through this link
    size_t lmr_entries = 0;
    // Called while a target's LMR is full: empties this PE's own LMR so that a target waiting on
    // us can go on.
    std::function<void()> drain_own;
  };
  // Collective: creates this PE's LMR file and maps the LMR of every reached peer.
  static Result<std::unique_ptr<ShmLink>> create(Options options);

  ReceiveList& own_receive_list() { return own_lmr_; }

  Status register_segment(SegmentId id, void* base, size_t size) override;
  Status deregister_segment(SegmentId id) override;
  Status write(const SendEntry& e) override;
  Status quiet() override { return Status::ok(); }
  Status service() override { return Status::ok(); }
  // No fd: write() wakes the target (StartInfo::wake) once its bytes and notification landed.
  bool prepare_sleep(std::vector<pollfd>*) override { return true; }
  std::string describe() const override;

 private:
  explicit ShmLink(Options options) : options_(std::move(options)) {}
  void wake(int pe) const {
    if (options_.start.wake) options_.start.wake(pe);
  }
  Options options_;
  std::vector<segments::SharedMemoryFile> files_;  // own LMR, peers' LMRs, peers' segments
  ReceiveList own_lmr_;
  std::vector<ReceiveList> peer_lmr_;
  std::map<SegmentId, std::vector<wire::Window>> peer_windows_;  // per segment, per PE
  uint64_t writes_ = 0, lmr_full_waits_ = 0;
};

}  // namespace gasket::backend::pciddc
