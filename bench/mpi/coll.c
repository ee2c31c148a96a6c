/* Collective latencies: MPI_Barrier, MPI_Bcast and MPI_Allreduce (MPI_DOUBLE, MPI_SUM) at 8 B and
 * 1 MiB, on MPI_COMM_WORLD. A standard MPI program: builds with gasket's mpicc, Open MPI's and
 * MPICH's (bench/mpi/coll_compare.sh runs them side by side at 2 and 4 ranks). Each figure is the
 * median over repetitions of the mean time per call (the slowest rank's), in microseconds.
 * The number of calls per repetition is calibrated so that a repetition lasts about 20 ms (at
 * most `iters`), so slow implementations finish too. Prints "operation bytes microseconds" lines.
 * Options: --quick (fewer repetitions); --sweep (bcast and allreduce from 1 KiB to 4 MiB, every
 * factor of 4, instead of the 8 B / 1 MiB cases: where the large-message algorithms switch);
 * --small (only barrier, bcast 8 B and allreduce 8 B: alternating runs, profiles per call);
 * --case NAME:BYTES (only that case, e.g. allreduce:1048576; with --sweep for 4 MiB);
 * --rounds K (run the cases K times over, one line each: does a job change mode as it runs?);
 * --stats (per rank, to stderr after each case: the CPUs it ran on, page faults and context
 * switches during the case, the buffers' addresses modulo 4 KiB and 2 MiB and their transparent
 * huge pages: what makes a job slow for its whole life);
 * --alone (the public micro-benchmarks' shape instead: each call timed by itself with MPI_Barrier
 * between calls, the per-rank average and the slowest rank's average, MPI_FLOAT for reductions
 * (MPI_SUM) and MPI_CHAR for data, root 0, for barrier, bcast, reduce, allreduce, allgather,
 * alltoall, gather, scatter and reduce_scatter at 8 B, 64 B, 1 KiB, 8 KiB, 64 KiB and 1 MiB (per
 * rank for allgather, alltoall, gather and scatter; the whole vector for reduce_scatter, split
 * evenly). Prints "operation/alone bytes average" and "operation/alone-max bytes maximum" lines;
 * --case NAME:BYTES and --quick apply);
 * --multiple (MPI_Init_thread with MPI_THREAD_MULTIPLE, what mpi4py asks by default: the waiting
 * policy of a threaded program, with one thread calling). */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench/common/bench_results.h"

enum { kReps = 15 };

static int cmp(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* op: 0 barrier, 1 bcast, 2 allreduce */
static double measure(int op, double* a, double* b, int count, int iters, int reps) {
  double t[kReps];
  for (int rep = 0; rep < reps; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
      if (op == 0) MPI_Barrier(MPI_COMM_WORLD);
      if (op == 1) MPI_Bcast(a, count, MPI_DOUBLE, i % 2, MPI_COMM_WORLD);
      if (op == 2) MPI_Allreduce(a, b, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    double mine = (MPI_Wtime() - t0) / iters * 1e6, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t[rep] = slowest;
  }
  qsort(t, (size_t)reps, sizeof t[0], cmp);
  return t[reps / 2];
}

/* Calls per repetition: about 20 ms worth, between 3 and `most` (rank 0's estimate). */
static int calibrate(int op, double* a, double* b, int count, int most) {
  double us = measure(op, a, b, count, 3, 1);
  int iters = us > 0 ? (int)(20000.0 / us) : most;
  if (iters > most) iters = most;
  if (iters < 3) iters = 3;
  MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return iters;
}

/* AnonHugePages (kB) of the mapping that holds `p`, from /proc/self/smaps; -1 if not found. */
static long huge_kb_at(const void* p) {
  FILE* f = fopen("/proc/self/smaps", "r");
  if (f == NULL) return -1;
  char line[512];
  int inside = 0;
  long kb = -1;
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) { /* a mapping's first line; field lines give 1 */
      inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
    } else if (inside && sscanf(line, "AnonHugePages: %ld kB", &kb) == 1) {
      break;
    }
  }
  fclose(f);
  return kb;
}

static void print_stats(int rank, const char* name, int bytes, const void* a, const void* b, int cpu_before,
                        const struct rusage* before) {
  struct rusage now;
  getrusage(RUSAGE_SELF, &now);
  fprintf(stderr,
          "stats rank %d %s %d: cpu %d->%d minflt %ld majflt %ld nvcsw %ld nivcsw %ld a%%4K %lu a%%2M %lu b%%4K %lu "
          "b%%2M %lu a_huge_kB %ld b_huge_kB %ld\n",
          rank, name, bytes, cpu_before, sched_getcpu(), now.ru_minflt - before->ru_minflt,
          now.ru_majflt - before->ru_majflt, now.ru_nvcsw - before->ru_nvcsw, now.ru_nivcsw - before->ru_nivcsw,
          (unsigned long)((uintptr_t)a % 4096), (unsigned long)((uintptr_t)a % (2u << 20)),
          (unsigned long)((uintptr_t)b % 4096), (unsigned long)((uintptr_t)b % (2u << 20)), huge_kb_at(a),
          huge_kb_at(b));
}

