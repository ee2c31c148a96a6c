#!/usr/bin/env bash
# Every procedure with a Fortran binding in the MPI Forum's list has one in gasket, in each
# interface the standard gives it, and so does every MPI 4.1/5.0 procedure of the ABI header the
# list lacks (standard_coverage.py): the library's symbols, mpif.h and the
# two modules as the build made them.
# README.md's audit table must have a row for every parameter kind.
#   standard_coverage_test.sh STANDARD_COVERAGE_PY JSON ABI_HEADER LIBRARY MPIF_H MPI_F90 MPI_F08_F90 README
set -euo pipefail
script=$1 json=$2 header=$3 library=$4 mpif=$5 mpi=$6 f08=$7 readme=$8
symbols=$(mktemp)
trap 'rm -f "$symbols"' EXIT
nm -D --defined-only "$library" | awk '{print $3}' > "$symbols"
python3 "$script" "$json" "$header" "$symbols" "$mpif" "$mpi" "$f08" "$readme"
