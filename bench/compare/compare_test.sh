#!/usr/bin/env bash
# The comparison in reduced mode (gasket only, local path, one repetition, quick benchmarks):
# checks the report's structure and that every figure is present with a positive value. No timing
# thresholds.
set -euo pipefail
runfiles=${TEST_SRCDIR:-$PWD/..}/gasket
bin=$runfiles  # the binaries sit at their package paths inside the runfiles tree
out=${TEST_TMPDIR:-$(mktemp -d)}/compare
mkdir -p "$out"
bash "$runfiles/bench/compare/make_plan.sh" "$bin" "$runfiles/tests/paths.txt" --quick --paths "local pciddc-shm" > "$out/plan.txt"
python3 "$runfiles/bench/compare/compare.py" --plan "$out/plan.txt" --out "$out" --reps 1 --quick --timeout 200 > /dev/null
report=$out/report.md
fail() { echo "compare_test: $*" >&2; sed -n 1,200p "$report" >&2; exit 1; }
grep -q '^# gasket benchmark comparison' "$report" || fail "no title"
grep -A2 '^## Failures' "$report" | grep -qx 'none' || fail "a benchmark failed"
for figure in memcpy_bandwidth cache_line_one_way core_put_latency core_get_latency \
              core_put_bandwidth core_atomic_latency core_barrier_latency resident_after_init \
              job_startup_time shmem_put_latency_heap shmem_put_latency_global \
              shmem_get_latency_heap shmem_8byte_latency_heap shmem_8byte_latency_global \
              shmem_barrier_latency shmem_sum_to_all_8B_latency shmem_put_wait_latency_2PEs \
              mpi_barrier_latency_2ranks mpi_bcast_latency_4ranks mpi_allreduce_latency_4ranks \
              mpi_allreduce_alone_latency_2ranks mpi_bcast_alone_latency_4ranks \
              mpi_alltoall_alone_max_latency_4ranks mpi_reduce_scatter_alone_latency_2ranks \
              mpi_rma_8B_latency_create_window mpi_rma_8B_latency_allocate_window \
              mpi_rma_8B_latency_shared_window mpi_rma_8B_latency_dynamic_window \
              mpi_io_bandwidth_2ranks mpi_io_bandwidth_4ranks; do
  grep -q "^## $figure (" "$report" || fail "figure $figure missing"
done
# Every row has at least one measured value and every measured value is positive ("-" marks an
# implementation that does not run that case, e.g. start-up of the core hello on a backend path).
python3 - "$report" <<'PY' || fail "a value is missing or not positive"
import re, sys
section, bad = None, []
for line in open(sys.argv[1]):
    if line.startswith("## "):
        section = line[3:].strip()
    elif section and "Failures" not in section and line.startswith("| ") and not line.startswith("| x "):
        cells = [c.strip() for c in line.strip().strip("|").split("|")[1:]]
        values = [c for c in cells if "[" in c]
        if not values or any(float(re.match(r"([0-9.eE+-]+) \[", c).group(1)) <= 0 for c in values):
            bad.append((section, line.strip()))
if bad:
    print(bad[:5])
    sys.exit(1)
PY
for path in gasket/local gasket/pciddc-shm; do
  grep -q "$path" "$report" || fail "path $path has no column"
done
echo "ok: report complete ($(grep -c '^## ' "$report") sections)"
