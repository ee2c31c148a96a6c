#!/usr/bin/env bash
# Builds libc_select_after_mpi_init.c with mpicc (so it links libgasket_mpi.so, as users do) and
# runs it on 2 ranks with mpiexec.
set -euo pipefail
dir=${TEST_SRCDIR}/gasket
tmp=${TEST_TMPDIR:-$(mktemp -d)}
"$dir/tools/mpicc/mpicc" -O2 -o "$tmp/select_prog" "$dir/tests/symbols/libc_select_after_mpi_init.c"
out=$("$dir/tools/mpicc/mpiexec" -n 2 --quiet "$tmp/select_prog" 2>&1) || { echo "$out"; echo "FAILED: the program failed"; exit 1; }
echo "$out"
[[ $out == *"libc_select_after_mpi_init: ok on 2 ranks"* ]] || { echo "FAILED: no ok line"; exit 1; }
