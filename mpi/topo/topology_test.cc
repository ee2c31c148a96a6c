#define BOOST_TEST_MODULE topology
#include <boost/test/unit_test.hpp>

#include <vector>

#include "mpi/topo/topology.h"

using gasket::mpi::topo::Cartesian;
using gasket::mpi::topo::DistGraph;
using gasket::mpi::topo::Graph;
using gasket::mpi::topo::Kind;
using gasket::mpi::topo::Topology;
using gasket::mpi::topo::dims_create;

namespace {
std::vector<int> dims(int nnodes, std::vector<int> d) {
  BOOST_REQUIRE(dims_create(nnodes, static_cast<int>(d.size()), d.data(), "test").is_ok());
  return d;
}
}  // namespace

BOOST_AUTO_TEST_CASE(dims_create_balances_and_keeps_given_dimensions) {
  BOOST_TEST(dims(6, {0, 0}) == (std::vector<int>{3, 2}));
  BOOST_TEST(dims(7, {0, 0}) == (std::vector<int>{7, 1}));
  BOOST_TEST(dims(6, {0, 3, 0}) == (std::vector<int>{2, 3, 1}));
  BOOST_TEST(dims(64, {0, 0, 0}) == (std::vector<int>{4, 4, 4}));
  BOOST_TEST(dims(24, {0, 0, 0}) == (std::vector<int>{4, 3, 2}));
  BOOST_TEST(dims(1, {0, 0, 0, 0}) == (std::vector<int>{1, 1, 1, 1}));
  BOOST_TEST(dims(12, {0, 0, 2}) == (std::vector<int>{3, 2, 2}));
  int bad[3] = {0, 3, 0};
  BOOST_TEST(dims_create(7, 3, bad, "test").error_class() == MPI_ERR_DIMS);
  int negative[2] = {0, -1};
  BOOST_TEST(dims_create(4, 2, negative, "test").error_class() == MPI_ERR_DIMS);
}

BOOST_AUTO_TEST_CASE(dims_create_is_quick_for_large_and_awkward_sizes) {
  // An exponential search would not finish within the test's time limit.
  BOOST_TEST(dims(1 << 30, std::vector<int>(10, 0)) == (std::vector<int>{8, 8, 8, 8, 8, 8, 8, 8, 8, 8}));
  BOOST_TEST(dims(2147483647, {0, 0, 0}) == (std::vector<int>{2147483647, 1, 1}));  // a prime
  std::vector<int> d = dims(735134400, std::vector<int>(6, 0));  // many divisors
  long long product = 1;
  for (size_t i = 0; i < d.size(); ++i) {
    product *= d[i];
    if (i > 0) BOOST_TEST(d[i] <= d[i - 1]);
  }
  BOOST_TEST(product == 735134400);
}

BOOST_AUTO_TEST_CASE(cartesian_coordinates_wrap_and_shift) {
  Cartesian c;
  int d[2] = {3, 4}, p[2] = {1, 0};
  BOOST_REQUIRE(Topology::cartesian(2, d, p, 12, 0, "test", &c).is_ok());
  BOOST_TEST(c.size() == 12);
  BOOST_TEST(c.coords_of(7) == (std::vector<int>{1, 3}));
  int wrapped[2] = {-2, 3}, outside[2] = {0, 4};
  BOOST_TEST(c.rank_of(wrapped) == 7);
  BOOST_TEST(c.rank_of(outside) == -1);
  int src, dst;
  c.shift(7, 1, 1, &src, &dst);  // non-periodic: past the border
  BOOST_TEST(src == 6);
  BOOST_TEST(dst == MPI_PROC_NULL);
  c.shift(7, 0, 2000000000, &src, &dst);  // periodic: huge displacements wrap
  BOOST_TEST(dst == c.rank_of(std::vector<int>{(1 + 2000000000) % 3, 3}.data()));
  BOOST_TEST(src == c.rank_of(std::vector<int>{((1 - 2000000000) % 3 + 3) % 3, 3}.data()));
  int big[2] = {5, 5};
  BOOST_TEST(Topology::cartesian(2, big, p, 12, 0, "test", &c).error_class() == MPI_ERR_DIMS);
}

BOOST_AUTO_TEST_CASE(cartesian_neighbors_in_the_standards_order_with_channels) {
  Cartesian c;
  int d[2] = {2, 3}, p[2] = {1, 0};
  BOOST_REQUIRE(Topology::cartesian(2, d, p, 6, 0, "test", &c).is_ok());
  Topology t(c, 1);  // coordinates (0, 1)
  BOOST_TEST((t.kind() == Kind::kCartesian));
  BOOST_TEST(t.sources() == (std::vector<int>{4, 4, 0, 2}));
  BOOST_TEST(t.destinations() == t.sources());
  BOOST_TEST(t.send_channel(0) == 0);
  BOOST_TEST(t.recv_channel(0) == 1);  // from the -1 side comes what that neighbor sent +1
  BOOST_TEST(t.recv_channel(3) == 2);
  Topology corner(c, 0);
  BOOST_TEST(corner.sources()[2] == MPI_PROC_NULL);
}

BOOST_AUTO_TEST_CASE(graphs_are_checked_and_give_neighbors) {
  int index[3] = {2, 3, 4}, edges[4] = {1, 2, 0, 0};
  Graph g;
  BOOST_REQUIRE(Topology::graph(3, index, edges, 4, 0, "test", &g).is_ok());
  Topology t(g, 0);
  BOOST_TEST(t.sources() == (std::vector<int>{1, 2}));
  BOOST_TEST(t.channels() == 1);
  BOOST_TEST(g.degree(2) == 1);
  int bad_edges[4] = {1, 3, 0, 0}, bad_index[3] = {2, 1, 4};
  BOOST_TEST(Topology::graph(3, index, bad_edges, 4, 0, "test", &g).error_class() == MPI_ERR_ARG);
  BOOST_TEST(Topology::graph(3, bad_index, edges, 4, 0, "test", &g).error_class() == MPI_ERR_ARG);
  BOOST_TEST(Topology::graph(5, index, edges, 4, 0, "test", &g).error_class() == MPI_ERR_ARG);
  BOOST_TEST(Topology(DistGraph{{3}, {}, {1, 2}, {}, false}).destinations() == (std::vector<int>{1, 2}));
}
