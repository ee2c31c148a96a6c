/* Views whose etype and filetype change size in the file (MPI 4.1 section 14.5.2): etype MPI_LONG
 * (8 bytes here, 4 big-endian bytes in external32) with subarray, darray, vector and hvector
 * filetypes of MPI_LONG, and a registered representation ("wide64": MPI_INT as 8 big-endian
 * bytes) with a vector filetype of MPI_INT. Portable filetypes (subarray, darray, vector) are
 * scaled to the file sizes; byte displacements (hvector stride, the view's displacement) are
 * taken as file bytes. Each file is written collectively, independently at explicit etype
 * offsets and non-blocking in small cb_buffer_size rounds, compared byte for byte with a serial
 * reference built here, and read back. Regression: such views were refused with
 * MPI_ERR_UNSUPPORTED_DATAREP.
 * Part D (alone with the argument "mixed": the target io_registered_datarep_mixed_types): a
 * memory type mixing predefined types, struct {short; double}, under a registered representation
 * ("mixed": MPI_SHORT as 4 big-endian bytes, MPI_DOUBLE as 8); its conversion functions get the
 * user's datatype and count data items, the typemap entries (section 14.5.3). Regression: such
 * memory types were refused with MPI_ERR_UNSUPPORTED_DATAREP. */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_job.h"

enum { B = 3, ROWS = 4, TILES = 2, K = 5 };

static int rank, size;
static char path[4200];

/* Rank r's element i (negative ones too, all within 32 bits). */
static long value(int r, long i) { return ((i & 1) ? -1 : 1) * ((r + 1) * 1000003L + i); }

static void put_big_endian(unsigned char* at, unsigned long long v, int bytes) {
  for (int b = 0; b < bytes; ++b) at[b] = (unsigned char)(v >> (8 * (bytes - 1 - b)));
}
static unsigned long long get_big_endian(const unsigned char* at, int bytes) {
  unsigned long long v = 0;
  for (int b = 0; b < bytes; ++b) v = (v << 8) | at[b];
  return v;
}

/* Rank 0 compares the whole file with `want` (`bytes` long). */
static void check_file(const unsigned char* want, long bytes, const char* what) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    unsigned char* data = malloc((size_t)bytes + 1);
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    CHECK_EQ(pread(fd, data, (size_t)bytes + 1, 0), bytes); /* nothing past the end either */
    close(fd);
    for (long at = 0; at < bytes; ++at) {
      if (data[at] != want[at]) {
        fprintf(stderr, "%s: file byte %ld is 0x%02x, expected 0x%02x\n", what, at, data[at], want[at]);
        CHECK(0);
      }
    }
    free(data);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static MPI_File open_fresh(MPI_Info info) {
  MPI_File fh;
  if (rank == 0) unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
  return fh;
}

/* Reads `n` elements back with `how` (0 read_all, 1 read_at, 2 iread_at_all) and compares. */
static void read_back(MPI_File fh, MPI_Datatype type, const void* mine, void* back, size_t elem, long n, int how) {
  memset(back, 0, elem * (size_t)n);
  MPI_Status st;
  if (how == 0) {
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_read_all(fh, back, (int)n, type, &st));
  } else if (how == 1) {
    MPI_OK(MPI_File_read_at(fh, 0, back, (int)n, type, &st));
  } else {
    MPI_Request req;
    MPI_OK(MPI_File_iread_at_all(fh, 0, back, (int)n, type, &req));
    MPI_OK(MPI_Wait(&req, &st));
  }
  int count = -1;
  MPI_OK(MPI_Get_count(&st, type, &count));
  CHECK_EQ(count, n);
  CHECK(memcmp(back, mine, elem * (size_t)n) == 0);
}

/* Writes `n` elements with `how`: 0 write_all, 1 write_at in two halves at etype offsets, 2
 * iwrite_at_all (with the file's small cb_buffer_size). */
