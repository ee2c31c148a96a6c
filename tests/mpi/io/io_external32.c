/* external32 files of types whose file size differs from memory (MPI 4.1 section 14.5.2): MPI_LONG
 * and MPI_UNSIGNED_LONG are 8 bytes here and 4 big-endian bytes in external32. Each rank writes
 * its values (collectively, independently, without blocking), the file is compared byte for byte
 * with a hand-computed big-endian image, and read back into memory (values and status counts).
 * Regression: these types were refused with MPI_ERR_UNSUPPORTED_DATAREP. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"

enum { PER_RANK = 24 }; /* file bytes each rank writes: 3 longs + 3 unsigned longs, 4 bytes each */

/* Rank r's values and their big-endian 4-byte images. */
static void values(int r, long* l, unsigned long* u) {
  l[0] = 1 + r;
  l[1] = -2 - r;
  l[2] = 0x12345600L + r;
  u[0] = 0xfedcba00UL + (unsigned long)r;
  u[1] = 7;
  u[2] = 0x80000000UL;
}
static void image(int r, unsigned char* out) {
  long l[3];
  unsigned long u[3];
  values(r, l, u);
  for (int i = 0; i < 3; ++i) {
    unsigned int v = (unsigned int)l[i], w = (unsigned int)u[i];
    for (int b = 0; b < 4; ++b) {
      out[4 * i + b] = (unsigned char)(v >> (24 - 8 * b));
      out[12 + 4 * i + b] = (unsigned char)(w >> (24 - 8 * b));
    }
  }
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int job = (int)getpid();
  MPI_Bcast(&job, 1, MPI_INT, 0, MPI_COMM_WORLD);
  char path[4200];
  snprintf(path, sizeof path, "%s/io_external32.%d", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", job);
  /* The hand-computed image: 00 00 00 01 for 1L, ff ff ff fe for -2L... */
  unsigned char first[PER_RANK];
  image(0, first);
  CHECK(first[3] == 1 && first[4] == 0xff && first[7] == 0xfe && first[8] == 0x12 && first[11] == 0x00 &&
        first[12] == 0xfe && first[15] == 0x00 && first[20] == 0x80);

  long l[3], lback[3];
  unsigned long u[3], uback[3];
  values(rank, l, u);
  for (int method = 0; method < 3; ++method) {
    MPI_File fh;
    if (rank == 0) unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    MPI_Aint extent = 0;
    MPI_OK(MPI_File_get_type_extent(fh, MPI_LONG, &extent));
    CHECK_EQ(extent, 4);
    MPI_Offset at = (MPI_Offset)rank * PER_RANK;
    MPI_Status st;
    int count = -1;
    if (method == 0) {
      MPI_OK(MPI_File_write_at_all(fh, at, l, 3, MPI_LONG, &st));
      MPI_OK(MPI_Get_count(&st, MPI_LONG, &count));
      CHECK_EQ(count, 3);
      MPI_OK(MPI_File_write_at_all(fh, at + 12, u, 3, MPI_UNSIGNED_LONG, &st));
    } else if (method == 1) {
      MPI_OK(MPI_File_seek(fh, at, MPI_SEEK_SET));
      MPI_OK(MPI_File_write(fh, l, 3, MPI_LONG, &st));
      MPI_Offset pos = -1;
      MPI_OK(MPI_File_get_position(fh, &pos));
      CHECK_EQ(pos, at + 12); /* the pointer moves by file bytes (etype MPI_BYTE) */
      MPI_OK(MPI_File_write(fh, u, 3, MPI_UNSIGNED_LONG, &st));
    } else {
      MPI_Request req[2];
      MPI_OK(MPI_File_iwrite_at(fh, at, l, 3, MPI_LONG, &req[0]));
      MPI_OK(MPI_File_iwrite_at_all(fh, at + 12, u, 3, MPI_UNSIGNED_LONG, &req[1]));
      MPI_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    }
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset bytes = -1;
    MPI_OK(MPI_File_get_size(fh, &bytes));
    CHECK_EQ(bytes, (MPI_Offset)size * PER_RANK);
    if (rank == 0) { /* the file against the image, byte for byte */
      int fd = open(path, O_RDONLY);
      CHECK(fd >= 0);
      unsigned char* data = malloc((size_t)size * PER_RANK);
      CHECK_EQ(pread(fd, data, (size_t)size * PER_RANK, 0), size * PER_RANK);
      close(fd);
      for (int r = 0; r < size; ++r) {
        unsigned char want[PER_RANK];
        image(r, want);
        for (int b = 0; b < PER_RANK; ++b) CHECK_EQ(data[r * PER_RANK + b], want[b]);
      }
      free(data);
    }
    /* Back into memory: values, counts; and a read running past the end stops at whole elements. */
    memset(lback, 0, sizeof lback);
    memset(uback, 0, sizeof uback);
    MPI_OK(MPI_File_read_at_all(fh, at, lback, 3, MPI_LONG, &st));
    MPI_OK(MPI_Get_count(&st, MPI_LONG, &count));
    CHECK_EQ(count, 3);
    MPI_Request req;
    MPI_OK(MPI_File_iread_at(fh, at + 12, uback, 3, MPI_UNSIGNED_LONG, &req));
    MPI_OK(MPI_Wait(&req, &st));
    MPI_OK(MPI_Get_count(&st, MPI_UNSIGNED_LONG, &count));
    CHECK_EQ(count, 3);
    for (int i = 0; i < 3; ++i) {
      CHECK_EQ(lback[i], l[i]);
      CHECK(uback[i] == u[i]);
    }
    long tail[4] = {0, 0, 0, 0};
    MPI_OK(MPI_File_read_at(fh, (MPI_Offset)size * PER_RANK - 8, tail, 4, MPI_UNSIGNED_LONG, &st));
    MPI_OK(MPI_Get_count(&st, MPI_UNSIGNED_LONG, &count));
    CHECK_EQ(count, 2);
    CHECK(tail[0] == 7 && (unsigned long)tail[1] == 0x80000000UL);

    /* A view whose etype has another size in the file: positions count 4-byte longs (the views
     * themselves: io_external32_views). */
    MPI_OK(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL));
    MPI_Offset byte = -1;
    MPI_OK(MPI_File_get_byte_offset(fh, 3, &byte));
    CHECK_EQ(byte, 12);
    MPI_OK(MPI_File_close(&fh));
  }
  if (rank == 0) unlink(path);
  MPI_Finalize();
  if (rank == 0) printf("io_external32: %d ranks ok\n", size);
  return 0;
}
