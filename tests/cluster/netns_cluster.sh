#!/usr/bin/env bash
# Hosts simulated as network namespaces, for multi-host runs on one machine (as root).
#
#   netns_cluster.sh TOPOLOGY TRANSPORT GASKETRUN NPES [--expect-failure REGEX] PROGRAM [ARGS...]
#
# TOPOLOGY: the data links between hosts; every link is its own subnet from 198.18.0.0/15 and no
# namespace forwards, so a host reaches exactly its direct neighbours (seed 004's switchless
# cluster):
#   pair      host-a -- host-b                              (198.18.0.0/30)
#   triangle  a--b 198.18.0.0/30, a--c 198.18.0.4/30, b--c 198.18.0.8/30
#   line      a--b 198.18.0.0/30, b--c 198.18.0.8/30: a and c share no subnet (must be reported)
# TRANSPORT: pciddc-tcp or ucx-tcp (UCX connects to peers on other hosts through their listeners,
# from the interface on the peer's subnet: backends/ucx).
#
# Besides the hosts, a "controller" namespace runs gasketrun, its store listening on 198.19.255.1
# (on the controller's loopback). Each host has a management link to it on its own /30 from
# 198.19.0.0/24 and a /32 route to the store only: like a cluster's management Ethernet, it
# carries the bootstrap, never data (no two hosts share a management subnet).
# PEs are placed in blocks (PE i on host i*hosts/NPES); each host is its own node
# (GASKET_NODE_NAME=host-x). Every namespace and link is deleted on exit.
# Skips with a message (exit 0, "SKIP:") where namespaces cannot be made.
#
# Internally re-invoked by gasketrun as the per-PE wrapper:
#   netns_cluster.sh --pe NAMESPACE_PREFIX HOSTS NPES PROGRAM [ARGS...]
set -u

if [ "${1:-}" = "--pe" ]; then
  prefix=$2 hosts=$3 npes=$4
  shift 4
  rank=${GASKET_JOB_RANK:?the launcher sets GASKET_JOB_RANK}
  letters=(a b c)
  h=${letters[$((rank * hosts / npes))]}
  exec ip netns exec "$prefix-$h" env GASKET_NODE_NAME="host-$h" "$@"
fi

topology=$1 transport=$2 gasketrun=$3 npes=$4
shift 4
expect=""
if [ "${1:-}" = "--expect-failure" ]; then expect=$2; shift 2; fi
skip() { echo "SKIP: netns cluster ($topology): $*"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "needs root to create network namespaces"
command -v ip >/dev/null || skip "the ip command (iproute2) is not installed"

case "$topology" in
  pair) hosts=(a b) links=("a b 198.18.0.0") ;;
  triangle) hosts=(a b c) links=("a b 198.18.0.0" "a c 198.18.0.4" "b c 198.18.0.8") ;;
  line) hosts=(a b c) links=("a b 198.18.0.0" "b c 198.18.0.8") ;;
  *) echo "netns_cluster.sh: unknown topology '$topology'" >&2; exit 2 ;;
esac
case "$transport" in
  pciddc-tcp) export GASKET_TRANSPORT=pciddc GASKET_PCIDDC_LINK=tcp ;;
  # Keep UCX off the management links (GASKET_NET_INTERFACES -> UCX_NET_DEVICES and the
  # addresses the ucx backend connects between). pciddc needs no hint: it matches subnets per peer.
  ucx-tcp) export GASKET_TRANSPORT=ucx UCX_TLS=self,tcp GASKET_NET_INTERFACES=198.18.0.0/16 ;;
  *) echo "netns_cluster.sh: unknown transport '$transport'" >&2; exit 2 ;;
esac

prefix=gk$$
ctl=$prefix-ctl
made=()
cleanup() { for ns in "${made[@]}"; do ip netns del "$ns" 2>/dev/null; done; }
trap cleanup EXIT
new_ns() {
  ip netns add "$1" 2>/dev/null || return 1
  made+=("$1")
  ip -n "$1" link set lo up && ip netns exec "$1" sysctl -qw net.ipv4.ip_forward=0 || return 1
  # IPv4 only: UCX ignores an interface while its IPv6 address is still tentative (DAD).
  ip netns exec "$1" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 2>/dev/null
  return 0
}
new_ns "$ctl" || skip "cannot create a network namespace here (ip netns add failed)"
ip -n "$ctl" addr add 198.19.255.1/32 dev lo || skip "cannot configure the controller namespace"
i=0
for h in "${hosts[@]}"; do
  ns=$prefix-$h
  new_ns "$ns" || skip "cannot create namespace $ns"
  # Management link: controller .(4i+1), host .(4i+2), and a route to the store only.
  ip link add "m-$h" netns "$ctl" type veth peer name mgmt0 netns "$ns" || skip "cannot create a veth pair"
  ip -n "$ctl" addr add "198.19.0.$((4 * i + 1))/30" dev "m-$h"
  ip -n "$ns" addr add "198.19.0.$((4 * i + 2))/30" dev mgmt0
  ip -n "$ctl" link set "m-$h" up
  ip -n "$ns" link set mgmt0 up
  ip -n "$ns" route add 198.19.255.1/32 via "198.19.0.$((4 * i + 1))" dev mgmt0 ||
    skip "cannot add the route to the store in $ns"
  i=$((i + 1))
done
for link in "${links[@]}"; do
  read -r x y net <<<"$link"
  base=${net%.*} last=${net##*.}
  ip link add "to-$y" netns "$prefix-$x" type veth peer name "to-$x" netns "$prefix-$y" ||
    skip "cannot create the veth pair $x--$y"
  ip -n "$prefix-$x" addr add "$base.$((last + 1))/30" dev "to-$y"
  ip -n "$prefix-$y" addr add "$base.$((last + 2))/30" dev "to-$x"
  ip -n "$prefix-$x" link set "to-$y" up
  ip -n "$prefix-$y" link set "to-$x" up
done
# Links come up asynchronously; the job would only retry, so wait for carrier.
for h in "${hosts[@]}"; do
  for _ in $(seq 50); do
    ip -n "$prefix-$h" -o link show | grep -q "state LOWERLAYERDOWN\|state DOWN" || break
    sleep 0.1
  done
done

self=$(readlink -f "$0")
err=$(mktemp)
trap 'rm -f "$err"; cleanup' EXIT
ip netns exec "$ctl" "$gasketrun" -n "$npes" --timeout "${GASKET_TEST_TIMEOUT:-120}" --quiet \
  --store-address 198.19.255.1 "$self" --pe "$prefix" "${#hosts[@]}" "$npes" "$@" 2>"$err"
status=$?
cat "$err" >&2
what="$* on $npes PEs over $transport across the $topology of network namespaces"
if [ -z "$expect" ]; then
  [ $status -ne 0 ] && echo "FAILED: $what exited $status" >&2
  exit $status
fi
if [ $status -eq 0 ]; then echo "FAILED: $what: expected a failure matching /$expect/, got exit 0" >&2; exit 1; fi
if grep -q "timed out" "$err"; then echo "FAILED: $what hung until the timeout instead of failing" >&2; exit 1; fi
if ! grep -Eq -- "$expect" "$err"; then echo "FAILED: $what failed ($status) without /$expect/ on stderr" >&2; exit 1; fi
echo "ok: $what failed as expected (status $status) with /$expect/"
