#!/usr/bin/env bash
# The standard ABI layer's cost per call: call_cost built against the native mpi.h and against
# the ABI's, run alternately ROUNDS times each (2 ranks, path PATH), then the median of each
# operation's per-call medians, native beside ABI, as a table.
#   bazel run //bench/abi:overhead -- [ROUNDS] [PATH]      (defaults: 7, local)
set -euo pipefail
rounds=${1:-7}
path=${2:-local}
runfiles=${RUNFILES_DIR:-$0.runfiles}/gasket
launcher=$runfiles/tools/gasketrun/gasketrun
paths=$runfiles/tests/paths.txt
grep -qE "^$path( |\$)" "$paths" || { echo "overhead.sh: unknown path $path (tests/paths.txt)" >&2; exit 2; }
env_of_path=$(awk -v p="$path" '$1 == p { $1 = ""; print }' "$paths")
[ "$path" = local ] || env_of_path="$env_of_path GASKET_LOCAL=backend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for ((r = 0; r < rounds; r++)); do
  for build in native abi; do
    env $env_of_path "$launcher" -n 2 "$runfiles/bench/abi/call_cost_$build" >> "$tmp/$build"
  done
done
python3 - "$tmp/native" "$tmp/abi" "$rounds" "$path" <<'PY'
import statistics, sys
def read(p):
    d = {}
    for line in open(p):
        name, us = line.split()
        d.setdefault(name, []).append(float(us))
    return d
native, abi = read(sys.argv[1]), read(sys.argv[2])
print("2 ranks, path %s, medians of %s alternating runs (us per call)" % (sys.argv[4], sys.argv[3]))
print("| operation | native | ABI | ABI - native |")
print("|---|---:|---:|---:|")
for name in native:
    n, a = statistics.median(native[name]), statistics.median(abi[name])
    print("| %s | %.3f | %.3f | %+.3f |" % (name, n, a, a - n))
PY
