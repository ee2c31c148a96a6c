/* One-sided windows: every operation (put, get, accumulate, get_accumulate, fetch_and_op,
 * compare_and_swap, and their request-based forms) under every synchronisation mode (fence,
 * post/start/complete/wait, lock/unlock, lock_all/unlock_all with flushes) on every window kind
 * (MPI_Win_create on malloc'd and on stack memory, MPI_Win_allocate, MPI_Win_allocate_shared,
 * MPI_Win_create_dynamic), each value checked against what the ranks did; derived datatypes on
 * both sides; attributes; dynamic attach after use; shared_query pointers. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

enum { kSlots = 64 };  /* long longs per rank's window */
/* Layout of a window (in long longs): [0, n) put slots, SUM, FETCH, CAS, DSUM (double), then the
 * initial pattern from INIT on (read by gets), then the derived-type area DT. */
enum { SUM = 8, FETCH = 9, CAS = 10, DSUM = 11, INIT = 16, DT = 40, ACC_DT = 56 };

enum Kind { kCreateMalloc, kCreateStack, kCreateStatic, kAllocate, kShared, kDynamic, kKinds };
enum Mode { kFence, kPscw, kLock, kLockAll, kModes };
static const char* kind_names[] = {"create(malloc)", "create(stack)", "create(static)", "allocate", "allocate_shared",
                                   "dynamic"};
static long long static_mem[kSlots]; /* in the redistributed data segment */
static const char* mode_names[] = {"fence", "pscw", "lock", "lock_all"};

static int rank, nranks;
static int one_node; /* every rank on this node: shared windows work */
static MPI_Aint addrs[64]; /* dynamic windows: each rank's memory address */

static long long init_value(int r, int i) { return 10000LL * r + i; }

/* Target displacement of slot `i` of rank `t`'s memory. */
static MPI_Aint disp(enum Kind k, int t, int i) { return k == kDynamic ? addrs[t] + (MPI_Aint)i * 8 : i; }

static void open_epoch(enum Mode m, MPI_Win win) {
  MPI_Group g;
  switch (m) {
    case kFence: MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win)); break;
    case kPscw:
      MPI_OK(MPI_Win_get_group(win, &g));
      MPI_OK(MPI_Win_post(g, 0, win));
      MPI_OK(MPI_Win_start(g, 0, win));
      MPI_OK(MPI_Group_free(&g));
      break;
    case kLockAll: MPI_OK(MPI_Win_lock_all(0, win)); break;
    default: break;
  }
}
static void close_epoch(enum Mode m, MPI_Win win) {
  switch (m) {
    case kFence: MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win)); break;
    case kPscw:
      MPI_OK(MPI_Win_complete(win));
      MPI_OK(MPI_Win_wait(win));
      break;
    case kLockAll:
      MPI_OK(MPI_Win_flush_all(win));
      MPI_OK(MPI_Win_unlock_all(win));
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
      break;
    case kLock: MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); break;
    default: break;
  }
}
/* Lock mode locks around each operation (shared: several origins at once). */
static void begin_op(enum Mode m, int t, MPI_Win win) {
  if (m == kLock) MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
}
static void end_op(enum Mode m, int t, MPI_Win win) {
  if (m == kLock) MPI_OK(MPI_Win_unlock(t, win));
  if (m == kLockAll) MPI_OK(MPI_Win_flush(t, win));
}

static void reset(long long* mem) {
  for (int i = 0; i < kSlots; ++i) mem[i] = -1;
  mem[SUM] = 0;
  mem[FETCH] = 0;
  mem[CAS] = -1;
  double z = 0;
  memcpy(&mem[DSUM], &z, 8);
  for (int i = INIT; i < DT; ++i) mem[i] = init_value(rank, i);
  for (int i = ACC_DT; i < ACC_DT + 4; ++i) mem[i] = 0;
}

