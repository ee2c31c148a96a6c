#!/usr/bin/env bash
# Builds the standard MPI and OpenSHMEM benchmark sources against every other implementation
# installed here (Debian's Open MPI, its OpenSHMEM, MPICH), into OUT/<implementation>/.
# A source that does not compile against one is reported and skipped, not fatal.
#   build_others.sh SOURCE_ROOT OUT
set -uo pipefail
root=$1 out=$2
includes=(-I"$root" -I"$root/bench/common" -I"$root/bench/startup")
mpi_sources=("$root"/bench/mpi/*.c "$root/bench/io/io_bench.c" "$root/bench/startup/hello_mpi.c")
shmem_sources=("$root"/bench/shmem/*.c "$root/bench/startup/hello_shmem.c")

build() {  # implementation compiler sources...
  local impl=$1 cc=$2
  shift 2
  command -v "$cc" >/dev/null 2>&1 || return 0
  mkdir -p "$out/$impl"
  for src in "$@"; do
    [ -f "$src" ] || continue
    local name
    name=$(basename "$src" .c)
    if ! "$cc" -O2 -std=gnu11 "${includes[@]}" "$src" -o "$out/$impl/$name" -lm 2>"$out/$impl/$name.log"; then
      echo "build_others: $src does not build with $cc (see $out/$impl/$name.log)" >&2
    fi
  done
}

build openmpi mpicc.openmpi "${mpi_sources[@]}"
build mpich mpicc.mpich "${mpi_sources[@]}"
# Open MPI's OpenSHMEM wrapper is plain `oshcc` on Debian (only Open MPI ships one).
if command -v oshmem_info >/dev/null 2>&1; then build openmpi-oshmem oshcc "${shmem_sources[@]}"; fi
exit 0
