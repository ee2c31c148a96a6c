/* The active-set collectives over every PE and shmem_barrier_all on the world team's cells (from
 * 3 PEs, on the direct path with no backend; elsewhere the pSync / core algorithms): every PE's
 * puts, non-blocking puts and atomics before a barrier are seen by every PE after it; *_to_all
 * over the whole job (around the cells' 2 KiB limit, in place, every op on int and double)
 * interleaved with team collectives on SHMEM_TEAM_WORLD (which share the world's cell sequence)
 * and with active sets of half the PEs (which keep the pSync algorithms); the reductions' pSync
 * left as given. */
#include <shmem.h>
#include <string.h>

#include "check.h"

#define ROUNDS 60
#define MAX_N 300 /* longs: 2400 bytes, past the cells' 2 KiB */

static long psync[2][SHMEM_REDUCE_SYNC_SIZE];
static long bsync[SHMEM_BARRIER_SYNC_SIZE];
static long lwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + MAX_N];
static int iwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + MAX_N];
static double dwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE + MAX_N];
static long lsrc[MAX_N], ldst[MAX_N];
static int isrc[MAX_N], idst[MAX_N];
static double dsrc[MAX_N], ddst[MAX_N];
static long seen[64];   /* seen[p]: written by PE p's put before each barrier */
static long counter;    /* every PE adds 1 before each barrier */

static void check_psync(void) {
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) CHECK(psync[k][i] == SHMEM_SYNC_VALUE, "psync[%d][%d] = %ld", k, i, psync[k][i]);
  for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) CHECK(bsync[i] == SHMEM_SYNC_VALUE, "bsync[%d] = %ld", i, bsync[i]);
}

/* Values of PE p, element i, round r: small integers so that sums and products are exact. */
static long value(int p, int i, int r) { return (long)((p * 7 + i * 3 + r) % 5) + 1; }

static void reductions(int me, int n, int r) {
  int counts[] = {1, 7, 256, 257, MAX_N};
  int nreduce = counts[r % 5];
  long* ps = psync[r & 1];
  for (int i = 0; i < nreduce; ++i) {
    lsrc[i] = value(me, i, r);
    isrc[i] = (int)value(me, i, r);
    dsrc[i] = (double)value(me, i, r) + 0.5;
  }
  for (int op = 0; op < 6; ++op) {
    /* long: every op; in place on odd rounds */
    long* ld = (r & 1) ? lsrc : ldst;
    if (r & 1) {
      for (int i = 0; i < nreduce; ++i) lsrc[i] = value(me, i, r);
    }
    switch (op) {
      case 0: shmem_long_sum_to_all(ld, lsrc, nreduce, 0, 0, n, lwrk, ps); break;
      case 1: shmem_long_prod_to_all(ld, lsrc, nreduce, 0, 0, n, lwrk, ps); break;
      case 2: shmem_long_max_to_all(ld, lsrc, nreduce, 0, 0, n, lwrk, ps); break;
      case 3: shmem_long_min_to_all(ld, lsrc, nreduce, 0, 0, n, lwrk, ps); break;
      case 4: shmem_long_and_to_all(ld, lsrc, nreduce, 0, 0, n, lwrk, ps); break;
      default: shmem_long_xor_to_all(ld, lsrc, nreduce, 0, 0, n, lwrk, ps); break;
    }
    for (int i = 0; i < nreduce; ++i) {
      long want = value(0, i, r);
      for (int p = 1; p < n; ++p) {
        long v = value(p, i, r);
        want = op == 0 ? want + v : op == 1 ? want * v : op == 2 ? (v > want ? v : want)
             : op == 3 ? (v < want ? v : want) : op == 4 ? (want & v) : (want ^ v);
      }
      CHECK(ld[i] == want, "round %d op %d nreduce %d element %d: %ld, expected %ld", r, op, nreduce, i, ld[i], want);
    }
    ps = psync[(r + op + 1) & 1];
  }
  /* int sum and double max/sum/prod */
  shmem_int_sum_to_all(idst, isrc, nreduce, 0, 0, n, iwrk, ps);
  shmem_double_sum_to_all(ddst, dsrc, nreduce, 0, 0, n, dwrk, psync[(r + 1) & 1]);
  for (int i = 0; i < nreduce; ++i) {
    int isum = 0;
    double dsum = 0;
    for (int p = 0; p < n; ++p) isum += (int)value(p, i, r), dsum += (double)value(p, i, r) + 0.5;
    CHECK(idst[i] == isum, "round %d int sum element %d: %d, expected %d", r, i, idst[i], isum);
    CHECK(ddst[i] == dsum, "round %d double sum element %d: %g, expected %g", r, i, ddst[i], dsum);
  }
  shmem_double_prod_to_all(ddst, dsrc, nreduce, 0, 0, n, dwrk, ps);
  for (int i = 0; i < nreduce; ++i) {
    double prod = 1;
    for (int p = 0; p < n; ++p) prod *= (double)value(p, i, r) + 0.5;
    CHECK(ddst[i] == prod, "round %d double prod element %d: %g, expected %g", r, i, ddst[i], prod);
  }
  shmem_double_max_to_all(ddst, dsrc, nreduce, 0, 0, n, dwrk, psync[(r + 1) & 1]);
  for (int i = 0; i < nreduce; ++i) {
    double m = 0;
    for (int p = 0; p < n; ++p) m = (double)value(p, i, r) + 0.5 > m ? (double)value(p, i, r) + 0.5 : m;
    CHECK(ddst[i] == m, "round %d double max element %d: %g, expected %g", r, i, ddst[i], m);
  }
}

