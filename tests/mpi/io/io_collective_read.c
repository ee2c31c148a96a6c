/* Collective reads (mpi/io/README.md, "Choosing the path"): on one node, a rank whose pieces
 * average 16 KiB or more reads them itself (one pread per piece into the user's memory, or sieved
 * under 64 KiB); smaller pieces, atomic mode, ranks on several nodes and romio_cb_read=enable take
 * two-phase. Rank 0 writes a reference file with plain POSIX pwrite; every rank then reads its view
 * collectively and compares each byte with the reference at the file offset the view gives it
 * (computed here from the vector's geometry, not by the library). Each case is read with
 * MPI_File_read_at_all, MPI_File_read_all in two halves (the individual pointer checked between),
 * MPI_File_iread_at_all + MPI_Wait and MPI_File_read_at_all_begin + _end (these two read straight
 * into a contiguous memory type), and MPI_File_get_info must report the path the rule gives
 * (gasket_cb_read_used). Views are vectors of kRows pieces at odd displacements:
 *  A. 20481-byte pieces interleaved with the other ranks' (piece k of rank r at (k * size + r) *
 *     piece): each rank its own pieces (sieved), two-phase across nodes;
 *  B. 102403-byte pieces with a hole of one piece after each row of the ranks' pieces: each rank
 *     its own (one pread per piece);
 *  C. not interleaved: rank r's 24 KiB pieces with 24 KiB holes inside its own region;
 *  D. 1000-byte interleaved pieces: two-phase; E. A in atomic mode: two-phase;
 *  F. B with romio_cb_read=enable: two-phase; G. D with romio_cb_read=disable: each its own;
 *  H. A into a non-contiguous memory type (a vector with 7-byte gaps, which must stay untouched);
 *  I. B moved so that the file ends inside the ranks' pieces: each rank's count is the bytes of
 *     its view before the end of file, and those bytes are checked.
 * Then the agreement before any data moves: a negative offset on the last rank fails every
 * rank's MPI_File_read_at_all (MPI_ERR_ARG) and a negative count on the last rank every rank's
 * MPI_File_read_all (MPI_ERR_COUNT), with no byte of any buffer written and every individual
 * pointer where it was. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_job.h"

enum { kRows = 6, kSentinel = 0xFF }; /* reference() gives 1..250 */
enum Layout { kInterleaved, kInterleavedWithHoles, kOwnRegion };
enum Form { kReadAtAll, kReadAllHalves, kIreadAtAll, kSplit, kForms };
static const char* const kFormName[] = {"read_at_all", "read_all in two halves", "iread_at_all + wait",
                                        "read_at_all_begin + end"};

static int rank, size, nodes;
static char path[4200];
static long file_length;

struct Case {
  char name;
  int piece;
  enum Layout layout;
  int atomic;
  const char* cb; /* romio_cb_read */
  int gapped_memory;
  int past_end;
};

/* The reference file's byte at offset i (never the sentinel, never 0). */
static unsigned char reference(long i) { return (unsigned char)(1 + (i * 7 + (i >> 8) * 13) % 250); }

/* The view of a case on this rank: displacement, vector stride; the row of pieces is kRows long. */
static long stride_of(const struct Case* c) {
  switch (c->layout) {
    case kInterleaved: return (long)c->piece * size;
    case kInterleavedWithHoles: return (long)c->piece * (size + 1);
    default: return 2L * c->piece;
  }
}
static long view_bytes(const struct Case* c) { return (long)(kRows - 1) * stride_of(c) + c->piece; }
static long disp_of(const struct Case* c) {
  long odd = 7;
  if (c->layout == kOwnRegion) return odd + rank * view_bytes(c);
  long mine = odd + (long)rank * c->piece;
  return c->past_end ? mine + file_length - (odd + (long)size * c->piece + view_bytes(c)) / 2 : mine;
}
static long file_offset(const struct Case* c, long stream) {
  return disp_of(c) + stream / c->piece * stride_of(c) + stream % c->piece;
}
static long memory_offset(const struct Case* c, long stream) {
  return c->gapped_memory ? stream / c->piece * (c->piece + 7L) + stream % c->piece : stream;
}

static enum Path case_path(const struct Case* c) { return expected_path(c->cb, c->atomic, c->piece, size, nodes); }

