/* Window behaviour the standard fixes, one function each:
 *  - whole_call_accumulates: a 16/64-byte MPI_BYTE MPI_Accumulate (MPI_REPLACE) is never seen
 *    half-written by a concurrent MPI_Get_accumulate (MPI_NO_OP) of the same bytes — same-op
 *    accumulates of one call stay whole, as the other implementations keep them;
 *  - windows_on_malloc_freed: windows on malloc'd buffers (below a page, page-crossing, mmap'd
 *    sizes, the same buffer in two windows) with lock/put/unlock epochs, freed in every order;
 *  - accumulate_flush_local_loop: a large MPI_Accumulate then MPI_Win_flush_local, in a loop;
 *  - get_accumulate_null_result: MPI_Get_accumulate with a NULL result buffer and zero count;
 *  - dynamic_adjacent_regions: accumulate and get_accumulate spanning two adjacent attached
 *    regions of a dynamic window;
 *  - sync_errors: synchronisation calls outside their epoch return MPI_ERR_RMA_SYNC;
 *  - compare_and_swap_types: MPI_Compare_and_swap refuses types outside the integer, logical,
 *    multi-language and byte categories with MPI_ERR_TYPE (MPI 4.1 12.3.4). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, nranks;

static void whole_call_accumulates(void) {
  enum { kMax = 64, kRounds = 600 };
  const int sizes[] = {16, 64};
  for (int s = 0; s < 2; ++s) {
    int n = sizes[s];
    unsigned char* base;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(kMax, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    memset(base, 1, kMax);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    unsigned char value[kMax], seen[kMax];
    for (int k = 0; k < kRounds; ++k) {
      if (rank != 0 && k % 2 == 0) {
        memset(value, (unsigned char)(1 + (rank * 7 + k) % 250), (size_t)n);
        MPI_OK(MPI_Accumulate(value, n, MPI_BYTE, 0, 0, n, MPI_BYTE, MPI_REPLACE, win));
      } else {
        MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_BYTE, seen, n, MPI_BYTE, 0, 0, n, MPI_BYTE, MPI_NO_OP, win));
        for (int i = 1; i < n; ++i) {
          if (seen[i] != seen[0]) {
            fprintf(stderr, "rank %d: round %d: a %d-byte accumulate read back torn: byte %d is %u, byte 0 is %u\n",
                    rank, k, n, i, seen[i], seen[0]);
          }
          CHECK_EQ(seen[i], seen[0]);
        }
      }
      MPI_OK(MPI_Win_flush(0, win));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Win_free(&win));
  }
}

static void windows_on_malloc_freed(void) {
  enum { N = 7 };
  const size_t sizes[N] = {8, 1000, 4096, 5000, 3 * 4096 + 100, 200000, 1 << 20};
  for (int order = 0; order < 3; ++order) {
    MPI_Win w[N], again;
    char* b[N];
    for (int i = 0; i < N; ++i) {
      b[i] = malloc(sizes[i]);
      memset(b[i], 0, sizes[i]);
      MPI_OK(MPI_Win_create(b[i], (MPI_Aint)sizes[i], 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w[i]));
    }
    MPI_OK(MPI_Win_create(b[5], (MPI_Aint)sizes[5], 1, MPI_INFO_NULL, MPI_COMM_WORLD, &again));
    for (int i = 0; i < N; ++i) {
      int slot = sizes[i] >= 8 * (size_t)nranks;
      for (int t = 0; t < nranks; ++t) {
        int64_t v = rank * 100 + i;
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w[i]));
        MPI_OK(MPI_Put(&v, slot ? 8 : 1, MPI_BYTE, t, slot ? 8 * rank : 0, slot ? 8 : 1, MPI_BYTE, w[i]));
        MPI_OK(MPI_Win_unlock(t, w[i]));
      }
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < N; ++i) {
      if (sizes[i] < 8 * (size_t)nranks) continue;
      for (int r = 0; r < nranks; ++r) {
        int64_t v;
        memcpy(&v, b[i] + 8 * r, 8);
        CHECK_EQ(v, r * 100 + i);
      }
    }
    if (order == 1) MPI_OK(MPI_Win_free(&again));
    for (int j = 0; j < N; ++j) {
      int i = order == 2 ? N - 1 - j : j;
      MPI_OK(MPI_Win_free(&w[i]));
      CHECK(w[i] == MPI_WIN_NULL);
      if (i == 5 && order != 1) MPI_OK(MPI_Win_free(&again));
      free(b[i]);
    }
  }
}

static void accumulate_flush_local_loop(void) {
  enum { kCount = 1 << 12, kIters = 8 };
  int* base;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate((MPI_Aint)kCount * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  for (int i = 0; i < kCount; ++i) base[i] = 0;
  int* src = malloc(sizeof(int) * kCount);
  for (int i = 0; i < kCount; ++i) src[i] = i % 7 + 1;
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  int target = (rank + 1) % nranks;
  MPI_OK(MPI_Win_lock_all(0, win));
  for (int k = 0; k < kIters; ++k) {
    MPI_OK(MPI_Accumulate(src, kCount, MPI_INT, target, 0, kCount, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_flush_local(target, win));
  }
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < kCount; ++i) CHECK_EQ(base[i], kIters * (i % 7 + 1));
  free(src);
  MPI_OK(MPI_Win_free(&win));
}

static void get_accumulate_null_result(void) {
  int* base;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  for (int i = 0; i < 4; ++i) base[i] = 10 + i;
  MPI_OK(MPI_Win_fence(0, win));
  int one = 1;
  MPI_OK(MPI_Get_accumulate(&one, 0, MPI_INT, NULL, 0, MPI_INT, (rank + 1) % nranks, 0, 0, MPI_INT, MPI_SUM, win));
  MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, NULL, 0, MPI_INT, (rank + 1) % nranks, 1, 0, MPI_INT, MPI_NO_OP, win));
  MPI_OK(MPI_Win_fence(0, win));
  MPI_Request req;
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, (rank + 1) % nranks, 0, win));
  MPI_OK(MPI_Rget_accumulate(NULL, 0, MPI_INT, NULL, 0, MPI_INT, (rank + 1) % nranks, 2, 0, MPI_INT, MPI_SUM, win, &req));
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Win_unlock((rank + 1) % nranks, win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < 4; ++i) CHECK_EQ(base[i], 10 + i);
  MPI_OK(MPI_Win_free(&win));
}

static void dynamic_adjacent_regions(void) {
  enum { kHalf = 8 };
  int64_t* mem = malloc(2 * kHalf * sizeof(int64_t));
  for (int i = 0; i < 2 * kHalf; ++i) mem[i] = i;
  MPI_Win win;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_OK(MPI_Win_attach(win, mem, kHalf * sizeof(int64_t)));
  MPI_OK(MPI_Win_attach(win, mem + kHalf, kHalf * sizeof(int64_t)));
  MPI_Aint* bases = malloc(sizeof(MPI_Aint) * (size_t)nranks);
  MPI_Aint mine;
  MPI_OK(MPI_Get_address(mem, &mine));
  MPI_OK(MPI_Allgather(&mine, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD));
  int target = (rank + 1) % nranks;
  MPI_Aint at = bases[target] + (kHalf - 2) * (MPI_Aint)sizeof(int64_t);  /* 2 elements in each region */
  int64_t add[4] = {100, 200, 300, 400}, old[4] = {0};
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
  MPI_OK(MPI_Accumulate(add, 4, MPI_INT64_T, target, at, 4, MPI_INT64_T, MPI_SUM, win));
  MPI_OK(MPI_Win_flush(target, win));
  MPI_OK(MPI_Get_accumulate(add, 4, MPI_INT64_T, old, 4, MPI_INT64_T, target, at, 4, MPI_INT64_T, MPI_SUM, win));
  MPI_OK(MPI_Win_unlock(target, win));
  for (int i = 0; i < 4; ++i) CHECK_EQ(old[i], kHalf - 2 + i + add[i]);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  for (int i = 0; i < 2 * kHalf; ++i) {
    int64_t expect = i >= kHalf - 2 && i < kHalf + 2 ? i + 2 * add[i - (kHalf - 2)] : i;
    CHECK_EQ(mem[i], expect);
  }
  MPI_OK(MPI_Win_detach(win, mem));
  MPI_OK(MPI_Win_detach(win, mem + kHalf));
  MPI_OK(MPI_Win_free(&win));
  free(bases);
  free(mem);
}

