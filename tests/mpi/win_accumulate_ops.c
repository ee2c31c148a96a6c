/* Accumulates of every predefined op on every predefined type of 1, 2, 4 or 8 bytes (the types
 * gasket's direct path runs as CPU atomics), with checked values:
 *  - ordered: each rank in turn applies its operands to a run of elements of the last rank's
 *    window (MPI_Get_accumulate on even ranks, MPI_Accumulate on odd ones, MPI_Fetch_and_op on
 *    one more element); every rank follows the expected contents and checks what it fetched, the
 *    last rank checks its memory at the end. The run starts one element past an 8-byte word, so
 *    narrow elements share and cross words; an op the standard does not define for the type must
 *    fail with MPI_ERR_OP and leave the memory alone;
 *  - strided: the same through a vector target type (the general path, not the fast one);
 *  - concurrent: every rank at once adds to runs of chars and shorts (contiguous and strided),
 *    fetch-and-adds one char and races a compare-and-swap on a char and a short: exact totals,
 *    exactly one winner;
 *  - compare-and-swap races on a char, a short, an int and a long long (the first three in one
 *    word with the fetch-and-add char).
 * On MPI_Win_allocate memory, MPI_Win_create on a large malloc'd buffer (the run in its shared
 * pages) and on a small one (no whole page: the accumulate lock).
 * Argument "quick": one type of each width and kind (paths where every operation is a round trip). */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, nranks;

/* kind: 'i' integer, 'f' floating, 'b' logical, 'y' byte, 'c' complex, 'p' MINLOC/MAXLOC pair */
struct Type {
  MPI_Datatype type;
  const char* name;
  int size;
  char kind;
  char value_kind; /* pairs: 'i' or 'f' value */
};

static const struct Type types[] = {
    {MPI_CHAR, "MPI_CHAR", 1, 'i', 0},
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, 'i', 0},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, 'i', 0},
    {MPI_INT8_T, "MPI_INT8_T", 1, 'i', 0},
    {MPI_UINT8_T, "MPI_UINT8_T", 1, 'i', 0},
    {MPI_SHORT, "MPI_SHORT", 2, 'i', 0},
    {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", 2, 'i', 0},
    {MPI_INT16_T, "MPI_INT16_T", 2, 'i', 0},
    {MPI_UINT16_T, "MPI_UINT16_T", 2, 'i', 0},
    {MPI_INT, "MPI_INT", 4, 'i', 0},
    {MPI_UNSIGNED, "MPI_UNSIGNED", 4, 'i', 0},
    {MPI_INT32_T, "MPI_INT32_T", 4, 'i', 0},
    {MPI_UINT32_T, "MPI_UINT32_T", 4, 'i', 0},
    {MPI_LONG, "MPI_LONG", 8, 'i', 0},
    {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", 8, 'i', 0},
    {MPI_LONG_LONG, "MPI_LONG_LONG", 8, 'i', 0},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", 8, 'i', 0},
    {MPI_INT64_T, "MPI_INT64_T", 8, 'i', 0},
    {MPI_UINT64_T, "MPI_UINT64_T", 8, 'i', 0},
    {MPI_AINT, "MPI_AINT", 8, 'i', 0},
    {MPI_OFFSET, "MPI_OFFSET", 8, 'i', 0},
    {MPI_COUNT, "MPI_COUNT", 8, 'i', 0},
    {MPI_INTEGER1, "MPI_INTEGER1", 1, 'i', 0},
    {MPI_INTEGER2, "MPI_INTEGER2", 2, 'i', 0},
    {MPI_INTEGER, "MPI_INTEGER", 4, 'i', 0},
    {MPI_INTEGER8, "MPI_INTEGER8", 8, 'i', 0},
    {MPI_FLOAT, "MPI_FLOAT", 4, 'f', 0},
    {MPI_DOUBLE, "MPI_DOUBLE", 8, 'f', 0},
    {MPI_REAL, "MPI_REAL", 4, 'f', 0},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 'f', 0},
    {MPI_C_BOOL, "MPI_C_BOOL", 1, 'b', 0},
    {MPI_LOGICAL, "MPI_LOGICAL", 4, 'b', 0},
    {MPI_BYTE, "MPI_BYTE", 1, 'y', 0},
    {MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", 8, 'c', 0},
    {MPI_COMPLEX, "MPI_COMPLEX", 8, 'c', 0},
    {MPI_2INT, "MPI_2INT", 8, 'p', 'i'},
    {MPI_2INTEGER, "MPI_2INTEGER", 8, 'p', 'i'},
    {MPI_FLOAT_INT, "MPI_FLOAT_INT", 8, 'p', 'f'},
    {MPI_2REAL, "MPI_2REAL", 8, 'p', 'f'},
};
enum { kTypes = sizeof types / sizeof types[0] };

static const MPI_Op ops[] = {MPI_MAX,  MPI_MIN, MPI_SUM,  MPI_PROD,   MPI_LAND,    MPI_LOR,  MPI_LXOR,
                             MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
static const char* const op_names[] = {"MAX",  "MIN", "SUM",  "PROD",   "LAND",    "LOR",  "LXOR",
                                       "BAND", "BOR", "BXOR", "MINLOC", "MAXLOC", "REPLACE", "NO_OP"};
enum { kOps = sizeof ops / sizeof ops[0] };

/* What the standard defines (MPI 4.1 section 6.9.2; gasket counts MPI_CHAR among the integers as
 * Open MPI and MPICH do). */
static int defined(MPI_Op op, char kind) {
  if (op == MPI_REPLACE || op == MPI_NO_OP) return 1;
  if (op == MPI_MAX || op == MPI_MIN) return kind == 'i' || kind == 'f';
  if (op == MPI_SUM || op == MPI_PROD) return kind == 'i' || kind == 'f' || kind == 'c';
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) return kind == 'i' || kind == 'b';
  if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR) return kind == 'i' || kind == 'y';
  return kind == 'p'; /* MINLOC, MAXLOC */
}

