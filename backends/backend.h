// The whole contract between the core and a transport backend.
//
// A backend moves bytes between PEs that are not reached by the core's direct same-node path
// (or all PEs when GASKET_LOCAL=backend). The required core is small: register segments, put,
// fence/quiet, progress. Everything else is an optional capability, queried ONCE at init: the
// core then chooses the native path or its own emulation (get as a request answered by a put,
// atomics run by the target's handler, active messages as mailbox rings over put+notify).
// "Unsupported" is expressed by a null capability interface, never by a method that fails at run
// time.
//
//   capability            pciddc            ucx
//   put                   yes (<= 64 KiB)   yes
//   notify (put+signal)   yes (LMR)         -
//   remote read           -                 yes
//   atomics 32/64         -                 yes (UCP's op set)
//   active messages       - (core mailboxes) yes (UCP AM)
//   user registration     - (core bounce)    yes (ucp_mem_map, packed rkey)
//   segment memory        - (core's files)   yes (ucp_mem_map ALLOCATE; shm transports map it)
//   input signal (sleep)  yes (sockets; shm  - (waiters yield)
//                         writers wake)
#pragma once

#include <poll.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/base/status.h"
#include "core/bootstrap/bootstrap.h"
#include "core/config/config.h"
#include "core/segments/segment_table.h"

