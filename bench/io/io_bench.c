/* Collective MPI-IO bandwidth of a 3-D block-distributed array of doubles (darray file view):
 * MPI_File_write_at_all + MPI_File_sync and MPI_File_read_at_all, next to the file system's own
 * sequential bandwidth measured in the same run (rank 0 alone: pwrite of the same bytes in 4 MiB
 * pieces + fsync, then pread) — a dd-like floor, one writer — and the file system with as many
 * writers as ranks (each rank pwrites its 1/size of a new file in one call and fsyncs it, as the
 * collective write does when every rank's part is contiguous). A standard MPI program: it builds with Open MPI
 * and MPICH too (io_compare.sh). Prints "operation bytes MB/s" lines (median of the repetitions)
 * and checks every byte read back.
 *   io_bench [edge (default 160: 160^3 doubles = 31 MiB)] [repetitions (default 5)] [directory]
 *            [hints: key=value,key=value... given to MPI_File_open, e.g. cb_nodes=2,cb_buffer_size=16777216] */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/common/bench_results.h"
#include "bench/io/io_darray.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int edge = argc > 1 ? atoi(argv[1]) : 160, reps = argc > 2 ? atoi(argv[2]) : 5;
  const char* dir = argc > 3 ? argv[3] : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  char path[4096], floor_path[4096];
  int job = (int)getpid();
  MPI_Bcast(&job, 1, MPI_INT, 0, MPI_COMM_WORLD);
  snprintf(path, sizeof path, "%s/io_bench.%d", dir, job);
  snprintf(floor_path, sizeof floor_path, "%s/io_bench_floor.%d", dir, job);
  MPI_Info hints = MPI_INFO_NULL;
  if (argc > 4 && argv[4][0] != '\0') {
    MPI_Info_create(&hints);
    char list[4096];
    snprintf(list, sizeof list, "%s", argv[4]);
    for (char* item = strtok(list, ","); item != NULL; item = strtok(NULL, ",")) {
      char* eq = strchr(item, '=');
      if (eq == NULL) continue;
      *eq = '\0';
      MPI_Info_set(hints, item, eq + 1);
    }
  }

  long n_local, total = 8L * edge * edge * edge;
  MPI_Datatype ft = darray_of_doubles(edge, rank, size, &n_local);
  double* mine = malloc(sizeof(double) * (size_t)n_local);
  double* back = malloc(sizeof(double) * (size_t)n_local);
  for (long i = 0; i < n_local; ++i) mine[i] = rank * 1e9 + (double)i;

  double* wt = malloc(sizeof(double) * (size_t)reps);
  double* rt = malloc(sizeof(double) * (size_t)reps);
  double* fw = malloc(sizeof(double) * (size_t)reps);
  double* fr = malloc(sizeof(double) * (size_t)reps);
  double* pw = malloc(sizeof(double) * (size_t)reps);
  int wrong = 0;
  for (int r = 0; r < reps; ++r) {
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, hints, &fh);
    MPI_File_set_view(fh, 0, MPI_DOUBLE, ft, "native", MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_File_write_at_all(fh, 0, mine, (int)n_local, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    wt[r] = MPI_Wtime() - t0;
    memset(back, 0, sizeof(double) * (size_t)n_local);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    MPI_File_read_at_all(fh, 0, back, (int)n_local, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    rt[r] = MPI_Wtime() - t0;
    if (memcmp(back, mine, sizeof(double) * (size_t)n_local) != 0) wrong = 1;
    MPI_File_close(&fh);
    if (rank == 0) unlink(path);

    /* The file system alone: rank 0 writes and reads the same number of bytes sequentially. */
    if (rank == 0) {
      const long piece = 4 << 20;
      char* buf = malloc((size_t)piece);
      memset(buf, 7, (size_t)piece);
      int fd = open(floor_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
      t0 = MPI_Wtime();
      for (long off = 0; off < total; off += piece) {
        long len = total - off < piece ? total - off : piece;
        if (pwrite(fd, buf, (size_t)len, off) != len) wrong = 1;
      }
      fsync(fd);
      fw[r] = MPI_Wtime() - t0;
      t0 = MPI_Wtime();
      for (long off = 0; off < total; off += piece) {
        long len = total - off < piece ? total - off : piece;
        if (pread(fd, buf, (size_t)len, off) != len) wrong = 1;
      }
      fr[r] = MPI_Wtime() - t0;
      close(fd);
      unlink(floor_path);
      free(buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* The file system with one writer per rank: rank r's 1/size of a new file, one pwrite, fsync. */
    long share = total / size, from = rank * share, len = rank == size - 1 ? total - from : share;
    char* part = malloc((size_t)len);
    memset(part, 7, (size_t)len);
    int fd = -1;
    if (rank == 0) fd = open(floor_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0) fd = open(floor_path, O_RDWR);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (pwrite(fd, part, (size_t)len, from) != len) wrong = 1;
    fsync(fd);
    MPI_Barrier(MPI_COMM_WORLD);
    pw[r] = MPI_Wtime() - t0;
    close(fd);
    free(part);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) unlink(floor_path);
  }
  int any_wrong = 0;
  MPI_Reduce(&wrong, &any_wrong, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    double mb = total / 1e6;
    double cw = mb / median_of(wt, reps), cr = mb / median_of(rt, reps), sw = mb / median_of(fw, reps), sr = mb / median_of(fr, reps);
    double pr = mb / median_of(pw, reps);
    printf("# io_bench: %d ranks, %d^3 doubles (%ld bytes) in a darray view, %d repetitions, median MB/s%s%s\n", size,
           edge, total, reps, argc > 4 ? ", hints " : "", argc > 4 ? argv[4] : "");
    printf("collective_write_all+sync %ld %.1f\n", total, cw);
    printf("collective_read_all %ld %.1f\n", total, cr);
    printf("posix_sequential_write+fsync %ld %.1f\n", total, sw);
    printf("posix_sequential_read %ld %.1f\n", total, sr);
    printf("posix_write+fsync_per_rank %ld %.1f\n", total, pr);
    printf("# collective write at %.0f%% of the file system's sequential write\n", 100 * cw / sw);
    /* bench/compare: one figure per rank count, the operations as its rows */
    char figure[64], x[64];
    snprintf(figure, sizeof figure, "mpi_io_bandwidth_%dranks", size);
    const char* ops[] = {"write_all+sync", "read_all", "posix_write+fsync", "posix_read", "posix_write+fsync_per_rank"};
    double mbs[] = {cw, cr, sw, sr, pr};
    for (int i = 0; i < 5; ++i) {
      snprintf(x, sizeof x, "%s %d^3", ops[i], edge);
      bench_result(figure, x, mbs[i], "MB/s");
    }
    if (any_wrong) printf("# WRONG: data read back differs from data written\n");
  }
  if (hints != MPI_INFO_NULL) MPI_Info_free(&hints);
  MPI_Type_free(&ft);
  free(mine);
  free(back);
  free(wt);
  free(rt);
  free(fw);
  free(fr);
  free(pw);
  MPI_Finalize();
  return any_wrong;
}
