#!/usr/bin/env bash
# with_burners.sh N COMMAND...: runs COMMAND beside N CPU-burning processes (`yes >/dev/null`),
# with BENCH_CONDITION="N CPU burners" so its RESULT lines name the condition; stops the burners
# it started (by their process ids) when COMMAND ends. Latency under load. The burners
# stay in the caller's session: with autogroup scheduling a launcher that gives each rank a
# session of its own (Hydra; gasketrun while the PEs fit the cores) lets its ranks compete as sessions, one that keeps them
# in the caller's (Open MPI's mpirun) as processes among the burners (docs/PERFORMANCE.md, "Under load").
set -uo pipefail
n=$1
shift
pids=()
for ((i = 0; i < n; ++i)); do
  yes >/dev/null &
  pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null; wait "${pids[@]}" 2>/dev/null' EXIT
BENCH_CONDITION="$n CPU burners" env "$@"  # env: COMMAND may begin with VAR=value words