static MPI_Win make_window(enum Kind k, long long* stack_mem, long long** mem) {
  MPI_Win win;
  MPI_Aint bytes = kSlots * 8;
  switch (k) {
    case kCreateMalloc:
      *mem = malloc((size_t)bytes);
      MPI_OK(MPI_Win_create(*mem, bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
      break;
    case kCreateStack:
    case kCreateStatic:
      *mem = k == kCreateStack ? stack_mem : static_mem;
      MPI_OK(MPI_Win_create(*mem, bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
      break;
    case kAllocate: MPI_OK(MPI_Win_allocate(bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, mem, &win)); break;
    case kShared: MPI_OK(MPI_Win_allocate_shared(bytes, 8, MPI_INFO_NULL, MPI_COMM_WORLD, mem, &win)); break;
    default:
      MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
      *mem = malloc((size_t)bytes);
      MPI_OK(MPI_Win_attach(win, *mem, bytes));
      break;
  }
  reset(*mem);
  for (int i = 0; i < nranks; ++i) addrs[i] = 0;
  MPI_Get_address(*mem, &addrs[rank]);
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, addrs, nranks, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  return win;
}

static void free_window(enum Kind k, MPI_Win* win, long long* mem) {
  if (k == kDynamic) MPI_OK(MPI_Win_detach(*win, mem));
  MPI_OK(MPI_Win_free(win));
  CHECK(*win == MPI_WIN_NULL);
  if (k == kCreateMalloc || k == kDynamic) free(mem);
}

/* One round of every operation in one mode on one window kind. */
static void run(enum Kind k, enum Mode m) {
  long long stack_mem[kSlots];
  long long* mem;
  MPI_Win win = make_window(k, stack_mem, &mem);
  int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
  enum { kReps = 4 };

  /* put, get, request-based forms, derived types */
  long long value = 100LL * rank + 7, got[DT - INIT], vec[2 * 4], fetched[kReps], cas_result = 0, gacc[2];
  double dval = 0.5 * (rank + 1);
  MPI_Datatype strided; /* every other long long: 4 blocks */
  MPI_OK(MPI_Type_vector(4, 1, 2, MPI_LONG_LONG, &strided));
  MPI_OK(MPI_Type_commit(&strided));
  for (int i = 0; i < 8; ++i) vec[i] = (i % 2 == 0) ? 1000LL * rank + i : -5;
  memset(got, 0, sizeof got);
  open_epoch(m, win);

  begin_op(m, next, win);
  MPI_OK(MPI_Put(&value, 1, MPI_LONG_LONG, next, disp(k, next, rank), 1, MPI_LONG_LONG, win));
  end_op(m, next, win);

  begin_op(m, next, win);
  MPI_OK(MPI_Get(got, DT - INIT, MPI_LONG_LONG, next, disp(k, next, INIT), DT - INIT, MPI_LONG_LONG, win));
  end_op(m, next, win);

  /* origin strided -> target contiguous at DT + 4*rank ... only my own 4 slots of prev's window */
  begin_op(m, prev, win);
  MPI_OK(MPI_Put(vec, 1, strided, prev, disp(k, prev, DT + 4 * (rank % 4)), 4, MPI_LONG_LONG, win));
  end_op(m, prev, win);

  for (int i = 0; i < kReps; ++i) {
    begin_op(m, 0, win);
    long long one = rank + 1, add = 1;
    MPI_OK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, disp(k, 0, SUM), 1, MPI_LONG_LONG, MPI_SUM, win));
    MPI_OK(MPI_Fetch_and_op(&add, &fetched[i], MPI_LONG_LONG, 0, disp(k, 0, FETCH), MPI_SUM, win));
    MPI_OK(MPI_Accumulate(&dval, 1, MPI_DOUBLE, 0, disp(k, 0, DSUM), 1, MPI_DOUBLE, MPI_SUM, win));
    end_op(m, 0, win);
  }
  /* accumulate with a derived origin type: vec[0], vec[2], vec[4], vec[6] summed into 4 slots */
  begin_op(m, 0, win);
  MPI_OK(MPI_Accumulate(vec, 1, strided, 0, disp(k, 0, ACC_DT), 4, MPI_LONG_LONG, MPI_SUM, win));
  end_op(m, 0, win);
  begin_op(m, 0, win);
  long long mine = rank, cmp = -1;
  MPI_OK(MPI_Compare_and_swap(&mine, &cmp, &cas_result, MPI_LONG_LONG, 0, disp(k, 0, CAS), win));
  end_op(m, 0, win);
  /* get_accumulate NO_OP reads (the initial pattern of next, untouched by anyone) */
  begin_op(m, next, win);
  MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_LONG_LONG, gacc, 2, MPI_LONG_LONG, next, disp(k, next, INIT + 1), 2,
                            MPI_LONG_LONG, MPI_NO_OP, win));
  /* zero elements with NULL buffers, even with an op the type has not (mpi4py's test_rma): nothing
   * moves, and it succeeds as in Open MPI and MPICH */
  MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_BYTE, NULL, 0, MPI_BYTE, next, 0, 0, MPI_BYTE, MPI_SUM, win));
  MPI_OK(MPI_Accumulate(NULL, 0, MPI_BYTE, next, 0, 0, MPI_BYTE, MPI_PROD, win));
  end_op(m, next, win);
  close_epoch(m, win);

  /* What this rank holds now, and what it fetched. */
  CHECK_EQ(mem[prev], 100LL * prev + 7);
  for (int i = INIT; i < DT; ++i) CHECK_EQ(got[i - INIT], init_value(next, i));
  CHECK_EQ(gacc[0], init_value(next, INIT + 1));
  CHECK_EQ(gacc[1], init_value(next, INIT + 2));
  if (nranks <= 4) {  /* slots DT + 4*(r%4) are distinct: the writer is next (its put went to its prev = me) */
    for (int j = 0; j < 4; ++j) CHECK_EQ(mem[DT + 4 * (next % 4) + j], 1000LL * next + 2 * j);
  }
  long long sums[3] = {0, 0, 0};
  for (int i = 0; i < kReps; ++i) sums[0] += fetched[i];
  sums[1] = cas_result == -1 ? 1 : 0;
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  long long total = (long long)kReps * nranks;
  CHECK_EQ(sums[0], total * (total - 1) / 2); /* fetched values are 0 .. total-1, each once */
  CHECK_EQ(sums[1], 1);                       /* exactly one compare_and_swap won */
  if (rank == 0) {
    CHECK_EQ(mem[SUM], (long long)kReps * nranks * (nranks + 1) / 2);
    CHECK_EQ(mem[FETCH], total);
    CHECK(mem[CAS] >= 0 && mem[CAS] < nranks);
    double d;
    memcpy(&d, &mem[DSUM], 8);
    CHECK(d == kReps * 0.5 * nranks * (nranks + 1) / 2);
    for (int j = 0; j < 4; ++j) CHECK_EQ(mem[ACC_DT + j], 1000LL * nranks * (nranks - 1) / 2 + 2LL * j * nranks);
  }
  MPI_OK(MPI_Type_free(&strided));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  free_window(k, &win, mem);
}

