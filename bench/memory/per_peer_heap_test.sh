#!/usr/bin/env bash
# pciddc-tcp's `registered` (the core's files) grows by at most 264.4 KiB per added PE; and
# the heap every PE holds after MPI_Init grows by at most 0.90 KiB per added PE — MPICH 4.0.2's
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
after_init() {  # FIGURE PEs path
  "$runner" "$launcher" "$probe" "$2" "$3" -- "$3" 2>/dev/null | sed -nE "s/^MEMORY .*phase=init .* $1=([0-9.]+) .*/\\1/p"
}
status=0
# The core's files registered with the backend grow by the mailbox's credit line and ring (8.06
# KiB) and memreg's channel (256.25 KiB) per added PE: at most 264.4 KiB (392.2 while the
# emulation's get and scatter zones were one per PE of the job, not a pool).
small=$(after_init registered 8 pciddc-tcp)
large=$(after_init registered 32 pciddc-tcp)
awk -v a="$small" -v b="$large" 'BEGIN {
  s = (b - a) / 24
  printf "pciddc-tcp: registered %.1f KiB per PE at 8 PEs, %.1f at 32: %.2f KiB per added PE (at most 264.4)\n", a, b, s
  exit !(a != "" && b != "" && s <= 264.4) }' || status=1
for path in local pciddc-shm pciddc-tcp; do
  small=$(after_init heap 8 "$path")
  large=$(after_init heap 32 "$path")
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
