#!/usr/bin/env bash
# Runs a multi-PE test command (tests/run_multi_pe.sh under Hydra) and checks that its stdout
# matches REGEX, which names the job size: N singletons also exit 0 (issue 20 item 5), so a
# zero status alone proves nothing.
#   expect_one_job.sh REGEX COMMAND...
set -u
expect=$1
shift
out=$("$@")
status=$?
echo "$out"
[ $status -eq 0 ] || exit $status
if ! grep -Eq -- "$expect" <<<"$out"; then
  echo "FAILED: stdout does not match /$expect/: the PEs did not form one job" >&2
  exit 1
fi
echo "ok: stdout matches /$expect/"
