/* MPI one-sided latency: 8-byte put, get, accumulate (MPI_SUM on one MPI_LONG_LONG, and on 8
 * MPI_CHARs as OSU's osu_acc_latency does: "acc8c"), fetch_and_op (MPI_SUM) and compare_and_swap
 * from rank 0 to rank 1, each completed under every synchronisation mode
 *   lock      MPI_Win_lock(shared) once, then op + MPI_Win_flush per iteration
 *   lock_all  MPI_Win_lock_all once, then op + MPI_Win_flush per iteration
 *   fence     op + MPI_Win_fence per iteration (both ranks)
 *   pscw      rank 1 post/wait, rank 0 start/op/complete per iteration
 * on every window kind: MPI_Win_create on malloc'd memory, MPI_Win_allocate,
 * MPI_Win_allocate_shared, MPI_Win_create_dynamic + attach of malloc'd memory.
 * A standard MPI program (builds with gasket's mpicc, Open MPI's and MPICH's; rma_compare.sh runs
 * them side by side). Prints "RMA kind mode op microseconds" lines and a table. Run on 2 ranks.
 * Windows are 64 KiB; the target word is in their middle.
 * Options: --kind NAME, --op NAME (only those; rma_compare.sh runs each kind apart so that an
 * implementation crashing on one leaves the others measured). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/common/bench_clock.h"
#include "bench/common/bench_results.h"

enum Kind { kCreate, kAllocate, kShared, kDynamic, kKinds };
enum Mode { kLock, kLockAll, kFence, kPscw, kModes };
enum Op { kPut, kGet, kAcc, kAcc8c, kFop, kCas, kOps };
static const char* kind_names[] = {"create", "allocate", "shared", "dynamic"};
static const char* mode_names[] = {"lock", "lock_all", "fence", "pscw"};
static const char* op_names[] = {"put", "get", "acc", "acc8c", "fop", "cas"};

static int rank;
static MPI_Group peer_group;

static void op(enum Op o, MPI_Aint disp, MPI_Win win) {
  static long long value = 1, result, compare;
  switch (o) {
    case kPut: MPI_Put(&value, 1, MPI_LONG_LONG, 1, disp, 1, MPI_LONG_LONG, win); break;
    case kGet: MPI_Get(&result, 1, MPI_LONG_LONG, 1, disp, 1, MPI_LONG_LONG, win); break;
    case kAcc: MPI_Accumulate(&value, 1, MPI_LONG_LONG, 1, disp, 1, MPI_LONG_LONG, MPI_SUM, win); break;
    case kAcc8c: MPI_Accumulate(&value, 8, MPI_CHAR, 1, disp, 8, MPI_CHAR, MPI_SUM, win); break;
    case kFop: MPI_Fetch_and_op(&value, &result, MPI_LONG_LONG, 1, disp, MPI_SUM, win); break;
    default: MPI_Compare_and_swap(&value, &compare, &result, MPI_LONG_LONG, 1, disp, win); break;
  }
}

/* Microseconds per iteration of `iters` operations, synchronised as `m` asks. */
static double measure(enum Mode m, enum Op o, MPI_Aint disp, MPI_Win win, int iters) {
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  switch (m) {
    case kLock:
    case kLockAll:
      if (rank == 0) {
        if (m == kLock) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win); else MPI_Win_lock_all(0, win);
        t0 = MPI_Wtime();
        for (int i = 0; i < iters; ++i) {
          op(o, disp, win);
          MPI_Win_flush(1, win);
        }
        double t = MPI_Wtime() - t0;
        if (m == kLock) MPI_Win_unlock(1, win); else MPI_Win_unlock_all(win);
        MPI_Barrier(MPI_COMM_WORLD);
        return t / iters * 1e6;
      }
      MPI_Barrier(MPI_COMM_WORLD);
      return 0;
    case kFence:
      MPI_Win_fence(MPI_MODE_NOPRECEDE, win);
      t0 = MPI_Wtime();
      for (int i = 0; i < iters; ++i) {
        if (rank == 0) op(o, disp, win);
        MPI_Win_fence(0, win);
      }
      {
        double t = MPI_Wtime() - t0;
        MPI_Win_fence(MPI_MODE_NOSUCCEED, win);
        return t / iters * 1e6;
      }
    default:
      for (int i = 0; i < iters; ++i) {
        if (rank == 0) {
          MPI_Win_start(peer_group, 0, win);
          op(o, disp, win);
          MPI_Win_complete(win);
        } else {
          MPI_Win_post(peer_group, 0, win);
          MPI_Win_wait(win);
        }
      }
      return (MPI_Wtime() - t0) / iters * 1e6;
  }
}


