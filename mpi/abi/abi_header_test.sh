#!/usr/bin/env bash
# gasket's ABI mpi.h (include/mpi.h) against the MPI Forum's standard ABI header:
# - every constant of the reference has the same value with gasket's header (one program per
#   header prints them all, the outputs must be identical, MPI_VERSION/MPI_SUBVERSION 5.0 too), and
#   the same type sizes and MPI_Status layout;
# - every procedure (MPI_ and PMPI_) of the reference is declared by gasket's header, and the
#   reference's declarations compile after it (a declaration of a different type does not);
# - include/mpi.h is what abi_header.py generates.
set -euo pipefail
src=${TEST_SRCDIR}/gasket
tmp=${TEST_TMPDIR:-$(mktemp -d)}
ref=$src/mpi/bindings/standard/mpi-5.0-abi-mpi.h
ours=$src/mpi/abi/include/mpi.h
fail() { echo "FAILED: $*" >&2; exit 1; }

python3 -B "$src/mpi/abi/abi_header.py" "$ref" "$src/mpi/bindings/procedures.tsv" > "$tmp/generated.h"
diff -u "$ours" "$tmp/generated.h" > "$tmp/diff" || fail "include/mpi.h is not what abi_header.py generates: $(head -20 "$tmp/diff")"

mkdir -p "$tmp/ref" "$tmp/ours"
cp "$ref" "$tmp/ref/mpi.h"
cp "$ours" "$tmp/ours/mpi.h"
constants=$(cd "$src/mpi/bindings" && python3 -B -c '
import coverage
print("\n".join(coverage.abi_constants(open("standard/mpi-5.0-abi-mpi.h").read())))')
{
  echo '#include <stddef.h>'
  echo '#include <stdio.h>'
  echo '#include <mpi.h>'
  echo 'int main(void) {'
  for c in $constants; do echo "  printf(\"%s %lld\\n\", \"$c\", (long long)(intptr_t)($c));"; done
  echo '  printf("sizeof(MPI_Status) %zu\n", sizeof(MPI_Status));'
  echo '  printf("MPI_SOURCE %zu MPI_TAG %zu MPI_ERROR %zu\n", offsetof(MPI_Status, MPI_SOURCE), offsetof(MPI_Status, MPI_TAG), offsetof(MPI_Status, MPI_ERROR));'
  echo '  printf("sizes %zu %zu %zu %zu %zu\n", sizeof(MPI_Aint), sizeof(MPI_Count), sizeof(MPI_Offset), sizeof(MPI_Comm), sizeof(MPI_T_enum));'
  echo '  return 0;'
  echo '}'
} > "$tmp/values.c"
for h in ref ours; do
  cc -std=c11 -I "$tmp/$h" -o "$tmp/values_$h" "$tmp/values.c" || fail "the values program does not compile with the $h header"
  "$tmp/values_$h" > "$tmp/values_$h.txt"
done
n=$(wc -l < "$tmp/values_ref.txt")
if ! diff "$tmp/values_ref.txt" "$tmp/values_ours.txt" > "$tmp/values.diff"; then
  fail "values differ from the reference (< reference, > gasket): $(head -30 "$tmp/values.diff")"
fi

grep -E '^[A-Za-z_][A-Za-z_0-9 ]*[ *]P?MPI_[A-Za-z0-9_]+\(.*\);' "$ref" | sed 's|/\*.*\*/||' > "$tmp/ref_prototypes.h"
{ echo '#include <mpi.h>'; cat "$tmp/ref_prototypes.h"; } > "$tmp/prototypes.c"
cc -std=c11 -fsyntax-only -Werror -I "$tmp/ours" "$tmp/prototypes.c" ||
  fail "a reference declaration conflicts with gasket's ABI header (above)"
grep -oE 'P?MPI_[A-Za-z0-9_]+\(' "$tmp/ref_prototypes.h" | sort -u > "$tmp/ref_names"
grep -oE 'P?MPI_[A-Za-z0-9_]+\(' "$ours" | sort -u > "$tmp/our_names"
missing=$(comm -23 "$tmp/ref_names" "$tmp/our_names" | tr -d '(' | tr '\n' ' ')
[ -z "$missing" ] || fail "procedures of the reference gasket's ABI header does not declare: $missing"
echo "ok: $((n - 3)) constants (MPI_VERSION $(sed -n 's/^MPI_VERSION //p' "$tmp/values_ours.txt").$(sed -n 's/^MPI_SUBVERSION //p' "$tmp/values_ours.txt") among them) and the status layout as the reference; $(wc -l < "$tmp/ref_names") procedure names declared compatibly"
