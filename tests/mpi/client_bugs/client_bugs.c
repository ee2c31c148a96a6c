/* The bugs real clients hit, one function each, named after what broke; each
 * asserts values moved, flags and error codes. Run at 2, 4 and 8 ranks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/mpi/check.h"

static int rank, size;

/* `comm` is an intercommunicator of `local` processes here and `remote` there. */
static void check_intercommunicator(MPI_Comm comm, int local, int remote) {
  int is_inter = 0, local_size = 0, remote_size = 0;
  CHECK(comm != MPI_COMM_NULL);
  MPI_OK(MPI_Comm_test_inter(comm, &is_inter));
  CHECK(is_inter);
  MPI_OK(MPI_Comm_size(comm, &local_size));
  MPI_OK(MPI_Comm_remote_size(comm, &remote_size));
  CHECK_EQ(local_size, local);
  CHECK_EQ(remote_size, remote);
}

/* MPI_Comm_split of an intercommunicator was refused: split both groups by parity; the result is
 * an intercommunicator between the same-colour parts of each side. */
static void comm_split_of_intercommunicator(void) {
  MPI_Comm half, inter, split;
  int low = rank < size / 2;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half));
  MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 7, &inter));
  int local_rank;
  MPI_OK(MPI_Comm_rank(half, &local_rank));
  MPI_OK(MPI_Comm_split(inter, local_rank % 2, local_rank, &split));
  int mine_low = size / 2, mine_high = size - size / 2;
  int my_side = low ? mine_low : mine_high, other_side = low ? mine_high : mine_low;
  int expect_local = (my_side + 1 - local_rank % 2) / 2, expect_remote = (other_side + 1 - local_rank % 2) / 2;
  if (expect_remote == 0) {
    CHECK_EQ(split, MPI_COMM_NULL);  /* no process of the other side has this colour */
  } else {
    check_intercommunicator(split, expect_local, expect_remote);
    /* the new local rank 0s exchange their world ranks */
    int new_rank, peer = -1;
    MPI_OK(MPI_Comm_rank(split, &new_rank));
    CHECK_EQ(new_rank, local_rank / 2);
    if (new_rank == 0) {
      MPI_OK(MPI_Sendrecv(&rank, 1, MPI_INT, 0, 3, &peer, 1, MPI_INT, 0, 3, split, MPI_STATUS_IGNORE));
      CHECK_EQ(peer, (low ? size / 2 : 0) + local_rank % 2);
    }
    MPI_OK(MPI_Comm_free(&split));
  }
  MPI_OK(MPI_Comm_free(&inter));
  MPI_OK(MPI_Comm_free(&half));
}

