#!/usr/bin/env bash
# Runs the one-sided latency benchmark (bench/mpi/rma.c) built with gasket's mpicc, Open MPI's and
# MPICH's (each when installed) on 2 ranks of this machine and prints one table: per window kind
# and synchronisation mode, each operation's latency as "gasket / Open MPI / MPICH" microseconds.
# Each window kind runs as its own job, so an implementation that crashes on one kind (Open MPI's
# compare_and_swap on allocated windows) still reports the others; a crashed cell shows "crash".
#   bench/mpi/rma_compare.sh
# Environment: BAZEL (default bazel), BAZEL_OUTPUT_BASE (an output base to build in).
source "$(dirname "$0")/side_by_side.sh"
kinds=(create allocate shared dynamic)

names=()
run() {  # name, ranks, compile command..., --, launch command...
  local name=$1
  shift 2
  local compile launch
  split_command "$@"
  if ! "${compile[@]}" -O2 -I. bench/mpi/rma.c -o "$tmp/rma_$name" 2>"$tmp/$name.err"; then
    echo "rma_compare: building with $name failed: $(head -3 "$tmp/$name.err")" >&2
    return
  fi
  names+=("$name")
  : >"$tmp/$name.out"
  for kind in "${kinds[@]}"; do
    echo "rma_compare: running $name, $kind windows" >&2
    if ! timeout 300 "${launch[@]}" "$tmp/rma_$name" --kind "$kind" >>"$tmp/$name.out" 2>"$tmp/$name.$kind.err"; then
      echo "rma_compare: $name failed on $kind windows: $(grep -v '^$' "$tmp/$name.$kind.err" | tail -2 | tr '\n' ' ')" >&2
      echo "CRASH $kind" >>"$tmp/$name.out"
    fi
  done
}
each_implementation rma_compare 2 run
[ ${#names[@]} -gt 0 ] || { echo "rma_compare: nothing ran" >&2; exit 1; }

python3 - "${names[*]}" "$tmp" <<'PY'
import sys
names, tmp = sys.argv[1].split(), sys.argv[2]
kinds = ["create", "allocate", "shared", "dynamic"]
modes = ["lock", "lock_all", "fence", "pscw"]
ops = ["put", "get", "acc", "fop", "cas"]
results = {}
for n in names:
    r = {}
    for line in open(f"{tmp}/{n}.out"):
        p = line.split()
        if len(p) == 5 and p[0] == "RMA":
            r[(p[1], p[2], p[3])] = float(p[4])
        elif len(p) == 2 and p[0] == "CRASH":
            r[("crash", p[1])] = True
    results[n] = r
def cell(n, k, m, o):
    r = results[n]
    if (k, m, o) in r:
        return f"{r[(k, m, o)]:.3f}"
    return "crash" if ("crash", k) in r else "-"
print("RMA latency, 8 bytes, 2 ranks on one node, microseconds: " + " / ".join(names))
print()
print("| window | sync | " + " | ".join(ops) + " |")
print("|---|---|" + "---|" * len(ops))
for k in kinds:
    for m in modes:
        print(f"| {k} | {m} | " + " | ".join(" / ".join(cell(n, k, m, o) for n in names) for o in ops) + " |")
PY