static void write_reference_file(void) {
  if (rank == 0) {
    unsigned char* data = malloc((size_t)file_length);
    for (long i = 0; i < file_length; ++i) data[i] = reference(i);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    CHECK(fd >= 0);
    CHECK_EQ(pwrite(fd, data, (size_t)file_length, 0), file_length);
    CHECK_EQ(close(fd), 0);
    free(data);
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

static MPI_File open_case(const struct Case* c, MPI_Datatype* filetype) {
  MPI_Info info;
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "romio_cb_read", c->cb));
  MPI_File fh;
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh));
  MPI_OK(MPI_Info_free(&info));
  MPI_OK(MPI_File_set_atomicity(fh, c->atomic));
  MPI_OK(MPI_Type_vector(kRows, c->piece, (int)stride_of(c), MPI_BYTE, filetype));
  MPI_OK(MPI_Type_commit(filetype));
  MPI_OK(MPI_File_set_view(fh, disp_of(c), MPI_BYTE, *filetype, "native", MPI_INFO_NULL));
  return fh;
}

/* The stream bytes of this rank's view that lie before the end of the file. */
static long bytes_before_end(const struct Case* c) {
  long n = 0, total = (long)kRows * c->piece;
  while (n < total && file_offset(c, n) < file_length) ++n;
  return n;
}

static void check_bytes(const struct Case* c, enum Form form, const unsigned char* memory, long memory_size,
                        long moved) {
  long want_at = 0;
  for (long j = 0; j < moved; ++j) {
    long at = memory_offset(c, j);
    unsigned char want = reference(file_offset(c, j));
    for (; want_at < at; ++want_at) CHECK_EQ(memory[want_at], kSentinel); /* the gaps of the memory type */
    if (memory[at] != want) {
      fprintf(stderr, "case %c (%s), rank %d: stream byte %ld (file byte %ld) is 0x%02x, expected 0x%02x\n", c->name,
              kFormName[form], rank, j, file_offset(c, j), memory[at], want);
      CHECK(0);
    }
    want_at = at + 1;
  }
  if (moved == (long)kRows * c->piece) {
    for (; want_at < memory_size; ++want_at) CHECK_EQ(memory[want_at], kSentinel);
  }
}

/* Reads the case's view with `form`; returns the path the file reports. */
static enum Path read_case(const struct Case* c, enum Form form) {
  MPI_Datatype filetype, memtype = MPI_BYTE;
  MPI_File fh = open_case(c, &filetype);
  long count = (long)kRows * c->piece, memory_size = count;
  if (c->gapped_memory) {
    MPI_OK(MPI_Type_vector(kRows, c->piece, c->piece + 7, MPI_BYTE, &memtype));
    MPI_OK(MPI_Type_commit(&memtype));
    memory_size = memory_offset(c, count - 1) + 1;
  }
  int items = c->gapped_memory ? 1 : (int)count;
  unsigned char* memory = malloc((size_t)memory_size);
  memset(memory, kSentinel, (size_t)memory_size);
  MPI_Status st;
  long moved = -1;
  if (form == kReadAtAll) {
    MPI_OK(MPI_File_read_at_all(fh, 0, memory, items, memtype, &st));
  } else if (form == kIreadAtAll) {
    MPI_Request request;
    MPI_OK(MPI_File_iread_at_all(fh, 0, memory, items, memtype, &request));
    MPI_OK(MPI_Wait(&request, &st));
  } else if (form == kSplit) {
    MPI_OK(MPI_File_read_at_all_begin(fh, 0, memory, items, memtype));
    MPI_OK(MPI_File_read_at_all_end(fh, memory, &st));
  } else { /* two halves through the individual pointer (whole elements of the memory type) */
    CHECK(!c->gapped_memory);
    int first = (int)(count / 2);
    MPI_Offset position = -1;
    MPI_OK(MPI_File_read_all(fh, memory, first, MPI_BYTE, &st));
    MPI_OK(MPI_File_get_position(fh, &position));
    CHECK_EQ(position, first);
    MPI_OK(MPI_File_read_all(fh, memory + first, (int)count - first, MPI_BYTE, &st));
    MPI_OK(MPI_File_get_position(fh, &position));
    CHECK_EQ(position, count);
    int second = -1;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &second));
    CHECK_EQ(second, count - first);
    moved = count;
  }
  if (moved < 0) {
    int elements = -1;
    MPI_OK(MPI_Get_elements(&st, memtype, &elements));
    moved = elements;
    if (!c->past_end) {
      int got = -1;
      MPI_OK(MPI_Get_count(&st, memtype, &got));
      CHECK_EQ(got, items);
    }
  }
  CHECK_EQ(moved, c->past_end ? bytes_before_end(c) : count);
  check_bytes(c, form, memory, memory_size, moved);
  enum Path used = reported_path(fh, "gasket_cb_read_used");
  MPI_OK(MPI_File_close(&fh));
  MPI_OK(MPI_Type_free(&filetype));
  if (c->gapped_memory) MPI_OK(MPI_Type_free(&memtype));
  free(memory);
  return used;
}

