/* MPI-IO, file manipulation (MPI 4.1 section 14.2): open/close/delete, sizes, group, amode, info
 * hints, sync, access modes, and the error class of every failure; file error handlers. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"

static char path[4096], other[4096];

#define CHECK_CLASS(call, cls)            \
  do {                                    \
    int rc_ = (call), class_ = -1;        \
    MPI_Error_class(rc_, &class_);        \
    CHECK_EQ(class_, (cls));              \
  } while (0)

static int handler_calls, handler_code;
static void count_errors(MPI_File* fh, int* code, ...) {
  (void)fh;
  ++handler_calls;
  handler_code = *code;
}

static int same_extent(MPI_Datatype type, MPI_Aint* extent, void* extra) {
  (void)extra;
  MPI_Aint lb;
  return MPI_Type_get_extent(type, &lb, extent);
}

static void check_hint(MPI_Info info, const char* key, const char* want) {
  char value[MPI_MAX_INFO_VAL + 1];
  int flag = 0;
  MPI_OK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag));
  CHECK(flag);
  if (strcmp(value, want) != 0) {
    fprintf(stderr, "hint %s is \"%s\", expected \"%s\"\n", key, value, want);
    CHECK(0);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* dir = getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp";
  int id = (int)getpid();
  MPI_Bcast(&id, 1, MPI_INT, 0, MPI_COMM_WORLD);
  snprintf(path, sizeof path, "%s/io_files.%d", dir, id);
  snprintf(other, sizeof other, "%s/io_files_other.%d", dir, id);
  MPI_File fh;

  /* "fatal": under MPI_ERRORS_ARE_FATAL a bad offset ends the job with a message naming the
   * call, the rank, the file and the value (io_files_fatal in BUILD). */
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
    MPI_OK(MPI_File_set_errhandler(fh, MPI_ERRORS_ARE_FATAL));
    char byte = 0;
    if (rank == size - 1) MPI_File_write_at(fh, -5, &byte, 1, MPI_CHAR, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
  }

  /* MPI_FILE_NULL's handler is MPI_ERRORS_RETURN. */
  MPI_Errhandler eh;
  MPI_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
  CHECK_EQ(eh, MPI_ERRORS_RETURN);
  MPI_Errhandler_free(&eh);

  /* Failures of open, each with its class. */
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_EXCL, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh),
              MPI_ERR_AMODE);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, dir, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_BAD_FILE);
  if (size > 1) {
    int amode = rank == 0 ? MPI_MODE_RDWR | MPI_MODE_CREATE : MPI_MODE_RDWR;
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh), MPI_ERR_NOT_SAME);
  }
  /* Regression (open_bad_argument_on_one_rank): a NULL name on one rank made the others wait
   * forever in the collective open; now every rank fails with the bad rank's class. */
  if (size > 1) {
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, rank == 1 ? NULL : path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                              &fh), MPI_ERR_ARG);
  }
  CHECK_EQ(access(path, F_OK), -1); /* nothing was created */
  char below_file[4200];
  snprintf(below_file, sizeof below_file, "%s/x", "/dev/null");
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, below_file, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
              MPI_ERR_NO_SUCH_FILE);
  CHECK_CLASS(MPI_File_get_amode(MPI_FILE_NULL, &id), MPI_ERR_FILE);
  CHECK_CLASS(MPI_File_get_amode(INVALID_HANDLE(MPI_File, 12345), &id), MPI_ERR_FILE);

  /* Create, then the properties. */
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "cb_buffer_size", "1048576");
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "striping_factor", "4");
  MPI_Info_set(info, "striping_unit", "65536");
  MPI_Info_set(info, "some_unknown_key", "ignored");
  int amode = MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL;
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, amode, info, &fh));
  CHECK(fh != MPI_FILE_NULL);
  CHECK_EQ(MPI_File_fromint(MPI_File_toint(fh)), fh);
#ifdef GASKET_MPI /* the standard ABI leaves c2f/f2c to the Fortran layer */
  CHECK_EQ(MPI_File_f2c(MPI_File_c2f(fh)), fh);
