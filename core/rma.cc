// Remote memory access: put/get (contiguous, strided, non-blocking), atomics, fence/quiet.
// Each operation validates its arguments, translates the symmetric address to (segment, offset),
// then takes the target's path: direct (memcpy / CPU atomics on the peer's mapped segment) or the
// backend (native capability, or the core's emulation over active messages).
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <climits>
#include <ctime>
#include <cstddef>
#include <cstring>
#include <deque>

#include "core/am/cpu_atomic.h"
#include "core/am/emulated_rma.h"
#include "core/base/copy.h"
#include "core/base/log.h"
#include "core/runtime.h"

namespace gasket {

using core::Path;
using core::Runtime;

namespace {

inline core::Runtime& rt(const char* call) { return core::Runtime::checked(call); }

// The peer's copy of byte `offset` of `seg`, when mapped here.
inline char* direct_address(const segments::Segment& seg, size_t offset, int pe) {
  return seg.peer_base[static_cast<size_t>(pe)] + offset;
}

// On a backend path: `pe`'s copy of `seg` when the backend allocated the segment and its transport
// maps the peer's copy here (backend::SegmentMemory::peer_segment: ucx's shared-memory transports,
// ucp_rkey_ptr), else null. The backend's own put/get on such memory are a memcpy and its atomics
// CPU atomics, complete at once; the core runs them itself, as on the direct path, without the
// backend call, its key lookup, or a quiet after a get. Ordering against the backend's other
// operations is the backend's fence (ucx completes instead of ordering while peers are mapped).
inline char* backend_mapped(const segments::Segment& seg, int pe) {
  return seg.backend_memory ? seg.peer_copy(pe) : nullptr;
}

void backend_put(Runtime& r, int pe, const segments::Segment& seg, size_t offset, const void* src,
                 size_t bytes, const char* call) {
  Status st = core::am::put_in_pieces(*r.backend(), pe, backend::RemoteAddress{seg.id, offset}, src, bytes);
  if (!st.is_ok()) log::fatal("%s: put of %zu bytes to PE %d failed: %s", call, bytes, pe, st.message().c_str());
}

// Native read where the backend has one (chosen at init), else the core's emulation: a request
// answered by the target's put (complete on return).
void backend_get(Runtime& r, int pe, void* dst, const segments::Segment& seg, size_t offset,
                 size_t bytes, const char* call) {
  backend::RemoteAddress src{seg.id, offset};
  Status st = r.native_read() != nullptr ? r.native_read()->get(pe, dst, src, bytes)
                                         : r.emulated()->get(pe, dst, src, bytes);
  if (!st.is_ok()) log::fatal("%s: get of %zu bytes from PE %d failed: %s", call, bytes, pe, st.message().c_str());
}

// Static data left in place (GASKET_REDISTRIBUTE=no) of a same-node peer: nothing is mapped, so the
// bytes move by a kernel copy (core/memreg/kernel_copy.h). Other nodes use the backend's
// registration of the segment; this PE's own copy is plain memory.
inline bool kernel_copy_peer(Runtime& r, const segments::Segment& seg, int pe) {
  return !seg.file_backed && pe != r.my_pe() && r.kernel_copy() != nullptr && r.kernel_copy()->reachable(pe);
}

void kernel_put(Runtime& r, int pe, const segments::Segment& seg, size_t offset, const void* src, size_t bytes,
                const char* call) {
  Status st = r.kernel_copy()->write(pe, seg.peer_address[static_cast<size_t>(pe)] + offset, src, bytes);
  if (!st.is_ok()) log::fatal("%s: put of %zu bytes to PE %d's %s segment failed: %s", call, bytes, pe, seg.name.c_str(), st.message().c_str());
}

void kernel_get(Runtime& r, int pe, void* dst, const segments::Segment& seg, size_t offset, size_t bytes,
                const char* call) {
  Status st = r.kernel_copy()->read(pe, dst, seg.peer_address[static_cast<size_t>(pe)] + offset, bytes);
  if (!st.is_ok()) log::fatal("%s: get of %zu bytes from PE %d's %s segment failed: %s", call, bytes, pe, seg.name.c_str(), st.message().c_str());
}

// A late peer (another job): the target runs the operation on (segment, offset) of its own segments.
void link_put(Runtime& r, int pe, const segments::Segment& seg, size_t offset, const void* src, size_t bytes,
              const char* call) {
  Status st = r.link_rma().put(pe, core::am::LinkAddress{seg.id, offset}, src, bytes);
  if (!st.is_ok()) log::fatal("%s: put of %zu bytes to PE %d (another job) failed: %s", call, bytes, pe, st.message().c_str());
}

void link_get(Runtime& r, int pe, void* dst, const segments::Segment& seg, size_t offset, size_t bytes,
              const char* call) {
  Status st = r.link_rma().get(pe, dst, core::am::LinkAddress{seg.id, offset}, bytes);
  if (!st.is_ok()) log::fatal("%s: get of %zu bytes from PE %d (another job) failed: %s", call, bytes, pe, st.message().c_str());
}

}  // namespace

void put_nbi(void* dst, const void* src, size_t bytes, int pe, const char* call) {
  Runtime& r = rt(call);
  const bool late = r.check_target(pe, call);
  if (__builtin_expect(bytes == 0, 0)) return;  // nothing moves: any address, NULL included, is legal (OpenSHMEM 1.6)
  size_t offset;
  const segments::Segment& seg = r.translate(dst, bytes, call, "destination", &offset);
  if (__builtin_expect(late, 0)) {
    link_put(r, pe, seg, offset, src, bytes, call);
  } else if (__builtin_expect(kernel_copy_peer(r, seg, pe), 0)) {
    kernel_put(r, pe, seg, offset, src, bytes, call);
  } else if (r.path(pe) == Path::kDirect) {
    base::copy_bytes(direct_address(seg, offset, pe), src, bytes);
    detail::ring(pe);
  } else if (char* mapped = backend_mapped(seg, pe)) {
    base::copy_bytes(mapped + offset, src, bytes);
  } else {
    backend_put(r, pe, seg, offset, src, bytes, call);
  }
}

void put(void* dst, const void* src, size_t bytes, int pe, const char* call) {
  // Every backend put leaves `src` reusable on return, so blocking and non-blocking coincide.
  put_nbi(dst, src, bytes, pe, call);
}

namespace {
// get_nbi's work; true when a native backend read is still in flight (complete at the next
// quiet), false when the bytes are in `dst` already.
bool start_get(Runtime& r, void* dst, const void* src, size_t bytes, int pe, const char* call) {
  const bool late = r.check_target(pe, call);
  if (__builtin_expect(bytes == 0, 0)) return false;  // nothing moves: any address, NULL included, is legal (OpenSHMEM 1.6)
  size_t offset;
  const segments::Segment& seg = r.translate(src, bytes, call, "source", &offset);
  if (__builtin_expect(late, 0)) {
    link_get(r, pe, dst, seg, offset, bytes, call);
  } else if (__builtin_expect(kernel_copy_peer(r, seg, pe), 0)) {
    kernel_get(r, pe, dst, seg, offset, bytes, call);
  } else if (r.path(pe) == Path::kDirect) {
    base::copy_bytes(dst, direct_address(seg, offset, pe), bytes);
  } else if (const char* mapped = backend_mapped(seg, pe)) {
    base::copy_bytes(dst, mapped + offset, bytes);
  } else {
    backend_get(r, pe, dst, seg, offset, bytes, call);
    return r.native_read() != nullptr;  // the emulation's get is complete on return
  }
  return false;
}

void complete_get(Runtime& r, int pe, const char* call) {
  Status st = r.backend()->quiet();
  if (!st.is_ok()) log::fatal("%s: completing a get from PE %d failed: %s", call, pe, st.message().c_str());
}
}  // namespace

void get_nbi(void* dst, const void* src, size_t bytes, int pe, const char* call) {
  (void)start_get(rt(call), dst, src, bytes, pe, call);
}

void get(void* dst, const void* src, size_t bytes, int pe, const char* call) {
  Runtime& r = rt(call);
  if (start_get(r, dst, src, bytes, pe, call)) complete_get(r, pe, call);
}

namespace {
// Strided transfers: `count` blocks of `block_elems` elements of `elem` bytes, strides in
// elements. Validates the whole span of the symmetric side once, then moves the blocks: on a
// backend path without a mapping every block's get is issued before one completion (the
// emulation gathers them at the target), and where each put is a message of its own the blocks
// are packed into few puts that the target scatters.
// Below this many blocks a put each is cheaper than a packed put and its scatter request's reply:
// over pciddc-tcp a put costs a frame (~5 us on loopback, 0.2-0.3 of its round trip) and the packed
// put two frames and the reply, which also acknowledges them, so a quiet after it sends nothing.
constexpr size_t kMinScatteredBlocks = 4;
void strided(bool is_put, void* dst, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t elem,
             size_t block_elems, size_t count, int pe, const char* call) {
  Runtime& r = rt(call);
  r.check_pe(pe, call);
  if (count == 0 || block_elems == 0 || elem == 0) return;
  if (dst_stride <= 0 || src_stride <= 0) {
    log::fatal("%s: strides must be positive (destination stride %td, source stride %td)", call, dst_stride,
               src_stride);
  }
  size_t block, dst_step, src_step, span;
  if (__builtin_mul_overflow(block_elems, elem, &block) ||
      __builtin_mul_overflow(static_cast<size_t>(dst_stride), elem, &dst_step) ||
      __builtin_mul_overflow(static_cast<size_t>(src_stride), elem, &src_step) ||
      __builtin_mul_overflow(count - 1, is_put ? dst_step : src_step, &span) ||
      __builtin_add_overflow(span, block, &span)) {
    log::fatal("%s: %zu blocks of %zu elements of %zu bytes at strides %td/%td overflow the address space (PE %d)",
               call, count, block_elems, elem, dst_stride, src_stride, pe);
  }
  const size_t sym_step = is_put ? dst_step : src_step;
  size_t base_offset;
  const segments::Segment& seg = r.translate(is_put ? dst : src, span, call, is_put ? "destination" : "source", &base_offset);
  const bool kernel = kernel_copy_peer(r, seg, pe);
  const bool direct = !kernel && r.path(pe) == Path::kDirect;
  // The peer's copy when loads and stores reach it: the direct path, or a backend's mapping.
  char* mapped = kernel ? nullptr : direct ? seg.peer_base[static_cast<size_t>(pe)] : backend_mapped(seg, pe);
  const bool backend = !kernel && mapped == nullptr;
  // The core's gather: without a native read, or when the native reads of several small blocks
  // are each a message exchange or a syscall anyway (backend::RemoteRead::reads_in_software; one
  // block alone is faster read natively: 21 against 39 µs over ucx-tcp).
  const bool gather = r.native_read() == nullptr || (r.native_read()->reads_in_software() && count > 1 &&
                                                     block <= r.emulated()->max_gathered_block());
  if (!is_put && backend && gather) {
    Status st = r.emulated()->get_blocks(pe, dst, dst_step, backend::RemoteAddress{seg.id, base_offset}, src_step,
                                         block, count);
    if (!st.is_ok()) log::fatal("%s: get of %zu blocks of %zu bytes from PE %d failed: %s", call, count, block, pe, st.message().c_str());
    return;
  }
  if (is_put && backend && r.backend()->limits().puts_are_messages && r.emulated() != nullptr &&
      count >= kMinScatteredBlocks && block <= r.emulated()->max_gathered_block()) {
    Status st = r.emulated()->put_blocks(pe, backend::RemoteAddress{seg.id, base_offset}, dst_step, src, src_step,
                                         block, count);
    if (!st.is_ok()) log::fatal("%s: put of %zu blocks of %zu bytes to PE %d failed: %s", call, count, block, pe, st.message().c_str());
    return;
  }
  // Native reads complete at one quiet, unless destination blocks overlap (the later block wins).
  const bool overlapping = dst_step < block;
  auto* d = static_cast<char*>(dst);
  auto* s = static_cast<const char*>(src);
  for (size_t i = 0; i < count; ++i) {
    char* di = d + i * dst_step;
    const char* si = s + i * src_step;
    size_t off = base_offset + i * sym_step;
    if (kernel) {
      if (is_put) kernel_put(r, pe, seg, off, si, block, call);
      else kernel_get(r, pe, di, seg, off, block, call);
    } else if (mapped != nullptr) {
      if (is_put) base::copy_bytes(mapped + off, si, block);
      else base::copy_bytes(di, mapped + off, block);
    } else if (is_put) {
      backend_put(r, pe, seg, off, si, block, call);
    } else {
      backend_get(r, pe, di, seg, off, block, call);
      if (overlapping) complete_get(r, pe, call);
    }
  }
  if (is_put && direct) detail::ring(pe);
  if (!is_put && backend && !overlapping) complete_get(r, pe, call);
}
}  // namespace

void iput(void* dst, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
          size_t elem_bytes, size_t count, int pe, const char* call) {
  strided(true, dst, src, dst_stride, src_stride, elem_bytes, 1, count, pe, call);
}

void iget(void* dst, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
          size_t elem_bytes, size_t count, int pe, const char* call) {
  strided(false, dst, src, dst_stride, src_stride, elem_bytes, 1, count, pe, call);
}

void put_blocks(void* dst, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t elem_bytes,
                size_t block_elems, size_t count, int pe, const char* call) {
  strided(true, dst, src, dst_stride, src_stride, elem_bytes, block_elems, count, pe, call);
}

void get_blocks(void* dst, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t elem_bytes,
                size_t block_elems, size_t count, int pe, const char* call) {
  strided(false, dst, src, dst_stride, src_stride, elem_bytes, block_elems, count, pe, call);
}

void fence() {
  Runtime& r = rt("gasket::fence");
  // Direct stores (including non-temporal ones a large memcpy may use) are ordered by a full fence.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (r.backend() != nullptr) {
    Status st = r.backend()->fence();
    if (!st.is_ok()) log::fatal("gasket::fence: %s", st.message().c_str());
  }
}

