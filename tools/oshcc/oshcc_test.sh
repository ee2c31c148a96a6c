#!/usr/bin/env bash
# A C program compiled by oshcc (and a C++ one by oshc++) runs under oshrun on 2 PEs and checks
# its values; -show prints the command with the include and library flags.
set -eu
oshcc=$1 oshcxx=$2 oshrun=$3 source=$4 check=$5
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$source" "$check" "$work/"
"$oshcc" -show -o x x.c | grep -q -- "-lgasket_shmem" || { echo "FAILED: oshcc -show lacks the library"; exit 1; }
"$oshcc" -O2 -o "$work/prog" "$work/$(basename "$source")"
"$oshrun" -n 2 --quiet --timeout 60 "$work/prog" | tee "$work/out"
grep -q "ok on 2 PEs" "$work/out" || { echo "FAILED: no success line"; exit 1; }
cat > "$work/cxx.cc" <<'CXX'
#include <shmem.h>
#include <cstdio>
int main() {
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  long* x = static_cast<long*>(shmem_calloc(1, sizeof(long)));
  shmem_barrier_all();
  shmem_atomic_add(x, 10L + me, 0);  // C++ overload of the generic
  shmem_barrier_all();
  long got = shmem_g(x, 0);
  long want = 10L * n + n * (n - 1) / 2;
  if (got != want) { std::fprintf(stderr, "PE %d: %ld != %ld\n", me, got, want); shmem_global_exit(1); }
  if (me == 0) std::printf("c++ ok\n");
  shmem_finalize();
}
CXX
"$oshcxx" -std=c++17 -o "$work/cxx" "$work/cxx.cc"
"$oshrun" -n 2 --quiet --timeout 60 "$work/cxx" | grep -q "c++ ok" || { echo "FAILED: C++ program"; exit 1; }
echo "ok"
