#!/bin/bash
# Compiles small programs against shmem.h (C11 with cc, C++ with c++), checking what the compiler
# says: a deprecated generic warns naming its replacement; a type it does not take is an error
# (never a call of another size); shmem_pcontrol takes a level and any further arguments.
set -u
include=$(dirname "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# compile LANG SOURCE: the compiler's output in $work/out, its status returned.
compile() {
  local lang=$1 source=$2
  if [ "$lang" = c ]; then
    printf '%s\n' "#include <shmem.h>" "$source" > "$work/t.c"
    cc -std=c11 -fsyntax-only -I"$include" "$work/t.c" > "$work/out" 2>&1
  else
    printf '%s\n' "#include <shmem.h>" "$source" > "$work/t.cc"
    c++ -std=c++17 -fsyntax-only -I"$include" "$work/t.cc" > "$work/out" 2>&1
  fi
}

fail() {
  echo "FAIL: $*"
  sed 's/^/    /' "$work/out" | head -20
  failures=$((failures + 1))
}

# expect_warning LANG CALL DECLS REPLACEMENT
expect_warning() {
  local lang=$1 call=$2 decls=$3 replacement=$4
  if ! compile "$lang" "$decls void f(int pe) { (void)($call); }"; then
    fail "$lang: '$call' does not compile"
  elif ! grep -q "deprecated" "$work/out" || ! grep -q "use $replacement" "$work/out"; then
    fail "$lang: '$call' compiles without a deprecation warning naming $replacement"
  fi
}

# expect_error LANG CALL DECLS
expect_error() {
  local lang=$1 call=$2 decls=$3
  if compile "$lang" "$decls void f(int pe) { (void)($call); }"; then
    fail "$lang: '$call' compiles (it must be rejected, not run at another size)"
  fi
}

for lang in c cxx; do
  for type in int long "long long" float double; do
    d="static $type x;"
    expect_warning $lang "shmem_swap(&x, ($type)1, pe)" "$d" shmem_atomic_swap
    expect_warning $lang "shmem_fetch(&x, pe)" "$d" shmem_atomic_fetch
    expect_warning $lang "shmem_set(&x, ($type)1, pe)" "$d" shmem_atomic_set
  done
  for type in int long "long long"; do
    d="static $type x;"
    expect_warning $lang "shmem_cswap(&x, ($type)0, ($type)1, pe)" "$d" shmem_atomic_compare_swap
    expect_warning $lang "shmem_fadd(&x, ($type)1, pe)" "$d" shmem_atomic_fetch_add
    expect_warning $lang "shmem_finc(&x, pe)" "$d" shmem_atomic_fetch_inc
    expect_warning $lang "shmem_add(&x, ($type)1, pe)" "$d" shmem_atomic_add
    expect_warning $lang "shmem_inc(&x, pe)" "$d" shmem_atomic_inc
  done
  # Types the 1.4 text does not list for the routine.
  for type in short "unsigned int" char "long double"; do
    expect_error $lang "shmem_swap(&x, ($type)1, pe)" "static $type x;"
  done
  for type in float double "unsigned long" short; do
    expect_error $lang "shmem_fadd(&x, ($type)1, pe)" "static $type x;"
    expect_error $lang "shmem_inc(&x, pe)" "static $type x;"
  done
  if ! compile $lang "void f(void) { shmem_pcontrol(1); shmem_pcontrol(2, \"phase\", 3); }"; then
    fail "$lang: shmem_pcontrol(const int level, ...) does not take extra arguments"
  fi
done

if [ $failures -ne 0 ]; then
  echo "$failures checks failed"
  exit 1
fi
echo "deprecated generics: every check passed"