void quiet() {
  Runtime& r = rt("gasket::quiet");
  std::atomic_thread_fence(std::memory_order_seq_cst);
  if (r.backend() != nullptr) {
    // Noted before the backend completes: fetches staged (and issued) up to here are complete
    // after it; one another thread stages meanwhile waits for a later quiet.
    const uint64_t staged = r.fetches_staged();
    Status st = r.backend()->quiet();
    if (!st.is_ok()) log::fatal("gasket::quiet: %s", st.message().c_str());
    r.complete_fetches(staged);
  }
  if (r.has_late_peers()) {
    Status st = r.link_rma().quiet();
    if (!st.is_ok()) log::fatal("gasket::quiet: %s", st.message().c_str());
  }
}

// ---- atomics ----
namespace {

const char* op_name(AtomicOp op) {
  static const char* kNames[] = {"fetch", "set", "swap", "compare_swap", "add", "fetch_add",
                                 "and", "fetch_and", "or", "fetch_or", "xor", "fetch_xor"};
  return kNames[static_cast<unsigned>(op)];
}

// Atomics on static data left in place (GASKET_REDISTRIBUTE=no): the owner's, its same-node
// peers' and (in the owner's emulation handler) other nodes' atomics on it all run under the
// owner's static_data_lock (in its internal segment, which every PE of the node maps) — the owner
// with CPU atomics, a peer as a kernel-copy read-modify-write — so they are atomic with respect to
// each other (core/am/cpu_atomic.h, WordLock).
uint64_t locked_static_atomic(Runtime& r, const segments::Segment& seg, size_t offset, int pe, unsigned width,
                              backend::AtomicOp op, uint64_t operand, uint64_t compare, const char* call) {
  // The owner's internal segment: a backend's copy is mapped at first contact (peer_copy).
  char* owner_internal = pe == r.my_pe() ? reinterpret_cast<char*>(r.internal())
                                         : r.segments().find(segments::kInternalSegment)->peer_copy(pe);
  if (owner_internal == nullptr) {
    log::fatal("%s: atomic on PE %d's static data: its internal segment (the data's lock) is not mapped here", call, pe);
  }
  uint64_t* lock = reinterpret_cast<uint64_t*>(owner_internal + offsetof(core::InternalArea, static_data_lock));
  core::am::WordLock held(lock, static_cast<uint64_t>(r.my_pe()) + 1, r.spin_count());
  if (pe == r.my_pe()) return core::am::cpu_atomic(seg.base + offset, width, op, operand, compare);
  uint64_t word = 0;  // the peer's word, modified here, written back
  kernel_get(r, pe, &word, seg, offset, width, call);
  uint64_t old = core::am::cpu_atomic(&word, width, op, operand, compare);
  if (op != backend::AtomicOp::kFetch) kernel_put(r, pe, seg, offset, &word, width, call);
  return old;
}

bool returns_old_value(AtomicOp op) {
  return op != AtomicOp::kSet && op != AtomicOp::kAdd && op != AtomicOp::kAnd && op != AtomicOp::kOr &&
         op != AtomicOp::kXor;
}

bool float_allowed(AtomicOp op) {
  return op == AtomicOp::kFetch || op == AtomicOp::kSet || op == AtomicOp::kSwap ||
         op == AtomicOp::kCompareSwap;
}

// Both atomic() and atomic_nbi(): `nbi_fetched` (atomic_nbi's destination of the old value) lets
// a native backend atomic complete at quiet(); every other path completes here and returns the
// old value.
uint64_t run_atomic(void* dst, size_t width, AtomicOp op, uint64_t operand, uint64_t compare, int pe,
                    bool is_float, void* nbi_fetched, bool* deferred, const char* call) {
  Runtime& r = rt(call);
  const bool late = r.check_target(pe, call);
  if (width != 4 && width != 8) {
    log::fatal("%s: atomic %s on %zu bytes at %p: atomics work on 4- or 8-byte words", call,
               op_name(op), width, dst);
  }
  if (reinterpret_cast<uintptr_t>(dst) % width != 0) {
    log::fatal("%s: atomic %s target %p is not aligned to its %zu-byte width", call, op_name(op),
               dst, width);
  }
  if (is_float && !float_allowed(op)) {
    log::fatal("%s: atomic %s is not defined for floating-point values", call, op_name(op));
  }
  size_t offset;
  const segments::Segment& seg = r.translate(dst, width, call, "atomic target", &offset);
  auto bop = static_cast<backend::AtomicOp>(op);
  if (late) {
    Result<uint64_t> old = r.link_rma().atomic(pe, core::am::LinkAddress{seg.id, offset}, bop, static_cast<unsigned>(width),
                                               operand, compare);
    if (!old.is_ok()) log::fatal("%s: atomic %s on PE %d (another job) failed: %s", call, op_name(op), pe, old.status().message().c_str());
    return old.value();
  }
  if (!seg.file_backed && (pe == r.my_pe() || kernel_copy_peer(r, seg, pe))) {
    return locked_static_atomic(r, seg, offset, pe, static_cast<unsigned>(width), bop, operand, compare, call);
  }
  if (r.path(pe) == Path::kDirect) {
    uint64_t old = core::am::cpu_atomic(direct_address(seg, offset, pe), static_cast<unsigned>(width), bop, operand, compare);
    if (op != AtomicOp::kFetch) detail::ring(pe);
    return old;
  }
  if (char* mapped = backend_mapped(seg, pe)) {
    return core::am::cpu_atomic(mapped + offset, static_cast<unsigned>(width), bop, operand, compare);
  }
  backend::RemoteAddress target{seg.id, offset};
  if (!r.native_atomic(width, bop) || !seg.file_backed) {
    // Emulated (chosen at init, and always on static data left in place, whose atomics the target
    // serialises under its lock): the target's handler runs it with CPU atomics on its memory.
    Result<uint64_t> old = r.emulated()->atomic(pe, target, bop, static_cast<unsigned>(width), operand, compare);
    if (!old.is_ok()) log::fatal("%s: atomic %s on PE %d failed: %s", call, op_name(op), pe, old.status().message().c_str());
    return old.value();
  }
  uint64_t fetched = 0;
  const bool later = nbi_fetched != nullptr;
  auto issue = [&](uint64_t* into) {
    return r.backend()->remote_atomics()->atomic(pe, target, bop, static_cast<unsigned>(width), operand, compare, into,
                                                 !later);
  };
  Status st = later ? r.stage_fetch(nbi_fetched, static_cast<unsigned>(width), issue) : issue(&fetched);
  if (!st.is_ok()) log::fatal("%s: atomic %s on PE %d failed: %s", call, op_name(op), pe, st.message().c_str());
  *deferred = later;
  return fetched;
}

}  // namespace