/* Request-based operations in lock_all, with derived types on the target side. */
static void requests(enum Kind k) {
  long long stack_mem[kSlots];
  long long* mem;
  MPI_Win win = make_window(k, stack_mem, &mem);
  int next = (rank + 1) % nranks;
  MPI_Datatype every_other;
  MPI_OK(MPI_Type_vector(3, 1, 2, MPI_LONG_LONG, &every_other));
  MPI_OK(MPI_Type_commit(&every_other));
  long long three[3] = {rank * 10 + 1, rank * 10 + 2, rank * 10 + 3}, back[3] = {0, 0, 0}, old[3] = {0, 0, 0};
  long long ones[3] = {1, 1, 1};
  MPI_Request reqs[4];
  MPI_OK(MPI_Win_lock_all(0, win));
  MPI_OK(MPI_Rput(three, 3, MPI_LONG_LONG, next, disp(k, next, DT), 1, every_other, win, &reqs[0]));
  MPI_OK(MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE));
  MPI_OK(MPI_Win_flush(next, win));
  MPI_OK(MPI_Rget(back, 1, every_other, next, disp(k, next, INIT), 1, every_other, win, &reqs[1]));
  MPI_OK(MPI_Raccumulate(ones, 3, MPI_LONG_LONG, 0, disp(k, 0, SUM), 3, MPI_LONG_LONG, MPI_SUM, win, &reqs[2]));
  MPI_OK(MPI_Rget_accumulate(three, 3, MPI_LONG_LONG, old, 3, MPI_LONG_LONG, next, disp(k, next, DT), 1, every_other,
                             MPI_REPLACE, win, &reqs[3]));
  MPI_OK(MPI_Waitall(3, reqs + 1, MPI_STATUSES_IGNORE));
  for (int i = 0; i < 4; ++i) CHECK(reqs[i] == MPI_REQUEST_NULL);
  MPI_OK(MPI_Win_unlock_all(win));
  /* Rget with every_other on both sides: back[0] = INIT, back[1] untouched, back[2] = INIT + 2. */
  CHECK_EQ(back[0], init_value(next, INIT));
  CHECK_EQ(back[1], 0);
  CHECK_EQ(back[2], init_value(next, INIT + 2));
  for (int i = 0; i < 3; ++i) CHECK_EQ(old[i], rank * 10 + 1 + i); /* what the Rput left */
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  int prev = (rank + nranks - 1) % nranks;
  for (int i = 0; i < 3; ++i) CHECK_EQ(mem[DT + 2 * i], prev * 10 + 1 + i);
  for (int i = 0; i < 3; ++i) CHECK_EQ(mem[DT + 2 * i + 1], -1);
  if (rank == 0) {
    CHECK_EQ(mem[SUM], nranks);
    CHECK_EQ(mem[SUM + 1], nranks);
  }
  MPI_OK(MPI_Type_free(&every_other));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  free_window(k, &win, mem);
}

