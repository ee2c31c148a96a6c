#!/usr/bin/env bash
# Every binding the generator promises is in libgasket_mpi.so: mpi_x_ and pmpi_x_ of each
# procedure (and _c form) C provides, mpi_f08's mpi_x_f08ts_ / mpi_x_f08_, the hand-written ones,
# the sentinels and the predefined callbacks; and each procedure has an interface in the `mpi`
# module (int forms) and in `mpi_f08`; nothing but what missing.txt leaves out is unbound. Prints
# the numbers.
#   coverage_test.sh GENERATE_PY JSON TABLE MISSING LIBRARY MPI_F90 MPI_F08_F90 SKIPPED
set -euo pipefail
generate=$1 json=$2 table=$3 missing=$4 library=$5 mpi_f90=$6 f08_f90=$7 skipped=$8
fail=0
expected=$(python3 "$generate" symbols "$json" "$table" "$missing")
defined=$(nm -D --defined-only "$library" | awk '{print $3}' | sort -u)
absent=$(comm -23 <(sort -u <<<"$expected") <(echo "$defined"))
if [ -n "$absent" ]; then
  echo "FAILED: $(wc -l <<<"$absent") Fortran binding symbol(s) missing from $(basename "$library"):"
  head -40 <<<"$absent"
  fail=1
fi
# each mpi_x_ (an int form) has an interface in `mpi` (MPI_x) and a specific in mpi_f08 (MPI_x_f08(ts))
for sym in $(grep -E '^mpi_[a-z0-9_]+_$' <<<"$expected" | grep -vE '_c_$|_fn_$|_fn_null_$|_f08(ts)?_$|^mpi_fortran_'); do
  name=${sym%_}
  grep -qi "^  \(SUBROUTINE\|.*FUNCTION\) $name(" "$mpi_f90" || grep -qi "_status_f" <<<"$name" || {
    echo "FAILED: no interface for $name in the mpi module"; fail=1; }
  # (not for the procedures the standard leaves out of mpi_f08: the MPI-1 attribute calls)
  if grep -qE "^${name}_f08(ts)?_$" <<<"$expected"; then
    grep -qiE " ${name}_f08(ts)?\(" "$f08_f90" || { echo "FAILED: no specific ${name}_f08(ts) in mpi_f08"; fail=1; }
  fi
done
# every Fortran-expressible procedure the C library provides has its binding: skipped.txt may list
# only what missing.txt leaves out
unbound=$(grep -v '^#' "$skipped" | grep -v 'mpi/bindings/missing.txt' || true)
if [ -n "$unbound" ]; then
  echo "FAILED: Fortran-expressible procedure(s) the C library provides without a Fortran binding:"
  echo "$unbound"
  fail=1
fi
procedures=$(grep -E '^mpi_[a-z0-9_]+_$' <<<"$expected" | grep -cvE '_f08(ts)?_$|_fn_$|_fn_null(_c)?_$|^mpi_fortran_' || true)
echo "Fortran bindings: $procedures procedures and large-count forms bound (mpi_x_, pmpi_x_, mpi_f08's"
echo "mpi_x_f08_ / mpi_x_f08ts_: $(grep -c '^mpi_.*_f08ts_$' <<<"$expected") with choice buffers); not bound: $(grep -vc '^#' "$skipped" || true) (skipped.txt)"
if [ -z "$(grep -v '^#' "$skipped" || true)" ]; then
  echo "every Fortran-expressible procedure of the MPI 4.1 list and the MPI 5.0 header is bound"
fi
exit $fail
