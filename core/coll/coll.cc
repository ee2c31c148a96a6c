// Collective algorithms over put/get/atomics (see coll.h for the model).
//
// barrier: dissemination — in round k a member increments word k of the member 2^k ranks ahead
// and waits for its own word k, which it then decrements (so consecutive barriers may overlap).
// broadcast/fcollect/alltoall: the data is put straight into every destination, then a barrier
// (with quiet) makes it visible everywhere; broadcast from kTreeMinPes members on runs a binomial
// tree instead (below). collect: a chain passes each member its offset first.
// reductions: every member reads every other member's source (a mapped pointer on the same node,
// else a get) between an entry and an exit barrier.
#include "core/coll/coll.h"

#include <algorithm>
#include <cinttypes>

#include "core/base/log.h"

namespace gasket::coll {

namespace {

void check_member(const PeSet& set, const char* call) {
  if (set.my_rank() < 0) {
    log::fatal("%s: PE %d is not a member of the PE set (%d PEs, first PE %d) it runs a collective on",
               call, my_pe(), set.size(), set.size() > 0 ? set.pe(0) : -1);
  }
}

// Signals `word` of member `rank`; the member consumes it with consume().
void signal(const PeSet& set, SyncArea sync, size_t word, int rank, const char* call) {
  atomic_add(&sync[word], int64_t{1}, set.pe(rank), call);
}

// Waits for one signal on this PE's `word` and consumes it. The decrement is a plain CPU atomic:
// every atomic reaching this PE's memory runs in the CPU's atomicity domain (core/am/README.md).
void consume(SyncArea sync, size_t word) {
  wait_until(&sync[word], Cmp::kGe, int64_t{1});
  __atomic_fetch_sub(&sync[word], 1, __ATOMIC_ACQ_REL);
}

}  // namespace

void check_sync(SyncArea sync, const char* call) {
  if (sync == nullptr || !addr_accessible(sync, kSyncWords * sizeof(int64_t), my_pe())) {
    log::fatal("%s: the synchronisation array %p (%zu words) is not symmetric memory", call,
               static_cast<void*>(sync), kSyncWords);
  }
}

PeSet PeSet::strided(int start, int stride, int size, const char* call) {
  int n = n_pes();
  if (size < 1 || start < 0 || stride < 1 || start >= n ||
      static_cast<int64_t>(start) + static_cast<int64_t>(size - 1) * stride >= n) {
    log::fatal("%s: the PE set start %d, stride %d, size %d does not fit in the job's %d PEs", call,
               start, stride, size, n);
  }
  PeSet s;
  s.start_ = start;
  s.stride_ = stride;
  s.size_ = size;
  int me = my_pe();
  s.my_rank_ = (me >= start && (me - start) % stride == 0 && (me - start) / stride < size) ? (me - start) / stride : -1;
  return s;
}

PeSet PeSet::of_list(std::vector<int> pes, const char* call) {
  int n = n_pes();
  std::vector<bool> seen(static_cast<size_t>(n), false);
  for (int pe : pes) {
    if (pe < 0 || pe >= n) log::fatal("%s: PE %d in a PE set is out of range: the job has %d PEs", call, pe, n);
    if (seen[static_cast<size_t>(pe)]) log::fatal("%s: PE %d appears twice in a PE set", call, pe);
    seen[static_cast<size_t>(pe)] = true;
  }
  if (pes.empty()) log::fatal("%s: empty PE set", call);
  PeSet s;
  s.size_ = static_cast<int>(pes.size());
  // Keep the compact form when the list happens to be strided.
  int stride = s.size_ > 1 ? pes[1] - pes[0] : 1;
  bool strided = stride >= 1;
  for (size_t i = 1; strided && i < pes.size(); ++i) strided = pes[i] - pes[i - 1] == stride;
  if (strided) {
    s.start_ = pes[0];
    s.stride_ = stride;
  } else {
    s.list_ = std::move(pes);
  }
  s.my_rank_ = s.rank_of(my_pe());
  return s;
}

int PeSet::rank_of(int pe) const {
  if (list_.empty()) {
    if (pe < start_ || (pe - start_) % stride_ != 0) return -1;
    int r = (pe - start_) / stride_;
    return r < size_ ? r : -1;
  }
  auto it = std::find(list_.begin(), list_.end(), pe);
  return it == list_.end() ? -1 : static_cast<int>(it - list_.begin());
}

PeSet PeSet::subset(const std::vector<int>& ranks, const char* call) const {
  std::vector<int> pes;
  pes.reserve(ranks.size());
  for (int r : ranks) {
    if (r < 0 || r >= size_) log::fatal("%s: rank %d is out of range: the set has %d PEs", call, r, size_);
    pes.push_back(pe(r));
  }
  return of_list(std::move(pes), call);
}

void barrier(const PeSet& set, SyncArea sync, bool with_quiet, const char* call) {
  check_member(set, call);
  check_sync(sync, call);
  if (with_quiet) quiet();
  int n = set.size(), me = set.my_rank();
  size_t k = 0;
  for (int dist = 1; dist < n; dist <<= 1, ++k) {
    signal(set, sync, k, (me + dist) % n, call);
    consume(sync, k);
  }
}

void broadcast(const PeSet& set, SyncArea sync, void* dest, const void* src, size_t bytes,
               int root_rank, bool include_root, const char* call) {
  check_member(set, call);
  if (root_rank < 0 || root_rank >= set.size()) {
    log::fatal("%s: root %d is out of range: the set has %d PEs", call, root_rank, set.size());
  }
  const int n = set.size(), me = set.my_rank();
  if (me == root_rank && include_root && dest != src && bytes != 0) std::memmove(dest, src, bytes);
  if (n < kTreeMinPes) {
    if (me == root_rank) {
      for (int r = 0; r < n; ++r)
        if (r != root_rank) put(dest, src, bytes, set.pe(r), call);
    }
  } else {
    // Binomial tree over ranks relative to the root: member v > 0 receives from v minus its
    // highest bit, then sends in the rounds whose distance exceeds v to v + distance (the data,
    // a fence, then a signal of kTreeSignal), out of its own dest. Each member sends at most
    // log2(n) copies; the root's n-1 puts become log2(n) rounds.
    check_sync(sync, call);
    const int v = (me - root_rank + n) % n;
    const void* from = src;
    int dist = 1;
    if (v != 0) {
      consume(sync, kTreeSignal);
      from = dest;
      while (dist <= v) dist <<= 1;
    }
    for (; v + dist < n; dist <<= 1) {
      int child = (v + dist + root_rank) % n;
      put(dest, from, bytes, set.pe(child), call);
      fence();
      signal(set, sync, kTreeSignal, child, call);
    }
  }
  // Every member has its data and no member still forwards out of its dest: the next collective
  // may overwrite it.
  barrier(set, sync, true, call);
}

void fcollect(const PeSet& set, SyncArea sync, void* dest, const void* src, size_t bytes,
              const char* call) {
  check_member(set, call);
  char* at = static_cast<char*>(dest) + static_cast<size_t>(set.my_rank()) * bytes;
  for (int i = 0; i < set.size(); ++i) {
    int r = (set.my_rank() + i) % set.size();  // start with self, then spread the load
    put(at, src, bytes, set.pe(r), call);
  }
  barrier(set, sync, true, call);
}

void collect(const PeSet& set, SyncArea sync, void* dest, const void* src, size_t bytes,
             const char* call) {
  check_member(set, call);
  check_sync(sync, call);
  int me = set.my_rank(), n = set.size();
  // The chain: member r learns its offset from r-1 and passes offset + bytes to r+1.
  uint64_t offset = 0;
  if (me > 0) {
    consume(sync, kChainSignal);
    offset = static_cast<uint64_t>(__atomic_load_n(&sync[kChainValue], __ATOMIC_ACQUIRE));
    __atomic_store_n(&sync[kChainValue], 0, __ATOMIC_RELEASE);
  }
  if (me + 1 < n) {
    int64_t next = static_cast<int64_t>(offset + bytes);
    atomic_set(&sync[kChainValue], next, set.pe(me + 1), call);
    fence();
    signal(set, sync, kChainSignal, me + 1, call);
  }
  char* at = static_cast<char*>(dest) + offset;
  for (int i = 0; i < n; ++i) put(at, src, bytes, set.pe((me + i) % n), call);
  barrier(set, sync, true, call);
}

void alltoall(const PeSet& set, SyncArea sync, void* dest, const void* src, size_t bytes,
              const char* call) {
  check_member(set, call);
  int me = set.my_rank(), n = set.size();
  char* at = static_cast<char*>(dest) + static_cast<size_t>(me) * bytes;
  for (int i = 0; i < n; ++i) {
    int r = (me + i) % n;
    put(at, static_cast<const char*>(src) + static_cast<size_t>(r) * bytes, bytes, set.pe(r), call);
  }
  barrier(set, sync, true, call);
}

void alltoalls(const PeSet& set, SyncArea sync, void* dest, const void* src, ptrdiff_t dst_stride,
               ptrdiff_t src_stride, size_t elem_bytes, size_t nelems, const char* call) {
  check_member(set, call);
  if (dst_stride < 1 || src_stride < 1) {
    log::fatal("%s: strides must be positive (destination stride %td, source stride %td)", call, dst_stride, src_stride);
  }
  int me = set.my_rank(), n = set.size();
  size_t dst_block = static_cast<size_t>(dst_stride) * nelems * elem_bytes;
  size_t src_block = static_cast<size_t>(src_stride) * nelems * elem_bytes;
  char* at = static_cast<char*>(dest) + static_cast<size_t>(me) * dst_block;
  for (int i = 0; i < n; ++i) {
    int r = (me + i) % n;
    iput(at, static_cast<const char*>(src) + static_cast<size_t>(r) * src_block, dst_stride, src_stride,
         elem_bytes, nelems, set.pe(r), call);
  }
  barrier(set, sync, true, call);
}

const char* op_name(ReduceOp op) {
  static const char* kNames[] = {"and", "or", "xor", "max", "min", "sum", "prod"};
  return kNames[static_cast<unsigned>(op)];
}

namespace detail {

[[noreturn]] void undefined_op(ReduceOp op, const char* type, const char* call) {
  log::fatal("%s: reduction '%s' is not defined for element type %s", call, op_name(op), type);
}

void reduce_common(const PeSet& set, SyncArea sync, void* acc, const void* src, size_t count,
                   size_t elem_bytes, CombineFn combine, const char* call, int below) {
  check_member(set, call);
  size_t bytes = count * elem_bytes;
  if (bytes != 0 && !addr_accessible(src, bytes, my_pe())) {
    log::fatal("%s: source %p (%zu bytes) is not symmetric memory", call, src, bytes);
  }
  barrier(set, sync, false, call);
  constexpr size_t kBounceBytes = 64 * 1024;
  std::vector<char> bounce;
  int me = set.my_rank(), n = set.size();
  for (int i = 1; i < n; ++i) {
    if (below >= 0 && (me + i) % n >= below) continue;
    int pe = set.pe((me + i) % n);
    if (const void* mapped = bytes != 0 ? peer_pointer(src, pe) : nullptr) {
      combine(acc, mapped, count);
      continue;
    }
    size_t per_piece = std::max<size_t>(1, kBounceBytes / elem_bytes);
    bounce.resize(std::min(count, per_piece) * elem_bytes);
    for (size_t done = 0; done < count; done += per_piece) {
      size_t c = std::min(per_piece, count - done);
      get(bounce.data(), static_cast<const char*>(src) + done * elem_bytes, c * elem_bytes, pe, call);
      combine(static_cast<char*>(acc) + done * elem_bytes, bounce.data(), c);
    }
  }
  barrier(set, sync, false, call);
}

}  // namespace detail
}  // namespace gasket::coll
