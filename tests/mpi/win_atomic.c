/* One-sided atomicity and errors: concurrent accumulates (MPI_SUM on integers and doubles,
 * MPI_MAX, MPI_REPLACE chains, MPI_NO_OP reads), fetch_and_op and compare_and_swap from every rank
 * to one location give the exact result; exclusive locks exclude each other and writers get in
 * while another rank keeps taking shared locks (fairness); misuse returns the documented error
 * classes under MPI_ERRORS_RETURN and reaches a user error handler; threads of one rank share a
 * passive epoch (MPI_THREAD_MULTIPLE). Each on MPI_Win_allocate
 * memory and on MPI_Win_create of malloc'd memory (see make()). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int rank, nranks;
enum { kIters = 200 };
/* Window layout (long longs): COUNTER, DSUM (double), MAXV, CHAIN, CAS_OWNER, SHORTS (4 shorts), EXCL */
enum { COUNTER, DSUM, MAXV, CHAIN, CAS_OWNER, SHORTS, EXCL, DONE, kSlots };

/* Window kinds: MPI_Win_allocate; MPI_Win_create on a small malloc'd buffer (no whole page:
 * accumulates under the target's accumulate lock); on a large one with the slots in its shared
 * pages (CPU atomics on the mapped pages when every rank is on this node). */
enum { kAllocated, kSmallMalloc, kPagesMalloc, kVariants };
static MPI_Aint D0;   /* displacement of slot 0 */
static char* raw;

static MPI_Win make(int variant, long long** mem) {
  MPI_Win win;
  D0 = 0;
  if (variant == kSmallMalloc) {
    *mem = malloc(kSlots * 8);
    MPI_OK(MPI_Win_create(*mem, kSlots * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  } else if (variant == kPagesMalloc) {
    raw = malloc(3 * 4096);
    D0 = 512;
    *mem = (long long*)raw + D0;
    MPI_OK(MPI_Win_create(raw, 3 * 4096, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  } else {
    MPI_OK(MPI_Win_allocate(kSlots * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, mem, &win));
  }
  memset(*mem, 0, kSlots * 8);
  (*mem)[CHAIN] = -1;
  (*mem)[CAS_OWNER] = -1;
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  return win;
}

static void release(int variant, long long* mem) {
  if (variant == kSmallMalloc) free(mem);
  if (variant == kPagesMalloc) free(raw);
}

static void concurrent(int variant) {
  long long* mem;
  MPI_Win win = make(variant, &mem);
  MPI_OK(MPI_Win_lock_all(0, win));
  long long sum_fetched = 0, chain_fetched = 0, max_seen = 0;
  int cas_wins = 0;
  for (int i = 0; i < kIters; ++i) {
    long long one = 1, old;
    double half = 0.5;
    long long candidate = (long long)rank * kIters + i;
    MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, D0 + COUNTER, MPI_SUM, win));
    sum_fetched += old;
    MPI_OK(MPI_Accumulate(&half, 1, MPI_DOUBLE, 0, D0 + DSUM, 1, MPI_DOUBLE, MPI_SUM, win));
    MPI_OK(MPI_Accumulate(&candidate, 1, MPI_LONG_LONG, 0, D0 + MAXV, 1, MPI_LONG_LONG, MPI_MAX, win));
    /* REPLACE chain: every value written is fetched exactly once by the next writer (or stays). */
    long long mine = candidate;
    MPI_OK(MPI_Get_accumulate(&mine, 1, MPI_LONG_LONG, &old, 1, MPI_LONG_LONG, 0, D0 + CHAIN, 1, MPI_LONG_LONG, MPI_REPLACE,
                              win));
    chain_fetched += old;
    /* NO_OP reads a value that only grows. */
    long long seen;
    MPI_OK(MPI_Fetch_and_op(NULL, &seen, MPI_LONG_LONG, 0, D0 + MAXV, MPI_NO_OP, win));
    MPI_OK(MPI_Win_flush(0, win));
    CHECK(seen >= max_seen);
    max_seen = seen;
    /* shorts: CPU compare-and-swap of their word when every rank is on this node, else the accumulate lock */
    short s[4] = {1, 1, 1, 1};
    MPI_OK(MPI_Accumulate(s, 4, MPI_SHORT, 0, D0 + SHORTS, 4, MPI_SHORT, MPI_SUM, win));
  }
  long long me = rank, none = -1, prev;
  MPI_OK(MPI_Compare_and_swap(&me, &none, &prev, MPI_LONG_LONG, 0, D0 + CAS_OWNER, win));
  cas_wins = prev == -1;
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));

  long long total = (long long)kIters * nranks;
  long long sums[3] = {sum_fetched, chain_fetched, cas_wins};
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, sums, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  CHECK_EQ(sums[0], total * (total - 1) / 2);
  CHECK_EQ(sums[2], 1);
  if (rank == 0) {
    CHECK_EQ(mem[COUNTER], total);
    double d;
    memcpy(&d, &mem[DSUM], 8);
    CHECK(d == 0.5 * (double)total);
    CHECK_EQ(mem[MAXV], (long long)(nranks - 1) * kIters + kIters - 1);
    /* fetched values + final value = initial (-1) + every value written (0 .. total-1) */
    CHECK_EQ(sums[1] + mem[CHAIN], -1 + total * (total - 1) / 2);
    short* shorts = (short*)&mem[SHORTS];
    for (int j = 0; j < 4; ++j) CHECK_EQ(shorts[j], nranks * kIters);
    CHECK(mem[CAS_OWNER] >= 0 && mem[CAS_OWNER] < nranks);
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_free(&win));
  release(variant, mem);
}

