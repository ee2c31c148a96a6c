#!/usr/bin/env bash
# A C program compiled by oshcc and the C++ generics program (tests/shmem/cxx_generics.cc)
# compiled by oshc++ run under oshrun on 2 PEs and check their values; -show prints the command
# with the include and library flags.
set -eu
oshcc=$1 oshcxx=$2 oshrun=$3 source=$4 check=$5 cxx_source=$6
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp "$source" "$check" "$cxx_source" "$work/"
"$oshcc" -show -o x x.c | grep -q -- "-lgasket_shmem" || { echo "FAILED: oshcc -show lacks the library"; exit 1; }
"$oshcc" -O2 -o "$work/prog" "$work/$(basename "$source")"
"$oshrun" -n 2 --quiet --timeout 60 "$work/prog" | tee "$work/out"
grep -q "ok on 2 PEs" "$work/out" || { echo "FAILED: no success line"; exit 1; }
"$oshcxx" -std=c++17 -O2 -Wall -Wextra -o "$work/cxx" "$work/$(basename "$cxx_source")"
"$oshrun" -n 2 --quiet --timeout 60 "$work/cxx" | tee "$work/cxx_out"
grep -q "cxx_generics: ok on 2 PEs" "$work/cxx_out" || { echo "FAILED: C++ program"; exit 1; }
echo "ok"