int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 2) {
    if (rank == 0) fprintf(stderr, "rma: run on exactly 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char* only_kind = NULL;
  const char* only_op = NULL;
  for (int i = 1; i + 1 < argc; ++i) {
    if (strcmp(argv[i], "--kind") == 0) only_kind = argv[++i];
    else if (strcmp(argv[i], "--op") == 0) only_op = argv[++i];
  }
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int peer = 1 - rank;
  MPI_Group_incl(world, 1, &peer, &peer_group);
  double table[kKinds][kModes][kOps];
  memset(table, 0, sizeof table);
  if (rank == 0) printf("# RMA latency, 8 bytes, rank 0 -> rank 1 (microseconds per operation + completion, best of 5 runs)\n");
  for (int k = 0; k < kKinds; ++k) {
    if (only_kind && strcmp(only_kind, kind_names[k]) != 0) continue;
    MPI_Win win;
    long long* mem = NULL;
    /* 64 KiB windows, the target word in the middle (a window over an array; on malloc'd memory
     * its whole pages are what gasket shares between the ranks of a node). */
    MPI_Aint bytes = 64 << 10, disp = 4096;
    switch (k) {
      case kCreate:
        mem = malloc(bytes);
        MPI_Win_create(mem, bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        break;
      case kAllocate: MPI_Win_allocate(bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win); break;
      case kShared: MPI_Win_allocate_shared(bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win); break;
      default:
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
        mem = malloc(bytes);
        MPI_Win_attach(win, mem, bytes);
        MPI_Get_address(mem + 4096, &disp);
        MPI_Bcast(&disp, 1, MPI_AINT, 1, MPI_COMM_WORLD);
        break;
    }
    memset(mem, 0, bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int m = 0; m < kModes; ++m) {
      for (int o = 0; o < kOps; ++o) {
        if (only_op && strcmp(only_op, op_names[o]) != 0) continue;
        int iters = m <= kLockAll ? 20000 : 2000;
        /* warm-up, timed: fewer operations per run on a slow path (bench_clock.h) */
        double warm = measure(m, o, disp, win, iters / 10);
        MPI_Bcast(&warm, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        iters = (int)bench_sample_iterations(iters, warm);
        /* the best of 5 runs: this machine is shared, the best run is the one least disturbed */
        double best = 1e30;
        for (int rep = 0; rep < 5; ++rep) {
          double t = measure(m, o, disp, win, iters);
          MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
          if (t < best) best = t;
        }
        table[k][m][o] = best;
        if (rank == 0) {
          printf("RMA %s %s %s %.3f\n", kind_names[k], mode_names[m], op_names[o], table[k][m][o]);
          char figure[96];
          snprintf(figure, sizeof figure, "mpi_rma_8B_latency_%s_window", kind_names[k]);
          char x[64];
          snprintf(x, sizeof x, "%s/%s", op_names[o], mode_names[m]);
          bench_result(figure, x, table[k][m][o], "us");
          fflush(stdout);
        }
      }
    }
    if (k == kDynamic) MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    if (k == kCreate || k == kDynamic) free(mem);
  }
  if (rank == 0) {
    printf("\n| window | sync |");
    for (int o = 0; o < kOps; ++o) printf(" %s |", op_names[o]);
    printf("\n|---|---|");
    for (int o = 0; o < kOps; ++o) printf("---|");
    printf("\n");
    for (int k = 0; k < kKinds; ++k) {
      if (only_kind && strcmp(only_kind, kind_names[k]) != 0) continue;
      for (int m = 0; m < kModes; ++m) {
        printf("| %s | %s |", kind_names[k], mode_names[m]);
        for (int o = 0; o < kOps; ++o) printf(" %.3f |", table[k][m][o]);
        printf("\n");
      }
    }
  }
  MPI_Group_free(&peer_group);
  MPI_Group_free(&world);
  MPI_Finalize();
  return 0;
}
