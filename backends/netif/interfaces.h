// Which local interface reaches which peer: the rail choice of switchless clusters (seed 004,
// ../../../shared/seeds/DIGEST-madeleine-switchless.md). Every PE publishes the IPv4 addresses of
// its interfaces through the bootstrap; for a peer on another host the link uses the local
// interface whose subnet contains one of the peer's addresses (longest prefix first, then
// interface name: deterministic, never round-robin). A peer sharing no subnet is unreachable and
// is reported by name, with both sides' addresses. Used by the pciddc tcp link and the ucx backend.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/status.h"

namespace gasket::backend::netif {

struct Interface {
  std::string name;      // "eth0"; may be empty in a peer's record
  uint32_t address = 0;  // IPv4, host byte order
  int prefix = 32;       // subnet prefix length, 0..32
  bool same_subnet(uint32_t other) const;
};

// What a PE tells its peers about its host: a node name for messages, an identity of its network
// stack (two PEs with equal ids share interfaces and reach each other over loopback), and its
// interfaces.
struct HostAddresses {
  std::string node;
  std::string stack;
  std::vector<Interface> interfaces;
};

// Up, non-loopback IPv4 interfaces of this network namespace, sorted by name then address.
// `selection` is GASKET_NET_INTERFACES: empty for all, else a comma-separated list of interface
// names and/or subnets ("eth1,198.18.0.0/15"); an interface is kept when it matches any item.
// A malformed item fails, naming it.
Result<std::vector<Interface>> local_interfaces(const std::string& selection);

// Boot id + network-namespace inode: equal only for processes sharing one network stack.
std::string network_stack_id();

// This PE's record (node name from GASKET_NODE_NAME or the host name).
Result<HostAddresses> this_host(const std::string& node_name, const std::string& selection);

// One line without spaces in the node name: "node stack name=a.b.c.d/p ...". decode() rejects
// anything else, naming what is wrong.
std::string encode(const HostAddresses& host);
Result<HostAddresses> decode(const std::string& text);

struct Route {
  Interface local;        // the interface to send from (bind to local.address)
  uint32_t peer_address;  // the peer's address on that subnet
};
// The local interface whose subnet contains one of the peer's addresses; nullopt when none does.
std::optional<Route> choose_route(const std::vector<Interface>& mine, const std::vector<Interface>& peer);

// UCX_NET_DEVICES for this PE from GASKET_NET_INTERFACES: the names of the selected interfaces,
// comma-separated ("" when `selection` is empty: UCX chooses). UCX 1.13's tcp transport treats
// every peer as reachable from every device, so the ucx backend also connects peers on other
// hosts through their listeners on the route choose_route() gives (backends/ucx/README.md).
// Fails when the selection matches no interface, naming it.
Result<std::string> ucx_net_devices(const std::string& selection);

// "a.b.c.d" and "a.b.c.d/p"; a list "eth1=198.18.0.1/30, eth2=..." for messages.
std::string format_address(uint32_t address);
std::string describe(const std::vector<Interface>& interfaces);

// The message for a peer reachable on no shared subnet: names both PEs, their nodes and addresses.
std::string unreachable_message(const char* who, int my_pe, const HostAddresses& mine, int peer_pe,
                                const HostAddresses& peer);

}  // namespace gasket::backend::netif