/* An element as numbers: a (value), b (index or imaginary part). Small values, exact in every type. */
struct Num {
  double a, b;
};

static struct Num load(const struct Type* t, const char* p) {
  struct Num n = {0, 0};
  if (t->kind == 'i' || t->kind == 'b' || t->kind == 'y') {
    if (t->size == 1) n.a = t->kind == 'y' || t->type == MPI_UNSIGNED_CHAR || t->type == MPI_UINT8_T ? *(const uint8_t*)p : *(const int8_t*)p;
    if (t->size == 2) n.a = *(const int16_t*)p;
    if (t->size == 4) n.a = *(const int32_t*)p;
    if (t->size == 8) n.a = (double)*(const int64_t*)p;
    if (t->type == MPI_C_BOOL) n.a = *(const bool*)p;
  } else if (t->kind == 'f') {
    n.a = t->size == 4 ? *(const float*)p : *(const double*)p;
  } else if (t->kind == 'c') {
    n.a = ((const float*)p)[0];
    n.b = ((const float*)p)[1];
  } else {
    n.a = t->value_kind == 'i' ? ((const int32_t*)p)[0] : ((const float*)p)[0];
    n.b = t->type == MPI_2REAL ? ((const float*)p)[1] : ((const int32_t*)p)[1];
  }
  return n;
}

static void store(const struct Type* t, char* p, struct Num n) {
  if (t->type == MPI_C_BOOL) {
    *(bool*)p = n.a != 0;
  } else if (t->kind == 'i' || t->kind == 'b' || t->kind == 'y') {
    long long v = (long long)n.a;
    memcpy(p, &v, (size_t)t->size); /* little-endian: the low bytes */
  } else if (t->kind == 'f') {
    if (t->size == 4) *(float*)p = (float)n.a;
    else *(double*)p = n.a;
  } else if (t->kind == 'c') {
    ((float*)p)[0] = (float)n.a;
    ((float*)p)[1] = (float)n.b;
  } else {
    if (t->value_kind == 'i') ((int32_t*)p)[0] = (int32_t)n.a;
    else ((float*)p)[0] = (float)n.a;
    if (t->type == MPI_2REAL) ((float*)p)[1] = (float)n.b;
    else ((int32_t*)p)[1] = (int32_t)n.b;
  }
}