static void write_with(MPI_File fh, MPI_Datatype type, const void* mine, size_t elem, long n, int how) {
  MPI_Status st;
  if (how == 0) {
    MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    MPI_OK(MPI_File_write_all(fh, mine, (int)n, type, &st));
    MPI_Offset pos = -1;
    MPI_OK(MPI_File_get_position(fh, &pos));
    CHECK_EQ(pos, n); /* in etypes */
  } else if (how == 1) {
    long half = n / 2;
    MPI_OK(MPI_File_write_at(fh, 0, mine, (int)half, type, &st));
    MPI_OK(MPI_File_write_at(fh, half, (const char*)mine + elem * (size_t)half, (int)(n - half), type, &st));
  } else {
    MPI_Request req;
    MPI_OK(MPI_File_iwrite_at_all(fh, 0, mine, (int)n, type, &req));
    MPI_OK(MPI_Wait(&req, &st));
  }
  int count = -1;
  MPI_OK(MPI_Get_count(&st, type, &count));
  if (how != 1) CHECK_EQ(count, n);
  MPI_OK(MPI_File_sync(fh));
}

/* What one view must give: the file `want` (`total` bytes) from `n` elements of `memtype` per
 * rank, the filetype's extent in the file, and (byte_etype >= 0) the file byte of an etype. */
struct Expected {
  const unsigned char* want;
  long total, extent, byte_etype, byte;
  const char* what;
};

/* The view (disp, etype, filetype, rep) written and read back with each method (write_with,
 * read_back), every time into a fresh file checked against the expected one. */
static void round_trips(MPI_Info info, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char* rep,
                        MPI_Datatype memtype, const void* mine, void* back, size_t elem, long n,
                        const struct Expected* x) {
  for (int how = 0; how < 3; ++how) {
    MPI_File fh = open_fresh(info);
    MPI_OK(MPI_File_set_view(fh, disp, etype, filetype, rep, info));
    MPI_Count extent = 0;
    MPI_OK(MPI_File_get_type_extent_c(fh, filetype, &extent));
    CHECK_EQ(extent, x->extent);
    if (x->byte_etype >= 0) {
      MPI_Offset byte = -1;
      MPI_OK(MPI_File_get_byte_offset(fh, x->byte_etype, &byte));
      CHECK_EQ(byte, x->byte);
    }
    write_with(fh, memtype, mine, elem, n, how);
    check_file(x->want, x->total, x->what);
    read_back(fh, memtype, mine, back, elem, n, how);
    MPI_OK(MPI_File_close(&fh));
  }
}

/* Part A: a 2-D array of ROWS x (size*B) longs, rank r owning columns [r*B, r*B + B), tiled
 * TILES times: the filetype is a subarray, then the same layout as a darray. */
static void columns(MPI_Info info) {
  long n = (long)TILES * ROWS * B, total = (long)TILES * ROWS * size * B * 4;
  long* mine = malloc(sizeof(long) * (size_t)n);
  long* back = malloc(sizeof(long) * (size_t)n);
  for (long i = 0; i < n; ++i) mine[i] = value(rank, i);
  unsigned char* want = malloc((size_t)total);
  for (int r = 0; r < size; ++r) {
    for (long i = 0; i < n; ++i) {
      long t = i / (ROWS * B), row = (i / B) % ROWS, col = i % B;
      put_big_endian(want + ((t * ROWS + row) * size * B + r * B + col) * 4, (unsigned long long)value(r, i), 4);
    }
  }
  for (int kind = 0; kind < 2; ++kind) {
    MPI_Datatype filetype;
    int sizes[2] = {ROWS, size * B}, sub[2] = {ROWS, B}, starts[2] = {0, rank * B};
    int distribs[2] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
    int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, psizes[2] = {1, size};
    if (kind == 0) {
      MPI_OK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_LONG, &filetype));
    } else {
      MPI_OK(MPI_Type_create_darray(size, rank, 2, sizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_LONG, &filetype));
    }
    MPI_OK(MPI_Type_commit(&filetype));
    /* etype 5 of the second tile: row 1, column 2 */
    struct Expected x = {want, total, (long)ROWS * size * B * 4, ROWS * B + 5,
                         (((long)ROWS + 1) * size * B + rank * B + 2) * 4, kind == 0 ? "subarray" : "darray"};
    round_trips(info, 0, MPI_LONG, filetype, "external32", MPI_LONG, mine, back, sizeof(long), n, &x);
    MPI_OK(MPI_Type_free(&filetype));
  }
  free(want);
  free(back);
  free(mine);
}

