#!/usr/bin/env bash
# Installs gasket into a temporary prefix, moves the tree, and from a directory outside the
# checkout builds and runs the examples through the installed wrappers (mpicc, mpicxx, mpifort,
# oshcc, mpiexec, oshrun), pkg-config (mpi, mpi-fort, gasket-shmem, oshmem), CMake projects (FindMPI
# from MPI_C_COMPILER and from PATH, its Fortran component from mpifort, find_package(gasket)) and
# the modulefile; checks the wrappers' argument handling and options, and that nothing installed
# names the prefix it was installed in. The MPI 5.0 standard ABI: a program built with the Forum's
# header alone and linked against the installed libmpi_abi.so.1, then with mpicc_abi, mpicc -abi
# and pkg-config mpi-abi, run at 2 and 4 ranks by the installed launchers.
#   install_test.sh INSTALLER CMAKE_PROJECT/CMakeLists.txt CMAKE_FORTRAN/CMakeLists.txt
#                   ABI_PROGRAM.c FORUM_ABI_HEADER EXAMPLE...
set -euo pipefail
installer=$(readlink -f "$1") cmake_project=$(dirname "$(readlink -f "$2")") cmake_fortran=$(dirname "$(readlink -f "$3")")
abi_program=$(readlink -f "$4") abi_header=$(readlink -f "$5")
shift 5
examples=()
for example in "$@"; do examples+=("$(readlink -f "$example")"); done
fail() { echo "FAILED: $*" >&2; exit 1; }
expect_line() { # output pattern what
  grep -qE -- "$2" <<<"$1" || fail "$3: no line matching /$2/ in:"$'\n'"$1"
}

tmp=${TEST_TMPDIR:-$(mktemp -d)}
staging=$tmp/staging/gasket
export RUNFILES_DIR=${RUNFILES_DIR:-${TEST_SRCDIR:-}}
"$installer" --prefix "$staging"
prefix=$tmp/moved/gasket-relocated
mkdir -p "$(dirname "$prefix")"
mv "$staging" "$prefix"
if grep -rlF "$staging" "$prefix"; then fail "the files above hold the install-time prefix $staging"; fi
version=$(cat "$prefix/share/gasket/version")
for f in bin/{mpicc,mpicxx,mpic++,mpifort,mpif90,mpif77,mpiexec,mpirun,oshcc,oshc++,oshrun,gasketrun,gasket-info} \
  bin/{mpicc_abi,mpicxx_abi,mpic++_abi} include/mpi-abi/mpi.h lib/{libmpi_abi.so.1,libmpi_abi.so} \
  include/{mpi.h,shmem.h,mpif.h,mpi.mod,mpi_f08.mod} lib/{libgasket.so,libgasket.so.0,libgasket.so.$version} \
  lib/pkgconfig/{mpi,mpi-fort,gasket-mpi,gasket-shmem,oshmem,mpi-abi}.pc lib/cmake/gasket/gasketConfig.cmake \
  share/modulefiles/gasket/"$version" share/doc/gasket/INSTALL.md; do
  [ -e "$prefix/$f" ] || fail "$f is missing from the installed tree"
done
soname=$(readelf -d "$prefix/lib/libgasket.so.$version" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libgasket.so.0 ] || fail "libgasket.so.$version has soname '$soname', expected libgasket.so.0"
soname=$(readelf -d "$prefix/lib/libmpi_abi.so.1" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = libmpi_abi.so.1 ] || fail "libmpi_abi.so.1 has soname '$soname'"

work=$tmp/elsewhere
mkdir -p "$work"
cd "$work"
cp "${examples[@]}" .
export PATH=$prefix/bin:$PATH
run() { # launcher npes program expected-line
  local out
  out=$("$1" -n "$2" --quiet --timeout 120 "./$3") || fail "$1 -n $2 ./$3 exited $?: $out"
  expect_line "$out" "$4" "$1 -n $2 ./$3"
  echo "$1 -n $2 ./$3: ok"
}

# 1. The installed wrappers (halo_stencil: gasket's C++ API, include/gasket/core/gasket.h).
mpicc -O2 -o ring mpi_ring.c
run mpiexec 4 ring "^mpi_ring: ok on 4 ranks"
mpicxx -x c++ -O2 -o window rma_window.c
run mpirun 2 window "^rma_window: ok on 2 ranks"
oshcc -O2 -o atomics shmem_atomics.c
run oshrun 4 atomics "^shmem_atomics: ok on 4 PEs"
mpicc -O2 -o mpi_shmem mpi_shmem.c
run mpiexec 4 mpi_shmem "^mpi_shmem: ok on 4 ranks"
oshcc -O2 -o mpi_shmem_osh mpi_shmem.c
run oshrun 2 mpi_shmem_osh "^mpi_shmem: ok on 2 ranks"
mpicxx -std=c++17 -O2 -o halo_stencil halo_stencil.cc
run mpiexec 4 halo_stencil "^check: PASSED"
mpifort -O2 -o halo_stencil_f halo_stencil.f90
run mpiexec 4 halo_stencil_f "matches the serial run$"
needed=$(readelf -d mpi_shmem | grep NEEDED)
expect_line "$needed" "\[libgasket\.so\.0\]" "mpi_shmem links the one runtime"
[ "$(grep -c gasket <<<"$needed")" -eq 1 ] || fail "mpi_shmem needs more than one gasket library: $needed"

