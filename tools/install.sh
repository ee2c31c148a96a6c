#!/usr/bin/env bash
# Installs gasket into a prefix (see docs/INSTALL.md):  bash tools/install.sh --prefix /opt/gasket
# or builds its Debian package (the tree under /opt/gasket):  bash tools/install.sh --deb OUTDIR
# Builds //tools/install (the libraries, launchers and wrappers) and lays out bin/, include/, lib/
# (with pkgconfig/ and cmake/gasket/) and share/ under the prefix. The tree can be moved later.
set -euo pipefail
cd "$(dirname "$0")/.."
bash tools/setup.sh
bazel build //tools/install
"$(bazel info bazel-bin 2>/dev/null)/tools/install/install" "$@"
