# Sourced by the side-by-side scripts (compare.sh, coll_compare.sh, rma_compare.sh): builds gasket's
# mpicc/mpiexec ($bin: their Bazel bin folder), makes a scratch folder $tmp, and runs a script's
# benchmark once per MPI implementation installed here.
# Environment: BAZEL (default bazel), BAZEL_OUTPUT_BASE (an output base to build in).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bazel_cmd=(${BAZEL:-bazel})
[ -n "${BAZEL_OUTPUT_BASE:-}" ] && bazel_cmd+=(--output_base="$BAZEL_OUTPUT_BASE")
"${bazel_cmd[@]}" build -c opt //tools/mpicc:mpicc //tools/mpicc:mpiexec >&2
bin=$("${bazel_cmd[@]}" info -c opt bazel-bin 2>/dev/null)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# each_implementation SCRIPT RANKS RUN: calls `RUN name ranks compile-command... -- launch-command...`
# for gasket, Open MPI and MPICH (those installed; a note for the others). Ranks are bound to cores
# when they fit, else the launchers are told to oversubscribe.
each_implementation() {
  local script=$1 n=$2 run=$3 bind_ompi=(--oversubscribe) bind_mpich=()
  if [ "$n" -le "$(nproc)" ]; then bind_ompi=(--bind-to core); bind_mpich=(-bind-to core); fi
  "$run" gasket "$n" "$bin/tools/mpicc/mpicc" -- "$bin/tools/mpicc/mpiexec" --quiet -n "$n"
  if command -v mpicc.openmpi >/dev/null && command -v mpirun.openmpi >/dev/null; then
    "$run" openmpi "$n" mpicc.openmpi -- env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      mpirun.openmpi "${bind_ompi[@]}" -n "$n"
  else
    echo "$script: Open MPI not installed (apt-get install openmpi-bin libopenmpi-dev)" >&2
  fi
  if command -v mpicc.mpich >/dev/null && command -v mpiexec.mpich >/dev/null; then
    "$run" mpich "$n" mpicc.mpich -- mpiexec.mpich "${bind_mpich[@]}" -n "$n"
  else
    echo "$script: MPICH not installed (apt-get install mpich libmpich-dev)" >&2
  fi
}

# split_command COMPILE... -- LAUNCH...: sets the caller's (local) arrays compile and launch.
split_command() {
  compile=() launch=()
  while [ "$1" != "--" ]; do compile+=("$1"); shift; done
  shift
  launch=("$@")
}
