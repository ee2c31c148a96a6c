// The packets of two-sided MPI, identical on the same-node rings and over active messages.
//   eager:  header + [sync: sender request id] + data
//   RTS:    header + RtsBody            (rendezvous request: envelope, size, where the data is)
//   CTS:    header + CtsBody            (receiver -> sender: put this range at this address)
//   DATA:   header + DataBody           (sender -> receiver: the range has landed)
//   FIN:    header + FinBody            (receiver -> sender: the receiver copied the data itself)
//   SYNC_ACK: header + FinBody          (receiver -> sender: a synchronous eager send matched)
//   CREDIT: header + FinBody            (receiver -> sender: `sreq` eager bytes were consumed)
#pragma once

#include <cstdint>

namespace gasket::mpi::p2p {

enum class Kind : uint8_t { kEager = 1, kRts, kCts, kData, kFin, kSyncAck, kCredit };
constexpr uint8_t kFlagSync = 1;

struct Header {
  uint32_t seq;  // rings: the slot's sequence flag (written last); active messages: per-source order
  uint8_t kind;
  uint8_t flags;
  uint16_t reserved;
  int32_t tag;
  uint32_t context;
  int32_t src_rank;
  uint32_t len;  // bytes after the header
};
static_assert(sizeof(Header) == 24, "packet header layout");

struct RtsBody {
  uint64_t sreq;     // the sender's request
  uint64_t size;     // bytes of (packed) data
  uint64_t addr;     // the data in the sender's address space
  uint64_t offset;   // ... and in segment `segment` when in_segment
  uint32_t segment;
  uint32_t in_segment;
};

struct CtsBody {
  uint64_t sreq;
  uint64_t rreq;
  uint64_t data_offset;  // range of the message to put
  uint64_t length;
  uint64_t dst_offset;   // where, in the receiver's segment `segment`
  uint32_t segment;
  uint32_t last;         // the sender's request completes after this range
  uint32_t descriptor_len;  // > 0: a core/memreg descriptor follows (put by descriptor instead)
  uint32_t reserved;
};

struct DataBody {
  uint64_t rreq;
  uint64_t data_offset;
  uint64_t length;
  uint64_t dst_offset;
};

struct FinBody {
  uint64_t sreq;
};

}  // namespace gasket::mpi::p2p
