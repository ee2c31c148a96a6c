#!/usr/bin/env bash
# Memory per PE at 2..64 PEs: gasket on every path (and the "-nodes" variants, 2 PEs per
# simulated node, where most peers are remote) beside Open MPI and MPICH; then the table and the
# per-peer slopes (fit.py). Run from the source root after
#   bazel build //bench/memory:memory_probe //tools/gasketrun
#   bench/memory/run.sh [OUT_FILE [COUNTS [PATHS]]]
# COUNTS defaults to "2 4 8 16 32 64"; PATHS to every path of tests/paths.txt, their -nodes
# variants, openmpi and mpich. One job at a time (memory figures do not depend on CPU load, but
# 64 PEs on this machine's cores are slow enough alone).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-memory.txt}
counts=${2:-"2 4 8 16 32 64"}
paths=${3:-"local pciddc-shm pciddc-tcp ucx-shm ucx-tcp pciddc-shm-nodes pciddc-tcp-nodes ucx-shm-nodes ucx-tcp-nodes openmpi mpich"}
bin=${MEMORY_BIN:-$root/bazel-bin}  # holds tools/gasketrun/gasketrun and bench/memory/memory_probe
others=$(mktemp -d)
trap 'rm -rf "$others"' EXIT
for impl in openmpi mpich; do
  command -v "mpicc.$impl" >/dev/null 2>&1 && "mpicc.$impl" -O2 "$root/bench/memory/memory_probe.c" -o "$others/$impl"
done
: >"$out"
for n in $counts; do
  for path in $paths; do
    case $path in
      openmpi)
        [ -x "$others/openmpi" ] || continue
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
          timeout 600 mpirun.openmpi -np "$n" "$others/openmpi" openmpi ;;
      mpich)
        [ -x "$others/mpich" ] || continue
        timeout 600 mpiexec.mpich -n "$n" "$others/mpich" mpich ;;
      *)
        GASKET_TEST_TIMEOUT=600 "$root/tests/run_multi_pe.sh" "$bin/tools/gasketrun/gasketrun" \
          "$bin/bench/memory/memory_probe" "$n" "$path" -- "$path" ;;
    esac 2>"$others/err" | grep '^MEMORY ' | tee -a "$out"
    grep -v 'oversubscribed' "$others/err" >&2
  done
done
python3 "$root/bench/memory/fit.py" "$out"
