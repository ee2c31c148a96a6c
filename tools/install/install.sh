#!/usr/bin/env bash
# Installs gasket into a prefix:  install --prefix DIR   (tools/install.sh builds this and runs it)
# or builds a Debian package of the same tree under /opt/gasket:  install --deb OUTDIR
#   bin/      gasketrun, gasket-info, mpiexec, mpirun, oshrun; mpicc, mpicxx, mpic++, mpifort,
#             mpif90, mpif77, oshcc, oshc++, oshcxx, and mpicc_abi, mpicxx_abi, mpic++_abi (the
#             MPI 5.0 standard ABI) (one wrapper script, chosen by name)
#   include/  every public header of //mpi:headers and //shmem-api:shmem; Fortran's mpif.h,
#             mpi.mod and mpi_f08.mod (gfortran 12); gasket/ (the C++ API, core/gasket.h and the
#             headers it includes, by path); mpi-abi/mpi.h (the standard ABI's header)
#   lib/      libgasket.so.VERSION (soname libgasket.so.0: core, MPI and OpenSHMEM in one library)
#             with libgasket.so.0, libgasket.so, libgasket_mpi.so, libgasket_shmem.so symlinks;
#             libmpi_abi.so.1 (the standard ABI over libgasket.so) and libmpi_abi.so;
#             pkgconfig/ (gasket, gasket-mpi, gasket-shmem, and the names users type: mpi,
#             mpi-c, mpi-cxx, mpi-fort, oshmem, mpi-abi); cmake/gasket/ (gasket::mpi, gasket::shmem)
#   share/    doc/gasket/ (README, INSTALL.md, examples), modulefiles/gasket/VERSION, gasket/version
# Nothing written holds the prefix's absolute path: the tree can be moved after installing.
set -euo pipefail
usage() { echo "usage: $(basename "$0") --prefix DIR | --deb OUTDIR" >&2; exit 2; }
# `bazel run` starts in the runfiles: a relative path means the caller's directory.
absolute() { case "$1" in /*) echo "$1" ;; *) echo "${BUILD_WORKING_DIRECTORY:-$PWD}/$1" ;; esac; }
prefix="" deb_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix | --deb) [ $# -ge 2 ] || usage; [ "$1" = --deb ] && deb_dir=$(absolute "$2") || prefix=$(absolute "$2"); shift 2 ;;
    --prefix=*) prefix=$(absolute "${1#--prefix=}"); shift ;;
    --deb=*) deb_dir=$(absolute "${1#--deb=}"); shift ;;
    *) echo "install: unknown argument '$1'" >&2; usage ;;
  esac
done
if [ -n "$deb_dir" ]; then
  [ -z "$prefix" ] || { echo "install: --prefix and --deb exclude each other (the package installs in /opt/gasket)" >&2; exit 2; }
  package_root=$(mktemp -d)
  chmod 755 "$package_root"
  trap 'rm -rf "$package_root"' EXIT
  prefix=$package_root/opt/gasket
fi
[ -n "$prefix" ] || usage

root=""
for candidate in "$0.runfiles/gasket" "${RUNFILES_DIR:-/nonexistent}/gasket"; do
  if [ -f "$candidate/tools/install/manifest.txt" ]; then root=$candidate; break; fi
done
[ -n "$root" ] || { echo "install: cannot find the runfiles of $0 (build //tools/install with Bazel)" >&2; exit 2; }
version=$(sed -n 's/.*kVersion\[\] = "\([0-9.]*\)".*/\1/p' "$root/core/version.h")
[ -n "$version" ] || { echo "install: no kVersion in $root/core/version.h" >&2; exit 2; }
soversion=${version%%.*}

mkdir -p "$prefix"/{bin,include,lib/pkgconfig,lib/cmake/gasket,share/gasket,share/doc/gasket}
while read -r dest file; do
  case "$dest" in
    compiler-wrappers)
      for name in mpicc mpicxx mpic++ mpifort mpif90 mpif77 oshcc oshc++ oshcxx mpicc_abi mpicxx_abi mpic++_abi; do
        install -m 755 "$root/$file" "$prefix/bin/$name"
      done
      ;;
    lib)
      library=$(basename "$file").$version
      install -m 755 "$root/$file" "$prefix/lib/$library"
      ln -sfn "$library" "$prefix/lib/libgasket.so.$soversion"
      for link in libgasket.so libgasket_mpi.so libgasket_shmem.so; do
        ln -sfn "libgasket.so.$soversion" "$prefix/lib/$link"
      done
      ;;
    lib-abi)
      install -m 755 "$root/$file" "$prefix/lib/libmpi_abi.so.1"
      ln -sfn libmpi_abi.so.1 "$prefix/lib/libmpi_abi.so"
      ;;
    bin) install -m 755 "$root/$file" "$prefix/bin/" ;;
    tree:*) install -D -m 644 "$root/$file" "$prefix/${dest#tree:}/$file" ;;
    *) mkdir -p "$prefix/$dest" && install -m 644 "$root/$file" "$prefix/$dest/" ;;
  esac
done <"$root/tools/install/manifest.txt"
echo "$version" >"$prefix/share/gasket/version"

