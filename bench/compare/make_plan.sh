#!/usr/bin/env bash
# Writes the case list bench/compare/compare.py runs: gasket on every path of tests/paths.txt,
# and the other implementations found on this machine (Open MPI, its OpenSHMEM, MPICH) for the
# benchmark sources that compile against them.
#   make_plan.sh BIN_DIR PATHS_FILE [--quick] [--paths "local pciddc-shm ..."]
# BIN_DIR is a Bazel bin folder holding gasket's built tools and benchmarks.
set -euo pipefail
bin=$1 paths_file=$2
shift 2
quick="" only_paths=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=--quick ;;
    --paths) only_paths=$2; shift ;;
    *) echo "make_plan.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
run="$bin/tools/gasketrun/gasketrun --quiet --timeout 100"

echo "# implementation label [VAR=value ...] command..."
echo "machine floor $bin/bench/floor/floor $quick"
grep -vE '^(#|$)' "$paths_file" | while read -r path env; do
  if [ -n "$only_paths" ] && ! grep -qw -- "$path" <<<"$only_paths"; then continue; fi
  [ "$path" = local ] || env="$env GASKET_LOCAL=backend"
  echo "gasket/$path core_bench $env $run -n 2 $bin/bench/core/core_bench $quick"
done
for n in 2 4; do
  echo "gasket/local startup:hello-${n}PEs $run -n $n $bin/bench/startup/hello_core"
done