/* The public micro-benchmarks' shape (--alone). */
enum AloneOp { kBarrier, kBcast, kReduce, kAllreduce, kAllgather, kAlltoall, kGather, kScatter, kReduceScatter };
static const char* const kAloneNames[] = {"barrier", "bcast",   "reduce",  "allreduce",     "allgather",
                                          "alltoall", "gather", "scatter", "reduce_scatter"};

/* One call of `op` moving `bytes` (per rank for the data movers, the whole vector for reductions). */
static void alone_call(int op, char* s, char* r, int bytes, const int* counts) {
  int floats = bytes / (int)sizeof(float);
  switch (op) {
    case kBarrier: MPI_Barrier(MPI_COMM_WORLD); break;
    case kBcast: MPI_Bcast(s, bytes, MPI_CHAR, 0, MPI_COMM_WORLD); break;
    case kReduce: MPI_Reduce(s, r, floats, MPI_FLOAT, MPI_SUM, 0, MPI_COMM_WORLD); break;
    case kAllreduce: MPI_Allreduce(s, r, floats, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); break;
    case kAllgather: MPI_Allgather(s, bytes, MPI_CHAR, r, bytes, MPI_CHAR, MPI_COMM_WORLD); break;
    case kAlltoall: MPI_Alltoall(s, bytes, MPI_CHAR, r, bytes, MPI_CHAR, MPI_COMM_WORLD); break;
    case kGather: MPI_Gather(s, bytes, MPI_CHAR, r, bytes, MPI_CHAR, 0, MPI_COMM_WORLD); break;
    case kScatter: MPI_Scatter(s, bytes, MPI_CHAR, r, bytes, MPI_CHAR, 0, MPI_COMM_WORLD); break;
    case kReduceScatter: MPI_Reduce_scatter(s, r, counts, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); break;
  }
}

/* Mean time of one call timed by itself (a barrier before each, untimed), this rank's. */
static double alone_mean(int op, char* s, char* r, int bytes, const int* counts, int iters) {
  double total = 0;
  for (int i = 0; i < iters; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    alone_call(op, s, r, bytes, counts);
    total += MPI_Wtime() - t0;
  }
  return total / iters * 1e6;
}

static void run_alone(int rank, int size, int reps, int quick, int stats, const char* only) {
  static const int kSizes[] = {8, 64, 1024, 8192, 65536, 1 << 20};
  const size_t most = (size_t)size << 20;
  char* s = malloc(most);
  char* r = malloc(most);
  int* counts = malloc(sizeof(int) * (size_t)size);
  for (size_t i = 0; i < most; ++i) s[i] = (char)(rank + i);
  memset(r, 0, most);
  if (rank == 0) {
    printf("# one call timed alone after a barrier, %d ranks: operation/alone bytes average-over-ranks us, "
           "operation/alone-max bytes slowest-rank us (median of %d)\n",
           size, reps);
  }
  for (int op = kBarrier; op <= kReduceScatter; ++op) {
    for (size_t z = 0; z < sizeof kSizes / sizeof kSizes[0]; ++z) {
      int bytes = op == kBarrier ? 0 : kSizes[z];
      if (op == kBarrier && z > 0) break;
      char this_case[64];
      snprintf(this_case, sizeof this_case, "%s:%d", kAloneNames[op], bytes);
      if (only != NULL && strcmp(only, this_case) != 0) continue;
      struct rusage before;
      getrusage(RUSAGE_SELF, &before);
      int cpu_before = sched_getcpu();
      int floats = bytes / (int)sizeof(float);
      for (int q = 0; q < size; ++q) counts[q] = floats / size + (q < floats % size);
      /* warm-up, then calls per repetition: about 20 ms worth, 3 to 1000 (100 past 8 KiB), rank 0's */
      double us = alone_mean(op, s, r, bytes, counts, quick ? 3 : 10);
      int iters = us > 0 ? (int)(20000.0 / us) : 1000, cap = bytes > 8192 ? 100 : 1000;
      if (iters > cap) iters = cap;
      if (iters < 3) iters = 3;
      MPI_Bcast(&iters, 1, MPI_INT, 0, MPI_COMM_WORLD);
      double avg[kReps], max[kReps];
      for (int rep = 0; rep < reps; ++rep) {
        double mine = alone_mean(op, s, r, bytes, counts, iters), sum;
        MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&mine, &max[rep], 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        avg[rep] = sum / size;
      }
      qsort(avg, (size_t)reps, sizeof avg[0], cmp);
      qsort(max, (size_t)reps, sizeof max[0], cmp);
      if (rank == 0) {
        printf("%s/alone %d %.3f\n%s/alone-max %d %.3f\n", kAloneNames[op], bytes, avg[reps / 2], kAloneNames[op],
               bytes, max[reps / 2]);
        fflush(stdout); /* rows stay when a side-by-side run's JOB_LIMIT stops the job */
        char figure[96], x[32];
        snprintf(x, sizeof x, "%d", bytes);
        snprintf(figure, sizeof figure, "mpi_%s_alone_latency_%dranks", kAloneNames[op], size);
        bench_result(figure, x, avg[reps / 2], "us");
        snprintf(figure, sizeof figure, "mpi_%s_alone_max_latency_%dranks", kAloneNames[op], size);
        bench_result(figure, x, max[reps / 2], "us");
      }
      if (stats) print_stats(rank, kAloneNames[op], bytes, s, r, cpu_before, &before);
    }
  }
  free(counts);
  free(r);
  free(s);
}

