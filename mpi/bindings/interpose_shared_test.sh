#!/usr/bin/env bash
# The profiling interface with shared libraries, the way tools such as mpiP are used: the tool
# (interposer.c) built by mpicc as libtool.so, the program linked against it and libgasket_mpi.so,
# run by mpiexec on 2 and 4 ranks; profiling_test.c checks what the tool saw.
set -euo pipefail
dir=${TEST_SRCDIR}/gasket
tmp=${TEST_TMPDIR:-$(mktemp -d)}
mpicc=$dir/tools/mpicc/mpicc
fail() { echo "FAILED: $*" >&2; exit 1; }

mkdir -p "$tmp/tests/mpi"
cp "$dir/tests/mpi/check.h" "$tmp/tests/mpi/"
cp "$dir/mpi/bindings/interposer.c" "$dir/mpi/bindings/interposer.h" "$dir/mpi/bindings/profiling_test.c" "$tmp/"
"$mpicc" -O2 -fPIC -shared -o "$tmp/libtool.so" "$tmp/interposer.c"
"$mpicc" -O2 -I"$tmp" -o "$tmp/profiling_test" "$tmp/profiling_test.c" -L"$tmp" -Wl,-rpath,"$tmp" -ltool
for n in 2 4; do
  out=$("$dir/tools/mpicc/mpiexec" -n $n --quiet "$tmp/profiling_test") || fail "mpiexec -n $n: $out"
  echo "$out"
  [[ $out == *"profiling_test: ok on $n ranks"* ]] || fail "mpiexec -n $n profiling_test: $out"
done
echo "ok"
