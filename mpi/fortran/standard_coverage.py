#!/usr/bin/env python3
"""standard_coverage: every procedure the MPI Forum's list gives a Fortran binding has one in each
interface the standard gives it, checked against what the build made -- not against the
generator's own list, so a procedure the generator drops (or a hand-written one forgotten) shows.

  standard_coverage.py JSON ABI_HEADER LIBRARY_SYMBOLS MPIF_H MPI_F90 MPI_F08_F90 README

Per procedure of the list (attributes f90_expressible / f08_expressible / not_with_mpif):
  mpif.h   (f90, not not_with_mpif): the linker name mpi_x_ is defined (predefined callbacks:
           also declared EXTERNAL in mpif.h; MPI_WTIME/WTICK typed there)
  mpi      (f90): an explicit interface or generic named MPI_x (predefined callbacks: EXTERNAL)
  mpi_f08  (f08): a specific MPI_x_f08 / MPI_x_f08ts or a generic MPI_x; callbacks: the abstract
           interface MPI_x; predefined callbacks: a procedure MPI_X
The procedures of MPI 4.1/5.0 the list does not have (MPI_Comm_attach_buffer, MPI_Status_get_source,
...) come from the MPI 5.0 ABI header: each has a Fortran binding in all three interfaces but those
the standard gives C alone (ABI_ONLY_C). And every parameter kind of the list has its row in
README.md's audit table.
Prints the table (procedures x interfaces bound) and every gap; exits 1 on a gap.
"""
import json
import re
import sys


# Where gasket cannot give the binding the list names, and why (mpi/fortran/README.md says so too).
EXCEPTIONS = {
    ("MPI_Sizeof", "mpif.h"): "an mpif.h call has no interface: the size of x's type cannot be known",
}


# The procedures of the MPI 5.0 header with no Fortran binding in the standard (chapter 20): the
# handle <-> integer conversions (MPI_x_toint/fromint: C's view of a Fortran handle) and the calls
# by which a Fortran layer describes itself to the C library.
ABI_ONLY_C = re.compile(r"^MPI_\w+_(toint|fromint)$|^MPI_Abi_set_fortran_info$|^MPI_Abi_(get|set)_fortran_booleans$")


def header_additions(header, listed):
    """Records, as the list's, of the header's procedures the list lacks (int forms; all Fortran)."""
    with open(header) as f:
        names = set(re.findall(r"^\w[\w ]*?\b(MPI_[A-Za-z0-9_]+)\(", f.read(), re.MULTILINE))
    attributes = {"f90_expressible": True, "f08_expressible": True, "not_with_mpif": False,
                  "callback": False, "predefined_function": None}
    return {n.lower(): {"name": n, "attributes": attributes, "parameters": []} for n in names
            if n not in listed and not ABI_ONLY_C.match(n) and not (n.endswith("_c") and n[:-2] in names)}


def main():
    json_path, header, symbols_path, mpif_h, mpi_f90, f08_f90, readme = sys.argv[1:8]
    with open(json_path) as f:
        standard = json.load(f)
    standard.update(header_additions(header, {p["name"] for p in standard.values()}))
    with open(symbols_path) as f:
        symbols = {l.split()[-1] for l in f if l.strip()}
    texts = {}
    for key, path in (("mpif", mpif_h), ("mpi", mpi_f90), ("f08", f08_f90)):
        with open(path) as f:
            texts[key] = f.read().lower()

    def declared(text, pattern):
        return re.search(pattern, text, re.MULTILINE) is not None

    def mpif(proc):
        name = proc["name"].lower()
        if proc["attributes"]["predefined_function"]:
            return name + "_" in symbols and declared(texts["mpif"], r"^ +external .*\b%s\b" % name)
        return name + "_" in symbols

    def mpi(proc):
        name = proc["name"].lower()
        if proc["attributes"]["predefined_function"]:
            return declared(texts["mpi"], r"^ +external :: %s$" % name)
        return declared(texts["mpi"], r"^ +(subroutine|[a-z() =_]*function|interface) %s\b" % name)

    def f08(proc):
        name = proc["name"].lower()
        a = proc["attributes"]
        if a["predefined_function"]:
            return declared(texts["f08"], r"^ +procedure\(.*:: %s$" % name)
        if a["callback"]:
            return declared(texts["f08"], r"^ +subroutine %s\(" % name)
        return declared(texts["f08"], r"^ +(subroutine|[a-z() =_]*function) %s_f08(ts)?\(|^ +interface %s$|"
                        r"^ +subroutine %s\(" % (name, name, name))

    rows = []
    for proc in sorted(standard.values(), key=lambda p: p["name"]):
        a = proc["attributes"]
        if not (a["f90_expressible"] or a["f08_expressible"]):
            continue
        wanted = {}
        if a["f90_expressible"] and not a["callback"]:
            if not a["not_with_mpif"]:
                wanted["mpif.h"] = mpif
            wanted["mpi"] = mpi
        if a["f08_expressible"]:
            wanted["mpi_f08"] = f08
        if wanted:
            rows.append((proc, {k: check(proc) for k, check in wanted.items()}))
    gaps = [(p["name"], k) for p, r in rows for k, ok in r.items() if not ok and (p["name"], k) not in EXCEPTIONS]
    for (name, interface), why in sorted(EXCEPTIONS.items()):
        print("not bound: %s in %s (%s)" % (name, interface, why))
    for interface in ("mpif.h", "mpi", "mpi_f08"):
        n = sum(1 for _, r in rows if interface in r)
        bound = sum(1 for _, r in rows if r.get(interface))
        print("%-8s %3d of %3d procedures the standard gives a binding in this interface are bound" %
              (interface, bound, n))
    for name, interface in gaps:
        print("FAILED: %s has a Fortran binding in the standard's %s interface, none in gasket" % (name, interface))
    with open(readme) as f:
        text = f.read()
    audit = text[text.index("## Audit"):]
    audit = audit[:audit.index("\n## ", 1)]
    unaudited = sorted({q["kind"] for p in standard.values() for q in p["parameters"]} -
                       set(re.findall(r"`([A-Z0-9_]+)`", audit)))
    for kind in unaudited:
        print("FAILED: parameter kind %s has no row in README.md's audit table" % kind)
    return 1 if gaps or unaudited else 0


if __name__ == "__main__":
    sys.exit(main())
