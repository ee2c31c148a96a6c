#!/usr/bin/env bash
# A singleton (a program started without a launcher) spawns through gasket's launcher:
#   singleton.sh LAUNCHER PROGRAM  -> spawn.c's whole run must pass as a singleton, and with
#   --child-dies the singleton must end with status 3 naming the job it spawned.
set -u
launcher=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
program=$2
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
GASKET_LAUNCHER=$launcher timeout 240 "$program" >"$out" 2>"$err"
status=$?
if [ $status -ne 0 ] || ! grep -q "dynproc spawn: 1 parents OK" "$out"; then
  echo "singleton spawn failed (status $status)"; cat "$out" "$err"; exit 1
fi
GASKET_LAUNCHER=$launcher timeout 240 "$program" --child-dies >"$out" 2>"$err"
status=$?
if [ $status -ne 3 ] || ! grep -Eq "aborted with code 3: the job it spawned .* failed with status 3" "$err"; then
  echo "a dying child of a singleton: expected status 3 and the line naming the job (status $status)"
  cat "$out" "$err"; exit 1
fi
echo "singleton spawn OK"
