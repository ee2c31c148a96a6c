// The pollable half of a PE's doorbell (core/README.md "Waiting"). A waiter that sleeps in poll()
// — with its backend's fds, on backend paths — cannot sleep on the doorbell's futex, so each PE
// also binds a datagram socket to an abstract name of its own; a ringer that sees such a waiter
// (InternalArea::Doorbell::pollers) sends it one byte. Bytes are hints only: the waiter drains
// them and rechecks its condition.
#pragma once

#include <sys/socket.h>
#include <sys/un.h>

#include <functional>
#include <string>

#include "core/base/status.h"

namespace gasket::core {

class BellSocket {
 public:
  BellSocket() = default;
  ~BellSocket();
  BellSocket(const BellSocket&) = delete;
  BellSocket& operator=(const BellSocket&) = delete;

  // Binds this PE's socket to the abstract name `own`; `name_of(pe)` gives the name of a PE it
  // rings, computed at each ring (a wake-up of a sleeper: rare) instead of an address kept per PE.
  Status open(const std::string& own, std::function<std::string(int pe)> name_of);
  // The fd that turns readable when rung; -1 before open().
  int fd() const { return fd_; }
  // Sends PE `pe` one byte (never blocks: a full or closed socket is rung already or gone).
  void ring(int pe) const;
  // Reads every byte rung so far.
  void drain() const;

 private:
  int fd_ = -1;
  std::function<std::string(int pe)> name_of_;
};

}  // namespace gasket::core
