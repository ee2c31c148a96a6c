// The packets of two-sided MPI, identical on the same-node rings and over active messages.
//   eager:  header + [kFlagId: the sender's request id] + data   (sent by a request: cancellable)
//   RTS:    header + RtsBody + [core/memreg descriptor of the send buffer, or the layout:
//           `layout_blocks` LayoutBlocks of non-contiguous send data, for a same-node pull]
//                                       (rendezvous request: envelope, size, where the data is)
//   CTS:    header + CtsBody            (receiver -> sender: put this range at this address)
//   DATA:   header + DataBody           (sender -> receiver: the range has landed)
//   PUSH:   header + PushBody           (receiver -> sender, same node: write this range at this
//                                        address of mine by the kernel's single copy, then DATA)
//   FIN:    header + FinBody            (receiver -> sender: the receiver copied the data itself)
//   SYNC_ACK: header + FinBody          (receiver -> sender: a synchronous eager send matched)
//   CREDIT: header + FinBody            (receiver -> sender: `sreq` eager bytes were consumed)
//   CANCEL: header + FinBody            (sender -> receiver: drop message `sreq` if still unmatched)
//   CANCEL_ANSWER: header + CancelBody  (receiver -> sender: whether it was dropped)
// A sender's request id on the wire is its handle in the low 32 bits and the send's serial
// number in the high ones (a handle is reused; the id of one send is not).
#pragma once

#include <cstdint>

namespace gasket::mpi::p2p {

enum class Kind : uint8_t { kEager = 1, kRts, kCts, kData, kFin, kSyncAck, kCredit, kCancel, kCancelAnswer, kPush };
constexpr uint8_t kFlagSync = 1;  // synchronous: answer SYNC_ACK on match (the packet has an id)
constexpr uint8_t kFlagId = 2;    // the sender's request id precedes the data

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
  uint32_t descriptor_len;  // > 0: the send buffer is exposed through core/memreg (descriptor follows)
  uint32_t layout_blocks;   // > 0: the data is in these blocks (addr, len) in the sender, unpacked
};

struct LayoutBlock {
  uint64_t addr;
  uint64_t len;
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

struct PushBody {
  uint64_t sreq;
  uint64_t rreq;
  uint64_t data_offset;  // range of the message
  uint64_t length;
  uint64_t dst_addr;     // in the receiver's address space
};

struct FinBody {
  uint64_t sreq;
};

struct CancelBody {
  uint64_t sreq;
  uint64_t cancelled;  // 1: the message was unmatched and is gone
};

}  // namespace gasket::mpi::p2p
