#include "backends/netif/interfaces.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace gasket::backend::netif {

namespace {
uint32_t mask_of(int prefix) { return prefix <= 0 ? 0 : ~uint32_t{0} << (32 - prefix); }

// "a.b.c.d/p" (or "a.b.c.d" as /32) -> address and prefix.
bool parse_cidr(const std::string& text, uint32_t* address, int* prefix) {
  size_t slash = text.find('/');
  std::string host = text.substr(0, slash);
  in_addr a{};
  if (inet_pton(AF_INET, host.c_str(), &a) != 1) return false;
  *address = ntohl(a.s_addr);
  *prefix = 32;
  if (slash != std::string::npos) {
    std::string p = text.substr(slash + 1);
    if (p.empty() || p.size() > 2 || p.find_first_not_of("0123456789") != std::string::npos) return false;
    *prefix = std::stoi(p);
    if (*prefix > 32) return false;
  }
  return true;
}
}  // namespace

bool Interface::same_subnet(uint32_t other) const { return (other & mask_of(prefix)) == (address & mask_of(prefix)); }

std::string format_address(uint32_t address) {
  in_addr a{};
  a.s_addr = htonl(address);
  char text[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &a, text, sizeof text);
  return text;
}

std::string describe(const std::vector<Interface>& interfaces) {
  if (interfaces.empty()) return "no IPv4 interface";
  std::string out;
  for (const Interface& i : interfaces) {
    if (!out.empty()) out += ", ";
    if (!i.name.empty()) out += i.name + "=";
    out += format_address(i.address) + "/" + std::to_string(i.prefix);
  }
  return out;
}

Result<std::vector<Interface>> local_interfaces(const std::string& selection) {
  struct Item {
    std::string name;
    uint32_t address = 0;
    int prefix = -1;  // -1: an interface name
  };
  std::vector<Item> wanted;
  std::stringstream in(selection);
  for (std::string item; std::getline(in, item, ',');) {
    item.erase(0, item.find_first_not_of(" \t"));
    item.erase(item.find_last_not_of(" \t") + 1);
    if (item.empty()) continue;
    Item w;
    if (item.find_first_of("./") != std::string::npos) {
      if (!parse_cidr(item, &w.address, &w.prefix)) {
        return invalid_argument("GASKET_NET_INTERFACES: '" + item + "' is neither an interface name nor a subnet a.b.c.d/p");
      }
    } else {
      w.name = item;
    }
    wanted.push_back(w);
  }
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return errno_error("getifaddrs (listing this host's network interfaces)");
  std::vector<Interface> out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    if ((i->ifa_flags & IFF_UP) == 0 || (i->ifa_flags & IFF_LOOPBACK) != 0) continue;
    Interface f;
    f.name = i->ifa_name;
    f.address = ntohl(reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr);
    uint32_t mask = i->ifa_netmask == nullptr ? ~uint32_t{0} : ntohl(reinterpret_cast<const sockaddr_in*>(i->ifa_netmask)->sin_addr.s_addr);
    f.prefix = __builtin_popcount(mask);
    bool keep = wanted.empty();
    for (const Item& w : wanted) {
      keep = keep || (w.prefix < 0 ? w.name == f.name : (f.address & mask_of(w.prefix)) == (w.address & mask_of(w.prefix)));
    }
    if (keep) out.push_back(f);
  }
  freeifaddrs(list);
  std::sort(out.begin(), out.end(), [](const Interface& a, const Interface& b) {
    return a.name != b.name ? a.name < b.name : a.address < b.address;
  });
  return out;
}

std::string network_stack_id() {
  std::string boot;
  std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
  char host[256] = {};
  if (boot.empty() && gethostname(host, sizeof host - 1) == 0) boot = host;
  struct stat st {};
  unsigned long long ns = stat("/proc/self/ns/net", &st) == 0 ? static_cast<unsigned long long>(st.st_ino) : 0;
  return boot + ":" + std::to_string(ns);
}

Result<HostAddresses> this_host(const std::string& node_name, const std::string& selection) {
  HostAddresses h;
  h.node = node_name;
  if (h.node.empty()) {
    char host[256] = {};
    h.node = gethostname(host, sizeof host - 1) == 0 ? host : "unknown-host";
  }
  std::replace(h.node.begin(), h.node.end(), ' ', '_');
  h.stack = network_stack_id();
  Result<std::vector<Interface>> ifs = local_interfaces(selection);
  if (!ifs.is_ok()) return ifs.status();
  h.interfaces = std::move(ifs.value());
  return h;
}

Result<std::string> ucx_net_devices(const std::string& selection) {
  if (selection.empty()) return std::string();
  Result<std::vector<Interface>> ifs = local_interfaces(selection);
  if (!ifs.is_ok()) return ifs.status();
  if (ifs->empty()) {
    return invalid_argument("GASKET_NET_INTERFACES='" + selection + "' matches no up IPv4 interface of this host");
  }
  std::string out, previous;
  for (const Interface& i : ifs.value()) {  // sorted by name: an interface's addresses are adjacent
    if (i.name == previous) continue;
    out += (out.empty() ? "" : ",") + i.name;
    previous = i.name;
  }
  return out;
}

std::string encode(const HostAddresses& host) {
  std::string out = host.node + " " + host.stack;
  for (const Interface& i : host.interfaces) {
    out += " " + i.name + "=" + format_address(i.address) + "/" + std::to_string(i.prefix);
  }
  return out;
}

Result<HostAddresses> decode(const std::string& text) {
  std::stringstream in(text);
  HostAddresses h;
  if (!(in >> h.node >> h.stack)) return invalid_argument("interface record '" + text + "': no node name and stack id");
  for (std::string word; in >> word;) {
    size_t eq = word.find('=');
    Interface i;
    if (eq == std::string::npos || !parse_cidr(word.substr(eq + 1), &i.address, &i.prefix)) {
      return invalid_argument("interface record of node " + h.node + ": bad entry '" + word + "' (want name=a.b.c.d/p)");
    }
    i.name = word.substr(0, eq);
    h.interfaces.push_back(i);
  }
  return h;
}

std::optional<Route> choose_route(const std::vector<Interface>& mine, const std::vector<Interface>& peer) {
  std::optional<Route> best;
  for (const Interface& local : mine) {
    for (const Interface& remote : peer) {
      if (!local.same_subnet(remote.address) || local.address == remote.address) continue;
      if (!best || local.prefix > best->local.prefix) best = Route{local, remote.address};
    }
  }
  return best;
}

std::string unreachable_message(const char* who, int my_pe, const HostAddresses& mine, int peer_pe,
                                const HostAddresses& peer) {
  return std::string(who) + ": PE " + std::to_string(my_pe) + " (node " + mine.node + ") cannot reach PE " +
         std::to_string(peer_pe) + " (node " + peer.node + "): no local interface shares a subnet with it (local: " +
         describe(mine.interfaces) + "; " + peer.node + ": " + describe(peer.interfaces) +
         "); connect the nodes on a common subnet or check GASKET_NET_INTERFACES";
}

}  // namespace gasket::backend::netif
