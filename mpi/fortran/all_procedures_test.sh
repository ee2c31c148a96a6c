#!/usr/bin/env bash
# The generator against the day missing.txt is empty (every MPI 4.1 procedure provided, as they
# are added): the C wrappers compile against mpi.h's prototypes (with the
# "not provided" marks taken off) and both modules compile with gfortran, so a procedure arriving
# in C never breaks the Fortran build. Prints what would still have no Fortran binding.
#   all_procedures_test.sh GENERATE_PY JSON TABLE VALUES MPI_H MPI_PROTO_H SUPPORT_H
set -euo pipefail
generate=$1 json=$2 table=$3 values=$4 mpi_h=$5 proto_h=$6 support_h=$7
tmp=${TEST_TMPDIR:-$(mktemp -d)}
: >"$tmp/none_missing.txt"
mkdir -p "$tmp/include/mpi/fortran" "$tmp/modules"
cp "$mpi_h" "$tmp/include/mpi.h"
sed 's/__attribute__((unavailable([^)]*)))//' "$proto_h" >"$tmp/include/mpi_proto.h"
cp "$support_h" "$tmp/include/mpi/fortran/"
python3 "$generate" wrappers "$json" "$table" "$tmp/none_missing.txt" >"$tmp/wrappers.c"
gcc -std=gnu11 -Wall -Werror -c -I"$tmp/include" "$tmp/wrappers.c" -o "$tmp/wrappers.o"
for mode in module f08; do
  python3 "$generate" $mode "$json" "$table" "$tmp/none_missing.txt" "$values" >"$tmp/$mode.f90"
  gfortran -Wno-c-binding-type -J "$tmp/modules" -c "$tmp/$mode.f90" -o "$tmp/$mode.o"
done
echo "every procedure of the list: C wrappers and both modules compile; still without a binding:"
python3 "$generate" skipped "$json" "$table" "$tmp/none_missing.txt" | grep -v '^#' || echo "(none)"
