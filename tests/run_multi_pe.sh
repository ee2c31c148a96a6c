#!/usr/bin/env bash
# Runs one multi-PE program through the launcher on one path.
#   run_multi_pe.sh GASKETRUN PROGRAM NPES PATH [--expect-failure REGEX | --expect-stdout REGEX]
#                   [-- PROGRAM ARGS...]
# GASKETRUN may also be another MPI's launcher, "/path/mpiexec.* [options]" (tests/pmi); the PEs
# then bootstrap through its PMI.
# PATH: local (direct same-node path), pciddc-shm, pciddc-tcp, ucx-shm, ucx-tcp (every PE reached
# through that backend), and the "-nodes" variants, which simulate 2 PEs per node instead.
set -u
gasketrun=$1 program=$2 npes=$3 path=$4
shift 4
expect=""
if [ "${1:-}" = "--expect-failure" ]; then expect=$2; shift 2; fi
expect_stdout=""
if [ "${1:-}" = "--expect-stdout" ]; then expect_stdout=$2; shift 2; fi
[ "${1:-}" = "--" ] && shift

launcher_opts=(--timeout "${GASKET_TEST_TIMEOUT:-240}" --quiet)
base=${path%-nodes}
paths_file=${TEST_SRCDIR:+$TEST_SRCDIR/gasket/tests/paths.txt}
[ -f "$paths_file" ] || paths_file="$(dirname "$(readlink -f "$0")")/paths.txt"
entry=$(grep -E "^${base}( |\$)" "$paths_file" 2>/dev/null || true)
if [ -z "$entry" ]; then
  echo "run_multi_pe.sh: unknown path '$path' (known: $(grep -vE '^#' "$paths_file" | cut -d' ' -f1 | tr '\n' ' '))" >&2
  exit 2
fi
for assignment in ${entry#"$base"}; do export "${assignment?}"; done
if [ "$path" != "$base" ]; then
  launcher_opts+=(--pes-per-node 2)
elif [ "$base" != local ]; then
  export GASKET_LOCAL=backend
fi

# MPI_Publish_name entries of this test only (tests run side by side with the same service names).
[ -n "${TEST_TMPDIR:-}" ] && export GASKET_NAME_DIR=${GASKET_NAME_DIR:-$TEST_TMPDIR/gasket-names}
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
launcher=("$gasketrun" -n "$npes" "${launcher_opts[@]}")
# Another MPI's launcher (tests/pmi: MPICH's mpiexec.*, with its options split at spaces) gets only
# -n; the PEs bootstrap through its PMI.
# shellcheck disable=SC2206
case ${gasketrun##*/} in mpiexec.*) launcher=(timeout "${GASKET_TEST_TIMEOUT:-240}" $gasketrun -n "$npes") ;; esac
"${launcher[@]}" "$program" "$@" >"$out" 2>"$err"
status=$?
[ $status -eq 124 ] && echo "run_multi_pe.sh: $gasketrun timed out" >>"$err"
cat "$out"
cat "$err" >&2
if [ -z "$expect" ]; then
  if [ $status -ne 0 ]; then echo "FAILED: $program on $npes PEs over $path exited $status" >&2; fi
  if [ $status -eq 0 ] && [ -n "$expect_stdout" ] && ! grep -Eq -- "$expect_stdout" "$out"; then
    echo "FAILED: $program on $npes PEs over $path: stdout does not match /$expect_stdout/" >&2
    exit 1
  fi
  exit $status
fi
if [ $status -eq 0 ]; then
  echo "FAILED: expected the job to fail with /$expect/ but it exited 0" >&2
  exit 1
fi
if ! grep -Eq -- "$expect" "$err"; then
  echo "FAILED: the job failed (status $status) but stderr does not match /$expect/" >&2
  exit 1
fi
if grep -q "timed out" "$err"; then
  echo "FAILED: the job hung until the launcher's timeout instead of failing at once" >&2
  exit 1
fi
echo "ok: failed as expected (status $status) with /$expect/"
