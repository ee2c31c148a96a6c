/* Persistent collectives (MPI 4.1 section 6.13): every MPI_*_init, started several times with new
 * buffer contents each time (the results are checked after each MPI_Wait), some together through
 * MPI_Startall and interleaved with blocking collectives on the same communicator; _c forms with
 * MPI_Count / MPI_Aint arrays; MPI_Request_free of an inactive request; MPI_Start of an active one
 * fails with MPI_ERR_REQUEST; the five neighborhood ones on a periodic ring; a NULL request argument fails with MPI_ERR_ARG. */
#include <stdlib.h>
#include <string.h>

#include "../check.h"

#define ROUNDS 4
#define N 5 /* elements per rank */

static int rank, size;

static int value(int r, int k, int i) { return r * 1000 + k * 100 + i; }

static void fill(int* buf, int count, int r, int k) {
  for (int i = 0; i < count; i++) buf[i] = value(r, k, i);
}

static void start_wait(MPI_Request* req) {
  MPI_Status st;
  MPI_OK(MPI_Start(req));
  MPI_OK(MPI_Wait(req, &st));
  CHECK(*req != MPI_REQUEST_NULL); /* persistent: the request stays, inactive */
}

static void test_barrier_bcast(void) {
  MPI_Request bar, bc;
  int buf[N];
  int root = 1 % size;
  MPI_OK(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &bar));
  MPI_OK(MPI_Bcast_init(buf, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &bc));
  for (int k = 0; k < ROUNDS; k++) {
    if (rank == root) fill(buf, N, root, k); else memset(buf, 0xff, sizeof buf);
    start_wait(&bc);
    for (int i = 0; i < N; i++) CHECK_EQ(buf[i], value(root, k, i));
    start_wait(&bar);
  }
  MPI_OK(MPI_Request_free(&bar));
  MPI_OK(MPI_Request_free(&bc));
  CHECK(bar == MPI_REQUEST_NULL && bc == MPI_REQUEST_NULL);
}

