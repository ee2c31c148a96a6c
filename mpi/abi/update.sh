#!/usr/bin/env bash
# Regenerates mpi/abi's generated files: include/mpi.h, layer.cc and native_values.cc.
set -euo pipefail
cd "$(dirname "$0")"
ref=../bindings/standard/mpi-5.0-abi-mpi.h
python3 -B abi_header.py "$ref" ../bindings/procedures.tsv > include/mpi.h
python3 -B layer.py wrappers "$ref" ../bindings/procedures.tsv ../bindings/standard/mpi-4.1-apis.json > layer.cc
python3 -B layer.py values "$ref" > native_values.cc
