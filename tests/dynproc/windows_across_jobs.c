/* RMA windows on communicators spanning jobs: this job (the parents) spawns 1 and then
 * 2 children; each time the spawn intercommunicator is merged (parents low), and so is a second
 * one made by MPI_Comm_accept (parents) / MPI_Comm_connect (children, port name sent over the
 * spawn intercommunicator). On each merged communicator:
 *  - MPI_Win_allocate, MPI_Win_create on MPI_Alloc_mem and on malloc'd memory, and
 *    MPI_Win_create_dynamic with a malloc'd buffer attached: every rank targets every rank
 *    (both jobs, both directions) with put/get (fence), accumulate SUM on integers and doubles
 *    (fence), fetch_and_op (lock_all + flush), compare_and_swap (exclusive lock: one winner per
 *    target), get_accumulate (shared lock), MPI_NO_OP reads, put + flush + get back in one lock
 *    epoch, PSCW puts, and a 64 KiB put/get checked byte by byte;
 *  - a put/get outside a window of the other job fails at the origin with MPI_ERR_RMA_RANGE;
 *  - MPI_Win_allocate_shared is refused on every rank (MPI_ERR_RMA_SHARED: jobs share no memory)
 *    and the communicator stays usable. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/mpi/check.h"

enum { kBulk = 64 << 10 };

static int error_class(int rc) {
  int cls = -1;
  MPI_OK(MPI_Error_class(rc, &cls));
  return cls;
}

/* Slots of a window (int64 each), for `n` ranks. */
static int slot_put(int from) { return from; }
static int slot_acc(int n) { return n; }
static int slot_fop(int n) { return n + 1; }
static int slot_cas(int n) { return n + 2; }
static int slot_getacc(int n) { return n + 3; }
static int slot_lockput(int n) { return n + 4; }
static int slot_pscw(int n, int from) { return n + 5 + from; }
static int slot_double(int n) { return 2 * n + 5; }
static int n_slots(int n) { return 2 * n + 6; }
static size_t window_bytes(int n) { return 8 * (size_t)n_slots(n) + kBulk; }

static unsigned char pattern(int from, size_t i) { return (unsigned char)(from * 37 + i * 7 + 1); }

/* The displacement of `slot` at target `t`: slots of 8 bytes (disp_unit 8), or, in a dynamic
 * window (`bases` non-null, disp_unit 1), bytes from the address the target attached. */
static MPI_Aint at(const MPI_Aint* bases, int t, int slot) { return bases != NULL ? bases[t] + 8 * (MPI_Aint)slot : slot; }