/* Exclusive writers increment a counter by get + put (not atomic by itself): the lock must make
 * the result exact. Rank 0 keeps taking shared locks until every writer is done: writers must not
 * starve behind the stream of readers. */
static void fairness(int variant) {
  long long* mem;
  MPI_Win win = make(variant, &mem);
  enum { kWrites = 50 };
  if (rank == 0 && nranks > 1) {
    long long done = 0;
    int rounds = 0;
    while (done < nranks - 1) {
      MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
      MPI_OK(MPI_Get(&done, 1, MPI_LONG_LONG, 0, D0 + DONE, 1, MPI_LONG_LONG, win));
      MPI_OK(MPI_Win_unlock(0, win));
      ++rounds;
    }
  } else {
    for (int i = 0; i < kWrites; ++i) {
      long long v;
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      MPI_OK(MPI_Get(&v, 1, MPI_LONG_LONG, 0, D0 + EXCL, 1, MPI_LONG_LONG, win));
      MPI_OK(MPI_Win_flush(0, win));
      ++v;
      MPI_OK(MPI_Put(&v, 1, MPI_LONG_LONG, 0, D0 + EXCL, 1, MPI_LONG_LONG, win));
      MPI_OK(MPI_Win_unlock(0, win));
    }
    long long one = 1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
    MPI_OK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, D0 + DONE, 1, MPI_LONG_LONG, MPI_SUM, win));
    MPI_OK(MPI_Win_unlock(0, win));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) CHECK_EQ(mem[EXCL], (long long)(nranks > 1 ? nranks - 1 : 1) * kWrites);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_free(&win));
  release(variant, mem);
}

static int handler_calls, handler_code;
static void on_error(MPI_Win* win, int* code, ...) {
  (void)win;
  ++handler_calls;
  handler_code = *code;
}

static int error_class(int rc) {
  int cls;
  MPI_Error_class(rc, &cls);
  return cls;
}

