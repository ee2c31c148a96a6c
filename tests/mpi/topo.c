/* Process topologies: MPI_Dims_create against the standard's rules on many cases; Cartesian grids
 * of 1-3 dimensions, periodic and not (get, coords <-> rank round trips, shift at the borders,
 * sub-grids with a message along each, map, dup keeping the topology, a grid smaller than the
 * communicator); graphs and distributed graphs (neighbors, weights); error classes under
 * MPI_ERRORS_RETURN. With an argument naming a misuse, the default handler must end the job
 * (tests/mpi/BUILD checks the message). The neighborhood collectives are in neighbor.c. */
#include <string.h>

#include "check.h"

#define MAXD 8

static int rank, size;

/* ---- MPI_Dims_create ---- */

/* Reference: of the non-increasing k factors of m (each <= cap), the one with the smallest ratio
 * of largest to smallest (the most balanced: 5040 over 3 is 21 x 16 x 15), the lexicographically
 * smallest among equals. Brute force: every choice is tried. */
static void ref_search(int m, int k, int cap, int* cur, int depth, int* best, int* found) {
  if (k == 0) {
    if (m != 1) return;
    if (!*found || (long long)cur[0] * best[depth - 1] < (long long)best[0] * cur[depth - 1]) {
      for (int i = 0; i < depth; ++i) best[i] = cur[i];
      *found = 1;
    }
    return;
  }
  for (int d = 1; d <= cap && d <= m; ++d) {
    if (m % d) continue;
    cur[depth] = d;
    ref_search(m / d, k - 1, d, cur, depth + 1, best, found);
  }
}

static int ref_factor(int m, int k, int cap, int* out) {
  int cur[MAXD], found = 0;
  if (k == 0) return m == 1;
  ref_search(m, k, cap, cur, 0, out, &found);
  return found;
}

static void check_dims(int nnodes, int ndims, const int* preset) {
  int dims[MAXD], want[MAXD], free_dims[MAXD];
  int fixed = 1, nfree = 0;
  for (int i = 0; i < ndims; ++i) {
    dims[i] = preset[i];
    if (preset[i]) fixed *= preset[i];
    else ++nfree;
  }
  MPI_OK(MPI_Dims_create(nnodes, ndims, dims));
  /* The rules: presets kept, product nnodes, free entries non-increasing and the closest choice. */
  long long product = 1;
  for (int i = 0; i < ndims; ++i) {
    if (preset[i]) CHECK_EQ(dims[i], preset[i]);
    CHECK(dims[i] > 0);
    product *= dims[i];
  }
  CHECK_EQ(product, nnodes);
  CHECK(ref_factor(nnodes / fixed, nfree, nnodes, want));
  for (int i = 0, f = 0; i < ndims; ++i) {
    if (!preset[i]) free_dims[f++] = dims[i];
  }
  for (int f = 0; f < nfree; ++f) {
    CHECK_EQ(free_dims[f], want[f]);
    if (f > 0) CHECK(free_dims[f] <= free_dims[f - 1]);
  }
}

