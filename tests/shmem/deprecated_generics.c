/* The deprecated type-generic atomics of OpenSHMEM 1.3/1.4 (shmem_swap, shmem_fetch, shmem_set on
 * int, long, long long, float, double; shmem_cswap, shmem_fadd, shmem_finc, shmem_add, shmem_inc
 * on int, long, long long): each PE works on its right neighbour's word, which sits between two
 * guard words of the same type, and checks the values the 1.4 text gives and that no guard byte
 * changed (a generic that picked an operation of the wrong size overwrote the next word). Built
 * as C11 (_Generic) and as C++ (overloads) from this one source. */
#include <string.h>

#include "check.h"

#define GUARD_BYTE 0x5A

#define SLOT(T, N) struct slot_##N { T before; T value; T after; };
#define DEFINE_SLOT(T, N) SLOT(T, N) static struct slot_##N sym_##N;
DEFINE_SLOT(int, int)
DEFINE_SLOT(long, long)
DEFINE_SLOT(long long, longlong)
DEFINE_SLOT(float, float)
DEFINE_SLOT(double, double)

static int me, npes, left, right;

static void check_guards(const void* before, const void* after, size_t size, const char* type) {
  const unsigned char* b = (const unsigned char*)before;
  const unsigned char* a = (const unsigned char*)after;
  for (size_t i = 0; i < size; ++i) {
    CHECK(b[i] == GUARD_BYTE && a[i] == GUARD_BYTE, "%s: guard byte %zu changed (before 0x%02x, after 0x%02x)",
          type, i, b[i], a[i]);
  }
}

/* swap, set, fetch: every type of the extended list. Leaves the neighbour's word at 200 + me. */
#define TEST_EXTENDED(T, N)                                                                   \
  static void extended_##N(void) {                                                            \
    memset(&sym_##N, GUARD_BYTE, sizeof sym_##N);                                             \
    sym_##N.value = (T)(10 * me + 1);                                                         \
    shmem_barrier_all();                                                                      \
    T old = shmem_swap(&sym_##N.value, (T)(100 + me), right);                                 \
    CHECK(old == (T)(10 * right + 1), #T " shmem_swap returned %f", (double)old);             \
    shmem_barrier_all();                                                                      \
    CHECK(sym_##N.value == (T)(100 + left), #T " after shmem_swap: %f", (double)sym_##N.value); \
    shmem_barrier_all(); /* every PE has read its word before the next write to it */        \
    shmem_set(&sym_##N.value, (T)(200 + me), right);                                          \
    shmem_barrier_all();                                                                      \
    CHECK(sym_##N.value == (T)(200 + left), #T " after shmem_set: %f", (double)sym_##N.value); \
    T seen = shmem_fetch(&sym_##N.value, right);                                              \
    CHECK(seen == (T)(200 + me), #T " shmem_fetch returned %f", (double)seen);                \
    shmem_barrier_all();                                                                      \
    check_guards(&sym_##N.before, &sym_##N.after, sizeof(T), #T);                             \
  }
TEST_EXTENDED(int, int)
TEST_EXTENDED(long, long)
TEST_EXTENDED(long long, longlong)
TEST_EXTENDED(float, float)
TEST_EXTENDED(double, double)

/* cswap, fadd, finc, add, inc: the integer types, after extended_N left the word at 200 + me. */
#define TEST_STANDARD(T, N)                                                                   \
  static void standard_##N(void) {                                                            \
    T old = shmem_cswap(&sym_##N.value, (T)(200 + me), (T)(300 + me), right);                 \
    CHECK_EQ(old, 200 + me);                                                                  \
    old = shmem_cswap(&sym_##N.value, (T)(200 + me), (T)(999), right); /* cond fails */      \
    CHECK_EQ(old, 300 + me);                                                                  \
    old = shmem_fadd(&sym_##N.value, (T)5, right);                                            \
    CHECK_EQ(old, 300 + me);                                                                  \
    old = shmem_finc(&sym_##N.value, right);                                                  \
    CHECK_EQ(old, 305 + me);                                                                  \
    shmem_add(&sym_##N.value, (T)4, right);                                                   \
    shmem_inc(&sym_##N.value, right);                                                         \
    shmem_barrier_all();                                                                      \
    CHECK_EQ(sym_##N.value, 311 + left);                                                      \
    check_guards(&sym_##N.before, &sym_##N.after, sizeof(T), #T);                             \
    shmem_barrier_all();                                                                      \
  }
TEST_STANDARD(int, int)
TEST_STANDARD(long, long)
TEST_STANDARD(long long, longlong)

int main(void) {
  init_ring(&me, &npes, &left, &right);
  extended_int();
  extended_long();
  extended_longlong();
  extended_float();
  extended_double();
  standard_int();
  standard_long();
  standard_longlong();
  shmem_finalize();
  if (me == 0) printf("deprecated_generics: ok on %d PEs\n", npes);
  return 0;
}
