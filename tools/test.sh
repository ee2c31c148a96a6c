#!/usr/bin/env bash
# The whole test suite: installs what is missing, then builds and runs every test with Bazel
# (unit tests, and multi-PE programs launched through gasketrun at 2, 4 and 8 PEs on every path).
# Extra arguments go to `bazel test` (e.g. a narrower target pattern). The whole suite (no arguments)
# also builds and tests examples/bazel-consumer, a workspace of its own that depends on gasket.
set -uo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh || exit 1
targets=("$@")
# The whole suite includes mpi4py's (//tests/clients:mpi4py_test, tag manual: 1 and 2 ranks,
# local path), its build kept between runs until mpi.h changes. It needs mpi4py's source beside
# the checkout (../shared/clients, or MPI4PY_TARBALL); without it the run says so and leaves it out.
mpi4py_tarball=${MPI4PY_TARBALL:-$PWD/../shared/clients/mpi4py-3.1.6.tar.gz}
if [ ${#targets[@]} -eq 0 ]; then
  targets=(//...)
  if [ -r "$mpi4py_tarball" ]; then
    targets+=(//tests/clients:mpi4py_test)
  else
    echo "tools/test.sh: NOT RUN: //tests/clients:mpi4py_test ($mpi4py_tarball is missing; set MPI4PY_TARBALL)"
  fi
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bazel test --keep_going --test_env=MPI4PY_WORK="${XDG_CACHE_HOME:-$HOME/.cache}/gasket-mpi4py" \
  --test_env=MPI4PY_TARBALL="$mpi4py_tarball" "${targets[@]}" 2>&1 |
  tee "$log"
status=${PIPESTATUS[0]}
if [ $# -eq 0 ]; then
  echo "examples/bazel-consumer: bazel test //... in its own workspace"
  # Its labels are printed as @bazel_consumer//...; its Bazel server is stopped afterwards (CI
  # machines are small).
  (cd examples/bazel-consumer && { bazel test --keep_going //...; consumer=$?; bazel shutdown; exit $consumer; }) 2>&1 |
    sed -u 's#^//#@bazel_consumer//#' | tee -a "$log"
  consumer_status=${PIPESTATUS[0]}
  [ "$status" -ne 0 ] || status=$consumer_status
fi
passed=$(grep -cE '^(@bazel_consumer)?//[^ ]+ +(\(cached\) )?PASSED' "$log")
failed=$(grep -cE '^(@bazel_consumer)?//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|NO STATUS|FAILED TO BUILD)' "$log")
echo "$passed passed, $failed failed"
exit "$status"
