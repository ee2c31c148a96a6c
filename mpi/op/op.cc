#include <algorithm>
#include <climits>
#include "mpi/op/op.h"

#include <complex>
#include <cstddef>
#include <cstdio>
#include <cstring>

namespace gasket::mpi::op {
namespace {

// What the standard lets each group of predefined types do.
enum class Kind { kInteger, kFloat, kComplex, kBool, kByte, kPair, kNone };

Kind kind_of(MPI_Datatype t) {
  switch (t) {
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_SHORT: case MPI_UNSIGNED_SHORT:
    case MPI_INT: case MPI_UNSIGNED: case MPI_LONG: case MPI_UNSIGNED_LONG: case MPI_LONG_LONG:
    case MPI_UNSIGNED_LONG_LONG: case MPI_INT8_T: case MPI_INT16_T: case MPI_INT32_T: case MPI_INT64_T:
    case MPI_UINT8_T: case MPI_UINT16_T: case MPI_UINT32_T: case MPI_UINT64_T: case MPI_AINT: case MPI_OFFSET:
    case MPI_COUNT: case MPI_INTEGER: case MPI_INTEGER1: case MPI_INTEGER2: case MPI_INTEGER4: case MPI_INTEGER8:
    case MPI_INTEGER16:
      return Kind::kInteger;
    case MPI_FLOAT: case MPI_DOUBLE: case MPI_LONG_DOUBLE: case MPI_REAL: case MPI_DOUBLE_PRECISION: case MPI_REAL4:
    case MPI_REAL8: case MPI_REAL16:
      return Kind::kFloat;
    case MPI_C_FLOAT_COMPLEX: case MPI_C_DOUBLE_COMPLEX: case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_COMPLEX:
    case MPI_DOUBLE_COMPLEX: case MPI_COMPLEX8: case MPI_COMPLEX16: case MPI_COMPLEX32:
    case MPI_CXX_FLOAT_COMPLEX: case MPI_CXX_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX:
      return Kind::kComplex;
    case MPI_C_BOOL: case MPI_LOGICAL: case MPI_CXX_BOOL: case MPI_LOGICAL1: case MPI_LOGICAL2: case MPI_LOGICAL4:
    case MPI_LOGICAL8: case MPI_LOGICAL16:
      return Kind::kBool;
    case MPI_BYTE: case MPI_PACKED: return Kind::kByte;
    case MPI_FLOAT_INT: case MPI_DOUBLE_INT: case MPI_LONG_INT: case MPI_2INT: case MPI_SHORT_INT:
    case MPI_LONG_DOUBLE_INT: case MPI_2REAL: case MPI_2DOUBLE_PRECISION: case MPI_2INTEGER:
      return Kind::kPair;
    default: return Kind::kNone;
  }
}

bool defined(MPI_Op op, Kind k) {
  if (k == Kind::kNone) return false;
  switch (op) {
    case MPI_REPLACE: case MPI_NO_OP: return true;
    case MPI_MAX: case MPI_MIN: return k == Kind::kInteger || k == Kind::kFloat;
    case MPI_SUM: case MPI_PROD: return k == Kind::kInteger || k == Kind::kFloat || k == Kind::kComplex;
    case MPI_LAND: case MPI_LOR: case MPI_LXOR: return k == Kind::kInteger || k == Kind::kBool;
    case MPI_BAND: case MPI_BOR: case MPI_BXOR: return k == Kind::kInteger || k == Kind::kByte;
    case MPI_MINLOC: case MPI_MAXLOC: return k == Kind::kPair;
    default: return false;
  }
}

// Elements per block of elementwise() below.
constexpr int64_t kBlockElements = 16;

// io[k] = f(io[k], in[k]) for one block of operands that do not overlap: a loop of fixed count on
// restrict pointers, which GCC vectorises at -O2 (its default cost model there takes no loop of
// unknown count and no run-time overlap check: the plain loop ran one element per instruction,
// 64 KiB of floats summed in ~13k cycles instead of ~5k).
template <typename T, typename F>
void elementwise_block(const T* __restrict in, T* __restrict io) {
  for (int64_t k = 0; k < kBlockElements; ++k) io[k] = static_cast<T>(F{}(io[k], in[k]));
}

// io[i] = f(io[i], in[i]) over `n` elements of T: one loop per (type, operation); a Reducer once
// chosen (elementwise_reducer below) runs without any dispatch. Separate operands go by blocks;
// overlapping ones (in == io) and the tail one element at a time.
template <typename T, typename F>
void elementwise(const void* in_v, void* io_v, int64_t n) {
  const T* in = static_cast<const T*>(in_v);
  T* io = static_cast<T*>(io_v);
  int64_t i = 0;
  if (in + n <= io || io + n <= in) {
    for (; i + kBlockElements <= n; i += kBlockElements) elementwise_block<T, F>(in + i, io + i);
  }
  for (; i < n; ++i) io[i] = static_cast<T>(F{}(io[i], in[i]));
}

struct Max { template <typename T> T operator()(T a, T b) const { return a < b ? b : a; } };
struct Min { template <typename T> T operator()(T a, T b) const { return b < a ? b : a; } };
struct Sum { template <typename T> T operator()(T a, T b) const { return a + b; } };
struct Prod { template <typename T> T operator()(T a, T b) const { return a * b; } };
struct LogicalAnd { template <typename T> bool operator()(T a, T b) const { return (a != T{}) && (b != T{}); } };
struct LogicalOr { template <typename T> bool operator()(T a, T b) const { return (a != T{}) || (b != T{}); } };
struct LogicalXor { template <typename T> bool operator()(T a, T b) const { return (a != T{}) != (b != T{}); } };
struct BitAnd { template <typename T> T operator()(T a, T b) const { return a & b; } };
struct BitOr { template <typename T> T operator()(T a, T b) const { return a | b; } };
struct BitXor { template <typename T> T operator()(T a, T b) const { return a ^ b; } };

template <typename T>
Reducer arith(MPI_Op op) {
  switch (op) {
    case MPI_MAX: return elementwise<T, Max>;
    case MPI_MIN: return elementwise<T, Min>;
    case MPI_SUM: return elementwise<T, Sum>;
    case MPI_PROD: return elementwise<T, Prod>;
    case MPI_LAND: return elementwise<T, LogicalAnd>;
    case MPI_LOR: return elementwise<T, LogicalOr>;
    case MPI_LXOR: return elementwise<T, LogicalXor>;
    default: return nullptr;
  }
}

template <typename T>
Reducer integer(MPI_Op op) {
  switch (op) {
    case MPI_BAND: return elementwise<T, BitAnd>;
    case MPI_BOR: return elementwise<T, BitOr>;
    case MPI_BXOR: return elementwise<T, BitXor>;
    default: return arith<T>(op);
  }
}

template <typename T>
void complex(MPI_Op op, const void* in_v, void* io_v, int64_t n) {
  const std::complex<T>* in = static_cast<const std::complex<T>*>(in_v);
  std::complex<T>* io = static_cast<std::complex<T>*>(io_v);
  for (int64_t i = 0; i < n; ++i) io[i] = op == MPI_SUM ? io[i] + in[i] : io[i] * in[i];
}

// Fortran's COMPLEX*32 (two IEEE quads): std::complex is only defined for the standard types.
void complex_quad(MPI_Op op, const void* in_v, void* io_v, int64_t n) {
  const __float128* in = static_cast<const __float128*>(in_v);
  __float128* io = static_cast<__float128*>(io_v);
  for (int64_t i = 0; i < 2 * n; i += 2) {
    __float128 re = io[i], im = io[i + 1];
    if (op == MPI_SUM) {
      io[i] = re + in[i], io[i + 1] = im + in[i + 1];
    } else {
      io[i] = re * in[i] - im * in[i + 1], io[i + 1] = re * in[i + 1] + im * in[i];
    }
  }
}

// A MINLOC/MAXLOC pair: the value and its index (an int in C's pair types; Fortran's MPI_2REAL and
// MPI_2DOUBLE_PRECISION carry the index in the value's type).
template <typename V, typename I = int>
struct Pair {
  V v;
  I i;
};

// MINLOC/MAXLOC on (value, index) pairs `stride` bytes apart, the index `sizeof(V)` after the
// value when packed, at its struct offset in memory. Ties keep the smaller index.
template <typename V, typename I = int>
void loc(MPI_Op op, const void* in_v, void* io_v, int64_t n, bool packed) {
  const char* in = static_cast<const char*>(in_v);
  char* io = static_cast<char*>(io_v);
  using P = Pair<V, I>;
  const int64_t index_at = packed ? sizeof(V) : offsetof(P, i);
  const int64_t stride = packed ? sizeof(V) + sizeof(I) : sizeof(P);
  for (int64_t k = 0; k < n; ++k, in += stride, io += stride) {
    V a, b;
    I ia, ib;
    std::memcpy(&a, in, sizeof a);
    std::memcpy(&b, io, sizeof b);
    std::memcpy(&ia, in + index_at, sizeof ia);
    std::memcpy(&ib, io + index_at, sizeof ib);
    bool take = op == MPI_MINLOC ? (a < b || (a == b && ia < ib)) : (b < a || (a == b && ia < ib));
    if (take) {
      std::memcpy(io, &a, sizeof a);
      std::memcpy(io + index_at, &ia, sizeof ia);
    }
  }
}

// Bytes of one element of predefined type `t` (pairs: packed, or at their C struct stride).
int64_t element_bytes(MPI_Datatype t, bool packed) {
  switch (t) {
    case MPI_FLOAT_INT: return packed ? sizeof(float) + 4 : sizeof(Pair<float>);
    case MPI_DOUBLE_INT: return packed ? sizeof(double) + 4 : sizeof(Pair<double>);
    case MPI_LONG_INT: return packed ? sizeof(long) + 4 : sizeof(Pair<long>);
    case MPI_2INT: case MPI_2INTEGER: case MPI_2REAL: return 8;
    case MPI_2DOUBLE_PRECISION: return 16;
    case MPI_SHORT_INT: return packed ? sizeof(short) + 4 : sizeof(Pair<short>);
    case MPI_LONG_DOUBLE_INT: return packed ? sizeof(long double) + 4 : sizeof(Pair<long double>);
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_PACKED: case MPI_INT8_T:
    case MPI_UINT8_T: case MPI_C_BOOL: case MPI_CHARACTER: case MPI_INTEGER1: case MPI_CXX_BOOL: case MPI_LOGICAL1:
      return 1;
    case MPI_INTEGER2: case MPI_LOGICAL2: return 2;
    case MPI_INTEGER: case MPI_INTEGER4: case MPI_REAL: case MPI_REAL4: case MPI_LOGICAL: case MPI_LOGICAL4: return 4;
    case MPI_INTEGER8: case MPI_DOUBLE_PRECISION: case MPI_REAL8: case MPI_COMPLEX: case MPI_COMPLEX8:
    case MPI_LOGICAL8: case MPI_CXX_FLOAT_COMPLEX:
      return 8;
    case MPI_INTEGER16: case MPI_REAL16: case MPI_DOUBLE_COMPLEX: case MPI_COMPLEX16: case MPI_LOGICAL16:
    case MPI_CXX_DOUBLE_COMPLEX:
      return 16;
    case MPI_COMPLEX32: return 32;
    case MPI_SHORT: case MPI_UNSIGNED_SHORT: case MPI_INT16_T: case MPI_UINT16_T: return 2;
    case MPI_INT: case MPI_UNSIGNED: case MPI_INT32_T: case MPI_UINT32_T: case MPI_FLOAT: return 4;
    case MPI_LONG: case MPI_UNSIGNED_LONG: case MPI_LONG_LONG: case MPI_UNSIGNED_LONG_LONG: case MPI_INT64_T:
    case MPI_UINT64_T: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT: case MPI_DOUBLE: case MPI_C_FLOAT_COMPLEX:
      return 8;
    case MPI_C_DOUBLE_COMPLEX: return 16;
    case MPI_LONG_DOUBLE: return sizeof(long double);
    case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX: return 2 * sizeof(long double);
    default: return 0;
  }
}

// The elementwise loop of a predefined op on a predefined type of one value per element
// (integers, floating point, logical, bytes); null for the others (complex, pairs) and for ops
// the loop does not serve (MINLOC/MAXLOC, REPLACE, NO_OP). Not checked: defined() first.
Reducer elementwise_reducer(MPI_Op op, MPI_Datatype t) {
  switch (t) {
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_INT8_T: case MPI_INTEGER1: return integer<int8_t>(op);
    case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_PACKED: case MPI_UINT8_T: case MPI_C_BOOL: case MPI_CXX_BOOL:
    case MPI_LOGICAL1:
      return integer<uint8_t>(op);
    case MPI_SHORT: case MPI_INT16_T: case MPI_INTEGER2: case MPI_LOGICAL2: return integer<int16_t>(op);
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: return integer<uint16_t>(op);
    case MPI_INT: case MPI_INT32_T: case MPI_INTEGER: case MPI_INTEGER4: case MPI_LOGICAL: case MPI_LOGICAL4:
      return integer<int32_t>(op);
    case MPI_UNSIGNED: case MPI_UINT32_T: return integer<uint32_t>(op);
    case MPI_LONG: case MPI_LONG_LONG: case MPI_INT64_T: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT:
    case MPI_INTEGER8: case MPI_LOGICAL8:
      return integer<int64_t>(op);
    case MPI_UNSIGNED_LONG: case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: return integer<uint64_t>(op);
    case MPI_INTEGER16: case MPI_LOGICAL16: return integer<__int128>(op);
    case MPI_FLOAT: case MPI_REAL: case MPI_REAL4: return arith<float>(op);
    case MPI_DOUBLE: case MPI_DOUBLE_PRECISION: case MPI_REAL8: return arith<double>(op);
    case MPI_LONG_DOUBLE: return arith<long double>(op);
    case MPI_REAL16: return arith<__float128>(op);
    default: return nullptr;
  }
}

// The predefined op on `n` basic elements (checked: defined for the type).
void run(MPI_Op op, MPI_Datatype t, const void* in, void* io, int64_t n, bool packed) {
  if (Reducer r = elementwise_reducer(op, t)) return r(in, io, n);
  switch (t) {
    case MPI_C_FLOAT_COMPLEX: case MPI_COMPLEX: case MPI_COMPLEX8: case MPI_CXX_FLOAT_COMPLEX:
      return complex<float>(op, in, io, n);
    case MPI_C_DOUBLE_COMPLEX: case MPI_DOUBLE_COMPLEX: case MPI_COMPLEX16: case MPI_CXX_DOUBLE_COMPLEX:
      return complex<double>(op, in, io, n);
    case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX: return complex<long double>(op, in, io, n);
    case MPI_COMPLEX32: return complex_quad(op, in, io, n);
    case MPI_FLOAT_INT: return loc<float>(op, in, io, n, packed);
    case MPI_DOUBLE_INT: return loc<double>(op, in, io, n, packed);
    case MPI_LONG_INT: return loc<long>(op, in, io, n, packed);
    case MPI_2INT: return loc<int>(op, in, io, n, packed);
    case MPI_SHORT_INT: return loc<short>(op, in, io, n, packed);
    case MPI_LONG_DOUBLE_INT: return loc<long double>(op, in, io, n, packed);
    case MPI_2REAL: return loc<float, float>(op, in, io, n, packed);
    case MPI_2DOUBLE_PRECISION: return loc<double, double>(op, in, io, n, packed);
    case MPI_2INTEGER: return loc<int32_t, int32_t>(op, in, io, n, packed);
    default: return;
  }
}

// Applies a predefined op to `n` elements of predefined type `t` (bytes of one element given).
bool apply_basic(MPI_Op op, MPI_Datatype t, const void* in, void* io, int64_t n, int64_t elem, bool packed) {
  Kind k = kind_of(t);
  if (!defined(op, k)) return false;
  if (op == MPI_NO_OP || n == 0) return true;
  if (op == MPI_REPLACE) {
    std::memmove(io, in, static_cast<size_t>(n * elem));
    return true;
  }
  run(op, t, in, io, n, packed);
  return true;
}

}  // namespace

bool apply_predefined(MPI_Op op, MPI_Datatype type, const void* in, void* io, int64_t n) {
  return apply_basic(op, type, in, io, n, element_bytes(type, false), false);
}

bool apply_predefined_packed(MPI_Op op, MPI_Datatype type, const void* in, void* io, int64_t n) {
  return apply_basic(op, type, in, io, n, element_bytes(type, true), true);
}

const char* name(MPI_Op op) {
  static const char* const names[] = {"MPI_OP_NULL", "MPI_MAX",  "MPI_MIN",  "MPI_SUM",    "MPI_PROD",
                                      "MPI_LAND",    "MPI_BAND", "MPI_LOR",  "MPI_BOR",    "MPI_LXOR",
                                      "MPI_BXOR",    "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"};
  if (op == MPI_OP_NULL || is_predefined(op)) return names[slot_of(HandleKind::kOp, op)];
  return "a user operation";
}

bool is_predefined(MPI_Op op) {
  size_t slot = slot_of(HandleKind::kOp, op);
  return slot >= slot_of(HandleKind::kOp, MPI_MAX) && slot <= slot_of(HandleKind::kOp, MPI_NO_OP);
}

size_t OpTable::user_index(MPI_Op op) {
  size_t slot = slot_of(HandleKind::kOp, op), last_predefined = slot_of(HandleKind::kOp, MPI_NO_OP);
  return slot != kNoSlot && slot > last_predefined ? slot - last_predefined - 1 : kNoSlot;
}

MPI_Op OpTable::add(const UserOp& op) {
  ops_.push_back(op);
  live_.push_back(true);
  return handle_of(HandleKind::kOp, slot_of(HandleKind::kOp, MPI_NO_OP) + ops_.size());
}

const UserOp* OpTable::find(MPI_Op op) const {
  size_t i = user_index(op);
  return i < ops_.size() ? &ops_[i] : nullptr;
}

bool OpTable::valid(MPI_Op op) const {
  if (is_predefined(op)) return true;
  return find(op) != nullptr && live_[user_index(op)];
}

Error OpTable::free(MPI_Op* op, const char* call) {
  if (op == nullptr) return error(MPI_ERR_ARG, "%s: op is NULL", call);
  if (is_predefined(*op)) {
    return error(MPI_ERR_OP, "%s: %s is predefined and cannot be freed", call, name(*op));
  }
  if (!valid(*op)) {
    return error(MPI_ERR_OP, "%s: %d is not a user operation (%s)", call, *op, why_not_found(HandleKind::kOp, *op));
  }
  live_[user_index(*op)] = false;  // handles are not reused
  *op = MPI_OP_NULL;
  return Error::ok();
}

Error check(const OpTable& ops, const datatype::DatatypeTable& types, MPI_Op op, const datatype::Datatype& type,
            const char* call, int rank) {
  if (op == MPI_OP_NULL) return error(MPI_ERR_OP, "%s: rank %d: the operation is MPI_OP_NULL", call, rank);
  if (!ops.valid(op)) return error(MPI_ERR_OP, "%s: rank %d: operation %d is not an operation", call, rank, op);
  if (ops.find(op) != nullptr) return Error::ok();  // user operations take any type
  if (op == MPI_REPLACE || op == MPI_NO_OP) {
    return error(MPI_ERR_OP, "%s: rank %d: %s is only for one-sided accumulates", call, rank, name(op));
  }
  if (type.basic_type == 0) {
    return error(MPI_ERR_OP, "%s: rank %d: %s needs a datatype made of one predefined type; %s mixes several",
                 call, rank, name(op), type.name.empty() ? "the derived datatype" : type.name.c_str());
  }
  if (!defined(op, kind_of(type.basic_type))) {
    const datatype::Datatype* basic = types.find_committed(type.basic_type);
    const char* tname = basic != nullptr ? basic->name.c_str() : "?";
    if (type.predefined) {
      return error(MPI_ERR_OP, "%s: rank %d: %s is not defined for %s", call, rank, name(op), tname);
    }
    return error(MPI_ERR_OP, "%s: rank %d: %s is not defined for %s (the basic type of the derived datatype)", call,
                 rank, name(op), tname);
  }
  return Error::ok();
}

namespace {
// The user's function over `count` elements at in and inout, `extent` bytes apart: an int-count
// function (MPI_Op_create) in pieces of at most INT_MAX elements.
void call_user(const UserOp& u, void* in, void* inout, int64_t count, int64_t extent, MPI_Datatype handle) {
  if (u.function_c != nullptr) {
    MPI_Count len = count;
    u.function_c(in, inout, &len, &handle);
    return;
  }
  for (int64_t done = 0; done < count;) {
    int len = static_cast<int>(std::min<int64_t>(count - done, INT_MAX));
    u.function(static_cast<char*>(in) + done * extent, static_cast<char*>(inout) + done * extent, &len, &handle);
    done += len;
  }
}
}  // namespace

void apply(const OpTable& ops, MPI_Op op, int type_handle, const datatype::Datatype& type, const void* in,
           void* inout, int64_t count) {
  if (count == 0) return;
  const UserOp* u = ops.find(op);
  if (u == nullptr) {
    MPI_Datatype basic = type.basic_type;
    int64_t elem = element_bytes(basic, true);
    (void)apply_basic(op, basic, in, inout, count * type.size / elem, elem, true);
    return;
  }
  if (type.contiguous() && type.true_lb == 0) {
    call_user(*u, const_cast<void*>(in), inout, count, type.extent(), type_handle);
    return;
  }
  // The user function sees the elements as `type` lays them out.
  int64_t span = (count - 1) * type.extent() + type.true_ub - type.true_lb;
  std::vector<char> a(static_cast<size_t>(span)), b(static_cast<size_t>(span));
  char* a_base = a.data() - type.true_lb;
  char* b_base = b.data() - type.true_lb;
  int64_t bytes = count * type.size;
  datatype::unpack(type, static_cast<const char*>(in), bytes, a_base, count);
  datatype::unpack(type, static_cast<const char*>(inout), bytes, b_base, count);
  call_user(*u, a_base, b_base, count, type.extent(), type_handle);
  datatype::pack(type, b_base, count, static_cast<char*>(inout));
}

Combiner::Combiner(const OpTable& ops, MPI_Op op, int type_handle, const datatype::Datatype& type)
    : ops_(ops), op_(op), type_handle_(type_handle), type_(type) {
  if (ops.find(op) != nullptr || !defined(op, kind_of(type.basic_type))) return;
  int64_t elem = element_bytes(type.basic_type, true);
  if (elem <= 0 || type.size % elem != 0) return;
  loop_ = elementwise_reducer(op, type.basic_type);
  basic_per_element_ = type.size / elem;
}

}  // namespace gasket::mpi::op
