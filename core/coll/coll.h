// Collective algorithms over the core's one-sided operations, shared by the programming models
// (OpenSHMEM teams and active sets; MPI communicators through cells.h and mpi/coll).
//
// A collective runs on a PeSet — the PEs taking part, numbered by rank 0..size-1 — and uses a
// SyncArea: kSyncWords 64-bit words at the same symmetric address on every member, zero before
// the first collective, and back at zero whenever no collective of the set is running. Every
// signal is an atomic increment of a peer's word that the peer waits for and then decrements, so
// the words need no epochs, survive any interleaving of consecutive collectives on one set, and a
// freed area can serve a new set at once. (An OpenSHMEM pSync array is such an area.)
//
// Every member calls the same collectives in the same order. Data buffers named `dest`/`src` are
// symmetric unless a comment says otherwise. Bad arguments end the job with a message naming
// `call` and the values (core/base/log.h).
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "core/gasket.h"

namespace gasket::coll {

// Which PEs take part and in which rank order: a strided range, or an explicit list.
class PeSet {
 public:
  PeSet() = default;
  // PEs start, start+stride, ... (size of them). Checks the range against n_pes(), naming `call`.
  static PeSet strided(int start, int stride, int size, const char* call);
  // The given PEs in rank order (distinct, each in range).
  static PeSet of_list(std::vector<int> pes, const char* call);

  int size() const { return size_; }
  int pe(int rank) const { return list_.empty() ? start_ + rank * stride_ : list_[static_cast<size_t>(rank)]; }
  // The rank of `pe` in this set, or -1.
  int rank_of(int pe) const;
  // This PE's rank (-1 when it is not a member).
  int my_rank() const { return my_rank_; }
  bool is_strided() const { return list_.empty(); }
  int start() const { return start_; }
  int stride() const { return stride_; }
  // The members (rank order) of the sub-set given by ranks of this set.
  PeSet subset(const std::vector<int>& ranks, const char* call) const;

