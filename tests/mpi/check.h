/* Assertions for the MPI test programs: a failed check prints the rank, the file:line and the
 * expression, then ends the job (MPI_Abort), so a wrong value can never pass silently. */
#ifndef GASKET_TESTS_MPI_CHECK_H_
#define GASKET_TESTS_MPI_CHECK_H_

#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>

#include <mpi.h>

static int check_rank_(void) {
  int r = -1, init = 0;
  MPI_Initialized(&init);
  if (init) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

/* A value that names no object of the handle's kind: an erroneous argument the library must
 * refuse with the kind's error class. It names no handle of gasket's native mpi.h nor of the
 * standard ABI's (handles are ints in one, pointers in the other); libmpi_abi.so.1 passes it to
 * the native checks like any other handle. */
#define INVALID_HANDLE(Type, value) ((Type)(intptr_t)(value))

/* GASKET_MPI is defined by gasket's native mpi.h, not by the standard ABI's (tests/abi), which
 * has no MPI_Fint, no MPI_x_c2f/f2c and no native handle values: the parts of a program that
 * check those are native-only, each with its counterpart for the ABI where there is one. */

#define CHECK(cond)                                                                          \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", check_rank_(), __FILE__, __LINE__, #cond); \
      fflush(stderr);                                                                        \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
    }                                                                                        \
  } while (0)

#define CHECK_EQ(a, b)                                                                       \
  do {                                                                                       \
    long long va_ = (long long)(a), vb_ = (long long)(b);                                    \
    if (va_ != vb_) {                                                                        \
      fprintf(stderr, "rank %d: %s:%d: check failed: %s == %s (%lld != %lld)\n", check_rank_(), __FILE__, \
              __LINE__, #a, #b, va_, vb_);                                                   \
      fflush(stderr);                                                                        \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                          \
    }                                                                                        \
  } while (0)

#define MPI_OK(call) CHECK_EQ((call), MPI_SUCCESS)

/* MPI_Init_thread at the level argv[1] names (SINGLE, FUNNELED, SERIALIZED, MULTIPLE; MULTIPLE
 * when absent), checking the level provided. */
#include <string.h>
static inline void init_at_level_arg(int* argc, char*** argv) {
  static const char* const names[] = {"SINGLE", "FUNNELED", "SERIALIZED", "MULTIPLE"};
  const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE};
  int required = MPI_THREAD_MULTIPLE, provided = -1;
  for (int i = 0; *argc > 1 && i < 4; i++) {
    if (!strcmp((*argv)[1], names[i])) required = levels[i];
  }
  MPI_OK(MPI_Init_thread(argc, argv, required, &provided));
  CHECK_EQ(provided, required);
}

/* A test's prologue: init_at_level_arg, then this rank, the job's size and the level provided. */
static inline void init_test_at_level_arg(int* argc, char*** argv, int* rank, int* size, int* level) {
  init_at_level_arg(argc, argv);
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, size));
  MPI_OK(MPI_Query_thread(level));
}

/* The world split into its even and odd ranks (`*half`, this rank's side), joined by an
 * intercommunicator (`*inter`, leaders world ranks 0 and 1, made on `tag`). Returns the side:
 * 0 for the even ranks, 1 for the odd ones. */
static inline int even_odd_intercomm(int world_rank, int tag, MPI_Comm* half, MPI_Comm* inter) {
  int side = world_rank % 2;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, side, world_rank, half));
  MPI_OK(MPI_Intercomm_create(*half, 0, MPI_COMM_WORLD, 1 - side, tag, inter));
  return side;
}

/* `comm` holds the processes whose ranks in `ref` are ref_ranks[0..n), in that order, this one
 * among them (me: its rank in `ref`): its size, this process's place and an allreduce of the
 * ranks in `ref` are checked. */
static inline void check_comm_members(MPI_Comm comm, const int* ref_ranks, int n, int me) {
  int size, rank, sum = 0, expected = 0;
  MPI_OK(MPI_Comm_size(comm, &size));
  MPI_OK(MPI_Comm_rank(comm, &rank));
  CHECK_EQ(size, n);
  CHECK_EQ(ref_ranks[rank], me);
  for (int i = 0; i < n; i++) expected += ref_ranks[i];
  MPI_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, comm));
  CHECK_EQ(sum, expected);
}

/* Message k from rank src carries a known byte pattern: fill it at the sender, check every byte
 * at the receiver (the first wrong byte is reported with the message's identity). */
static inline unsigned char message_byte(int src, int k, int i) { return (unsigned char)(src * 31 + k * 11 + i * 5 + 3); }

static inline void fill_message(unsigned char* b, int n, int src, int k) {
  for (int i = 0; i < n; ++i) b[i] = message_byte(src, k, i);
}

static inline void check_message(const unsigned char* b, int n, int src, int k) {
  for (int i = 0; i < n; ++i) {
    if (b[i] != message_byte(src, k, i)) {
      fprintf(stderr, "rank %d: message %d from rank %d: byte %d of %d is %u, expected %u\n", check_rank_(), k, src,
              i, n, b[i], message_byte(src, k, i));
      fflush(stderr);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
}

#endif
