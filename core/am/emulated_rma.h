// What the core does for a backend that cannot read remote memory or run an atomic natively:
//  - get: a request message to the target, answered by puts of the data straight into the
//    requester's destination when it lies in one of its segments (else into a get zone of the
//    requester's internal segment, one of a pool claimed per get, then copied), followed by a
//    reply message;
//  - atomics: a request message; the target's handler runs the operation with CPU __atomic
//    builtins on its own memory (cpu_atomic.h) and replies with the old value;
//  - blocked puts where every put is a message (backend::Limits::puts_are_messages): the blocks
//    packed into one put to a scatter zone of the target (one of its pool, claimed from it per
//    operation by a request), whose handler scatters them and replies;
//  - services: a client's procedure (MPI's accumulates on derived types) run by the target's
//    handler on bytes put to such a zone, answered with a status word and bytes put back.
// Zones are pools (MailboxLayout::zones of each kind per PE), never one per PE of the job.
// All block until the reply arrives, progressing meanwhile (so fence/quiet need nothing more).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
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
    kServiceRequest,  // answered with kServiceReply
    kServiceReply,
    kZoneClaim,    // answered with kScatterReply (the zone), at once or when one is released
    kZoneRelease,  // one way
  };

  // Registers its handlers on `messages`. `internal_base` and `layout` locate the zones.
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
  // the target gathers as many blocks as fill half a get zone into one put, and two such
  // requests are in flight at a time (one round trip per half zone, not per block). Blocks larger
  // than half the zone are one get each. Complete on return.
  Status get_blocks(int pe, void* dst, size_t dst_step, backend::RemoteAddress src, size_t src_step, size_t block,
                    size_t count);
  // The largest block get_blocks gathers and put_blocks packs (half a zone); larger ones are a
  // get or put each.
  size_t max_gathered_block() const { return layout_.bounce_bytes / 2; }
  // `count` blocks of `block` bytes (at most max_gathered_block()), block i from src + i * src_step
  // to dst.offset + i * dst_step on `pe`. Adjacent destination blocks are packed and put straight
  // there. Otherwise a scatter zone of the target is claimed (a round trip; queued there while all
  // are held), as many blocks as fill half of it are packed into one put there, followed by a
  // request; the target's handler scatters them and replies. Two requests are in flight (one half
  // is packed while the other's blocks travel); the zone is released at the end. Complete at the
  // target on return, as an emulated get or atomic.
  Status put_blocks(int pe, backend::RemoteAddress dst, size_t dst_step, const void* src, size_t src_step,
                    size_t block, size_t count);
  Result<uint64_t> atomic(int pe, backend::RemoteAddress dst, backend::AtomicOp op, unsigned width,
                          uint64_t operand, uint64_t compare);

  // A client's procedure, registered under the same id on every PE, that the target's handler runs
  // on a request's `in_len` input bytes; it writes `out_len` answer bytes at `out` and returns a
  // status word (both go back to the caller). Runs from progress, one handler at a time, possibly
  // on the progress thread; it may not wait for other PEs (it may run atomics on its own memory).
  using Service = std::function<uint64_t(int src_pe, const char* in, size_t in_len, char* out, size_t out_len)>;
  static constexpr unsigned kServices = 4;
  // Installs (or, with an empty function, removes) service `id`: a request for a service that is
  // not installed ends the job naming the sender and the id.
  void set_service(unsigned id, Service fn);
  // One request to a service: its input, where its answer goes, and the status it returned.
  struct ServiceCall {
    const char* in = nullptr;  // at most max_gathered_block() bytes
    size_t in_len = 0;
    char* out = nullptr;       // out_len bytes (at most max_gathered_block()) written on return
    size_t out_len = 0;
    uint64_t status = kNotRun;
  };
  static constexpr uint64_t kNotRun = ~uint64_t{0};
  // Runs calls[0..n) of service `id` on `pe` in order, two in flight: each input is put to a half
  // of a scatter zone claimed there (then a request), each answer to a half of one of this PE's
  // get zones (then the reply). `last_alone`: the last call goes only once every earlier one is
  // answered. After a call answered with a non-zero status no further call is sent (theirs stay
  // kNotRun). Complete on return.
  Status call_service(int pe, unsigned id, ServiceCall* calls, size_t n, bool last_alone);

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
  void serve_service(int src_pe, const void* payload, size_t len);

  // This PE's get zones: a bit per free zone. claim_get_zone waits (progressing) while all are
  // held by operations of other threads; a holder never waits for a second get zone.
  class GetZone;
  size_t claim_get_zone();
  void release_get_zone(size_t zone);
  // A scatter zone of `pe`, claimed for one operation (ScatterZone releases it).
  class ScatterZone;
  Result<uint32_t> claim_scatter_zone(int pe);
  // The target side of scatter zones (run by handlers, one at a time).
  void serve_zone_claim(int src_pe, const void* payload, size_t len);
  void serve_zone_release(int src_pe, const void* payload, size_t len);
  void grant_zone(int src_pe, uint64_t cookie, uint32_t zone);
  // Where half `half` of scatter zone `zone` is, or a fatal error naming `src_pe` when it does not
  // hold that zone.
  char* scatter_landing(int src_pe, uint32_t zone, uint32_t half, const char* what);

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
  // serve_blocks' gather buffer, kept between requests: handlers run one at a time (MessageLayer).
  std::vector<char> gathered_;
  std::vector<char> answer_;  // serve_service's answer, likewise
  std::mutex services_mutex_;
  Service services_[kServices];
  uint64_t* unshared_lock_ = nullptr;
  unsigned lock_spin_count_ = 0;
  std::atomic<uint64_t> free_get_zones_{0};  // a bit per free get zone
  // The target side: the peer holding each scatter zone (-1: free) and the claims waiting, in order.
  std::mutex zones_mutex_;
  std::vector<int> zone_holder_;
  struct ZoneClaim {
    int pe;
    uint64_t cookie;
  };
  std::deque<ZoneClaim> zone_claims_;
};

}  // namespace gasket::core::am
