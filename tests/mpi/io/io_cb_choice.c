/* The path a collective write takes (mpi/io/README.md, "Choosing the path"): two-phase through the
 * aggregators, or each rank writing its own pieces. Every rank's view is a vector of kPieces pieces
 * interleaved with the other ranks' (piece k of rank r at file byte (k * size + r) * piece). Each
 * case is written with MPI_File_write_all and with MPI_File_iwrite_all + MPI_Wait, and checked
 * three ways:
 *  - MPI_File_get_info reports the path taken (gasket_cb_write_used) on every rank, and it is the
 *    one the rule gives (expected_path in io_job.h);
 *  - the file, read by rank 0 with pread, holds every rank's bytes (a serial image);
 *  - which ranks write: the write again with the last rank's RLIMIT_FSIZE at 0 (SIGXFSZ ignored).
 *    Each rank writing its own pieces: the last rank's call fails with MPI_ERR_NO_SPACE, the
 *    others succeed and their bytes are in the file, the last rank's are not. Two-phase: the last
 *    rank (never an aggregator: those are the lowest rank of each node) writes nothing itself,
 *    every call succeeds and the whole file is there.
 * Cases:
 *  A. 128 KiB pieces, automatic: each rank writes its own on one node; two-phase when the ranks
 *     span several nodes (the "-nodes" paths: 2 ranks per simulated node);
 *  B. 1000-byte pieces, automatic: two-phase (independently, each rank would sieve its whole range
 *     under an exclusive lock that overlaps every other rank's);
 *  C. A in atomic mode: two-phase;
 *  D. A with romio_cb_write=enable: two-phase; E. B with romio_cb_write=disable: each its own;
 *  F. 20 KiB pieces, automatic: as A (the rule's threshold is 16 KiB), each rank's independent
 *     write sieved (under 64 KiB) under an exclusive lock over its range, which overlaps the
 *     others': the read-modify-writes must not lose each other's bytes.
 * One rank: its pieces are one contiguous range, written by itself unless enabled. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_job.h"

enum { kPieces = 8, kLarge = 128 << 10, kMiddle = 20 << 10, kSmall = 1000 };

static int rank, size, nodes;
static char base[4200];

struct Case {
  char name;
  int piece;
  int atomic;
  const char* cb;  /* romio_cb_write */
};

static unsigned char byte_of(int r, long i, char name) { return (unsigned char)(1 + (r * 37 + i * 11 + name * 5 + (i >> 9)) % 251); }

/* The rule of mpi/io/README.md, "Choosing the path", for these views. */
static enum Path case_path(const struct Case* c) { return expected_path(c->cb, c->atomic, c->piece, size, nodes); }

/* Rank 0: the file holds every rank's pieces, except the last rank's (zeros or nothing) when
 * !last_written. */
static void check_file(const char* path, const struct Case* c, int last_written, int nonblocking) {
  if (rank != 0) return;
  long total = (long)size * kPieces * c->piece;
  unsigned char* data = calloc((size_t)total, 1);
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  CHECK(pread(fd, data, (size_t)total, 0) >= 0);
  close(fd);
  for (int r = 0; r < size; ++r) {
    for (long i = 0; i < (long)kPieces * c->piece; ++i) {
      long at = ((i / c->piece) * size + r) * c->piece + i % c->piece;
      unsigned char want = r == size - 1 && !last_written ? 0 : byte_of(r, i, c->name);
      if (data[at] != want) {
        fprintf(stderr, "case %c (%s, last rank %s): rank %d's byte %ld (file byte %ld) is 0x%02x, expected 0x%02x\n",
                c->name, nonblocking ? "iwrite_all" : "write_all", last_written ? "writing" : "limited", r, i, at,
                data[at], want);
        CHECK(0);
      }
    }
  }
  free(data);
}

/* One collective write of the case; with `limited`, the last rank's RLIMIT_FSIZE is 0 meanwhile.
 * Returns this rank's error class; *path gets the path the file reports. */
static int write_case(const struct Case* c, int nonblocking, int limited, enum Path* path) {
  char name[4300];
  snprintf(name, sizeof name, "%s.%c%d%d", base, c->name, nonblocking, limited);
  MPI_Info info;
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "romio_cb_write", c->cb));
  MPI_File fh;
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, info, &fh));
  MPI_OK(MPI_File_set_atomicity(fh, c->atomic));
  MPI_Datatype filetype;
  MPI_OK(MPI_Type_vector(kPieces, c->piece, c->piece * size, MPI_BYTE, &filetype));
  MPI_OK(MPI_Type_commit(&filetype));
  MPI_OK(MPI_File_set_view(fh, (MPI_Offset)rank * c->piece, MPI_BYTE, filetype, "native", MPI_INFO_NULL));
  int count = kPieces * c->piece;
  unsigned char* data = malloc((size_t)count);
  for (long i = 0; i < count; ++i) data[i] = byte_of(rank, i, c->name);

  int failing = limited && rank == size - 1;
  struct rlimit before = lower_file_size_limit(failing, 0);
  MPI_Status st;
  int rc;
  if (nonblocking) {
    MPI_Request request;
    MPI_OK(MPI_File_iwrite_all(fh, data, count, MPI_BYTE, &request));
    rc = MPI_Wait(&request, &st);
  } else {
    rc = MPI_File_write_all(fh, data, count, MPI_BYTE, &st);
  }
  restore_file_size_limit(failing, &before);
  int cls = write_outcome(rc, &st, count);
  *path = reported_path(fh, "gasket_cb_write_used");
  MPI_OK(MPI_File_sync(fh));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_File_sync(fh));
  int last_written = !limited || *path == kTwoPhase;
  check_file(name, c, last_written, nonblocking);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_File_close(&fh));
  MPI_OK(MPI_Type_free(&filetype));
  MPI_OK(MPI_Info_free(&info));
  free(data);
  return cls;
}

int main(int argc, char** argv) {
  start_io_job(&argc, &argv, "io_cb_choice", &rank, &size, base, sizeof base);
  nodes = count_nodes();

  const struct Case cases[] = {{'A', kLarge, 0, "automatic"},
                               {'B', kSmall, 0, "automatic"},
                               {'C', kLarge, 1, "automatic"},
                               {'D', kLarge, 0, "enable"},
                               {'E', kSmall, 0, "disable"},
                               {'F', kMiddle, 0, "automatic"}};
  int checked[2] = {0, 0};
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
    const struct Case* c = &cases[k];
    enum Path want = case_path(c);
    for (int nonblocking = 0; nonblocking <= 1; ++nonblocking) {
      for (int limited = 0; limited <= (size > 1); ++limited) {
        enum Path got;
        int cls = write_case(c, nonblocking, limited, &got);
        int want_class = limited && rank == size - 1 && want == kIndependent ? MPI_ERR_NO_SPACE : MPI_SUCCESS;
        if (got != want || cls != want_class) {
          fprintf(stderr,
                  "case %c (%s, %s, %d nodes), rank %d: path %s (expected %s), error class %d (expected %d)\n",
                  c->name, nonblocking ? "iwrite_all" : "write_all", limited ? "last rank limited" : "unlimited",
                  nodes, rank, kPathName[got], kPathName[want], cls, want_class);
          CHECK(0);
        }
      }
    }
    ++checked[want];
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) {
    printf("io_cb_choice: %d ranks on %d node(s): %d cases two-phase, %d each rank its own, bytes and writers checked\n",
           size, nodes, checked[kTwoPhase], checked[kIndependent]);
  }
  MPI_Finalize();
  return 0;
}
