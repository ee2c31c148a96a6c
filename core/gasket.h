// gasket's core API for C++ users and for the programming models built on it (OpenSHMEM, MPI).
//
// Model: a job of n_pes() processes (PEs). Each PE owns segments of remotely accessible memory —
// above all the symmetric heap, whose collective allocations land at the same offset on every PE —
// and any PE may read, write and update another PE's copy of a symmetric object by naming its
// local address and the target PE. Same-node targets are reached by plain loads, stores and CPU
// atomics on the peer's mapped segment; others go through the configured backend.
//
// Completion: put() returns when the source buffer may be reused; quiet() returns when every put
// and atomic issued by this PE is visible at its target; fence() orders puts/atomics to each
// target (those before it land before those after it). get() and fetching atomics return the
// value. *_nbi forms may complete later: their buffers are valid after quiet().
//
// Errors: a PE out of range, an address outside every segment, a size that runs past the end of
// a segment, a misaligned or wrongly sized atomic end the job with a message that names the PE,
// the call and the values (the optional `call` argument is the name printed, so an API layer can
// report "shmem_putmem" rather than "gasket::put").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "core/am/user_messages.h"  // active messages (gasket::am)
#include "core/base/status.h"
#include "core/memreg/exposure.h"

namespace gasket {

struct InitOptions {
  bool thread_multiple = false;  // several threads will call the runtime at once
  // With thread_multiple: the caller rings this PE's doorbell (detail::ring(my_pe())) whenever one
  // thread may have completed what another waits for (MPI: at every release of its lock while a
  // thread naps), so waits on backend paths may sleep in poll() as with one thread.
  bool threads_woken = false;
};

// Collective. Fails (with a message) on bad configuration or when peers cannot be reached.
// Programming models call it each (MPI_Init and shmem_init in one program): the first call starts
// the runtime, later ones share it.
Status init(const InitOptions& options = {});
// Collective: the last finalize matching an init quiets, waits for every PE and releases every
// resource. A finalized runtime cannot be re-initialised.
Status finalize();
bool initialized();
// Ends the whole job with `exit_code`, printing `message` (OpenSHMEM's global_exit, MPI_Abort).
[[noreturn]] void abort_job(int exit_code, const char* message);

int my_pe();
int n_pes();
int n_nodes();
int node_of(int pe);  // node index, 0..n_nodes()-1
bool oversubscribed();
// Whether a backend runs (some traffic, even to a mapped same-node peer, may then travel through
// it): without one every put and atomic is a CPU store into a mapped segment, complete at quiet().
bool backend_running();
const char* transport_name(int pe);  // "direct", or the backend reaching `pe`

// ---- Symmetric heap (collective: every PE calls with the same arguments, in the same order) ----
// On exhaustion: nullptr on every PE and a message. A mismatched call sequence between PEs is
// detected and ends the job.
void* sym_malloc(size_t bytes, const char* call = "gasket::sym_malloc");
void* sym_calloc(size_t count, size_t size, const char* call = "gasket::sym_calloc");
void* sym_align(size_t alignment, size_t bytes, const char* call = "gasket::sym_align");
void* sym_realloc(void* ptr, size_t bytes, const char* call = "gasket::sym_realloc");
void sym_free(void* ptr, const char* call = "gasket::sym_free");
size_t sym_heap_size();
size_t sym_heap_in_use();

// Where `pe`'s copy of the symmetric object at `addr` is mapped here, or nullptr.
void* peer_pointer(const void* addr, int pe);
// Whether `addr` (with `bytes` bytes) is in a segment remotely accessible on `pe`.
bool addr_accessible(const void* addr, size_t bytes, int pe);
bool pe_accessible(int pe);

// ---- RMA ----
void put(void* dst, const void* src, size_t bytes, int pe, const char* call = "gasket::put");
void get(void* dst, const void* src, size_t bytes, int pe, const char* call = "gasket::get");
void put_nbi(void* dst, const void* src, size_t bytes, int pe,
             const char* call = "gasket::put_nbi");
void get_nbi(void* dst, const void* src, size_t bytes, int pe,
             const char* call = "gasket::get_nbi");
// Strided: `count` elements of `elem_bytes`; strides are in elements (OpenSHMEM iput/iget).
void iput(void* dst, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
          size_t elem_bytes, size_t count, int pe, const char* call = "gasket::iput");
void iget(void* dst, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride,
          size_t elem_bytes, size_t count, int pe, const char* call = "gasket::iget");
// Blocked strided (OpenSHMEM ibput/ibget): `count` blocks of `block_elems` elements of
// `elem_bytes`, block i at dst + i * dst_stride and src + i * src_stride elements (strides
// positive). iput/iget are the case block_elems 1. A get issues every block before one
// completion: on return the data is local.
void put_blocks(void* dst, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t elem_bytes,
                size_t block_elems, size_t count, int pe, const char* call = "gasket::put_blocks");
void get_blocks(void* dst, const void* src, ptrdiff_t dst_stride, ptrdiff_t src_stride, size_t elem_bytes,
                size_t block_elems, size_t count, int pe, const char* call = "gasket::get_blocks");

void fence();
void quiet();
// quiet(), then wait for every PE.
void barrier_all();
// Serve incoming traffic once (blocking calls do this by themselves).
void progress();

// ---- Atomics ----
enum class AtomicOp : uint8_t {
  kFetch, kSet, kSwap, kCompareSwap, kAdd, kFetchAdd, kAnd, kFetchAnd, kOr, kFetchOr, kXor,
  kFetchXor
};
// The untyped form behind the typed helpers: `width` is 4 or 8 bytes and `dst` must be aligned to
// it; operands travel as the low `width` bytes. `is_float` limits ops to fetch/set/swap (and
// compare-swap by bit pattern). Returns the old value for fetching ops, else 0.
uint64_t atomic(void* dst, size_t width, AtomicOp op, uint64_t operand, uint64_t compare, int pe,
                bool is_float = false, const char* call = "gasket::atomic");
// Non-blocking form of a fetching `op`: the old value's low `width` bytes land at `fetched` (any
// local memory), valid after quiet(). Complete on return on the direct path and where the atomic
// is emulated (the target's handler answers it); a backend's native atomic completes at quiet().
void atomic_nbi(void* dst, size_t width, AtomicOp op, uint64_t operand, uint64_t compare, int pe, void* fetched,
                bool is_float = false, const char* call = "gasket::atomic_nbi");

namespace detail {
template <typename T>
constexpr bool kAtomicType = (sizeof(T) == 4 || sizeof(T) == 8) &&
                             (std::is_integral<T>::value || std::is_floating_point<T>::value);
template <typename T>
uint64_t bits(T v) {
  uint64_t b = 0;
  __builtin_memcpy(&b, &v, sizeof(T));
  return b;
}
template <typename T>
T from_bits(uint64_t b) {
  T v;
  __builtin_memcpy(&v, &b, sizeof(T));
  return v;
}
template <typename T>
T atomic_typed(T* dst, AtomicOp op, T operand, T compare, int pe, const char* call) {
  static_assert(kAtomicType<T>, "atomics work on 4- and 8-byte integers, float and double");
  return from_bits<T>(atomic(dst, sizeof(T), op, bits(operand), bits(compare), pe,
                             std::is_floating_point<T>::value, call));
}
}  // namespace detail

template <typename T>
T atomic_fetch(const T* src, int pe, const char* call = "gasket::atomic_fetch") {
  return detail::atomic_typed(const_cast<T*>(src), AtomicOp::kFetch, T{}, T{}, pe, call);
}
template <typename T>
void atomic_set(T* dst, T value, int pe, const char* call = "gasket::atomic_set") {
  detail::atomic_typed(dst, AtomicOp::kSet, value, T{}, pe, call);
}
template <typename T>
T atomic_swap(T* dst, T value, int pe, const char* call = "gasket::atomic_swap") {
  return detail::atomic_typed(dst, AtomicOp::kSwap, value, T{}, pe, call);
}
template <typename T>
T atomic_compare_swap(T* dst, T cond, T value, int pe,
                      const char* call = "gasket::atomic_compare_swap") {
  return detail::atomic_typed(dst, AtomicOp::kCompareSwap, value, cond, pe, call);
}
#define GASKET_ATOMIC_ARITH(name, fetch_op, plain_op)                                          \
  template <typename T>                                                                        \
  T atomic_fetch_##name(T* dst, T value, int pe, const char* call = "gasket::atomic_fetch_" #name) { \
    static_assert(std::is_integral<T>::value, "integer atomics only");                        \
    return detail::atomic_typed(dst, AtomicOp::fetch_op, value, T{}, pe, call);                \
  }                                                                                            \
  template <typename T>                                                                        \
  void atomic_##name(T* dst, T value, int pe, const char* call = "gasket::atomic_" #name) {    \
    static_assert(std::is_integral<T>::value, "integer atomics only");                        \
    detail::atomic_typed(dst, AtomicOp::plain_op, value, T{}, pe, call);                       \
  }
