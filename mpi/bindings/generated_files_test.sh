#!/usr/bin/env bash
# The checked-in generated files are exactly what update.sh makes from the standard's list and
# missing.txt (a hand edit, a changed generator or a shrunk missing list not regenerated fails here).
set -euo pipefail
src=${TEST_SRCDIR}/gasket
out=${TEST_TMPDIR}/generated
"$src/mpi/bindings/update.sh" "$out"
status=0
for f in mpi/bindings/procedures.tsv mpi/include/mpi_proto.h mpi/bindings/profiling.cc \
    mpi/bindings/large_count.h mpi/bindings/large_count.cc; do
  if ! diff -u "$src/$f" "$out/$f" > "$out/diff" ; then
    echo "FAILED: $f is not what mpi/bindings/update.sh generates (run it and commit):" >&2
    head -40 "$out/diff" >&2
    status=1
  fi
done
[ $status -eq 0 ] && echo "ok: procedures.tsv, mpi_proto.h, profiling.cc and large_count.h/.cc are up to date"
exit $status
