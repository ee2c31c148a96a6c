#!/usr/bin/env bash
# shmem_global_exit(status) ends the job with that exit status (low 8 bits), 0 included, and one
# line naming the PE. Usage: global_exit_status_test.sh GASKETRUN PROGRAM PATH (as run_multi_pe.sh).
set -u
gasketrun=$1 program=$2 path=$3
runner="$(dirname "$0")/../run_multi_pe.sh"
[ -f "$runner" ] || runner=${TEST_SRCDIR:+$TEST_SRCDIR/gasket/tests/run_multi_pe.sh}
failed=0
for pes in 2 4; do
  for status in 0 5 300; do
    expected=$((status & 255))
    err=$(mktemp)
    GASKET_TEST_TIMEOUT=60 bash "$runner" "$gasketrun" "$program" "$pes" "$path" -- "$status" 2>"$err" >/dev/null
    got=$?
    if [ "$got" -ne "$expected" ] || ! grep -q "PE $((pes - 1)) aborted with code $status: shmem_global_exit($status)" "$err"; then
      echo "FAILED: shmem_global_exit($status) on $pes PEs over $path: exit status $got (expected $expected); stderr:" >&2
      cat "$err" >&2
      failed=1
    else
      echo "ok: shmem_global_exit($status) on $pes PEs over $path -> exit status $got"
    fi
    rm -f "$err"
  done
done
exit $failed
