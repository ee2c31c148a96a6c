#!/usr/bin/env python3
"""coverage: which MPI 5.0 procedures and constants gasket provides, against missing.txt.

Usage: coverage.py procedures.tsv missing.txt libgasket_mpi.so abi-header.h mpi.h

The standard ABI header (standard/mpi-5.0-abi-mpi.h) is the complete MPI 5.0 C interface.
- Procedures: for every procedure of the table (which holds every one the header declares) and
  every large-count form MPI_x_c: not in missing.txt -> the library defines PMPI_x (a strong
  symbol) and MPI_x (a weak one a profiling tool can replace); in missing.txt -> neither.
- Constants: every MPI_ constant the header defines (macros and enumerators) compiles in a C
  program including gasket's mpi.h, unless missing.txt lists it (then it must not compile, so
  the list stays true).
Prints the numbers; exits 1 naming every mismatch.
"""
import os
import re
import subprocess
import sys
import tempfile

from derive import abi_procedures
from generate import read_missing, read_table

# The header's own machinery, not constants of the interface.
NOT_CONSTANTS = {"MPI_H_ABI", "MPI_ABI_Aint", "MPI_ABI_Offset", "MPI_ABI_Count"}


def defined_symbols(library):
    """name -> nm's type letter (T: text, W: weak) of the dynamic symbols the library defines."""
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True, capture_output=True,
                         text=True).stdout
    symbols = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3:
            symbols[fields[2].split("@")[0]] = fields[1]
    return symbols


def abi_constants(header_text):
    """The MPI_ constants of the ABI header: object-like macros and enumerators."""
    names = set(re.findall(r"^#define\s+(MPI_[A-Za-z0-9_]+)\b(?!\()", header_text, re.M))
    names |= set(re.findall(r"^\s+(MPI_[A-Za-z0-9_]+)\s*=", header_text, re.M))
    return sorted(names - NOT_CONSTANTS)


def undeclared(constants, mpi_h):
    """The constants a C program including mpi.h cannot name (the compiler's 'undeclared')."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "constants.c")
        with open(src, "w") as f:
            f.write('#include "mpi.h"\nvoid use(const void*);\nvoid all(void) {\n')
            for c in constants:
                f.write("  { __typeof__(%s) v = %s; use(&v); }\n" % (c, c))
            f.write("}\n")
        out = subprocess.run(["cc", "-fsyntax-only", "-I", os.path.dirname(mpi_h), src],
                             capture_output=True, text=True, env=dict(os.environ, LC_ALL="C")).stderr
    return set(re.findall(r"'(MPI_[A-Za-z0-9_]+)' undeclared", out))


def procedure_coverage(table, missing, symbols, header_names, errors):
    names = {p.name for p in table}
    errors += ["%s: declared by the MPI 5.0 header but not in procedures.tsv" % n
               for n in sorted(header_names - names)]
    provided = {"int": 0, "c": 0}
    totals = {"int": 0, "c": 0}
    for p in table:
        form = "c" if p.name.endswith("_c") else "int"
        totals[form] += 1
        mpi, pmpi = symbols.get(p.name), symbols.get("P" + p.name)
        if p.name in missing:
            if mpi or pmpi:
                errors.append("%s: in missing.txt but libgasket_mpi.so defines %s (delete its line)" %
                              (p.name, " and ".join(n for n, s in ((p.name, mpi), ("P" + p.name, pmpi)) if s)))
            continue
        if pmpi not in ("T", "t"):
            errors.append("P%s: not defined as a function (nm type %s)" % (p.name, pmpi or "absent"))
        if mpi not in ("W", "w"):
            errors.append("%s: not a weak symbol the profiling interface can replace (nm type %s)" %
                          (p.name, mpi or "absent"))
        if pmpi in ("T", "t") and mpi in ("W", "w"):
            provided[form] += 1
    in_header = sum(1 for p in table if p.name in header_names and p.name not in missing)
    print("MPI 5.0 C procedures: %d of %d (with PMPI_ names); large-count _c forms: %d of %d; "
          "PMPI_ symbols: %d of %d; of the ABI header's %d procedures: %d" %
          (provided["int"], totals["int"], provided["c"], totals["c"], provided["int"] + provided["c"],
           totals["int"] + totals["c"], len(header_names), in_header))


def constant_coverage(constants, missing, mpi_h, errors):
    absent = undeclared(constants, mpi_h)
    for c in constants:
        if c in absent and c not in missing:
            errors.append("%s: a constant of the MPI 5.0 header that mpi.h does not define" % c)
        if c in missing and c not in absent:
            errors.append("%s: in missing.txt but mpi.h defines it (delete its line)" % c)
    print("MPI 5.0 constants: %d of %d" % (len(constants) - len(absent), len(constants)))


def main():
    table_path, missing_path, library, header, mpi_h = sys.argv[1:6]
    table, missing, symbols = read_table(table_path), read_missing(missing_path), defined_symbols(library)
    with open(header) as f:
        header_text = f.read()
    header_names = set(abi_procedures(header_text))
    constants = abi_constants(header_text)
    names = {p.name for p in table}
    errors = ["%s: listed in missing.txt but neither a procedure nor a constant of MPI 5.0" % n
              for n in sorted(missing - names - set(constants))]
    procedure_coverage(table, missing, symbols, header_names, errors)
    constant_coverage(constants, missing & set(constants), mpi_h, errors)
    for e in errors:
        print("FAILED: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
