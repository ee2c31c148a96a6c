#!/usr/bin/env python3
"""coverage: which MPI 4.1 procedures libgasket_mpi.so provides, against missing.txt.

Usage: coverage.py procedures.tsv missing.txt libgasket_mpi.so

For every procedure of the standard's list (procedures.tsv) and every large-count form MPI_x_c:
- not in missing.txt: the library must define PMPI_x (the implementation, a strong symbol) and
  MPI_x (a weak symbol a profiling tool can replace);
- in missing.txt: the library must define neither (so the list stays true as procedures arrive).
Prints the coverage numbers; exits 1 naming every mismatch.
"""
import subprocess
import sys

from generate import read_missing, read_table


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


def main():
    table, missing, symbols = read_table(sys.argv[1]), read_missing(sys.argv[2]), defined_symbols(sys.argv[3])
    names = {p.name for p in table}
    errors = ["%s: listed in missing.txt but not a procedure of MPI 4.1" % n for n in sorted(missing - names)]
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
    print("MPI 4.1 C procedures: %d of %d (with PMPI_ names); large-count _c forms: %d of %d; "
          "PMPI_ symbols: %d of %d" % (provided["int"], totals["int"], provided["c"], totals["c"],
                                       provided["int"] + provided["c"], totals["int"] + totals["c"]))
    for e in errors:
        print("FAILED: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
