#!/usr/bin/env bash
# Builds mpi4py 3.1.6 against gasket's mpicc and runs its test suite one test module at a time,
# as a singleton and through gasket's mpiexec, each module under a timeout, so that a hang is
# reported as a hang naming the module. Prints one line per module and rank count, then a
# summary (hanging modules, failures, errors, skips). Exit status: 0 when no module hung, failed
# or errored; 1 otherwise; 2 when mpi4py could not be built.
#
#   tests/clients/mpi4py.sh [-n "1 2"] [-t SECONDS] [-k REGEX] [--rebuild]
#     -n  rank counts (1: a singleton, without mpiexec)   -t  the timeout of one module's run
#     -k  only the test modules matching REGEX             --rebuild  build mpi4py again
#   (a build made against other mpi.h / mpi_proto.h than the wrappers' is rebuilt anyway)
#
# The MPI under test is the one variable GASKET_MPI_BIN (a directory holding mpicc and mpiexec;
# default: this checkout's bazel-bin/tools/mpicc, after `bazel build //tools/mpicc:all`).
# MPI4PY_TARBALL (default ../shared/clients/mpi4py-3.1.6.tar.gz beside the checkout), MPI4PY_WORK
# (where it is built and the logs go; default $TMPDIR/gasket-mpi4py), MPI4PY_PYTHON.
set -uo pipefail

# The checkout (through the symlink when run from Bazel's runfiles).
repo=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
GASKET_MPI_BIN=${GASKET_MPI_BIN:-$repo/bazel-bin/tools/mpicc}
tarball=${MPI4PY_TARBALL:-$repo/../shared/clients/mpi4py-3.1.6.tar.gz}
work=${MPI4PY_WORK:-${TMPDIR:-/tmp}/gasket-mpi4py}
python=${MPI4PY_PYTHON:-/usr/bin/python3}  # Debian's: python3-dev's headers are for it
ranks="1 2"
timeout_s=120
select='.'
rebuild=0

while [ $# -gt 0 ]; do
  case "$1" in
    -n) ranks=$2; shift 2 ;;
    -t) timeout_s=$2; shift 2 ;;
    -k) select=$2; shift 2 ;;
    --rebuild) rebuild=1; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "mpi4py.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

for tool in mpicc mpiexec; do
  if [ ! -x "$GASKET_MPI_BIN/$tool" ]; then
    echo "mpi4py.sh: $GASKET_MPI_BIN/$tool is missing (bazel build //tools/mpicc:all, or set GASKET_MPI_BIN)" >&2
    exit 2
  fi
done
GASKET_MPI_BIN=$(cd "$GASKET_MPI_BIN" && pwd)
[ -r "$tarball" ] || { echo "mpi4py.sh: $tarball is missing (set MPI4PY_TARBALL)" >&2; exit 2; }
command -v cython3 >/dev/null || { echo "mpi4py.sh: cython3 is missing (tools/setup.sh installs it)" >&2; exit 2; }

src=$work/mpi4py-3.1.6
mkdir -p "$work"
# A build is kept only for the headers it was compiled against and the library directory its
# extension's run path names: handle values and constants live in mpi.h, so a changed mpi.h /
# mpi_proto.h (an ABI change) or another library location rebuilds mpi4py by itself.
headers=$( (for d in $("$GASKET_MPI_BIN/mpicc" -showme:incdirs 2>/dev/null); do cat "$d/mpi.h" "$d/mpi_proto.h" 2>/dev/null; done
            "$GASKET_MPI_BIN/mpicc" -showme:libdirs 2>/dev/null) | sha256sum | cut -d' ' -f1)