static void attributes(void) {
  long long* base;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(48, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  void* v;
  int flag;
  MPI_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
  CHECK(flag && v == base);
  MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag));
  CHECK(flag && *(MPI_Aint*)v == 48);
  MPI_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &v, &flag));
  CHECK(flag && *(int*)v == 4);
  MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
  CHECK(flag && *(int*)v == MPI_WIN_FLAVOR_ALLOCATE);
  MPI_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &v, &flag));
  CHECK(flag && *(int*)v == MPI_WIN_UNIFIED);
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_OK(MPI_Win_set_name(win, "grid"));
  MPI_OK(MPI_Win_get_name(win, name, &len));
  CHECK(len == 4 && strcmp(name, "grid") == 0);
  MPI_Group g, w;
  int cmp;
  MPI_OK(MPI_Win_get_group(win, &g));
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
  MPI_OK(MPI_Group_compare(g, w, &cmp));
  CHECK_EQ(cmp, MPI_IDENT);
  MPI_OK(MPI_Group_free(&g));
  MPI_OK(MPI_Group_free(&w));
  MPI_Info info, used;
  char value[32];
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "no_locks", "false"));
  MPI_OK(MPI_Win_set_info(win, info));
  MPI_OK(MPI_Win_get_info(win, &used));
  MPI_OK(MPI_Info_get(used, "no_locks", sizeof value - 1, value, &flag));
  CHECK(flag && strcmp(value, "false") == 0);
  MPI_OK(MPI_Info_free(&info));
  MPI_OK(MPI_Info_free(&used));
  int keyval, stored = 42;
  MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &keyval, NULL));
  MPI_OK(MPI_Win_set_attr(win, keyval, &stored));
  MPI_OK(MPI_Win_get_attr(win, keyval, &v, &flag));
  CHECK(flag && v == &stored);
  MPI_OK(MPI_Win_delete_attr(win, keyval));
  MPI_OK(MPI_Win_get_attr(win, keyval, &v, &flag));
  CHECK(!flag);
  MPI_OK(MPI_Win_free_keyval(&keyval));
  MPI_OK(MPI_Win_free(&win));

  /* Dynamic windows: MPI_WIN_BASE is MPI_BOTTOM, flavor dynamic. */
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
  CHECK(flag && v == MPI_BOTTOM);
  MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
  CHECK(flag && *(int*)v == MPI_WIN_FLAVOR_DYNAMIC);
  MPI_OK(MPI_Win_free(&win));
}

