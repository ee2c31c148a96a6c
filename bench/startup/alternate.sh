#!/bin/bash
# Start-up time and resident memory of two builds, alternating in one run (a shared machine's load
# drifts): bench/startup/alternate.sh OLD_DIR NEW_DIR [ROUNDS] [PES]
# Each DIR holds gasketrun, hello_mpi and hello_shmem of one build (copied from bazel-bin). Prints,
# per build and program, the median job wall time and the median resident memory of PE 0 after
# init, with the load average before and after.
set -euo pipefail
old=${1:?OLD_DIR}
new=${2:?NEW_DIR}
rounds=${3:-11}
pes=${4:-2}
samples=$(mktemp)
trap 'rm -f "$samples"' EXIT

run_one() {  # build-label dir program
  local start end out
  start=$(date +%s.%N)
  out=$(BENCH_RESULTS=1 "$2/gasketrun" -n "$pes" "$2/$3")
  end=$(date +%s.%N)
  local rss
  rss=$(awk -F'\t' '$1 == "RESULT" && $2 == "resident_after_init" {print $4}' <<<"$out")
  echo "$1 $3 $(echo "$end - $start" | bc) ${rss:-nan}" >>"$samples"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((i = 0; i < rounds; ++i)); do
  for program in hello_mpi hello_shmem; do
    run_one old "$old" "$program"
    run_one new "$new" "$program"
  done
done
echo "load average after:  $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$rounds rounds, $pes PEs, medians"
printf '%-6s %-12s %14s %22s\n' build program "job time (s)" "PE 0 RSS after init (MiB)"
for build in old new; do
  for program in hello_mpi hello_shmem; do
    median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
    t=$(awk -v b=$build -v p=$program '$1 == b && $2 == p {print $3}' "$samples" | median)
    r=$(awk -v b=$build -v p=$program '$1 == b && $2 == p {print $4}' "$samples" | median)
    printf '%-6s %-12s %14.3f %22.1f\n' "$build" "$program" "$t" "$r"
  done
done
