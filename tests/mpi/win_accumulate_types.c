/* Accumulates through derived target types, checked against a reference computed here: every
 * predefined op on every predefined type it is defined for, the MINLOC/MAXLOC pair types
 * included, each through four target layouts of 12 elements — contiguous, a strided vector
 * (blocks of 2 every 3 elements), an indexed type (blocks of 1, 3, 2, 4 elements with gaps of 1
 * and 2) and a struct of the type (1 element, then 2 after a gap of one; extent 6 elements),
 * which for a pair type is a struct of pairs.
 * Every rank is the origin of every combination towards every rank (itself included), each into
 * a slot of its own, all at once: MPI_Accumulate or MPI_Get_accumulate (alternating over the
 * combinations), plus one MPI_Fetch_and_op per op and, for the types it takes, two
 * MPI_Compare_and_swap (one that matches, one that does not). Each target then compares its
 * whole window with the initial values updated by the reference ops; each origin compares the old
 * values it fetched with the initial ones. Under MPI_Win_lock_all and under MPI_LOCK_EXCLUSIVE,
 * on MPI_Win_allocate memory, on MPI_Win_create over malloc'd memory and (all ranks on one node)
 * on MPI_Win_allocate_shared memory.
 * Then every rank adds to the same elements of rank 0 (ints of a strided vector, MPI_2INT pairs
 * with MPI_MINLOC in a struct of pairs) 20 times: exact totals and minima.
 * Over a backend these are the accumulates the target applies itself (mpi/win/README.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, nranks;

enum { kElements = 12, kSlotExtents = 32, kLayouts = 4, kMaxOps = 12, kMaxExtent = 32 };
/* Slots per (origin, op): the layouts, a fetch_and_op, a compare_and_swap pair. */
enum { kSlotsPerOp = kLayouts + 2 };

struct FloatInt { float v; int i; };
struct DoubleInt { double v; int i; };
struct LongInt { long v; int i; };
struct TwoInt { int v; int i; };
struct ShortInt { short v; int i; };
struct LongDoubleInt { long double v; int i; };

/* kind: 'i' integer, 'f' floating, 'b' C_BOOL, 'y' byte, 'p' pair */
struct Type {
  MPI_Datatype type;
  const char* name;
  int extent;
  char kind;
  int id; /* which C type (the switches below) */
};

enum { kSChar, kUChar, kShort, kUShort, kInt, kUInt, kLong, kULong, kLLong, kULLong, kI8, kU8, kI16, kU16, kI32,
       kU32, kI64, kU64, kFloat, kDouble, kLDouble, kBool, kByte, kPFloat, kPDouble, kPLong, kP2Int, kPShort, kPLDouble };

static const struct Type types[] = {
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, 'i', kSChar},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, 'i', kUChar},
    {MPI_SHORT, "MPI_SHORT", 2, 'i', kShort},
    {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", 2, 'i', kUShort},
    {MPI_INT, "MPI_INT", 4, 'i', kInt},
    {MPI_UNSIGNED, "MPI_UNSIGNED", 4, 'i', kUInt},
    {MPI_LONG, "MPI_LONG", 8, 'i', kLong},
    {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", 8, 'i', kULong},
    {MPI_LONG_LONG, "MPI_LONG_LONG", 8, 'i', kLLong},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", 8, 'i', kULLong},
    {MPI_INT8_T, "MPI_INT8_T", 1, 'i', kI8},
    {MPI_UINT8_T, "MPI_UINT8_T", 1, 'i', kU8},
    {MPI_INT16_T, "MPI_INT16_T", 2, 'i', kI16},
    {MPI_UINT16_T, "MPI_UINT16_T", 2, 'i', kU16},
    {MPI_INT32_T, "MPI_INT32_T", 4, 'i', kI32},
    {MPI_UINT32_T, "MPI_UINT32_T", 4, 'i', kU32},
    {MPI_INT64_T, "MPI_INT64_T", 8, 'i', kI64},
    {MPI_UINT64_T, "MPI_UINT64_T", 8, 'i', kU64},
    {MPI_FLOAT, "MPI_FLOAT", 4, 'f', kFloat},
    {MPI_DOUBLE, "MPI_DOUBLE", 8, 'f', kDouble},
    {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double), 'f', kLDouble},
    {MPI_C_BOOL, "MPI_C_BOOL", 1, 'b', kBool},
    {MPI_BYTE, "MPI_BYTE", 1, 'y', kByte},
    {MPI_FLOAT_INT, "MPI_FLOAT_INT", sizeof(struct FloatInt), 'p', kPFloat},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", sizeof(struct DoubleInt), 'p', kPDouble},
    {MPI_LONG_INT, "MPI_LONG_INT", sizeof(struct LongInt), 'p', kPLong},
    {MPI_2INT, "MPI_2INT", sizeof(struct TwoInt), 'p', kP2Int},
    {MPI_SHORT_INT, "MPI_SHORT_INT", sizeof(struct ShortInt), 'p', kPShort},
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", sizeof(struct LongDoubleInt), 'p', kPLDouble},
};
enum { kTypes = sizeof types / sizeof types[0] };

