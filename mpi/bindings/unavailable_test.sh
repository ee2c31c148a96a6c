#!/usr/bin/env bash
# A program naming a procedure of missing.txt fails to compile with "is unavailable" (mpi_proto.h
# marks it), through mpicc; the same program naming a provided procedure compiles.
set -euo pipefail
dir=${TEST_SRCDIR}/gasket
tmp=${TEST_TMPDIR:-$(mktemp -d)}
mpicc=$dir/tools/mpicc/mpicc
fail() { echo "FAILED: $*" >&2; exit 1; }
program() {  # the address of procedure $1
  printf '#include <mpi.h>\nint main(void) { void (*volatile p)(void) = (void (*)(void))%s; return p == 0; }\n' "$1" \
    > "$tmp/uses_$1.c"
}
missing=$(grep -m1 -E '^MPI_[A-Z][a-z]' "$dir/mpi/bindings/missing.txt" || true)
if [ -z "$missing" ]; then
  echo "ok: missing.txt lists no procedure, every one is provided"
  exit 0
fi
program MPI_Send
"$mpicc" -c -o "$tmp/uses_MPI_Send.o" "$tmp/uses_MPI_Send.c" || fail "naming MPI_Send does not compile"
program "$missing"
if "$mpicc" -c -o "$tmp/uses_missing.o" "$tmp/uses_$missing.c" 2> "$tmp/err"; then
  fail "naming $missing (in missing.txt) compiled"
fi
grep -q "$missing.* is unavailable: not provided by gasket yet" "$tmp/err" ||
  fail "naming $missing: not the expected message: $(cat "$tmp/err")"
echo "ok: $missing is unavailable at compile time: $(grep -m1 unavailable "$tmp/err")"