static void dims_create(void) {
  /* The standard's examples. */
  int d[3] = {0, 0, 0};
  MPI_OK(MPI_Dims_create(6, 2, d));
  CHECK(d[0] == 3 && d[1] == 2);
  d[0] = d[1] = 0;
  MPI_OK(MPI_Dims_create(7, 2, d));
  CHECK(d[0] == 7 && d[1] == 1);
  d[0] = 0, d[1] = 3, d[2] = 0;
  MPI_OK(MPI_Dims_create(6, 3, d));
  CHECK(d[0] == 2 && d[1] == 3 && d[2] == 1);
  d[0] = 0, d[1] = 3, d[2] = 0;
  CHECK_EQ(MPI_Dims_create(7, 3, d), MPI_ERR_DIMS);
  d[0] = d[1] = d[2] = 0;
  MPI_OK(MPI_Dims_create(16, 3, d));
  CHECK(d[0] == 4 && d[1] == 2 && d[2] == 2);
  d[0] = d[1] = d[2] = 0;
  MPI_OK(MPI_Dims_create(24, 3, d));
  CHECK(d[0] == 4 && d[1] == 3 && d[2] == 2);
  d[0] = d[1] = d[2] = 0; /* regression: 20 x 18 x 14 was given (lexicographically first, ratio 1.43) */
  MPI_OK(MPI_Dims_create(5040, 3, d));
  CHECK(d[0] == 21 && d[1] == 16 && d[2] == 15);
  MPI_OK(MPI_Dims_create(1, 0, NULL));
  CHECK_EQ(MPI_Dims_create(5, 0, NULL), MPI_ERR_DIMS); /* no dimension to hold 5 processes */
  /* Many cases, with and without presets. */
  int zero[MAXD] = {0};
  for (int n = 1; n <= 130; ++n) {
    for (int k = 1; k <= 5; ++k) check_dims(n, k, zero);
    for (int p = 1; p <= n; ++p) {
      if (n % p) continue;
      int pre2[2] = {0, p}, pre3[3] = {p, 0, 0}, pre4[4] = {0, 0, p, 0};
      check_dims(n, 2, pre2);
      check_dims(n, 3, pre3);
      check_dims(n, 4, pre4);
    }
  }
  int big[3] = {0, 0, 0};
  check_dims(1 << 20, 3, big);
  check_dims(720720, 4, zero);
  check_dims(999983, 2, zero); /* a prime */
  int all[2] = {3, 4};
  check_dims(12, 2, all);
  /* Errors. */
  int bad[2] = {-1, 0};
  CHECK_EQ(MPI_Dims_create(4, 2, bad), MPI_ERR_DIMS);
  int indivisible[2] = {3, 0};
  CHECK_EQ(MPI_Dims_create(8, 2, indivisible), MPI_ERR_DIMS);
  int full_wrong[2] = {2, 2};
  CHECK_EQ(MPI_Dims_create(8, 2, full_wrong), MPI_ERR_DIMS);
  CHECK_EQ(MPI_Dims_create(0, 1, bad), MPI_ERR_DIMS);
  CHECK_EQ(MPI_Dims_create(4, -1, bad), MPI_ERR_DIMS);
}

/* ---- Cartesian grids ---- */

/* Row-major coordinates and their reference shift. */
static void ref_coords(int r, int nd, const int* dims, int* coords) {
  for (int i = nd - 1; i >= 0; --i) {
    coords[i] = r % dims[i];
    r /= dims[i];
  }
}
static int ref_rank(int nd, const int* dims, const int* coords) {
  int r = 0;
  for (int i = 0; i < nd; ++i) r = r * dims[i] + coords[i];
  return r;
}
static int ref_neighbor(int r, int nd, const int* dims, const int* periods, int dim, int disp) {
  int c[MAXD];
  ref_coords(r, nd, dims, c);
  c[dim] += disp;
  if (periods[dim]) {
    c[dim] = ((c[dim] % dims[dim]) + dims[dim]) % dims[dim];
  } else if (c[dim] < 0 || c[dim] >= dims[dim]) {
    return MPI_PROC_NULL;
  }
  return ref_rank(nd, dims, c);
}

static void check_grid(MPI_Comm cart, int nd, const int* dims, const int* periods) {
  int status, n, r, s;
  MPI_OK(MPI_Topo_test(cart, &status));
  CHECK_EQ(status, MPI_CART);
  MPI_OK(MPI_Cartdim_get(cart, &n));
  CHECK_EQ(n, nd);
  MPI_OK(MPI_Comm_rank(cart, &r));
  MPI_OK(MPI_Comm_size(cart, &s));
  int total = 1;
  for (int i = 0; i < nd; ++i) total *= dims[i];
  CHECK_EQ(s, total);
  int gd[MAXD], gp[MAXD], gc[MAXD], want[MAXD];
  MPI_OK(MPI_Cart_get(cart, MAXD, gd, gp, gc));
  ref_coords(r, nd, dims, want);
  for (int i = 0; i < nd; ++i) {
    CHECK_EQ(gd[i], dims[i]);
    CHECK_EQ(gp[i], periods[i] ? 1 : 0);
    CHECK_EQ(gc[i], want[i]);
  }
  /* coords <-> rank for every rank, and wrapped coordinates in periodic dimensions */
  for (int q = 0; q < s; ++q) {
    int c[MAXD], back;
    MPI_OK(MPI_Cart_coords(cart, q, nd, c));
    ref_coords(q, nd, dims, want);
    for (int i = 0; i < nd; ++i) CHECK_EQ(c[i], want[i]);
    MPI_OK(MPI_Cart_rank(cart, c, &back));
    CHECK_EQ(back, q);
    for (int i = 0; i < nd; ++i) {
      if (periods[i]) c[i] += (i % 2 ? -3 : 2) * dims[i];
    }
    MPI_OK(MPI_Cart_rank(cart, c, &back));
    CHECK_EQ(back, q);
  }
  /* shifts, also past the borders */
  int disps[] = {1, -1, 2, -3, 0, 7};
  for (int dim = 0; dim < nd; ++dim) {
    for (int k = 0; k < 6; ++k) {
      int src, dst;
      MPI_OK(MPI_Cart_shift(cart, dim, disps[k], &src, &dst));
      CHECK_EQ(dst, ref_neighbor(r, nd, dims, periods, dim, disps[k]));
      CHECK_EQ(src, ref_neighbor(r, nd, dims, periods, dim, -disps[k]));
    }
  }
}

