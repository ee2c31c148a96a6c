/* Collective writes where every rank's access is one contiguous range (each rank writes its own
 * bytes, no collective buffering under "automatic") and MPI_File_sync: ranks write regions of
 * different sizes (some none, rank 0's over 3 MiB) placed in reverse rank order, by
 * MPI_File_write_at_all and by MPI_File_write_all through a contiguous view, with collective
 * buffering automatic and disabled; rank 0 compares the file byte for byte with a serial image,
 * and after sync-barrier-sync every rank reads its neighbour's region back collectively. A bad
 * offset on one rank fails the call on every rank (none waits for it forever). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_job.h"

static int rank, size;
static char path[4200];

static long length_of(int r) { return r % 3 == 1 ? 0 : 5000 + 777L * r + (r == 0 ? 3 << 20 : 0); }
static long offset_of(int r) { /* reverse rank order: the last rank's region comes first */
  long off = 0;
  for (int j = r + 1; j < size; ++j) off += length_of(j);
  return off;
}
static unsigned char byte_of(int r, long i, int pass) { return (unsigned char)(r * 31 + i * 7 + pass * 13 + (i >> 9)); }

static void check_file(long total, int pass) {
  if (rank != 0) return;
  unsigned char* data = malloc((size_t)total + 1);
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  CHECK_EQ(pread(fd, data, (size_t)total + 1, 0), total);
  close(fd);
  for (int r = 0; r < size; ++r) {
    for (long i = 0; i < length_of(r); ++i) {
      if (data[offset_of(r) + i] != byte_of(r, i, pass)) {
        fprintf(stderr, "pass %d: rank %d's byte %ld (file byte %ld) is 0x%02x, expected 0x%02x\n", pass, r, i,
                offset_of(r) + i, data[offset_of(r) + i], byte_of(r, i, pass));
        CHECK(0);
      }
    }
  }
  free(data);
}

int main(int argc, char** argv) {
  start_io_job(&argc, &argv, "io_contiguous_coll", &rank, &size, path, sizeof path);
  long total = offset_of(-1), mine = length_of(rank);
  unsigned char* data = malloc((size_t)mine + 1);
  int neighbour = (rank + 1) % size;
  unsigned char* back = malloc((size_t)length_of(neighbour) + 1);
  const char* modes[] = {"automatic", "disable"};
  for (int pass = 0; pass < 4; ++pass) {
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", modes[pass % 2]));
    MPI_OK(MPI_Info_set(info, "romio_cb_read", modes[pass % 2]));
    if (rank == 0) unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh;
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    for (long i = 0; i < mine; ++i) data[i] = byte_of(rank, i, pass);
    MPI_Status st;
    if (pass < 2) {
      MPI_OK(MPI_File_write_at_all(fh, offset_of(rank), data, (int)mine, MPI_BYTE, &st));
    } else {
      MPI_OK(MPI_File_set_view(fh, offset_of(rank), MPI_BYTE, MPI_BYTE, "native", info));
      MPI_OK(MPI_File_write_all(fh, data, (int)mine, MPI_BYTE, &st));
    }
    int count = -1;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK_EQ(count, mine);
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_File_sync(fh));
    MPI_Offset fsize = -1;
    MPI_OK(MPI_File_get_size(fh, &fsize));
    CHECK_EQ(fsize, total);
    check_file(total, pass);
    /* Every rank reads its neighbour's region (written by another process) collectively. */
    if (pass >= 2) MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info));
    memset(back, 0, (size_t)length_of(neighbour) + 1);
    MPI_OK(MPI_File_read_at_all(fh, offset_of(neighbour), back, (int)length_of(neighbour), MPI_BYTE, &st));
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK_EQ(count, length_of(neighbour));
    for (long i = 0; i < length_of(neighbour); ++i) CHECK_EQ(back[i], byte_of(neighbour, i, pass));
    /* A negative offset on the last rank: every rank's call fails, none hangs. */
    MPI_OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    int rc = MPI_File_write_at_all(fh, rank == size - 1 ? -1 : offset_of(rank), data, (int)mine, MPI_BYTE, &st);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    if (rank == size - 1) CHECK_EQ(cls, MPI_ERR_ARG);
    else CHECK(rc != MPI_SUCCESS);
    MPI_OK(MPI_File_close(&fh));
    MPI_OK(MPI_Info_free(&info));
  }
  if (rank == 0) unlink(path);
  free(back);
  free(data);
  MPI_Finalize();
  if (rank == 0) printf("io_contiguous_coll: %d ranks ok\n", size);
  return 0;
}
