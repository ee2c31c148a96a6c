// A buffer of this PE made reachable by its peers (core/gasket.h, gasket::memreg::expose): the
// value its owner keeps until release, and the descriptor — opaque bytes — that the owner hands to
// the peers that will put into or get from it (MPI sends it in its rendezvous reply).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gasket::memreg {

struct Exposure {
  uint64_t id = 0;          // the owner's exposure number (never reused); 0: none
  const void* address = nullptr;
  size_t length = 0;
  std::string descriptor;   // for peers: gasket::memreg::put/get(owner, descriptor, ...)
};

}  // namespace gasket::memreg
