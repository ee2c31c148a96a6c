#!/usr/bin/env bash
# Runs bench/io/io_bench.c for every MPI here in turn — gasket builds (one binary, each library
# through LD_LIBRARY_PATH), Open MPI, MPICH — ROUNDS times in one run, the way to compare builds on
# a shared machine, and prints per rank count the median and range of each one's collective write
# and read with the POSIX writers and reader of the same jobs and the load average.
#   bench/io/io_alternate.sh ROUNDS [edge [repetitions [directory [hints]]]]
# Environment: RANKS (default "2 4"), GASKET_LIBS ("name=folder ...": gasket libraries to alternate,
# each folder holding a libgasket_mpi.so; default: this tree's opt build as "gasket"), BAZEL,
# BAZEL_OUTPUT_BASE (see bench/mpi/side_by_side.sh).
rounds=${1:?usage: io_alternate.sh ROUNDS [edge [repetitions [directory [hints]]]]}
shift
source "$(dirname "$0")/../mpi/side_by_side.sh"
program_args=("$@")
log="$tmp/jobs.txt"

# collect NAME RANKS COMPILE... -- LAUNCH...: the binaries once per implementation (gasket: once
# per library folder), as prefixes of the launch commands to alternate.
commands=() names=()
collect() {
  local name=$1 n=$2 compile launch exe
  shift 2
  split_command "$@"
  exe="$tmp/io_bench_$name"
  [ -x "$exe" ] || "${compile[@]}" -O2 -I. bench/io/io_bench.c -o "$exe" || return
  if [ "$name" = gasket ]; then
    for lib in ${GASKET_LIBS:-gasket=$bin/mpi}; do
      names+=("${lib%%=*}") commands+=("env LD_LIBRARY_PATH=${lib#*=} ${launch[*]} $exe")
    done
  else
    names+=("$name") commands+=("${launch[*]} $exe")
  fi
}
for n in ${RANKS:-2 4}; do
  names=() commands=()
  each_implementation io_alternate "$n" collect
  for ((round = 1; round <= rounds; ++round)); do
    for i in "${!names[@]}"; do
      load=$(cut -d' ' -f1 /proc/loadavg)
      # shellcheck disable=SC2086
      if out=$(${commands[$i]} "${program_args[@]}" 2>"$tmp/err"); then
        echo "$out" | awk -v n="$n" -v name="${names[$i]}" -v load="$load" '!/^#/ && NF == 3 { print n, name, load, $1, $3 }' >>"$log"
      else
        echo "io_alternate: ${names[$i]} on $n ranks failed: $(tail -2 "$tmp/err")" >&2
      fi
    done
  done
done
python3 - "$log" "$rounds" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
def med(v): return statistics.median(v) if v else float("nan")
for n in sorted({int(r[0]) for r in rows}):
    sub = [r for r in rows if int(r[0]) == n]
    loads = [float(r[2]) for r in sub]
    print(f"\n{n} ranks, {sys.argv[2]} rounds, load average {min(loads):.1f}-{max(loads):.1f}; MB/s median [range] of the jobs")
    print("| build | collective write_all + sync | POSIX single writer | POSIX writer per rank | write / single writer "
          "| collective read_all | POSIX single reader | read / single reader |")
    print("|---|---|---|---|---|---|---|---|")
    for name in dict.fromkeys(r[1] for r in sub):
        def vals(op): return [float(r[4]) for r in sub if r[1] == name and r[3] == op]
        w, s, p = vals("collective_write_all+sync"), vals("posix_sequential_write+fsync"), vals("posix_write+fsync_per_rank")
        rd, sr = vals("collective_read_all"), vals("posix_sequential_read")
        def ratio(a, b): return 100 * med([x / y for x, y in zip(a, b)])
        print(f"| {name} | {med(w):.0f} [{min(w):.0f}-{max(w):.0f}] | {med(s):.0f} | {med(p):.0f} | {ratio(w, s):.0f}% "
              f"| {med(rd):.0f} [{min(rd):.0f}-{max(rd):.0f}] | {med(sr):.0f} | {ratio(rd, sr):.0f}% |")
PY