#endif
  MPI_Info_free(&info);
  int got_amode = 0;
  MPI_OK(MPI_File_get_amode(fh, &got_amode));
  CHECK_EQ(got_amode, amode);
  MPI_Group group, world;
  int cmp = -1;
  MPI_OK(MPI_File_get_group(fh, &group));
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_compare(group, world, &cmp);
  CHECK_EQ(cmp, MPI_IDENT);
  MPI_Group_free(&group);
  MPI_Group_free(&world);
  MPI_Offset fsize = -1;
  MPI_OK(MPI_File_get_size(fh, &fsize));
  CHECK_EQ(fsize, 0);
  MPI_Info used;
  MPI_OK(MPI_File_get_info(fh, &used));
  check_hint(used, "cb_buffer_size", "1048576");
  check_hint(used, "romio_cb_write", "enable");
  check_hint(used, "romio_cb_read", "automatic");
  check_hint(used, "striping_factor", "4");
  check_hint(used, "striping_unit", "65536");
  check_hint(used, "cb_nodes", "0");
  MPI_Info_free(&used);
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_ds_read", "disable");
  MPI_Info_set(info, "cb_nodes", "2");
  MPI_OK(MPI_File_set_info(fh, info));
  MPI_Info_free(&info);
  MPI_OK(MPI_File_get_info(fh, &used));
  check_hint(used, "romio_ds_read", "disable");
  check_hint(used, "cb_nodes", "2");
  check_hint(used, "cb_buffer_size", "1048576"); /* kept */
  MPI_Info_free(&used);
  MPI_Info_create(&info);
  MPI_Info_set(info, "romio_cb_read", "maybe");
  CHECK_CLASS(MPI_File_set_info(fh, info), MPI_ERR_INFO_VALUE);
  MPI_Info_free(&info);

  /* Exists, in use. */
  MPI_File fh2;
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &fh2), MPI_ERR_FILE_EXISTS);
  CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY | MPI_MODE_UNIQUE_OPEN, MPI_INFO_NULL, &fh2),
              MPI_ERR_FILE_IN_USE);
  CHECK_CLASS(MPI_File_delete(path, MPI_INFO_NULL), MPI_ERR_FILE_IN_USE);

  /* Sizes: set_size grows and shrinks, preallocate only grows. */
  MPI_OK(MPI_File_set_size(fh, 1000));
  MPI_OK(MPI_File_get_size(fh, &fsize));
  CHECK_EQ(fsize, 1000);
  MPI_OK(MPI_File_preallocate(fh, 2000));
  MPI_OK(MPI_File_get_size(fh, &fsize));
  CHECK_EQ(fsize, 2000);
  MPI_OK(MPI_File_preallocate(fh, 10));
  MPI_OK(MPI_File_get_size(fh, &fsize));
  CHECK_EQ(fsize, 2000);
  MPI_OK(MPI_File_set_size(fh, 100));
  MPI_OK(MPI_File_get_size(fh, &fsize));
  CHECK_EQ(fsize, 100);
  CHECK_CLASS(MPI_File_set_size(fh, -1), MPI_ERR_ARG);
  if (size > 1) CHECK_CLASS(MPI_File_set_size(fh, rank), MPI_ERR_NOT_SAME);

  /* Each rank writes its 16 bytes; after sync + barrier + sync every rank reads every rank's. */
  char mine[16], theirs[16];
  memset(mine, 'a' + rank, sizeof mine);
  MPI_Status st;
  MPI_OK(MPI_File_write_at(fh, rank * 16, mine, 16, MPI_CHAR, &st));
  int count = -1;
  MPI_Get_count(&st, MPI_CHAR, &count);
  CHECK_EQ(count, 16);
  MPI_OK(MPI_File_sync(fh));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_File_sync(fh));
  for (int r = 0; r < size; ++r) {
    MPI_OK(MPI_File_read_at(fh, r * 16, theirs, 16, MPI_CHAR, &st));
    for (int i = 0; i < 16; ++i) CHECK_EQ(theirs[i], 'a' + r);
  }
  /* Bad arguments of a data access. */
  CHECK_CLASS(MPI_File_write_at(fh, -5, mine, 1, MPI_CHAR, &st), MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_write_at(fh, 0, mine, -1, MPI_CHAR, &st), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_File_write_at(fh, 0, mine, 1, MPI_DATATYPE_NULL, &st), MPI_ERR_TYPE);
  CHECK_CLASS(MPI_File_write_at(fh, 0, NULL, 1, MPI_CHAR, &st), MPI_ERR_BUFFER);
  CHECK_CLASS(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
  /* A collective access with a bad argument on one rank fails on every rank (no rank waits). */
  CHECK_CLASS(MPI_File_write_at_all(fh, 0, mine, rank == size - 1 ? -1 : 1, MPI_CHAR, &st), MPI_ERR_COUNT);
  CHECK_CLASS(MPI_File_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "no-such-rep", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
  CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_CHAR, "native", MPI_INFO_NULL), MPI_ERR_TYPE);

  /* A file error handler: called with the class, and by MPI_File_call_errhandler. */
  MPI_Errhandler counting;
  MPI_OK(MPI_File_create_errhandler(count_errors, &counting));
  MPI_OK(MPI_File_set_errhandler(fh, counting));
  CHECK_EQ(MPI_File_write_at(fh, -5, mine, 1, MPI_CHAR, &st), MPI_ERR_ARG);
  CHECK_EQ(handler_calls, 1);
  CHECK_EQ(handler_code, MPI_ERR_ARG);
  MPI_OK(MPI_File_call_errhandler(fh, MPI_ERR_IO));
  CHECK_EQ(handler_calls, 2);
  CHECK_EQ(handler_code, MPI_ERR_IO);
  MPI_OK(MPI_File_get_errhandler(fh, &eh));
  CHECK_EQ(eh, counting);
  MPI_Errhandler_free(&eh);
  MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, counting)); /* open and delete report there */
  CHECK_EQ(MPI_File_delete(other, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
  CHECK_EQ(handler_calls, 3);
  CHECK_EQ(handler_code, MPI_ERR_NO_SUCH_FILE);
  MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  MPI_OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
  MPI_Errhandler_free(&counting);
  MPI_OK(MPI_File_close(&fh));
  CHECK_EQ(fh, MPI_FILE_NULL);

  /* Read-only and write-only files refuse the other direction. */
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
  CHECK_CLASS(MPI_File_write_at(fh, 0, mine, 1, MPI_CHAR, &st), MPI_ERR_READ_ONLY);
  CHECK_CLASS(MPI_File_set_size(fh, 10), MPI_ERR_READ_ONLY);
  MPI_OK(MPI_File_read_at(fh, 0, theirs, 16, MPI_CHAR, &st));
  CHECK_EQ(theirs[0], 'a');
  MPI_OK(MPI_File_close(&fh));
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
  CHECK_CLASS(MPI_File_read_at(fh, 0, theirs, 1, MPI_CHAR, &st), MPI_ERR_ACCESS);
  MPI_OK(MPI_File_close(&fh));

  /* Append: both pointers start at the end (in etypes of the default view: bytes). */
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_APPEND, MPI_INFO_NULL, &fh));
  MPI_Offset pos = -1;
  MPI_Offset end = 16 * size > 100 ? 16 * size : 100; /* the ranks' writes may have grown it */
  MPI_OK(MPI_File_get_position(fh, &pos));
  CHECK_EQ(pos, end);
  MPI_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK_EQ(pos, end);
  MPI_OK(MPI_File_close(&fh));

  /* Delete, twice. */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_OK(MPI_File_delete(path, MPI_INFO_NULL));
    CHECK_CLASS(MPI_File_delete(path, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  /* Delete on close; sequential files only take the shared pointer. */
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path,
                       MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_SEQUENTIAL,
                       MPI_INFO_NULL, &fh));
  CHECK_CLASS(MPI_File_write_at(fh, 0, mine, 1, MPI_CHAR, &st), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_CLASS(MPI_File_write(fh, mine, 1, MPI_CHAR, &st), MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK_CLASS(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION);
  MPI_OK(MPI_File_write_shared(fh, mine, 16, MPI_CHAR, &st));
  MPI_OK(MPI_File_write_ordered(fh, mine, 16, MPI_CHAR, &st));
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_OK(MPI_File_get_position_shared(fh, &pos));
  CHECK_EQ(pos, 32 * size);
  MPI_OK(MPI_File_get_size(fh, &fsize));
  CHECK_EQ(fsize, 32 * size);
  MPI_OK(MPI_File_close(&fh));
  CHECK_EQ(access(path, F_OK), -1);

  /* No space: a write to /dev/full. */
  if (rank == 0) {
    MPI_OK(MPI_File_open(MPI_COMM_SELF, "/dev/full", MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    CHECK_CLASS(MPI_File_write_at(fh, 0, mine, 16, MPI_CHAR, &st), MPI_ERR_NO_SPACE);
    MPI_OK(MPI_File_close(&fh));
  }

  /* Data representations: the predefined names and a second registration are refused. */
  CHECK_CLASS(MPI_Register_datarep("external32", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, same_extent, NULL),
              MPI_ERR_DUP_DATAREP);
  MPI_OK(MPI_Register_datarep("io_files_rep", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, same_extent, NULL));
  CHECK_CLASS(MPI_Register_datarep("io_files_rep", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, same_extent, NULL),
              MPI_ERR_DUP_DATAREP);
  CHECK_CLASS(MPI_Register_datarep("io_files_rep2", MPI_CONVERSION_FN_NULL, MPI_CONVERSION_FN_NULL, NULL, NULL),
              MPI_ERR_ARG);
  MPI_Finalize();
  if (rank == 0) printf("io_files: %d ranks ok\n", size);
  return 0;
}
