#!/usr/bin/env bash
# Runs the collective MPI-IO benchmark (bench/io/io_bench.c) built with gasket's mpicc, Open MPI's
# and MPICH's (each when installed) at 2 and 4 ranks on this machine, and prints one table of
# bandwidths side by side (each column with the file system's own sequential figures of its run).
#   bench/io/io_compare.sh [edge [repetitions [directory]]]
# Environment: BAZEL, BAZEL_OUTPUT_BASE (see bench/mpi/side_by_side.sh), RANKS (default "2 4").
source "$(dirname "$0")/../mpi/side_by_side.sh"

columns=() files=()
run() {  # name, ranks, compile command..., --, launch command...
  local name=$1 n=$2
  shift 2
  local compile launch
  split_command "$@"
  if [ ! -x "$tmp/io_$name" ] && ! "${compile[@]}" -O2 -I. bench/io/io_bench.c -o "$tmp/io_$name" 2>"$tmp/$name.err"; then
    echo "io_compare: building with $name failed: $(head -3 "$tmp/$name.err")" >&2
    return
  fi
  echo "io_compare: running $name on $n ranks" >&2
  if "${launch[@]}" "$tmp/io_$name" "${BENCH_ARGS[@]}" >"$tmp/$name.$n.out" 2>"$tmp/$name.$n.err"; then
    columns+=("$name $n")
    files+=("$tmp/$name.$n.out")
  else
    echo "io_compare: $name on $n ranks failed: $(tail -3 "$tmp/$name.$n.err" "$tmp/$name.$n.out")" >&2
  fi
}
BENCH_ARGS=("$@")
for n in ${RANKS:-2 4}; do
  each_implementation io_compare "$n" run
done
[ ${#files[@]} -gt 0 ] || { echo "io_compare: nothing ran" >&2; exit 1; }

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
print("| operation | bytes | " + " | ".join(f"{c.split()[0]} {c.split()[1]} ranks (MB/s)" for c in columns) + " |")
print("|" + "---|" * (2 + len(columns)))
for k in keys:
    cells = [f"{t[k]:.0f}" if k in t else "-" for t in tables]
    print(f"| {k[0]} | {k[1]} | " + " | ".join(cells) + " |")
PY
