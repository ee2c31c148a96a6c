#!/usr/bin/env bash
# Runs the collective benchmark (bench/mpi/coll.c) built with gasket's mpicc, Open MPI's and
# MPICH's (each when installed) at 2 and 4 ranks on this machine (4 ranks oversubscribe a 2-core
# machine), and prints one table of latencies side by side.
#   bench/mpi/coll_compare.sh [--quick] [--alone]
# (--alone: the public micro-benchmarks' shape, each call timed alone after a barrier; with
# RANKS="2 4 8 16" the whole table of that shape)
# Environment: BAZEL (default bazel), BAZEL_OUTPUT_BASE (an output base to build in), RANKS
# (default "2 4"), JOB_LIMIT (seconds per job; e.g. 120 with RANKS="8 16", where MPICH takes
# minutes per row), ROUNDS (each job run that many times, implementations interleaved; a cell is
# the median).
source "$(dirname "$0")/side_by_side.sh"

compare_columns coll_compare bench/mpi/coll.c us .2f "$@"
