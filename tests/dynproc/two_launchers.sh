#!/usr/bin/env bash
# Two separate gasketrun commands meet by name (MPI_Publish_name in one, MPI_Lookup_name and
# MPI_Comm_connect in the other), then a singleton client meets a third server job:
#   two_launchers.sh GASKETRUN PORTS_PROGRAM PATH
# PATH is a line of tests/paths.txt (local, ucx-shm, ...): each job's own PEs use it; the two jobs
# reach each other over the late peers' links. The name directory is private to the test.
set -u
gasketrun=$1 program=$2 path=$3
paths_file=${TEST_SRCDIR:+$TEST_SRCDIR/gasket/tests/paths.txt}
entry=$(grep -E "^${path}( |\$)" "$paths_file")
for assignment in ${entry#"$path"}; do export "${assignment?}"; done
[ "$path" != local ] && export GASKET_LOCAL=backend
export GASKET_NAME_DIR=${TEST_TMPDIR:-$(mktemp -d)}/names
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
failed=0
check() {  # check LABEL STATUS OUTPUT EXPECTED_LINE
  if [ "$2" -ne 0 ] || ! grep -q "$4" "$3"; then
    echo "FAILED: $1 (status $2)"; cat "$3"; failed=1
  else
    echo "ok: $1"
  fi
}
run=("$gasketrun" --timeout 200 --quiet)
# The client starts first: it must wait for the name, not fail.
"${run[@]}" -n 3 "$program" client 2 >"$dir/client" 2>&1 &
client=$!
"${run[@]}" -n 2 "$program" server 3 >"$dir/server" 2>&1 &
server=$!
wait $client; c=$?
wait $server; s=$?
check "client job (3 PEs, its own gasketrun)" $c "$dir/client" "dynproc ports client: OK"
check "server job (2 PEs, its own gasketrun)" $s "$dir/server" "dynproc ports server: OK"
# A singleton (no launcher) finds a name that a gasketrun job published.
"${run[@]}" -n 2 "$program" server 1 >"$dir/server" 2>&1 &
server=$!
timeout 200 "$program" client 2 >"$dir/client" 2>&1; c=$?
wait $server; s=$?
check "singleton client" $c "$dir/client" "dynproc ports client: OK"
check "server job for the singleton" $s "$dir/server" "dynproc ports server: OK"
# Every name was unpublished or went with its launcher.
left=$(ls -A "$GASKET_NAME_DIR" 2>/dev/null)
[ -z "$left" ] || { echo "FAILED: names left in $GASKET_NAME_DIR: $left"; failed=1; }
exit $failed
