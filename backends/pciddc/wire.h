// The tcp link's wire format. A connection starts with a Hello from the connecting PE (its number
// and the per-job secret), answered by one byte (1: accepted, 0: refused because the pair already
// has a connection). Then both directions carry frames: a FrameHeader, followed for writes by
// `length` payload bytes that land at (segment, offset) of the receiver. Both ends run the same
// binary on the same architecture, so fields travel in host byte order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "backends/backend.h"
#include "core/base/status.h"

namespace gasket::backend::pciddc::wire {

constexpr uint32_t kHelloMagic = 0x48444350;  // "PCDH"
constexpr uint32_t kFrameMagic = 0x46444350;  // "PCDF"
constexpr uint32_t kMaxSecretBytes = 256;

struct Hello {
  uint32_t magic;
  uint32_t src_pe;
  uint32_t secret_bytes;  // followed by the secret
  uint32_t reserved;
};

enum class FrameKind : uint8_t {
  kWrite = 1,         // payload lands at (segment, offset); nr appends id to the receiver's LMR
  kFlushRequest = 2,  // answer with kFlushAck once every earlier frame has landed (quiet)
  kFlushAck = 3,
};

// Flags of the link itself (FrameHeader::wire_flags), apart from the LME entry's own flags.
enum WireFlags : uint16_t {
  // On a write: answer with an acknowledgement once it has landed, as if a flush request followed
  // it. A PE's first write after all its earlier asks were answered carries it, so a lone put
  // followed by quiet costs one round trip (the write and its acknowledgement) instead of two
  // sends and a wait for a separate flush request's answer.
  kAckWanted = 1,
};

// Every frame also acknowledges: `landed` is how many frames the sender has received whole from
// the frame's receiver on this connection (written into memory, notification appended), in the
// order they were sent. Any reverse traffic (a get's reply, an atomic's answer) therefore tells a
// PE which of its writes have landed, and quiet() needs a flush round trip only for writes that no
// later frame from the peer has acknowledged.

struct FrameHeader {
  uint32_t magic;
  uint32_t src_pe;
  uint32_t segment;
  uint32_t length;
  uint64_t offset;
  uint32_t id;  // 24-bit message id
  uint8_t flags;  // EntryFlags
  uint8_t kind;   // FrameKind
  uint16_t wire_flags;  // WireFlags
  uint64_t landed;  // frames from the receiver that have landed at the sender (see above)
};
static_assert(sizeof(FrameHeader) == 40, "the frame header is 40 bytes on the wire");

// The receiver's segments: where a frame may land.
struct Window {
  char* base;
  size_t size;
};
using SegmentWindows = std::map<SegmentId, Window>;

// Checks a Hello (the secret is compared in constant time). `from` describes the remote socket.
Status check_hello(const Hello& hello, const std::string& secret_received, const std::string& secret,
                   int my_pe, int n_pes, const std::string& from);
// Checks a complete header from the authenticated PE `peer` before any payload byte is read;
// on success `*dst` is where the payload goes (null for control frames).
Status check_frame(const FrameHeader& h, int my_pe, int peer, const SegmentWindows& windows,
                   char** dst);

}  // namespace gasket::backend::pciddc::wire