GASKET_ATOMIC_ARITH(add, kFetchAdd, kAdd)
GASKET_ATOMIC_ARITH(and, kFetchAnd, kAnd)
GASKET_ATOMIC_ARITH(or, kFetchOr, kOr)
GASKET_ATOMIC_ARITH(xor, kFetchXor, kXor)
#undef GASKET_ATOMIC_ARITH
template <typename T>
T atomic_fetch_inc(T* dst, int pe, const char* call = "gasket::atomic_fetch_inc") {
  return atomic_fetch_add(dst, T{1}, pe, call);
}
template <typename T>
void atomic_inc(T* dst, int pe, const char* call = "gasket::atomic_inc") {
  atomic_add(dst, T{1}, pe, call);
}

// ---- Point-to-point synchronisation on local symmetric variables ----
enum class Cmp { kEq, kNe, kGt, kGe, kLt, kLe };

namespace detail {
// The waiting policy (core/README.md "Waiting"), one for every wait: spin GASKET_SPIN_COUNT polls
// (16 when oversubscribed), then nap — sleep on this PE's doorbell, woken at once by a same-node
// peer's write (ring), on backend paths also by the backend's input, or after GASKET_NAP_LIMIT
// µs — where something wakes a sleeper (core::Runtime::nap_kind), else yield the core at each
// poll.
//
// One step of a wait that has no condition to recheck: serves incoming traffic, then spins or
// yields. `polls` counts the steps of this wait.
void wait_step(unsigned* polls);
// The spin/yield half of wait_step, without serving traffic.
void back_off(unsigned* polls);
// Counts a poll of a wait; true once its spin budget is spent (within it, a pause instruction
// when `pause`: MPI's waits leave it out, it costs a third of a same-node transfer here; their
// progress pauses once itself when every same-node ring was empty, mpi/p2p/README.md).
bool spin(unsigned* polls, bool pause = true);
// Whether every peer rings this PE's doorbell futex (all on the direct path): the collectives'
// cells sleep on their own futexes only then.
bool nap_allowed();
// Whether a set of `members` PEs has the machine's CPUs to itself: at most two members per CPU and
// no more tasks runnable now than it has members (or CPUs), read afresh from the runtime's run
// queue. A crowded wait polls on with yields only then (core/coll/cells.h `crowded_polls`): each
// yield hands the CPU to a member, never to another process's burner.
bool cpus_shared_by_set_alone(int members);
// The CPUs online on this node, as the runtime's run queue counted them at init (the same answer
// on every PE of the node: a collective algorithm may be chosen from it; 1 before init).
int cpus_online();
// A nap announced by nap_begin: the doorbell's ring count then, and how it sleeps.
struct Nap {
  uint32_t rings = 0;
  bool in_poll = false;  // in poll() on the doorbell socket and the backend's/links' fds
};
// Announces a nap of the calling thread when the policy allows one here (else false: yield).
bool nap_begin(Nap* nap);
// With `sleep`, sleeps until a peer rings (or input arrives, on backend paths) or the nap limit
// passes, at once when that happened since nap_begin; then withdraws the announcement.
void nap_end(const Nap& nap, bool sleep);
// Wakes PE `pe`'s napping waiters (a no-op unless one naps): called after writing into `pe`
// on the direct path (put, atomic, a ring slot) what its waiter may be waiting for.
void ring(int pe);

// One step of a blocking wait after `ready()` failed: spin, nap or yield as the policy says.
// The nap is announced before the last `serve(); ready()` check, so a peer's write after that
// check rings it awake. True when that check held.
template <typename Serve, typename Ready>
bool wait_turn(unsigned* polls, Serve&& serve, Ready&& ready, bool pause = true) {
  if (!spin(polls, pause)) return false;
  Nap nap;
  if (!nap_begin(&nap)) {
    back_off(polls);
    return false;
  }
  serve();
  bool done = ready();
  nap_end(nap, !done);
  // Woken (rung, input, or at the nap limit): spin a whole budget again before the next nap, so
  // a stream of writes into this PE costs its writers one wake-up call per budget, not per write.
  if (!done) *polls = 0;
  return done;
}
template <typename T>
bool compare(T a, Cmp cmp, T b) {
  switch (cmp) {
    case Cmp::kEq: return a == b;
    case Cmp::kNe: return a != b;
    case Cmp::kGt: return a > b;
    case Cmp::kGe: return a >= b;
    case Cmp::kLt: return a < b;
    case Cmp::kLe: return a <= b;
  }
  return false;
}
}  // namespace detail

