#!/usr/bin/env bash
# Runs the collective benchmark (bench/mpi/coll.c) built with gasket's mpicc, Open MPI's and
# MPICH's (each when installed) at 2 and 4 ranks on this machine (4 ranks oversubscribe a 2-core
# machine), and prints one table of latencies side by side.
#   bench/mpi/coll_compare.sh [--quick]
# Environment: BAZEL (default bazel), BAZEL_OUTPUT_BASE (an output base to build in), RANKS
# (default "2 4").
source "$(dirname "$0")/side_by_side.sh"

columns=() files=()
run() {  # name, ranks, compile command..., --, launch command...
  local name=$1 n=$2
  shift 2
  local compile launch
  split_command "$@"
  if [ ! -x "$tmp/coll_$name" ] && ! "${compile[@]}" -O2 -I. bench/mpi/coll.c -o "$tmp/coll_$name" 2>"$tmp/$name.err"; then
    echo "coll_compare: building with $name failed: $(head -3 "$tmp/$name.err")" >&2
    return
  fi
  echo "coll_compare: running $name on $n ranks" >&2
  if "${launch[@]}" "$tmp/coll_$name" "${BENCH_ARGS[@]}" >"$tmp/$name.$n.out" 2>"$tmp/$name.$n.err"; then
    columns+=("$name $n")
    files+=("$tmp/$name.$n.out")
  else
    echo "coll_compare: $name on $n ranks failed: $(tail -3 "$tmp/$name.$n.err")" >&2
  fi
}
BENCH_ARGS=("$@")
for n in ${RANKS:-2 4}; do
  each_implementation coll_compare "$n" run
done
[ ${#files[@]} -gt 0 ] || { echo "coll_compare: nothing ran" >&2; exit 1; }

python3 - "$(printf '%s,' "${columns[@]}")" "${files[@]}" <<'PY'
import sys
columns = [c for c in sys.argv[1].split(",") if c]
tables = []
for path in sys.argv[2:]:
    rows = {}
    for line in open(path):
        parts = line.split()
        if len(parts) == 3 and not line.startswith("#"):
            rows[(parts[0], int(parts[1]))] = float(parts[2])
    tables.append(rows)
keys = []
for t in tables:
    for k in t:
        if k not in keys:
            keys.append(k)
print("| operation | bytes | " + " | ".join(f"{c.split()[0]} {c.split()[1]} ranks (us)" for c in columns) + " |")
print("|" + "---|" * (2 + len(columns)))
for k in keys:
    cells = [f"{t[k]:.2f}" if k in t else "-" for t in tables]
    print(f"| {k[0]} | {k[1]} | " + " | ".join(cells) + " |")
PY