/* Windows on a sub-communicator (odd and even world ranks, reversed order): ranks are the
 * communicator's, memory comes from each process's own pool (no collective over all processes). */
static void sub_communicator(void) {
  MPI_Comm sub;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, nranks - rank, &sub));
  int srank, ssize;
  MPI_OK(MPI_Comm_rank(sub, &srank));
  MPI_OK(MPI_Comm_size(sub, &ssize));
  long long* mem;
  long long local[4] = {-1, -1, -1, -1};
  MPI_Win win, cwin;
  MPI_OK(MPI_Win_allocate(4 * 8, 8, MPI_INFO_NULL, sub, &mem, &win));
  MPI_OK(MPI_Win_create(local, sizeof local, 8, MPI_INFO_NULL, sub, &cwin));
  for (int i = 0; i < 4; ++i) mem[i] = 0;
  int next = (srank + 1) % ssize, prev = (srank + ssize - 1) % ssize;
  long long v = 100 * rank + 1, one = 1; /* world rank in the value: checks the rank mapping */
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Put(&v, 1, MPI_LONG_LONG, next, 0, 1, MPI_LONG_LONG, win));
  MPI_OK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, 1, 1, MPI_LONG_LONG, MPI_SUM, win));
  MPI_OK(MPI_Win_fence(0, win));
  MPI_Group g;
  MPI_OK(MPI_Win_get_group(cwin, &g));
  MPI_OK(MPI_Win_post(g, 0, cwin));
  MPI_OK(MPI_Win_start(g, 0, cwin));
  MPI_OK(MPI_Put(&v, 1, MPI_LONG_LONG, next, 2, 1, MPI_LONG_LONG, cwin));
  MPI_OK(MPI_Win_complete(cwin));
  MPI_OK(MPI_Win_wait(cwin));
  MPI_OK(MPI_Group_free(&g));
  /* the world rank of prev in sub, by the same split rule */
  int world_prev = -1;
  MPI_Group wg, sg;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  MPI_OK(MPI_Comm_group(sub, &sg));
  MPI_OK(MPI_Group_translate_ranks(sg, 1, &prev, wg, &world_prev));
  CHECK_EQ(mem[0], 100 * world_prev + 1);
  if (srank == 0) CHECK_EQ(mem[1], ssize);
  CHECK_EQ(local[2], 100 * world_prev + 1);
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, prev, 0, cwin));
  long long got = 0;
  MPI_OK(MPI_Get(&got, 1, MPI_LONG_LONG, prev, 2, 1, MPI_LONG_LONG, cwin));
  MPI_OK(MPI_Win_unlock(prev, cwin));
  int world_prev2 = -1, prev2 = (prev + ssize - 1) % ssize;
  MPI_OK(MPI_Group_translate_ranks(sg, 1, &prev2, wg, &world_prev2));
  CHECK_EQ(got, 100 * world_prev2 + 1);
  MPI_OK(MPI_Group_free(&wg));
  MPI_OK(MPI_Group_free(&sg));
  MPI_OK(MPI_Win_free(&cwin));
  MPI_OK(MPI_Win_free(&win));
  MPI_OK(MPI_Comm_free(&sub));
}

/* MPI_MODE_NOCHECK locks (each rank alone on its target): no lock word is taken, data still moves. */
static void nocheck(void) {
  long long* mem;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  *mem = -1;
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
  long long v = 300 + rank;
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, next, MPI_MODE_NOCHECK, win));
  MPI_OK(MPI_Put(&v, 1, MPI_LONG_LONG, next, 0, 1, MPI_LONG_LONG, win));
  MPI_OK(MPI_Win_unlock(next, win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_EQ(*mem, 300 + prev);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  MPI_OK(MPI_Get(&v, 1, MPI_LONG_LONG, next, 0, 1, MPI_LONG_LONG, win));
  MPI_OK(MPI_Win_unlock_all(win));
  CHECK_EQ(v, 300 + rank);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_free(&win));
}