// The one polling primitive behind every test and wait of the APIs: serves incoming traffic
// (the backend, active messages, memreg stages), then evaluates `ready`; with `block`, repeats
// (spinning, then napping or yielding: detail::wait_turn) until it holds. A PE that polls without blocking (shmem_test_*,
// MPI_Test, a loop of tests) thus still runs its peers' emulated gets and atomics, so a peer
// waiting on it cannot hang. Returns whether `ready` held.
template <typename Ready>
bool poll(bool block, Ready&& ready) {
  unsigned polls = 0;
  for (;;) {
    progress();
    if (ready()) return true;
    if (!block) return false;
    if (detail::wait_turn(&polls, progress, ready)) return true;
    // A write that landed during the spin's pause is seen now rather than after one more progress.
    if (ready()) return true;
  }
}

// True when *ivar (read atomically) compares to `value` as asked. Serves incoming traffic.
template <typename T>
bool test(const T* ivar, Cmp cmp, T value) {
  static_assert(std::is_integral<T>::value, "wait/test work on integer variables");
  return poll(false, [&] { return detail::compare(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, value); });
}

// Waits until *ivar compares to `value` as asked; keeps serving other PEs while it waits.
template <typename T>
T wait_until(const T* ivar, Cmp cmp, T value) {
  static_assert(std::is_integral<T>::value, "wait/test work on integer variables");
  am::detail::check_may_block("gasket::wait_until");
  T now;
  poll(true, [&] {
    now = __atomic_load_n(ivar, __ATOMIC_ACQUIRE);
    return detail::compare(now, cmp, value);
  });
  return now;
}