# 2. The wrappers' arguments and options.
cat >message.c <<'C'
#include <mpi.h>
#include <stdio.h>
int main(void) { puts(MSG); return 0; }
C
mkdir -p "dir with space"
mpicc -DMSG='"a b  \"c\"  $HOME"' -o "dir with space/message prog" message.c
[ "$("./dir with space/message prog")" = 'a b  "c"  $HOME' ] || fail "mpicc changed -DMSG: $("./dir with space/message prog")"
[ "$(mpicc -showme:compile)" = "-I$prefix/include" ] || fail "mpicc -showme:compile: $(mpicc -showme:compile)"
[ "$(mpicc -showme:link)" = "-L$prefix/lib -Wl,-rpath,$prefix/lib -lgasket" ] || fail "mpicc -showme:link: $(mpicc -showme:link)"
[ "$(oshcc -showme:libs)" = gasket ] || fail "oshcc -showme:libs: $(oshcc -showme:libs)"
[ "$(mpicc -showme:incdirs)" = "$prefix/include" ] || fail "mpicc -showme:incdirs: $(mpicc -showme:incdirs)"
[ "$(mpicc -showme:version)" = "mpicc: gasket $version, MPI 5.0" ] || fail "mpicc -showme:version: $(mpicc -showme:version)"
[ "$(oshcc -showme:version)" = "oshcc: gasket $version, OpenSHMEM 1.6" ] || fail "oshcc -showme:version: $(oshcc -showme:version)"
[ "$(mpicc -show -O2 x.c -o x)" = "gcc -I$prefix/include -O2 x.c -o x -L$prefix/lib -Wl,-rpath,$prefix/lib -lgasket" ] ||
  fail "mpicc -show: $(mpicc -show -O2 x.c -o x)"
[ "$(mpicxx -showme -c y.cc)" = "g++ -I$prefix/include -I$prefix/include/gasket -c y.cc" ] || fail "mpicxx -showme -c (no link flags): $(mpicxx -showme -c y.cc)"
[ "$(mpicc -compile_info -c x.c)" = "gcc -c x.c -I$prefix/include" ] || fail "mpicc -compile_info: $(mpicc -compile_info -c x.c)"
expect_line "$(mpicc -link-info x.o)" "^gcc x\.o -I.* -lgasket$" "mpicc -link-info"
expect_line "$(mpicc -cc=cc -show x.c)" "^cc -I" "mpicc -cc=cc"
expect_line "$(GASKET_CC=cc mpicc -show x.c)" "^cc -I" "GASKET_CC=cc mpicc"
expect_line "$(GASKET_CXX=c++ oshc++ -show x.cc)" "^c\+\+ -I" "GASKET_CXX=c++ oshc++"
expect_line "$(mpicxx -cc=gcc x.cc 2>&1 || true)" "mpicxx: -cc= chooses the C compiler" "mpicxx -cc="
expect_line "$(mpicc -showme:bogus 2>&1 || true)" "mpicc: unknown option -showme:bogus" "mpicc -showme:bogus"
status=0; mpicc -showme:bogus >/dev/null 2>&1 || status=$?
[ $status -eq 2 ] || fail "mpicc -showme:bogus exited $status, expected 2"
echo "wrapper arguments and options: ok"

# 3. pkg-config.
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion mpi)" = "$version" ] || fail "pkg-config --modversion mpi: $(pkg-config --modversion mpi)"
# shellcheck disable=SC2046  # the flags are meant to split
gcc -O2 -o ring_pc mpi_ring.c $(pkg-config --cflags --libs mpi)
run mpiexec 2 ring_pc "^mpi_ring: ok on 2 ranks"
# shellcheck disable=SC2046
gcc -O2 -o atomics_pc shmem_atomics.c $(pkg-config --cflags --libs gasket-shmem)
run oshrun 2 atomics_pc "^shmem_atomics: ok on 2 PEs"
# shellcheck disable=SC2046
gcc -O2 -o mpi_shmem_pc mpi_shmem.c $(pkg-config --cflags --libs mpi oshmem)
run mpiexec 2 mpi_shmem_pc "^mpi_shmem: ok on 2 ranks"
# shellcheck disable=SC2046
gfortran -O2 -o halo_f_pc halo_stencil.f90 $(pkg-config --cflags --libs mpi-fort)
run mpiexec 2 halo_f_pc "matches the serial run$"
unset PKG_CONFIG_PATH

