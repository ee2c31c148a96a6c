// What the core does for a backend that cannot read remote memory or run an atomic natively:
//  - get: a request message to the target, answered by puts of the data straight into the
//    requester's destination when it lies in one of its segments (else into a per-peer bounce
//    zone of the requester's internal segment, then copied), followed by a reply message;
//  - atomics: a request message; the target's handler runs the operation with CPU __atomic
//    builtins on its own memory (cpu_atomic.h) and replies with the old value;
//  - blocked puts where every put is a message (backend::Limits::puts_are_messages): the blocks
//    packed into one put to a zone of the target, whose handler scatters them and replies.
// All block until the reply arrives, progressing meanwhile (so fence/quiet need nothing more).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/backend.h"
#include "core/am/message_layer.h"
#include "core/segments/segment_table.h"

namespace gasket::core::am {

// Writes `len` bytes in pieces of the backend's put limit.
[[nodiscard]] Status put_in_pieces(backend::Backend& backend, int pe, backend::RemoteAddress dst, const void* src,
                                   size_t len);

class EmulatedRma {
 public:
  enum : HandlerId {
    kGetRequest = kFirstCoreHandler,
    kGetReply,
    kAtomicRequest,
    kAtomicReply,
    kBlocksRequest,   // answered with kGetReply
    kScatterRequest,  // answered with kScatterReply
    kScatterReply,
  };

  // Registers its handlers on `messages`. `internal_base` and `layout` locate the bounce zones.
  EmulatedRma(MessageLayer& messages, backend::Backend& backend, const segments::SegmentTable& segments,
              char* internal_base, const MailboxLayout& layout, int my_pe, WaitUntil wait_until);

  // The word that serialises atomics on this PE's segments that are not on a shared file (see
  // WordLock in cpu_atomic.h): the handler takes it for those, as the owner and same-node peers
  // do. Without it (null) every atomic runs as a CPU atomic alone.
  void set_unshared_segment_lock(uint64_t* word, unsigned spin_count) {
    unshared_lock_ = word;
    lock_spin_count_ = spin_count;
  }

  // A request (a get, or a get's piece) of up to kShortGetBytes is answered with the bytes inside
  // the reply (one message each way, like an atomic); longer ones are put by the target into the
  // destination (or the bounce zone), then announced by the reply.
  static constexpr size_t kShortGetBytes = sizeof(uint64_t);
  Status get(int pe, void* dst, backend::RemoteAddress src, size_t len);
  // `count` blocks of `block` bytes, block i from src.offset + i * src_step into dst + i * dst_step:
  // the target gathers as many blocks as fill half the bounce zone into one put, and two such
  // requests are in flight at a time (one round trip per half zone, not per block). Blocks larger
  // than half the zone are one get each. Complete on return.
  Status get_blocks(int pe, void* dst, size_t dst_step, backend::RemoteAddress src, size_t src_step, size_t block,
                    size_t count);
  // The largest block get_blocks gathers and put_blocks packs (half a zone); larger ones are a
  // get or put each.
  size_t max_gathered_block() const { return layout_.bounce_bytes / 2; }
  // `count` blocks of `block` bytes (at most max_gathered_block()), block i from src + i * src_step
  // to dst.offset + i * dst_step on `pe`. Adjacent destination blocks are packed and put straight
  // there. Otherwise as many blocks as fill half of this PE's scatter zone on the target are packed
  // into one put there, followed by a request; the target's handler scatters them and replies. Two
  // requests are in flight (one half is packed while the other's blocks travel). Complete at the
  // target on return, as an emulated get or atomic.
  Status put_blocks(int pe, backend::RemoteAddress dst, size_t dst_step, const void* src, size_t src_step,
                    size_t block, size_t count);
  Result<uint64_t> atomic(int pe, backend::RemoteAddress dst, backend::AtomicOp op, unsigned width,
                          uint64_t operand, uint64_t compare);

 private:
  struct Waiter {
    std::atomic<bool> done{false};
    uint64_t value = 0;
  };
  uint64_t track(Waiter* w);
  void wait(uint64_t cookie, Waiter* w);
  void complete(int src_pe, uint64_t cookie, uint64_t value);
  // The target side: where (segment, offset, len) of this PE is, or a fatal error naming `src_pe`.
  char* local_address(int src_pe, uint32_t segment, uint64_t offset, uint64_t len, const char* what);
  void serve_get(int src_pe, const void* payload, size_t len);
  void serve_blocks(int src_pe, const void* payload, size_t len);
  void serve_scatter(int src_pe, const void* payload, size_t len);
  // Puts `bytes` from `from` at (segment, offset) of `src_pe`, fences, and replies to `cookie`.
  void answer_get(int src_pe, uint64_t cookie, const char* from, uint64_t bytes, uint32_t segment, uint64_t offset);
  void serve_atomic(int src_pe, const void* payload, size_t len);

  MessageLayer& messages_;
  backend::Backend& backend_;
  const segments::SegmentTable& segments_;
  char* internal_base_;
  MailboxLayout layout_;
  int my_pe_;
  WaitUntil wait_until_;
  std::mutex waiters_mutex_;
  std::map<uint64_t, Waiter*> waiters_;
  uint64_t next_cookie_ = 1;
  std::unique_ptr<std::mutex[]> bounce_mutex_;   // per target: one get at a time in its zone
  std::unique_ptr<std::mutex[]> scatter_mutex_;  // per target: one put_blocks at a time in my zone there
  // serve_blocks' gather buffer, kept between requests: handlers run one at a time (MessageLayer).
  std::vector<char> gathered_;
  uint64_t* unshared_lock_ = nullptr;
  unsigned lock_spin_count_ = 0;
};

}  // namespace gasket::core::am