/* The target's element i before anyone acts, and rank r's operand for element i. */
/* (Complex parts stay small: products of 8 ranks' operands are exact in float.) */
static struct Num initial(const struct Type* t, int i) {
  struct Num n = {2 + i % 3, t->kind == 'c' ? i % 2 : 10 + i};
  if (t->kind == 'b') n.a = i % 2;
  if (t->kind == 'y') n.a = 0x5a ^ i;
  return n;
}
static struct Num operand(const struct Type* t, int r, int i) {
  struct Num n = {1 + (i + r) % 3, t->kind == 'c' ? r % 2 : 20 + r};
  if (t->kind == 'b') n.a = (i / 2 + r) % 2;
  if (t->kind == 'y') n.a = 0x33 + 7 * i + r;
  return n;
}

/* target = operand (op) target, as the standard says (as_stored wraps integer products). */
static struct Num combine(MPI_Op op, const struct Type* t, struct Num o, struct Num v) {
  long long x = (long long)o.a, y = (long long)v.a;
  struct Num r = v;
  if (op == MPI_REPLACE) return o;
  if (op == MPI_NO_OP) return v;
  if (op == MPI_MAX) r.a = o.a > v.a ? o.a : v.a;
  if (op == MPI_MIN) r.a = o.a < v.a ? o.a : v.a;
  if (op == MPI_SUM) r.a = o.a + v.a, r.b = t->kind == 'c' ? o.b + v.b : v.b;
  if (op == MPI_PROD) {
    r.a = t->kind == 'c' ? o.a * v.a - o.b * v.b : o.a * v.a;
    r.b = t->kind == 'c' ? o.a * v.b + o.b * v.a : v.b;
  }
  if (op == MPI_LAND) r.a = (x != 0) && (y != 0);
  if (op == MPI_LOR) r.a = (x != 0) || (y != 0);
  if (op == MPI_LXOR) r.a = (x != 0) != (y != 0);
  if (op == MPI_BAND) r.a = (double)(x & y);
  if (op == MPI_BOR) r.a = (double)(x | y);
  if (op == MPI_BXOR) r.a = (double)(x ^ y);
  if (op == MPI_MINLOC || op == MPI_MAXLOC) {
    int take = op == MPI_MINLOC ? o.a < v.a : o.a > v.a;
    if (o.a == v.a) take = o.b < v.b;
    if (take) r = o;
  }
  return r;
}

/* The value an element of the type holds after `n` is stored (integers wrap as the type does). */
static struct Num as_stored(const struct Type* t, struct Num n) {
  char bytes[8];
  store(t, bytes, n);
  return load(t, bytes);
}

static void check_elements(const struct Type* t, int o, const char* what, const char* got, const struct Num* want,
                           int n) {
  for (int i = 0; i < n; ++i) {
    struct Num g = load(t, got + (size_t)i * (size_t)t->size);
    if (g.a != want[i].a || ((t->kind == 'c' || t->kind == 'p') && g.b != want[i].b)) {
      fprintf(stderr, "rank %d: %s: MPI_%s on %s, element %d: got (%g, %g), want (%g, %g)\n", rank, what,
              op_names[o], t->name, i, g.a, g.b, want[i].a, want[i].b);
      CHECK(0);
    }
  }
}

enum { kRun = 11, kStride = 2 };
/* Window layout, in bytes from the window's start (disp_unit 1): the run starts one element past
 * the word at 64, the fetch_and_op element after a gap, the strided run at 256. */
enum { kRunAt = 64, kStridedAt = 256, kWindowBytes = 512 };

enum { kAllocated, kPagesMalloc, kSmallMalloc, kVariants };
static const char* const variant_names[] = {"allocate", "create (shared pages)", "create (small malloc)"};
static char* raw;

/* A window of kWindowBytes at `*mem` (allocated, or in a malloc'd buffer: whole pages around it
 * for kPagesMalloc, none for kSmallMalloc). */
