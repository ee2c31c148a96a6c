#!/usr/bin/env bash
# Every binding the generator promises is in libgasket_mpi.so: mpi_x_ and pmpi_x_ of each
# procedure (and _c form) C provides, mpi_f08's gasket_f08_x entry points, the hand-written ones,
# the sentinels and the predefined callbacks; and each procedure has an interface in the `mpi`
# module (int forms) and in `mpi_f08`. Prints the numbers.
#   coverage_test.sh GENERATE_PY JSON MISSING LIBRARY MPI_F90 MPI_F08_F90 SKIPPED
set -euo pipefail
generate=$1 json=$2 missing=$3 library=$4 mpi_f90=$5 f08_f90=$6 skipped=$7
fail=0
expected=$(python3 "$generate" symbols "$json" "$missing")
defined=$(nm -D --defined-only "$library" | awk '{print $3}' | sort -u)
absent=$(comm -23 <(sort -u <<<"$expected") <(echo "$defined"))
if [ -n "$absent" ]; then
  echo "FAILED: $(wc -l <<<"$absent") Fortran binding symbol(s) missing from $(basename "$library"):"
  head -40 <<<"$absent"
  fail=1
fi
# each mpi_x_ (an int form) has an interface in `mpi` (MPI_x) and a specific in mpi_f08 (MPI_x_f08)
for sym in $(grep -E '^mpi_[a-z0-9_]+_$' <<<"$expected" | grep -vE '_c_$|_fn_$|^mpi_fortran_'); do
  name=${sym%_}
  grep -qi "^  \(SUBROUTINE\|.*FUNCTION\) $name(" "$mpi_f90" || grep -qi "_status_f" <<<"$name" || {
    echo "FAILED: no interface for $name in the mpi module"; fail=1; }
  grep -qi " ${name}_f08(" "$f08_f90" || { echo "FAILED: no specific ${name}_f08 in mpi_f08"; fail=1; }
done
procedures=$(grep -cE '^mpi_[a-z0-9_]+_$' <<<"$expected" || true)
echo "Fortran bindings: $procedures procedures and large-count forms bound (mpi_x_ and pmpi_x_),"
echo "$(grep -c '^gasket_f08_' <<<"$expected") mpi_f08 descriptor entry points; not bound: $(grep -vc '^#' "$skipped") (skipped.txt)"
exit $fail
