#!/usr/bin/env bash
# gasket's compiler wrappers, one script chosen by the name it is called by:
#   mpicc, mpicxx, mpic++, mpiCC, mpifort, mpif90, mpif77 (MPI)     oshcc, oshc++, oshcxx (OpenSHMEM)
# Each runs the compiler with the include flags and, when linking, the library flags, keeping every
# argument intact ("$@"). Options of the wrapper itself (the other arguments go to the compiler):
#   -show, -showme, --showme   print the command instead of running it (MPICH / Open MPI)
#   -showme:compile, -showme:link, -showme:command, -showme:incdirs, -showme:libdirs,
#   -showme:libs, -showme:version, -showme:help      (Open MPI's queries, used by CMake's FindMPI)
#   -compile_info, -compile-info, -link_info, -link-info   (MPICH's)
#   -cc=COMPILER (C wrappers), -cxx=COMPILER (C++ wrappers), -fc=COMPILER (Fortran wrappers)
#   -abi, -mpi-abi, -mpi_abi   build against the MPI 5.0 standard ABI (its mpi.h, libmpi_abi.so.1),
#                              as the names mpicc_abi, mpicxx_abi, mpic++_abi do (MPICH's, Open MPI's)
# The compiler is otherwise $GASKET_CC (C, default gcc), $GASKET_CXX (C++, default g++) or $GASKET_FC
# (Fortran, default gfortran; mpif.h, the mpi and mpi_f08 modules are on its include path).
# Where the library is: an installed prefix (this script in PREFIX/bin, found through its own
# location, so a moved prefix still works), or the Bazel build this wrapper belongs to (runfiles).
set -euo pipefail
self=$0
name=$(basename "$self")
# The standard ABI: by name (mpicc_abi) or by option (mpicc -abi).
abi=0
case "$name" in *_abi) abi=1 ;; esac
for arg in "$@"; do
  case "$arg" in -abi | -mpi-abi | -mpi_abi) abi=1 ;; esac
done
case "${name%_abi}" in
  mpicc | oshcc) lang=c compiler=${GASKET_CC:-gcc} ;;
  mpicxx | mpic++ | mpiCC | oshc++ | oshcxx | oshCC) lang=c++ compiler=${GASKET_CXX:-g++} ;;
  mpifort | mpif90 | mpif77) lang=fortran compiler=${GASKET_FC:-gfortran} ;;
  *)
    echo "gasket compiler wrapper: called as '$name'; expected mpicc, mpicxx, mpic++, mpiCC, mpifort, mpif90, mpif77 (each also as NAME_abi), oshcc, oshc++ or oshcxx" >&2
    exit 2
    ;;
esac
case "$name" in
  osh*) api=shmem module=shmem-api header=shmem.h ;;
  *) api=mpi module=mpi header=mpi.h ;;
esac
if [ $abi -eq 1 ] && [ "$api$lang" != mpic ] && [ "$api$lang" != mpic++ ]; then
  echo "$name: the standard ABI (-abi, NAME_abi) is for the C and C++ MPI wrappers" >&2
  exit 2
fi

# An installed prefix holds include/, lib/libgasket.so (core, MPI and OpenSHMEM in one library) and
# share/gasket/version; in the Bazel tree each API has its include/ and shared library.
version=""
installed=$(dirname "$(dirname "$(readlink -f "$self")")")
if [ -f "$installed/include/$header" ] && [ -e "$installed/lib/libgasket.so" ]; then
  incdir=$installed/include libdir=$installed/lib lib=gasket
  version=$(cat "$installed/share/gasket/version" 2>/dev/null || true)
  # The standard ABI's header and library, installed beside the native ones.
  [ $abi -eq 0 ] || incdir=$installed/include/mpi-abi lib=mpi_abi