/* `mem` is this rank's window memory (window_bytes(n)). */
static void exercise(MPI_Win win, int64_t* mem, MPI_Comm comm, const MPI_Aint* bases) {
  int me, n;
  MPI_OK(MPI_Comm_rank(comm, &me));
  MPI_OK(MPI_Comm_size(comm, &n));
  for (int i = 0; i < n_slots(n); ++i) mem[i] = 0;
  mem[slot_cas(n)] = -1;
  double* dslot = (double*)&mem[slot_double(n)];
  *dslot = 0.0;
  unsigned char* bulk = (unsigned char*)(mem + n_slots(n));
  memset(bulk, 0, kBulk);
  MPI_OK(MPI_Barrier(comm));

  /* Fence: puts to every rank, then gets of what this rank put, accumulates. */
  MPI_OK(MPI_Win_fence(0, win));
  for (int t = 0; t < n; ++t) {
    int64_t v = (me + 1) * 1000 + t;
    MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, t, at(bases, t, slot_put(me)), 1, MPI_INT64_T, win));
    int64_t one = me + 1;
    MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, t, at(bases, t, slot_acc(n)), 1, MPI_INT64_T, MPI_SUM, win));
    double half = 0.5 * (me + 1);
    MPI_OK(MPI_Accumulate(&half, 1, MPI_DOUBLE, t, at(bases, t, slot_double(n)), 1, MPI_DOUBLE, MPI_SUM, win));
  }
  MPI_OK(MPI_Win_fence(0, win));
  for (int r = 0; r < n; ++r) CHECK_EQ(mem[slot_put(r)], (r + 1) * 1000 + me);
  CHECK_EQ(mem[slot_acc(n)], (int64_t)n * (n + 1) / 2);
  CHECK(*dslot == 0.25 * n * (n + 1));
  int64_t* got = malloc(sizeof(int64_t) * (size_t)n);
  for (int t = 0; t < n; ++t) MPI_OK(MPI_Get(&got[t], 1, MPI_INT64_T, t, at(bases, t, slot_put(me)), 1, MPI_INT64_T, win));
  /* 64 KiB to the next rank (in the other job whenever the ranks there follow). */
  unsigned char* out = malloc(kBulk);
  for (size_t i = 0; i < kBulk; ++i) out[i] = pattern(me, i);
  MPI_OK(MPI_Put(out, kBulk, MPI_BYTE, (me + 1) % n, at(bases, (me + 1) % n, n_slots(n)), kBulk, MPI_BYTE, win));
  MPI_OK(MPI_Win_fence(0, win));
  for (int t = 0; t < n; ++t) CHECK_EQ(got[t], (me + 1) * 1000 + t);
  int prev = (me + n - 1) % n;
  for (size_t i = 0; i < kBulk; ++i) CHECK_EQ(bulk[i], pattern(prev, i));
  unsigned char* back = malloc(kBulk);
  MPI_OK(MPI_Get(back, kBulk, MPI_BYTE, (me + 1) % n, at(bases, (me + 1) % n, n_slots(n)), kBulk, MPI_BYTE, win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
  CHECK(memcmp(back, out, kBulk) == 0);

  /* lock_all: fetch_and_op on every rank, flushed one by one. */
  MPI_OK(MPI_Win_lock_all(0, win));
  for (int t = 0; t < n; ++t) {
    int64_t one = 1, old = -1;
    MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, t, at(bases, t, slot_fop(n)), MPI_SUM, win));
    MPI_OK(MPI_Win_flush(t, win));
    CHECK(old >= 0 && old < n);
  }
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Barrier(comm));
  CHECK_EQ(mem[slot_fop(n)], n);

  /* Exclusive locks: compare_and_swap, exactly one winner per target; put + flush + get back. */
  int wins = 0;
  for (int t = 0; t < n; ++t) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
    int64_t mine = me, expect = -1, old = -2;
    MPI_OK(MPI_Compare_and_swap(&mine, &expect, &old, MPI_INT64_T, t, at(bases, t, slot_cas(n)), win));
    MPI_OK(MPI_Win_flush(t, win));
    if (old == -1) ++wins;
    else CHECK(old >= 0 && old < n);
    int64_t v = 7000 + me, seen = -1;
    MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, t, at(bases, t, slot_lockput(n)), 1, MPI_INT64_T, win));
    MPI_OK(MPI_Win_flush(t, win));
    MPI_OK(MPI_Get(&seen, 1, MPI_INT64_T, t, at(bases, t, slot_lockput(n)), 1, MPI_INT64_T, win));
    MPI_OK(MPI_Win_unlock(t, win));
    CHECK_EQ(seen, v);  /* nobody else may write under this exclusive lock */
  }
  int total_wins = 0;
  MPI_OK(MPI_Allreduce(&wins, &total_wins, 1, MPI_INT, MPI_SUM, comm));
  CHECK_EQ(total_wins, n);
  CHECK(mem[slot_cas(n)] >= 0 && mem[slot_cas(n)] < n);

  /* Shared locks: get_accumulate SUM; the olds seen are distinct partial sums. */
  for (int t = 0; t < n; ++t) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
    int64_t add = me + 1, old = -1;
    MPI_OK(MPI_Get_accumulate(&add, 1, MPI_INT64_T, &old, 1, MPI_INT64_T, t, at(bases, t, slot_getacc(n)), 1, MPI_INT64_T, MPI_SUM,
                              win));
    MPI_OK(MPI_Win_unlock(t, win));
    CHECK(old >= 0 && old <= (int64_t)n * (n + 1) / 2 - add);
  }
  MPI_OK(MPI_Barrier(comm));
  CHECK_EQ(mem[slot_getacc(n)], (int64_t)n * (n + 1) / 2);
  /* Every rank reads every rank's results remotely (MPI_NO_OP). */
  MPI_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
  for (int t = 0; t < n; ++t) {
    int64_t v = -1, dummy = 0;
    MPI_OK(MPI_Get_accumulate(&dummy, 1, MPI_INT64_T, &v, 1, MPI_INT64_T, t, at(bases, t, slot_getacc(n)), 1, MPI_INT64_T,
                              MPI_NO_OP, win));
    MPI_OK(MPI_Win_flush(t, win));
    CHECK_EQ(v, (int64_t)n * (n + 1) / 2);
  }
  MPI_OK(MPI_Win_unlock_all(win));
  MPI_OK(MPI_Barrier(comm));

  /* PSCW: everyone exposes to and accesses everyone. */
  MPI_Group group, others;
  MPI_OK(MPI_Comm_group(comm, &group));
  MPI_OK(MPI_Group_excl(group, 1, &me, &others));
  if (n > 1) {
    MPI_OK(MPI_Win_post(others, 0, win));
    MPI_OK(MPI_Win_start(others, 0, win));
    for (int t = 0; t < n; ++t) {
      if (t == me) continue;
      int64_t v = 5000 + 10 * me + t;
      MPI_OK(MPI_Put(&v, 1, MPI_INT64_T, t, at(bases, t, slot_pscw(n, me)), 1, MPI_INT64_T, win));
    }
    MPI_OK(MPI_Win_complete(win));
    MPI_OK(MPI_Win_wait(win));
    for (int r = 0; r < n; ++r) {
      if (r != me) CHECK_EQ(mem[slot_pscw(n, r)], 5000 + 10 * r + me);
    }
  }
  MPI_OK(MPI_Group_free(&others));
  MPI_OK(MPI_Group_free(&group));
  free(back);
  free(out);
  free(got);
}

/* Each flavor on `comm` (spanning two jobs, `other` a rank of the other job), and what is refused
 * there. */
