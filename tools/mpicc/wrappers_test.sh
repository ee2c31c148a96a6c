#!/usr/bin/env bash
# mpicc -show names the compiler, mpi.h's directory and the library; a C program and a C++
# program built by the wrappers run under mpiexec -n and mpirun -np and check their results.
# A -D value with spaces and an output name with a space reach the compiler intact. The standard
# ABI: mpicc_abi and mpicc -abi name the ABI's mpi.h and libmpi_abi.so.1, and the same C and C++
# programs built by mpicc_abi and mpicxx_abi run on it.
set -euo pipefail
dir=${TEST_SRCDIR}/gasket
tmp=${TEST_TMPDIR:-$(mktemp -d)}
mpicc=$dir/tools/mpicc/mpicc mpicxx=$dir/tools/mpicc/mpicxx
fail() { echo "FAILED: $*" >&2; exit 1; }

show=$("$mpicc" -show -O2 x.c -o x)
echo "mpicc -show: $show"
[[ $show == gcc\ * ]] || fail "mpicc -show does not start with gcc: $show"
[[ $show == *"-lgasket_mpi"* ]] || fail "mpicc -show does not link -lgasket_mpi: $show"
[[ $show == *"/mpi/include"* ]] || fail "mpicc -show has no -I for mpi.h: $show"
[[ $show == *" x.c "* ]] || fail "mpicc -show lost the arguments: $show"
[[ $("$mpicxx" -show -c y.cc) == g++\ *-c\ y.cc* ]] || fail "mpicxx -show -c: $("$mpicxx" -show -c y.cc)"
[[ $("$mpicxx" -show -c y.cc) != *-lgasket_mpi* ]] || fail "mpicxx -c must not add link flags"

cp "$dir/tests/mpi/p2p_basic.c" "$dir/tests/mpi/check.h" "$tmp/"
"$mpicc" -O2 -o "$tmp/p2p_basic" "$tmp/p2p_basic.c"
cat > "$tmp/hello.cc" <<'CC'
#include <mpi.h>
#include <cstdio>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (sum != size * (size - 1) / 2) { std::printf("bad sum %d\n", sum); return 1; }
  if (rank == 0) std::printf("hello from C++ on %d ranks, sum %d\n", size, sum);
  MPI_Finalize();
  return 0;
}
CC
"$mpicxx" -O2 -o "$tmp/hello" "$tmp/hello.cc"
out=$("$dir/tools/mpicc/mpiexec" -n 3 --quiet "$tmp/p2p_basic")
echo "$out"
[[ $out == *"p2p_basic: ok on 3 ranks"* ]] || fail "mpiexec -n 3 p2p_basic: $out"
out=$("$dir/tools/mpicc/mpirun" -np 2 --quiet "$tmp/hello")
echo "$out"
[[ $out == *"hello from C++ on 2 ranks, sum 1"* ]] || fail "mpirun -np 2 hello: $out"
# Regression: mpicc re-split its arguments, so -DMSG='"a b"' reached gcc as two words.
cat > "$tmp/message.c" <<'C'
#include <mpi.h>
#include <stdio.h>
int main(void) { puts(MSG); return 0; }
C
"$mpicc" -DMSG='"a b  c"' -o "$tmp/message prog" "$tmp/message.c"
[[ $("$tmp/message prog") == "a b  c" ]] || fail "mpicc split -DMSG: $("$tmp/message prog")"

# The standard ABI.
for show in "$("$dir/tools/mpicc/mpicc_abi" -show -O2 x.c)" "$("$mpicc" -abi -show -O2 x.c)"; do
  [[ $show == *"/mpi/abi/include"* && $show == *"-l:libmpi_abi.so.1"* ]] || fail "ABI wrapper -show: $show"
  [[ $show != *"-abi"* && $show != *"gasket_mpi"* ]] || fail "ABI wrapper -show keeps -abi or the native library: $show"
done
"$dir/tools/mpicc/mpicc_abi" -O2 -o "$tmp/p2p_basic_abi" "$tmp/p2p_basic.c"
readelf -d "$tmp/p2p_basic_abi" | grep -q "NEEDED.*\[libmpi_abi.so.1\]" || fail "p2p_basic_abi does not link libmpi_abi.so.1"
out=$("$dir/tools/mpicc/mpiexec" -n 3 --quiet "$tmp/p2p_basic_abi")
[[ $out == *"p2p_basic: ok on 3 ranks"* ]] || fail "mpiexec -n 3 p2p_basic_abi: $out"
"$dir/tools/mpicc/mpicxx_abi" -O2 -o "$tmp/hello_abi" "$tmp/hello.cc"
out=$("$dir/tools/mpicc/mpirun" -np 2 --quiet "$tmp/hello_abi")
[[ $out == *"hello from C++ on 2 ranks, sum 1"* ]] || fail "mpirun -np 2 hello_abi: $out"
echo "ok"
