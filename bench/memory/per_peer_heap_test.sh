#!/usr/bin/env bash
# The heap every PE holds after MPI_Init grows by at most 0.90 KiB per added PE — MPICH 4.0.2's
# figure on this machine (README.md, "Private memory and heap per added PE") — on the paths where
# gasket's own tables indexed by PE are what grows: local, pciddc-shm and pciddc-tcp (whose link
# once held a 64 KiB staging buffer per connection: the barrier's partners after MPI_Init, 16.6 KiB
# per added PE; now one per link). memory_probe's `heap`
# (the bytes glibc's malloc holds, exact, the mean over PEs) at 8 and 32 PEs. The ucx paths are
# left out: UCX's own heap varies by several KiB from one run to the next (their per-peer cost,
# the endpoints made at init, is checked by tests/mpi:first_contact_paths).
#   per_peer_heap_test.sh RUNNER LAUNCHER PROBE
set -euo pipefail
runner=$1 launcher=$2 probe=$3
heap_after_init() {  # PEs path
  "$runner" "$launcher" "$probe" "$1" "$2" -- "$2" 2>/dev/null | sed -nE 's/^MEMORY .*phase=init .* heap=([0-9.]+) .*/\1/p'
}
status=0
for path in local pciddc-shm pciddc-tcp; do
  small=$(heap_after_init 8 "$path")
  large=$(heap_after_init 32 "$path")
  if [ -z "$small" ] || [ -z "$large" ]; then
    echo "$path: memory_probe printed no heap figure (8 PEs: '$small', 32 PEs: '$large')" >&2
    status=1
    continue
  fi
  awk -v a="$small" -v b="$large" -v p="$path" 'BEGIN {
    s = (b - a) / 24
    printf "%s: heap %.1f KiB per PE at 8 PEs, %.1f at 32: %.2f KiB per added PE (at most 0.90)\n", p, a, b, s
    exit !(s <= 0.90) }' || status=1
done
exit $status
