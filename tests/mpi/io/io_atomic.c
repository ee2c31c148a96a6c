/* Two communicators (the two halves of the job, each standing for a job of its own) open the same
 * file at once (MPI 4.1 section 14.6):
 * - atomic mode: the first half's ranks all overwrite the same non-contiguous region again and
 *   again while the second half's ranks read it; every read must see one writer's bytes only, and
 *   the region ends as one writer's bytes;
 * - non-atomic mode: each writer fills its own part; after sync-barrier-sync the readers see
 *   every byte. With one rank the halves are the same rank, opening the file twice. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../check.h"

enum { BLOCKS = 64, BLOCK = 256, ROUNDS = 40 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char path[4200];
  int job = (int)getpid();
  MPI_Bcast(&job, 1, MPI_INT, 0, MPI_COMM_WORLD);
  snprintf(path, sizeof path, "%s/io_atomic.%d", getenv("TEST_TMPDIR") ? getenv("TEST_TMPDIR") : "/tmp", job);
  int writer = size == 1 || rank < size / 2;
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, size == 1 ? 0 : writer, rank, &half);
  int half_rank, half_size;
  MPI_Comm_rank(half, &half_rank);
  MPI_Comm_size(half, &half_size);
  /* The region: BLOCKS blocks of BLOCK bytes, a hole of BLOCK bytes after each. */
  MPI_Datatype ft;
  MPI_Type_vector(BLOCKS, BLOCK, 2 * BLOCK, MPI_BYTE, &ft);
  MPI_Type_commit(&ft);
  char* data = malloc(BLOCKS * BLOCK);
  char* seen = malloc(BLOCKS * BLOCK);
  MPI_Status st;

  /* The writers' half creates the file; then the readers' half opens it. Without data sieving each
   * block is a pwrite/pread of its own, so only the locks of atomic mode keep a read whole. */
  MPI_Info no_sieving;
  MPI_Info_create(&no_sieving);
  MPI_Info_set(no_sieving, "romio_ds_read", "disable");
  MPI_Info_set(no_sieving, "romio_ds_write", "disable");
  MPI_File wfh = MPI_FILE_NULL, rfh = MPI_FILE_NULL;
  if (writer) MPI_OK(MPI_File_open(half, path, MPI_MODE_RDWR | MPI_MODE_CREATE, no_sieving, &wfh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (!writer || size == 1) {
    MPI_OK(MPI_File_open(size == 1 ? MPI_COMM_SELF : half, path, MPI_MODE_RDWR, no_sieving, &rfh));
  }
  MPI_Info_free(&no_sieving);

  /* Atomic mode. */
  if (wfh != MPI_FILE_NULL) {
    MPI_OK(MPI_File_set_atomicity(wfh, 1));
    int flag = 0;
    MPI_OK(MPI_File_get_atomicity(wfh, &flag));
    CHECK_EQ(flag, 1);
    MPI_OK(MPI_File_set_view(wfh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
  }
  if (rfh != MPI_FILE_NULL) {
    MPI_OK(MPI_File_set_atomicity(rfh, 1));
    MPI_OK(MPI_File_set_view(rfh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
  }
  for (int round = 0; round < ROUNDS; ++round) {
    if (wfh != MPI_FILE_NULL) {
      memset(data, 1 + half_rank + 16 * (round % 8), BLOCKS * BLOCK);
      MPI_OK(MPI_File_write_at(wfh, 0, data, BLOCKS * BLOCK, MPI_BYTE, &st));
    }
    if (rfh != MPI_FILE_NULL) {
      MPI_OK(MPI_File_read_at(rfh, 0, seen, BLOCKS * BLOCK, MPI_BYTE, &st));
      int count;
      MPI_Get_count(&st, MPI_BYTE, &count);
      if (count == BLOCKS * BLOCK) {
        for (int i = 1; i < BLOCKS * BLOCK; ++i) {
          if (seen[i] != seen[0]) {
            fprintf(stderr, "rank %d: round %d: atomic read saw byte %d = %d after %d\n", rank, round, i, seen[i],
                    seen[0]);
            CHECK(0);
          }
        }
      }
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rfh != MPI_FILE_NULL) {
    MPI_OK(MPI_File_read_at(rfh, 0, seen, BLOCKS * BLOCK, MPI_BYTE, &st));
    for (int i = 1; i < BLOCKS * BLOCK; ++i) CHECK_EQ(seen[i], seen[0]);
    CHECK(seen[0] != 0);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* the check above is done before anyone writes again */

  /* Non-atomic mode: each writer its own blocks; sync-barrier-sync makes them visible. */
  if (wfh != MPI_FILE_NULL) {
    MPI_OK(MPI_File_set_atomicity(wfh, 0));
    for (int b = half_rank; b < BLOCKS; b += half_size) {
      memset(data, 'A' + b % 26, BLOCK);
      MPI_OK(MPI_File_write_at(wfh, (MPI_Offset)b * BLOCK, data, BLOCK, MPI_BYTE, &st));
    }
    MPI_OK(MPI_File_sync(wfh));
  }
  if (rfh != MPI_FILE_NULL) MPI_OK(MPI_File_set_atomicity(rfh, 0));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rfh != MPI_FILE_NULL) {
    MPI_OK(MPI_File_sync(rfh));
    MPI_OK(MPI_File_read_at(rfh, 0, seen, BLOCKS * BLOCK, MPI_BYTE, &st));
    for (int i = 0; i < BLOCKS * BLOCK; ++i) CHECK_EQ(seen[i], 'A' + (i / BLOCK) % 26);
  }
  if (wfh != MPI_FILE_NULL) MPI_OK(MPI_File_close(&wfh));
  if (rfh != MPI_FILE_NULL) MPI_OK(MPI_File_close(&rfh));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_OK(MPI_File_delete(path, MPI_INFO_NULL));
  MPI_Type_free(&ft);
  MPI_Comm_free(&half);
  free(data);
  free(seen);
  MPI_Finalize();
  if (rank == 0) printf("io_atomic: %d ranks ok\n", size);
  return 0;
}