 private:
  int start_ = 0, stride_ = 1, size_ = 0, my_rank_ = -1;
  std::vector<int> list_;  // empty for a strided set
};

// Words of a SyncArea (the OpenSHMEM pSync sizes are at least this).
constexpr size_t kSyncWords = 40;
// Word indices: [0, kBarrierWords) barrier rounds; then the collect chain's signal and value.
constexpr size_t kBarrierWords = 32;
constexpr size_t kChainSignal = 32;
constexpr size_t kChainValue = 33;
constexpr size_t kTreeSignal = 34;  // a tree broadcast's "your data has arrived"
// From this many members on, broadcast runs a binomial tree (O(log n) rounds) instead of puts by
// the root to every member.
constexpr int kTreeMinPes = 8;

using SyncArea = int64_t*;  // kSyncWords symmetric words
// Ends the job, naming `call`, unless `sync` is kSyncWords words of symmetric memory (every
// algorithm below checks its area; a caller that may not need it checks it with this).
void check_sync(SyncArea sync, const char* call);

// Waits until every member has arrived. `with_quiet` first completes this PE's puts and atomics
// (barrier); without it only this call's own signals are ordered (OpenSHMEM's sync).
void barrier(const PeSet& set, SyncArea sync, bool with_quiet, const char* call);

// `bytes` from `root_rank`'s `src` to every member's `dest` (the root's own too when
// `include_root`). Returns when this PE's `dest` holds the data. `src` may be any memory of the
// root; from kTreeMinPes members on, members forward the data out of their `dest`.
void broadcast(const PeSet& set, SyncArea sync, void* dest, const void* src, size_t bytes,
               int root_rank, bool include_root, const char* call);
// Each member's `bytes` from `src` land at dest + rank * bytes on every member.
void fcollect(const PeSet& set, SyncArea sync, void* dest, const void* src, size_t bytes,
              const char* call);
// As fcollect, but each member contributes its own `bytes` (concatenated in rank order).
void collect(const PeSet& set, SyncArea sync, void* dest, const void* src, size_t bytes,
             const char* call);
// Block j (of `bytes`) of each member's `src` lands at dest + rank * bytes on member j.
void alltoall(const PeSet& set, SyncArea sync, void* dest, const void* src, size_t bytes,
              const char* call);
// As alltoall with strided blocks: `nelems` elements of `elem_bytes` per block; strides in elements.
void alltoalls(const PeSet& set, SyncArea sync, void* dest, const void* src, ptrdiff_t dst_stride,
               ptrdiff_t src_stride, size_t elem_bytes, size_t nelems, const char* call);

enum class ReduceOp { kAnd, kOr, kXor, kMax, kMin, kSum, kProd };
const char* op_name(ReduceOp op);

namespace detail {
// The common part of every reduction: an entry barrier (every `src` is ready), then for each other
// member either its mapped `src` (same node) or a copy fetched into `bounce` is passed to
// `combine(data, count)`; then an exit barrier (every member has read every `src`).
// `src` needs to be symmetric; the result is written by the caller after the exit barrier, which
// makes dest == src safe. `below` < 0 combines every other member; otherwise only the members of
// rank < below (a scan: below = my rank).
using CombineFn = void (*)(void* acc, const void* data, size_t count);
void reduce_common(const PeSet& set, SyncArea sync, void* acc, const void* src, size_t count,
                   size_t elem_bytes, CombineFn combine, const char* call, int below = -1);

template <typename T>
struct IsComplex : std::false_type {};
template <typename T>
struct IsComplex<std::complex<T>> : std::true_type {};

// Whether `op` is defined for T (bitwise: integers; max/min: not complex).
template <typename T>
constexpr bool op_defined(ReduceOp op) {
  if (op == ReduceOp::kAnd || op == ReduceOp::kOr || op == ReduceOp::kXor) return std::is_integral<T>::value;
  if (op == ReduceOp::kMax || op == ReduceOp::kMin) return !IsComplex<T>::value;
  return true;
}

template <typename T, ReduceOp Op>
void combine(void* acc_v, const void* data_v, size_t count) {
  T* acc = static_cast<T*>(acc_v);
  const T* data = static_cast<const T*>(data_v);
  for (size_t i = 0; i < count; ++i) {
    T v;
    std::memcpy(&v, data + i, sizeof(T));  // `data` may be a peer's mapped memory, any alignment
    if constexpr (Op == ReduceOp::kSum) {
      acc[i] = acc[i] + v;
    } else if constexpr (Op == ReduceOp::kProd) {
      acc[i] = acc[i] * v;
    } else if constexpr (Op == ReduceOp::kMax) {
      if constexpr (!IsComplex<T>::value) acc[i] = v > acc[i] ? v : acc[i];
    } else if constexpr (Op == ReduceOp::kMin) {
      if constexpr (!IsComplex<T>::value) acc[i] = v < acc[i] ? v : acc[i];
    } else if constexpr (std::is_integral<T>::value) {
      if constexpr (Op == ReduceOp::kAnd) acc[i] = static_cast<T>(acc[i] & v);
      if constexpr (Op == ReduceOp::kOr) acc[i] = static_cast<T>(acc[i] | v);
      if constexpr (Op == ReduceOp::kXor) acc[i] = static_cast<T>(acc[i] ^ v);
    }
  }
}

template <typename T>
CombineFn combiner(ReduceOp op) {
  switch (op) {
    case ReduceOp::kAnd: return combine<T, ReduceOp::kAnd>;
    case ReduceOp::kOr: return combine<T, ReduceOp::kOr>;
    case ReduceOp::kXor: return combine<T, ReduceOp::kXor>;
    case ReduceOp::kMax: return combine<T, ReduceOp::kMax>;
    case ReduceOp::kMin: return combine<T, ReduceOp::kMin>;
    case ReduceOp::kSum: return combine<T, ReduceOp::kSum>;
    case ReduceOp::kProd: return combine<T, ReduceOp::kProd>;
  }
  return nullptr;
}

[[noreturn]] void undefined_op(ReduceOp op, const char* type, const char* call);
}  // namespace detail

// dest[i] = op over the members of src[i], on every member, for i < count. `src` is symmetric;
// `dest` may be any memory of this PE and may equal `src`. Defined ops: sum/prod for every
// arithmetic and complex type, max/min for real types, and/or/xor for integers.
template <typename T>
void reduce(const PeSet& set, SyncArea sync, T* dest, const T* src, size_t count, ReduceOp op,
            const char* call) {
  if (!detail::op_defined<T>(op)) detail::undefined_op(op, typeid(T).name(), call);
  std::vector<T> acc(count);
  if (count != 0) std::memcpy(acc.data(), src, count * sizeof(T));
  detail::reduce_common(set, sync, acc.data(), src, count, sizeof(T), detail::combiner<T>(op), call);
  if (count != 0) std::memcpy(dest, acc.data(), count * sizeof(T));
}

// Prefix reduction: dest[i] = op over src[i] of the members of rank < mine (exclusive; rank 0 gets
// T{}, zero) or <= mine (inclusive). Same rules as reduce (symmetric src, dest == src allowed).
template <typename T>
void scan(const PeSet& set, SyncArea sync, T* dest, const T* src, size_t count, ReduceOp op, bool inclusive,
          const char* call) {
  if (!detail::op_defined<T>(op)) detail::undefined_op(op, typeid(T).name(), call);
  std::vector<T> acc(count, T{});
  if (inclusive && count != 0) std::memcpy(acc.data(), src, count * sizeof(T));
  detail::reduce_common(set, sync, acc.data(), src, count, sizeof(T), detail::combiner<T>(op), call, set.my_rank());
  if (count != 0) std::memcpy(dest, acc.data(), count * sizeof(T));
}

}  // namespace gasket::coll
