#!/usr/bin/env bash
# Every procedure with a Fortran binding in the MPI Forum's list has one in gasket, in each
# interface the standard gives it (standard_coverage.py): the library's symbols, mpif.h and the
# two modules as the build made them.
# README.md's audit table must have a row for every parameter kind.
#   standard_coverage_test.sh STANDARD_COVERAGE_PY JSON LIBRARY MPIF_H MPI_F90 MPI_F08_F90 README
set -euo pipefail
script=$1 json=$2 library=$3 mpif=$4 mpi=$5 f08=$6 readme=$7
symbols=$(mktemp)
trap 'rm -f "$symbols"' EXIT
nm -D --defined-only "$library" | awk '{print $3}' > "$symbols"
python3 "$script" "$json" "$symbols" "$mpif" "$mpi" "$f08" "$readme"