/* Part B: K blocks of B longs every size*B longs from file byte rank*B*4 (the view's
 * displacement, in file bytes): a vector (scaled) and an hvector whose stride is given in file
 * bytes give the same file. */
static void strided(MPI_Info info) {
  long n = (long)K * B, total = (long)K * size * B * 4;
  long* mine = malloc(sizeof(long) * (size_t)n);
  long* back = malloc(sizeof(long) * (size_t)n);
  for (long i = 0; i < n; ++i) mine[i] = value(rank, 100 + i);
  unsigned char* want = malloc((size_t)total);
  for (int r = 0; r < size; ++r) {
    for (long i = 0; i < n; ++i) {
      put_big_endian(want + (long)r * B * 4 + ((i / B) * size * B + i % B) * 4, (unsigned long long)value(r, 100 + i), 4);
    }
  }
  for (int kind = 0; kind < 2; ++kind) {
    MPI_Datatype filetype;
    if (kind == 0) MPI_OK(MPI_Type_vector(K, B, size * B, MPI_LONG, &filetype));
    else MPI_OK(MPI_Type_create_hvector(K, B, (MPI_Aint)size * B * 4, MPI_LONG, &filetype));
    MPI_OK(MPI_Type_commit(&filetype));
    struct Expected x = {want, total, ((long)(K - 1) * size * B + B) * 4, -1, 0, kind == 0 ? "vector" : "hvector"};
    round_trips(info, (MPI_Offset)rank * B * 4, MPI_LONG, filetype, "external32", MPI_LONG, mine, back, sizeof(long),
                n, &x);
    MPI_OK(MPI_Type_free(&filetype));
  }
  free(want);
  free(back);
  free(mine);
}

/* "wide64": MPI_INT as 8 big-endian bytes (sign-extended); other types keep their native size. */
static int wide_extent(MPI_Datatype type, MPI_Aint* extent, void* extra) {
  (void)extra;
  if (type == MPI_INT) {
    *extent = 8;
    return MPI_SUCCESS;
  }
  MPI_Aint lb;
  return MPI_Type_get_extent(type, &lb, extent);
}
static int wide_write(void* userbuf, MPI_Datatype type, int count, void* filebuf, MPI_Offset position, void* extra) {
  (void)extra;
  if (type != MPI_INT) return MPI_ERR_TYPE;
  const int* in = (const int*)userbuf + position;
  for (int i = 0; i < count; ++i) put_big_endian((unsigned char*)filebuf + 8 * i, (unsigned long long)(long long)in[i], 8);
  return MPI_SUCCESS;
}
static int wide_read(void* userbuf, MPI_Datatype type, int count, void* filebuf, MPI_Offset position, void* extra) {
  (void)extra;
  if (type != MPI_INT) return MPI_ERR_TYPE;
  int* out = (int*)userbuf + position;
  for (int i = 0; i < count; ++i) out[i] = (int)(long long)get_big_endian((unsigned char*)filebuf + 8 * i, 8);
  return MPI_SUCCESS;
}

/* Part C: a vector of MPI_INT under "wide64": blocks of B ints every size*B ints, from file byte
 * rank*B*8. */
