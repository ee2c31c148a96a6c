#!/usr/bin/env bash
# Runs the collective MPI-IO benchmark (bench/io/io_bench.c) built with gasket's mpicc, Open MPI's
# and MPICH's (each when installed) at 2 and 4 ranks on this machine, and prints one table of
# bandwidths side by side (each column with the file system's own sequential figures of its run).
#   bench/io/io_compare.sh [edge [repetitions [directory [hints: key=value,...]]]]
# Environment: BAZEL, BAZEL_OUTPUT_BASE (see bench/mpi/side_by_side.sh), RANKS (default "2 4").
source "$(dirname "$0")/../mpi/side_by_side.sh"
compare_columns io_compare bench/io/io_bench.c MB/s .0f "$@"