int main(int argc, char** argv) {
  int multiple = 0, provided;
  for (int i = 1; i < argc; ++i) multiple = multiple || strcmp(argv[i], "--multiple") == 0;
  MPI_Init_thread(&argc, &argv, multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  int rank, size, quick = 0, sweep = 0, small = 0, stats = 0, rounds = 1, alone = 0;
  const char* only = NULL; /* NAME:BYTES */
  for (int i = 1; i < argc; ++i) {
    quick = quick || strcmp(argv[i], "--quick") == 0;
    sweep = sweep || strcmp(argv[i], "--sweep") == 0;
    small = small || strcmp(argv[i], "--small") == 0;
    stats = stats || strcmp(argv[i], "--stats") == 0;
    alone = alone || strcmp(argv[i], "--alone") == 0;
    if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) only = argv[++i];
    if (strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) rounds = atoi(argv[++i]);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (alone) {
    run_alone(rank, size, quick ? 5 : kReps, quick, stats, only);
    MPI_Finalize();
    return 0;
  }
  const int big = (sweep ? 4 << 20 : 1 << 20) / (int)sizeof(double);
  double* a = malloc(sizeof(double) * big);
  double* b = malloc(sizeof(double) * big);
  for (int i = 0; i < big; ++i) a[i] = rank + i;
  int reps = quick ? 5 : kReps, small_iters = quick ? 500 : 5000, big_iters = quick ? 10 : 50;
  struct Case { const char* name; int op, count, iters; } cases[16] = {
      {"barrier", 0, 0, small_iters},  {"bcast", 1, 1, small_iters},      {"bcast", 1, big, big_iters},
      {"allreduce", 2, 1, small_iters}, {"allreduce", 2, big, big_iters},
  };
  size_t n_cases = 5;
  if (small) {
    cases[2] = cases[3];
    n_cases = 3;
  }
  if (sweep) {
    n_cases = 0;
    for (int op = 1; op <= 2; ++op) {
      for (int bytes = 1024; bytes <= 4 << 20; bytes *= 4) {
        struct Case k = {op == 1 ? "bcast" : "allreduce", op, bytes / (int)sizeof(double),
                         bytes < 65536 ? small_iters : big_iters};
        cases[n_cases++] = k;
      }
    }
  }
  if (rank == 0) printf("# collective latency, %d ranks: operation bytes microseconds (median of %d)\n", size, reps);
  for (size_t at = 0; at < n_cases * (size_t)(rounds > 0 ? rounds : 1); ++at) {
    size_t k = at % n_cases;
    char this_case[64];
    snprintf(this_case, sizeof this_case, "%s:%d", cases[k].name, cases[k].count * (int)sizeof(double));
    if (only != NULL && strcmp(only, this_case) != 0) continue;
    struct rusage before;
    getrusage(RUSAGE_SELF, &before);
    int cpu_before = sched_getcpu();
    int iters = calibrate(cases[k].op, a, b, cases[k].count, cases[k].iters); /* and warm-up */
    double us = measure(cases[k].op, a, b, cases[k].count, iters, reps);
    if (rank == 0) {
      printf("%s %d %.3f\n", cases[k].name, cases[k].count * (int)sizeof(double), us);
      fflush(stdout);
      char figure[64], x[32];
      snprintf(figure, sizeof figure, "mpi_%s_latency_%dranks", cases[k].name, size);
      snprintf(x, sizeof x, "%d", cases[k].count * (int)sizeof(double));
      bench_result(figure, x, us, "us");
    }
    if (stats) print_stats(rank, cases[k].name, cases[k].count * (int)sizeof(double), a, b, cpu_before, &before);
  }
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
