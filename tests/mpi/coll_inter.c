/* Collectives on intercommunicators (groups of different sizes: the first max(1, size/3) ranks
 * and the rest) against sequential references: barrier; rooted ones with MPI_ROOT /
 * MPI_PROC_NULL in the root's group (bcast, gather(v), scatter(v), reduce) from either group;
 * allgather(v), alltoall, allreduce, reduce_scatter(_block) with the remote group; blocking and
 * non-blocking; scan/exscan and MPI_IN_PLACE refused. */
#include <stdlib.h>
#include <string.h>

#include "check.h"

static int val(int r, int i) { return r * 1000 + i; }

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int wrank, wsize;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (wsize < 2) {
    printf("coll_inter: needs 2 ranks\n");
    MPI_Finalize();
    return 1;
  }
  int split = wsize / 3 > 1 ? wsize / 3 : 1;
  int grp = wrank < split ? 0 : 1;
  MPI_Comm local, ic0, ic;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, grp, wrank, &local));
  MPI_OK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, grp == 0 ? split : 0, 77, &ic0));
  MPI_OK(MPI_Comm_dup(ic0, &ic)); /* collectives on a duplicate too */
  int lr, ls, rs;
  MPI_Comm_rank(ic, &lr);
  MPI_Comm_size(ic, &ls);
  MPI_Comm_remote_size(ic, &rs);

  for (int nb = 0; nb < 2; ++nb) {
    MPI_Request q = MPI_REQUEST_NULL;
#define RUN(b, n)                                  \
  do {                                             \
    if (!nb) {                                     \
      MPI_OK(b);                                   \
    } else {                                       \
      MPI_OK(n);                                   \
      MPI_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));     \
    }                                              \
  } while (0)
    RUN(MPI_Barrier(ic), MPI_Ibarrier(ic, &q));

    /* rooted collectives, the root in group `g` at its rank `who` */
    for (int g = 0; g < 2; ++g) {
      int gsize = g == grp ? ls : rs;
      int who = g == 0 ? 0 : gsize - 1;
      int root = grp == g ? (lr == who ? MPI_ROOT : MPI_PROC_NULL) : who;
      int is_root = root == MPI_ROOT;
      int other = grp == g ? rs : ls; /* the size of the non-root group */
      int n = 5, buf[5];
      for (int i = 0; i < n; ++i) buf[i] = is_root ? val(who, i) : -1;
      RUN(MPI_Bcast(buf, n, MPI_INT, root, ic), MPI_Ibcast(buf, n, MPI_INT, root, ic, &q));
      if (grp != g)
        for (int i = 0; i < n; ++i) CHECK_EQ(buf[i], val(who, i));
      /* gather / gatherv: the non-root group sends rank + 1 ints */
      int* all = malloc(sizeof(int) * 64 * 64);
      int mine[64], counts[64], displs[64], total = 0;
      for (int r = 0; r < other; ++r) counts[r] = r + 1, displs[r] = total, total += r + 2;
      for (int i = 0; i < 64; ++i) mine[i] = val(lr, i);
      for (int i = 0; i < 64 * 64; ++i) all[i] = -1;
      RUN(MPI_Gather(mine, 3, MPI_INT, all, 3, MPI_INT, root, ic), MPI_Igather(mine, 3, MPI_INT, all, 3, MPI_INT, root, ic, &q));
      if (is_root)
        for (int r = 0; r < other; ++r)
          for (int i = 0; i < 3; ++i) CHECK_EQ(all[r * 3 + i], val(r, i));
      RUN(MPI_Gatherv(mine, lr + 1, MPI_INT, all, counts, displs, MPI_INT, root, ic),
          MPI_Igatherv(mine, lr + 1, MPI_INT, all, counts, displs, MPI_INT, root, ic, &q));
      if (is_root)
        for (int r = 0; r < other; ++r)
          for (int i = 0; i <= r; ++i) CHECK_EQ(all[displs[r] + i], val(r, i));
      /* scatter / scatterv back */
      int back[64];
      for (int i = 0; i < 64; ++i) back[i] = -1;
      RUN(MPI_Scatterv(all, counts, displs, MPI_INT, back, lr + 1, MPI_INT, root, ic),
          MPI_Iscatterv(all, counts, displs, MPI_INT, back, lr + 1, MPI_INT, root, ic, &q));
      if (grp != g)
        for (int i = 0; i <= lr; ++i) CHECK_EQ(back[i], val(lr, i));
      for (int i = 0; i < 64 * 4; ++i) all[i] = is_root ? 7 * i : -1;
      RUN(MPI_Scatter(all, 4, MPI_INT, back, 4, MPI_INT, root, ic), MPI_Iscatter(all, 4, MPI_INT, back, 4, MPI_INT, root, ic, &q));
      if (grp != g)
        for (int i = 0; i < 4; ++i) CHECK_EQ(back[i], 7 * (lr * 4 + i));
      /* reduce: the root gets the sum over the other group */
      int in[3] = {val(lr, 0), val(lr, 1), val(lr, 2)}, out[3] = {-1, -1, -1};
      RUN(MPI_Reduce(in, out, 3, MPI_INT, MPI_SUM, root, ic), MPI_Ireduce(in, out, 3, MPI_INT, MPI_SUM, root, ic, &q));
      if (is_root)
        for (int i = 0; i < 3; ++i) {
          int ref = 0;
          for (int r = 0; r < other; ++r) ref += val(r, i);
          CHECK_EQ(out[i], ref);
        }
      free(all);
    }

    /* allgather(v) and alltoall with the remote group */
    int mine[4] = {val(lr, 0), val(lr, 1), val(lr, 2), val(lr, 3)}, all[256];
    RUN(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, ic), MPI_Iallgather(mine, 2, MPI_INT, all, 2, MPI_INT, ic, &q));
    for (int r = 0; r < rs; ++r) CHECK(all[2 * r] == val(r, 0) && all[2 * r + 1] == val(r, 1));
    int counts[64], displs[64], total = 0;
    for (int r = 0; r < rs; ++r) counts[r] = r % 4 + 1, displs[r] = total, total += counts[r];
    RUN(MPI_Allgatherv(mine, lr % 4 + 1, MPI_INT, all, counts, displs, MPI_INT, ic),
        MPI_Iallgatherv(mine, lr % 4 + 1, MPI_INT, all, counts, displs, MPI_INT, ic, &q));
    for (int r = 0; r < rs; ++r)
      for (int i = 0; i < counts[r]; ++i) CHECK_EQ(all[displs[r] + i], val(r, i));
    int to[64], from[64];
    for (int r = 0; r < rs; ++r) to[r] = val(lr, r), from[r] = -1;
    RUN(MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, ic), MPI_Ialltoall(to, 1, MPI_INT, from, 1, MPI_INT, ic, &q));
    for (int r = 0; r < rs; ++r) CHECK_EQ(from[r], val(r, lr));

    /* allreduce: the reduction over the remote group */
    double d[3] = {lr + 0.5, 2.0 * lr, -lr}, e[3];
    RUN(MPI_Allreduce(d, e, 3, MPI_DOUBLE, MPI_MAX, ic), MPI_Iallreduce(d, e, 3, MPI_DOUBLE, MPI_MAX, ic, &q));
    CHECK(e[0] == rs - 0.5 && e[1] == 2.0 * (rs - 1) && e[2] == 0);
    /* reduce_scatter_block: both groups reduce ls * rs elements (recvcount = the other size) */
    int n = ls * rs;
    int* sb = malloc(sizeof(int) * n);
    int rb[64];
    for (int i = 0; i < n; ++i) sb[i] = val(lr, i);
    RUN(MPI_Reduce_scatter_block(sb, rb, n / ls, MPI_INT, MPI_SUM, ic),
        MPI_Ireduce_scatter_block(sb, rb, n / ls, MPI_INT, MPI_SUM, ic, &q));
    for (int i = 0; i < n / ls; ++i) {
      int ref = 0;
      for (int r = 0; r < rs; ++r) ref += val(r, lr * (n / ls) + i);
      CHECK_EQ(rb[i], ref);
    }
    int rcounts[64];
    for (int r = 0; r < ls; ++r) rcounts[r] = n / ls;
    RUN(MPI_Reduce_scatter(sb, rb, rcounts, MPI_INT, MPI_MIN, ic), MPI_Ireduce_scatter(sb, rb, rcounts, MPI_INT, MPI_MIN, ic, &q));
    for (int i = 0; i < n / ls; ++i) CHECK_EQ(rb[i], val(0, lr * (n / ls) + i));
    free(sb);
  }

  /* refused on intercommunicators */
  MPI_OK(MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN));
  int x = 1, y, cls;
  int rc = MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic);
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_COMM);
  rc = MPI_Allreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, ic);
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_BUFFER);
  rc = MPI_Bcast(&x, 1, MPI_INT, rs, ic);
  MPI_Error_class(rc, &cls);
  CHECK_EQ(cls, MPI_ERR_ROOT);

  MPI_OK(MPI_Comm_free(&ic));
  MPI_OK(MPI_Comm_free(&ic0));
  MPI_OK(MPI_Comm_free(&local));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (wrank == 0) printf("coll_inter: ok on %d ranks\n", wsize);
  MPI_OK(MPI_Finalize());
  return 0;
}