namespace gasket::backend {

using segments::SegmentId;

// A location in a peer's segment: the backend-neutral "remote physical address" of the seeds.
struct RemoteAddress {
  SegmentId segment;
  uint64_t offset;
};

// Atomic operations; a capability mask has bit (1 << op) set for each one supported natively.
enum class AtomicOp : uint8_t {
  kFetch,         // read
  kSet,           // write, no fetch
  kSwap,          // write, fetch old
  kCompareSwap,   // write operand if old == compare, fetch old
  kAdd,
  kFetchAdd,
  kAnd,
  kFetchAnd,
  kOr,
  kFetchOr,
  kXor,
  kFetchXor,
  kCount
};
constexpr uint32_t op_bit(AtomicOp op) { return 1u << static_cast<unsigned>(op); }

struct Limits {
  size_t max_put_bytes = SIZE_MAX;  // one put; the core splits longer writes
  bool ordered_puts = false;        // puts to one peer land in issue order (FIFO)
  // Every put travels as a network message of its own (pciddc's tcp frames: a send each): many
  // small puts to one peer cost a message each, so the core packs strided blocks into one put
  // that the target scatters (core/am EmulatedRma::put_blocks) instead of a put per block.
  bool puts_are_messages = false;
};

// What the backend learns from the core when it starts.
struct StartInfo {
  bootstrap::Bootstrap* bootstrap = nullptr;  // key-value exchange with peers
  const config::Config* config = nullptr;
  int my_pe = 0;
  int n_pes = 1;
  std::vector<int> node_of_pe;  // node index of every PE (equal index = same host)
  bool thread_multiple = false;  // several threads may call the backend at once
  // This PE's segment table: segment names, and same-node peers' segments mapped here
  // (peer_base). A shared-memory link may write through those mappings.
  const segments::SegmentTable* segments = nullptr;
  // Name of the shared-memory file holding `pe`'s copy of segment `name` ("/gasket-<job>-<pe>-
  // <name>"). The core's files exist until the fence that follows the first registration round; a
  // backend may also create files of its own under such names (the launcher sweeps them).
  std::function<std::string(int pe, const std::string& name)> segment_file;
  // Wakes PE `pe`'s waiter if it sleeps (cheap when it does not): a link that lands writes in a
  // same-host peer's memory itself (no fd announces them) calls it once a write is visible there.
  std::function<void(int pe)> wake;
};

// Optional capability: remote read.
class RemoteRead {
 public:
  virtual ~RemoteRead() = default;
  // Non-blocking: `dst` is valid after quiet().
  virtual Status get(int pe, void* dst, RemoteAddress src, size_t len) = 0;
  // True when no RDMA device carries the reads (UCP serves them over tcp active messages or a cma
  // syscall each): a strided get of small blocks then goes faster as the core's gather
  // (core/am EmulatedRma::get_blocks) than as a read per block.
  virtual bool reads_in_software() const { return false; }
};

// Optional capability: network atomics on 32/64-bit words.
class RemoteAtomics {
 public:
  virtual ~RemoteAtomics() = default;
  virtual uint32_t ops32() const = 0;  // mask of op_bit()
  virtual uint32_t ops64() const = 0;
  // True when these atomics are atomic with respect to CPU atomics that same-node PEs run on the
  // mapped segment (shared-memory transports); false for NIC atomics. The core keeps a single
  // atomicity domain: when false and some peers are reached directly, all atomics go one way.
  virtual bool coherent_with_cpu() const = 0;
  // `width` is 4 or 8. Fetching ops write the old value to `*fetched` (valid after quiet(), or
  // at once when blocking is true).
  virtual Status atomic(int pe, RemoteAddress dst, AtomicOp op, unsigned width, uint64_t operand,
                        uint64_t compare, uint64_t* fetched, bool blocking) = 0;
};

// Optional capability: put with a notification delivered to the target (pciddc's nr flag). The
// target's progress() reports (source PE, id) in per-source FIFO order to the notify handler.
class RemoteNotify {
 public:
  virtual ~RemoteNotify() = default;
  using Handler = std::function<void(int src_pe, uint32_t id)>;
  virtual void set_handler(Handler handler) = 0;
  virtual Status put_notify(int pe, RemoteAddress dst, const void* src, size_t len,
                            uint32_t id) = 0;
};

// Optional capability: native active messages (payload copied out before the handler returns).
class ActiveMessages {
 public:
  virtual ~ActiveMessages() = default;
  using Handler = std::function<void(int src_pe, const void* payload, size_t len)>;
  virtual void set_handler(Handler handler) = 0;
  virtual size_t max_payload() const = 0;
  virtual Status send(int pe, const void* payload, size_t len) = 0;
  // Sends only if the transport takes the message at once; `*sent` false: nothing was sent (no
  // room until the target consumes), try again after progress. A transport that never waits
  // keeps this default.
  virtual Status try_send(int pe, const void* payload, size_t len, bool* sent) {
    *sent = true;
    return send(pe, payload, len);
  }
  // Messages carrying a body that the transport writes straight to an address the target picks
  // (long active messages): `place` runs on the target as the message arrives, from the payload,
  // and returns where the body's `body_len` bytes go; the handler gets the payload once they are
  // there. A transport without it keeps max_payload_with_body() 0.
  using Placement = std::function<void*(int src_pe, const void* payload, size_t len, size_t body_len)>;
  virtual size_t max_payload_with_body() const { return 0; }
  virtual void set_placement(Placement place) { (void)place; }
  // Like send; `body` is reusable on return.
  virtual Status send_with_body(int pe, const void* payload, size_t len, const void* body, size_t body_len) {
    (void)pe, (void)payload, (void)len, (void)body, (void)body_len;
    return Status(StatusCode::kUnavailable, "this backend's active messages carry no body");
  }
};

// Optional capability: memory registered by one PE only — user buffers it exposes to peers (MPI
// receive buffers, windows on user memory), unlike segments, which every PE registers together.
// The owner registers a range under an id of its own (>= segments::kFirstUserSegment, never
// reused) and packs a key that it hands to its peers out of band (core/memreg puts it in a
// descriptor); a peer attaches (owner, id, key) once, then reaches the range with put/get/atomics
// at RemoteAddress{id, offset} like any segment of that owner. Backends without it (pciddc: no
// registration in the model) are reached through the core's bounce segment instead.
class UserRegistration {
 public:
  virtual ~UserRegistration() = default;
  // Registers [base, base+size) as this PE's user segment `id`; `*key` receives the packed key.
  virtual Status register_user(SegmentId id, void* base, size_t size, std::string* key) = 0;
  virtual Status deregister_user(SegmentId id) = 0;
  // Makes `pe`'s user segment `id` ([base, base+size) in `pe`) reachable from here with the key
  // `pe` packed. Attaching an (pe, id) already attached does nothing.
  virtual Status attach_user(int pe, SegmentId id, uint64_t base, uint64_t size, const void* key,
                             size_t key_len) = 0;
};

// Optional capability: the backend provides the memory of the core's segments, so that its
// transports reach them natively (ucx: ucp_mem_map with UCP_MEM_MAP_ALLOCATE, which UCX's
// shared-memory transports map into same-host peers: put/get/atomics become loads, stores and CPU
// atomics). The core asks before it creates a segment, only when no same-node peer reaches this
// PE by the direct path (those map the core's own files); it then registers the segment as usual
// (register_segment with the returned base) and deregister_segment frees the memory.
class SegmentMemory {
 public:
  virtual ~SegmentMemory() = default;
  // `size` zeroed bytes starting at a multiple of `alignment` (a power of two), or an error.
  virtual Result<char*> allocate_segment(SegmentId id, size_t size, size_t alignment) = 0;
  // `pe`'s copy of segment `id` mapped into this process (a peer on this host), or null. Valid
  // after the bootstrap fence that follows the registration round. Return a mapping only where
  // the backend's own put/get would be a memcpy and its atomics CPU atomics on it: the core then
  // runs them itself without calling the backend, and the backend's fence must order (complete)
  // them against its other operations.
  virtual char* peer_segment(int pe, SegmentId id) = 0;
};

// Optional capability: lets a waiting PE sleep until input arrives instead of yielding its core
// (core/README.md "Waiting"). Input is whatever progress() would serve; each kind must either
// make one of the fds below readable or be announced through StartInfo::wake.
class InputSignal {
 public:
  virtual ~InputSignal() = default;
  // Called by a waiter about to sleep, after its last progress() and check of its condition:
  // appends the fds whose readiness (events as set) announces input, and returns false when
  // input may already be waiting unseen (read but not served), so the waiter must not sleep.
  virtual bool prepare_sleep(std::vector<pollfd>* fds) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual const char* name() const = 0;
  virtual const Limits& limits() const = 0;

