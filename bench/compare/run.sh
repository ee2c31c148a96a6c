#!/usr/bin/env bash
# One command for the whole comparison: builds gasket's benchmarks, builds the same MPI and
# OpenSHMEM sources against the other implementations installed here, plans every case, runs
# them interleaved and writes out/compare/report.md (+ plots/).
#   bash bench/compare/run.sh [--quick] [--reps N] [--paths "local ucx-shm ..."]
# Installing Open MPI / MPICH for the side-by-side columns is optional (docs/PERFORMANCE.md, "Reproduce").
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=5 plan_opts=() quick=()
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=(--quick); plan_opts+=(--quick) ;;
    --reps) reps=$2; shift ;;
    --paths) plan_opts+=(--paths "$2"); shift ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
bazel build //tools/gasketrun //bench/floor //bench/core:core_bench //bench/startup:all \
  //bench/shmem:shmem_bench //bench/shmem:put_wait //bench/mpi:pingpong //bench/mpi:pingpong_f08 //bench/mpi:coll \
  //bench/mpi:rma //bench/mpi:wavefront //bench/io:io_bench
bin=$(bazel info bazel-bin 2>/dev/null)
out=$PWD/out/compare
mkdir -p "$out"
bash bench/compare/build_others.sh "$PWD" "$out/others"
bash bench/compare/make_plan.sh "$bin" tests/paths.txt "${plan_opts[@]}" --others "$out/others" > "$out/plan.txt"
python3 bench/compare/compare.py --plan "$out/plan.txt" --out "$out" --reps "$reps" "${quick[@]}"
echo "report: $out/report.md"