static MPI_Win make(int variant, char** mem) {
  MPI_Win win;
  if (variant == kAllocated) {
    MPI_OK(MPI_Win_allocate(kWindowBytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, mem, &win));
  } else if (variant == kPagesMalloc) {
    raw = malloc(4 * 4096);
    *mem = (char*)(((uintptr_t)raw + 4095) & ~(uintptr_t)4095) + 4096;
    MPI_OK(MPI_Win_create(*mem, kWindowBytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  } else {
    raw = malloc(kWindowBytes);
    *mem = raw;
    MPI_OK(MPI_Win_create(*mem, kWindowBytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  }
  MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  memset(*mem, 0, kWindowBytes);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  return win;
}

static void release(int variant, MPI_Win* win) {
  MPI_OK(MPI_Win_free(win));
  if (variant != kAllocated) free(raw);
}

static int error_class(int rc) {
  int cls;
  MPI_Error_class(rc, &cls);
  return cls;
}

/* Ordered and strided accumulates of one (type, op) on `win` (target: the last rank). */
static void ordered(MPI_Win win, char* mem, const struct Type* t, int o) {
  MPI_Op op = ops[o];
  int target = nranks - 1, ok = defined(op, t->kind);
  size_t sz = (size_t)t->size;
  MPI_Aint run_at = kRunAt + t->size, fop_at = run_at + (kRun + 1) * t->size;
  struct Num want[kRun + 1], want_strided[kRun];
  char init[(kRun + 1) * 8], init_strided[kRun * kStride * 8];
  for (int i = 0; i <= kRun; ++i) {
    want[i] = initial(t, i);
    store(t, init + i * sz, want[i]);
  }
  for (int i = 0; i < kRun; ++i) want_strided[i] = initial(t, 2 * i);
  memset(init_strided, 0, sizeof init_strided);
  for (int i = 0; i < kRun; ++i) store(t, init_strided + (size_t)(kStride * i) * sz, want_strided[i]);
  if (rank == target) {
    memcpy(mem + run_at, init, kRun * sz);
    memcpy(mem + fop_at, init + kRun * sz, sz);
    memcpy(mem + kStridedAt, init_strided, (size_t)(kRun * kStride) * sz);
  }
  MPI_Datatype strided;
  MPI_OK(MPI_Type_vector(kRun, 1, kStride, t->type, &strided));
  MPI_OK(MPI_Type_commit(&strided));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  for (int r = 0; r < nranks; ++r) {
    char origin[(kRun + 1) * 8], fetched[(kRun + 1) * 8], fetched_strided[kRun * 8];
    struct Num before[kRun + 1];
    for (int i = 0; i <= kRun; ++i) store(t, origin + i * sz, operand(t, r, i));
    memcpy(before, want, sizeof want);
    if (rank == r) {
      MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
      /* MPI_NO_OP is for the fetching calls only (MPI 4.1 section 12.3.4) */
      int fetch = r % 2 == 0 || op == MPI_NO_OP;
      int rc = fetch ? MPI_Get_accumulate(origin, kRun, t->type, fetched, kRun, t->type, target, run_at, kRun,
                                               t->type, op, win)
                          : MPI_Accumulate(origin, kRun, t->type, target, run_at, kRun, t->type, op, win);
      CHECK_EQ(error_class(rc), ok ? MPI_SUCCESS : MPI_ERR_OP);
      rc = MPI_Fetch_and_op(origin + kRun * sz, fetched + kRun * sz, t->type, target, fop_at, op, win);
      CHECK_EQ(error_class(rc), ok ? MPI_SUCCESS : MPI_ERR_OP);
      rc = op == MPI_NO_OP ? MPI_Get_accumulate(origin, kRun, t->type, fetched_strided, kRun, t->type, target,
                                                kStridedAt, 1, strided, op, win)
                           : MPI_Accumulate(origin, kRun, t->type, target, kStridedAt, 1, strided, op, win);
      CHECK_EQ(error_class(rc), ok ? MPI_SUCCESS : MPI_ERR_OP);
      MPI_OK(MPI_Win_unlock(target, win));
      if (ok && fetch) check_elements(t, o, "Get_accumulate fetched", fetched, before, kRun);
      if (ok) check_elements(t, o, "Fetch_and_op fetched", fetched + kRun * sz, before + kRun, 1);
      if (op == MPI_NO_OP) {
        check_elements(t, o, "Get_accumulate through a vector type fetched", fetched_strided, want_strided, kRun);
      }
    }
    if (ok) {
      for (int i = 0; i <= kRun; ++i) want[i] = as_stored(t, combine(op, t, operand(t, r, i), want[i]));
      for (int i = 0; i < kRun; ++i) want_strided[i] = as_stored(t, combine(op, t, operand(t, r, i), want_strided[i]));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  }
  if (rank == target) {
    check_elements(t, o, "window after the ordered accumulates", mem + run_at, want, kRun);
    check_elements(t, o, "window after Fetch_and_op", mem + fop_at, want + kRun, 1);
    struct Num got[kRun];
    for (int i = 0; i < kRun; ++i) got[i] = load(t, mem + kStridedAt + (size_t)(kStride * i) * sz);
    char packed[kRun * 8];
    for (int i = 0; i < kRun; ++i) store(t, packed + i * sz, got[i]);
    check_elements(t, o, "window after the strided accumulates", packed, want_strided, kRun);
    /* the holes of the strided run and the bytes around the runs are untouched */
    for (int i = 0; i < kRun; ++i) {
      for (size_t b = 0; b < sz; ++b) CHECK_EQ(mem[kStridedAt + (size_t)(kStride * i + 1) * sz + b], 0);
    }
    for (MPI_Aint b = kRunAt; b < run_at; ++b) CHECK_EQ(mem[b], 0);
    for (size_t b = 0; b < sz; ++b) CHECK_EQ(mem[run_at + kRun * (MPI_Aint)sz + (MPI_Aint)b], 0);
  }
  MPI_OK(MPI_Type_free(&strided));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == target) memset(mem, 0, kWindowBytes);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Every rank at once on rank 0's window: exact sums, one compare-and-swap winner per width. */
enum { kChars = 0, kShorts = 24, kStridedChars = 64, kFopChar = 120, kCasChar = 121, kCasShort = 122,
       kCasInt = 124, kCasLong = 128, kIters = 100 };
static void concurrent(MPI_Win win, char* mem) {
  char ones[18];
  short shorts[7];
  memset(ones, 1, sizeof ones);
  for (int i = 0; i < 7; ++i) shorts[i] = 1;
  MPI_Datatype every_other;
  MPI_OK(MPI_Type_vector(9, 1, 2, MPI_CHAR, &every_other));
  MPI_OK(MPI_Type_commit(&every_other));
  if (rank == 0) {
    memset(mem + kCasChar, -1, 1);
    short m1 = -1;
    int i1 = -1;
    memcpy(mem + kCasShort, &m1, 2);
    memcpy(mem + kCasInt, &i1, 4);
    long long l1 = -1;
    memcpy(mem + kCasLong, &l1, 8);
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_lock_all(0, win));
  long long fetched_sum = 0;
  for (int it = 0; it < kIters; ++it) {
    /* 13 chars from byte 3 (parts of two words), 7 shorts from byte 26 (parts of two words) */
    MPI_OK(MPI_Accumulate(ones, 13, MPI_CHAR, 0, kChars + 3, 13, MPI_CHAR, MPI_SUM, win));
    MPI_OK(MPI_Accumulate(shorts, 7, MPI_SHORT, 0, kShorts + 2, 7, MPI_SHORT, MPI_SUM, win));
    /* the general path (a vector target type) and the fast one on the same bytes: the even
     * bytes of 64..80 get both, the odd ones of 65..81 the contiguous run only */
    MPI_OK(MPI_Accumulate(ones, 9, MPI_CHAR, 0, kStridedChars, 1, every_other, MPI_SUM, win));
    MPI_OK(MPI_Accumulate(ones, 18, MPI_CHAR, 0, kStridedChars, 18, MPI_CHAR, MPI_SUM, win));
    signed char one = 1, old;
    MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_SIGNED_CHAR, 0, kFopChar, MPI_SUM, win));
    fetched_sum += (unsigned char)old;
  }
  signed char me_c = (signed char)rank, none_c = -1, prev_c;
  short me_s = (short)rank, none_s = -1, prev_s;
  int me_i = rank, none_i = -1, prev_i;
  MPI_OK(MPI_Compare_and_swap(&me_c, &none_c, &prev_c, MPI_SIGNED_CHAR, 0, kCasChar, win));
  MPI_OK(MPI_Compare_and_swap(&me_s, &none_s, &prev_s, MPI_SHORT, 0, kCasShort, win));
  long long me_l = rank, none_l = -1, prev_l;
  MPI_OK(MPI_Compare_and_swap(&me_i, &none_i, &prev_i, MPI_INT, 0, kCasInt, win));
  MPI_OK(MPI_Compare_and_swap(&me_l, &none_l, &prev_l, MPI_LONG_LONG, 0, kCasLong, win));
  MPI_OK(MPI_Win_unlock_all(win));
  long long sums[5] = {fetched_sum, prev_c == -1, prev_s == -1, prev_i == -1, prev_l == -1};
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, sums, 5, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  int total = nranks * kIters; /* at most 800: chars wrap, compared modulo 256 */
  CHECK_EQ(sums[0] % 256, ((long long)total * (total - 1) / 2) % 256);
  CHECK_EQ(sums[1], 1);
  CHECK_EQ(sums[2], 1);
  CHECK_EQ(sums[3], 1);
  CHECK_EQ(sums[4], 1);
  if (rank == 0) {
    for (int b = 0; b < 24; ++b) CHECK_EQ((unsigned char)mem[kChars + b], b >= 3 && b < 16 ? total % 256 : 0);
    for (int i = 0; i < 12; ++i) {
      short s;
      memcpy(&s, mem + kShorts + 2 * i, 2);
      CHECK_EQ(s, i >= 1 && i < 8 ? total : 0);
    }
    for (int b = 0; b < 24; ++b) {
      CHECK_EQ((unsigned char)mem[kStridedChars + b], b >= 18 ? 0 : (b % 2 == 0 ? 2 * total : total) % 256);
    }
    CHECK_EQ((unsigned char)mem[kFopChar], total % 256);
    CHECK(mem[kCasChar] >= 0 && mem[kCasChar] < nranks);
    short s;
    int i4;
    memcpy(&s, mem + kCasShort, 2);
    memcpy(&i4, mem + kCasInt, 4);
    CHECK(s >= 0 && s < nranks);
    CHECK(i4 >= 0 && i4 < nranks);
    long long l8;
    memcpy(&l8, mem + kCasLong, 8);
    CHECK(l8 >= 0 && l8 < nranks);
  }
  MPI_OK(MPI_Type_free(&every_other));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  int quick = argc > 1 && strcmp(argv[1], "quick") == 0;
  static const MPI_Datatype sample[] = {MPI_CHAR, MPI_UNSIGNED_SHORT, MPI_INT, MPI_LONG_LONG, MPI_DOUBLE,
                                        MPI_C_BOOL, MPI_BYTE, MPI_C_FLOAT_COMPLEX, MPI_2INT};
  for (int variant = 0; variant < kVariants; ++variant) {
    char* mem;
    MPI_Win win = make(variant, &mem);
    for (int t = 0; t < kTypes; ++t) {
      int sampled = 0;
      for (size_t k = 0; k < sizeof sample / sizeof sample[0]; ++k) sampled |= types[t].type == sample[k];
      if (quick && !sampled) continue;
      for (int o = 0; o < kOps; ++o) ordered(win, mem, &types[t], o);
    }
    concurrent(win, mem);
    release(variant, &win);
    if (rank == 0) printf("win_accumulate_ops: %s window: every check passed\n", variant_names[variant]);
  }
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("win_accumulate_ops: all checks passed on %d ranks\n", nranks);
  return 0;
}
