#!/usr/bin/env bash
# Writes the generated files of the MPI bindings from the standard's list:
#   procedures.tsv (derive.py), mpi/include/mpi_proto.h, profiling.cc and the int/_c pairs
#   large_count.h / large_count.cc (generate.py).
# Usage: mpi/bindings/update.sh [ROOT]   ROOT: the tree to write into (default: this checkout).
# generated_files_test runs it into a scratch tree and compares, so the checked-in files cannot drift.
set -euo pipefail
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-$src}
here=$src/mpi/bindings
mkdir -p "$out/mpi/bindings" "$out/mpi/include"
python3 "$here/derive.py" "$here/standard/mpi-4.1-apis.json" "$here/standard/mpi-5.0-abi-mpi.h" > "$out/mpi/bindings/procedures.tsv"
python3 "$here/generate.py" proto "$out/mpi/bindings/procedures.tsv" "$here/missing.txt" \
  > "$out/mpi/include/mpi_proto.h"
python3 "$here/generate.py" weak "$out/mpi/bindings/procedures.tsv" "$here/missing.txt" \
  > "$out/mpi/bindings/profiling.cc"
python3 "$here/generate.py" pairs_h "$out/mpi/bindings/procedures.tsv" "$here/large_count.txt" \
  > "$out/mpi/bindings/large_count.h"
python3 "$here/generate.py" pairs "$out/mpi/bindings/procedures.tsv" "$here/large_count.txt" \
  > "$out/mpi/bindings/large_count.cc"
