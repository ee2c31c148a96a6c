#!/usr/bin/env bash
# The profiling interface with the shared library, as tools are used outside Bazel: the tool is a
# shared object of its own, linked before libgasket_shmem.so, so its shmem_putmem is the one the
# program binds to; it calls pshmem_putmem in libgasket_shmem.so. Run on 2 PEs.
set -euo pipefail
dir=${TEST_SRCDIR}/gasket
tmp=${TEST_TMPDIR:-$(mktemp -d)}
lib=$(dirname "$(readlink -f "$dir/shmem-api/libgasket_shmem.so")")
cc=${CC:-cc}
flags=(-O2 -I"$dir/shmem-api/include" -I"$dir")  # shmem.h and the generated pshmem.h
ln -sf "$lib/libgasket_shmem.so" "$tmp/libgasket_shmem.so"
"$cc" "${flags[@]}" -fPIC -shared -o "$tmp/libputmem_profiler.so" "$dir/tests/symbols/putmem_profiler.c" \
  -L"$tmp" -lgasket_shmem
"$cc" "${flags[@]}" -o "$tmp/pshmem_interposition" "$dir/tests/symbols/pshmem_interposition.c" \
  -L"$tmp" -Wl,-rpath,"$tmp" -Wl,--no-as-needed -lputmem_profiler -lgasket_shmem
out=$("$dir/tools/gasketrun/gasketrun" -n 2 "$tmp/pshmem_interposition" 2>&1) || { echo "$out"; echo "FAILED"; exit 1; }
echo "$out"
[[ $out == *"pshmem_interposition: ok on 2 PEs"* ]] || { echo "FAILED: no ok line"; exit 1; }
