#!/usr/bin/env bash
# Two "hosts" on one machine: network namespaces A and B joined by a veth pair (198.18.0.1 and
# 198.18.0.2, from the benchmarking range 198.18.0.0/15; nothing is routed anywhere else). The
# launcher runs in A and serves its store on 198.18.0.1; PEs 0..n/2-1 run in A, the others in B
# (placed by this script acting as a per-PE wrapper), each half with its own GASKET_NODE_NAME, so
# the halves are two nodes and talk over UCX tcp on the veth link.
#   two_host_test.sh GASKETRUN NPES PROGRAM...        (as root; skips where namespaces cannot be made)
# Internally re-invoked as: two_host_test.sh --pe NS_A NS_B NPES PROGRAM...
set -u

if [ "${1:-}" = "--pe" ]; then
  # Per-PE wrapper: enter this PE's namespace and node.
  ns_a=$2 ns_b=$3 npes=$4
  shift 4
  rank=${GASKET_JOB_RANK:?the launcher sets GASKET_JOB_RANK}
  if [ "$rank" -lt $((npes / 2)) ]; then ns=$ns_a dev=veth-ga node=host-a; else ns=$ns_b dev=veth-gb node=host-b; fi
  exec ip netns exec "$ns" env GASKET_NODE_NAME=$node UCX_NET_DEVICES=$dev "$@"
fi

gasketrun=$1 npes=$2
shift 2
skip() { echo "SKIP: two-host test: $*"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "needs root to create network namespaces"
command -v ip >/dev/null || skip "the ip command (iproute2) is not installed"

ns_a=gasket-$$-a ns_b=gasket-$$-b
cleanup() { ip netns del "$ns_a" 2>/dev/null; ip netns del "$ns_b" 2>/dev/null; }
trap cleanup EXIT
ip netns add "$ns_a" 2>/dev/null || skip "cannot create a network namespace here (ip netns add failed)"
ip netns add "$ns_b" || skip "cannot create a second network namespace"
ip link add veth-ga netns "$ns_a" type veth peer name veth-gb netns "$ns_b" ||
  skip "cannot create a veth pair between the namespaces"
ip -n "$ns_a" addr add 198.18.0.1/30 dev veth-ga
ip -n "$ns_b" addr add 198.18.0.2/30 dev veth-gb
for ns in "$ns_a" "$ns_b"; do
  ip -n "$ns" link set lo up
  # IPv4 only: UCX ignores an interface while its IPv6 address is still tentative (DAD).
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 2>/dev/null || true
done
ip -n "$ns_a" link set veth-ga up
ip -n "$ns_b" link set veth-gb up
# Wait until each end's operstate is "up" (the kernel's link watch takes about a second); UCX
# ignores an interface until then.
for end in "$ns_a:veth-ga" "$ns_b:veth-gb"; do
  up=no
  for _ in $(seq 100); do
    [ "$(ip netns exec "${end%%:*}" cat "/sys/class/net/${end##*:}/operstate" 2>/dev/null)" = up ] && { up=yes; break; }
    sleep 0.05
  done
  [ $up = yes ] || { echo "FAILED: ${end##*:} in ${end%%:*} did not come up within 5 s" >&2; exit 1; }
done

self=$(readlink -f "$0")
export GASKET_TRANSPORT=ucx UCX_TLS=self,tcp
ip netns exec "$ns_a" "$gasketrun" -n "$npes" --timeout "${GASKET_TEST_TIMEOUT:-240}" --quiet \
  --store-address 198.18.0.1 "$self" --pe "$ns_a" "$ns_b" "$npes" "$@"
status=$?
[ $status -ne 0 ] && echo "FAILED: $* on $npes PEs across two network namespaces exited $status" >&2
exit $status