  // Collective: every PE registers the same segment id, once, when the segment is created. The
  // core runs a bootstrap fence after a round of registrations before any peer targets them.
  virtual Status register_segment(SegmentId id, void* base, size_t size) = 0;
  virtual Status deregister_segment(SegmentId id) = 0;

  // Collective, once: the core's finalize calls it on every PE after its last barrier and before
  // it deregisters the segments. The backend completes its operations and may wait for its peers
  // here (no PE must close a connection that a peer still needs). A backend destroyed without it
  // (a failed init on one PE) leaves at once.
  virtual Status finalize() { return Status::ok(); }

  // Writes `len` bytes (<= limits().max_put_bytes) to `dst` on `pe`; `src` is reusable on return.
  virtual Status put(int pe, RemoteAddress dst, const void* src, size_t len) = 0;
  // Orders: puts/atomics issued before land before those issued after, per target.
  virtual Status fence() = 0;
  // Completes: every operation issued so far is remotely visible and every fetch delivered.
  virtual Status quiet() = 0;
  // Serves incoming traffic (notifications, active messages). Cheap when idle.
  virtual void progress() = 0;
  // Statistics and state for gasket-info / debug output (e.g. "endpoints: 3").
  virtual std::string describe() const = 0;

  // Capabilities: null when the backend lacks them.
  virtual RemoteRead* remote_read() { return nullptr; }
  virtual RemoteAtomics* remote_atomics() { return nullptr; }
  virtual RemoteNotify* remote_notify() { return nullptr; }
  virtual ActiveMessages* active_messages() { return nullptr; }
  virtual UserRegistration* user_registration() { return nullptr; }
  virtual SegmentMemory* segment_memory() { return nullptr; }
  virtual InputSignal* input_signal() { return nullptr; }
};

// Backends built into this library, by name ("pciddc", "ucx"); the core's runtime looks them up.
using Factory = std::function<Result<std::unique_ptr<Backend>>(const StartInfo&)>;
struct Registration {
  const char* name;
  Factory create;
};

}  // namespace gasket::backend
