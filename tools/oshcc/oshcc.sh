#!/usr/bin/env bash
# oshcc / oshc++: compile and link an OpenSHMEM program against gasket's libgasket_shmem.so.
#   oshcc [-show] [compiler arguments...]
# The library is found in an installed prefix ($GASKET_PREFIX/include, $GASKET_PREFIX/lib) when
# GASKET_PREFIX is set, else in the Bazel build this wrapper belongs to (its runfiles). $OSHCC_CC /
# $OSHCC_CXX choose the compiler (default cc / c++). -show prints the command instead of running it.
set -eu
self=$0
case "$(basename "$self")" in
  *++*|*cxx*|*CC) compiler=${OSHCC_CXX:-c++} ;;
  *) compiler=${OSHCC_CC:-cc} ;;
esac
if [ -n "${GASKET_PREFIX:-}" ]; then
  inc=$GASKET_PREFIX/include lib=$GASKET_PREFIX/lib
else
  runfiles=${RUNFILES_DIR:-$self.runfiles}
  [ -d "$runfiles" ] || runfiles=$(dirname "$self")
  header=$(find -L "$runfiles" -path '*shmem-api/include/shmem.h' -print -quit 2>/dev/null || true)
  so=$(find -L "$runfiles" -name libgasket_shmem.so -print -quit 2>/dev/null || true)
  if [ -z "$header" ] || [ -z "$so" ]; then
    echo "$(basename "$self"): cannot find shmem.h and libgasket_shmem.so (build //tools/oshcc or set GASKET_PREFIX)" >&2
    exit 2
  fi
  inc=$(dirname "$(readlink -f "$header")") lib=$(dirname "$(readlink -f "$so")")
fi
show=0
args=()
link=1
for a in "$@"; do
  case "$a" in
    -show|--show|-showme|--showme) show=1 ;;
    -c|-E|-S|-M|-MM) link=0; args+=("$a") ;;
    *) args+=("$a") ;;
  esac
done
cmd=("$compiler" -I"$inc" "${args[@]}")
if [ $link -eq 1 ]; then cmd+=(-L"$lib" -lgasket_shmem -Wl,-rpath,"$lib" -lm -lpthread); fi
if [ $show -eq 1 ]; then echo "${cmd[@]}"; exit 0; fi
exec "${cmd[@]}"