// ---- User memory exposed to peers (MPI rendezvous and windows; core/memreg/user_memory.h) ----
// Not collective. The owner exposes any buffer of its own (stack, heap, mmap) and hands the
// descriptor (opaque bytes) to peers; a peer puts/gets by (owner, descriptor, offset) on the best
// path: single copy by the kernel on the same node, one-sided through the backend's registration
// (cached: a buffer exposed repeatedly is registered once), or a pipelined copy through the bounce
// segment served by the owner's progress (pciddc; the kernel refusing; GASKET_MEMREG_SINGLE_COPY=no)
// — so the owner must keep calling the library while peers use its exposures. Errors (a bad or
// stale descriptor, a range past the exposure, a PE out of range) are returned, naming the call,
// both PEs and the values.
namespace memreg {
[[nodiscard]] Result<Exposure> expose(const void* addr, size_t len, const char* call = "gasket::memreg::expose");
// After release, peers' transfers with its descriptor are refused; the memory may be freed.
[[nodiscard]] Status release(const Exposure& exposure, const char* call = "gasket::memreg::release");
// Returns when `src` is reusable; the bytes are visible at the owner after quiet().
[[nodiscard]] Status put(int pe, std::string_view descriptor, size_t offset, const void* src, size_t len,
                         const char* call = "gasket::memreg::put");
// Returns with the bytes in `dst`.
[[nodiscard]] Status get(int pe, std::string_view descriptor, size_t offset, void* dst, size_t len,
                         const char* call = "gasket::memreg::get");
}  // namespace memreg

}  // namespace gasket