/* MPI_Win_free of an MPI_Win_create window over malloc'd memory segfaulted. */
static void win_free_of_window_over_malloc(void) {
  for (int round = 0; round < 3; round++) {
    size_t n = (size_t)1000 << (round * 5); /* 8 KB, 256 KB, 8 MB of long long */
    long long* mem = malloc(n * sizeof *mem);
    CHECK(mem != NULL);
    for (size_t i = 0; i < n; i++) mem[i] = -1;
    MPI_Win win;
    MPI_OK(MPI_Win_create(mem, (MPI_Aint)(n * sizeof *mem), sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    long long v = 1000 + rank;
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(&v, 1, MPI_LONG_LONG, (rank + 1) % size, (MPI_Aint)(n - 1), 1, MPI_LONG_LONG, win));
    MPI_OK(MPI_Win_fence(0, win));
    CHECK_EQ(mem[n - 1], 1000 + (rank + size - 1) % size);
    MPI_OK(MPI_Win_free(&win));
    CHECK_EQ(win, MPI_WIN_NULL);
    free(mem);
  }
}

/* An accumulate/get on MPI_LONG_DOUBLE_INT corrupted the heap (the pair is 32 bytes with padding). */
static void accumulate_and_get_on_long_double_int(void) {
  typedef struct { long double value; int index; } Pair;
  enum { N = 5 };
  Pair* mem;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(N * sizeof(Pair), sizeof(Pair), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
  for (int i = 0; i < N; i++) mem[i].value = -1, mem[i].index = -1;
  Pair mine[N], got[N + 1];
  for (int i = 0; i < N; i++) mine[i].value = (long double)(rank * 10 + i) / 3, mine[i].index = rank;
  got[N].value = 42, got[N].index = 42; /* a guard past the end: nothing may write it */
  MPI_OK(MPI_Win_fence(0, win));
  for (int t = 0; t < size; t++) MPI_OK(MPI_Accumulate(mine, N, MPI_LONG_DOUBLE_INT, t, 0, N, MPI_LONG_DOUBLE_INT, MPI_MAXLOC, win));
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Get(got, N, MPI_LONG_DOUBLE_INT, (rank + 1) % size, 0, N, MPI_LONG_DOUBLE_INT, win));
  MPI_OK(MPI_Win_fence(0, win));
  for (int i = 0; i < N; i++) {
    CHECK(got[i].value == (long double)((size - 1) * 10 + i) / 3);
    CHECK_EQ(got[i].index, size - 1);
    CHECK(mem[i].value == got[i].value);
  }
  CHECK(got[N].value == 42 && got[N].index == 42);
  Pair old;
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
  MPI_OK(MPI_Fetch_and_op(&mine[0], &old, MPI_LONG_DOUBLE_INT, 0, N - 1, MPI_NO_OP, win));
  MPI_OK(MPI_Win_unlock(0, win));
  CHECK_EQ(old.index, size - 1);
  MPI_OK(MPI_Win_free(&win));
}

/* MPI_Win_shared_query: a NULL base for a zero-size rank, and an answer for every flavor (MPI 4.1:
 * size 0 and NULL where the memory is not directly accessible; else the memory itself). */
static void win_shared_query_every_flavor(void) {
  MPI_Comm node;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nrank, nsize;
  MPI_OK(MPI_Comm_rank(node, &nrank));
  MPI_OK(MPI_Comm_size(node, &nsize));
  for (int flavor = 0; flavor < 4; flavor++) {
    MPI_Win win;
    int* base = NULL;
    int* malloced = NULL;
    MPI_Aint bytes = nrank % 2 ? 0 : 16 * sizeof(int); /* odd node ranks expose nothing */
    switch (flavor) {
      case 0: MPI_OK(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, node, &base, &win)); break;
      case 1: MPI_OK(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, node, &base, &win)); break;
      case 2:
        malloced = malloc(16 * sizeof(int));
        base = malloced;
        MPI_OK(MPI_Win_create(base, bytes, sizeof(int), MPI_INFO_NULL, node, &win));
        break;
      default: MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, node, &win)); break;
    }
    if (bytes > 0 && base != NULL) {
      for (int i = 0; i < 16; i++) base[i] = nrank * 100 + i;
    }
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Barrier(node));
    for (int r = 0; r < nsize; r++) {
      MPI_Aint qsize = -1;
      int disp = -1;
      int* qbase = (int*)(intptr_t)1;
      MPI_OK(MPI_Win_shared_query(win, r, &qsize, &disp, &qbase));
      if (flavor == 3 || r % 2) { /* dynamic windows and zero-size ranks: nothing to point at */
        CHECK_EQ(qsize, 0);
        CHECK(qbase == NULL);
        continue;
      }
      if (flavor == 0) CHECK_EQ(qsize, 16 * (MPI_Aint)sizeof(int)); /* shared memory: always answered */
      if (qsize == 0) {
        CHECK(qbase == NULL);
        continue;
      }
      CHECK_EQ(qsize, 16 * (MPI_Aint)sizeof(int));
      CHECK_EQ(disp, sizeof(int));
      CHECK(qbase != NULL);
      for (int i = 0; i < 16; i++) CHECK_EQ(qbase[i], r * 100 + i);
    }
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Win_free(&win));
    free(malloced);
  }
  /* A zero-size node rank 0: NULL for it; MPI_PROC_NULL answers for the lowest rank with memory. */
  MPI_Win win;
  int* base;
  MPI_OK(MPI_Win_allocate_shared(nrank == 0 ? 0 : sizeof(int), sizeof(int), MPI_INFO_NULL, node, &base, &win));
  if (nrank > 0) *base = 500 + nrank;
  MPI_OK(MPI_Win_fence(0, win));
  MPI_Aint qsize;
  int disp;
  int* qbase = (int*)(intptr_t)1;
  MPI_OK(MPI_Win_shared_query(win, 0, &qsize, &disp, &qbase));
  CHECK_EQ(qsize, 0);
  CHECK(qbase == NULL);
  if (nsize > 1) {
    MPI_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &qsize, &disp, &qbase));
    CHECK_EQ(qsize, sizeof(int));
    CHECK(qbase != NULL);
    CHECK_EQ(*qbase, 501);
  }
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Win_free(&win));
  MPI_OK(MPI_Comm_free(&node));
}

