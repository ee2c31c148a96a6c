#!/usr/bin/env bash
# docs/CONFIG.md must be exactly what gasket-info --markdown generates from knobs.def, and
# gasket-info must run and list every knob.
set -eu
info=$1 doc=$2
if ! diff <("$info" --markdown) "$doc"; then
  echo "docs/CONFIG.md is stale: regenerate with: bazel run //tools/gasket-info -- --markdown > docs/CONFIG.md" >&2
  exit 1
fi
out=$("$info")
for knob in $(grep -o '`GASKET_[A-Z_]*`' "$doc" | tr -d '`' | sort -u); do
  echo "$out" | grep -q "$knob" || { echo "gasket-info does not print $knob" >&2; exit 1; }
done
echo "$out" | grep -q "^topology: .*core" || { echo "gasket-info prints no topology" >&2; exit 1; }
echo "$out" | grep -q "^RDMA devices:" || { echo "gasket-info prints no RDMA line" >&2; exit 1; }
echo "ok"
