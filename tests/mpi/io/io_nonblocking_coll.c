/* Non-blocking and split collective file access with collective buffering (MPI 4.1 sections
 * 14.4.3-14.4.5): MPI_File_iwrite_at_all / iwrite_all / iread_at_all / iread_all and the
 * _begin/_end pairs through interleaved views (every rank's access non-contiguous), with
 * romio_cb_write/read enabled, automatic, disabled, and through 3 aggregators; completed by
 * MPI_Test alone (the engine advances the two-phase steps), each file checked byte for byte
 * against a serial reference read with plain POSIX. Then the error of a non-blocking collective:
 * one rank passes a bad offset, every rank's MPI_Wait returns the class and the file's error
 * handler runs (not the communicator's); a bad handle (NULL request) is returned at the call.
 * Collective buffering also runs in small cb_buffer_size rounds. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io_job.h"

enum { B = 7, BLOCKS = 300 }; /* each rank: BLOCKS blocks of B bytes, dealt round robin */

static int rank, size;
static char path[4200];

/* The byte at file offset `at` of the interleaved file: owner rank, its block and place. */
static char expected_byte(long at, int salt) {
  long block = at / B, owner = block % size, k = block / size;
  return (char)(owner * 31 + k * 7 + (at % B) + salt);
}

static void fill_mine(char* buf, int salt) {
  for (long k = 0; k < BLOCKS; ++k) {
    for (long i = 0; i < B; ++i) buf[k * B + i] = expected_byte((k * size + rank) * B + i, salt);
  }
}

static void check_file(int salt) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0) return;
  long total = (long)size * BLOCKS * B;
  char* data = malloc((size_t)total);
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  CHECK_EQ(pread(fd, data, (size_t)total, 0), total);
  close(fd);
  for (long at = 0; at < total; ++at) {
    if (data[at] != expected_byte(at, salt)) {
      fprintf(stderr, "file byte %ld is %d, expected %d (salt %d)\n", at, data[at], expected_byte(at, salt), salt);
      CHECK(0);
    }
  }
  free(data);
}

/* Completes `req` by MPI_Test only, and checks the status's count. */
static void test_until_done(MPI_Request* req, long bytes) {
  int done = 0;
  MPI_Status st;
  while (!done) MPI_OK(MPI_Test(req, &done, &st));
  CHECK(*req == MPI_REQUEST_NULL);
  int count = -1;
  MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK_EQ(count, bytes);
}

