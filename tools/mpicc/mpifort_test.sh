#!/usr/bin/env bash
# mpifort (and its names mpif90, mpif77) from the Bazel tree: -show names gfortran and the
# directory of mpif.h and the module files; the three interfaces' test programs of tests/fortran
# (use mpi_f08, use mpi, mpif.h in fixed form) and the Fortran halo example build with the wrappers
# and pass under mpiexec -n 3; -fc= chooses the compiler; -fc= is refused by mpicc.
set -euo pipefail
dir=${TEST_SRCDIR}/gasket
tmp=${TEST_TMPDIR:-$(mktemp -d)}
w=$dir/tools/mpicc
fail() { echo "FAILED: $*" >&2; exit 1; }

show=$("$w/mpifort" -show -O2 x.f90 -o x)
echo "mpifort -show: $show"
[[ $show == gfortran\ * ]] || fail "mpifort -show does not start with gfortran: $show"
[[ $show == *"-lgasket_mpi"* ]] || fail "mpifort -show does not link -lgasket_mpi: $show"
inc=$("$w/mpif90" -showme:compile)
[[ -f ${inc#-I}/mpi_f08.mod && -f ${inc#-I}/mpi.mod && -f ${inc#-I}/mpif.h ]] || fail "mpif90 -showme:compile: $inc has no modules"
[[ $("$w/mpif77" -fc=/usr/bin/gfortran -show -c y.f) == "/usr/bin/gfortran "* ]] || fail "mpif77 -fc="
if "$w/mpicc" -fc=gfortran -show x.c 2>/dev/null; then fail "mpicc accepted -fc="; fi

cp "$dir/tests/fortran/f08_suite.f90" "$dir/tests/fortran/mpi_suite.f90" "$dir/tests/fortran/mpif_suite.f" \
  "$dir/examples/halo_stencil.f90" "$tmp/"
cd "$tmp"
"$w/mpifort" -O2 -o f08_suite f08_suite.f90
"$w/mpif90" -O2 -o mpi_suite mpi_suite.f90
"$w/mpif77" -O2 -fallow-argument-mismatch -o mpif_suite mpif_suite.f
"$w/mpifort" -O2 -o halo halo_stencil.f90
for prog in f08_suite mpi_suite mpif_suite; do
  out=$("$w/mpiexec" -n 3 --quiet "./$prog" 2>&1)
  echo "$out"
  [[ $out == *"$prog: 3 ranks OK"* ]] || fail "$prog built by the wrappers: $out"
done
out=$("$w/mpiexec" -n 3 --quiet ./halo 120 40 20)
echo "$out"
[[ $out == *"matches the serial run"* ]] || fail "halo_stencil.f90: $out"
echo "mpifort_test: ok"
