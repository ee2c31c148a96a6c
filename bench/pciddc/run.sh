#!/usr/bin/env bash
# Runs pciddc_bench on both links of the pciddc model (3 PEs, 2 per simulated node), then the MPI
# per-operation costs (mpi_ops, 2 ranks on 2 simulated nodes) on each link.
#   bazel run //bench/pciddc:run
set -eu
gasketrun=$1 bench=$2 mpi_ops=$3
for link in shm tcp; do
  echo "=== GASKET_PCIDDC_LINK=$link"
  GASKET_TRANSPORT=pciddc GASKET_PCIDDC_LINK=$link "$gasketrun" -n 3 --pes-per-node 2 "$bench"
  echo
  GASKET_TRANSPORT=pciddc GASKET_PCIDDC_LINK=$link "$gasketrun" -n 2 --pes-per-node 1 "$mpi_ops"
  echo
done