static void errors(void) {
  long long* mem;
  MPI_Win win, dyn;
  MPI_OK(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_Errhandler eh;
  MPI_OK(MPI_Win_get_errhandler(win, &eh));
  CHECK(eh == MPI_ERRORS_ARE_FATAL);
  MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  long long v = 1, r;
  int next = (rank + 1) % nranks;
  /* outside any epoch */
  CHECK_EQ(error_class(MPI_Put(&v, 1, MPI_LONG_LONG, next, 0, 1, MPI_LONG_LONG, win)), MPI_ERR_RMA_SYNC);
  CHECK_EQ(error_class(MPI_Win_unlock(next, win)), MPI_ERR_RMA_SYNC);
  CHECK_EQ(error_class(MPI_Win_complete(win)), MPI_ERR_RMA_SYNC);
  CHECK_EQ(error_class(MPI_Win_wait(win)), MPI_ERR_RMA_SYNC);
  CHECK_EQ(error_class(MPI_Win_lock(77, next, 0, win)), MPI_ERR_LOCKTYPE);
  CHECK_EQ(error_class(MPI_Win_lock(MPI_LOCK_SHARED, nranks + 3, 0, win)), MPI_ERR_RANK);
  CHECK_EQ(error_class(MPI_Win_fence(12345, win)), MPI_ERR_ASSERT);
  CHECK_EQ(error_class(MPI_Win_attach(win, &v, 8)), MPI_ERR_RMA_FLAVOR);
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win));
  CHECK_EQ(error_class(MPI_Win_lock(MPI_LOCK_SHARED, next, 0, win)), MPI_ERR_RMA_SYNC);
  CHECK_EQ(error_class(MPI_Put(&v, 1, MPI_LONG_LONG, next, 8, 1, MPI_LONG_LONG, win)), MPI_ERR_RMA_RANGE);
  CHECK_EQ(error_class(MPI_Put(&v, 2, MPI_LONG_LONG, next, 7, 2, MPI_LONG_LONG, win)), MPI_ERR_RMA_RANGE);
  CHECK_EQ(error_class(MPI_Get(&v, 1, MPI_LONG_LONG, next, -1, 1, MPI_LONG_LONG, win)), MPI_ERR_RMA_RANGE);
  CHECK_EQ(error_class(MPI_Put(&v, 1, MPI_LONG_LONG, nranks, 0, 1, MPI_LONG_LONG, win)), MPI_ERR_RANK);
  CHECK_EQ(error_class(MPI_Put(&v, -1, MPI_LONG_LONG, next, 0, 1, MPI_LONG_LONG, win)), MPI_ERR_COUNT);
  CHECK_EQ(error_class(MPI_Put(&v, 1, MPI_DATATYPE_NULL, next, 0, 1, MPI_LONG_LONG, win)), MPI_ERR_TYPE);
  MPI_Op no_op = INVALID_HANDLE(MPI_Op, 999);
  CHECK_EQ(error_class(MPI_Accumulate(&v, 1, MPI_LONG_LONG, next, 0, 1, MPI_LONG_LONG, no_op, win)), MPI_ERR_OP);
  double dv = 1;
  CHECK_EQ(error_class(MPI_Accumulate(&dv, 1, MPI_DOUBLE, next, 0, 1, MPI_DOUBLE, MPI_BAND, win)), MPI_ERR_OP);
  CHECK_EQ(error_class(MPI_Fetch_and_op(&v, &r, MPI_LONG_LONG, next, 9, MPI_SUM, win)), MPI_ERR_RMA_RANGE);
  MPI_OK(MPI_Put(&v, 1, MPI_LONG_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG_LONG, win)); /* no-op */
  MPI_OK(MPI_Win_unlock(next, win));
  MPI_Request req;
  CHECK_EQ(error_class(MPI_Rput(&v, 1, MPI_LONG_LONG, next, 0, 1, MPI_LONG_LONG, win, &req)), MPI_ERR_RMA_SYNC);
  CHECK_EQ(error_class(MPI_Win_flush(next, win)), MPI_ERR_RMA_SYNC);
  MPI_Aint sz;
  int du;
  void* p;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dyn));
  MPI_OK(MPI_Win_set_errhandler(dyn, MPI_ERRORS_RETURN));
  p = &v; /* MPI 4.1: a dynamic window answers size 0 and a NULL base (it was MPI_ERR_RMA_FLAVOR) */
  MPI_OK(MPI_Win_shared_query(dyn, 0, &sz, &du, &p));
  CHECK(sz == 0 && p == NULL);
  CHECK_EQ(error_class(MPI_Win_detach(dyn, &v)), MPI_ERR_RMA_ATTACH);
  MPI_OK(MPI_Win_attach(dyn, mem, 64));
  CHECK_EQ(error_class(MPI_Win_attach(dyn, mem + 2, 8)), MPI_ERR_RMA_ATTACH); /* overlaps */
  MPI_OK(MPI_Win_detach(dyn, mem));
  MPI_OK(MPI_Win_free(&dyn));
  /* invalid window handle: MPI_COMM_WORLD's handler */
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK_EQ(error_class(MPI_Win_fence(0, MPI_WIN_NULL)), MPI_ERR_WIN);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
  /* a user handler sees the code */
  MPI_Errhandler mine;
  MPI_OK(MPI_Win_create_errhandler(on_error, &mine));
  MPI_OK(MPI_Win_set_errhandler(win, mine));
  int rc = MPI_Win_unlock(next, win);
  CHECK_EQ(error_class(rc), MPI_ERR_RMA_SYNC);
  CHECK_EQ(handler_calls, 1);
  CHECK_EQ(error_class(handler_code), MPI_ERR_RMA_SYNC);
  MPI_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
  CHECK_EQ(handler_calls, 2);
  CHECK_EQ(handler_code, MPI_ERR_OTHER);
  MPI_OK(MPI_Errhandler_free(&mine));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_free(&win));
}