/* MPI_Dims_create gave an unbalanced factorisation (5040 over 3 dims must be 21 x 16 x 15). */
static void dims_create_most_balanced(void) {
  static const struct { int n, nd, want[4]; } cases[] = {
      {5040, 3, {21, 16, 15}}, {12, 2, {4, 3}}, {7, 2, {7, 1}}, {36, 3, {4, 3, 3}}, {16, 4, {2, 2, 2, 2}},
      {64, 3, {4, 4, 4}},     {30, 2, {6, 5}},  {1, 3, {1, 1, 1}}, {100, 2, {10, 10}}, {720, 3, {10, 9, 8}},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int dims[4] = {0, 0, 0, 0};
    MPI_OK(MPI_Dims_create(cases[c].n, cases[c].nd, dims));
    for (int d = 0; d < cases[c].nd; d++) {
      if (dims[d] != cases[c].want[d]) {
        fprintf(stderr, "MPI_Dims_create(%d, %d): dim %d is %d, want %d\n", cases[c].n, cases[c].nd, d, dims[d],
                cases[c].want[d]);
        CHECK(0);
      }
    }
  }
}

/* Keyvals and windows are reference counted: a keyval freed while attributes use it keeps their
 * callbacks until they are deleted, and a window's group outlives the window. */
static int g_win_deletes, g_comm_copies, g_comm_deletes;
static int count_win_delete(MPI_Win w, int k, void* v, void* e) {
  (void)w, (void)k, (void)e;
  CHECK_EQ(*(int*)v, 77);
  g_win_deletes++;
  return MPI_SUCCESS;
}
static int count_comm_copy(MPI_Comm c, int k, void* e, void* in, void* out, int* flag) {
  (void)c, (void)k, (void)e;
  *(void**)out = in;
  *flag = 1;
  g_comm_copies++;
  return MPI_SUCCESS;
}
static int count_comm_delete(MPI_Comm c, int k, void* v, void* e) {
  (void)c, (void)k, (void)v, (void)e;
  g_comm_deletes++;
  return MPI_SUCCESS;
}
static void window_and_keyval_reference_counts(void) {
  static int value = 77;
  int wkey, ckey;
  MPI_Win win;
  long long mem[4];
  MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, count_win_delete, &wkey, NULL));
  MPI_OK(MPI_Win_create(mem, sizeof mem, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_OK(MPI_Win_set_attr(win, wkey, &value));
  int kept = wkey;
  MPI_OK(MPI_Win_free_keyval(&wkey));
  CHECK_EQ(wkey, MPI_KEYVAL_INVALID);
  void* got = NULL;
  int flag = 0;
  MPI_OK(MPI_Win_get_attr(win, kept, &got, &flag)); /* still attached: the attribute holds the keyval */
  CHECK(flag && got == &value);
  MPI_Group group;
  MPI_OK(MPI_Win_get_group(win, &group));
  MPI_OK(MPI_Win_free(&win));
  CHECK_EQ(g_win_deletes, 1);
  int gsize = 0;
  MPI_OK(MPI_Group_size(group, &gsize)); /* the group outlives its window */
  CHECK_EQ(gsize, size);
  MPI_OK(MPI_Group_free(&group));

  MPI_Comm dup, dup2;
  MPI_OK(MPI_Comm_create_keyval(count_comm_copy, count_comm_delete, &ckey, NULL));
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_OK(MPI_Comm_set_attr(dup, ckey, &value));
  kept = ckey;
  MPI_OK(MPI_Comm_free_keyval(&ckey));
  MPI_OK(MPI_Comm_dup(dup, &dup2)); /* the freed keyval's copy callback still runs */
  CHECK_EQ(g_comm_copies, 1);
  MPI_OK(MPI_Comm_get_attr(dup2, kept, &got, &flag));
  CHECK(flag && got == &value);
  MPI_OK(MPI_Comm_free(&dup));
  MPI_OK(MPI_Comm_free(&dup2));
  CHECK_EQ(g_comm_deletes, 2);
}

/* MPI_Win_lock/unlock to MPI_PROC_NULL must be a no-op (and RMA to it inside). */
static void win_lock_to_proc_null_is_a_no_op(void) {
  long long mem[2] = {5, 6}, v = 9;
  MPI_Win win;
  MPI_OK(MPI_Win_create(mem, sizeof mem, sizeof mem[0], MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, win));
  MPI_OK(MPI_Put(&v, 1, MPI_LONG_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG_LONG, win));
  MPI_OK(MPI_Win_flush(MPI_PROC_NULL, win));
  MPI_OK(MPI_Win_unlock(MPI_PROC_NULL, win));
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, MPI_PROC_NULL, MPI_MODE_NOCHECK, win));
  MPI_OK(MPI_Win_unlock(MPI_PROC_NULL, win));
  /* a real lock still works after them */
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, (rank + 1) % size, 0, win));
  MPI_OK(MPI_Accumulate(&v, 1, MPI_LONG_LONG, (rank + 1) % size, 1, 1, MPI_LONG_LONG, MPI_SUM, win));
  MPI_OK(MPI_Win_unlock((rank + 1) % size, win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_EQ(mem[0], 5);
  CHECK_EQ(mem[1], 15);
  MPI_OK(MPI_Win_free(&win));
}

/* Zero-count MPI_Get_accumulate with NULL buffers is legal (nothing moves). */
static void zero_count_get_accumulate_with_null_buffers(void) {
  int mem = 3;
  MPI_Win win;
  MPI_OK(MPI_Win_create(&mem, sizeof mem, sizeof mem, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, NULL, 0, MPI_INT, (rank + 1) % size, 0, 0, MPI_INT, MPI_SUM, win));
  MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_BYTE, NULL, 0, MPI_BYTE, (rank + 1) % size, 0, 0, MPI_BYTE, MPI_SUM, win));
  MPI_OK(MPI_Win_fence(0, win));
  CHECK_EQ(mem, 3);
  MPI_OK(MPI_Win_free(&win));
}

