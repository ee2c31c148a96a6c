#!/usr/bin/env bash
# Installs what gasket needs to build and test on Debian bookworm (run as root), only what is
# missing. Called by tools/demo.sh and tools/test.sh; safe to run again.
set -euo pipefail
packages=(
  bazel-bootstrap        # Bazel 4.2.3 (offline stubs in third_party/bazel_stubs)
  g++
  gfortran               # mpi/fortran: the Fortran bindings, mpifort, tests/fortran
  pkg-config
  libhwloc-dev           # core binding and topology
  libboost-test-dev      # Boost.Test
  libucx-dev ucx-utils   # the ucx backend, ucx_perftest for the benchmark
  libibverbs-dev         # RDMA device listing in gasket-info
  libpmix-dev            # PMIx bootstrap
  mpich                  # mpiexec.mpich (Hydra) for tests/pmi, the PMI-1 bootstrap
  iproute2               # network-namespace tests
  procps                 # pgrep/pkill used by tests
  python3                # bench/compare
  cmake                  # tests/install: a CMake project against the installed prefix
  environment-modules    # tests/install: loads the installed modulefile
  cython3                # tests/clients: builds mpi4py
  python3-dev            # tests/clients: builds mpi4py
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: these Debian packages are missing and installing them needs root: ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