static void registered(MPI_Info info) {
  long n = (long)K * B, total = (long)K * size * B * 8;
  int* mine = malloc(sizeof(int) * (size_t)n);
  int* back = malloc(sizeof(int) * (size_t)n);
  for (long i = 0; i < n; ++i) mine[i] = (int)value(rank, 200 + i);
  unsigned char* want = malloc((size_t)total);
  for (int r = 0; r < size; ++r) {
    for (long i = 0; i < n; ++i) {
      put_big_endian(want + (long)r * B * 8 + ((i / B) * size * B + i % B) * 8,
                     (unsigned long long)(long long)(int)value(r, 200 + i), 8);
    }
  }
  MPI_Datatype filetype;
  MPI_OK(MPI_Type_vector(K, B, size * B, MPI_INT, &filetype));
  MPI_OK(MPI_Type_commit(&filetype));
  MPI_File fh = open_fresh(info);
  MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "wide64", info));
  MPI_Aint extent = 0;
  MPI_OK(MPI_File_get_type_extent(fh, MPI_INT, &extent));
  CHECK_EQ(extent, 8);
  MPI_OK(MPI_File_close(&fh));
  struct Expected x = {want, total, ((long)(K - 1) * size * B + B) * 8, -1, 0, "wide64 vector"};
  round_trips(info, (MPI_Offset)rank * B * 8, MPI_INT, filetype, "wide64", MPI_INT, mine, back, sizeof(int), n, &x);
  MPI_OK(MPI_Type_free(&filetype));
  free(want);
  free(back);
  free(mine);
}

/* "mixed": MPI_SHORT as 4 big-endian bytes (sign-extended), MPI_DOUBLE as 8 big-endian bytes;
 * other types keep their native size. The conversions are written for one memory type, struct
 * Pair: data item k of the (tiled) type is the short of pair k/2 when k is even, else its double;
 * the file holds the items packed. */
struct Pair {
  short s;
  double d;
};
static MPI_Datatype pair_type;
static int mixed_extent(MPI_Datatype type, MPI_Aint* extent, void* extra) {
  (void)extra;
  if (type == MPI_SHORT) {
    *extent = 4;
    return MPI_SUCCESS;
  }
  MPI_Aint lb;
  return MPI_Type_get_extent(type, &lb, extent);
}
static int mixed_write(void* userbuf, MPI_Datatype type, int count, void* filebuf, MPI_Offset position, void* extra) {
  (void)extra;
  if (type != pair_type) return MPI_ERR_TYPE;
  const struct Pair* in = (const struct Pair*)userbuf;
  unsigned char* out = (unsigned char*)filebuf;
  for (MPI_Offset k = position; k < position + count; ++k) {
    const struct Pair* p = in + k / 2;
    if (k % 2 == 0) {
      put_big_endian(out, (unsigned long long)(long long)p->s, 4);
      out += 4;
    } else {
      unsigned long long bits;
      memcpy(&bits, &p->d, 8);
      put_big_endian(out, bits, 8);
      out += 8;
    }
  }
  return MPI_SUCCESS;
}
static int mixed_read(void* userbuf, MPI_Datatype type, int count, void* filebuf, MPI_Offset position, void* extra) {
  (void)extra;
  if (type != pair_type) return MPI_ERR_TYPE;
  struct Pair* out = (struct Pair*)userbuf;
  const unsigned char* in = (const unsigned char*)filebuf;
  for (MPI_Offset k = position; k < position + count; ++k) {
    struct Pair* p = out + k / 2;
    if (k % 2 == 0) {
      p->s = (short)(int)(long long)get_big_endian(in, 4);
      in += 4;
    } else {
      unsigned long long bits = get_big_endian(in, 8);
      memcpy(&p->d, &bits, 8);
      in += 8;
    }
  }
  return MPI_SUCCESS;
}

/* Part D: K blocks of B pairs (12 file bytes each: the etype) every size*B pairs from file byte
 * rank*B*12. */
