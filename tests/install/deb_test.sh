#!/usr/bin/env bash
# The Debian package of the installed tree (install --deb): its control fields, its files under
# /opt/gasket, and — unpacked into a scratch directory, i.e. moved — an MPI program built with its
# mpicc and run by its mpiexec. (Installing it with apt needs root and changes the machine: that is
# the manual check in docs/INSTALL.md.)
#   deb_test.sh INSTALLER mpi_ring.c
set -euo pipefail
installer=$(readlink -f "$1") ring=$(readlink -f "$2")
fail() { echo "FAILED: $*" >&2; exit 1; }
tmp=${TEST_TMPDIR:-$(mktemp -d)}
export RUNFILES_DIR=${RUNFILES_DIR:-${TEST_SRCDIR:-}}

deb=$("$installer" --deb "$tmp/out")
[ -f "$deb" ] || fail "install --deb printed '$deb', which is not a file"
version=$(dpkg-deb -f "$deb" Version)
[[ $(basename "$deb") == "gasket_${version}_$(dpkg --print-architecture).deb" ]] || fail "package file name $(basename "$deb")"
[ "$(dpkg-deb -f "$deb" Package)" = gasket ] || fail "Package: $(dpkg-deb -f "$deb" Package)"
depends=$(dpkg-deb -f "$deb" Depends)
for package in libucx0 libpmix2 libhwloc15 libstdc++6; do
  [[ ", $depends," == *", $package,"* ]] || fail "Depends lacks $package: $depends"
done
files=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in bin/mpicc bin/mpiexec bin/oshcc bin/oshrun include/mpi.h include/shmem.h lib/libgasket.so.0 \
  "lib/libgasket.so.$version" lib/pkgconfig/mpi.pc bin/mpicc_abi include/mpi-abi/mpi.h lib/libmpi_abi.so.1 lib/pkgconfig/mpi-abi.pc lib/cmake/gasket/gasketConfig.cmake "share/modulefiles/gasket/$version"; do
  grep -qx "./opt/gasket/$f" <<<"$files" || fail "the package lacks /opt/gasket/$f"
done
grep -v '^\./opt/' <<<"$files" | grep -vx '\./' && fail "the package installs outside /opt"

dpkg-deb -x "$deb" "$tmp/unpacked"
cd "$tmp"
"$tmp/unpacked/opt/gasket/bin/mpicc" -O2 -o ring "$ring"
out=$("$tmp/unpacked/opt/gasket/bin/mpiexec" -n 2 --quiet --timeout 120 ./ring) || fail "mpiexec -n 2 ./ring: $out"
grep -q "^mpi_ring: ok on 2 ranks" <<<"$out" || fail "mpi_ring from the unpacked package: $out"
# The standard ABI from the package: the same program through mpicc_abi and libmpi_abi.so.1.
"$tmp/unpacked/opt/gasket/bin/mpicc_abi" -O2 -o ring_abi "$ring"
readelf -d ring_abi | grep -q "NEEDED.*\[libmpi_abi.so.1\]" || fail "ring_abi does not link libmpi_abi.so.1"
out=$("$tmp/unpacked/opt/gasket/bin/mpiexec" -n 2 --quiet --timeout 120 ./ring_abi) || fail "mpiexec -n 2 ./ring_abi: $out"
grep -q "^mpi_ring: ok on 2 ranks" <<<"$out" || fail "mpi_ring built for the standard ABI, from the unpacked package: $out"
echo "ok: $(basename "$deb") (Depends: $depends)"
