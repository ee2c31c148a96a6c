#!/bin/sh
# mpicc / mpicxx: compile and link an MPI program against gasket's MPI library.
#   mpicc [-show] <compiler arguments...>
# -show prints the underlying command instead of running it. The compiler is $GASKET_MPICC_CC
# (mpicc, default gcc) or $GASKET_MPICXX_CXX (mpicxx/mpic++, default g++).
set -u
self=$0
case "$(basename "$self")" in
  mpicxx | mpic++ | mpiCC) compiler=${GASKET_MPICXX_CXX:-g++} ;;
  *) compiler=${GASKET_MPICC_CC:-gcc} ;;
esac
# Where mpi.h and libgasket_mpi.so are: this script's Bazel runfiles.
root=""
for candidate in "${self}.runfiles/gasket" "${RUNFILES_DIR:-/nonexistent}/gasket" "$(dirname "$self")/../.."; do
  if [ -f "$candidate/mpi/include/mpi.h" ] && [ -f "$candidate/mpi/libgasket_mpi.so" ]; then
    root=$(cd "$candidate" && pwd)
    break
  fi
done
if [ -z "$root" ]; then
  echo "$(basename "$self"): cannot find mpi/include/mpi.h and mpi/libgasket_mpi.so next to $self (build //tools/mpicc with Bazel)" >&2
  exit 2
fi
libdir=$(dirname "$(readlink -f "$root/mpi/libgasket_mpi.so")")

show=0
link=1
for arg in "$@"; do
  case "$arg" in
    -show) show=1 ;;
    -c | -E | -S | -M | -MM) link=0 ;;
  esac
done
set -- $(for arg in "$@"; do [ "$arg" = "-show" ] || printf '%s\n' "$arg"; done)
cmd="$compiler -I$root/mpi/include"
if [ $link -eq 1 ]; then
  set -- "$@" -L"$libdir" -Wl,-rpath,"$libdir" -lgasket_mpi
fi
if [ $show -eq 1 ]; then
  echo "$cmd $*"
  exit 0
fi
exec $cmd "$@"