static void test_gather_scatter(void) {
  int root = size - 1;
  int mine[N] = {0}, all[N * 8] = {0}, counts[8], displs[8], part[N] = {0};
  MPI_Request g, gv, s, sv;
  for (int r = 0; r < size; r++) counts[r] = 1 + r % N, displs[r] = r * N;
  MPI_OK(MPI_Gather_init(mine, N, MPI_INT, all, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &g));
  MPI_OK(MPI_Gatherv_init(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, root, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &gv));
  MPI_OK(MPI_Scatter_init(all, N, MPI_INT, part, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
  MPI_OK(MPI_Scatterv_init(all, counts, displs, MPI_INT, part, counts[rank], MPI_INT, root, MPI_COMM_WORLD,
                           MPI_INFO_NULL, &sv));
  /* The user's arrays may change after init: the request keeps what init was given. */
  for (int r = 0; r < size; r++) counts[r] = -1;
  for (int k = 0; k < ROUNDS; k++) {
    fill(mine, N, rank, k);
    memset(all, 0, sizeof all);
    start_wait(&g);
    if (rank == root) {
      for (int r = 0; r < size; r++)
        for (int i = 0; i < N; i++) CHECK_EQ(all[r * N + i], value(r, k, i));
    }
    memset(all, 0, sizeof all);
    start_wait(&gv);
    if (rank == root) {
      for (int r = 0; r < size; r++)
        for (int i = 0; i < 1 + r % N; i++) CHECK_EQ(all[r * N + i], value(r, k, i));
    }
    if (rank == root) {
      for (int r = 0; r < size; r++) fill(all + r * N, N, r + 10, k);
    }
    memset(part, 0, sizeof part);
    start_wait(&s);
    for (int i = 0; i < N; i++) CHECK_EQ(part[i], value(rank + 10, k, i));
    memset(part, 0, sizeof part);
    start_wait(&sv);
    for (int i = 0; i < 1 + rank % N; i++) CHECK_EQ(part[i], value(rank + 10, k, i));
  }
  MPI_OK(MPI_Request_free(&g));
  MPI_OK(MPI_Request_free(&gv));
  MPI_OK(MPI_Request_free(&s));
  MPI_OK(MPI_Request_free(&sv));
}

/* The all-to-all family, started together with MPI_Startall, a blocking MPI_Allreduce between
 * rounds (its sequence must not get mixed up with the persistent ones'). */
static void test_all_to_all(void) {
  int mine[N] = {0}, all[N * 8] = {0}, allv[N * 8] = {0}, counts[8], displs[8];
  int to[8 * N] = {0}, from[8 * N], fromv[8 * N], fromw[8 * N], tocounts[8], todispls[8], bytedispls[8];
  MPI_Datatype types[8];
  MPI_Request reqs[5];
  for (int r = 0; r < size; r++) {
    counts[r] = 1 + r % N, displs[r] = r * N;
    tocounts[r] = 1 + (r + rank) % N, todispls[r] = r * N, bytedispls[r] = r * N * (int)sizeof(int);
    types[r] = MPI_INT;
  }
  MPI_OK(MPI_Allgather_init(mine, N, MPI_INT, all, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[0]));
  MPI_OK(MPI_Allgatherv_init(mine, counts[rank], MPI_INT, allv, counts, displs, MPI_INT, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &reqs[1]));
  MPI_OK(MPI_Alltoall_init(to, N, MPI_INT, from, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &reqs[2]));
  /* Rank r sends 1 + (r + q) % N elements to q: q receives the same count from r. */
  MPI_OK(MPI_Alltoallv_init(to, tocounts, todispls, MPI_INT, fromv, tocounts, todispls, MPI_INT, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &reqs[3]));
  MPI_OK(MPI_Alltoallw_init(to, tocounts, bytedispls, types, fromw, tocounts, bytedispls, types, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &reqs[4]));
  for (int k = 0; k < ROUNDS; k++) {
    fill(mine, N, rank, k);
    for (int q = 0; q < size; q++) fill(to + q * N, N, rank * 10 + q, k);
    memset(all, 0, sizeof all), memset(allv, 0, sizeof allv);
    memset(from, 0, sizeof from), memset(fromv, 0, sizeof fromv), memset(fromw, 0, sizeof fromw);
    MPI_OK(MPI_Startall(5, reqs));
    MPI_OK(MPI_Waitall(5, reqs, MPI_STATUSES_IGNORE));
    for (int r = 0; r < size; r++) {
      for (int i = 0; i < N; i++) CHECK_EQ(all[r * N + i], value(r, k, i));
      for (int i = 0; i < 1 + r % N; i++) CHECK_EQ(allv[r * N + i], value(r, k, i));
      for (int i = 0; i < N; i++) CHECK_EQ(from[r * N + i], value(r * 10 + rank, k, i));
      for (int i = 0; i < 1 + (r + rank) % N; i++) {
        CHECK_EQ(fromv[r * N + i], value(r * 10 + rank, k, i));
        CHECK_EQ(fromw[r * N + i], value(r * 10 + rank, k, i));
      }
    }
    int one = 1, sum = 0;
    MPI_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK_EQ(sum, size);
  }
  for (int i = 0; i < 5; i++) MPI_OK(MPI_Request_free(&reqs[i]));
}

static void test_reductions(void) {
  int in[N * 8] = {0}, out[N * 8], inplace[N], counts[8];
  MPI_Request red, all, inpl, rs, rsb, scan, exscan;
  int root = size / 2;
  for (int r = 0; r < size; r++) counts[r] = 1 + r % 3;
  int total = 0;
  for (int r = 0; r < size; r++) total += counts[r];
  MPI_OK(MPI_Reduce_init(in, out, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL, &red));
  MPI_OK(MPI_Allreduce_init(in, out, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &all));
  MPI_OK(MPI_Allreduce_init(MPI_IN_PLACE, inplace, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &inpl));
  MPI_OK(MPI_Reduce_scatter_init(in, out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rs));
  MPI_OK(MPI_Reduce_scatter_block_init(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rsb));
  MPI_OK(MPI_Scan_init(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &scan));
  MPI_OK(MPI_Exscan_init(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &exscan));
  for (int k = 0; k < ROUNDS; k++) {
    fill(in, N * size, rank, k);
    memset(out, 0, sizeof out);
    start_wait(&red);
    if (rank == root) {
      for (int i = 0; i < N; i++) {
        long long sum = 0;
        for (int r = 0; r < size; r++) sum += value(r, k, i);
        CHECK_EQ(out[i], sum);
      }
    }
    memset(out, 0, sizeof out);
    start_wait(&all);
    for (int i = 0; i < N; i++) CHECK_EQ(out[i], value(size - 1, k, i));
    fill(inplace, N, rank, k);
    start_wait(&inpl);
    for (int i = 0; i < N; i++) {
      long long sum = 0;
      for (int r = 0; r < size; r++) sum += value(r, k, i);
      CHECK_EQ(inplace[i], sum);
    }
    memset(out, 0, sizeof out);
    start_wait(&rs);
    int offset = 0;
    for (int r = 0; r < rank; r++) offset += counts[r];
    for (int i = 0; i < counts[rank]; i++) {
      long long sum = 0;
      for (int r = 0; r < size; r++) sum += value(r, k, offset + i);
      CHECK_EQ(out[i], sum);
    }
    memset(out, 0, sizeof out);
    start_wait(&rsb);
    for (int i = 0; i < N; i++) {
      long long sum = 0;
      for (int r = 0; r < size; r++) sum += value(r, k, rank * N + i);
      CHECK_EQ(out[i], sum);
    }
    memset(out, 0, sizeof out);
    start_wait(&scan);
    for (int i = 0; i < N; i++) {
      long long sum = 0;
      for (int r = 0; r <= rank; r++) sum += value(r, k, i);
      CHECK_EQ(out[i], sum);
    }
    memset(out, 0x5a, sizeof out);
    start_wait(&exscan);
    if (rank > 0) {
      for (int i = 0; i < N; i++) {
        long long sum = 0;
        for (int r = 0; r < rank; r++) sum += value(r, k, i);
        CHECK_EQ(out[i], sum);
      }
    }
  }
  (void)total;
  MPI_Request all_reqs[] = {red, all, inpl, rs, rsb, scan, exscan};
  for (int i = 0; i < 7; i++) MPI_OK(MPI_Request_free(&all_reqs[i]));
}

/* The large-count forms: MPI_Count counts and MPI_Aint displacements. */
static void test_c_forms(void) {
  int mine[N] = {0}, all[N * 8] = {0}, in[N] = {0}, out[N];
  MPI_Count counts[8];
  MPI_Aint displs[8];
  MPI_Request gv, ar;
  for (int r = 0; r < size; r++) counts[r] = N - r % 2, displs[r] = (MPI_Aint)r * N;
  MPI_OK(MPI_Allgatherv_init_c(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &gv));
  MPI_OK(MPI_Allreduce_init_c(in, out, (MPI_Count)N, MPI_INT, MPI_MIN, MPI_COMM_WORLD, MPI_INFO_NULL, &ar));
  for (int k = 0; k < ROUNDS; k++) {
    fill(mine, N, rank, k);
    fill(in, N, rank, k);
    start_wait(&gv);
    start_wait(&ar);
    for (int r = 0; r < size; r++)
      for (int i = 0; i < N - r % 2; i++) CHECK_EQ(all[r * N + i], value(r, k, i));
    for (int i = 0; i < N; i++) CHECK_EQ(out[i], value(0, k, i));
  }
  MPI_OK(MPI_Request_free(&gv));
  MPI_OK(MPI_Request_free(&ar));
}

/* The five neighborhood collectives on a periodic ring (sources and destinations: left, right). */
static void test_neighborhood(void) {
  MPI_Comm ring;
  int dims[1] = {size}, periods[1] = {1};
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring));
  int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int mine[N] = {0}, to[2 * N] = {0}, from[5][2 * N];
  int counts[2] = {N, N}, displs[2] = {0, N}, vcounts[2] = {2, 3}, vdispls[2] = {0, N};
  MPI_Aint bdispls[2] = {0, N * sizeof(int)};
  MPI_Datatype types[2] = {MPI_INT, MPI_INT};
  MPI_Request reqs[5];
  MPI_OK(MPI_Neighbor_allgather_init(mine, N, MPI_INT, from[0], N, MPI_INT, ring, MPI_INFO_NULL, &reqs[0]));
  MPI_OK(MPI_Neighbor_allgatherv_init(mine, N, MPI_INT, from[1], counts, displs, MPI_INT, ring, MPI_INFO_NULL,
                                      &reqs[1]));
  MPI_OK(MPI_Neighbor_alltoall_init(to, N, MPI_INT, from[2], N, MPI_INT, ring, MPI_INFO_NULL, &reqs[2]));
  /* Block 0 goes left with 2 elements, block 1 right with 3: the left neighbour's block 1 (3) arrives
   * first, so the receive counts are {3, 2}. */
  int rcounts[2] = {3, 2};
  MPI_OK(MPI_Neighbor_alltoallv_init(to, vcounts, vdispls, MPI_INT, from[3], rcounts, vdispls, MPI_INT, ring,
                                     MPI_INFO_NULL, &reqs[3]));
  MPI_OK(MPI_Neighbor_alltoallw_init(to, counts, bdispls, types, from[4], counts, bdispls, types, ring, MPI_INFO_NULL,
                                     &reqs[4]));
  for (int k = 0; k < ROUNDS; k++) {
    fill(mine, N, rank, k);
    fill(to, N, rank * 10, k);         /* to the left */
    fill(to + N, N, rank * 10 + 1, k); /* to the right */
    memset(from, 0, sizeof from);
    MPI_OK(MPI_Startall(5, reqs));
    MPI_OK(MPI_Waitall(5, reqs, MPI_STATUSES_IGNORE));
    for (int i = 0; i < N; i++) {
      for (int a = 0; a < 2; a++) {
        CHECK_EQ(from[a][i], value(left, k, i));
        CHECK_EQ(from[a][N + i], value(right, k, i));
      }
      /* From the left neighbour its right block, from the right one its left block. */
      CHECK_EQ(from[2][i], value(left * 10 + 1, k, i));
      CHECK_EQ(from[2][N + i], value(right * 10, k, i));
      CHECK_EQ(from[4][i], value(left * 10 + 1, k, i));
      CHECK_EQ(from[4][N + i], value(right * 10, k, i));
    }
    for (int i = 0; i < 3; i++) CHECK_EQ(from[3][i], value(left * 10 + 1, k, i));
    for (int i = 0; i < 2; i++) CHECK_EQ(from[3][N + i], value(right * 10, k, i));
  }
  for (int i = 0; i < 5; i++) MPI_OK(MPI_Request_free(&reqs[i]));
  MPI_OK(MPI_Comm_free(&ring));
}