/* Dynamic windows: regions attached after peers used the window are found (the cached region
 * table is refreshed on a miss); detached ones are refused. */
static void attach_after_use(void) {
  MPI_Win win;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  long long* a = malloc(16 * 8);
  long long* b;
  MPI_OK(MPI_Alloc_mem(16 * 8, MPI_INFO_NULL, &b)); /* in a segment: reached without memreg */
  for (int i = 0; i < 16; ++i) a[i] = b[i] = -1;
  MPI_OK(MPI_Win_attach(win, a, 16 * 8));
  MPI_Aint where[2][64];
  memset(where, 0, sizeof where);
  MPI_Get_address(a, &where[0][rank]);
  MPI_Get_address(b, &where[1][rank]);
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, where, 2 * 64, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
  int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
  long long v = rank;
  MPI_OK(MPI_Win_lock_all(0, win));
  MPI_OK(MPI_Put(&v, 1, MPI_LONG_LONG, next, where[0][next], 1, MPI_LONG_LONG, win));
  MPI_OK(MPI_Win_flush_all(win));
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_EQ(a[0], prev);
  MPI_OK(MPI_Win_attach(win, b, 16 * 8)); /* after use */
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  v = 1000 + rank;
  MPI_OK(MPI_Win_lock_all(0, win));
  MPI_OK(MPI_Put(&v, 1, MPI_LONG_LONG, next, where[1][next] + 8, 1, MPI_LONG_LONG, win));
  MPI_OK(MPI_Accumulate(&v, 1, MPI_LONG_LONG, next, where[0][next] + 8, 1, MPI_LONG_LONG, MPI_REPLACE, win));
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_EQ(b[1], 1000 + prev);
  CHECK_EQ(a[1], 1000 + prev);
  /* Detach, and an address never attached is refused (after the origin refreshed its table). */
  MPI_OK(MPI_Win_detach(win, a));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
  int rc = MPI_Put(&v, 1, MPI_LONG_LONG, next, where[1][next] + 16 * 8, 1, MPI_LONG_LONG, win), cls;
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_RMA_RANGE);
  MPI_OK(MPI_Win_unlock(next, win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_detach(win, b));
  MPI_OK(MPI_Win_free(&win));
  MPI_OK(MPI_Free_mem(b));
  free(a);
}

/* Windows on malloc'd memory spanning several pages: the whole pages are moved onto shared pages
 * (plain stores from same-node peers), the partial pages at the edges are reached through
 * core/memreg; one put or get of the whole window crosses both, accumulates land in each part. */