/* An access spanning two adjacent regions attached to a dynamic window. */
static void access_spanning_adjacent_dynamic_regions(void) {
  enum { HALF = 64 };
  long long* mem = malloc(2 * HALF * sizeof *mem);
  for (int i = 0; i < 2 * HALF; i++) mem[i] = -1;
  MPI_Win win;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_OK(MPI_Win_attach(win, mem, HALF * sizeof *mem));
  MPI_OK(MPI_Win_attach(win, mem + HALF, HALF * sizeof *mem));
  MPI_Aint mine, target_base;
  MPI_OK(MPI_Get_address(mem, &mine));
  int target = (rank + 1) % size;
  MPI_OK(MPI_Sendrecv(&mine, 1, MPI_AINT, (rank + size - 1) % size, 1, &target_base, 1, MPI_AINT, target, 1,
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  long long src[16], back[16];
  for (int i = 0; i < 16; i++) src[i] = rank * 1000 + i;
  MPI_Aint at = MPI_Aint_add(target_base, (HALF - 8) * sizeof(long long)); /* 8 in each region */
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win));
  MPI_OK(MPI_Put(src, 16, MPI_LONG_LONG, target, at, 16, MPI_LONG_LONG, win));
  MPI_OK(MPI_Win_flush(target, win));
  MPI_OK(MPI_Get(back, 16, MPI_LONG_LONG, target, at, 16, MPI_LONG_LONG, win));
  MPI_OK(MPI_Win_unlock(target, win));
  for (int i = 0; i < 16; i++) CHECK_EQ(back[i], src[i]);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  int from = (rank + size - 1) % size;
  for (int i = 0; i < 2 * HALF; i++) CHECK_EQ(mem[i], i >= HALF - 8 && i < HALF + 8 ? from * 1000 + i - (HALF - 8) : -1);
  MPI_OK(MPI_Win_detach(win, mem));
  MPI_OK(MPI_Win_detach(win, mem + HALF));
  MPI_OK(MPI_Win_free(&win));
  free(mem);
}

