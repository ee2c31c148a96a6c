/* The start of an MPI-IO test program: MPI_Init, this rank and the job's size, and a file name
 * shared by the job's ranks ($TEST_TMPDIR or /tmp, the program's name, rank 0's process id). */
#ifndef GASKET_TESTS_MPI_IO_IO_JOB_H_
#define GASKET_TESTS_MPI_IO_IO_JOB_H_

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The path a collective access took (mpi/io/README.md, "Choosing the path"). */
enum Path { kTwoPhase, kIndependent };
static const char* const kPathName[] = {"two-phase", "independent"};

/* The path the rule gives a collective access with romio_cb_* = `cb` whose ranks' pieces average
 * `piece` bytes and are not one contiguous range per rank, on `size` ranks spread over `nodes`. */
static inline enum Path expected_path(const char* cb, int atomic, long piece, int size, int nodes) {
  if (strcmp(cb, "enable") == 0) return kTwoPhase;
  if (strcmp(cb, "disable") == 0 || size == 1) return kIndependent;
  return nodes == 1 && !atomic && piece >= (16 << 10) ? kIndependent : kTwoPhase;
}

/* The path the file's last collective read or write took, as MPI_File_get_info reports it under
 * `key` (gasket_cb_read_used / gasket_cb_write_used). */
static inline enum Path reported_path(MPI_File fh, const char* key) {
  MPI_Info used;
  MPI_OK(MPI_File_get_info(fh, &used));
  char value[64] = "";
  int found = 0;
  MPI_OK(MPI_Info_get(used, key, (int)sizeof value - 1, value, &found));
  MPI_OK(MPI_Info_free(&used));
  CHECK(found);
  if (strcmp(value, kPathName[kTwoPhase]) == 0) return kTwoPhase;
  CHECK(strcmp(value, kPathName[kIndependent]) == 0);
  return kIndependent;
}

/* The nodes of the job: its MPI_COMM_TYPE_SHARED groups. */
static inline int count_nodes(void) {
  int rank, node_rank, leader, nodes = 0;
  MPI_Comm node;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  MPI_Comm_rank(node, &node_rank);
  leader = node_rank == 0;
  MPI_OK(MPI_Allreduce(&leader, &nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  MPI_OK(MPI_Comm_free(&node));
  return nodes;
}

#endif