static void windows(MPI_Comm comm, int other) {
  int n;
  MPI_OK(MPI_Comm_size(comm, &n));
  MPI_Win win;
  int64_t* mem = NULL;
  MPI_OK(MPI_Win_allocate((MPI_Aint)window_bytes(n), 8, MPI_INFO_NULL, comm, &mem, &win));
  exercise(win, mem, comm, NULL);
  /* Out of the other job's window: refused at the origin, the epoch still usable. */
  MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, other, 0, win));
  int64_t v = 1;
  CHECK_EQ(error_class(MPI_Put(&v, 1, MPI_INT64_T, other, n_slots(n) + kBulk / 8, 1, MPI_INT64_T, win)),
           MPI_ERR_RMA_RANGE);
  CHECK_EQ(error_class(MPI_Get(&v, 1, MPI_INT64_T, other, -1, 1, MPI_INT64_T, win)), MPI_ERR_RMA_RANGE);
  MPI_OK(MPI_Get(&v, 1, MPI_INT64_T, other, slot_acc(n), 1, MPI_INT64_T, win));
  MPI_OK(MPI_Win_unlock(other, win));
  CHECK_EQ(v, (int64_t)n * (n + 1) / 2);
  MPI_OK(MPI_Win_free(&win));

  MPI_OK(MPI_Alloc_mem((MPI_Aint)window_bytes(n), MPI_INFO_NULL, &mem));
  MPI_OK(MPI_Win_create(mem, (MPI_Aint)window_bytes(n), 8, MPI_INFO_NULL, comm, &win));
  exercise(win, mem, comm, NULL);
  MPI_OK(MPI_Win_free(&win));
  MPI_OK(MPI_Free_mem(mem));

  /* malloc'd memory (reached through core/memreg exposures) */
  mem = malloc(window_bytes(n));
  MPI_OK(MPI_Win_create(mem, (MPI_Aint)window_bytes(n), 8, MPI_INFO_NULL, comm, &win));
  exercise(win, mem, comm, NULL);
  MPI_OK(MPI_Win_free(&win));

  /* dynamic: a malloc'd buffer attached, its address exchanged */
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, comm, &win));
  MPI_OK(MPI_Win_attach(win, mem, (MPI_Aint)window_bytes(n)));
  MPI_Aint* addresses = malloc(sizeof(MPI_Aint) * (size_t)n);
  MPI_Aint mine;
  MPI_OK(MPI_Get_address(mem, &mine));
  MPI_OK(MPI_Allgather(&mine, 1, MPI_AINT, addresses, 1, MPI_AINT, comm));
  exercise(win, mem, comm, addresses);
  MPI_OK(MPI_Barrier(comm));
  MPI_OK(MPI_Win_detach(win, mem));
  MPI_OK(MPI_Win_free(&win));
  free(addresses);
  free(mem);

  MPI_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  win = MPI_WIN_NULL;
  void* shared = NULL;
  CHECK_EQ(error_class(MPI_Win_allocate_shared(64, 8, MPI_INFO_NULL, comm, &shared, &win)), MPI_ERR_RMA_SHARED);
  CHECK(win == MPI_WIN_NULL);
  MPI_OK(MPI_Barrier(comm));
}

/* The parents' and the children's side of one round; `inter` is the spawn intercommunicator. */
static void round_trip(MPI_Comm inter, int is_parent) {
  MPI_Comm merged;
  MPI_OK(MPI_Intercomm_merge(inter, is_parent ? 0 : 1, &merged));
  int n;
  MPI_OK(MPI_Comm_size(merged, &n));
  const int other_job = is_parent ? n - 1 : 0;  /* parents are the low ranks */
  windows(merged, other_job);
  MPI_OK(MPI_Comm_free(&merged));

  /* The same over an accept/connect intercommunicator. */
  int rank;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm other;
  if (is_parent) {
    if (rank == 0) {
      MPI_OK(MPI_Open_port(MPI_INFO_NULL, port));
      MPI_OK(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 3, inter));
    }
    MPI_OK(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &other));
  } else {
    if (rank == 0) MPI_OK(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 3, inter, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &other));
  }
  MPI_OK(MPI_Intercomm_merge(other, is_parent ? 0 : 1, &merged));
  windows(merged, other_job);
  MPI_OK(MPI_Comm_free(&merged));
  MPI_OK(MPI_Comm_disconnect(&other));
  if (is_parent && rank == 0) MPI_OK(MPI_Close_port(port));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_Comm parent;
  MPI_OK(MPI_Comm_get_parent(&parent));
  int rank;
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  if (parent != MPI_COMM_NULL) {
    round_trip(parent, 0);
    MPI_OK(MPI_Comm_disconnect(&parent));
    MPI_OK(MPI_Finalize());
    return 0;
  }
  for (int children = 1; children <= 2; ++children) {
    MPI_Comm inter;
    MPI_OK(MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, children, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                          MPI_ERRCODES_IGNORE));
    round_trip(inter, 1);
    MPI_OK(MPI_Comm_disconnect(&inter));
    if (rank == 0) printf("windows across jobs with %d children: OK\n", children);
  }
  MPI_OK(MPI_Finalize());
  return 0;
}
