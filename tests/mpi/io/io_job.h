/* The start of an MPI-IO test program: MPI_Init, this rank and the job's size, and a file name
 * shared by the job's ranks ($TEST_TMPDIR or /tmp, the program's name, rank 0's process id). */
#ifndef GASKET_TESTS_MPI_IO_IO_JOB_H_
#define GASKET_TESTS_MPI_IO_IO_JOB_H_

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../check.h"

static inline void start_io_job(int* argc, char*** argv, const char* name, int* rank, int* size, char* path,
                                size_t path_size) {
  MPI_OK(MPI_Init(argc, argv));
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  int job = (int)getpid();
  MPI_Bcast(&job, 1, MPI_INT, 0, MPI_COMM_WORLD);
  snprintf(path, path_size, "%s/%s.%d", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", name, job);
}

/* A rank that cannot write: when `lower`, this process's RLIMIT_FSIZE becomes `limit` until
 * restore_file_size_limit, and SIGXFSZ is ignored, so a pwrite past it fails with EFBIG instead of
 * ending the process. */
static inline struct rlimit lower_file_size_limit(int lower, rlim_t limit) {
  struct rlimit before;
  CHECK_EQ(getrlimit(RLIMIT_FSIZE, &before), 0);
  if (lower) {
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit lowered = {limit, before.rlim_max};
    CHECK_EQ(setrlimit(RLIMIT_FSIZE, &lowered), 0);
  }
  return before;
}
static inline void restore_file_size_limit(int lowered, const struct rlimit* before) {
  if (lowered) CHECK_EQ(setrlimit(RLIMIT_FSIZE, before), 0);
}

/* The error class of a write's return code `rc`; a success must have written `bytes` bytes. */
static inline int write_outcome(int rc, MPI_Status* st, int bytes) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  if (rc == MPI_SUCCESS) {
    int count = -1;
    MPI_OK(MPI_Get_count(st, MPI_BYTE, &count));
    CHECK_EQ(count, bytes);
  }
  return cls;
}

#endif