static void big_user_memory(void) {
  enum { kBytes = 3 * 4096 + 1000, kLongs = kBytes / 8 };
  for (int dynamic = 0; dynamic < 2; ++dynamic) {
    char* raw = malloc(kBytes + 64);
    long long* mem = (long long*)(raw + 24); /* not page aligned */
    long long* out = malloc(kBytes);
    long long* back = malloc(kBytes);
    for (int i = 0; i < kLongs; ++i) mem[i] = -1;
    MPI_Win win;
    MPI_Aint where[64];
    memset(where, 0, sizeof where);
    if (dynamic) {
      MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
      MPI_OK(MPI_Win_attach(win, mem, kLongs * 8));
      MPI_Get_address(mem, &where[rank]);
      MPI_OK(MPI_Allreduce(MPI_IN_PLACE, where, 64, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
    } else {
      MPI_OK(MPI_Win_create(mem, kLongs * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    }
    int next = (rank + 1) % nranks, prev = (rank + nranks - 1) % nranks;
    for (int i = 0; i < kLongs; ++i) out[i] = 1000000LL * rank + i;
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Put(out, kLongs, MPI_LONG_LONG, next, dynamic ? where[next] : 0, kLongs, MPI_LONG_LONG, win));
    MPI_OK(MPI_Win_flush_all(win));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int i = 0; i < kLongs; ++i) CHECK_EQ(mem[i], 1000000LL * prev + i);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_OK(MPI_Get(back, kLongs, MPI_LONG_LONG, next, dynamic ? where[next] : 0, kLongs, MPI_LONG_LONG, win));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    long long one = 1;
    int spots[3] = {0, kLongs / 2, kLongs - 1}; /* head edge, shared pages, tail edge */
    for (int j = 0; j < 3; ++j) {
      MPI_Aint d = dynamic ? where[0] + spots[j] * 8 : spots[j];
      MPI_OK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, d, 1, MPI_LONG_LONG, MPI_SUM, win));
    }
    MPI_OK(MPI_Win_unlock_all(win));
    for (int i = 0; i < kLongs; ++i) CHECK_EQ(back[i], 1000000LL * rank + i);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) {
      for (int j = 0; j < 3; ++j) CHECK_EQ(mem[spots[j]], 1000000LL * prev + spots[j] + nranks);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (dynamic) MPI_OK(MPI_Win_detach(win, mem));
    MPI_OK(MPI_Win_free(&win));
    /* After the free the memory is private again and still holds the data. */
    if (rank != 0) CHECK_EQ(mem[kLongs / 2], 1000000LL * prev + kLongs / 2);
    mem[kLongs / 2] = 5;
    CHECK_EQ(mem[kLongs / 2], 5);
    free(raw);
    free(out);
    free(back);
  }
}

/* allocate_shared: contiguous memory, real pointers to every rank's part; also shared_query on an
 * MPI_Win_allocate window of this node. */
static void shared_memory(void) {
  int* mine;
  MPI_Win win;
  MPI_Aint size = (MPI_Aint)(rank + 1) * sizeof(int) * 4;
  MPI_OK(MPI_Win_allocate_shared(size, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mine, &win));
  MPI_OK(MPI_Win_lock_all(0, win));
  for (int i = 0; i < (rank + 1) * 4; ++i) mine[i] = rank * 100 + i;
  MPI_OK(MPI_Win_sync(win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_sync(win));
  int* zero = NULL;
  for (int r = 0; r < nranks; ++r) {
    MPI_Aint sz;
    int du;
    int* p;
    MPI_OK(MPI_Win_shared_query(win, r, &sz, &du, &p));
    CHECK_EQ(sz, (r + 1) * 4 * (MPI_Aint)sizeof(int));
    CHECK_EQ(du, sizeof(int));
    if (r == 0) zero = p;
    CHECK(p == zero + 2 * r * (r + 1)); /* contiguous: sizes 4, 8, 12, ... ints */
    for (int i = 0; i < (r + 1) * 4; ++i) CHECK_EQ(p[i], r * 100 + i);
  }
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_free(&win));

  long long* base;
  MPI_OK(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  base[0] = 77 + rank;
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  int next = (rank + 1) % nranks;
  MPI_Aint sz;
  int du;
  long long* p;
  MPI_OK(MPI_Win_shared_query(win, next, &sz, &du, &p)); /* one node: MPI_Win_allocate memory is shared too */
  CHECK_EQ(sz, 64);
  CHECK_EQ(p[0], 77 + next);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  CHECK(nranks <= 64);
  MPI_Comm node;
  int node_size;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_OK(MPI_Comm_size(node, &node_size));
  MPI_OK(MPI_Comm_free(&node));
  one_node = node_size == nranks;
  for (int k = 0; k < kKinds; ++k) {
    if (k == kShared && !one_node) continue;
    for (int m = 0; m < kModes; ++m) {
      run((enum Kind)k, (enum Mode)m);
      if (rank == 0 && getenv("WIN_VERBOSE")) printf("ok %s %s\n", kind_names[k], mode_names[m]);
    }
    requests((enum Kind)k);
  }
  attributes();
  nocheck();
  sub_communicator();
  attach_after_use();
  big_user_memory();
  if (one_node) shared_memory();
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("win: all checks passed on %d ranks%s\n", nranks, one_node ? "" : " (several nodes: allocate_shared left out)");
  return 0;
}
