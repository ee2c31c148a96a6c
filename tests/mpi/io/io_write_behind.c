/* Writes that go out in write-behind pieces (hint gasket_write_behind: each piece handed to
 * write-back once written) and MPI_File_sync: every rank writes one contiguous region of an odd
 * length (not a multiple of the piece) with MPI_File_write_at_all, with pieces of 4096 bytes, with
 * write-behind off (0) and with the default; after MPI_File_sync and a barrier each rank reads its
 * neighbour's region through its own POSIX descriptor and compares it byte for byte. The hint is
 * reported back; a negative value fails with MPI_ERR_INFO_VALUE. A write whose third piece passes the
 * rank's file size limit fails with MPI_ERR_NO_SPACE and leaves the first pieces written. An
 * MPI_File_sync whose fsync fails (on /dev/null, which has no storage) returns MPI_ERR_IO on every
 * rank. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_job.h"

enum { kPiece = 4096 };

static int rank, size;
static char path[4200];

static long length_of(int r) { return 9 * kPiece + 1234 + 517L * r; }
static long offset_of(int r) {
  long off = 0;
  for (int j = 0; j < r; ++j) off += length_of(j);
  return off;
}
static unsigned char byte_of(int r, long i, int pass) { return (unsigned char)(r * 29 + i * 11 + pass * 7 + (i >> 12)); }

static void check_hint(MPI_File fh, const char* expected) {
  MPI_Info used;
  MPI_OK(MPI_File_get_info(fh, &used));
  char value[64] = "";
  int flag = 0;
  MPI_OK(MPI_Info_get_string(used, "gasket_write_behind", &(int){sizeof value}, value, &flag));
  CHECK(flag);
  if (strcmp(value, expected) != 0) {
    fprintf(stderr, "rank %d: gasket_write_behind reported \"%s\", expected \"%s\"\n", rank, value, expected);
    CHECK(0);
  }
  MPI_Info_free(&used);
}

/* One pass: write every region collectively with the hint `piece` (NULL: default), sync, barrier,
 * then read the neighbour's region through POSIX and compare. */
static void write_and_read_neighbour(const char* piece, const char* reported, int pass) {
  MPI_Info info;
  MPI_Info_create(&info);
  if (piece) MPI_Info_set(info, "gasket_write_behind", piece);
  MPI_File fh;
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  check_hint(fh, reported);
  long n = length_of(rank);
  unsigned char* data = malloc((size_t)n);
  for (long i = 0; i < n; ++i) data[i] = byte_of(rank, i, pass);
  MPI_Status st;
  MPI_OK(MPI_File_write_at_all(fh, offset_of(rank), data, (int)n, MPI_BYTE, &st));
  CHECK_EQ(write_outcome(MPI_SUCCESS, &st, (int)n), MPI_SUCCESS);
  MPI_OK(MPI_File_sync(fh));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  int next = (rank + 1) % size;
  long m = length_of(next);
  unsigned char* back = malloc((size_t)m);
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  CHECK_EQ(pread(fd, back, (size_t)m, offset_of(next)), m);
  close(fd);
  for (long i = 0; i < m; ++i) {
    if (back[i] != byte_of(next, i, pass)) {
      fprintf(stderr, "pass %d (gasket_write_behind=%s): rank %d reads rank %d's byte %ld as 0x%02x, expected 0x%02x\n",
              pass, reported, rank, next, i, back[i], byte_of(next, i, pass));
      CHECK(0);
    }
  }
  free(back);
  free(data);
  MPI_OK(MPI_File_close(&fh));
}

/* (Rank 0 alone.) Its file size limit ends inside its third piece: the write fails, the first two pieces
 * are in the file. */
static void write_past_the_limit(void) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "gasket_write_behind", "4096");
  MPI_File fh;
  MPI_OK(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
  MPI_Info_free(&info);
  {
    long n = 8 * kPiece, limit = 2 * kPiece + 100;
    unsigned char* data = malloc((size_t)n);
    for (long i = 0; i < n; ++i) data[i] = byte_of(7, i, 9);
    MPI_OK(MPI_File_set_size(fh, 0));
    struct rlimit before = lower_file_size_limit(1, (rlim_t)limit);
    MPI_Status st;
    int rc = MPI_File_write_at(fh, 0, data, (int)n, MPI_BYTE, &st);
    restore_file_size_limit(1, &before);
    CHECK_EQ(write_outcome(rc, &st, (int)n), MPI_ERR_NO_SPACE);
    unsigned char back[2 * kPiece];
    int fd = open(path, O_RDONLY);
    CHECK(fd >= 0);
    CHECK_EQ(pread(fd, back, sizeof back, 0), (long)sizeof back);
    close(fd);
    CHECK_EQ(memcmp(back, data, sizeof back), 0);
    free(data);
  }
  MPI_OK(MPI_File_close(&fh));
}

static void bad_hint(void) {
  MPI_File fh;
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "gasket_write_behind", "-5");
  int rc = MPI_File_set_info(fh, info), cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_INFO_VALUE);
  MPI_Info_free(&info);
  check_hint(fh, "4194304");
  MPI_OK(MPI_File_close(&fh));
}

/* fsync of /dev/null fails (EINVAL): MPI_File_sync returns MPI_ERR_IO on every rank. */
static void sync_failure(void) {
  MPI_File fh;
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, "/dev/null", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  int rc = MPI_File_sync(fh), cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_IO);
  MPI_OK(MPI_File_close(&fh));
}

int main(int argc, char** argv) {
  start_io_job(&argc, &argv, "io_write_behind", &rank, &size, path, sizeof path);
  write_and_read_neighbour("4096", "4096", 1);
  write_and_read_neighbour("0", "0", 2);
  write_and_read_neighbour(NULL, "4194304", 3);
  bad_hint();
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) MPI_OK(MPI_File_delete(path, MPI_INFO_NULL));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  /* a file of rank 0's own for the limit case */
  snprintf(path + strlen(path), sizeof path - strlen(path), ".limit");
  if (rank == 0) write_past_the_limit();
  if (rank == 0) MPI_OK(MPI_File_delete(path, MPI_INFO_NULL));
  sync_failure();
  MPI_Finalize();
  return 0;
}