else
  incdir="" libdir=""
  for root in "$self.runfiles/gasket" "${RUNFILES_DIR:-/nonexistent}/gasket" "$(dirname "$self")/../.."; do
    if [ -f "$root/$module/include/$header" ] && [ -f "$root/$module/libgasket_$api.so" ]; then
      incdir=$(cd "$root/$module/include" && pwd)
      libdir=$(dirname "$(readlink -f "$root/$module/libgasket_$api.so")")
      lib=gasket_$api
      if [ $abi -eq 1 ]; then
        [ -f "$root/mpi/abi/include/mpi.h" ] && [ -f "$root/mpi/abi/libmpi_abi.so.1" ] || { incdir=""; continue; }
        incdir=$(cd "$root/mpi/abi/include" && pwd)
        libdir=$(dirname "$(readlink -f "$root/mpi/abi/libmpi_abi.so.1")")
        lib=:libmpi_abi.so.1
      fi
      break
    fi
  done
  if [ -z "$incdir" ]; then
    echo "$name: cannot find $header and the gasket library next to $self (neither an installed prefix nor a Bazel build of //tools/mpicc, //tools/oshcc)" >&2
    exit 2
  fi
fi
compile_flags=(-I"$incdir")
# Fortran: mpif.h and the module files (installed beside mpi.h; in the Bazel tree, mpi/fortran's).
if [ "$lang" = fortran ] && [ ! -f "$incdir/mpi_f08.mod" ]; then
  compile_flags=(-I"$(cd "$incdir/../fortran" 2>/dev/null && pwd || echo "$incdir")")
fi
# An installed prefix's C++ API (#include "core/gasket.h"), for the C++ wrappers.
[ "$lang" != c++ ] || [ ! -d "$incdir/gasket" ] || compile_flags+=(-I"$incdir/gasket")
link_flags=(-L"$libdir" -Wl,-rpath,"$libdir" -l"$lib")

# The standard's version, read from the header's own macros.
standard_version() {
  local major=MPI_VERSION minor=MPI_SUBVERSION standard=MPI
  [ $api = mpi ] || major=SHMEM_MAJOR_VERSION minor=SHMEM_MINOR_VERSION standard=OpenSHMEM
  echo "$standard $(sed -n "s/^#define $major *\([0-9]*\).*/\1/p" "$incdir/$header").$(sed -n "s/^#define $minor *\([0-9]*\).*/\1/p" "$incdir/$header")"
}

show="" link=1 args=()
for arg in "$@"; do
  case "$arg" in
    -show | -showme | --showme) show=command ;;
    -abi | -mpi-abi | -mpi_abi) ;;
    -showme:* | --showme:*) show=${arg#*showme:} ;;
    -compile_info | -compile-info) show=compile_info ;;
    -link_info | -link-info) show=link_info ;;
    -cc=*)
      [ "$lang" = c ] || { echo "$name: -cc= chooses the C compiler; $name is not a C wrapper" >&2; exit 2; }
      compiler=${arg#-cc=}
      ;;
    -cxx=* | -CC=*)
      [ "$lang" = c++ ] || { echo "$name: $arg chooses the C++ compiler; $name is not a C++ wrapper" >&2; exit 2; }
      compiler=${arg#*=}
      ;;
    -fc=*)
      [ "$lang" = fortran ] || { echo "$name: -fc= chooses the Fortran compiler; $name is not a Fortran wrapper" >&2; exit 2; }
      compiler=${arg#-fc=}
      ;;
    *)
      case "$arg" in -c | -E | -S | -M | -MM | -fsyntax-only) link=0 ;; esac
      args+=("$arg")
      ;;
  esac
done

command=("$compiler" "${compile_flags[@]}" ${args[@]+"${args[@]}"})
[ $link -eq 0 ] || command+=("${link_flags[@]}")
case "$show" in
  "") exec "${command[@]}" ;;
  command) echo "${command[*]}" ;;
  compile) echo "${compile_flags[*]}" ;;
  link) echo "${link_flags[*]}" ;;
  incdirs) echo "$incdir" ;;
  libdirs) echo "$libdir" ;;
  libs) echo "$lib" ;;
  version) echo "$name: gasket ${version:-(Bazel build)}, $(standard_version)" ;;
  compile_info) echo "$compiler ${args[*]+${args[*]}} ${compile_flags[*]}" ;;
  link_info) echo "$compiler ${args[*]+${args[*]}} ${compile_flags[*]} ${link_flags[*]}" ;;
  help) sed -n '2,16s/^# \{0,1\}//p' "$(readlink -f "$self")" ;;
  *)
    echo "$name: unknown option -showme:$show (known: compile, link, command, incdirs, libdirs, libs, version, help)" >&2
    exit 2
    ;;
esac
