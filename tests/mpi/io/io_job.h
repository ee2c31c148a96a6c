/* The start of an MPI-IO test program: MPI_Init, this rank and the job's size, and a file name
 * shared by the job's ranks ($TEST_TMPDIR or /tmp, the program's name, rank 0's process id). */
#ifndef GASKET_TESTS_MPI_IO_IO_JOB_H_
#define GASKET_TESTS_MPI_IO_IO_JOB_H_

#include <stdio.h>
#include <stdlib.h>
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

#endif
