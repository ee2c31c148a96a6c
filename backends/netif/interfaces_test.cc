// Subnet matching of the switchless triangle: each peer is reached from the interface on its
// link, never round-robin; no shared subnet means no route; records survive encode/decode.
#define BOOST_TEST_MODULE netif_interfaces
#include <boost/test/unit_test.hpp>

#include "backends/netif/interfaces.h"

using namespace gasket::backend::netif;

namespace {
Interface iface(const std::string& name, const std::string& cidr) {
  HostAddresses h = decode("n s " + name + "=" + cidr).value();
  return h.interfaces.at(0);
}
}  // namespace

BOOST_AUTO_TEST_CASE(triangle_picks_the_interface_of_each_link) {
  // Host A: link AB on 198.18.0.0/30 (eth1), link AC on 198.18.0.4/30 (eth2).
  std::vector<Interface> a = {iface("eth1", "198.18.0.1/30"), iface("eth2", "198.18.0.5/30")};
  std::vector<Interface> b = {iface("eth1", "198.18.0.2/30"), iface("eth2", "198.18.0.9/30")};
  std::vector<Interface> c = {iface("eth1", "198.18.0.6/30"), iface("eth2", "198.18.0.10/30")};
  auto ab = choose_route(a, b);
  BOOST_TEST_REQUIRE(ab.has_value());
  BOOST_TEST(ab->local.name == "eth1");
  BOOST_TEST(format_address(ab->peer_address) == "198.18.0.2");
  auto ac = choose_route(a, c);
  BOOST_TEST_REQUIRE(ac.has_value());
  BOOST_TEST(ac->local.name == "eth2");
  BOOST_TEST(format_address(ac->peer_address) == "198.18.0.6");
  auto cb = choose_route(c, b);
  BOOST_TEST_REQUIRE(cb.has_value());
  BOOST_TEST(format_address(cb->local.address) == "198.18.0.10");
  BOOST_TEST(format_address(cb->peer_address) == "198.18.0.9");
}

BOOST_AUTO_TEST_CASE(no_shared_subnet_is_no_route_and_names_the_peer) {
  HostAddresses a = decode("hostA s1 eth1=198.18.0.1/30").value();
  HostAddresses d = decode("hostD s2 eth1=198.18.1.1/30").value();
  BOOST_TEST(!choose_route(a.interfaces, d.interfaces).has_value());
  std::string m = unreachable_message("pciddc/tcp", 0, a, 3, d);
  BOOST_TEST(m.find("PE 3 (node hostD)") != std::string::npos);
  BOOST_TEST(m.find("198.18.1.1/30") != std::string::npos);
  BOOST_TEST(m.find("198.18.0.1/30") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(longest_prefix_wins_over_a_wide_shared_network) {
  std::vector<Interface> a = {iface("mgmt", "198.19.0.1/16"), iface("rail", "198.19.7.1/30")};
  std::vector<Interface> b = {iface("mgmt", "198.19.0.2/16"), iface("rail", "198.19.7.2/30")};
  auto r = choose_route(a, b);
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->local.name == "rail");
  BOOST_TEST(format_address(r->peer_address) == "198.19.7.2");
}

BOOST_AUTO_TEST_CASE(records_round_trip_and_bad_ones_are_named) {
  HostAddresses h{"node-1", "boot:123", {iface("eth0", "198.18.3.4/24")}};
  auto back = decode(encode(h));
  BOOST_TEST_REQUIRE(back.is_ok());
  BOOST_TEST(back->node == "node-1");
  BOOST_TEST(back->stack == "boot:123");
  BOOST_TEST(describe(back->interfaces) == "eth0=198.18.3.4/24");
  auto bad = decode("n s eth0=300.1.1.1/24");
  BOOST_TEST(!bad.is_ok());
  BOOST_TEST(bad.status().message().find("eth0=300.1.1.1/24") != std::string::npos);
  BOOST_TEST(!decode("").is_ok());
}

BOOST_AUTO_TEST_CASE(selection_items_are_checked) {
  auto bad = local_interfaces("eth0,198.18.0.0/40");
  BOOST_TEST(!bad.is_ok());
  BOOST_TEST(bad.status().message().find("198.18.0.0/40") != std::string::npos);
  auto none = local_interfaces("no-such-interface-name");
  BOOST_TEST_REQUIRE(none.is_ok());
  BOOST_TEST(none->empty());
  BOOST_TEST(network_stack_id() == network_stack_id());
  BOOST_TEST(network_stack_id().find(':') != std::string::npos);
}
