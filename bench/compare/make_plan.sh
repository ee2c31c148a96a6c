#!/usr/bin/env bash
# Writes the case list bench/compare/compare.py runs: gasket on every path of tests/paths.txt,
# and the other implementations whose binaries build_others.sh produced.
#   make_plan.sh BIN_DIR PATHS_FILE [--quick] [--paths "local pciddc-shm ..."] [--others DIR]
# BIN_DIR is a Bazel bin folder holding gasket's built tools and benchmarks. A program that is not
# built (e.g. a programming model not in this build) is left out of the plan.
set -euo pipefail
bin=$1 paths_file=$2
shift 2
quick="" only_paths="" others=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=--quick ;;
    --paths) only_paths=$2; shift ;;
    --others) others=$2; shift ;;
    *) echo "make_plan.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
gasketrun="$bin/tools/gasketrun/gasketrun --quiet --timeout 150"
with_burners="$(cd "$(dirname "$0")" && pwd)/with_burners.sh"
burners="$with_burners 4"
max_bytes=4194304
[ -z "$quick" ] || max_bytes=65536
io_args="160 5"  # io_bench: 160^3 doubles (32 MB), 5 repetitions per job
[ -z "$quick" ] || io_args="48 2"

# case_line IMPLEMENTATION LABEL LAUNCHER_PREFIX DIR PROGRAM ARGS...: one line when PROGRAM is
# built, as DIR/PROGRAM (other implementations) or DIR/bench/*/PROGRAM (a Bazel bin folder).
case_line() {
  local impl=$1 label=$2 launch=$3 dir=$4 name=$5 program=""
  shift 5
  for f in "$dir/$name" "$dir"/bench/*/"$name"; do
    if [ -x "$f" ] && [ -f "$f" ]; then program=$f; break; fi
  done
  [ -z "$program" ] || echo "$impl $label $launch $program $*"
}
# The cases of one implementation, given how it launches N processes (the word NP is replaced).
cases_for() {
  local impl=$1 launch=$2 dir=$3
  local two=${launch//NP/2} four=${launch//NP/4}
  case_line "$impl" mpi_pingpong "$two" "$dir" pingpong --max "$max_bytes"
  case_line "$impl" mpi_coll "$two" "$dir" coll $quick
  case_line "$impl" mpi_coll-4 "$four" "$dir" coll $quick
  case_line "$impl" mpi_wavefront "$two" "$dir" wavefront
  # the public micro-benchmarks' shape (each call alone after a barrier) at 2, 4, 8 and 16 ranks;
  # beyond the cores only the quick form (5 repetitions), reduced mode 2 and 4 ranks
  case_line "$impl" mpi_coll_alone "$two" "$dir" coll --alone $quick
  case_line "$impl" mpi_coll_alone-4 "$four" "$dir" coll --alone $quick
  if [ -z "$quick" ]; then
    case_line "$impl" mpi_coll_alone-8 "${launch//NP/8}" "$dir" coll --alone --quick
    case_line "$impl" mpi_coll_alone-16 "${launch//NP/16}" "$dir" coll --alone --quick
  fi
  # latency under load: the wavefront beside 4 CPU burners (a loaded ping-pong over a
  # backend path, whose waits still yield, outlasts the 150 s limit), and 8 ranks' collectives
  case_line "$impl" mpi_wavefront-loaded "$burners $two" "$dir" wavefront
  case_line "$impl" mpi_coll-8 "${launch//NP/8}" "$dir" coll --quick
  case_line "$impl" mpi_rma "$two" "$dir" rma
  # collective MPI-IO of a 3-D darray beside the file system's own writers, in TMPDIR
  case_line "$impl" mpi_io "$two" "$dir" io_bench $io_args
  case_line "$impl" mpi_io-4 "$four" "$dir" io_bench $io_args
  case_line "$impl" shmem_put_wait "$two" "$dir" put_wait
  # 2x and 8x more runnable processes than the 2 cores: 2 ranks beside 2 and 14
  # CPU burners, and the job's own oversubscription (4 and 16 ranks). Not in --quick (compare_test).
  if [ -z "$quick" ]; then
    local factor n
    for load in "2x 2" "8x 14"; do
      read -r factor n <<<"$load"
      case_line "$impl" "mpi_pingpong-$factor" "$with_burners $n $two" "$dir" pingpong --max 8
      case_line "$impl" "mpi_coll-$factor" "$with_burners $n $two" "$dir" coll --quick
      case_line "$impl" "shmem_put_wait-$factor" "$with_burners $n $two" "$dir" put_wait 200
    done
    case_line "$impl" mpi_coll-16 "${launch//NP/16}" "$dir" coll --quick
    case_line "$impl" shmem_put_wait-4PEs "$four" "$dir" put_wait
    case_line "$impl" shmem_put_wait-16PEs "${launch//NP/16}" "$dir" put_wait 200
  fi
  case_line "$impl" shmem_bench "$two" "$dir" shmem_bench "$max_bytes"
  case_line "$impl" shmem_bench-4PEs "$four" "$dir" shmem_bench 0
  for n in 2 4; do
    case_line "$impl" "startup:mpi-${n}" "${launch//NP/$n}" "$dir" hello_mpi
    case_line "$impl" "startup:shmem-${n}" "${launch//NP/$n}" "$dir" hello_shmem
  done
}

echo "# implementation label [VAR=value ...] command..."
echo "machine floor $bin/bench/floor/floor $quick"
grep -vE '^(#|$)' "$paths_file" | while read -r path env; do
  if [ -n "$only_paths" ] && ! grep -qw -- "$path" <<<"$only_paths"; then continue; fi
  [ "$path" = local ] || env="$env GASKET_LOCAL=backend"
  case_line "gasket/$path" core_bench "$env $gasketrun -n 2" "$bin" core_bench $quick
  cases_for "gasket/$path" "$env $gasketrun -n NP" "$bin"
  # the same ping-pong through the Fortran mpi_f08 binding and the `mpi` module: columns beside gasket/PATH's
  case_line "gasket-f08/$path" mpi_pingpong "$env $gasketrun -n 2" "$bin" pingpong_f08 --max "$max_bytes"
  case_line "gasket-fmpi/$path" mpi_pingpong "$env $gasketrun -n 2" "$bin" pingpong_f08 --interface mpi --max "$max_bytes"
done
case_line gasket/local startup:core-2 "$gasketrun -n 2" "$bin" hello_core
case_line gasket/local startup:core-4 "$gasketrun -n 4" "$bin" hello_core
if [ -n "$others" ]; then
  root_ok="OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1"
  [ -d "$others/openmpi" ] && cases_for openmpi "$root_ok timeout 150 mpirun.openmpi -np NP" "$others/openmpi"
  [ -d "$others/mpich" ] && cases_for mpich "timeout 150 mpiexec.mpich -n NP" "$others/mpich"
  [ -d "$others/openmpi-oshmem" ] && cases_for openmpi-oshmem "$root_ok timeout 150 oshrun --mca osc ^rdma -np NP" "$others/openmpi-oshmem"
fi
exit 0