/* Every sub-grid: sizes, coordinates, and a message around each one's ring. */
static void check_subgrids(MPI_Comm cart, int nd, const int* dims, const int* periods) {
  int r, mine[MAXD];
  MPI_OK(MPI_Comm_rank(cart, &r));
  ref_coords(r, nd, dims, mine);
  for (int mask = 0; mask < (1 << nd); ++mask) {
    int remain[MAXD], sd[MAXD], sp[MAXD], sc[MAXD], kept = 0, subsize = 1;
    for (int i = 0; i < nd; ++i) {
      remain[i] = (mask >> i) & 1;
      if (remain[i]) {
        sd[kept] = dims[i];
        sp[kept] = periods[i];
        sc[kept] = mine[i];
        subsize *= dims[i];
        ++kept;
      }
    }
    MPI_Comm sub;
    MPI_OK(MPI_Cart_sub(cart, remain, &sub));
    CHECK(sub != MPI_COMM_NULL);
    check_grid(sub, kept, sd, sp);
    int sr, ss, gd[MAXD], gp[MAXD], gc[MAXD];
    MPI_OK(MPI_Comm_rank(sub, &sr));
    MPI_OK(MPI_Comm_size(sub, &ss));
    CHECK_EQ(ss, subsize);
    CHECK_EQ(sr, ref_rank(kept, sd, sc));
    MPI_OK(MPI_Cart_get(sub, MAXD, gd, gp, gc));
    for (int i = 0; i < kept; ++i) CHECK_EQ(gc[i], sc[i]);
    /* Send my parent rank to the next sub rank; the one before must be the parent's process at
     * my coordinates with the kept ones moved back by one in row-major order. */
    int next = (sr + 1) % ss, prev = (sr + ss - 1) % ss, got = -1;
    MPI_Request req[2];
    MPI_OK(MPI_Irecv(&got, 1, MPI_INT, prev, 5, sub, &req[0]));
    MPI_OK(MPI_Isend(&r, 1, MPI_INT, next, 5, sub, &req[1]));
    MPI_OK(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
    int pc[MAXD], want_coords[MAXD], expect;
    ref_coords(prev, kept, sd, pc);
    memcpy(want_coords, mine, sizeof want_coords);
    for (int i = 0, k = 0; i < nd; ++i) {
      if (remain[i]) want_coords[i] = pc[k++];
    }
    MPI_OK(MPI_Cart_rank(cart, want_coords, &expect));
    CHECK_EQ(got, expect);
    if (kept == 0) { /* no neighbors: the neighborhood collectives complete at once */
      int x = 1, y = -5;
      MPI_Request req;
      MPI_OK(MPI_Neighbor_allgather(&x, 1, MPI_INT, &y, 1, MPI_INT, sub));
      MPI_OK(MPI_Ineighbor_alltoall(&x, 1, MPI_INT, &y, 1, MPI_INT, sub, &req));
      MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
      CHECK_EQ(y, -5);
    }
    MPI_OK(MPI_Comm_free(&sub));
  }
}

static void cartesian(void) {
  for (int nd = 1; nd <= 3; ++nd) {
    for (int pattern = 0; pattern < 3; ++pattern) { /* none, all, alternating periodic */
      int dims[MAXD] = {0}, periods[MAXD];
      MPI_OK(MPI_Dims_create(size, nd, dims));
      for (int i = 0; i < nd; ++i) periods[i] = pattern == 1 || (pattern == 2 && i % 2 == 0);
      MPI_Comm cart;
      MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, nd, dims, periods, pattern == 2, &cart));
      CHECK(cart != MPI_COMM_NULL);
      check_grid(cart, nd, dims, periods);
      check_subgrids(cart, nd, dims, periods);
      /* dup keeps the topology */
      MPI_Comm dup;
      MPI_OK(MPI_Comm_dup(cart, &dup));
      check_grid(dup, nd, dims, periods);
      MPI_OK(MPI_Comm_free(&dup));
      MPI_OK(MPI_Comm_free(&cart));
    }
  }
  /* A grid smaller than the communicator: the others get MPI_COMM_NULL. */
  int small = size > 1 ? size - 1 : 1, per = 0, newrank;
  MPI_Comm cart;
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, &small, &per, 0, &cart));
  CHECK_EQ(cart == MPI_COMM_NULL, rank >= small);
  if (cart != MPI_COMM_NULL) {
    check_grid(cart, 1, &small, &per);
    MPI_OK(MPI_Comm_free(&cart));
  }
  MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, &small, &per, &newrank));
  CHECK_EQ(newrank, rank < small ? rank : MPI_UNDEFINED);
  /* Zero dimensions: a one-process grid. */
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart));
  CHECK_EQ(cart == MPI_COMM_NULL, rank != 0);
  if (cart != MPI_COMM_NULL) {
    int n, s;
    MPI_OK(MPI_Cartdim_get(cart, &n));
    MPI_OK(MPI_Comm_size(cart, &s));
    CHECK(n == 0 && s == 1);
    MPI_OK(MPI_Comm_free(&cart));
  }
}

