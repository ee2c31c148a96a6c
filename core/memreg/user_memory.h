// User memory exposed to peers: the engine behind gasket::memreg::expose/release/put/get
// (core/gasket.h). The owner of a buffer exposes it and hands the descriptor to its peers; a peer
// moves bytes into or out of it by (descriptor, offset) on the best path to the owner:
//  - itself: memcpy;
//  - a same-node peer: one copy by the kernel (process_vm_readv/writev into the owner's address,
//    KernelCopy) unless GASKET_MEMREG_SINGLE_COPY=no or the kernel refuses (EPERM: ptrace
//    policy) — then, for that peer from then on, the bounce path;
//  - another node (or GASKET_LOCAL=backend) over a backend that registers user memory (ucx): the
//    owner registered the buffer through the registration cache (once for a buffer used
//    repeatedly) and the descriptor carries the backend's packed key; the peer attaches it on
//    first use and puts/gets one-sided;
//  - otherwise (pciddc: no registration in the model) the bounce path.
// The bounce path is a pipelined copy through the bounce segment (segments::kBounceSegment, a
// collective, file-backed segment: mapped by same-node peers, registered with the backend). In PE
// X's copy, channel Y (written only by Y) holds Y's two request slots, the two completion words
// of X's requests answered by Y, and two stages of data each way. A requester writes a stage
// (data, request fields, then the sequence number) and goes on with the other stage while the
// owner, in its progress, copies between the stage and the exposed memory and answers in the
// requester's completion word. The owner checks every request against its live exposures: a
// stale or out-of-range one is refused and the requester's call fails naming both PEs.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"
#include "core/base/status.h"
#include "core/memreg/exposure.h"
#include "core/memreg/kernel_copy.h"
#include "core/memreg/registration_cache.h"
#include "core/segments/segment_table.h"

namespace gasket::memreg {

struct UserMemoryOptions {
  int my_pe = 0;
  int n_pes = 1;
  std::vector<bool> direct;  // per PE: reached by the direct same-node path (bounce segment mapped)
  backend::Backend* backend = nullptr;  // null when no peer is reached through a backend
  segments::SegmentTable* segments = nullptr;  // holds kBounceSegment
  size_t stage_bytes = 64 * 1024;  // GASKET_MEMREG_BOUNCE
  bool single_copy = true;         // GASKET_MEMREG_SINGLE_COPY=auto
  size_t cache_limit = 0;          // GASKET_MEMREG_LIMIT
  std::function<void(unsigned* polls)> wait_step;  // progresses everything while waiting
};

class UserMemory {
 public:
  // Bytes of the bounce segment for `n_pes` PEs and stages of `stage_bytes`.
  static size_t bounce_segment_bytes(int n_pes, size_t stage_bytes);

  explicit UserMemory(UserMemoryOptions options);
  ~UserMemory();
  UserMemory(const UserMemory&) = delete;
  UserMemory& operator=(const UserMemory&) = delete;

  [[nodiscard]] Result<Exposure> expose(const void* addr, size_t len, const char* call);
  [[nodiscard]] Status release(const Exposure& exposure, const char* call);
  // Complete on return: `src` is reusable; the bytes are visible at the owner after quiet()
  // (at once on the kernel, self and bounce paths).
  [[nodiscard]] Status put(int pe, std::string_view descriptor, size_t offset, const void* src, size_t len,
                           const char* call);
  [[nodiscard]] Status get(int pe, std::string_view descriptor, size_t offset, void* dst, size_t len,
                           const char* call);
  // Late peers (another job) move bytes as active messages (core/am/link_rma.h) naming the
  // exposure: its id from a descriptor, checked like parse() but for a PE of another job...
  [[nodiscard]] Result<uint64_t> exposure_of(std::string_view descriptor, size_t offset, size_t len,
                                             const char* call) const;
  // ...and, at the owner, where [offset, offset + len) of live exposure `exposure` is (null: none).
  char* exposed_range(uint64_t exposure, uint64_t offset, uint64_t len) const;

  // Serves the bounce requests of peers (the runtime's progress calls it).
  void serve();
  // Counters, one "name: values" line each (GASKET_STATS=1 prints them at finalize).
  std::vector<std::string> statistics() const;

 private:
  struct Descriptor;
  struct Live {  // an exposure of this PE
    uintptr_t address;
    size_t length;
    bool registered;
    Registration registration;
  };
  class BackendRegistrar;
  enum class Op : uint64_t { kPut = 1, kGet = 2 };

  Result<Descriptor> parse(int pe, std::string_view descriptor, size_t offset, size_t len, const char* call) const;
  // The header and bounds checks of parse(), `who` naming the call and both sides.
  static Result<Descriptor> decode(std::string_view descriptor, size_t offset, size_t len, const std::string& who);
  Status transfer(Op op, int pe, std::string_view descriptor, size_t offset, char* local, size_t len,
                  const char* call);
  Status kernel_transfer(Op op, const Descriptor& d, size_t offset, char* local, size_t len, bool* refused,
                         const char* call);
  Status backend_transfer(Op op, const Descriptor& d, size_t offset, char* local, size_t len, const char* call);
  Status bounce_transfer(Op op, const Descriptor& d, size_t offset, char* local, size_t len, const char* call);
  // Bounce segment layout and access.
  size_t channel_offset(int of_pe) const { return static_cast<size_t>(of_pe) * channel_bytes_; }
  char* own_channel(int peer) const;
  Status write_to(int pe, size_t bounce_offset, const void* src, size_t len);
  Status publish(int pe, size_t bounce_offset, uint64_t value);
  void serve_request(int peer, int stage);

  UserMemoryOptions options_;
  size_t channel_bytes_;
  char* bounce_base_;
  const segments::Segment* bounce_;
  backend::UserRegistration* registration_ = nullptr;
  std::unique_ptr<BackendRegistrar> registrar_;
  std::unique_ptr<RegistrationCache> cache_;  // with a backend that registers user memory

  mutable std::mutex mutex_;  // exposures_, kernel_ pids, refused_
  std::map<uint64_t, Live> exposures_;
  uint64_t next_exposure_ = 0;
  std::atomic<bool> ever_exposed_{false};
  KernelCopy kernel_;
  std::vector<bool> refused_;  // per PE: the kernel refused single copy

  // Requester side, per owner: one bounce transfer at a time; sequence numbers per stage.
  std::unique_ptr<std::mutex[]> peer_mutex_;
  std::vector<uint64_t> next_seq_;
  std::vector<uint64_t> last_seq_[2];
  // Owner side: the last request served per (peer, stage).
  std::mutex serve_mutex_;
  std::vector<uint64_t> served_[2];

  // Statistics.
  std::atomic<uint64_t> n_exposures_{0}, bytes_self_{0}, bytes_kernel_{0}, bytes_backend_{0}, bytes_bounce_{0},
      bounce_served_{0}, refusals_{0};
};

}  // namespace gasket::memreg
