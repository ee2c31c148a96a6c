/* Every predefined arithmetic, logical and bitwise operation on 1-, 4- and 8-byte integers, and
 * the arithmetic ones on float and double, through MPI_Reduce_local, at every count from 0 to 70 and a few long ones, with the
 * operands shifted by 0-3 elements against each other: inoutbuf[i] = inbuf[i] op inoutbuf[i]
 * (MPI 4.1 section 6.9.7), compared element by element with the operation's definition computed
 * here. The library runs the bulk of a long vector in fixed blocks and the rest element by
 * element; the counts and shifts put every element at every position of a block and the tail. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { kMost = 1030, kShifts = 4 };

/* The value of element i of operand `which` (0: inbuf, 1: inoutbuf): 0..3, so that products and
 * sums stay exact in every type and the logical ops see zeros and non-zeros. */
static int value_at(int which, int i) { return (i * 7 + which * 3 + i / 5) % 4; }

static int apply_int(MPI_Op op, long long a, long long b, long long* r) {
  /* r = a op b, a from inbuf, b from inoutbuf; 0 when op does not apply */
  if (op == MPI_MAX) *r = a > b ? a : b;
  else if (op == MPI_MIN) *r = a < b ? a : b;
  else if (op == MPI_SUM) *r = a + b;
  else if (op == MPI_PROD) *r = a * b;
  else if (op == MPI_LAND) *r = (a != 0) && (b != 0);
  else if (op == MPI_LOR) *r = (a != 0) || (b != 0);
  else if (op == MPI_LXOR) *r = (a != 0) != (b != 0);
  else if (op == MPI_BAND) *r = a & b;
  else if (op == MPI_BOR) *r = a | b;
  else if (op == MPI_BXOR) *r = a ^ b;
  else return 0;
  return 1;
}

#define CHECK_TYPE(CTYPE, MPITYPE, FLOATING)                                                     \
  do {                                                                                           \
    CTYPE* in = malloc(sizeof(CTYPE) * (kMost + kShifts));                                       \
    CTYPE* io = malloc(sizeof(CTYPE) * (kMost + kShifts));                                       \
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o) {                                    \
      if (FLOATING && o >= 4) continue; /* logical and bitwise ops: integers only */              \
      for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {                            \
        for (int shift = 0; shift < kShifts; ++shift) {                                          \
          int n = counts[c];                                                                     \
          CTYPE* a = in + shift;                                                                 \
          CTYPE* b = io + (kShifts - 1 - shift);                                                 \
          for (int i = 0; i < n; ++i) a[i] = (CTYPE)value_at(0, i), b[i] = (CTYPE)value_at(1, i); \
          MPI_OK(MPI_Reduce_local(a, b, n, MPITYPE, ops[o]));                                    \
          for (int i = 0; i < n; ++i) {                                                          \
            long long want = 0;                                                                  \
            CHECK(apply_int(ops[o], value_at(0, i), value_at(1, i), &want));                     \
            if ((long long)b[i] != want) {                                                       \
              fprintf(stderr, "%s op %d count %d shift %d: element %d is %lld, expected %lld\n", \
                      #MPITYPE, (int)o, n, shift, i, (long long)b[i], want);                     \
              MPI_Abort(MPI_COMM_WORLD, 1);                                                      \
            }                                                                                    \
          }                                                                                      \
          checked++;                                                                             \
        }                                                                                        \
      }                                                                                          \
    }                                                                                            \
    free(io);                                                                                    \
    free(in);                                                                                    \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const MPI_Op ops[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
  int counts[71 + 4];
  for (int i = 0; i <= 70; ++i) counts[i] = i;
  counts[71] = 255, counts[72] = 256, counts[73] = 1025, counts[74] = kMost;
  long checked = 0;
  CHECK_TYPE(int8_t, MPI_INT8_T, 0);
  CHECK_TYPE(int, MPI_INT, 0);
  CHECK_TYPE(int64_t, MPI_INT64_T, 0);
  CHECK_TYPE(float, MPI_FLOAT, 1);
  CHECK_TYPE(double, MPI_DOUBLE, 1);
  printf("reduce_local_blocks: %ld vectors ok\n", checked);
  MPI_Finalize();
  return 0;
}