# 3b. The MPI 5.0 standard ABI: the Forum's header alone (no gasket header) and the installed
# libmpi_abi.so.1; then the ABI wrappers and pkg-config mpi-abi.
cp "$abi_program" abi_program.c
mkdir -p forum && cp "$abi_header" forum/mpi.h
gcc -O2 -I forum -o abi_forum abi_program.c -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -lmpi_abi
run mpiexec 2 abi_forum "^reference ABI header program: 2 ranks, [0-9]+ checks passed"
run mpiexec 4 abi_forum "^reference ABI header program: 4 ranks, [0-9]+ checks passed"
mpicc_abi -O2 -o abi_wrapper abi_program.c
run mpirun 2 abi_wrapper "^reference ABI header program: 2 ranks"
mpicc -abi -O2 -o abi_option abi_program.c
run mpiexec 4 abi_option "^reference ABI header program: 4 ranks"
[ "$(mpicc -abi -showme:incdirs)" = "$prefix/include/mpi-abi" ] || fail "mpicc -abi -showme:incdirs: $(mpicc -abi -showme:incdirs)"
[ "$(mpicc_abi -showme:libs)" = "mpi_abi" ] || fail "mpicc_abi -showme:libs: $(mpicc_abi -showme:libs)"
# shellcheck disable=SC2046
gcc -O2 -o abi_pc abi_program.c $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs mpi-abi)
run mpiexec 2 abi_pc "^reference ABI header program: 2 ranks"
echo "standard ABI: ok"

# 4. CMake: FindMPI from MPI_C_COMPILER, then from PATH alone; find_package(gasket) from gasket_DIR
# (not CMAKE_PREFIX_PATH, which FindMPI would search too).
cmake_configure() { # build-dir extra-args...
  local dir=$1
  shift
  cmake -S "$cmake_project" -B "$dir" -DEXPECT_MPI_VERSION=5.0 -DEXPECT_PREFIX="$prefix" \
    -DEXAMPLES="$work" -Dgasket_DIR="$prefix/lib/cmake/gasket" "$@" >"$dir.log" 2>&1 || { cat "$dir.log"; fail "cmake configure in $dir"; }
  grep -F "FindMPI: MPI 5.0 via $prefix/bin/mpicc, $prefix/bin/mpiexec" "$dir.log" || fail "FindMPI did not report gasket in $dir"
  cmake --build "$dir" >"$dir.build.log" 2>&1 || { cat "$dir.build.log"; fail "cmake --build $dir"; }
}
cmake_configure by_compiler -DMPI_C_COMPILER="$prefix/bin/mpicc" -DMPI_CXX_COMPILER="$prefix/bin/mpicxx"
cmake_configure by_path
run mpiexec 2 by_compiler/ring_findmpi "^mpi_ring: ok on 2 ranks"
run mpiexec 4 by_path/window_findmpi_cxx "^rma_window: ok on 4 ranks"
run oshrun 2 by_path/atomics_gasket "^shmem_atomics: ok on 2 PEs"
run mpiexec 2 by_path/mpi_shmem_gasket "^mpi_shmem: ok on 2 ranks"
# FindMPI's Fortran component from MPI_Fortran_COMPILER=mpifort (mpif.h, mpi and mpi_f08 found)
cmake -S "$cmake_fortran" -B fortran -DMPI_Fortran_COMPILER="$prefix/bin/mpifort" -DEXAMPLES="$work" \
  >fortran.log 2>&1 || { cat fortran.log; fail "cmake configure of the Fortran project"; }
grep -F "FindMPI: MPI 5.0 for Fortran via $prefix/bin/mpifort" fortran.log || fail "FindMPI's Fortran component did not report gasket"
cmake --build fortran >fortran.build.log 2>&1 || { cat fortran.build.log; fail "cmake --build fortran"; }
run mpiexec 2 fortran/halo_findmpi_fortran "matches the serial run$"

# 5. The modulefile (Environment Modules): load puts the relocated tree first, unload removes it.
export PATH=${PATH#"$prefix/bin:"}
modules=$(MODULESHOME=/usr/share/modules bash -c "
  source /usr/share/modules/init/bash && module use '$prefix/share/modulefiles' && module load gasket/$version &&
  echo \"which=\$(command -v mpicc) home=\$MPI_HOME pc=\$PKG_CONFIG_PATH cmake=\$CMAKE_PREFIX_PATH\" &&
  module unload gasket && echo \"after=\$(command -v mpicc || echo none)\"")
expect_line "$modules" "^which=$prefix/bin/mpicc home=$prefix pc=$prefix/lib/pkgconfig" "module load gasket"
expect_line "$modules" "cmake=$prefix( |$)" "module load gasket (CMAKE_PREFIX_PATH)"
expect_line "$modules" "^after=" "module unload gasket"
grep -q "^after=$prefix" <<<"$modules" && fail "module unload gasket left $prefix/bin in PATH"
echo "ok: installed, moved to $prefix, used through the wrappers, pkg-config, CMake and the modulefile"