/* MPI_Win_allocate larger than what is left of the MPI_Alloc_mem pool must fall back to other
 * memory (OSU's bandwidth tests at 512 KiB died here). MPI_Alloc_mem itself falls back to the
 * system when the pool is full, so 40 MiB of 1 MiB blocks fill a 32 MiB pool (set in main); one is
 * given back (room for the window's control block), then an 8 MiB window is allocated and written
 * at both ends by a neighbour. */
static void win_allocate_beyond_the_alloc_mem_pool(void) {
  enum { BLOCK = 1 << 20, BLOCKS = 40 };
  void* blocks[BLOCKS];
  int n = 0;
  for (; n < BLOCKS; n++) MPI_OK(MPI_Alloc_mem(BLOCK, MPI_INFO_NULL, &blocks[n]));
  MPI_OK(MPI_Free_mem(blocks[0]));
  blocks[0] = NULL; /* room for the window's control block, not its memory */
  MPI_Aint bytes = (MPI_Aint)8 << 20;
  char* base;
  MPI_Win win;
  MPI_OK(MPI_Win_allocate(bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
  memset(base, 0, 4096);
  memset(base + bytes - 4096, 0, 4096);
  char msg[4096];
  memset(msg, 'a' + rank % 26, sizeof msg);
  MPI_OK(MPI_Win_fence(0, win));
  MPI_OK(MPI_Put(msg, sizeof msg, MPI_CHAR, (rank + 1) % size, 0, sizeof msg, MPI_CHAR, win));
  MPI_OK(MPI_Put(msg, sizeof msg, MPI_CHAR, (rank + 1) % size, bytes - 4096, sizeof msg, MPI_CHAR, win));
  MPI_OK(MPI_Win_fence(0, win));
  char want = (char)('a' + (rank + size - 1) % size % 26);
  for (int i = 0; i < 4096; i++) {
    CHECK_EQ(base[i], want);
    CHECK_EQ(base[bytes - 4096 + i], want);
  }
  MPI_OK(MPI_Win_free(&win));
  while (--n > 0) MPI_OK(MPI_Free_mem(blocks[n]));
}

/* MPI_Topo_test / MPI_Comm_test_inter report the kind of every communicator. */
static void topo_test_and_test_inter_report_the_kind(void) {
  int status, inter;
  MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
  CHECK_EQ(status, MPI_UNDEFINED);
  MPI_Comm cart, graph, dist, adjacent, intercomm, half, dup;
  int dims[1] = {size}, periods[1] = {1};
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart));
  MPI_OK(MPI_Topo_test(cart, &status));
  CHECK_EQ(status, MPI_CART);
  MPI_OK(MPI_Comm_dup(cart, &dup)); /* a duplicate keeps the topology */
  MPI_OK(MPI_Topo_test(dup, &status));
  CHECK_EQ(status, MPI_CART);
  MPI_OK(MPI_Comm_free(&dup));
  int* index = malloc(size * sizeof(int));
  int* edges = malloc(2 * size * sizeof(int));
  for (int i = 0; i < size; i++) index[i] = 2 * (i + 1), edges[2 * i] = (i + 1) % size, edges[2 * i + 1] = (i + size - 1) % size;
  MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
  MPI_OK(MPI_Topo_test(graph, &status));
  CHECK_EQ(status, MPI_GRAPH);
  int src = (rank + size - 1) % size, dst = (rank + 1) % size;
  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, MPI_UNWEIGHTED, 1, &dst, MPI_UNWEIGHTED,
                                        MPI_INFO_NULL, 0, &adjacent));
  MPI_OK(MPI_Topo_test(adjacent, &status));
  CHECK_EQ(status, MPI_DIST_GRAPH);
  int one = 1;
  MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, &one, &dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dist));
  MPI_OK(MPI_Topo_test(dist, &status));
  CHECK_EQ(status, MPI_DIST_GRAPH);
  MPI_Comm intra[] = {cart, graph, adjacent, dist, MPI_COMM_WORLD, MPI_COMM_SELF};
  for (int i = 0; i < 6; i++) {
    MPI_OK(MPI_Comm_test_inter(intra[i], &inter));
    CHECK_EQ(inter, 0);
  }
  int low = rank < size / 2;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half));
  MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 9, &intercomm));
  MPI_OK(MPI_Comm_test_inter(intercomm, &inter));
  CHECK_EQ(inter, 1);
  MPI_OK(MPI_Topo_test(intercomm, &status));
  CHECK_EQ(status, MPI_UNDEFINED);
  MPI_Comm merged;
  MPI_OK(MPI_Intercomm_merge(intercomm, !low, &merged));
  MPI_OK(MPI_Comm_test_inter(merged, &inter));
  CHECK_EQ(inter, 0);
  MPI_Comm* all[] = {&cart, &graph, &adjacent, &dist, &intercomm, &half, &merged};
  for (int i = 0; i < 7; i++) MPI_OK(MPI_Comm_free(all[i]));
  free(index);
  free(edges);
}