/* MPI_THREAD_MULTIPLE: two threads per rank fetch-and-add into rank 0 inside one lock_all epoch;
 * every fetched value is distinct and the total exact. */
struct ThreadArgs {
  MPI_Win win;
  long long fetched_sum;
};
enum { kThreadIters = 100 };
static void* thread_body(void* p) {
  struct ThreadArgs* a = p;
  for (int i = 0; i < kThreadIters; ++i) {
    long long one = 1, old;
    MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, COUNTER, MPI_SUM, a->win));
    MPI_OK(MPI_Win_flush(0, a->win));
    a->fetched_sum += old;
  }
  return NULL;
}

static void threads(void) {
  int provided;
  MPI_OK(MPI_Query_thread(&provided));
  CHECK_EQ(provided, MPI_THREAD_MULTIPLE);
  long long* mem;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(kSlots * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  memset(mem, 0, kSlots * 8);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_lock_all(0, win));
  struct ThreadArgs args[2] = {{win, 0}, {win, 0}};
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) CHECK(pthread_create(&t[i], NULL, thread_body, &args[i]) == 0);
  for (int i = 0; i < 2; ++i) CHECK(pthread_join(t[i], NULL) == 0);
  MPI_OK(MPI_Win_unlock_all(win));
  long long sum = args[0].fetched_sum + args[1].fetched_sum;
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
  long long total = 2LL * kThreadIters * nranks;
  CHECK_EQ(sum, total * (total - 1) / 2);
  if (rank == 0) CHECK_EQ(mem[COUNTER], total);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_free(&win));
}

/* `win_atomic fatal`: misuse under the default MPI_ERRORS_ARE_FATAL ends the job with a message
 * naming the call, the rank, the window and the value (tests/mpi/BUILD expects it). */
static void fatal(void) {
  long long* mem;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(64, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  MPI_OK(MPI_Win_set_name(win, "grid"));
  long long v = 1;
  if (rank == 1) MPI_Put(&v, 1, MPI_LONG_LONG, 0, 0, 1, MPI_LONG_LONG, win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
}

int main(int argc, char** argv) {
  int provided;
  MPI_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
    fatal();
    CHECK(0); /* not reached: the put above ends the job */
  }
  for (int variant = 0; variant < kVariants; ++variant) {
    concurrent(variant);
    fairness(variant);
  }
  errors();
  threads();
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("win_atomic: all checks passed on %d ranks\n", nranks);
  return 0;
}