# One build at a time: the runs at each rank count (separate tests) may start together.
exec 9>"$work/build.lock"
flock 9
if [ "$(cat "$src/build/gasket-headers" 2>/dev/null)" != "$headers" ]; then rebuild=1; fi
if [ "$rebuild" = 1 ]; then
  rm -rf "$src"
  tar -xzf "$tarball" -C "$work" || exit 2
  echo "mpi4py.sh: building mpi4py with $GASKET_MPI_BIN/mpicc (log: $work/build.log)"
  if ! (cd "$src" && "$python" setup.py build --mpicc="$GASKET_MPI_BIN/mpicc") >"$work/build.log" 2>&1; then
    tail -30 "$work/build.log" >&2
    echo "mpi4py.sh: the build failed (log: $work/build.log)" >&2
    exit 2
  fi
  echo "$headers" >"$src/build/gasket-headers"
fi
flock -u 9

# The counts of one run's unittest closing lines ("Ran N tests", "OK (skipped=K)",
# "FAILED (failures=F, errors=E, skipped=K)"), from rank 0's log: "ran fail err skip".
counts() {
  awk '/^Ran [0-9]+ test/ { ran = $2 }
       /^(OK|FAILED)/ { for (i = 1; i <= NF; ++i) { f = $i; gsub(/[(),]/, "", f); split(f, kv, "=")
                          if (kv[1] == "failures") fail = kv[2]; else if (kv[1] == "errors") err = kv[2]
                          else if (kv[1] == "skipped") skip = kv[2] } }
       END { printf "%d %d %d %d\n", ran, fail, err, skip }' "$1"
}

modules=$(cd "$src/test" && ls test_*.py | sed 's/\.py$//' | grep -E -- "$select")
logs=$work/logs
mkdir -p "$logs"
for n in $ranks; do rm -f "$logs"/*.np"$n".*; done
status=0
summary=()
for n in $ranks; do
  hung=() failed=() tot_ran=0 tot_fail=0 tot_err=0 tot_skip=0
  for m in $modules; do
    log=$logs/$m.np$n
    # Every rank writes its own log (rank 0's is counted; the others are kept beside it); the rank
    # is gasketrun's, or Hydra's / Open MPI's when another MPI is under test.
    runner=(sh -c 'exec "$0" test/runtests.py -i "^$1\$" >"$2.rank${GASKET_JOB_RANK:-${PMI_RANK:-${OMPI_COMM_WORLD_RANK:-0}}}" 2>&1' "$python" "$m" "$log")
    if [ "$n" = 1 ]; then
      (cd "$src" && timeout -k 5 "$timeout_s" "${runner[@]}")
    else
      (cd "$src" && timeout -k 5 "$timeout_s" "$GASKET_MPI_BIN/mpiexec" -n "$n" "${runner[@]}") >"$log.launcher" 2>&1
    fi
    rc=$?
    read -r ran fail err skip < <(counts "$log.rank0" 2>/dev/null || echo "0 0 0 0")
    tot_ran=$((tot_ran + ran)) tot_fail=$((tot_fail + fail)) tot_err=$((tot_err + err)) tot_skip=$((tot_skip + skip))
    if [ $rc = 124 ] || [ $rc = 137 ]; then
      verdict="HANG (killed after ${timeout_s}s)"
      hung+=("$m")
    elif [ $rc != 0 ]; then
      verdict="FAILED (exit $rc)"
      failed+=("$m")
    else
      verdict=ok
    fi
    printf '%-24s np=%s  ran %4d  failures %3d  errors %3d  skipped %3d  %s\n' "$m" "$n" "$ran" "$fail" "$err" "$skip" "$verdict"
  done
  [ ${#hung[@]} -gt 0 ] || [ ${#failed[@]} -gt 0 ] && status=1
  summary+=("np=$n: ran $tot_ran, failures $tot_fail, errors $tot_err, skipped $tot_skip; hanging modules (${#hung[@]}): ${hung[*]:-none}; modules ending non-zero (${#failed[@]}): ${failed[*]:-none}")
done
echo "---- mpi4py 3.1.6 against $GASKET_MPI_BIN (logs: $logs) ----"
printf '%s\n' "${summary[@]}"
exit $status
