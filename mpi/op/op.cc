#include "mpi/op/op.h"

#include <cstring>

namespace gasket::mpi::op {
namespace {

template <typename T>
void arith(MPI_Op op, const T* in, T* io, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    switch (op) {
      case MPI_MAX: io[i] = io[i] < in[i] ? in[i] : io[i]; break;
      case MPI_MIN: io[i] = in[i] < io[i] ? in[i] : io[i]; break;
      case MPI_SUM: io[i] = io[i] + in[i]; break;
      case MPI_PROD: io[i] = io[i] * in[i]; break;
      case MPI_LAND: io[i] = (io[i] != T{}) && (in[i] != T{}); break;
      case MPI_LOR: io[i] = (io[i] != T{}) || (in[i] != T{}); break;
      case MPI_LXOR: io[i] = (io[i] != T{}) != (in[i] != T{}); break;
      case MPI_REPLACE: io[i] = in[i]; break;
      default: break;
    }
  }
}

template <typename T>
void bitwise(MPI_Op op, const T* in, T* io, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (op == MPI_BAND) io[i] &= in[i];
    if (op == MPI_BOR) io[i] |= in[i];
    if (op == MPI_BXOR) io[i] ^= in[i];
  }
}

template <typename V>
void loc(MPI_Op op, const char* in, char* io, int64_t n, int64_t extent) {
  for (int64_t i = 0; i < n; ++i) {
    V a, b;
    int ia, ib;
    std::memcpy(&a, in + i * extent, sizeof a);
    std::memcpy(&b, io + i * extent, sizeof b);
    int64_t off = extent - static_cast<int64_t>(sizeof(int));
    std::memcpy(&ia, in + i * extent + off, sizeof ia);
    std::memcpy(&ib, io + i * extent + off, sizeof ib);
    bool take = op == MPI_MINLOC ? (a < b || (a == b && ia < ib)) : (a > b || (a == b && ia < ib));
    if (take) std::memcpy(io + i * extent, in + i * extent, static_cast<size_t>(extent));
  }
}

template <typename T>
bool integer_op(MPI_Op op, const void* in, void* io, int64_t n) {
  if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) {
    bitwise(op, static_cast<const T*>(in), static_cast<T*>(io), n);
  } else {
    arith(op, static_cast<const T*>(in), static_cast<T*>(io), n);
  }
  return true;
}

}  // namespace

bool apply_predefined(MPI_Op op, MPI_Datatype type, const void* in, void* io, int64_t n) {
  bool is_loc = op == MPI_MINLOC || op == MPI_MAXLOC;
  bool is_bit = op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR;
  if (op < MPI_MAX || op > MPI_REPLACE) return false;
  if (is_loc) {
    switch (type) {
      case MPI_2INT: loc<int>(op, static_cast<const char*>(in), static_cast<char*>(io), n, 8); return true;
      case MPI_DOUBLE_INT: loc<double>(op, static_cast<const char*>(in), static_cast<char*>(io), n, 16); return true;
      case MPI_FLOAT_INT: loc<float>(op, static_cast<const char*>(in), static_cast<char*>(io), n, 8); return true;
      case MPI_LONG_INT: loc<long>(op, static_cast<const char*>(in), static_cast<char*>(io), n, 16); return true;
      default: return false;
    }
  }
  switch (type) {
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_INT8_T: return integer_op<int8_t>(op, in, io, n);
    case MPI_UNSIGNED_CHAR: case MPI_BYTE: case MPI_UINT8_T: return integer_op<uint8_t>(op, in, io, n);
    case MPI_SHORT: case MPI_INT16_T: return integer_op<int16_t>(op, in, io, n);
    case MPI_UNSIGNED_SHORT: case MPI_UINT16_T: return integer_op<uint16_t>(op, in, io, n);
    case MPI_INT: case MPI_INT32_T: return integer_op<int32_t>(op, in, io, n);
    case MPI_UNSIGNED: case MPI_UINT32_T: return integer_op<uint32_t>(op, in, io, n);
    case MPI_LONG: case MPI_LONG_LONG: case MPI_INT64_T: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT:
      return integer_op<int64_t>(op, in, io, n);
    case MPI_UNSIGNED_LONG: case MPI_UNSIGNED_LONG_LONG: case MPI_UINT64_T: return integer_op<uint64_t>(op, in, io, n);
    case MPI_C_BOOL: return integer_op<uint8_t>(op, in, io, n);
    case MPI_FLOAT:
      if (is_bit) return false;
      arith(op, static_cast<const float*>(in), static_cast<float*>(io), n);
      return true;
    case MPI_DOUBLE:
      if (is_bit) return false;
      arith(op, static_cast<const double*>(in), static_cast<double*>(io), n);
      return true;
    case MPI_LONG_DOUBLE:
      if (is_bit) return false;
      arith(op, static_cast<const long double*>(in), static_cast<long double*>(io), n);
      return true;
    default: return false;
  }
}


}  // namespace gasket::mpi::op