/* MPI_Comm_split_type of an intercommunicator (MPI 4.1 section 7.4.2: a communicator, split like
 * MPI_Comm_split with the type's grouping as the colour; MPICH 4.0 answers the same): on one node
 * every process is of the same type, so the result is an intercommunicator between the whole
 * groups; with MPI_UNDEFINED on odd world ranks, one between the even ranks of each side. */
static void comm_split_type_of_intercommunicator(void) {
  MPI_Comm half, inter, split;
  int low = rank < size / 2;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half));
  MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 8, &inter));
  int side = low ? size / 2 : size - size / 2, other = low ? size - size / 2 : size / 2;
  MPI_OK(MPI_Comm_split_type(inter, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &split));
  check_intercommunicator(split, side, other);
  /* every process reaches the remote group: rank r here sends to rank r there, where it exists */
  int split_rank, got = -1;
  MPI_OK(MPI_Comm_rank(split, &split_rank));
  if (split_rank < other) MPI_OK(MPI_Send(&rank, 1, MPI_INT, split_rank, 4, split));
  if (split_rank < side && split_rank < other) {
    MPI_OK(MPI_Recv(&got, 1, MPI_INT, split_rank, 4, split, MPI_STATUS_IGNORE));
    CHECK_EQ(got, (low ? size / 2 : 0) + split_rank);
  }
  MPI_OK(MPI_Comm_free(&split));
  /* MPI_UNDEFINED on odd world ranks: they get MPI_COMM_NULL; the even ones an intercommunicator
   * between the even ranks of both sides (MPI_COMM_NULL if the other side has none) */
  MPI_OK(MPI_Comm_split_type(inter, rank % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &split));
  int lo_even = 0, hi_even = 0;  /* even world ranks in the low and the high half */
  for (int r = 0; r < size; r++) {
    if (r % 2 == 0) *(r < size / 2 ? &lo_even : &hi_even) += 1;
  }
  int my_even = low ? lo_even : hi_even, their_even = low ? hi_even : lo_even;
  if (rank % 2 || their_even == 0) {
    CHECK_EQ(split, MPI_COMM_NULL);
  } else {
    check_intercommunicator(split, my_even, their_even);
    MPI_OK(MPI_Comm_free(&split));
  }
  MPI_OK(MPI_Comm_free(&inter));
  MPI_OK(MPI_Comm_free(&half));
}