static void mixed(MPI_Info info) {
  enum { FILE_PAIR = 12 };
  long n = (long)K * B, total = (long)K * size * B * FILE_PAIR;
  struct Pair* mine = calloc((size_t)n, sizeof *mine); /* zeroed padding: read_back compares bytes */
  struct Pair* back = calloc((size_t)n, sizeof *back);
  for (long i = 0; i < n; ++i) { /* field by field: the padding stays zero */
    mine[i].s = (short)(value(rank, i) % 30000);
    mine[i].d = 0.5 * (double)value(rank, i);
  }
  unsigned char* want = malloc((size_t)total);
  for (int r = 0; r < size; ++r) {
    for (long i = 0; i < n; ++i) {
      unsigned char* at = want + ((long)r * B + (i / B) * size * B + i % B) * FILE_PAIR;
      double d = 0.5 * (double)value(r, i);
      unsigned long long bits;
      memcpy(&bits, &d, 8);
      put_big_endian(at, (unsigned long long)(long long)(short)(value(r, i) % 30000), 4);
      put_big_endian(at + 4, bits, 8);
    }
  }
  int lengths[2] = {1, 1};
  MPI_Aint disps[2] = {offsetof(struct Pair, s), offsetof(struct Pair, d)};
  MPI_Datatype types[2] = {MPI_SHORT, MPI_DOUBLE}, loose, etype, filetype;
  MPI_OK(MPI_Type_create_struct(2, lengths, disps, types, &loose));
  MPI_OK(MPI_Type_create_resized(loose, 0, sizeof(struct Pair), &pair_type));
  MPI_OK(MPI_Type_commit(&pair_type));
  MPI_OK(MPI_Type_contiguous(FILE_PAIR, MPI_BYTE, &etype));
  MPI_OK(MPI_Type_vector(K, B, size * B, etype, &filetype));
  MPI_OK(MPI_Type_commit(&etype));
  MPI_OK(MPI_Type_commit(&filetype));
  MPI_File fh = open_fresh(info);
  MPI_OK(MPI_File_set_view(fh, 0, etype, filetype, "mixed", info));
  MPI_Aint extent = 0;
  MPI_OK(MPI_File_get_type_extent(fh, MPI_SHORT, &extent));
  CHECK_EQ(extent, 4);
  MPI_OK(MPI_File_close(&fh));
  struct Expected x = {want, total, ((long)(K - 1) * size * B + B) * FILE_PAIR, -1, 0, "mixed struct"};
  round_trips(info, (MPI_Offset)rank * B * FILE_PAIR, etype, filetype, "mixed", pair_type, mine, back,
              sizeof(struct Pair), n, &x);
  for (long i = 0; i < n; ++i) CHECK(back[i].s == mine[i].s && back[i].d == mine[i].d);
  MPI_OK(MPI_Type_free(&filetype));
  MPI_OK(MPI_Type_free(&etype));
  MPI_OK(MPI_Type_free(&pair_type));
  MPI_OK(MPI_Type_free(&loose));
  free(want);
  free(back);
  free(mine);
}

int main(int argc, char** argv) {
  start_io_job(&argc, &argv, "io_external32_views", &rank, &size, path, sizeof path);
  MPI_OK(MPI_Register_datarep("wide64", wide_read, wide_write, wide_extent, NULL));
  MPI_OK(MPI_Register_datarep("mixed", mixed_read, mixed_write, mixed_extent, NULL));
  int mixed_only = argc > 1 && strcmp(argv[1], "mixed") == 0;
  /* Collective buffering on, in rounds of 20 bytes (pieces cut across rounds). */
  const char* hints[][2] = {{"romio_cb_write", "enable"}, {"romio_cb_read", "enable"}, {"cb_buffer_size", "20"}};
  MPI_Info info;
  MPI_OK(MPI_Info_create(&info));
  for (int h = 0; h < 3; ++h) MPI_OK(MPI_Info_set(info, hints[h][0], hints[h][1]));
  if (!mixed_only) {
    columns(info);
    strided(info);
    registered(info);
  }
  mixed(info);
  MPI_OK(MPI_Info_free(&info));
  if (rank == 0) unlink(path);
  MPI_Finalize();
  if (rank == 0) printf("io_external32_views: %d ranks ok\n", size);
  return 0;
}