static void expect_class(int code, int expected_class, const char* what) {
  int cls = -1;
  MPI_OK(MPI_Error_class(code, &cls));
  if (cls != expected_class) fprintf(stderr, "rank %d: %s returned class %d, expected %d\n", rank, what, cls, expected_class);
  CHECK_EQ(cls, expected_class);
}

static void sync_errors(void) {
  int* base;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  int peer = (rank + 1) % nranks;
  expect_class(MPI_Win_sync(win), MPI_ERR_RMA_SYNC, "MPI_Win_sync outside every epoch");
  expect_class(MPI_Win_unlock(peer, win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock without a lock");
  expect_class(MPI_Win_unlock_all(win), MPI_ERR_RMA_SYNC, "MPI_Win_unlock_all without lock_all");
  expect_class(MPI_Win_flush(peer, win), MPI_ERR_RMA_SYNC, "MPI_Win_flush without a lock");
  expect_class(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "MPI_Win_complete without start");
  expect_class(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "MPI_Win_wait without post");
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
  MPI_OK(MPI_Win_sync(win));
  expect_class(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win), MPI_ERR_RMA_SYNC, "a second MPI_Win_lock");
  expect_class(MPI_Win_lock_all(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock_all inside a lock");
  expect_class(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_fence inside a lock");
  MPI_OK(MPI_Win_unlock(peer, win));
  MPI_OK(MPI_Win_lock_all(0, win));
  expect_class(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, peer, 0, win), MPI_ERR_RMA_SYNC, "MPI_Win_lock inside lock_all");
  expect_class(MPI_Win_fence(0, win), MPI_ERR_RMA_SYNC, "MPI_Win_fence inside lock_all");
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Win_sync(win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_free(&win));
}

static void compare_and_swap_types(void) {
  int64_t* base;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(2 * sizeof(int64_t), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  base[0] = base[1] = 0;
  MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  int peer = (rank + 1) % nranks;
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, peer, 0, win));
  double d = 1.0, dc = 0.0, dr = -1.0;
  expect_class(MPI_Compare_and_swap(&d, &dc, &dr, MPI_DOUBLE, peer, 0, win), MPI_ERR_TYPE, "MPI_Compare_and_swap of MPI_DOUBLE");
  float f = 1.0f, fc = 0.0f, fr = -1.0f;
  expect_class(MPI_Compare_and_swap(&f, &fc, &fr, MPI_FLOAT, peer, 0, win), MPI_ERR_TYPE, "MPI_Compare_and_swap of MPI_FLOAT");
  struct { int v, i; } p = {1, 2}, pc = {0, 0}, pr;
  expect_class(MPI_Compare_and_swap(&p, &pc, &pr, MPI_2INT, peer, 0, win), MPI_ERR_TYPE, "MPI_Compare_and_swap of MPI_2INT");
  MPI_Datatype two;
  MPI_OK(MPI_Type_contiguous(2, MPI_INT, &two));
  MPI_OK(MPI_Type_commit(&two));
  expect_class(MPI_Compare_and_swap(&p, &pc, &pr, two, peer, 0, win), MPI_ERR_TYPE, "MPI_Compare_and_swap of a derived type");
  MPI_OK(MPI_Type_free(&two));
  /* The allowed categories still work: an integer, a byte, a logical. */
  int64_t v = rank + 1, cmp = 0, old = -1;
  MPI_OK(MPI_Compare_and_swap(&v, &cmp, &old, MPI_INT64_T, peer, 0, win));
  MPI_OK(MPI_Win_flush(peer, win));
  CHECK_EQ(old, 0);
  unsigned char bv = 7, bc = 0, bo = 9;
  MPI_OK(MPI_Compare_and_swap(&bv, &bc, &bo, MPI_BYTE, peer, 8, win));
  MPI_OK(MPI_Win_flush(peer, win));
  CHECK_EQ(bo, 0);
  _Bool lv = 1, lc = 0, lo = 1;
  MPI_OK(MPI_Compare_and_swap(&lv, &lc, &lo, MPI_C_BOOL, peer, 9, win));
  MPI_OK(MPI_Win_unlock(peer, win));
  CHECK_EQ(lo, 0);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_EQ(base[0], (rank + nranks - 1) % nranks + 1);
  MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char** argv) {
  int level;
  init_test_at_level_arg(&argc, &argv, &rank, &nranks, &level);
  whole_call_accumulates();
  windows_on_malloc_freed();
  accumulate_flush_local_loop();
  get_accumulate_null_result();
  dynamic_adjacent_regions();
  sync_errors();
  compare_and_swap_types();
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("win_conformance: %d ranks passed\n", nranks);
  MPI_OK(MPI_Finalize());
  return 0;
}
