/* NULL where a binding of the group, communicator, attribute and topology chapters needs a
 * pointer (an output, or an array of n > 0 entries): the call returns an error class
 * (MPI_ERR_ARG) under MPI_ERRORS_RETURN, never a crash, and leaves the objects usable. NULL
 * arrays of zero entries are accepted. The collective calls get the same NULL on every rank, so
 * every rank returns at once. */
#include "check.h"

static int rank, size;

#define EXPECT_ARG(call)                                                          \
  do {                                                                            \
    int rc_ = (call), class_ = -1;                                                \
    if (rc_ == MPI_SUCCESS) fprintf(stderr, "rank %d: accepted: %s\n", rank, #call); \
    CHECK(rc_ != MPI_SUCCESS);                                                    \
    MPI_Error_class(rc_, &class_);                                                \
    if (class_ != MPI_ERR_ARG) fprintf(stderr, "rank %d: class %d: %s\n", rank, class_, #call); \
    CHECK_EQ(class_, MPI_ERR_ARG);                                                \
  } while (0)

int main(int argc, char** argv) {
  int level;
  init_test_at_level_arg(&argc, &argv, &rank, &size, &level);
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  MPI_Group world, g;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int ranks[2] = {0, 0}, out[2], x;
  int ranges[1][3] = {{0, 0, 1}};
  MPI_Comm c;
  MPI_Request req;

  /* ---- groups ---- */
  EXPECT_ARG(MPI_Group_translate_ranks(world, 1, NULL, world, out));
  EXPECT_ARG(MPI_Group_translate_ranks(world, 1, ranks, world, NULL));
  EXPECT_ARG(MPI_Group_translate_ranks(world, -1, ranks, world, out));
  MPI_OK(MPI_Group_translate_ranks(world, 0, NULL, world, NULL));
  EXPECT_ARG(MPI_Group_size(world, NULL));
  EXPECT_ARG(MPI_Group_rank(world, NULL));
  EXPECT_ARG(MPI_Group_compare(world, world, NULL));
  EXPECT_ARG(MPI_Group_union(world, world, NULL));
  EXPECT_ARG(MPI_Group_intersection(world, world, NULL));
  EXPECT_ARG(MPI_Group_difference(world, world, NULL));
  EXPECT_ARG(MPI_Group_incl(world, 1, NULL, &g));
  EXPECT_ARG(MPI_Group_incl(world, 1, ranks, NULL));
  EXPECT_ARG(MPI_Group_excl(world, 1, NULL, &g));
  EXPECT_ARG(MPI_Group_excl(world, 1, ranks, NULL));
  EXPECT_ARG(MPI_Group_range_incl(world, 1, NULL, &g));
  EXPECT_ARG(MPI_Group_range_incl(world, 1, ranges, NULL));
  EXPECT_ARG(MPI_Group_range_excl(world, 1, NULL, &g));
  EXPECT_ARG(MPI_Group_free(NULL));
  MPI_OK(MPI_Group_incl(world, 0, NULL, &g));  /* zero ranks: the empty group */
  CHECK(g == MPI_GROUP_EMPTY);

  /* ---- communicators (local calls) ---- */
  EXPECT_ARG(MPI_Comm_rank(MPI_COMM_WORLD, NULL));
  EXPECT_ARG(MPI_Comm_size(MPI_COMM_WORLD, NULL));
  EXPECT_ARG(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, NULL));
  EXPECT_ARG(MPI_Comm_group(MPI_COMM_WORLD, NULL));
  EXPECT_ARG(MPI_Comm_test_inter(MPI_COMM_WORLD, NULL));
  EXPECT_ARG(MPI_Comm_set_name(MPI_COMM_WORLD, NULL));
  EXPECT_ARG(MPI_Comm_get_name(MPI_COMM_WORLD, NULL, &x));
  char name[MPI_MAX_OBJECT_NAME];
  EXPECT_ARG(MPI_Comm_get_name(MPI_COMM_WORLD, name, NULL));
  EXPECT_ARG(MPI_Comm_get_info(MPI_COMM_WORLD, NULL));
  EXPECT_ARG(MPI_Comm_get_errhandler(MPI_COMM_WORLD, NULL));
  EXPECT_ARG(MPI_Comm_create_errhandler(NULL, NULL));
  EXPECT_ARG(MPI_Comm_get_parent(NULL));
  EXPECT_ARG(MPI_Comm_free(NULL));
  EXPECT_ARG(MPI_Comm_disconnect(NULL));
  /* ---- attributes ---- */
  EXPECT_ARG(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL));
  EXPECT_ARG(MPI_Comm_free_keyval(NULL));
  int keyval;
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &keyval, NULL));
  void* value;
  EXPECT_ARG(MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, NULL, &x));
  EXPECT_ARG(MPI_Comm_get_attr(MPI_COMM_WORLD, keyval, &value, NULL));
  MPI_OK(MPI_Comm_free_keyval(&keyval));

  /* ---- communicator creation (collective: every rank passes the same NULL) ---- */
  EXPECT_ARG(MPI_Comm_dup(MPI_COMM_WORLD, NULL));
  EXPECT_ARG(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, NULL));
  EXPECT_ARG(MPI_Comm_idup(MPI_COMM_WORLD, NULL, &req));
  EXPECT_ARG(MPI_Comm_idup(MPI_COMM_WORLD, &c, NULL));
  EXPECT_ARG(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, NULL, &req));
  EXPECT_ARG(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, NULL));
  EXPECT_ARG(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, NULL));
  EXPECT_ARG(MPI_Comm_create(MPI_COMM_WORLD, world, NULL));
  EXPECT_ARG(MPI_Comm_create_group(MPI_COMM_WORLD, world, 0, NULL));
  EXPECT_ARG(MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 0, 0, NULL));

  /* ---- topologies ---- */
  int dims[2] = {size, 1}, periods[2] = {1, 0}, coords[2];
  EXPECT_ARG(MPI_Dims_create(size, 2, NULL));
  EXPECT_ARG(MPI_Cart_create(MPI_COMM_WORLD, 2, NULL, periods, 0, &c));
  EXPECT_ARG(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, NULL, 0, &c));
  EXPECT_ARG(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, NULL));
  EXPECT_ARG(MPI_Cart_map(MPI_COMM_WORLD, 2, NULL, periods, &x));
  EXPECT_ARG(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, NULL));
  MPI_Comm cart;
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
  MPI_OK(MPI_Comm_set_errhandler(cart, MPI_ERRORS_RETURN));
  EXPECT_ARG(MPI_Cart_sub(cart, NULL, &c));
  int remain[2] = {1, 0};
  EXPECT_ARG(MPI_Cart_sub(cart, remain, NULL));
  EXPECT_ARG(MPI_Cart_get(cart, 2, NULL, periods, coords));
  EXPECT_ARG(MPI_Cart_get(cart, 2, dims, periods, NULL));
  EXPECT_ARG(MPI_Cartdim_get(cart, NULL));
  EXPECT_ARG(MPI_Cart_coords(cart, 0, 2, NULL));
  EXPECT_ARG(MPI_Cart_rank(cart, NULL, &x));
  EXPECT_ARG(MPI_Cart_rank(cart, coords, NULL));
  EXPECT_ARG(MPI_Cart_shift(cart, 0, 1, NULL, &x));
  EXPECT_ARG(MPI_Cart_shift(cart, 0, 1, &x, NULL));
  EXPECT_ARG(MPI_Topo_test(cart, NULL));
  MPI_OK(MPI_Comm_free(&cart));

  int index[16], edges[32];
  for (int i = 0; i < size; i++) index[i] = i + 1, edges[i] = (i + 1) % size;
  EXPECT_ARG(MPI_Graph_create(MPI_COMM_WORLD, size, NULL, edges, 0, &c));
  EXPECT_ARG(MPI_Graph_create(MPI_COMM_WORLD, size, index, NULL, 0, &c));
  EXPECT_ARG(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, NULL));
  EXPECT_ARG(MPI_Graph_map(MPI_COMM_WORLD, size, NULL, edges, &x));
  EXPECT_ARG(MPI_Graph_map(MPI_COMM_WORLD, size, index, NULL, &x));
  EXPECT_ARG(MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, NULL));
  MPI_Comm graph;
  MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph));
  MPI_OK(MPI_Comm_set_errhandler(graph, MPI_ERRORS_RETURN));
  EXPECT_ARG(MPI_Graphdims_get(graph, NULL, &x));
  EXPECT_ARG(MPI_Graphdims_get(graph, &x, NULL));
  EXPECT_ARG(MPI_Graph_get(graph, size, size, NULL, edges));
  EXPECT_ARG(MPI_Graph_get(graph, size, size, index, NULL));
  EXPECT_ARG(MPI_Graph_neighbors_count(graph, 0, NULL));
  EXPECT_ARG(MPI_Graph_neighbors(graph, 0, 1, NULL));
  MPI_OK(MPI_Comm_free(&graph));

  int one_src = rank, one_dst = (rank + 1) % size, degree = 1, w = 1;
  EXPECT_ARG(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, NULL, &degree, &one_dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
  EXPECT_ARG(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &one_src, NULL, &one_dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
  EXPECT_ARG(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &one_src, &degree, NULL, MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &c));
  EXPECT_ARG(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &one_src, &degree, &one_dst, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                                   NULL));
  int from = (rank + size - 1) % size;
  EXPECT_ARG(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, NULL, &w, 1, &one_dst, &w, MPI_INFO_NULL, 0, &c));
  EXPECT_ARG(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, &w, 1, NULL, &w, MPI_INFO_NULL, 0, &c));
  EXPECT_ARG(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, &w, 1, &one_dst, &w, MPI_INFO_NULL, 0, NULL));
  MPI_Comm dist;
  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &from, &w, 1, &one_dst, &w, MPI_INFO_NULL, 0, &dist));
  MPI_OK(MPI_Comm_set_errhandler(dist, MPI_ERRORS_RETURN));
  EXPECT_ARG(MPI_Dist_graph_neighbors_count(dist, NULL, &x, &x));
  EXPECT_ARG(MPI_Dist_graph_neighbors_count(dist, &x, NULL, &x));
  EXPECT_ARG(MPI_Dist_graph_neighbors_count(dist, &x, &x, NULL));
  EXPECT_ARG(MPI_Dist_graph_neighbors(dist, 1, NULL, out, 1, out, out));
  EXPECT_ARG(MPI_Dist_graph_neighbors(dist, 1, out, out, 1, NULL, out));
  MPI_OK(MPI_Comm_free(&dist));

  /* everything still works */
  int sum = 0;
  MPI_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK_EQ(sum, size * (size - 1) / 2);
  MPI_OK(MPI_Group_free(&world));
  MPI_OK(MPI_Finalize());
  return 0;
}
