/* MPI-IO (MPI 4.1 sections 14.2.1, 14.3, 14.7): a filetype with overlapping regions is a valid
 * view of a file opened read-only (only a file opened for writing needs a view without
 * overlaps), its bytes read as the typemap orders them; and a failing MPI_File_open calls the
 * error handler set on MPI_FILE_NULL. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"

static int rank, size;

static int class_of(int rc) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  return cls;
}

/* Two blocks of 4 ints, the second starting 2 ints into the first: ints 0-3 then 2-5 of each
 * 6-int tile. */
static MPI_Datatype overlapping_filetype(void) {
  int lengths[2] = {4, 4};
  MPI_Aint displacements[2] = {0, 2 * sizeof(int)};
  MPI_Datatype t, resized;
  MPI_OK(MPI_Type_create_hindexed(2, lengths, displacements, MPI_INT, &t));
  MPI_OK(MPI_Type_create_resized(t, 0, 6 * sizeof(int), &resized));
  MPI_OK(MPI_Type_free(&t));
  MPI_OK(MPI_Type_commit(&resized));
  return resized;
}

static void check_overlapping_view(const char* path) {
  enum { kInts = 64 };
  MPI_File fh;
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  if (rank == 0) {
    int data[kInts];
    for (int i = 0; i < kInts; ++i) data[i] = 1000 + i;
    MPI_OK(MPI_File_write_at(fh, 0, data, kInts, MPI_INT, MPI_STATUS_IGNORE));
  }
  /* Count 0 of MPI_DATATYPE_NULL moves nothing, independently and collectively. */
  MPI_Status st;
  MPI_Request rq;
  int count = -1;
  MPI_OK(MPI_File_write_at(fh, 0, NULL, 0, MPI_DATATYPE_NULL, &st));
  MPI_OK(MPI_File_write_at_all(fh, 0, NULL, 0, MPI_DATATYPE_NULL, &st));
  MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK_EQ(count, 0);
  MPI_OK(MPI_File_iwrite_at(fh, 0, NULL, 0, MPI_DATATYPE_NULL, &rq));
  MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  MPI_OK(MPI_File_close(&fh));

  MPI_Datatype filetype = overlapping_filetype();
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, filetype, "native", MPI_INFO_NULL));
  MPI_OK(MPI_File_read_at_all(fh, 0, NULL, 0, MPI_DATATYPE_NULL, MPI_STATUS_IGNORE));
  /* Three tiles (24 ints of view), read by each rank independently and collectively. */
  for (int collective = 0; collective < 2; ++collective) {
    int got[24];
    MPI_Status status;
    memset(got, 0xff, sizeof got);
    if (collective) {
      MPI_OK(MPI_File_read_at_all(fh, 0, got, 24, MPI_INT, &status));
    } else {
      MPI_OK(MPI_File_read_at(fh, 0, got, 24, MPI_INT, &status));
    }
    int count = -1;
    MPI_OK(MPI_Get_count(&status, MPI_INT, &count));
    CHECK_EQ(count, 24);
    for (int tile = 0; tile < 3; ++tile) {
      for (int i = 0; i < 8; ++i) {
        int file_int = 6 * tile + (i < 4 ? i : i - 2);
        CHECK_EQ(got[8 * tile + i], 1000 + file_int);
      }
    }
  }
  MPI_OK(MPI_File_close(&fh));

  /* For writing, the overlaps stay erroneous: MPI_ERR_TYPE, on every rank. */
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
  CHECK_EQ(class_of(MPI_File_set_view(fh, 0, MPI_INT, filetype, "native", MPI_INFO_NULL)), MPI_ERR_TYPE);
  MPI_OK(MPI_File_close(&fh));

  /* Decreasing displacements are refused whatever the mode. */
  int lengths[2] = {1, 1};
  MPI_Aint displacements[2] = {4 * sizeof(int), 0};
  MPI_Datatype decreasing;
  MPI_OK(MPI_Type_create_hindexed(2, lengths, displacements, MPI_INT, &decreasing));
  MPI_OK(MPI_Type_commit(&decreasing));
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_EQ(class_of(MPI_File_set_view(fh, 0, MPI_INT, decreasing, "native", MPI_INFO_NULL)), MPI_ERR_TYPE);
  MPI_OK(MPI_File_close(&fh));
  MPI_OK(MPI_Type_free(&decreasing));
  MPI_OK(MPI_Type_free(&filetype));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_OK(MPI_File_delete(path, MPI_INFO_NULL));
}

static int handler_calls = 0, handler_code = -1;
static MPI_File handler_file = 12345;
static void record_file_error(MPI_File* fh, int* code, ...) {
  ++handler_calls;
  handler_code = *code;
  handler_file = *fh;
}

static void check_open_error_handler(const char* path) {
  char missing[600];
  snprintf(missing, sizeof missing, "%s.no-such-dir/file", path);
  MPI_Errhandler eh, before;
  MPI_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &before));
  CHECK(before == MPI_ERRORS_RETURN); /* the initial handler of MPI_FILE_NULL */
  MPI_OK(MPI_Errhandler_free(&before));
  MPI_OK(MPI_File_create_errhandler(record_file_error, &eh));
  MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
  MPI_File fh = MPI_FILE_NULL;
  int rc = MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK_EQ(class_of(rc), MPI_ERR_NO_SUCH_FILE);
  CHECK_EQ(handler_calls, 1);
  CHECK_EQ(class_of(handler_code), MPI_ERR_NO_SUCH_FILE);
  CHECK_EQ(handler_file, MPI_FILE_NULL);
  CHECK_EQ(fh, MPI_FILE_NULL);
  /* A bad amode (read-only and write-only together) goes there too. */
  rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  CHECK_EQ(class_of(rc), MPI_ERR_AMODE);
  CHECK_EQ(handler_calls, 2);
  CHECK_EQ(class_of(handler_code), MPI_ERR_AMODE);
  /* The handler holds its own reference: freeing the handle keeps it set. */
  MPI_OK(MPI_Errhandler_free(&eh));
  /* MPI_MODE_EXCL on a file that exists: the creating rank fails, every rank reports it. */
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  MPI_OK(MPI_File_close(&fh));
  rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  CHECK_EQ(class_of(rc), MPI_ERR_FILE_EXISTS);
  CHECK_EQ(handler_calls, 3);
  /* Not a communicator. */
  rc = MPI_File_open(MPI_COMM_NULL, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  CHECK_EQ(class_of(rc), MPI_ERR_COMM);
  CHECK_EQ(handler_calls, 4);
  CHECK_EQ(handler_file, MPI_FILE_NULL);
  MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_OK(MPI_File_delete(path, MPI_INFO_NULL));
}

int main(int argc, char** argv) {
  char path[512];
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  int job = (int)getpid(); /* rank 0's: one file name for the job */
  MPI_OK(MPI_Bcast(&job, 1, MPI_INT, 0, MPI_COMM_WORLD));
  snprintf(path, sizeof path, "%s/file_view_open.%d", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", job);
  check_overlapping_view(path);
  check_open_error_handler(path);
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("file_view_open: %d ranks passed\n", size);
  return 0;
}
