// What a link of the PCI-DDC model does: carry LME entries to their target and land them there.
// shm_link.h (same host: the poster copies into the target's mapped segment) and tcp_link.h
// (between hosts) implement it; the backend (pciddc_backend.h) runs the LME/LMR on top.
#pragma once

#include <poll.h>

#include <string>
#include <vector>

#include "backends/pciddc/send_list.h"
#include "core/base/status.h"

namespace gasket::backend::pciddc {

class Link {
 public:
  virtual ~Link() = default;
  virtual Status register_segment(SegmentId id, void* base, size_t size) = 0;
  virtual Status deregister_segment(SegmentId id) = 0;
  // Lands one entry at its target (and its id in the target's LMR when nr is set); `e.src` is
  // reusable on return.
  virtual Status write(const SendEntry& e) = 0;
  // Every entry written so far has landed.
  virtual Status quiet() = 0;
  // Incoming traffic, without blocking.
  virtual Status service() = 0;
  // For a waiter about to sleep (backend::InputSignal): appends the fds that announce incoming
  // traffic; false when some may already wait unserved.
  virtual bool prepare_sleep(std::vector<pollfd>* fds) = 0;
  virtual std::string describe() const = 0;
};

}  // namespace gasket::backend::pciddc