/* ---- graphs ---- */

/* Ring plus chords to the opposite node (even sizes): symmetric; repeated edges (or self-loops)
 * below 3 nodes. */
static int ring_graph(int n, int* index, int* edges) {
  int e = 0;
  for (int i = 0; i < n; ++i) {
    edges[e++] = (i + 1) % n;
    edges[e++] = (i + n - 1) % n;
    if (n >= 4 && n % 2 == 0) edges[e++] = (i + n / 2) % n;
    index[i] = e;
  }
  return e;
}

static void graph(void) {
  int index[MAXD], edges[3 * MAXD], newrank;
  int nedges = ring_graph(size, index, edges);
  MPI_Comm g;
  MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 1, &g));
  int status, nn, ne, gi[MAXD], ge[3 * MAXD];
  MPI_OK(MPI_Topo_test(g, &status));
  CHECK_EQ(status, MPI_GRAPH);
  MPI_OK(MPI_Graphdims_get(g, &nn, &ne));
  CHECK(nn == size && ne == nedges);
  MPI_OK(MPI_Graph_get(g, MAXD, 3 * MAXD, gi, ge));
  for (int i = 0; i < size; ++i) CHECK_EQ(gi[i], index[i]);
  for (int i = 0; i < nedges; ++i) CHECK_EQ(ge[i], edges[i]);
  for (int q = 0; q < size; ++q) {
    int count, nb[3 * MAXD];
    MPI_OK(MPI_Graph_neighbors_count(g, q, &count));
    CHECK_EQ(count, index[q] - (q ? index[q - 1] : 0));
    MPI_OK(MPI_Graph_neighbors(g, q, 3 * MAXD, nb));
    for (int k = 0; k < count; ++k) CHECK_EQ(nb[k], edges[(q ? index[q - 1] : 0) + k]);
  }
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(g, &dup));
  MPI_OK(MPI_Topo_test(dup, &status));
  CHECK_EQ(status, MPI_GRAPH);
  MPI_OK(MPI_Comm_free(&dup));
  MPI_OK(MPI_Comm_free(&g));
  MPI_OK(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank));
  CHECK_EQ(newrank, rank);
  /* Fewer nodes than processes. */
  int small = size > 1 ? size - 1 : 1;
  ring_graph(small, index, edges);
  MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, small, index, edges, 0, &g));
  CHECK_EQ(g == MPI_COMM_NULL, rank >= small);
  if (g != MPI_COMM_NULL) {
    MPI_OK(MPI_Graphdims_get(g, &nn, &ne));
    CHECK_EQ(nn, small);
    MPI_OK(MPI_Comm_free(&g));
  }
  MPI_OK(MPI_Graph_map(MPI_COMM_WORLD, small, index, edges, &newrank));
  CHECK_EQ(newrank, rank < small ? rank : MPI_UNDEFINED);
}

