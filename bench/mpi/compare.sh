#!/usr/bin/env bash
# Runs the MPI ping-pong benchmark (bench/mpi/pingpong.c) built with gasket's mpicc, Open MPI's
# and MPICH's (each when installed: apt-get install openmpi-bin libopenmpi-dev mpich libmpich-dev)
# on 2 ranks of this machine, and prints their latency and bandwidth side by side.
#   bench/mpi/compare.sh [pingpong options: --max BYTES, --alloc-mem]
#   bench/mpi/compare.sh --save-baseline DIR   (keeps this build's library, mpi.h and mpiexec in DIR)
# Environment: BAZEL (default bazel), BAZEL_OUTPUT_BASE (an output base to build in),
# GASKET_BASELINE=DIR (also runs the gasket build saved in DIR, as "gasket-baseline": before/after
# a change in one run).
source "$(dirname "$0")/side_by_side.sh"
if [ "${1:-}" = "--save-baseline" ]; then
  mkdir -p "$2"
  cp -f "$bin/mpi/libgasket_mpi.so" mpi/include/mpi.h mpi/include/mpi_proto.h "$bin/tools/mpicc/mpiexec" "$2/"
  echo "compare: baseline saved in $2" >&2
  exit 0
fi

names=() files=()
run() {  # name, ranks, compile command..., --, launch command...
  local name=$1
  shift 2
  local compile launch
  split_command "$@"
  if ! "${compile[@]}" -O2 -I. bench/mpi/pingpong.c -o "$tmp/pp_$name" 2>"$tmp/$name.err"; then
    echo "compare: building with $name failed: $(head -3 "$tmp/$name.err")" >&2
    return
  fi
  echo "compare: running $name" >&2
  if "${launch[@]}" "$tmp/pp_$name" "${PINGPONG_ARGS[@]}" >"$tmp/$name.out" 2>"$tmp/$name.err"; then
    names+=("$name")
    files+=("$tmp/$name.out")
  else
    echo "compare: $name failed: $(tail -3 "$tmp/$name.err")" >&2
  fi
}
PINGPONG_ARGS=("$@")
if [ -n "${GASKET_BASELINE:-}" ]; then
  base=$(cd "$GASKET_BASELINE" && pwd)
  printf '#!/bin/sh\nexec gcc -I"%s" "$@" -L"%s" -Wl,-rpath,"%s" -lgasket_mpi\n' "$base" "$base" "$base" >"$tmp/mpicc-baseline"
  chmod +x "$tmp/mpicc-baseline"
  run gasket-baseline 2 "$tmp/mpicc-baseline" -- "$base/mpiexec" -n 2 --quiet
fi
each_implementation compare 2 run
[ ${#names[@]} -gt 0 ] || { echo "compare: nothing ran" >&2; exit 1; }

for f in "${files[@]}"; do grep '^#' "$f"; done
python3 - "${names[*]}" "${files[@]}" <<'PY'
import sys
names = sys.argv[1].split()
tables = []
for path in sys.argv[2:]:
    rows = {}
    for line in open(path):
        parts = line.split()
        if len(parts) == 3 and parts[0].isdigit():
            rows[int(parts[0])] = (float(parts[1]), float(parts[2]))
    tables.append(rows)
sizes = sorted(set().union(*[t.keys() for t in tables]))
head = "| bytes | " + " | ".join(f"{n} latency (us)" for n in names) + " | " + \
       " | ".join(f"{n} bandwidth (GB/s)" for n in names) + " |"
print(head)
print("|" + "---|" * (1 + 2 * len(names)))
for s in sizes:
    lat = [f"{t[s][0]:.3f}" if s in t else "-" for t in tables]
    bw = [f"{t[s][1]:.2f}" if s in t else "-" for t in tables]
    print(f"| {s} | " + " | ".join(lat) + " | " + " | ".join(bw) + " |")
PY