/* A bad argument on the last rank fails every rank's call before any data moves. */
static void check_agreed_failures(const struct Case* c) {
  MPI_Datatype filetype;
  MPI_File fh = open_case(c, &filetype);
  int count = kRows * c->piece, last = rank == size - 1;
  unsigned char* memory = malloc((size_t)count);
  memset(memory, kSentinel, (size_t)count);
  int cls = -1;
  MPI_Status st;
  MPI_Error_class(MPI_File_read_at_all(fh, last ? -1 : 0, memory, count, MPI_BYTE, &st), &cls);
  CHECK_EQ(cls, MPI_ERR_ARG);
  MPI_OK(MPI_File_seek(fh, 3, MPI_SEEK_SET));
  MPI_Error_class(MPI_File_read_all(fh, memory, last ? -1 : count - 3, MPI_BYTE, &st), &cls);
  CHECK_EQ(cls, MPI_ERR_COUNT);
  MPI_Offset position = -1;
  MPI_OK(MPI_File_get_position(fh, &position));
  CHECK_EQ(position, 3);
  for (int i = 0; i < count; ++i) CHECK_EQ(memory[i], kSentinel);
  /* the file is still usable collectively afterwards */
  MPI_OK(MPI_File_read_all(fh, memory, count - 3, MPI_BYTE, &st));
  CHECK_EQ(memory[0], reference(file_offset(c, 3)));
  CHECK_EQ(memory[count - 4], reference(file_offset(c, count - 1)));
  MPI_OK(MPI_File_close(&fh));
  MPI_OK(MPI_Type_free(&filetype));
  free(memory);
}

int main(int argc, char** argv) {
  start_io_job(&argc, &argv, "io_collective_read", &rank, &size, path, sizeof path);
  nodes = count_nodes();

  const struct Case cases[] = {
      {'A', 20481, kInterleaved, 0, "automatic", 0, 0},        {'B', 102403, kInterleavedWithHoles, 0, "automatic", 0, 0},
      {'C', 24 << 10, kOwnRegion, 0, "automatic", 0, 0},       {'D', 1000, kInterleaved, 0, "automatic", 0, 0},
      {'E', 20481, kInterleaved, 1, "automatic", 0, 0},        {'F', 102403, kInterleavedWithHoles, 0, "enable", 0, 0},
      {'G', 1000, kInterleaved, 0, "disable", 0, 0},           {'H', 20481, kInterleaved, 0, "automatic", 1, 0},
      {'I', 102403, kInterleavedWithHoles, 0, "automatic", 0, 1}};
  const int ncases = (int)(sizeof cases / sizeof cases[0]);
  /* The file covers every view but I's, which it ends in the middle of. */
  file_length = 0;
  for (int k = 0; k < ncases; ++k) {
    const struct Case* c = &cases[k];
    long end = c->layout == kOwnRegion ? 7 + size * view_bytes(c) : 7 + (long)size * c->piece + view_bytes(c);
    if (!c->past_end && end > file_length) file_length = end;
  }
  write_reference_file();

  int taken[2] = {0, 0};
  for (int k = 0; k < ncases; ++k) {
    const struct Case* c = &cases[k];
    enum Path want = case_path(c);
    for (int form = 0; form < kForms; ++form) {
      if (form == kReadAllHalves && (c->gapped_memory || c->past_end)) continue; /* whole elements; the pointer */
      enum Path got = read_case(c, (enum Form)form);
      if (got != want) {
        fprintf(stderr, "case %c (%s, %d nodes), rank %d: path %s, expected %s\n", c->name, kFormName[form], nodes,
                rank, kPathName[got], kPathName[want]);
        CHECK(0);
      }
    }
    ++taken[want];
  }
  check_agreed_failures(&cases[0]);
  check_agreed_failures(&cases[3]);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    unlink(path);
    printf("io_collective_read: %d ranks on %d node(s): %d cases two-phase, %d each rank its own, every byte "
           "checked against the POSIX-written file; agreed failures checked\n",
           size, nodes, taken[kTwoPhase], taken[kIndependent]);
  }
  MPI_Finalize();
  return 0;
}