/* Misuse: MPI_Start of an active request, a NULL request argument, a bad info. */
static void test_errors(void) {
  MPI_Comm comm;
  MPI_Request req;
  int x = rank, y = 0;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  MPI_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &req));
  MPI_OK(MPI_Start(&req));
  int rc = MPI_Start(&req), cls = -1;
  MPI_OK(MPI_Error_class(rc, &cls));
  CHECK_EQ(cls, MPI_ERR_REQUEST);
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK_EQ(y, size * (size - 1) / 2);
  MPI_OK(MPI_Request_free(&req));
  rc = MPI_Bcast_init(&x, 1, MPI_INT, 0, comm, MPI_INFO_NULL, NULL);
  MPI_OK(MPI_Error_class(rc, &cls));
  CHECK_EQ(cls, MPI_ERR_ARG);
  rc = MPI_Bcast_init(&x, -1, MPI_INT, 0, comm, MPI_INFO_NULL, &req);
  MPI_OK(MPI_Error_class(rc, &cls));
  CHECK_EQ(cls, MPI_ERR_COUNT);
  MPI_OK(MPI_Comm_free(&comm));
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size <= 8);
  test_barrier_bcast();
  test_gather_scatter();
  test_all_to_all();
  test_reductions();
  test_c_forms();
  test_neighborhood();
  test_errors();
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("persistent collectives: ok at %d ranks\n", size);
  return 0;
}