# pkg-config: ${pcfiledir} keeps the files valid wherever the tree is moved.
pc_file() { # name description requires
  local libs_cflags='Libs: -L${libdir} -Wl,-rpath,${libdir} -lgasket
Cflags: -I${includedir} -I${includedir}/gasket'
  [ -z "$3" ] || libs_cflags="Requires: $3"
  cat >"$prefix/lib/pkgconfig/$1.pc" <<PC
prefix=\${pcfiledir}/../..
exec_prefix=\${prefix}
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: $1
Description: $2
Version: $version
$libs_cflags
PC
}
pc_file gasket "gasket: PGAS runtime, its MPI and OpenSHMEM libraries in one (libgasket)" ""
pc_file gasket-mpi "gasket's MPI library (mpi.h)" gasket
pc_file gasket-shmem "gasket's OpenSHMEM 1.6 library (shmem.h)" gasket
for alias in mpi mpi-c mpi-cxx mpi-fort; do pc_file "$alias" "MPI (gasket $version)" gasket-mpi; done
pc_file oshmem "OpenSHMEM (gasket $version)" gasket-shmem
# The MPI 5.0 standard ABI: its mpi.h and libmpi_abi.so.1.
cat >"$prefix/lib/pkgconfig/mpi-abi.pc" <<PC
prefix=\${pcfiledir}/../..
libdir=\${prefix}/lib
includedir=\${prefix}/include

Name: mpi-abi
Description: MPI, the MPI 5.0 standard ABI (gasket $version, libmpi_abi.so.1)
Version: $version
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lmpi_abi
Cflags: -I\${includedir}/mpi-abi
PC

# CMake: find_package(gasket 0.1) accepts the same major version, not older than asked.
cat >"$prefix/lib/cmake/gasket/gasketConfigVersion.cmake" <<CMAKE
set(PACKAGE_VERSION "$version")
if(PACKAGE_FIND_VERSION VERSION_GREATER PACKAGE_VERSION
   OR NOT PACKAGE_FIND_VERSION_MAJOR STREQUAL "$soversion")
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
CMAKE

# Environment Modules / Lmod (Tcl): the prefix is three directories above the modulefile.
mkdir -p "$prefix/share/modulefiles/gasket"
cat >"$prefix/share/modulefiles/gasket/$version" <<MODULE
#%Module1.0
## gasket $version: PGAS runtime with MPI and OpenSHMEM (mpicc, oshcc, mpiexec, oshrun)
module-whatis "gasket $version: MPI and OpenSHMEM compiler wrappers, launchers and libraries"
proc ModulesHelp { } { puts stderr "gasket $version: mpicc/mpicxx, oshcc/oshc++, mpiexec/oshrun, pkg-config mpi, find_package(gasket)" }
set prefix [file normalize [file join [file dirname \$ModulesCurrentModulefile] .. .. ..]]
setenv MPI_HOME \$prefix
prepend-path PATH \$prefix/bin
prepend-path PKG_CONFIG_PATH \$prefix/lib/pkgconfig
prepend-path CMAKE_PREFIX_PATH \$prefix
MODULE
if [ -z "$deb_dir" ]; then
  echo "gasket $version installed in $prefix"
  exit 0
fi

# The Debian package: Depends names the packages holding the shared libraries the tree's programs
# and library need directly (DT_NEEDED, located by ldd).
direct_libraries() { # elf
  local needed
  needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  ldd "$1" | awk -v needed=" $(echo $needed) " '$2 == "=>" && index(needed, " " $1 " ") { print $3 }'
}
package_of() { # library path: dpkg knows it under /lib or /usr/lib, as a link or the file
  local path
  for path in "$1" "$(readlink -f "$1")" "${1#/usr}" "/usr$1"; do
    dpkg -S "$path" 2>/dev/null | sed -n '1s/:.*//p' | grep . && return 0
  done
  echo "install: no Debian package holds $1, which the tree needs" >&2
  return 1
}
libraries=$(for elf in "$prefix"/bin/* "$prefix/lib/libgasket.so.$version" "$prefix/lib/libmpi_abi.so.1"; do
  if [ "$(head -c 4 "$elf" | tr -d '\177')" = ELF ]; then direct_libraries "$elf"; fi
done | grep -v "^$prefix/" | sort -u)
depends=$(for library in $libraries; do package_of "$library" || exit 1; done | sort -u | paste -sd, | sed 's/,/, /g')
arch=$(dpkg --print-architecture)
mkdir -p "$package_root/DEBIAN" "$deb_dir"
cat >"$package_root/DEBIAN/control" <<CONTROL
Package: gasket
Version: $version
Architecture: $arch
Maintainer: gasket developers <gasket@localhost>
Section: libdevel
Priority: optional
Depends: $depends
Recommends: gcc, g++, pkg-config
Description: PGAS runtime with MPI and OpenSHMEM libraries, in /opt/gasket
 Compiler wrappers (mpicc, mpicxx, oshcc, oshc++), launchers (mpiexec, mpirun, oshrun,
 gasketrun), libgasket.so, mpi.h and shmem.h, pkg-config files, a CMake package and a
 modulefile (module use /opt/gasket/share/modulefiles), installed under /opt/gasket.
CONTROL
# gzip: xz takes minutes over the tree (libgasket.so carries its debug information).
dpkg-deb --root-owner-group -Zgzip --build "$package_root" "$deb_dir/gasket_${version}_$arch.deb" >/dev/null
echo "$deb_dir/gasket_${version}_$arch.deb"