uint64_t atomic(void* dst, size_t width, AtomicOp op, uint64_t operand, uint64_t compare, int pe,
                bool is_float, const char* call) {
  bool deferred = false;
  uint64_t old = run_atomic(dst, width, op, operand, compare, pe, is_float, nullptr, &deferred, call);
  // A fetching atomic is a polling point (a loop of shmem_atomic_fetch on a local flag,
  // shmem_test_lock on the lock's PE): like poll() it serves incoming traffic, which neither the
  // direct path nor a backend's own completion does, so peers' emulated operations on this PE
  // keep running while it polls. Without a backend (every peer direct) there is nothing to serve.
  // One call in Runtime::kFetchesPerServe serves: a polling loop still serves within a few
  // iterations, while an atomic on mapped memory (a few ns) does not pay an idle worker progress
  // each time.
  if (returns_old_value(op)) {
    Runtime& r = rt(call);
    if (r.backend() != nullptr && r.fetch_serves()) r.progress();
  }
  return old;
}

void atomic_nbi(void* dst, size_t width, AtomicOp op, uint64_t operand, uint64_t compare, int pe, void* fetched,
                bool is_float, const char* call) {
  if (fetched == nullptr) log::fatal("%s: the fetched-value pointer is null (atomic %s on PE %d)", call, op_name(op), pe);
  bool deferred = false;
  uint64_t old = run_atomic(dst, width, op, operand, compare, pe, is_float, fetched, &deferred, call);
  if (!deferred) std::memcpy(fetched, &old, width);  // little-endian: the low bytes
}

