#define BOOST_TEST_MODULE op
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <vector>

#include "mpi/op/op.h"

using gasket::mpi::op::apply_predefined;

namespace {

// Element i of operand `which` (0: in, 1: inout): 0..3, so that sums and products stay exact in
// every type and the logical ops see zeros and non-zeros.
int value_at(int which, int64_t i) { return static_cast<int>((i * 7 + which * 3 + i / 5) % 4); }

// in op inout by the standard's definition of each predefined op (MPI 4.1 section 6.9.2).
long long reference(MPI_Op op, long long in, long long io) {
  if (op == MPI_MAX) return in > io ? in : io;
  if (op == MPI_MIN) return in < io ? in : io;
  if (op == MPI_SUM) return in + io;
  if (op == MPI_PROD) return in * io;
  if (op == MPI_LAND) return (in != 0) && (io != 0);
  if (op == MPI_LOR) return (in != 0) || (io != 0);
  if (op == MPI_LXOR) return (in != 0) != (io != 0);
  if (op == MPI_BAND) return in & io;
  if (op == MPI_BOR) return in | io;
  return in ^ io;  // MPI_BXOR
}

const std::vector<int64_t>& counts() {
  static const std::vector<int64_t> c = [] {
    std::vector<int64_t> v;
    for (int64_t n = 0; n <= 70; ++n) v.push_back(n);
    for (int64_t n : {255, 256, 1025, 1030}) v.push_back(n);
    return v;
  }();
  return c;
}

// Every count, with the operands shifted by 0-3 elements against each other (the library runs
// separate operands in blocks of a fixed count and the rest one element at a time: every element
// lands at every position of a block and of the tail); then in == inout.
template <typename T>
void check_ops(MPI_Datatype type, const std::vector<MPI_Op>& ops) {
  constexpr int kShifts = 4;
  for (MPI_Op op : ops) {
    for (int64_t n : counts()) {
      for (int shift = 0; shift < kShifts; ++shift) {
        std::vector<T> in(static_cast<size_t>(n + kShifts)), io(static_cast<size_t>(n + kShifts));
        T* a = in.data() + shift;
        T* b = io.data() + (kShifts - 1 - shift);
        for (int64_t i = 0; i < n; ++i) a[i] = static_cast<T>(value_at(0, i)), b[i] = static_cast<T>(value_at(1, i));
        BOOST_REQUIRE(apply_predefined(op, type, a, b, n));
        for (int64_t i = 0; i < n; ++i) {
          if (static_cast<long long>(b[i]) != reference(op, value_at(0, i), value_at(1, i))) {
            BOOST_FAIL("op " << op << " count " << n << " shift " << shift << ": element " << i << " is "
                             << static_cast<long long>(b[i]));
          }
        }
      }
      std::vector<T> same(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) same[static_cast<size_t>(i)] = static_cast<T>(value_at(1, i));
      BOOST_REQUIRE(apply_predefined(op, type, same.data(), same.data(), n));
      for (int64_t i = 0; i < n; ++i) {
        BOOST_REQUIRE_EQUAL(static_cast<long long>(same[static_cast<size_t>(i)]),
                            reference(op, value_at(1, i), value_at(1, i)));
      }
    }
  }
}

const std::vector<MPI_Op> kArithmetic = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD};
const std::vector<MPI_Op> kInteger = {MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD, MPI_LAND,
                                      MPI_LOR,  MPI_LXOR, MPI_BAND, MPI_BOR,  MPI_BXOR};

}  // namespace

BOOST_AUTO_TEST_CASE(every_op_on_integers_at_every_count_and_shift) {
  check_ops<int8_t>(MPI_INT8_T, kInteger);
  check_ops<int>(MPI_INT, kInteger);
  check_ops<int64_t>(MPI_INT64_T, kInteger);
}

BOOST_AUTO_TEST_CASE(arithmetic_ops_on_floating_point_at_every_count_and_shift) {
  check_ops<float>(MPI_FLOAT, kArithmetic);
  check_ops<double>(MPI_DOUBLE, kArithmetic);
}