/* The ops the standard defines for each kind (MPI_REPLACE and MPI_NO_OP for all). */
static int ops_of(char kind, MPI_Op* out) {
  static const MPI_Op integer[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND, MPI_BOR,
                                   MPI_BXOR, MPI_LAND, MPI_LOR, MPI_LXOR, MPI_REPLACE, MPI_NO_OP};
  static const MPI_Op floating[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_REPLACE, MPI_NO_OP};
  static const MPI_Op logical[] = {MPI_LAND, MPI_LOR, MPI_LXOR, MPI_REPLACE, MPI_NO_OP};
  static const MPI_Op byte[] = {MPI_BAND, MPI_BOR, MPI_BXOR, MPI_REPLACE, MPI_NO_OP};
  static const MPI_Op pair[] = {MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
  const MPI_Op* list = kind == 'i' ? integer : kind == 'f' ? floating : kind == 'b' ? logical : kind == 'y' ? byte : pair;
  int n = kind == 'i' ? 12 : kind == 'f' ? 6 : kind == 'b' ? 5 : kind == 'y' ? 5 : 4;
  memcpy(out, list, sizeof(MPI_Op) * (size_t)n);
  return n;
}

/* ---- the reference ---- */

/* A small value for element `k` of stream `stream` (logical ops see zeros and non-zeros). */
static long value_of(int stream, int k) { return (long)((stream * 7 + k * 3) % 5); }

/* Writes the value `v` (and pair index `idx`) as type t at p. */
static void set_value(const struct Type* t, void* p, long v, int idx) {
  switch (t->id) {
#define SET(ID, T) case ID: { T x = (T)v; memcpy(p, &x, sizeof x); return; }
    SET(kSChar, signed char) SET(kUChar, unsigned char) SET(kShort, short) SET(kUShort, unsigned short)
    SET(kInt, int) SET(kUInt, unsigned) SET(kLong, long) SET(kULong, unsigned long) SET(kLLong, long long)
    SET(kULLong, unsigned long long) SET(kI8, int8_t) SET(kU8, uint8_t) SET(kI16, int16_t) SET(kU16, uint16_t)
    SET(kI32, int32_t) SET(kU32, uint32_t) SET(kI64, int64_t) SET(kU64, uint64_t) SET(kFloat, float)
    SET(kDouble, double) SET(kLDouble, long double) SET(kByte, unsigned char)
#undef SET
    case kBool: { _Bool x = v % 2 != 0; memcpy(p, &x, 1); return; }
#define PAIR(ID, S, T) case ID: { struct S x; memset(&x, 0, sizeof x); x.v = (T)v; x.i = idx; memcpy(p, &x, sizeof x); return; }
    PAIR(kPFloat, FloatInt, float) PAIR(kPDouble, DoubleInt, double) PAIR(kPLong, LongInt, long)
    PAIR(kP2Int, TwoInt, int) PAIR(kPShort, ShortInt, short) PAIR(kPLDouble, LongDoubleInt, long double)
#undef PAIR
  }
}

/* inout = in (op) inout, for one element, written independently of the library. */
#define ARITH(T)                                                                                   \
  {                                                                                                \
    T a, b;                                                                                        \
    memcpy(&a, in, sizeof a);                                                                      \
    memcpy(&b, inout, sizeof b);                                                                   \
    if (op == MPI_SUM) b = (T)(a + b);                                                             \
    else if (op == MPI_PROD) b = (T)(a * b);                                                       \
    else if (op == MPI_MAX) b = a > b ? a : b;                                                     \
    else if (op == MPI_MIN) b = a < b ? a : b;                                                     \
    else if (op == MPI_LAND) b = (T)(a && b);                                                      \
    else if (op == MPI_LOR) b = (T)(a || b);                                                       \
    else if (op == MPI_LXOR) b = (T)(!a != !b);                                                    \
    else if (op == MPI_REPLACE) b = a;                                                             \
    BITWISE                                                                                        \
    memcpy(inout, &b, sizeof b);                                                                   \
    return;                                                                                        \
  }
#define PAIRLOC(S)                                                                                 \
  {                                                                                                \
    struct S a, b;                                                                                 \
    memcpy(&a, in, sizeof a);                                                                      \
    memcpy(&b, inout, sizeof b);                                                                   \
    if (op == MPI_REPLACE) b = a;                                                                  \
    else if (op == MPI_MINLOC) { if (a.v < b.v || (a.v == b.v && a.i < b.i)) b = a; }             \
    else if (op == MPI_MAXLOC) { if (a.v > b.v || (a.v == b.v && a.i < b.i)) b = a; }             \
    memcpy(inout, &b, sizeof b);                                                                   \
    return;                                                                                        \
  }
static void reference(const struct Type* t, MPI_Op op, const void* in, void* inout) {
  if (op == MPI_NO_OP) return;
  switch (t->id) {
#define BITWISE else if (op == MPI_BAND) b = (T)(a & b); else if (op == MPI_BOR) b = (T)(a | b); else if (op == MPI_BXOR) b = (T)(a ^ b);
#define INT(ID, TT) case ID: { typedef TT T; ARITH(T) }
    INT(kSChar, signed char) INT(kUChar, unsigned char) INT(kShort, short) INT(kUShort, unsigned short)
    INT(kInt, int) INT(kUInt, unsigned) INT(kLong, long) INT(kULong, unsigned long) INT(kLLong, long long)
    INT(kULLong, unsigned long long) INT(kI8, int8_t) INT(kU8, uint8_t) INT(kI16, int16_t) INT(kU16, uint16_t)
    INT(kI32, int32_t) INT(kU32, uint32_t) INT(kI64, int64_t) INT(kU64, uint64_t) INT(kByte, unsigned char)
    INT(kBool, unsigned char)
#undef BITWISE
#define BITWISE
    INT(kFloat, float) INT(kDouble, double) INT(kLDouble, long double)
#undef BITWISE
#undef INT
    case kPFloat: PAIRLOC(FloatInt)
    case kPDouble: PAIRLOC(DoubleInt)
    case kPLong: PAIRLOC(LongInt)
    case kP2Int: PAIRLOC(TwoInt)
    case kPShort: PAIRLOC(ShortInt)
    case kPLDouble: PAIRLOC(LongDoubleInt)
  }
}

/* Whether the elements at a and b hold the same value (pairs: value and index; no padding). */
static int same(const struct Type* t, const void* a, const void* b) {
  switch (t->id) {
#define EQ(ID, S) case ID: { struct S x, y; memcpy(&x, a, sizeof x); memcpy(&y, b, sizeof y); return x.v == y.v && x.i == y.i; }
    EQ(kPFloat, FloatInt) EQ(kPDouble, DoubleInt) EQ(kPLong, LongInt) EQ(kP2Int, TwoInt) EQ(kPShort, ShortInt)
    EQ(kPLDouble, LongDoubleInt)
#undef EQ
    case kLDouble: { long double x, y; memcpy(&x, a, sizeof x); memcpy(&y, b, sizeof y); return x == y; }
    default: return memcmp(a, b, (size_t)t->extent) == 0;
  }
}

/* ---- the layouts: where element i of the origin lands, in extents from the slot's start ---- */

static int position(int layout, int i) {
  switch (layout) {
    case 0: return i;                           /* contiguous */
    case 1: return (i / 2) * 3 + i % 2;         /* vector: blocks of 2 every 3 */
    case 2: {                                   /* indexed: blocks 1, 3, 2, 4, ... gaps 1, 2, ... */
      static const int lens[] = {1, 3, 2, 4};
      int at = 0, b = 0;
      for (int left = i;; ++b) {
        int len = lens[b % 4];
        if (left < len) return at + left;
        left -= len;
        at += len + 1 + b % 2;
      }
    }
    default: return (i / 3) * 6 + (i % 3 == 0 ? 0 : 1 + i % 3); /* struct: 0, 2, 3 of every 6 */
  }
}

/* The target datatype of a layout (count: *count of it covers kElements elements). */
static MPI_Datatype layout_type(int layout, MPI_Datatype basic, int extent, int* count) {
  MPI_Datatype t = basic;
  *count = kElements;
  if (layout == 1) {
    MPI_OK(MPI_Type_vector(kElements / 2, 2, 3, basic, &t));
    *count = 1;
  } else if (layout == 2) {
    int lens[kElements], disps[kElements], blocks = 0, at = 0;
    static const int cycle[] = {1, 3, 2, 4};
    for (int left = kElements; left > 0; ++blocks) {
      int len = cycle[blocks % 4] < left ? cycle[blocks % 4] : left;
      lens[blocks] = len;
      disps[blocks] = at;
      at += len + 1 + blocks % 2;
      left -= len;
    }
    MPI_OK(MPI_Type_indexed(blocks, lens, disps, basic, &t));
    *count = 1;
  } else if (layout == 3) {
    int lens[2] = {1, 2};
    MPI_Aint disps[2] = {0, 2 * (MPI_Aint)extent};
    MPI_Datatype members[2] = {basic, basic}, s;
    MPI_OK(MPI_Type_create_struct(2, lens, disps, members, &s));
    MPI_OK(MPI_Type_create_resized(s, 0, 6 * (MPI_Aint)extent, &t));
    MPI_OK(MPI_Type_free(&s));
    *count = kElements / 3;
  }
  if (t != basic) MPI_OK(MPI_Type_commit(&t));
  return t;
}

static int compare_and_swap_allowed(char kind) { return kind == 'i' || kind == 'b' || kind == 'y'; }

/* Byte offset in a target's window of slot `slot` of (origin, op). */
static size_t slot_offset(int origin, int op_index, int slot, int extent) {
  return (((size_t)origin * kMaxOps + (size_t)op_index) * kSlotsPerOp + (size_t)slot) * kSlotExtents * (size_t)extent;
}
static size_t window_bytes(void) {
  return slot_offset(nranks, 0, 0, kMaxExtent);
}

/* Initial element k of `target`'s window, index k. */
static void initial(const struct Type* t, int target, size_t k, void* p) {
  set_value(t, p, value_of(100 + target, (int)(k % 97)), (int)(k % 13));
}

static void one_type(const struct Type* t, char* base, MPI_Win win, int exclusive) {
  const int ext = t->extent;
  MPI_Op ops[kMaxOps];
  int nops = ops_of(t->kind, ops);
  size_t bytes = window_bytes(), n_elements = bytes / (size_t)ext;
  for (size_t k = 0; k < n_elements; ++k) initial(t, rank, k, base + k * (size_t)ext);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

  /* Origin buffers and fetched values, per (target, op, slot). */
  size_t per_target = (size_t)kMaxOps * kSlotsPerOp * kElements * (size_t)ext;
  char* origin = malloc(per_target);
  char* fetched = calloc((size_t)nranks, per_target);
  char* compare = malloc((size_t)2 * (size_t)ext);
  for (int o = 0; o < kMaxOps * kSlotsPerOp; ++o) {
    for (int i = 0; i < kElements; ++i) set_value(t, origin + ((size_t)o * kElements + (size_t)i) * (size_t)ext, value_of(rank + o, i), 50 + i);
  }
  MPI_Datatype layout_types[kLayouts];
  int counts[kLayouts];
  for (int l = 0; l < kLayouts; ++l) layout_types[l] = layout_type(l, t->type, ext, &counts[l]);

  if (!exclusive) MPI_OK(MPI_Win_lock_all(0, win));
  for (int target = 0; target < nranks; ++target) {
    if (exclusive) MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
    for (int op = 0; op < nops; ++op) {
      for (int slot = 0; slot < kSlotsPerOp; ++slot) {
        const char* in = origin + ((size_t)op * kSlotsPerOp + (size_t)slot) * kElements * (size_t)ext;
        char* out = fetched + (((size_t)target * kMaxOps + (size_t)op) * kSlotsPerOp + (size_t)slot) * kElements * (size_t)ext;
        MPI_Aint disp = (MPI_Aint)slot_offset(rank, op, slot, ext);
        if (slot < kLayouts) {
          if ((op + slot) % 2 == 0) {
            MPI_OK(MPI_Accumulate(in, kElements, t->type, target, disp, counts[slot], layout_types[slot], ops[op], win));
          } else {
            MPI_OK(MPI_Get_accumulate(in, kElements, t->type, out, kElements, t->type, target, disp, counts[slot],
                                      layout_types[slot], ops[op], win));
          }
        } else if (slot == kLayouts) {
          MPI_OK(MPI_Fetch_and_op(in, out, t->type, target, disp, ops[op], win));
        } else if (op == 0 && compare_and_swap_allowed(t->kind)) {
          /* element 0 matches its initial value (swapped), element 1 does not (left) */
          size_t k0 = (size_t)disp / (size_t)ext;
          initial(t, target, k0, compare);
          MPI_OK(MPI_Compare_and_swap(in, compare, out, t->type, target, disp, win));
          set_value(t, compare, value_of(100 + target, (int)((k0 + 1) % 97)) + 1, 0);
          MPI_OK(MPI_Compare_and_swap(in + ext, compare, out + ext, t->type, target, disp + ext, win));
        }
      }
    }
    if (exclusive) MPI_OK(MPI_Win_unlock(target, win));
  }
  if (!exclusive) MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

  /* The fetched values: the initial ones of each target (every slot is this origin's alone). */
  for (int target = 0; target < nranks; ++target) {
    for (int op = 0; op < nops; ++op) {
      for (int slot = 0; slot < kSlotsPerOp; ++slot) {
        char* out = fetched + (((size_t)target * kMaxOps + (size_t)op) * kSlotsPerOp + (size_t)slot) * kElements * (size_t)ext;
        size_t k0 = slot_offset(rank, op, slot, ext) / (size_t)ext;
        int n = slot < kLayouts ? ((op + slot) % 2 == 1 ? kElements : 0)
                                : slot == kLayouts ? 1 : (op == 0 && compare_and_swap_allowed(t->kind) ? 2 : 0);
        for (int i = 0; i < n; ++i) {
          char want[kMaxExtent];
          initial(t, target, k0 + (size_t)(slot < kLayouts ? position(slot, i) : i), want);
          if (!same(t, want, out + (size_t)i * (size_t)ext)) {
            fprintf(stderr, "rank %d: %s %s: target %d op %d slot %d element %d: fetched the wrong old value\n", rank,
                    t->name, exclusive ? "exclusive" : "lock_all", target, op, slot, i);
            CHECK(0);
          }
        }
      }
    }
  }
  /* This window: the initial values with every origin's slots updated by the reference. */
  char* want = malloc(bytes);
  for (size_t k = 0; k < n_elements; ++k) initial(t, rank, k, want + k * (size_t)ext);
  for (int o = 0; o < nranks; ++o) {
    for (int op = 0; op < nops; ++op) {
      for (int slot = 0; slot < kSlotsPerOp; ++slot) {
        size_t k0 = slot_offset(o, op, slot, ext) / (size_t)ext;
        char operand[kMaxExtent];
        if (slot < kLayouts) {
          for (int i = 0; i < kElements; ++i) {
            set_value(t, operand, value_of(o + op * kSlotsPerOp + slot, i), 50 + i);
            reference(t, ops[op], operand, want + (k0 + (size_t)position(slot, i)) * (size_t)ext);
          }
        } else if (slot == kLayouts) {
          set_value(t, operand, value_of(o + op * kSlotsPerOp + slot, 0), 50);
          reference(t, ops[op], operand, want + k0 * (size_t)ext);
        } else if (op == 0 && compare_and_swap_allowed(t->kind)) {
          set_value(t, operand, value_of(o + op * kSlotsPerOp + slot, 0), 50);
          memcpy(want + k0 * (size_t)ext, operand, (size_t)ext); /* the matching one swapped */
        }
      }
    }
  }
  for (size_t k = 0; k < n_elements; ++k) {
    if (!same(t, want + k * (size_t)ext, base + k * (size_t)ext)) {
      fprintf(stderr, "rank %d: %s %s: element %zu of the window differs from the reference\n", rank, t->name,
              exclusive ? "exclusive" : "lock_all", k);
      CHECK(0);
    }
  }
  for (int l = 0; l < kLayouts; ++l) {
    if (layout_types[l] != t->type) MPI_OK(MPI_Type_free(&layout_types[l]));
  }
  free(want);
  free(compare);
  free(fetched);
  free(origin);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* Every rank adds to the same elements of rank 0 at once: exact sums and minima. */
static void shared_elements(char* base, MPI_Win win) {
  enum { kRounds = 20, kN = 16 };
  int* ints = (int*)base;
  struct TwoInt* pairs = (struct TwoInt*)(base + 4 * 3 * kN);
  if (rank == 0) {
    for (int i = 0; i < 3 * kN; ++i) ints[i] = i;
    for (int i = 0; i < 2 * kN; ++i) pairs[i] = (struct TwoInt){1000, 1000};
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Datatype vec, pair_struct;
  MPI_OK(MPI_Type_vector(kN, 1, 3, MPI_INT, &vec));
  MPI_OK(MPI_Type_commit(&vec));
  int count;
  pair_struct = layout_type(3, MPI_2INT, (int)sizeof(struct TwoInt), &count);
  (void)count;
  int add[kN];
  struct TwoInt mine[kN - kN % 3];
  for (int i = 0; i < kN; ++i) add[i] = rank + 1 + i;
  for (int i = 0; i < kN - kN % 3; ++i) mine[i] = (struct TwoInt){100 - rank - i, rank};
  MPI_OK(MPI_Win_lock_all(0, win));
  for (int r = 0; r < kRounds; ++r) {
    MPI_OK(MPI_Accumulate(add, kN, MPI_INT, 0, 0, 1, vec, MPI_SUM, win));
    MPI_OK(MPI_Accumulate(mine, kN - kN % 3, MPI_2INT, 0, 4 * 3 * kN, (kN - kN % 3) / 3, pair_struct, MPI_MINLOC, win));
  }
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    for (int i = 0; i < 3 * kN; ++i) {
      long want = i;
      if (i % 3 == 0) {
        for (int o = 0; o < nranks; ++o) want += (long)kRounds * (o + 1 + i / 3);
      }
      CHECK_EQ(ints[i], want);
    }
    for (int i = 0; i < kN - kN % 3; ++i) {
      struct TwoInt got = pairs[position(3, i)];
      /* the smallest value is the last rank's; ties do not occur (distinct per rank) */
      CHECK_EQ(got.v, 100 - (nranks - 1) - i);
      CHECK_EQ(got.i, nranks - 1);
    }
  }
  MPI_OK(MPI_Type_free(&vec));
  MPI_OK(MPI_Type_free(&pair_struct));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));
  /* A shared window where every rank shares one node: its memory's address differs between
   * processes (rank 0's segment mapped by each), which a shipped accumulate must not rely on. */
  MPI_Comm node;
  int node_size;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_OK(MPI_Comm_size(node, &node_size));
  MPI_OK(MPI_Comm_free(&node));
  for (int kind = 0; kind < 3; ++kind) {
    size_t bytes = window_bytes();
    char* base;
    char* malloced = NULL;
    MPI_Win win;
    if (kind == 2 && node_size != nranks) continue;
    if (kind == 0) {
      MPI_OK(MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    } else if (kind == 2) {
      MPI_OK(MPI_Win_allocate_shared((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    } else {
      malloced = malloc(bytes);
      base = malloced;
      MPI_OK(MPI_Win_create(base, (MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    }
    for (int ti = 0; ti < kTypes; ++ti) {
      one_type(&types[ti], base, win, 0);
      one_type(&types[ti], base, win, 1);
    }
    shared_elements(base, win);
    MPI_OK(MPI_Win_free(&win));
    free(malloced);
  }
  if (rank == 0) printf("win_accumulate_types: %d types, 4 layouts, %d ranks: ok\n", kTypes, nranks);
  MPI_OK(MPI_Finalize());
  return 0;
}
