/* Two benchmarks of the backend paths, printed as tables (a standard MPI program):
 *  flood: rank 1 sleeps 1 s before posting its receives while rank 0 issues 1000 MPI_Isends of
 *         400 B; the time rank 0 spends in the MPI_Isend calls (non-blocking calls should take
 *         microseconds, not the receiver's sleep);
 *  accumulate: MPI_Accumulate of 8 B .. 1 MiB (packed bytes) from rank 0 to rank 1 under a
 *         shared lock, through derived target types: MPI_INT every other element (vector) and in
 *         irregular blocks (indexed) summed, MPI_2INT every other element with MPI_MINLOC,
 *         contiguous MPI_SHORT_INT (a pair with a hole) with MPI_MAXLOC, and MPI_Get_accumulate
 *         of the vector; microseconds per call, median of up to 5 runs. Rank 1 waits in
 *         MPI_Barrier meanwhile. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

static void flood(int rank) {
  enum { kCalls = 1000, kBytes = 400 };
  char* buf = calloc(kCalls, kBytes);
  MPI_Request* reqs = malloc(sizeof(MPI_Request) * kCalls);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    double t = MPI_Wtime();
    for (int i = 0; i < kCalls; ++i) MPI_Isend(buf + i * kBytes, kBytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, &reqs[i]);
    double issued = MPI_Wtime() - t;
    MPI_Waitall(kCalls, reqs, MPI_STATUSES_IGNORE);
    printf("| flood | %d x MPI_Isend %d B | issue %.6f s | complete %.6f s |\n", kCalls, kBytes, issued, MPI_Wtime() - t);
  } else if (rank == 1) {
    sleep(1);
    for (int i = 0; i < kCalls; ++i) MPI_Irecv(buf + i * kBytes, kBytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &reqs[i]);
    MPI_Waitall(kCalls, reqs, MPI_STATUSES_IGNORE);
  }
  free(reqs);
  free(buf);
}

/* The accumulate cases: a target datatype over the window (element i of the origin lands at
 * the type's i-th basic element), the basic type, the op and whether old values come back. */
enum Layout { kVector, kIndexed, kContiguous };
struct Case {
  const char* name;
  enum Layout layout;
  MPI_Datatype basic;
  int basic_size; /* packed bytes of one element */
  int extent;     /* bytes of one element in memory */
  MPI_Op op;
  int fetch;
};

/* `n` elements of `c` laid out by c->layout: every other element (vector), blocks of 1..3
 * elements at irregular gaps (indexed), or back to back. */
static MPI_Datatype target_type(const struct Case* c, int n) {
  MPI_Datatype t;
  if (c->layout == kVector) {
    MPI_Type_vector(n, 1, 2, c->basic, &t);
  } else if (c->layout == kIndexed) {
    int* len = malloc(sizeof(int) * (size_t)n);
    int* disp = malloc(sizeof(int) * (size_t)n);
    int blocks = 0, at = 0;
    for (int left = n; left > 0; ++blocks) {
      int b = 1 + blocks % 3;
      if (b > left) b = left;
      len[blocks] = b;
      disp[blocks] = at;
      at += b + 1 + blocks % 2;
      left -= b;
    }
    MPI_Type_indexed(blocks, len, disp, c->basic, &t);
    free(len);
    free(disp);
  } else {
    MPI_Type_contiguous(n, c->basic, &t);
  }
  MPI_Type_commit(&t);
  return t;
}

static void accumulate(int rank, int max_bytes, double budget) {
  enum { kRuns = 5 };
  static const struct Case cases[] = {
      {"vector int sum", kVector, MPI_INT, 4, 4, MPI_SUM, 0},
      {"indexed int sum", kIndexed, MPI_INT, 4, 4, MPI_SUM, 0},
      {"vector 2int minloc", kVector, MPI_2INT, 8, 8, MPI_MINLOC, 0},
      {"short_int maxloc", kContiguous, MPI_SHORT_INT, 6, 8, MPI_MAXLOC, 0},
      {"get_acc vector int sum", kVector, MPI_INT, 4, 4, MPI_SUM, 1},
  };
  enum { kCases = sizeof cases / sizeof cases[0] };
  size_t max_elements = (size_t)max_bytes / 4 + 1; /* the smallest packed element is 4 bytes */
  size_t window_bytes = 2 * 2 * max_elements * 16;  /* room for every layout's gaps */
  char* base;
  MPI_Win win;
  MPI_Win_allocate((MPI_Aint)window_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
  memset(base, 0, window_bytes);
  char* src = calloc(max_elements, 16);
  char* result = calloc(max_elements, 16);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    printf("| accumulate bytes |");
    for (int c = 0; c < kCases; ++c) printf(" %s |", cases[c].name);
    printf("\n|---|");
    for (int c = 0; c < kCases; ++c) printf("---|");
    printf("\nus per call from rank 0 to rank 1 under a shared lock (median of up to %d runs; fewer once a size's runs\n"
           "passed %.0f s)\n", kRuns, budget);
  }
  /* 8 B, then x8 while it fits, then max_bytes itself (1 MiB by default) */
  for (int bytes = 8; bytes <= max_bytes; bytes = bytes < max_bytes && bytes * 8 > max_bytes ? max_bytes : bytes * 8) {
    if (rank == 0) printf("| %d |", bytes);
    for (int c = 0; c < kCases; ++c) {
      const struct Case* k = &cases[c];
      int n = bytes / k->basic_size > 0 ? bytes / k->basic_size : 1;
      MPI_Datatype t = target_type(k, n);
      double runs[kRuns], spent = 0;
      int done = 0;
      for (int go = 1; go && done < kRuns;) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (rank == 0) {
          MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
          if (k->fetch) {
            MPI_Get_accumulate(src, n, k->basic, result, n, k->basic, 1, 0, 1, t, k->op, win);
          } else {
            MPI_Accumulate(src, n, k->basic, 1, 0, 1, t, k->op, win);
          }
          MPI_Win_unlock(1, win);
        }
        runs[done] = (MPI_Wtime() - t0) * 1e6;
        spent += runs[done++] / 1e6;
        go = spent < budget;
        MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
      }
      qsort(runs, (size_t)done, sizeof runs[0], cmp);
      if (rank == 0) printf(" %.1f |", runs[done / 2]);
      fflush(stdout);
      MPI_Type_free(&t);
    }
    if (rank == 0) printf("\n");
  }
  free(result);
  free(src);
  MPI_Win_free(&win);
}

/* Options: --accumulate-only (no flood), --max-bytes N (largest accumulate, default 1 MiB),
 * --budget S (seconds of runs per size and case before the median is taken, default 3). */
int main(int argc, char** argv) {
  int rank, only = 0, max_bytes = 1 << 20;
  double budget = 3;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--accumulate-only") == 0) {
      only = 1;
    } else if (strcmp(argv[i], "--max-bytes") == 0 && i + 1 < argc) {
      max_bytes = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc) {
      budget = atof(argv[++i]);
    }
  }
  if (!only) flood(rank);
  accumulate(rank, max_bytes, budget);
  MPI_Finalize();
  return 0;
}