// ---- addressing queries ----

void* peer_pointer(const void* addr, int pe) {
  Runtime& r = rt("gasket::peer_pointer");
  if (r.check_target(pe, "gasket::peer_pointer")) return nullptr;  // another job's memory is never mapped here
  segments::Translation t = r.segments().translate(addr, 1);
  if (t.segment == nullptr || r.path(pe) != Path::kDirect) return nullptr;
  char* base = t.segment->peer_base[static_cast<size_t>(pe)];
  return base == nullptr ? nullptr : base + t.offset;
}

bool addr_accessible(const void* addr, size_t bytes, int pe) {
  Runtime& r = rt("gasket::addr_accessible");
  if (pe < 0 || pe >= r.n_pes()) return false;
  segments::Translation t = r.segments().translate(addr, bytes);
  return t.segment != nullptr && t.in_bounds;
}

bool pe_accessible(int pe) {
  Runtime& r = rt("gasket::pe_accessible");
  return pe >= 0 && pe < r.n_pes();
}

// ---- waiting (the policy itself: core/wait.cc) ----
namespace detail {

void ring(int pe) {
  core::InternalArea::Doorbell* bell = Runtime::get()->doorbell(pe);
  if (bell == nullptr) return;
  // Orders the caller's write before the checks (nap_begin's fence is the waiter's half), so a
  // waiter either sees the write in its recheck or is seen armed here. The common cases are one
  // or two loads of a line the target writes once per nap: nobody napping, or a napper already
  // rung (a wake-up is under way; its next nap arms again). Only the writer that takes the
  // arming pays for the wake-up call.
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  if (__atomic_load_n(&bell->nappers, __ATOMIC_RELAXED) == 0) return;
  if (__atomic_load_n(&bell->armed, __ATOMIC_RELAXED) == 0) return;
  if (__atomic_exchange_n(&bell->armed, 0, __ATOMIC_SEQ_CST) == 0) return;
  __atomic_fetch_add(&bell->rings, 1, __ATOMIC_SEQ_CST);
  syscall(SYS_futex, &bell->rings, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
  if (__atomic_load_n(&bell->pollers, __ATOMIC_RELAXED) != 0) Runtime::get()->bell().ring(pe);  // sleeps in poll()
}

}  // namespace detail
}  // namespace gasket
