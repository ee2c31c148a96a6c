/* Which ranks a file system error fails in a collective write (mpi/io/README.md, "Outcomes").
 * Rank r writes its own region [r * kLength, (r + 1) * kLength); one rank cannot write (its
 * RLIMIT_FSIZE is lowered, SIGXFSZ ignored, so its pwrite fails with EFBIG):
 *  A. every access contiguous, collective buffering automatic (each rank writes its own bytes):
 *     the last rank's write_at_all fails with MPI_ERR_NO_SPACE; every other rank's call succeeds
 *     with its full count and its bytes are in the file (compared byte for byte by rank 0); the
 *     failed rank's region stays unwritten. (Before, every rank's call failed.) The same through
 *     MPI_File_iwrite_at_all + MPI_Wait and MPI_File_write_at_all_begin/_end.
 *  B. collective buffering enabled, the failing rank not an aggregator (the last rank of a
 *     multi-rank job; aggregators are the lowest rank of each node): the aggregator writes every
 *     rank's bytes, so every call succeeds and the whole file is there.
 *  C. collective buffering enabled, the aggregator (rank 0) cannot write: every rank's call fails
 *     (two-phase agrees on its outcome: another rank's bytes were lost too); blocking,
 *     non-blocking and split.
 * The sync and close that follow work on every rank: nobody waits for the failed rank forever. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "io_job.h"

enum { kLength = 200000 };

static int rank, size;
static char path[4200];

static unsigned char byte_of(int r, long i, int part) { return (unsigned char)(1 + r * 37 + i * 11 + part * 5 + (i >> 10)); }

/* Rank 0: the file holds rank r's bytes for each r with written[r], and (being sparse or short)
 * zeros or nothing elsewhere. */
static void check_file(const int* written, int part) {
  if (rank != 0) return;
  long total = (long)size * kLength;
  unsigned char* data = calloc((size_t)total, 1);
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  CHECK(pread(fd, data, (size_t)total, 0) >= 0);
  close(fd);
  for (int r = 0; r < size; ++r) {
    for (long i = 0; i < kLength; ++i) {
      unsigned char want = written[r] ? byte_of(r, i, part) : 0;
      if (data[(long)r * kLength + i] != want) {
        fprintf(stderr, "part %c: rank %d's byte %ld is 0x%02x, expected 0x%02x\n", 'A' + part, r, i,
                data[(long)r * kLength + i], want);
        CHECK(0);
      }
    }
  }
  free(data);
}

enum How { kBlocking, kNonblocking, kSplit };

/* One collective write of every rank's region (blocking, non-blocking or split) where rank
 * `failing` cannot write past `limit` bytes; returns this rank's error class. */
static int write_with_one_failing(const char* cb, int failing, rlim_t limit, int part, enum How how) {
  MPI_Info info;
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "romio_cb_write", cb));
  if (rank == 0) unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File fh;
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
  unsigned char* data = malloc(kLength);
  for (long i = 0; i < kLength; ++i) data[i] = byte_of(rank, i, part);
  struct rlimit before = lower_file_size_limit(rank == failing, limit);
  MPI_Status st;
  MPI_Offset at = (MPI_Offset)rank * kLength;
  int rc;
  if (how == kBlocking) {
    rc = MPI_File_write_at_all(fh, at, data, kLength, MPI_BYTE, &st);
  } else if (how == kNonblocking) {
    MPI_Request request;
    MPI_OK(MPI_File_iwrite_at_all(fh, at, data, kLength, MPI_BYTE, &request));
    rc = MPI_Wait(&request, &st);
  } else {
    MPI_OK(MPI_File_write_at_all_begin(fh, at, data, kLength, MPI_BYTE));
    rc = MPI_File_write_at_all_end(fh, data, &st);
  }
  restore_file_size_limit(rank == failing, &before);
  int cls = write_outcome(rc, &st, kLength);
  MPI_OK(MPI_File_sync(fh));
  MPI_OK(MPI_File_close(&fh));
  MPI_OK(MPI_Info_free(&info));
  free(data);
  return cls;
}

int main(int argc, char** argv) {
  start_io_job(&argc, &argv, "io_collective_outcomes", &rank, &size, path, sizeof path);
  int* written = malloc(sizeof(int) * (size_t)size);
  int last = size - 1;

  /* A. Each rank writes its own bytes: only the last rank fails (blocking, non-blocking, split). */
  int cls;
  for (int how = kBlocking; how <= kSplit; ++how) {
    cls = write_with_one_failing("automatic", last, (rlim_t)last * kLength, 0, (enum How)how);
    if (cls != (rank == last ? MPI_ERR_NO_SPACE : MPI_SUCCESS)) {
      fprintf(stderr, "part A, write %d (0 blocking, 1 non-blocking, 2 split), rank %d: class %d\n", how, rank, cls);
      CHECK(0);
    }
    for (int r = 0; r < size; ++r) written[r] = r != last;
    check_file(written, 0);
  }

  if (size > 1) {
    /* B. Two-phase: the aggregator (rank 0) writes the last rank's bytes for it. */
    cls = write_with_one_failing("enable", last, (rlim_t)last * kLength, 1, kBlocking);
    CHECK_EQ(cls, MPI_SUCCESS);
    for (int r = 0; r < size; ++r) written[r] = 1;
    check_file(written, 1);

    /* C. Two-phase, the aggregator cannot write: every rank's call fails. */
    for (int how = kBlocking; how <= kSplit; ++how) {
      cls = write_with_one_failing("enable", 0, 0, 2, (enum How)how);
      CHECK_EQ(cls, MPI_ERR_NO_SPACE);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) unlink(path);
  free(written);
  MPI_Finalize();
  if (rank == 0) printf("io_collective_outcomes: %d ranks ok\n", size);
  return 0;
}
