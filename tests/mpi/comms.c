/* Communicators, groups and attributes: dup/idup/split/split_type/create/create_group/free/
 * compare/names, keyvals with copy and delete callbacks and the predefined attributes, every
 * group operation, intercommunicators (create, point-to-point, remote group, dup, merge). */
#include <string.h>

#include "check.h"

static int g_copies, g_deletes;
static int copy_cb(MPI_Comm c, int k, void* extra, void* in, void* out, int* flag) {
  ++g_copies;
  *(void**)out = (char*)in + 1;
  *flag = 1;
  return MPI_SUCCESS;
}
static int delete_cb(MPI_Comm c, int k, void* value, void* extra) {
  ++g_deletes;
  return MPI_SUCCESS;
}

/* Messages on different communicators never match each other, even with equal tags. */
static void isolation(int rank, int size, MPI_Comm a, MPI_Comm b) {
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int va = 100 + rank, vb = 200 + rank, x = -1, y = -1;
  MPI_Request r[2];
  MPI_OK(MPI_Irecv(&x, 1, MPI_INT, left, 0, b, &r[0]));
  MPI_OK(MPI_Irecv(&y, 1, MPI_INT, left, 0, a, &r[1]));
  MPI_OK(MPI_Send(&va, 1, MPI_INT, right, 0, a));
  MPI_OK(MPI_Send(&vb, 1, MPI_INT, right, 0, b));
  MPI_OK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
  CHECK_EQ(x, 200 + left);
  CHECK_EQ(y, 100 + left);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* predefined attributes */
  int* v;
  int flag;
  MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
  CHECK(flag && *v >= 32767);
  MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &v, &flag));
  CHECK(flag && *v == size);
  MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag));
  CHECK(flag && (*v == 0 || *v == 1));
  MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &v, &flag));
  CHECK(flag);

  /* names */
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14);

  /* dup with attributes */
  int key;
  MPI_OK(MPI_Comm_create_keyval(copy_cb, delete_cb, &key, NULL));
  static char base[4];
  MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, base));
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  CHECK_EQ(g_copies, 1);
  void* got;
  MPI_OK(MPI_Comm_get_attr(dup, key, &got, &flag));
  CHECK(flag && got == base + 1);
  MPI_OK(MPI_Comm_set_name(dup, "my dup"));
  MPI_OK(MPI_Comm_get_name(dup, name, &len));
  CHECK(strcmp(name, "my dup") == 0);
  int cmp;
  MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp));
  CHECK_EQ(cmp, MPI_CONGRUENT);
  MPI_OK(MPI_Comm_compare(dup, dup, &cmp));
  CHECK_EQ(cmp, MPI_IDENT);
  isolation(rank, size, MPI_COMM_WORLD, dup);
  MPI_Comm idup;
  MPI_Request req;
  MPI_OK(MPI_Comm_idup(dup, &idup, &req));
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  isolation(rank, size, dup, idup);
  MPI_OK(MPI_Comm_free(&idup));
  CHECK_EQ(g_deletes, 1); /* the idup copy of the attribute */
  MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
  CHECK_EQ(g_deletes, 2);
  MPI_OK(MPI_Comm_free(&dup));
  CHECK_EQ(dup, MPI_COMM_NULL);
  CHECK_EQ(g_deletes, 3);
  MPI_OK(MPI_Comm_free_keyval(&key));

  /* split by parity, reversed key order */
  MPI_Comm half;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
  int hrank, hsize;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  CHECK_EQ(hsize, (size + 1 - rank % 2) / 2);
  CHECK_EQ(hrank, hsize - 1 - rank / 2);
  int sum = 0;
  MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, half));
  int expect = 0;
  for (int r = rank % 2; r < size; r += 2) expect += r;
  CHECK_EQ(sum, expect);
  MPI_Comm hdup;
  MPI_OK(MPI_Comm_dup(half, &hdup));
  isolation(hrank, hsize, half, hdup);
  MPI_OK(MPI_Comm_free(&hdup));
  MPI_OK(MPI_Comm_compare(half, MPI_COMM_WORLD, &cmp));
  CHECK_EQ(cmp, size == 1 ? MPI_CONGRUENT : MPI_UNEQUAL);
  MPI_Comm none;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? MPI_UNDEFINED : 1, 0, &none));
  CHECK(rank == 0 ? none == MPI_COMM_NULL : none != MPI_COMM_NULL);
  if (none != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&none));

  /* split_type SHARED: one node on the local path */
  MPI_Comm node;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int nsize;
  MPI_Comm_size(node, &nsize);
  CHECK(nsize >= 1 && nsize <= size);
  int total = 0, one = 1;
  MPI_OK(MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, node));
  CHECK_EQ(total, nsize);
  MPI_OK(MPI_Comm_free(&node));

  /* groups */
  MPI_Group world, evens, odds, uni, inter, diff, first, g;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int gs, gr;
  MPI_Group_size(world, &gs);
  MPI_Group_rank(world, &gr);
  CHECK_EQ(gs, size);
  CHECK_EQ(gr, rank);
  int ranges[1][3] = {{0, size - 1, 2}};
  MPI_OK(MPI_Group_range_incl(world, 1, ranges, &evens));
  MPI_OK(MPI_Group_range_excl(world, 1, ranges, &odds));
  MPI_Group_size(evens, &gs);
  CHECK_EQ(gs, (size + 1) / 2);
  MPI_OK(MPI_Group_union(odds, evens, &uni));
  MPI_Group_size(uni, &gs);
  CHECK_EQ(gs, size);
  MPI_OK(MPI_Group_compare(uni, world, &cmp));
  CHECK_EQ(cmp, size > 2 ? MPI_SIMILAR : (size == 2 ? MPI_SIMILAR : MPI_IDENT));
  MPI_OK(MPI_Group_intersection(evens, world, &inter));
  MPI_OK(MPI_Group_compare(inter, evens, &cmp));
  CHECK_EQ(cmp, MPI_IDENT);
  MPI_OK(MPI_Group_difference(world, evens, &diff));
  MPI_OK(MPI_Group_compare(diff, odds, &cmp));
  CHECK_EQ(cmp, MPI_IDENT);
  int pick[2] = {size - 1, 0};
  MPI_OK(MPI_Group_incl(world, size > 1 ? 2 : 1, pick, &first));
  int tr_in[2] = {0, 1}, tr_out[2];
  MPI_OK(MPI_Group_translate_ranks(first, size > 1 ? 2 : 1, tr_in, world, tr_out));
  CHECK_EQ(tr_out[0], size - 1);
  if (size > 1) CHECK_EQ(tr_out[1], 0);
  int ex[1] = {0};
  MPI_OK(MPI_Group_excl(world, 1, ex, &g));
  MPI_Group_rank(g, &gr);
  CHECK_EQ(gr, rank == 0 ? MPI_UNDEFINED : rank - 1);
  int bad[1] = {size};
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Group junk;
  CHECK_EQ(MPI_Group_incl(world, 1, bad, &junk), MPI_ERR_RANK);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

  /* create over the evens; create_group among the odds */
  MPI_Comm ce;
  MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &ce));
  if (rank % 2 == 0) {
    CHECK(ce != MPI_COMM_NULL);
    int cr;
    MPI_Comm_rank(ce, &cr);
    CHECK_EQ(cr, rank / 2);
    int s2 = 0;
    MPI_OK(MPI_Allreduce(&one, &s2, 1, MPI_INT, MPI_SUM, ce));
    CHECK_EQ(s2, (size + 1) / 2);
    MPI_OK(MPI_Comm_free(&ce));
  } else {
    CHECK_EQ(ce, MPI_COMM_NULL);
    MPI_Comm co;
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, odds, 5, &co));
    int s3 = 0;
    MPI_OK(MPI_Allreduce(&one, &s3, 1, MPI_INT, MPI_SUM, co));
    CHECK_EQ(s3, size / 2);
    MPI_OK(MPI_Comm_free(&co));
  }

  /* intercommunicator between the parity halves (needs both halves) */
  if (size >= 2) {
    MPI_Comm ic;
    /* half-rank hsize-1 is world rank 0 (evens) or 1 (odds): the leaders */
    MPI_OK(MPI_Intercomm_create(half, hsize - 1, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 33, &ic));
    int is_inter, rsize, lsize;
    MPI_OK(MPI_Comm_test_inter(ic, &is_inter));
    CHECK_EQ(is_inter, 1);
    MPI_OK(MPI_Comm_remote_size(ic, &rsize));
    MPI_Comm_size(ic, &lsize);
    CHECK_EQ(lsize, hsize);
    CHECK_EQ(rsize, rank % 2 == 0 ? size / 2 : (size + 1) / 2);
    MPI_Group rg;
    MPI_OK(MPI_Comm_remote_group(ic, &rg));
    MPI_Group_size(rg, &gs);
    CHECK_EQ(gs, rsize);
    /* point-to-point across: local rank i talks to remote rank i (when it exists) */
    int lr;
    MPI_Comm_rank(ic, &lr);
    if (lr < rsize && lr < lsize) {
      int out = rank * 3, in = -1;
      MPI_Status st;
      MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, lr, 8, &in, 1, MPI_INT, lr, 8, ic, &st));
      CHECK_EQ(st.MPI_SOURCE, lr);
      int other;
      MPI_Group_translate_ranks(rg, 1, &lr, world, &other);
      CHECK_EQ(in, other * 3);
    }
    MPI_Comm icdup;
    MPI_OK(MPI_Comm_dup(ic, &icdup));
    MPI_OK(MPI_Comm_remote_size(icdup, &gs));
    CHECK_EQ(gs, rsize);
    MPI_Comm merged;
    MPI_OK(MPI_Intercomm_merge(ic, rank % 2, &merged)); /* evens (high=0) first */
    int mr, ms;
    MPI_Comm_rank(merged, &mr);
    MPI_Comm_size(merged, &ms);
    CHECK_EQ(ms, size);
    CHECK_EQ(mr, rank % 2 == 0 ? hrank : (size + 1) / 2 + hrank);
    int ms_sum = 0;
    MPI_OK(MPI_Allreduce(&rank, &ms_sum, 1, MPI_INT, MPI_SUM, merged));
    CHECK_EQ(ms_sum, size * (size - 1) / 2);
    MPI_OK(MPI_Comm_free(&merged));
    MPI_OK(MPI_Comm_free(&icdup));
    MPI_OK(MPI_Comm_free(&ic));
    MPI_OK(MPI_Group_free(&rg));
  }
  MPI_OK(MPI_Group_free(&world));
  MPI_OK(MPI_Group_free(&evens));
  MPI_OK(MPI_Group_free(&odds));
  MPI_OK(MPI_Group_free(&uni));
  MPI_OK(MPI_Group_free(&inter));
  MPI_OK(MPI_Group_free(&diff));
  MPI_OK(MPI_Group_free(&first));
  MPI_OK(MPI_Group_free(&g));
  CHECK_EQ(g, MPI_GROUP_NULL);
  MPI_OK(MPI_Comm_free(&half));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Finalize());
  if (rank == 0) printf("comms: ok on %d ranks\n", size);
  return 0;
}
