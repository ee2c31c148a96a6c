#!/usr/bin/env bash
# The whole test suite: installs what is missing, then builds and runs every test with Bazel
# (unit tests, and multi-PE programs launched through gasketrun at 2, 4 and 8 PEs on every path).
# Extra arguments go to `bazel test` (e.g. a narrower target pattern).
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh || exit 1
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(//...)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bazel test --keep_going "${targets[@]}" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
passed=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)' "$log")
echo "$passed passed, $failed failed"
exit "$status"
