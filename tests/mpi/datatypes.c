/* Every datatype constructor round-tripped against a hand-packed reference: MPI_Pack, a send of the
 * type received as plain ints, and a send received into the same type (untouched gaps checked);
 * envelope/contents, extents, Get_count/Get_elements, external32 bytes, a large non-contiguous
 * (rendezvous) transfer, struct with padding. */
#include <stddef.h>
#include <string.h>

#include "check.h"

enum { kN = 400 };
static int g_rank, g_size;

static int value(int rank, int i) { return i * 10 + rank + 1; }

/* `idx`: the int indices of one element, `extent`: in ints. */
static void round_trip(const char* name, MPI_Datatype t, const int* idx, int n, int extent) {
  int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
  int src[kN], dst[kN], flat[2 * 64];
  for (int i = 0; i < kN; ++i) src[i] = value(g_rank, i);
  /* size / extent */
  int size;
  MPI_Aint lb, ext;
  MPI_OK(MPI_Type_size(t, &size));
  MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
  if (size != n * (int)sizeof(int) || ext != extent * (MPI_Aint)sizeof(int)) {
    fprintf(stderr, "%s: size %d extent %ld, expected %d and %d\n", name, size, (long)ext, n * 4, extent * 4);
    CHECK(0);
  }
  /* MPI_Pack of two elements == the hand-packed reference */
  char packed[2 * 64 * sizeof(int)];
  int pos = 0, psize;
  MPI_OK(MPI_Pack_size(2, t, MPI_COMM_WORLD, &psize));
  CHECK_EQ(psize, 2 * n * (int)sizeof(int));
  MPI_OK(MPI_Pack(src, 2, t, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD));
  CHECK_EQ(pos, psize);
  for (int e = 0; e < 2; ++e)
    for (int k = 0; k < n; ++k) {
      int v;
      memcpy(&v, packed + (e * n + k) * sizeof(int), sizeof v);
      if (v != value(g_rank, idx[k] + e * extent)) {
        fprintf(stderr, "%s: packed int %d of element %d is %d, expected %d\n", name, k, e, v,
                value(g_rank, idx[k] + e * extent));
        CHECK(0);
      }
    }
  int back[kN];
  memset(back, 0, sizeof back);
  pos = 0;
  MPI_OK(MPI_Unpack(packed, psize, &pos, back, 2, t, MPI_COMM_WORLD));
  for (int e = 0; e < 2; ++e)
    for (int k = 0; k < n; ++k) CHECK_EQ(back[idx[k] + e * extent], value(g_rank, idx[k] + e * extent));
  /* typed send, received as ints */
  MPI_Status st;
  MPI_OK(MPI_Sendrecv(src, 2, t, right, 1, flat, 2 * n, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
  for (int e = 0; e < 2; ++e)
    for (int k = 0; k < n; ++k) CHECK_EQ(flat[e * n + k], value(left, idx[k] + e * extent));
  /* typed send received into the type: gaps untouched */
  memset(dst, 0, sizeof dst);
  MPI_OK(MPI_Sendrecv(src, 2, t, right, 2, dst, 2, t, left, 2, MPI_COMM_WORLD, &st));
  int count, elems;
  MPI_OK(MPI_Get_count(&st, t, &count));
  CHECK_EQ(count, 2);
  MPI_OK(MPI_Get_elements(&st, t, &elems));
  CHECK_EQ(elems, 2 * n);
  char hit[kN] = {0};
  for (int e = 0; e < 2; ++e)
    for (int k = 0; k < n; ++k) {
      int i = idx[k] + e * extent;
      hit[i] = 1;
      CHECK_EQ(dst[i], value(left, i));
    }
  for (int i = 0; i < kN; ++i) {
    if (!hit[i] && dst[i] != 0) {
      fprintf(stderr, "%s: int %d outside the type was written (%d)\n", name, i, dst[i]);
      CHECK(0);
    }
  }
  /* partial element: 1.5 elements of ints */
  if (n % 2 == 0) {
    MPI_OK(MPI_Sendrecv(src, n + n / 2, MPI_INT, right, 3, dst, 2, t, left, 3, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, t, &count));
    CHECK_EQ(count, MPI_UNDEFINED);
    MPI_OK(MPI_Get_elements(&st, t, &elems));
    CHECK_EQ(elems, n + n / 2);
  }
}

static void check_envelope(MPI_Datatype t, int combiner, int ni, int na, int nd) {
  int i, a, d, c;
  MPI_OK(MPI_Type_get_envelope(t, &i, &a, &d, &c));
  CHECK_EQ(c, combiner);
  CHECK_EQ(i, ni);
  CHECK_EQ(a, na);
  CHECK_EQ(d, nd);
}

static void constructors(void) {
  MPI_Datatype t, inner;
  { /* contiguous */
    int idx[] = {0, 1, 2};
    MPI_OK(MPI_Type_contiguous(3, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    round_trip("contiguous", t, idx, 3, 3);
    check_envelope(t, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
    MPI_OK(MPI_Type_free(&t));
  }
  { /* vector + contents */
    int idx[] = {0, 1, 4, 5, 8, 9};
    MPI_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    round_trip("vector", t, idx, 6, 10);
    check_envelope(t, MPI_COMBINER_VECTOR, 3, 0, 1);
    int ints[3];
    MPI_Aint addrs[1];
    MPI_Datatype types[1];
    MPI_OK(MPI_Type_get_contents(t, 3, 0, 1, ints, addrs, types));
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 4 && types[0] == MPI_INT);
    MPI_Datatype d;
    MPI_OK(MPI_Type_dup(t, &d));
    MPI_OK(MPI_Type_commit(&d));
    round_trip("dup", d, idx, 6, 10);
    check_envelope(d, MPI_COMBINER_DUP, 0, 0, 1);
    MPI_OK(MPI_Type_free(&d));
    MPI_OK(MPI_Type_free(&t));
  }
  { /* hvector */
    int idx[] = {0, 1, 2, 10, 11, 12};
    MPI_OK(MPI_Type_create_hvector(2, 3, 40, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    round_trip("hvector", t, idx, 6, 13);
    check_envelope(t, MPI_COMBINER_HVECTOR, 2, 1, 1);
    MPI_OK(MPI_Type_free(&t));
  }
  { /* indexed */
    int bl[] = {2, 1, 3}, disp[] = {5, 0, 10};
    int idx[] = {5, 6, 0, 10, 11, 12};
    MPI_OK(MPI_Type_indexed(3, bl, disp, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    round_trip("indexed", t, idx, 6, 13);
    check_envelope(t, MPI_COMBINER_INDEXED, 7, 0, 1);
    MPI_OK(MPI_Type_free(&t));
  }
  { /* hindexed: lb = 8 bytes */
    int bl[] = {1, 2};
    MPI_Aint disp[] = {8, 24};
    int idx[] = {2, 6, 7};
    MPI_OK(MPI_Type_create_hindexed(2, bl, disp, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    MPI_Aint lb, ext, tlb, text;
    MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
    MPI_OK(MPI_Type_get_true_extent(t, &tlb, &text));
    CHECK_EQ(lb, 8);
    CHECK_EQ(tlb, 8);
    CHECK_EQ(text, 24);
    round_trip("hindexed", t, idx, 3, 6);
    MPI_OK(MPI_Type_free(&t));
  }
  { /* indexed_block */
    int disp[] = {1, 6, 3};
    int idx[] = {1, 2, 6, 7, 3, 4};
    MPI_OK(MPI_Type_create_indexed_block(3, 2, disp, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    round_trip("indexed_block", t, idx, 6, 7);
    check_envelope(t, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1);
    MPI_OK(MPI_Type_free(&t));
  }
  { /* hindexed_block */
    MPI_Aint disp[] = {12, 4};
    int idx[] = {3, 1};
    MPI_OK(MPI_Type_create_hindexed_block(2, 1, disp, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    round_trip("hindexed_block", t, idx, 2, 3);
    MPI_OK(MPI_Type_free(&t));
  }
  { /* subarray, C order */
    int sizes[] = {4, 5}, sub[] = {2, 3}, starts[] = {1, 1};
    int idx[] = {6, 7, 8, 11, 12, 13};
    MPI_OK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    round_trip("subarray C", t, idx, 6, 20);
    check_envelope(t, MPI_COMBINER_SUBARRAY, 8, 0, 1);
    MPI_OK(MPI_Type_free(&t));
  }
  { /* subarray, Fortran order */
    int sizes[] = {4, 5}, sub[] = {2, 3}, starts[] = {1, 1};
    int idx[] = {5, 6, 9, 10, 13, 14};
    MPI_OK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    round_trip("subarray Fortran", t, idx, 6, 20);
    MPI_OK(MPI_Type_free(&t));
  }
  { /* darray: rank 3 of a 2x2 grid, rows in blocks, columns cyclic */
    int gsizes[] = {4, 6}, distribs[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
    int dargs[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, psizes[] = {2, 2};
    int idx[] = {13, 15, 17, 19, 21, 23};
    MPI_OK(MPI_Type_create_darray(4, 3, 2, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT, &t));
    MPI_OK(MPI_Type_commit(&t));
    round_trip("darray", t, idx, 6, 24);
    check_envelope(t, MPI_COMBINER_DARRAY, 4 * 2 + 4, 0, 1);
    MPI_OK(MPI_Type_free(&t));
  }
  { /* resized: one int every 3 ints */
    int idx[] = {0};
    MPI_OK(MPI_Type_create_resized(MPI_INT, 0, 12, &t));
    MPI_OK(MPI_Type_commit(&t));
    round_trip("resized", t, idx, 1, 3);
    check_envelope(t, MPI_COMBINER_RESIZED, 0, 2, 1);
    MPI_OK(MPI_Type_free(&t));
  }
  { /* nested: vector of a 2-int indexed type */
    int bl[] = {1, 1}, disp[] = {0, 2};
    MPI_OK(MPI_Type_indexed(2, bl, disp, MPI_INT, &inner)); /* ints 0, 2; extent 3 */
    MPI_OK(MPI_Type_vector(2, 1, 2, inner, &t));          /* at 0 and 6 */
    MPI_OK(MPI_Type_commit(&t));
    int idx[] = {0, 2, 6, 8};
    round_trip("vector of indexed", t, idx, 4, 9);
    MPI_OK(MPI_Type_free(&t));
    MPI_OK(MPI_Type_free(&inner));
  }
}

struct S {
  int a[2];
  double d;
  char c;
};

static void structs(void) {
  int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
  int bl[] = {2, 1, 1};
  MPI_Aint disp[] = {offsetof(struct S, a), offsetof(struct S, d), offsetof(struct S, c)};
  MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, t;
  MPI_OK(MPI_Type_create_struct(3, bl, disp, types, &t));
  MPI_OK(MPI_Type_commit(&t));
  MPI_Aint lb, ext;
  MPI_OK(MPI_Type_get_extent(t, &lb, &ext));
  CHECK_EQ(ext, sizeof(struct S));
  check_envelope(t, MPI_COMBINER_STRUCT, 4, 3, 3);
  struct S out[3], in[3];
  memset(in, 0x5a, sizeof in);
  for (int i = 0; i < 3; ++i) {
    out[i].a[0] = g_rank * 100 + i;
    out[i].a[1] = -i;
    out[i].d = g_rank + i * 0.25;
    out[i].c = (char)('a' + i);
  }
  MPI_Status st;
  MPI_OK(MPI_Sendrecv(out, 3, t, right, 4, in, 3, t, left, 4, MPI_COMM_WORLD, &st));
  for (int i = 0; i < 3; ++i) {
    CHECK_EQ(in[i].a[0], left * 100 + i);
    CHECK_EQ(in[i].a[1], -i);
    CHECK(in[i].d == left + i * 0.25);
    CHECK_EQ(in[i].c, 'a' + i);
  }
  int elems;
  MPI_OK(MPI_Get_elements(&st, t, &elems));
  CHECK_EQ(elems, 12);
  /* external32: big-endian, MPI_LONG in 4 bytes */
  char ext32[64];
  MPI_Aint pos = 0, esize;
  int word = 0x01020304;
  MPI_OK(MPI_Pack_external("external32", &word, 1, MPI_INT, ext32, sizeof ext32, &pos));
  CHECK_EQ(pos, 4);
  CHECK(ext32[0] == 1 && ext32[1] == 2 && ext32[2] == 3 && ext32[3] == 4);
  long neg = -2;
  MPI_OK(MPI_Pack_external_size("external32", 1, MPI_LONG, &esize));
  CHECK_EQ(esize, 4);
  MPI_OK(MPI_Pack_external("external32", &neg, 1, MPI_LONG, ext32, sizeof ext32, &pos));
  CHECK_EQ(pos, 8);
  CHECK((unsigned char)ext32[4] == 0xff && (unsigned char)ext32[7] == 0xfe);
  long back_long = 0;
  int back_int = 0;
  pos = 0;
  MPI_OK(MPI_Unpack_external("external32", ext32, 8, &pos, &back_int, 1, MPI_INT));
  MPI_OK(MPI_Unpack_external("external32", ext32, 8, &pos, &back_long, 1, MPI_LONG));
  CHECK_EQ(back_int, word);
  CHECK_EQ(back_long, -2);
  MPI_OK(MPI_Pack_external_size("external32", 3, t, &esize));
  CHECK_EQ(esize, 3 * (8 + 8 + 1));
  char* buf = malloc((size_t)esize);
  pos = 0;
  MPI_OK(MPI_Pack_external("external32", out, 3, t, buf, esize, &pos));
  struct S again[3];
  memset(again, 0, sizeof again);
  pos = 0;
  MPI_OK(MPI_Unpack_external("external32", buf, esize, &pos, again, 3, t));
  for (int i = 0; i < 3; ++i) {
    CHECK_EQ(again[i].a[0], out[i].a[0]);
    CHECK(again[i].d == out[i].d);
    CHECK_EQ(again[i].c, out[i].c);
  }
  free(buf);
  MPI_OK(MPI_Type_free(&t));
}

/* A large strided message (rendezvous on every path) lands in the right places. */
static void large_strided(void) {
  int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
  enum { kCount = 50000 };
  MPI_Datatype t;
  MPI_OK(MPI_Type_vector(kCount, 1, 3, MPI_DOUBLE, &t));
  MPI_OK(MPI_Type_commit(&t));
  double* out = malloc(sizeof(double) * 3 * kCount);
  double* in = calloc(3 * kCount, sizeof(double));
  for (int i = 0; i < 3 * kCount; ++i) out[i] = g_rank * 1e6 + i;
  MPI_OK(MPI_Sendrecv(out, 1, t, right, 5, in, 1, t, left, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < 3 * kCount; ++i) CHECK(in[i] == (i % 3 == 0 ? left * 1e6 + i : 0.0));
  free(out);
  free(in);
  MPI_OK(MPI_Type_free(&t));
}

/* Large non-contiguous messages (rendezvous on every path) in every direction: typed -> typed,
 * typed -> bytes, bytes -> typed, with buffers from malloc and MPI_Alloc_mem. The expected
 * bytes come from the layout written out here by hand (byte offset and length of each block of
 * one element, and the extent). */
typedef struct {
  long off, len;
} span;

static unsigned char byte_at(int rank, long pos) { return (unsigned char)(rank * 131 + pos * 7 + pos / 251); }

/* The buffer offset of every data byte of `count` elements, in typemap order; returns the total. */
static long data_map(const span* b, int nb, long extent, int count, long* map) {
  long k = 0;
  for (int e = 0; e < count; ++e)
    for (int i = 0; i < nb; ++i)
      for (long j = 0; j < b[i].len; ++j) map[k++] = e * extent + b[i].off + j;
  return k;
}

static void* get_mem(long bytes, int alloc_mem) {
  void* p = NULL;
  if (alloc_mem) MPI_OK(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &p)); else p = malloc((size_t)bytes);
  CHECK(p != NULL);
  memset(p, 0, (size_t)bytes);
  return p;
}

static void put_mem(void* p, int alloc_mem) {
  if (alloc_mem) MPI_OK(MPI_Free_mem(p)); else free(p);
}

static void large_layout(MPI_Datatype t, const span* b, int nb, long extent, int count) {
  int right = (g_rank + 1) % g_size, left = (g_rank + g_size - 1) % g_size;
  long total = 0;
  for (int i = 0; i < nb; ++i) total += b[i].len;
  total *= count;
  long span_bytes = extent * count;
  long* map = malloc(sizeof(long) * (size_t)total);
  CHECK_EQ(data_map(b, nb, extent, count, map), total);
  int size;
  MPI_OK(MPI_Type_size(t, &size));
  CHECK_EQ((long)size * count, total);
  for (int alloc = 0; alloc < 2; ++alloc) {
    unsigned char* typed_out = get_mem(span_bytes, alloc);
    unsigned char* typed_in = get_mem(span_bytes, alloc);
    unsigned char* flat_out = get_mem(total, alloc);
    unsigned char* flat_in = get_mem(total, alloc);
    for (long i = 0; i < span_bytes; ++i) typed_out[i] = byte_at(g_rank, i);
    for (long k = 0; k < total; ++k) flat_out[k] = byte_at(g_rank, k);
    MPI_Status st;
    int got;
    /* typed -> typed: the covered bytes carry the sender's bytes at the same places, no others */
    MPI_OK(MPI_Sendrecv(typed_out, count, t, right, 6, typed_in, count, t, left, 6, MPI_COMM_WORLD, &st));
    MPI_OK(MPI_Get_count(&st, t, &got));
    CHECK_EQ(got, count);
    for (long k = 0; k < total; ++k) CHECK_EQ(typed_in[map[k]], byte_at(left, map[k]));
    memset(typed_in, 0, (size_t)span_bytes);
    for (long k = 0; k < total; ++k) typed_in[map[k]] = 1; /* holes stay zero: check them */
    for (long i = 0; i < span_bytes; ++i) typed_out[i] = typed_in[i] ? byte_at(g_rank, i) : 0;
    memset(typed_in, 0, (size_t)span_bytes);
    MPI_OK(MPI_Sendrecv(typed_out, count, t, right, 7, typed_in, count, t, left, 7, MPI_COMM_WORLD, &st));
    for (long k = 0; k < total; ++k) CHECK_EQ(typed_in[map[k]], byte_at(left, map[k]));
    for (long i = 0, k = 0; i < span_bytes; ++i) {
      if (k < total && map[k] == i) {
        ++k;
      } else {
        CHECK_EQ(typed_in[i], 0);
      }
    }
    /* typed -> bytes: the typemap order */
    MPI_OK(MPI_Sendrecv(typed_out, count, t, right, 8, flat_in, (int)total, MPI_BYTE, left, 8, MPI_COMM_WORLD, &st));
    for (long k = 0; k < total; ++k) CHECK_EQ(flat_in[k], byte_at(left, map[k]));
    /* bytes -> typed */
    memset(typed_in, 0, (size_t)span_bytes);
    MPI_OK(MPI_Sendrecv(flat_out, (int)total, MPI_BYTE, right, 9, typed_in, count, t, left, 9, MPI_COMM_WORLD, &st));
    for (long k = 0; k < total; ++k) CHECK_EQ(typed_in[map[k]], byte_at(left, k));
    put_mem(typed_out, alloc);
    put_mem(typed_in, alloc);
    put_mem(flat_out, alloc);
    put_mem(flat_in, alloc);
  }
  free(map);
}

static void large_layouts(void) {
  MPI_Datatype t;
  /* vector of 1200-byte blocks (pulled block by block on a node) */
  MPI_OK(MPI_Type_vector(300, 300, 450, MPI_INT, &t));
  MPI_OK(MPI_Type_commit(&t));
  {
    span b[300];
    for (int i = 0; i < 300; ++i) b[i] = (span){i * 450L * 4, 300L * 4};
    large_layout(t, b, 300, 299L * 450 * 4 + 300 * 4, 1);
  }
  MPI_OK(MPI_Type_free(&t));
  /* indexed, big and tiny blocks mixed, two elements */
  int lens[5] = {1000, 3, 5000, 257, 20000}, displs[5] = {0, 1500, 2000, 8000, 9000};
  MPI_OK(MPI_Type_indexed(5, lens, displs, MPI_INT, &t));
  MPI_OK(MPI_Type_commit(&t));
  {
    span b[5];
    for (int i = 0; i < 5; ++i) b[i] = (span){displs[i] * 4L, lens[i] * 4L};
    large_layout(t, b, 5, 29000L * 4, 2);
  }
  MPI_OK(MPI_Type_free(&t));
  /* struct of ints and doubles, resized: 20 elements of 16000 bytes */
  int blens[2] = {1000, 500};
  MPI_Aint bdispl[2] = {0, 8000};
  MPI_Datatype btypes[2] = {MPI_INT, MPI_DOUBLE}, s;
  MPI_OK(MPI_Type_create_struct(2, blens, bdispl, btypes, &s));
  MPI_OK(MPI_Type_create_resized(s, 0, 16000, &t));
  MPI_OK(MPI_Type_commit(&t));
  {
    span b[2] = {{0, 4000}, {8000, 4000}};
    large_layout(t, b, 2, 16000, 20);
  }
  MPI_OK(MPI_Type_free(&t));
  MPI_OK(MPI_Type_free(&s));
  /* tiny blocks (packed on every path): every other int */
  MPI_OK(MPI_Type_vector(40000, 1, 2, MPI_INT, &t));
  MPI_OK(MPI_Type_commit(&t));
  {
    span* b = malloc(sizeof(span) * 40000);
    for (int i = 0; i < 40000; ++i) b[i] = (span){i * 8L, 4};
    large_layout(t, b, 40000, 39999L * 8 + 4, 1);
    free(b);
  }
  MPI_OK(MPI_Type_free(&t));
}

static void predefined(void) {
  /* sizes of the predefined types, and a pair type through MINLOC */
  static const struct {
    MPI_Datatype t;
    int size;
  } kSizes[] = {{MPI_CHAR, 1}, {MPI_SHORT, sizeof(short)}, {MPI_INT, 4}, {MPI_LONG, sizeof(long)},
                {MPI_LONG_LONG, 8}, {MPI_FLOAT, 4}, {MPI_DOUBLE, 8}, {MPI_LONG_DOUBLE, sizeof(long double)},
                {MPI_INT8_T, 1}, {MPI_UINT16_T, 2}, {MPI_INT32_T, 4}, {MPI_UINT64_T, 8}, {MPI_AINT, sizeof(MPI_Aint)},
                {MPI_OFFSET, 8}, {MPI_COUNT, 8}, {MPI_C_BOOL, 1}, {MPI_WCHAR, sizeof(wchar_t)},
                {MPI_C_DOUBLE_COMPLEX, 16}, {MPI_2INT, 8}, {MPI_DOUBLE_INT, 12}, {MPI_BYTE, 1}, {MPI_PACKED, 1}};
  for (size_t i = 0; i < sizeof kSizes / sizeof kSizes[0]; ++i) {
    int s;
    MPI_OK(MPI_Type_size(kSizes[i].t, &s));
    CHECK_EQ(s, kSizes[i].size);
  }
  MPI_Aint lb, ext;
  MPI_OK(MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &ext));
  CHECK_EQ(ext, 16);
  struct {
    double v;
    int i;
  } mine = {(double)((g_rank * 7) % g_size), g_rank}, best;
  MPI_OK(MPI_Allreduce(&mine, &best, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
  CHECK(best.v == 0.0);
  CHECK_EQ(best.i, 0);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  predefined();
  constructors();
  structs();
  large_strided();
  large_layouts();
  MPI_OK(MPI_Finalize());
  if (g_rank == 0) printf("datatypes: ok on %d ranks\n", g_size);
  return 0;
}
