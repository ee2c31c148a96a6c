/* Per-operation cost of common MPI calls on a backend path, for bench/pciddc:
 *   isend    a batch of 100 MPI_Isend of 100 bytes to rank 1, MPI_Waitall (rank 1 receives
 *            them with MPI_Irecv); microseconds per message
 *   acc      MPI_Accumulate of one MPI_LONG (MPI_SUM) into rank 1's window, then
 *            MPI_Win_flush_local (local completion), under MPI_Win_lock_all
 *   get      MPI_Get of one MPI_LONG then MPI_Win_flush
 *   fop      MPI_Fetch_and_op of one MPI_LONG then MPI_Win_flush
 * Medians of 5 repetitions, rank 0's times. Rank 1 answers from MPI_Barrier (progressing).
 * The accumulated total is checked, so a fast wrong answer is not a figure.
 *   GASKET_TRANSPORT=pciddc GASKET_PCIDDC_LINK=tcp gasketrun -n 2 --pes-per-node 1 mpi_ops */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kReps = 5, kBatch = 100, kBytes = 100, kOps = 200 };

static int by_value(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

static double median(double* v) {
  qsort(v, kReps, sizeof *v, by_value);
  return v[kReps / 2];
}

static double isend_batch(int rank) {
  char buf[kBatch][kBytes];
  MPI_Request req[kBatch];
  memset(buf, rank, sizeof buf);
  MPI_Barrier(MPI_COMM_WORLD);
  double t = MPI_Wtime();
  for (int i = 0; i < kBatch; ++i) {
    if (rank == 0) MPI_Isend(buf[i], kBytes, MPI_CHAR, 1, i, MPI_COMM_WORLD, &req[i]);
    else MPI_Irecv(buf[i], kBytes, MPI_CHAR, 0, i, MPI_COMM_WORLD, &req[i]);
  }
  MPI_Waitall(kBatch, req, MPI_STATUSES_IGNORE);
  t = MPI_Wtime() - t;
  if (rank == 1 && buf[kBatch - 1][kBytes - 1] != 0) {
    fprintf(stderr, "mpi_ops: rank 1 received wrong bytes\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return t * 1e6 / kBatch;
}

enum Op { kAcc, kGet, kFop };

static double one_sided(MPI_Win win, long* base, int rank, enum Op op) {
  long one = 1, out = 0;
  double t = 0;
  if (rank == 1) *base = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    t = MPI_Wtime();
    for (int i = 0; i < kOps; ++i) {
      if (op == kAcc) {
        MPI_Accumulate(&one, 1, MPI_LONG, 1, 0, 1, MPI_LONG, MPI_SUM, win);
        MPI_Win_flush_local(1, win);
      } else if (op == kGet) {
        MPI_Get(&out, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win);
        MPI_Win_flush(1, win);
      } else {
        MPI_Fetch_and_op(&one, &out, MPI_LONG, 1, 0, MPI_SUM, win);
        MPI_Win_flush(1, win);
      }
    }
    MPI_Win_flush(1, win);
    t = (MPI_Wtime() - t) * 1e6 / kOps;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 1 && op != kGet && *base != kOps) {
    fprintf(stderr, "mpi_ops: rank 1's word is %ld after %d %s, expected %d\n", *base, kOps,
            op == kAcc ? "accumulates" : "fetch-and-ops", kOps);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return t;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "mpi_ops: run on 2 ranks\n");
    MPI_Finalize();
    return 2;
  }
  long* base;
  MPI_Win win;
  MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  MPI_Win_lock_all(0, win);
  double t[4][kReps];
  for (int r = 0; r < kReps; ++r) {
    t[0][r] = isend_batch(rank);
    t[1][r] = one_sided(win, base, rank, kAcc);
    t[2][r] = one_sided(win, base, rank, kGet);
    t[3][r] = one_sided(win, base, rank, kFop);
  }
  MPI_Win_unlock_all(win);
  MPI_Win_free(&win);
  if (rank == 0) {
    printf("%-40s %10s\n", "MPI operation (median of 5)", "us per op");
    printf("%-40s %10.2f\n", "isend 100 B (batch of 100, waitall)", median(t[0]));
    printf("%-40s %10.2f\n", "accumulate 8 B + flush_local", median(t[1]));
    printf("%-40s %10.2f\n", "get 8 B + flush", median(t[2]));
    printf("%-40s %10.2f\n", "fetch_and_op 8 B + flush", median(t[3]));
  }
  MPI_Finalize();
  return 0;
}
