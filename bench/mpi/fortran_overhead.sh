#!/usr/bin/env bash
# What the Fortran bindings add to a small message: the ping-pong of bench/mpi/pingpong.c (C) and
# bench/mpi/pingpong_f08.f90 through mpi_f08 and through the `mpi` module, all run by one invocation,
# alternating (the order rotates each round), ROUNDS rounds; prints the medians of the 8-byte
# latency (and its minimum) and of the per-call cost of MPI_Send to MPI_PROC_NULL, with the load
# average.
#   fortran_overhead.sh [ROUNDS] [PATH]   (PATH: a line of tests/paths.txt, default local)
# Environment: BAZEL (default bazel).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
rounds=${1:-15} path=${2:-local}
${BAZEL:-bazel} build -c opt //bench/mpi:pingpong //bench/mpi:pingpong_f08 //tools/gasketrun >&2
bin=$(${BAZEL:-bazel} info -c opt bazel-bin 2>/dev/null)
env=$(awk -v p="$path" '$1 == p { $1 = ""; print }' tests/paths.txt)
[ "$path" = local ] || env="$env GASKET_LOCAL=backend"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() {  # run NAME: one ping-pong up to 8 bytes; appends the figures to $tmp/NAME.lat and .null
  local name=$1 program=("$bin/bench/mpi/pingpong_f08")
  case $name in
    C) program=("$bin/bench/mpi/pingpong") ;;
    mpi_f08) program+=(--interface mpi_f08) ;;
    mpi) program+=(--interface mpi) ;;
  esac
  env $env BENCH_RESULTS=1 "$bin/tools/gasketrun/gasketrun" -n 2 "${program[@]}" --max 8 >"$tmp/out"
  awk -F'\t' '$1 == "RESULT" && $2 == "mpi pingpong latency" && $3 == 8 { print $4 }' "$tmp/out" >>"$tmp/$name.lat"
  # the Fortran programs print the C loop's cost beside theirs: "... <binding> X ns, C Y ns per call"
  sed -n 's/^# MPI_Send to MPI_PROC_NULL: [a-z0-9_]* *\([0-9.]*\) ns, C *\([0-9.]*\) ns.*/\1 \2/p' "$tmp/out" >>"$tmp/$name.null"
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
order=(C mpi_f08 mpi)
for ((r = 0; r < rounds; ++r)); do
  for ((k = 0; k < 3; ++k)); do run "${order[(r + k) % 3]}"; done
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
c_lat=$(median <"$tmp/C.lat")
echo "# path $path, $rounds rounds alternating; load average $load_before before, $(cut -d' ' -f1-3 /proc/loadavg) after"
row='| %-9s | %16s | %7s | %9s | %24s |\n'
printf "$row" interface "8 B latency (us)" "vs C" "min (us)" "PROC_NULL send (ns): it/C"
printf "$row" --------- ---------------- ------- --------- ------------------------
printf "$row" C "$c_lat" "" "$(sort -g "$tmp/C.lat" | head -1)" ""
for name in mpi_f08 mpi; do
  lat=$(median <"$tmp/$name.lat")
  own=$(cut -d' ' -f1 "$tmp/$name.null" | median) c_own=$(cut -d' ' -f2 "$tmp/$name.null" | median)
  printf "$row" "$name" "$lat" "$(awk -v a="$lat" -v b="$c_lat" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }')" \
    "$(sort -g "$tmp/$name.lat" | head -1)" "$own / $c_own"
done
