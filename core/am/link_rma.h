// RMA to late peers (processes of other jobs, reached over stream_links.h): every operation is an
// active message that the target runs on its own memory in its handler — a put is applied and
// acknowledged, a get is answered with the bytes, an atomic runs with cpu_atomic (the target's
// atomicity domain, as the core's emulated atomics) and is answered with the old value. Gets and
// atomics complete on return; puts complete when their acknowledgement arrives: quiet() waits for
// those of every target (counted per target).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "backends/backend.h"
#include "core/am/message_layer.h"
#include "core/am/stream_links.h"
#include "core/base/status.h"

namespace gasket::core::am {

// Where an operation lands at the target: (segment id, offset) of its own segment table, or, with
// `exposure` non-zero, offset in that live exposure of user memory (core/memreg).
struct LinkAddress {
  uint32_t segment = 0;
  uint64_t offset = 0;
  uint64_t exposure = 0;
};

class LinkRma {
 public:
  enum : HandlerId {
    kPut = kFirstCoreHandler + 8,
    kGet,
    kAtomic,
    kReply,
  };
  // The target side: this process's memory at `a` with `len` bytes, or null with the reason.
  using Resolve = std::function<char*(const LinkAddress& a, uint64_t len, std::string* why)>;

  LinkRma(StreamLinks& links, Resolve resolve, WaitUntil wait_until);

  Status put(int pe, LinkAddress dst, const void* src, size_t len);
  Status get(int pe, void* dst, LinkAddress src, size_t len);
  Result<uint64_t> atomic(int pe, LinkAddress dst, backend::AtomicOp op, unsigned width, uint64_t operand,
                          uint64_t compare);
  // Waits for the acknowledgement of every put issued so far; the first refused one's error.
  Status quiet();

 private:
  struct Waiter {
    std::atomic<bool> done{false};
    bool failed = false;
    std::string why;
    uint64_t value = 0;
    char* data = nullptr;  // a get's destination
    size_t bytes = 0;
  };
  Status request(int pe, HandlerId id, const std::string& message, Waiter* w);
  void serve(int src_pe, HandlerId id, const char* payload, size_t len);
  void reply(int src_pe, const char* payload, size_t len);

  StreamLinks& links_;
  Resolve resolve_;
  WaitUntil wait_until_;
  std::mutex mutex_;
  uint64_t next_cookie_ = 1;
  std::map<uint64_t, Waiter*> waiters_;
  std::map<int, uint64_t> puts_pending_;  // by target
  std::string put_error_;                 // the first refused put since the last quiet
};

}  // namespace gasket::core::am
