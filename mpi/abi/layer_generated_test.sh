#!/usr/bin/env bash
# layer.cc and native_values.cc (libmpi_abi.so.1's wrappers and value tables) are what layer.py
# generates from the ABI header, procedures.tsv and the Forum's parameter kinds; and the library
# exports every MPI_ and PMPI_ procedure of the ABI header, and nothing else.
set -euo pipefail
src=${TEST_SRCDIR}/gasket
tmp=${TEST_TMPDIR:-$(mktemp -d)}
ref=$src/mpi/bindings/standard/mpi-5.0-abi-mpi.h
fail() { echo "FAILED: $*" >&2; exit 1; }

python3 -B "$src/mpi/abi/layer.py" wrappers "$ref" "$src/mpi/bindings/procedures.tsv" \
  "$src/mpi/bindings/standard/mpi-4.1-apis.json" > "$tmp/layer.cc"
diff -u "$src/mpi/abi/layer.cc" "$tmp/layer.cc" > "$tmp/diff" || fail "layer.cc is not what layer.py generates (run mpi/abi/update.sh): $(head -20 "$tmp/diff")"
python3 -B "$src/mpi/abi/layer.py" values "$ref" > "$tmp/native_values.cc"
diff -u "$src/mpi/abi/native_values.cc" "$tmp/native_values.cc" > "$tmp/diff" || fail "native_values.cc is not what layer.py generates (run mpi/abi/update.sh): $(head -20 "$tmp/diff")"

sed -n 's/^[A-Za-z_][A-Za-z_0-9 ]*[ *]\(P\{0,1\}MPI_[A-Za-z0-9_]*\)(.*/\1/p' "$ref" | sort -u > "$tmp/expected"
nm -D --defined-only "$src/mpi/abi/libmpi_abi.so.1" | awk '{print $3}' | sort -u > "$tmp/exported"
diff -u "$tmp/expected" "$tmp/exported" > "$tmp/diff" || fail "the exports differ from the ABI header's procedures: $(head -20 "$tmp/diff")"
echo "libmpi_abi.so.1 exports the $(wc -l < "$tmp/expected") MPI_/PMPI_ procedures of the ABI header; the generated files are up to date"
