#!/usr/bin/env bash
# coverage.py on the built libgasket_mpi.so and mpi.h against the MPI 5.0 header (see coverage.py).
set -euo pipefail
src=${TEST_SRCDIR}/gasket
cd "$src/mpi/bindings"
python3 -B coverage.py procedures.tsv missing.txt "$src/mpi/libgasket_mpi.so" \
  standard/mpi-5.0-abi-mpi.h "$src/mpi/include/mpi.h"
