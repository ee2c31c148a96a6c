#!/usr/bin/env bash
# The main job: installs what is missing, builds gasket, and runs the halo-exchange stencil with
# a distributed histogram on 4 PEs, which checks its result against a serial computation.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bazel build //tools/gasketrun //tools/gasket-info //examples:halo_stencil
bin=$(bazel info bazel-bin 2>/dev/null)
# sed reads the whole output (head would close the pipe: SIGPIPE, exit 141 under pipefail)
"$bin/tools/gasket-info/gasket-info" | sed -n 1,5p
echo
"$bin/tools/gasketrun/gasketrun" -n 4 --timeout 120 "$bin/examples/halo_stencil" 4000 500
