/* Every data access routine of MPI-IO, write and read form, int and _c counts (MPI 4.1 table
 * 14.1): each writes this rank's slot of K ints with its own values, the file is checked with
 * plain POSIX reads, and the matching read routine must return the values. Positions: explicit
 * offsets, the individual pointer (seek first), the shared pointer (ranks take turns, so rank r's
 * slot is the r-th), ordered access (rank order). argv[1]: the thread level (default MULTIPLE, where
 * a second thread meanwhile writes and reads a file of its own on MPI_COMM_SELF). */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"

enum { K = 300, ROUTINES = 28 };
static MPI_File fh;
static int rank, size;

/* write ? MPI_File_write<name> : MPI_File_read<name>, same arguments. */
#define BOTH(w, name, ...) ((w) ? MPI_File_write##name(__VA_ARGS__) : MPI_File_read##name(__VA_ARGS__))
#define IBOTH(w, name, ...) ((w) ? MPI_File_iwrite##name(__VA_ARGS__) : MPI_File_iread##name(__VA_ARGS__))

/* The shared pointer routines: ranks take turns from position 0. */
static int in_turn(int w, int which, int* buf, MPI_Status* st) {
  MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  int rc = MPI_SUCCESS;
  for (int turn = 0; turn < size; ++turn) {
    if (turn == rank) {
      MPI_Request req;
      switch (which) {
        case 0: rc = BOTH(w, _shared, fh, buf, K, MPI_INT, st); break;
        case 1: rc = BOTH(w, _shared_c, fh, buf, (MPI_Count)K, MPI_INT, st); break;
        case 2: rc = IBOTH(w, _shared, fh, buf, K, MPI_INT, &req); if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, st); break;
        default: rc = IBOTH(w, _shared_c, fh, buf, (MPI_Count)K, MPI_INT, &req); if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, st); break;
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return rc;
}

/* Routine `r` writes (w) or reads this rank's slot; returns the status through *st. */
static int routine(int r, int w, int* buf, MPI_Status* st, const char** name) {
  static const char* names[ROUTINES] = {
      "_at", "_at_c", "", "_c", "_at_all", "_at_all_c", "_all", "_all_c", "i_at", "i_at_c", "i", "i_c",
      "i_at_all", "i_at_all_c", "i_all", "i_all_c", "_at_all_begin/end", "_at_all_begin_c/end", "_all_begin/end",
      "_all_begin_c/end", "_ordered", "_ordered_c", "_ordered_begin/end", "_ordered_begin_c/end", "_shared",
      "_shared_c", "i_shared", "i_shared_c"};
  *name = names[r];
  MPI_Offset slot = (MPI_Offset)rank * K;
  MPI_Count kc = K;
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_SUCCESS;
  if (r == 2 || r == 3 || r == 6 || r == 7 || r == 10 || r == 11 || r == 14 || r == 15 || r == 18 || r == 19) {
    MPI_OK(MPI_File_seek(fh, slot, MPI_SEEK_SET));
  }
  if (r >= 20 && r <= 23) MPI_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
  switch (r) {
    case 0: return BOTH(w, _at, fh, slot, buf, K, MPI_INT, st);
    case 1: return BOTH(w, _at_c, fh, slot, buf, kc, MPI_INT, st);
    case 2: return BOTH(w, , fh, buf, K, MPI_INT, st);
    case 3: return BOTH(w, _c, fh, buf, kc, MPI_INT, st);
    case 4: return BOTH(w, _at_all, fh, slot, buf, K, MPI_INT, st);
    case 5: return BOTH(w, _at_all_c, fh, slot, buf, kc, MPI_INT, st);
    case 6: return BOTH(w, _all, fh, buf, K, MPI_INT, st);
    case 7: return BOTH(w, _all_c, fh, buf, kc, MPI_INT, st);
    case 8: rc = IBOTH(w, _at, fh, slot, buf, K, MPI_INT, &req); break;
    case 9: rc = IBOTH(w, _at_c, fh, slot, buf, kc, MPI_INT, &req); break;
    case 10: rc = IBOTH(w, , fh, buf, K, MPI_INT, &req); break;
    case 11: rc = IBOTH(w, _c, fh, buf, kc, MPI_INT, &req); break;
    case 12: rc = IBOTH(w, _at_all, fh, slot, buf, K, MPI_INT, &req); break;
    case 13: rc = IBOTH(w, _at_all_c, fh, slot, buf, kc, MPI_INT, &req); break;
    case 14: rc = IBOTH(w, _all, fh, buf, K, MPI_INT, &req); break;
    case 15: rc = IBOTH(w, _all_c, fh, buf, kc, MPI_INT, &req); break;
    case 16: rc = BOTH(w, _at_all_begin, fh, slot, buf, K, MPI_INT); return rc ? rc : BOTH(w, _at_all_end, fh, buf, st);
    case 17: rc = BOTH(w, _at_all_begin_c, fh, slot, buf, kc, MPI_INT); return rc ? rc : BOTH(w, _at_all_end, fh, buf, st);
    case 18: rc = BOTH(w, _all_begin, fh, buf, K, MPI_INT); return rc ? rc : BOTH(w, _all_end, fh, buf, st);
    case 19: rc = BOTH(w, _all_begin_c, fh, buf, kc, MPI_INT); return rc ? rc : BOTH(w, _all_end, fh, buf, st);
    case 20: return BOTH(w, _ordered, fh, buf, K, MPI_INT, st);
    case 21: return BOTH(w, _ordered_c, fh, buf, kc, MPI_INT, st);
    case 22: rc = BOTH(w, _ordered_begin, fh, buf, K, MPI_INT); return rc ? rc : BOTH(w, _ordered_end, fh, buf, st);
    case 23: rc = BOTH(w, _ordered_begin_c, fh, buf, kc, MPI_INT); return rc ? rc : BOTH(w, _ordered_end, fh, buf, st);
    default: return in_turn(w, r - 24, buf, st);
  }
  return rc == MPI_SUCCESS ? MPI_Wait(&req, st) : rc;
}

/* The second thread: independent accesses to its own file while the main thread runs the routines. */
static MPI_File own;
static volatile int stop_own;
static void* own_file_loop(void* arg) {
  (void)arg;
  int v[64], back[64];
  for (int round = 0; round < 200 && !stop_own; ++round) {
    for (int i = 0; i < 64; ++i) v[i] = round * 64 + i;
    MPI_Status st;
    MPI_OK(MPI_File_write_at(own, (round % 16) * (int)sizeof v, v, 64, MPI_INT, &st));
    MPI_OK(MPI_File_read_at(own, (round % 16) * (int)sizeof v, back, 64, MPI_INT, &st));
    CHECK_EQ(memcmp(v, back, sizeof v), 0);
  }
  return NULL;
}

int main(int argc, char** argv) {
  init_at_level_arg(&argc, &argv);
  int level;
  MPI_Query_thread(&level);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[4200];
  int job = (int)getpid();
  MPI_Bcast(&job, 1, MPI_INT, 0, MPI_COMM_WORLD);
  snprintf(path, sizeof path, "%s/io_routines.%d", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", job);
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                       MPI_INFO_NULL, &fh));
  MPI_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
  pthread_t helper;
  if (level == MPI_THREAD_MULTIPLE) {
    char own_path[4300];
    snprintf(own_path, sizeof own_path, "%s.own%d", path, rank);
    MPI_OK(MPI_File_open(MPI_COMM_SELF, own_path, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &own));
    CHECK_EQ(pthread_create(&helper, NULL, own_file_loop, NULL), 0);
  }
  int mine[K], back[K], file[K];
  for (int r = 0; r < ROUTINES; ++r) {
    const char* name;
    MPI_Status st;
    int count = -1;
    MPI_OK(MPI_File_set_size(fh, 0));
    for (int i = 0; i < K; ++i) mine[i] = r * 1000000 + rank * K + i;
    int rc = routine(r, 1, mine, &st, &name);
    if (rc != MPI_SUCCESS) fprintf(stderr, "rank %d: MPI_File_write%s returned %d\n", rank, name, rc);
    MPI_OK(rc);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_EQ(count, K);
    MPI_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_File_sync(fh));
    int fd = open(path, O_RDONLY); /* the serial reference: this rank's slot as POSIX reads it */
    CHECK(fd >= 0);
    CHECK_EQ(pread(fd, file, sizeof file, (off_t)rank * sizeof file), (long)sizeof file);
    close(fd);
    if (memcmp(file, mine, sizeof mine) != 0) {
      fprintf(stderr, "rank %d: MPI_File_write%s: the file's bytes differ\n", rank, name);
      CHECK(0);
    }
    memset(back, 0, sizeof back);
    rc = routine(r, 0, back, &st, &name);
    if (rc != MPI_SUCCESS) fprintf(stderr, "rank %d: MPI_File_read%s returned %d\n", rank, name, rc);
    MPI_OK(rc);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK_EQ(count, K);
    if (memcmp(back, mine, sizeof mine) != 0) {
      fprintf(stderr, "rank %d: MPI_File_read%s: the values differ\n", rank, name);
      CHECK(0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (level == MPI_THREAD_MULTIPLE) {
    stop_own = 1;
    CHECK_EQ(pthread_join(helper, NULL), 0);
    MPI_OK(MPI_File_close(&own));
  }
  MPI_OK(MPI_File_close(&fh));
  MPI_Finalize();
  if (rank == 0) printf("io_routines: %d routines x 2 on %d ranks ok\n", ROUTINES, size);
  return 0;
}