static void round_trip(MPI_Info info, int salt) {
  MPI_Datatype blocks;
  MPI_OK(MPI_Type_vector(BLOCKS, B, B * size, MPI_BYTE, &blocks));
  MPI_Datatype filetype;
  MPI_OK(MPI_Type_create_resized(blocks, 0, (MPI_Aint)B * size * BLOCKS, &filetype));
  MPI_OK(MPI_Type_commit(&filetype));
  long mine = (long)BLOCKS * B;
  char* out = malloc((size_t)mine);
  char* back = malloc((size_t)mine);
  MPI_File fh;
  if (rank == 0) unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
  MPI_OK(MPI_File_set_view(fh, (MPI_Offset)rank * B, MPI_BYTE, filetype, "native", info));
  MPI_Request req;

  /* iwrite_at_all, then iread_at_all into a buffer of the wrong bytes. */
  fill_mine(out, salt);
  MPI_OK(MPI_File_iwrite_at_all(fh, 0, out, (int)mine, MPI_BYTE, &req));
  memset(out, 0, (size_t)mine); /* erroneous to touch it before completion... */
  fill_mine(out, salt);         /* ...so the same bytes are put back (the call copied them) */
  test_until_done(&req, mine);
  MPI_OK(MPI_File_sync(fh));
  check_file(salt);
  memset(back, 0, (size_t)mine);
  MPI_OK(MPI_File_iread_at_all(fh, 0, back, (int)mine, MPI_BYTE, &req));
  test_until_done(&req, mine);
  CHECK(memcmp(back, out, (size_t)mine) == 0);

  /* iwrite_all / iread_all through the individual pointer, in two halves. */
  fill_mine(out, salt + 1);
  long half = (BLOCKS / 2) * B;
  MPI_Request two[2];
  MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  MPI_OK(MPI_File_iwrite_all(fh, out, (int)half, MPI_BYTE, &two[0]));
  MPI_OK(MPI_File_iwrite_all(fh, out + half, (int)(mine - half), MPI_BYTE, &two[1]));
  MPI_OK(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
  MPI_OK(MPI_File_sync(fh));
  check_file(salt + 1);
  memset(back, 0, (size_t)mine);
  MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  MPI_OK(MPI_File_iread_all(fh, back, (int)half, MPI_BYTE, &two[0]));
  MPI_OK(MPI_File_iread_all(fh, back + half, (int)(mine - half), MPI_BYTE, &two[1]));
  MPI_OK(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
  CHECK(memcmp(back, out, (size_t)mine) == 0);

  /* Split collectives, with MPI calls (non-blocking point-to-point) between _begin and _end. */
  fill_mine(out, salt + 2);
  MPI_Status st;
  MPI_OK(MPI_File_write_at_all_begin(fh, 0, out, (int)mine, MPI_BYTE));
  int token = rank, got = -1;
  MPI_OK(MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 5, &got, 1, MPI_INT, (rank + size - 1) % size, 5,
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK_EQ(got, (rank + size - 1) % size);
  MPI_OK(MPI_File_write_at_all_end(fh, out, &st));
  MPI_OK(MPI_File_sync(fh));
  check_file(salt + 2);
  memset(back, 0, (size_t)mine);
  MPI_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
  MPI_OK(MPI_File_read_all_begin(fh, back, (int)mine, MPI_BYTE));
  MPI_OK(MPI_File_read_all_end(fh, back, &st));
  int count = -1;
  MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK_EQ(count, mine);
  CHECK(memcmp(back, out, (size_t)mine) == 0);

  /* Every rank reads the whole file (overlapping accesses) through a plain byte view. */
  long total = (long)size * BLOCKS * B;
  char* all = malloc((size_t)total);
  MPI_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", info));
  MPI_OK(MPI_File_iread_at_all(fh, 0, all, (int)total, MPI_BYTE, &req));
  test_until_done(&req, total);
  for (long at = 0; at < total; ++at) CHECK_EQ(all[at], expected_byte(at, salt + 2));
  /* Past the end of the file: the count stops there. */
  MPI_OK(MPI_File_iread_at_all(fh, total - 10, all, 100, MPI_BYTE, &req));
  test_until_done(&req, 10);
  free(all);

  MPI_OK(MPI_File_close(&fh));
  MPI_OK(MPI_Type_free(&filetype));
  MPI_OK(MPI_Type_free(&blocks));
  free(out);
  free(back);
}

static int handler_calls, handler_class;
static MPI_File handler_file;
static void on_file_error(MPI_File* fh, int* code, ...) {
  handler_calls++;
  handler_file = *fh;
  MPI_Error_class(*code, &handler_class);
}

/* Rank 1 (rank 0 alone) passes a negative offset to MPI_File_iwrite_at_all: the call returns,
 * and every rank's MPI_Wait fails with MPI_ERR_ARG through the file's handler. */
static void error_at_completion(void) {
  MPI_File fh;
  if (rank == 0) unlink(path);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
  MPI_Errhandler eh;
  MPI_OK(MPI_File_create_errhandler(on_file_error, &eh));
  MPI_OK(MPI_File_set_errhandler(fh, eh));
  char data[16] = "0123456789abcde";
  MPI_Request req;
  int bad = size > 1 ? 1 : 0;
  MPI_OK(MPI_File_iwrite_at_all(fh, rank == bad ? -3 : rank * 16, data, 16, MPI_BYTE, &req));
  MPI_Status st;
  int rc = MPI_Wait(&req, &st), cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_ARG);
  CHECK_EQ(handler_calls, 1);
  CHECK_EQ(handler_class, MPI_ERR_ARG);
  CHECK(handler_file == fh);
  CHECK(req == MPI_REQUEST_NULL);
  /* The file stays usable: a correct access afterwards succeeds on every rank. */
  MPI_OK(MPI_File_iwrite_at_all(fh, rank * 16, data, 16, MPI_BYTE, &req));
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_EQ(handler_calls, 1);
  /* A bad handle (a NULL request pointer) is that rank's error at the call, through the file's
   * handler; it still takes part, so the others' requests complete, failing with its class. */
  rc = MPI_File_iwrite_at_all(fh, rank * 16, data, 16, MPI_BYTE, rank == bad ? NULL : &req);
  MPI_Error_class(rc, &cls);
  if (rank == bad) {
    CHECK_EQ(cls, MPI_ERR_ARG);
  } else {
    CHECK_EQ(rc, MPI_SUCCESS);
    MPI_Error_class(MPI_Wait(&req, MPI_STATUS_IGNORE), &cls);
    CHECK_EQ(cls, MPI_ERR_ARG);
  }
  CHECK_EQ(handler_calls, 2);
  CHECK_EQ(handler_class, MPI_ERR_ARG);
  MPI_OK(MPI_File_iwrite_at_all(fh, rank * 16, data, 16, MPI_BYTE, &req));
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_EQ(handler_calls, 2);
  MPI_OK(MPI_File_close(&fh));
  MPI_OK(MPI_Errhandler_free(&eh));
}

int main(int argc, char** argv) {
  start_io_job(&argc, &argv, "io_nonblocking_coll", &rank, &size, path, sizeof path);
  /* romio_cb_write, romio_cb_read, cb_nodes, cb_buffer_size: the last two in small rounds (1000
   * and 300 bytes: the 7-byte blocks are cut across rounds, as blocking two-phase does). */
  const char* modes[][4] = {{"enable", "enable", NULL, NULL},  {"automatic", "automatic", NULL, NULL},
                            {"disable", "disable", NULL, NULL}, {"enable", "enable", "3", NULL},
                            {"enable", "enable", NULL, "1000"}, {"enable", "enable", "3", "300"}};
  for (int m = 0; m < 6; ++m) {
    MPI_Info info;
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, "romio_cb_write", modes[m][0]));
    MPI_OK(MPI_Info_set(info, "romio_cb_read", modes[m][1]));
    if (modes[m][2] != NULL) MPI_OK(MPI_Info_set(info, "cb_nodes", modes[m][2]));
    if (modes[m][3] != NULL) MPI_OK(MPI_Info_set(info, "cb_buffer_size", modes[m][3]));
    round_trip(info, 10 * m);
    MPI_OK(MPI_Info_free(&info));
  }
  error_at_completion();
  if (rank == 0) unlink(path);
  MPI_Finalize();
  if (rank == 0) printf("io_nonblocking_coll: %d ranks ok\n", size);
  return 0;
}