/* mpi4py's test_file: MPI_File_set_info of the info MPI_File_get_info returned failed with
 * MPI_ERR_INFO_VALUE (the reported defaults cb_nodes=0, striping_factor=0, striping_unit=0 were
 * refused as "not a positive integer"). */
static void file_set_info_of_its_own_get_info(void) {
  /* mkstemp, not the pid: tests in separate pid namespaces (Bazel's sandbox) share /tmp, and two
   * jobs whose rank 0 had the same pid deleted each other's file (MPI_ERR_NO_SUCH_FILE). */
  char path[64] = "/tmp/client_bugs_info_XXXXXX";
  if (rank == 0) {
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
  }
  MPI_OK(MPI_Bcast(path, sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD));
  MPI_File fh;
  MPI_Info info;
  MPI_OK(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                       MPI_INFO_NULL, &fh));
  MPI_OK(MPI_File_get_info(fh, &info));
  int nkeys = 0;
  MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys > 0);
  MPI_OK(MPI_File_set_info(fh, info));
  MPI_OK(MPI_Info_free(&info));
  /* a real bad value is still refused */
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "cb_buffer_size", "0"));
  MPI_OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
  int rc = MPI_File_set_info(fh, info), cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_OK(MPI_Error_class(rc, &cls));
  CHECK_EQ(cls, MPI_ERR_INFO_VALUE);
  MPI_OK(MPI_Info_free(&info));
  MPI_OK(MPI_File_close(&fh));
}

int main(int argc, char** argv) {
  /* The pool's default grew with the heap: win_allocate_beyond_the_alloc_mem_pool
   * fills the 32 MiB pool it was written against. */
  setenv("GASKET_MPI_ALLOC_MEM_POOL", "32M", 0);
  init_at_level_arg(&argc, &argv);
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size >= 2);
  static const struct { const char* name; void (*run)(void); } kTests[] = {
#define TEST(f) {#f, f}
      TEST(comm_split_of_intercommunicator),
      TEST(win_free_of_window_over_malloc),
      TEST(accumulate_and_get_on_long_double_int),
      TEST(win_shared_query_every_flavor),
      TEST(dims_create_most_balanced),
      TEST(window_and_keyval_reference_counts),
      TEST(win_lock_to_proc_null_is_a_no_op),
      TEST(zero_count_get_accumulate_with_null_buffers),
      TEST(access_spanning_adjacent_dynamic_regions),
      TEST(win_allocate_beyond_the_alloc_mem_pool),
      TEST(topo_test_and_test_inter_report_the_kind),
      TEST(comm_split_type_of_intercommunicator),
      TEST(file_set_info_of_its_own_get_info),
#undef TEST
  };
  for (size_t i = 0; i < sizeof kTests / sizeof kTests[0]; i++) {
    if (getenv("CLIENT_BUGS_TRACE") && rank == 0) fprintf(stderr, "client_bugs: %s\n", kTests[i].name);
    kTests[i].run();
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0) printf("client_bugs: %s: ok\n", kTests[i].name);
  }
  MPI_Finalize();
  return 0;
}