/* ---- distributed graphs ---- */

/* Is the multiset {(nb[i], w[i])} the same as {(want_nb[i], want_w[i])}? */
static int same_edges(int n, const int* nb, const int* w, const int* want_nb, const int* want_w) {
  int used[4 * MAXD] = {0};
  for (int i = 0; i < n; ++i) {
    int found = 0;
    for (int j = 0; j < n && !found; ++j) {
      if (!used[j] && want_nb[j] == nb[i] && (w == NULL || want_w[j] == w[i])) used[j] = found = 1;
    }
    if (!found) return 0;
  }
  return 1;
}

static int weight(int from, int to) { return 100 * from + to + 1; }

static void dist_graph(void) {
  int status, in, out, weighted;
  /* Adjacent: in from rank-1 and rank-2, out to rank+1 and rank+2, weighted. */
  int src[2] = {(rank + size - 1) % size, (rank + 2 * size - 2) % size};
  int dst[2] = {(rank + 1) % size, (rank + 2) % size};
  int sw[2] = {weight(src[0], rank), weight(src[1], rank)};
  int dw[2] = {weight(rank, dst[0]), weight(rank, dst[1])};
  MPI_Comm d;
  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, src, sw, 2, dst, dw, MPI_INFO_NULL, 0, &d));
  MPI_OK(MPI_Topo_test(d, &status));
  CHECK_EQ(status, MPI_DIST_GRAPH);
  MPI_OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted));
  CHECK(in == 2 && out == 2 && weighted == 1);
  int gs[2], gsw[2], gd[2], gdw[2];
  MPI_OK(MPI_Dist_graph_neighbors(d, 2, gs, gsw, 2, gd, gdw));
  for (int i = 0; i < 2; ++i) {
    CHECK(gs[i] == src[i] && gsw[i] == sw[i] && gd[i] == dst[i] && gdw[i] == dw[i]);
  }
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(d, &dup));
  MPI_OK(MPI_Dist_graph_neighbors_count(dup, &in, &out, &weighted));
  CHECK(in == 2 && out == 2 && weighted == 1);
  MPI_OK(MPI_Comm_free(&dup));
  MPI_OK(MPI_Comm_free(&d));

  /* Adjacent, unweighted, only rank 0 has edges (a star into 0). */
  int everyone[MAXD];
  for (int i = 0; i < size; ++i) everyone[i] = i;
  int to0 = 0;
  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, rank == 0 ? size : 0, everyone, MPI_UNWEIGHTED, 1, &to0,
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &d));
  MPI_OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted));
  CHECK(in == (rank == 0 ? size : 0) && out == 1 && weighted == 0);
  int star[MAXD], ws[MAXD] = {-7}, wd[1] = {-7};
  MPI_OK(MPI_Dist_graph_neighbors(d, MAXD, star, ws, 1, gd, wd));
  CHECK(gd[0] == 0 && ws[0] == -7 && wd[0] == -7); /* weights untouched on an unweighted graph */
  for (int i = 0; rank == 0 && i < size; ++i) CHECK_EQ(star[i], i);
  MPI_OK(MPI_Comm_free(&d));

  /* Weighted but some processes without edges: MPI_WEIGHTS_EMPTY. */
  int none_w[1];
  int has = rank % 2 == 0;
  int self_w = weight(rank, rank);
  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, has, &rank, has ? &self_w : MPI_WEIGHTS_EMPTY, has, &rank,
                                        has ? &self_w : MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &d));
  MPI_OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted));
  CHECK(in == has && out == has && weighted == 1);
  if (has) {
    MPI_OK(MPI_Dist_graph_neighbors(d, 1, gs, none_w, 1, gd, gdw));
    CHECK(gs[0] == rank && gd[0] == rank && none_w[0] == self_w && gdw[0] == self_w);
  }
  MPI_OK(MPI_Comm_free(&d));

  /* General: rank i gives the edges of s = i+1: s -> s+1 and s -> s+3, and rank 0 also gives
   * every r -> 0 for odd r. Each process must end with its in- and out-edges. */
  int s = (rank + 1) % size, n = 1, sources[1 + MAXD], degrees[1 + MAXD], dests[2 + MAXD], w[2 + MAXD], k = 0;
  sources[0] = s;
  degrees[0] = 2;
  dests[k] = (s + 1) % size, w[k] = weight(s, dests[k]), ++k;
  dests[k] = (s + 3) % size, w[k] = weight(s, dests[k]), ++k;
  if (rank == 0) {
    for (int r = 1; r < size; r += 2) {
      sources[n] = r;
      degrees[n++] = 1;
      dests[k] = 0, w[k] = weight(r, 0), ++k;
    }
  }
  MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests, w, MPI_INFO_NULL, 0, &d));
  /* Reference: all edges. */
  int want_in[4 * MAXD], want_inw[4 * MAXD], want_out[4 * MAXD], want_outw[4 * MAXD], nin = 0, nout = 0;
  for (int q = 0; q < size; ++q) {
    int from[3] = {q, q, q}, to[3] = {(q + 1) % size, (q + 3) % size, 0};
    int m = q % 2 ? 3 : 2;
    for (int e = 0; e < m; ++e) {
      if (to[e] == rank) want_in[nin] = from[e], want_inw[nin++] = weight(from[e], to[e]);
      if (from[e] == rank) want_out[nout] = to[e], want_outw[nout++] = weight(from[e], to[e]);
    }
  }
  MPI_OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted));
  CHECK(in == nin && out == nout && weighted == 1);
  int ns[4 * MAXD], nsw[4 * MAXD], nd[4 * MAXD], ndw[4 * MAXD];
  MPI_OK(MPI_Dist_graph_neighbors(d, in, ns, nsw, out, nd, ndw));
  CHECK(same_edges(in, ns, nsw, want_in, want_inw));
  CHECK(same_edges(out, nd, ndw, want_out, want_outw));
  MPI_OK(MPI_Comm_free(&d));

  /* The same edges unweighted. */
  MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests, MPI_UNWEIGHTED, MPI_INFO_NULL, 1, &d));
  MPI_OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted));
  CHECK(in == nin && out == nout && weighted == 0);
  MPI_OK(MPI_Dist_graph_neighbors(d, in, ns, MPI_UNWEIGHTED, out, nd, MPI_UNWEIGHTED));
  CHECK(same_edges(in, ns, NULL, want_in, want_inw));
  CHECK(same_edges(out, nd, NULL, want_out, want_outw));
  MPI_OK(MPI_Comm_free(&d));

  /* Nobody gives an edge. */
  MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 0, NULL, NULL, NULL, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &d));
  MPI_OK(MPI_Dist_graph_neighbors_count(d, &in, &out, &weighted));
  CHECK(in == 0 && out == 0);
  MPI_OK(MPI_Comm_free(&d));
}