int main(void) {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  CHECK(n <= 64, "at most 64 PEs (got %d)", n);
  for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; ++i) psync[0][i] = psync[1][i] = SHMEM_SYNC_VALUE;
  for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; ++i) bsync[i] = SHMEM_SYNC_VALUE;
  long* heap_seen = shmem_calloc((size_t)n, sizeof(long));
  long* team_dst = shmem_malloc(sizeof(long));
  long* team_src = shmem_malloc(sizeof(long));
  shmem_barrier_all();
  for (int r = 0; r < ROUNDS; ++r) {
    /* visibility: blocking puts into globals, non-blocking puts into the heap, atomics */
    long v = (long)(r * 1000 + me); /* the source of the non-blocking puts, alive until the barrier */
    for (int p = 0; p < n; ++p) {
      shmem_long_p(&seen[me], (long)(r * 100 + me), p);
      shmem_long_put_nbi(&heap_seen[me], &v, 1, p);
      shmem_long_atomic_add(&counter, 1, p);
    }
    if (r % 2 == 0) shmem_barrier_all();
    else shmem_barrier(0, 0, n, bsync);
    for (int p = 0; p < n; ++p) {
      CHECK(seen[p] == (long)(r * 100 + p), "round %d: seen[%d] = %ld after the barrier, expected %ld", r, p, seen[p], (long)(r * 100 + p));
      CHECK(heap_seen[p] == (long)(r * 1000 + p), "round %d: heap_seen[%d] = %ld after the barrier", r, p, heap_seen[p]);
    }
    CHECK(counter == (long)(r + 1) * n, "round %d: counter %ld after the barrier, expected %ld", r, counter, (long)(r + 1) * n);
    /* a second barrier: nobody writes round r+1's values before everyone has checked round r's */
    shmem_barrier_all();

    reductions(me, n, r);

    /* a team reduction and a sync on the world team between the active-set calls */
    *team_src = me + r;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, team_dst, team_src, 1);
    CHECK_EQ(*team_dst, (long)n * (n - 1) / 2 + (long)n * r);
    shmem_sync_all();
    shmem_sync(0, 0, n, bsync);

    /* an active set of the even PEs (the pSync algorithms) */
    if (n > 2 && me % 2 == 0) {
      int half = (n + 1) / 2;
      lsrc[0] = me;
      shmem_long_sum_to_all(ldst, lsrc, 1, 0, 1, half, lwrk, psync[r & 1]);
      CHECK_EQ(ldst[0], (long)half * (half - 1));
    }
    shmem_barrier_all();
    check_psync();
    /* nobody enters round r+1's shmem_barrier on bsync (which signals its peers' bsync words,
     * as the standard allows on a reused pSync) before every PE has checked it */
    shmem_barrier_all();
  }
  shmem_free(team_src);
  shmem_free(team_dst);
  shmem_free(heap_seen);
  if (me == 0) printf("world_collectives_cells: %d PEs, %d rounds\n", n, ROUNDS);
  shmem_finalize();
  return 0;
}
