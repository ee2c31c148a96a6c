#!/usr/bin/env bash
# What each added PE costs every PE, 8 against 32 PEs (README.md, "Flat after init" and "Heap per
# contacted peer"), from memory_probe's mean over PEs:
# - pciddc-tcp's `registered` (the core's files) grows by at most 264.4 KiB per added PE: the
#   mailbox's credit line and ring (8.06 KiB) and memreg's channel (256.25 KiB); 392.2 while the
#   emulation's get and scatter zones were one per PE of the job, not a pool;
# - the heap after MPI_Init (`heap`: the bytes glibc's malloc holds, exact) grows by at most
#   0.90 KiB per added PE — MPICH 4.0.2's figure on this machine — on local, pciddc-shm and
#   pciddc-tcp, where gasket's own tables indexed by PE are what grows (pciddc-tcp's link once
#   held a 64 KiB staging buffer per connection; now one per link);
# - the heap an all-to-all (which contacts every peer) adds beyond that grows by at most 0.85 KiB
#   per contacted peer on the same paths (0.08 local, 0.50 pciddc-shm, 0.71 pciddc-tcp measured;
#   the probe's own send and receive buffers are 0.125 of it): 1.1 on pciddc-shm and 1.3 on
#   pciddc-tcp while the request pool and the unexpected queue kept every request and node of
#   the burst.
# The ucx paths are left out: UCX's own heap varies by several KiB from one run to the next
# (their per-peer cost, the endpoints, is checked by tests/mpi:first_contact_paths).
#   per_peer_heap_test.sh RUNNER LAUNCHER PROBE
set -euo pipefail
runner=$1 launcher=$2 probe=$3
declare -A figure  # [path,PEs,phase,name]
measure() {  # path PEs
  local line phase name
  while read -r line; do
    phase=$(sed -nE 's/.* phase=([a-z]+) .*/\1/p' <<<"$line")
    for name in registered heap; do
      figure[$1,$2,$phase,$name]=$(sed -nE "s/.* $name=([0-9.]+) .*/\\1/p" <<<"$line")
    done
  done < <("$runner" "$launcher" "$probe" "$2" "$1" -- "$1" 2>/dev/null | grep '^MEMORY ')
}
# check LABEL SMALL LARGE LIMIT: the slope per added PE from 8 to 32 PEs is at most LIMIT.
check() {
  awk -v l="$1" -v a="$2" -v b="$3" -v m="$4" 'BEGIN {
    if (a == "" || b == "") { printf "%s: memory_probe printed no figure (8 PEs: %s, 32 PEs: %s)\n", l, a, b; exit 1 }
    s = (b - a) / 24
    printf "%s: %.1f KiB per PE at 8 PEs, %.1f at 32: %.2f KiB per added PE (at most %.2f)\n", l, a, b, s, m
    exit !(s <= m) }'
}
status=0
for path in local pciddc-shm pciddc-tcp; do
  measure "$path" 8
  measure "$path" 32
done
check "pciddc-tcp registered" "${figure[pciddc-tcp,8,init,registered]:-}" "${figure[pciddc-tcp,32,init,registered]:-}" 264.4 || status=1
for path in local pciddc-shm pciddc-tcp; do
  check "$path heap after MPI_Init" "${figure[$path,8,init,heap]:-}" "${figure[$path,32,init,heap]:-}" 0.90 || status=1
  contact8=$(awk -v a="${figure[$path,8,alltoall,heap]:-}" -v b="${figure[$path,8,init,heap]:-}" 'BEGIN { if (a != "" && b != "") print a - b }')
  contact32=$(awk -v a="${figure[$path,32,alltoall,heap]:-}" -v b="${figure[$path,32,init,heap]:-}" 'BEGIN { if (a != "" && b != "") print a - b }')
  check "$path heap the all-to-all added" "$contact8" "$contact32" 0.85 || status=1
done
exit $status