/* ---- errors under MPI_ERRORS_RETURN ---- */

static void errors(void) {
  int status, dims[2] = {size, 1}, periods[2] = {0, 1}, r, c[2], n;
  MPI_Comm cart, g, d, out = MPI_COMM_SELF; /* no call below may write it */
  MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
  CHECK_EQ(status, MPI_UNDEFINED);
  CHECK_EQ(MPI_Topo_test(MPI_COMM_NULL, &status), MPI_ERR_COMM);

  /* creation */
  CHECK_EQ(MPI_Cart_create(MPI_COMM_WORLD, -1, dims, periods, 0, &out), MPI_ERR_DIMS);
  int zero[1] = {0}, too_big[1] = {size + 1};
  CHECK_EQ(MPI_Cart_create(MPI_COMM_WORLD, 1, zero, periods, 0, &out), MPI_ERR_DIMS);
  CHECK_EQ(MPI_Cart_create(MPI_COMM_WORLD, 1, too_big, periods, 0, &out), MPI_ERR_DIMS);
  CHECK_EQ(MPI_Cart_map(MPI_COMM_WORLD, 1, too_big, periods, &n), MPI_ERR_DIMS);
  CHECK(out == MPI_COMM_SELF);
  int index[2] = {1, 0}, edges[2] = {0, 0};
  CHECK_EQ(MPI_Graph_create(MPI_COMM_WORLD, size + 1, index, edges, 0, &out), MPI_ERR_ARG);
  CHECK_EQ(MPI_Graph_create(MPI_COMM_WORLD, -1, index, edges, 0, &out), MPI_ERR_ARG);
  if (size >= 2) CHECK_EQ(MPI_Graph_create(MPI_COMM_WORLD, 2, index, edges, 0, &out), MPI_ERR_ARG); /* decreasing */
  int one_index[1] = {1}, far_edge[1] = {size};
  CHECK_EQ(MPI_Graph_create(MPI_COMM_WORLD, 1, one_index, far_edge, 0, &out), MPI_ERR_ARG);
  int neg_w[1] = {-4}, bad_rank[1] = {size}, ok_rank[1] = {0}, neg_degree[1] = {-1};
  CHECK_EQ(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, -1, ok_rank, MPI_UNWEIGHTED, 0, ok_rank, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &out),
           MPI_ERR_ARG);
  CHECK_EQ(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, bad_rank, MPI_UNWEIGHTED, 0, ok_rank, MPI_UNWEIGHTED,
                                          MPI_INFO_NULL, 0, &out),
           MPI_ERR_RANK);
  CHECK_EQ(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, ok_rank, neg_w, 1, ok_rank, neg_w, MPI_INFO_NULL, 0,
                                          &out),
           MPI_ERR_ARG);
  CHECK_EQ(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, ok_rank, MPI_UNWEIGHTED, 1, ok_rank, ok_rank,
                                          MPI_INFO_NULL, 0, &out),
           MPI_ERR_ARG); /* weighted on one side only */
  CHECK_EQ(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, ok_rank, neg_degree, ok_rank, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                 &out),
           MPI_ERR_ARG);
  int one[1] = {1};
  CHECK_EQ(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, ok_rank, one, bad_rank, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &out),
           MPI_ERR_RANK);
  CHECK_EQ(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, bad_rank, one, ok_rank, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &out),
           MPI_ERR_RANK);
  CHECK_EQ(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, ok_rank, one, ok_rank, MPI_WEIGHTS_EMPTY, MPI_INFO_NULL, 0, &out),
           MPI_ERR_ARG);
  CHECK_EQ(MPI_Dist_graph_create(MPI_COMM_WORLD, -2, ok_rank, one, ok_rank, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &out),
           MPI_ERR_ARG);
  CHECK(out == MPI_COMM_SELF);

  /* queries on the wrong topology (or none) */
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
  int gindex[1] = {0};
  int nodes = 1;
  MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, nodes, gindex, NULL, 0, &g));
  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED,
                                        MPI_INFO_NULL, 0, &d));
  int gd[2], gp[2], nb[1], in, outd, w;
  CHECK_EQ(MPI_Cart_get(MPI_COMM_WORLD, 2, gd, gp, c), MPI_ERR_TOPOLOGY);
  CHECK_EQ(MPI_Cartdim_get(d, &n), MPI_ERR_TOPOLOGY);
  CHECK_EQ(MPI_Cart_shift(d, 0, 1, &r, &n), MPI_ERR_TOPOLOGY);
  CHECK_EQ(MPI_Graph_neighbors_count(cart, 0, &n), MPI_ERR_TOPOLOGY);
  CHECK_EQ(MPI_Graphdims_get(MPI_COMM_WORLD, &n, &r), MPI_ERR_TOPOLOGY);
  CHECK_EQ(MPI_Dist_graph_neighbors_count(cart, &in, &outd, &w), MPI_ERR_TOPOLOGY);
  CHECK_EQ(MPI_Dist_graph_neighbors(MPI_COMM_WORLD, 0, nb, nb, 0, nb, nb), MPI_ERR_TOPOLOGY);
  int remain[2] = {1, 0};
  CHECK_EQ(MPI_Cart_sub(MPI_COMM_WORLD, remain, &out), MPI_ERR_TOPOLOGY);
  CHECK_EQ(MPI_Neighbor_allgather(&r, 1, MPI_INT, nb, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_TOPOLOGY);

  /* bad ranks, coordinates, directions, sizes on a grid (size x 1, second dimension periodic) */
  CHECK_EQ(MPI_Cart_coords(cart, size, 2, c), MPI_ERR_RANK);
  CHECK_EQ(MPI_Cart_coords(cart, -1, 2, c), MPI_ERR_RANK);
  CHECK_EQ(MPI_Cart_coords(cart, 0, 1, c), MPI_ERR_ARG);
  c[0] = size, c[1] = 0;
  CHECK_EQ(MPI_Cart_rank(cart, c, &r), MPI_ERR_ARG);
  c[0] = -1;
  CHECK_EQ(MPI_Cart_rank(cart, c, &r), MPI_ERR_ARG);
  c[0] = 0, c[1] = 5; /* periodic: wraps */
  MPI_OK(MPI_Cart_rank(cart, c, &r));
  CHECK_EQ(r, 0);
  CHECK_EQ(MPI_Cart_shift(cart, 2, 1, &r, &n), MPI_ERR_ARG);
  CHECK_EQ(MPI_Cart_shift(cart, -1, 1, &r, &n), MPI_ERR_ARG);
  CHECK_EQ(MPI_Cart_get(cart, 1, gd, gp, c), MPI_ERR_ARG);
  CHECK_EQ(g == MPI_COMM_NULL, rank != 0); /* one node */
  if (g != MPI_COMM_NULL) {
    CHECK_EQ(MPI_Graph_neighbors(g, 1, 1, nb), MPI_ERR_RANK);
    CHECK_EQ(MPI_Graph_neighbors_count(g, -1, &n), MPI_ERR_RANK);
    CHECK_EQ(MPI_Graph_get(g, -1, 0, nb, nb), MPI_ERR_ARG);
  }
  CHECK_EQ(MPI_Dist_graph_neighbors(d, -1, nb, nb, 0, nb, nb), MPI_ERR_ARG);

  /* MPI_Comm_idup keeps the topology too. */
  MPI_Comm idup;
  MPI_Request req;
  MPI_OK(MPI_Comm_idup(cart, &idup, &req));
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Topo_test(idup, &status));
  CHECK_EQ(status, MPI_CART);
  MPI_OK(MPI_Comm_free(&idup));

  /* Intercommunicators carry no topology. */
  if (size >= 2) {
    MPI_Comm half, inter;
    int low = rank < size / 2;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half));
    MPI_OK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? size / 2 : 0, 9, &inter));
    MPI_OK(MPI_Topo_test(inter, &status));
    CHECK_EQ(status, MPI_UNDEFINED);
    CHECK_EQ(MPI_Cart_create(inter, 1, dims, periods, 0, &out), MPI_ERR_COMM);
    CHECK_EQ(MPI_Dist_graph_create_adjacent(inter, 0, NULL, MPI_UNWEIGHTED, 0, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                            0, &out),
             MPI_ERR_COMM);
    CHECK_EQ(MPI_Neighbor_allgather(&r, 1, MPI_INT, nb, 1, MPI_INT, inter), MPI_ERR_TOPOLOGY);
    MPI_OK(MPI_Comm_free(&inter));
    MPI_OK(MPI_Comm_free(&half));
  }

  /* The Cartesian communicator inherited MPI_ERRORS_RETURN from its parent. */
  MPI_Errhandler eh;
  MPI_OK(MPI_Comm_get_errhandler(cart, &eh));
  CHECK_EQ(eh, MPI_ERRORS_RETURN);

  MPI_OK(MPI_Comm_free(&cart));
  if (g != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&g));
  MPI_OK(MPI_Comm_free(&d));
}

/* Misuse under the default handler (fatal): each names the call, the rank and the value. */
static void fatal(const char* what) {
  int dims[1] = {size}, periods[1] = {0}, src, dst;
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  if (rank == size - 1) {
    if (strcmp(what, "shift") == 0) MPI_Cart_shift(cart, 3, 1, &src, &dst);
    if (strcmp(what, "topology") == 0) MPI_Graph_neighbors_count(cart, 0, &src);
    if (strcmp(what, "dims") == 0) {
      int bad[2] = {0, -2};
      MPI_Dims_create(4, 2, bad);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  MPI_OK(MPI_Init(&argc, &argv));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CHECK(size <= MAXD);
  if (argc > 1) {
    fatal(argv[1]);
    MPI_Finalize();
    return 0;
  }
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  dims_create();
  cartesian();
  graph();
  dist_graph();
  errors();
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (rank == 0) printf("topo: %d ranks OK\n", size);
  MPI_OK(MPI_Finalize());
  return 0;
}
