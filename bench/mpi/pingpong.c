/* MPI ping-pong latency and streaming bandwidth between ranks 0 and 1, 0 B .. 4 MiB.
 * A standard MPI program: builds with gasket's mpicc, Open MPI's and MPICH's (bench/mpi/compare.sh
 * runs them side by side). Prints a table; with BENCH_RESULTS=1 also RESULT lines for
 * bench/compare. Options: --alloc-mem (buffers from MPI_Alloc_mem instead of malloc),
 * --max BYTES (largest size, default 4 MiB), --min BYTES (smallest, default 0: with --max, one
 * size alone for a profiler). Run on exactly 2 ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/common/bench_results.h"

enum { kWindow = 64 };

static void* get_buffer(size_t bytes, int alloc_mem) {
  void* p = NULL;
  if (alloc_mem) {
    MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &p);
  } else {
    p = malloc(bytes);
  }
  memset(p, 1, bytes);
  return p;
}

static void put_buffer(void* p, int alloc_mem) {
  if (alloc_mem) {
    MPI_Free_mem(p);
  } else {
    free(p);
  }
}

static int iterations(size_t bytes, int base) {
  long it = bytes <= 1024 ? base : (long)(base * 1024.0 / (double)bytes * 8);
  if (it < 20) it = 20;
  if (it > base) it = base;
  return (int)it;
}

/* Half of the round-trip time, in microseconds (median of 5 repetitions). */
static double latency(int rank, char* buf, size_t bytes) {
  int iters = iterations(bytes, 20000);
  double best[5];
  for (int rep = 0; rep < 5; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
      if (rank == 0) {
        MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
      }
    }
    best[rep] = (MPI_Wtime() - t0) / iters / 2 * 1e6;
  }
  for (int i = 0; i < 5; ++i)
    for (int j = i + 1; j < 5; ++j)
      if (best[j] < best[i]) {
        double t = best[i];
        best[i] = best[j];
        best[j] = t;
      }
  return best[2];
}

/* Rank 0 streams windows of kWindow non-blocking sends; rank 1 acknowledges each window. GB/s. */
static double bandwidth(int rank, char* buf, size_t bytes) {
  int iters = iterations(bytes * kWindow, 200);
  MPI_Request req[kWindow];
  char ack = 0;
  double result[3];
  for (int rep = 0; rep < 3; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iters; ++i) {
      if (rank == 0) {
        for (int w = 0; w < kWindow; ++w) MPI_Isend(buf, (int)bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[w]);
        MPI_Waitall(kWindow, req, MPI_STATUSES_IGNORE);
        MPI_Recv(&ack, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        for (int w = 0; w < kWindow; ++w) MPI_Irecv(buf, (int)bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[w]);
        MPI_Waitall(kWindow, req, MPI_STATUSES_IGNORE);
        MPI_Send(&ack, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
      }
    }
    double t = MPI_Wtime() - t0;
    result[rep] = (double)bytes * kWindow * iters / t / 1e9;
  }
  double best = result[0];
  for (int i = 1; i < 3; ++i)
    if (result[i] > best) best = result[i];
  return best;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int alloc_mem = 0;
  size_t max = (size_t)4 << 20, min = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--alloc-mem") == 0) alloc_mem = 1;
    if (strcmp(argv[i], "--max") == 0 && i + 1 < argc) max = (size_t)atol(argv[++i]);
    if (strcmp(argv[i], "--min") == 0 && i + 1 < argc) min = (size_t)atol(argv[++i]);
  }
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "pingpong: run on exactly 2 ranks (got %d)\n", size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char* buf = get_buffer(max > 0 ? max : 1, alloc_mem);
  if (rank == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(lib, &len);
    char* nl = strchr(lib, '\n');
    if (nl) *nl = '\0';
    printf("# %s\n# buffers: %s\n", lib, alloc_mem ? "MPI_Alloc_mem" : "malloc");
    printf("%10s %14s %16s\n", "bytes", "latency (us)", "bandwidth (GB/s)");
  }
  for (size_t bytes = min; bytes <= max; bytes = bytes == 0 ? 1 : bytes * 2) {
    double lat = latency(rank, buf, bytes);
    double bw = bytes > 0 ? bandwidth(rank, buf, bytes) : 0.0;
    if (rank == 0) {
      printf("%10zu %14.3f %16.3f\n", bytes, lat, bw);
      bench_result_bytes("mpi pingpong latency", (unsigned long)bytes, lat, "us");
      if (bytes > 0) bench_result_bytes("mpi streaming bandwidth", (unsigned long)bytes, bw, "GB/s");
      fflush(stdout);
    }
  }
  put_buffer(buf, alloc_mem);
  MPI_Finalize();
  return 0;
}
