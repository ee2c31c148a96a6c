#!/usr/bin/env python3
"""corpus_coverage: how much of the Fortran bindings the programs of tests/fortran call, per
interface. A call counts for the interface whose `use mpi_f08`, `use mpi` or `include 'mpif.h'`
comes last above it in its file (each program unit names its own); a .F90 source compiled once
per interface (its preprocessor picks the `use` line: corpus.F90) counts for all three. Procedures are those the
Forum's list (and for the MPI 4.1/5.0 additions, the MPI 5.0 ABI header) gives a binding in that interface (mpif.h and `mpi`: f90_expressible, `mpi_f08`:
f08_expressible; callbacks and predefined callback functions left out); the large-count `_c`
forms count as their procedure.

  python3 tests/fortran/corpus_coverage.py [--missing INTERFACE]   (from the repository's root)
"""
import glob
import json
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "mpi", "fortran"))
import standard_coverage  # noqa: E402  (the MPI 4.1/5.0 procedures the Forum's list lacks)
INTERFACES = ("mpif.h", "mpi", "mpi_f08")


def bound_procedures():
    with open(os.path.join(ROOT, "mpi/bindings/standard/mpi-4.1-apis.json")) as f:
        standard = json.load(f)
    standard.update(standard_coverage.header_additions(
        os.path.join(ROOT, "mpi/bindings/standard/mpi-5.0-abi-mpi.h"), {p["name"] for p in standard.values()}))
    out = {i: set() for i in INTERFACES}
    for p in standard.values():
        a = p["attributes"]
        if a["callback"] or a["predefined_function"]:
            continue
        name = p["name"].lower()
        if a["f90_expressible"]:
            out["mpi"].add(name)
            if not a["not_with_mpif"] and name != "mpi_sizeof":
                out["mpif.h"].add(name)
        if a["f08_expressible"]:
            out["mpi_f08"].add(name)
    return out


# What a .F90 program's macros are in each interface's build (tests/fortran/BUILD's INTERFACE_FLAGS).
MACROS = {"mpi_f08": {"F08"}, "mpi": {"MODULE"}, "mpif.h": set()}


def preprocess(line, branches):
    """The open #if blocks after a preprocessor line: each the set of interfaces it is compiled for."""
    def holds(condition, interface):
        expression = re.sub(r"defined\((\w+)\)", lambda m: str(m.group(1) in MACROS[interface]), condition)
        return eval(expression.replace("||", " or ").replace("&&", " and ").replace("!", " not "))
    m = re.match(r"#\s*(if|elif|else|endif)\b(.*)", line)
    if not m:
        return branches
    word, condition = m.group(1), m.group(2).strip()
    if word == "if":
        return branches + [{i for i in INTERFACES if holds(condition, i)}]
    if word == "else":
        return branches[:-1] + [set(INTERFACES) - branches[-1]]
    if word == "endif":
        return branches[:-1]
    raise SystemExit("corpus_coverage: #elif is not read: " + line)


def called():
    calls = {i: set() for i in INTERFACES}
    uses = re.compile(r"^\s*(use\s+(mpi_f08|mpi)\b|include\s+'mpif\.h')", re.I)
    call = re.compile(r"\b(p?mpi_[a-z0-9_]+)\s*\(", re.I)
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/fortran/*.[fF]*"))):
        interface = None
        with open(path) as f:
            lines = f.readlines()
        every = path.endswith(".F90") and any(l.startswith("#if defined(F08)") or l.startswith('#include "interface.inc"')
                                              for l in lines)
        branches = []  # the preprocessor's open #if blocks: the interfaces each one is compiled for
        for line in lines:
            if True:
                if every and line.startswith("#"):
                    branches = preprocess(line, branches)
                    continue
                code = line.split("!")[0] if not line[:1] in "cC*" or path.endswith(".f90") else ""
                m = uses.match(code)
                if every:
                    compiled = set(INTERFACES).intersection(*branches) if branches else set(INTERFACES)
                    for name in call.findall(code):
                        for i in compiled:
                            calls[i].add(re.sub(r"_c$", "", name.lower()))
                    continue
                if m:
                    interface = {"mpi_f08": "mpi_f08", "mpi": "mpi"}.get((m.group(2) or "").lower(), "mpif.h")
                    continue
                if interface is None:
                    continue
                for name in call.findall(code):
                    name = name.lower()
                    if name.startswith("pmpi_"):
                        name = name[1:]
                    calls[interface].add(re.sub(r"_c$", "", name))
    return calls


def main():
    bound, calls = bound_procedures(), called()
    total_bound = total_called = 0
    print("| interface | procedures bound | called by tests/fortran | share |")
    print("|---|---|---|---|")
    for i in INTERFACES:
        hit = bound[i] & calls[i]
        total_bound += len(bound[i])
        total_called += len(hit)
        print("| %s | %d | %d | %.0f%% |" % (i, len(bound[i]), len(hit), 100.0 * len(hit) / len(bound[i])))
    print("| all three | %d | %d | %.0f%% |" % (total_bound, total_called, 100.0 * total_called / total_bound))
    if len(sys.argv) == 3 and sys.argv[1] == "--missing":
        print("\n".join(sorted(bound[sys.argv[2]] - calls[sys.argv[2]])))


if __name__ == "__main__":
    main()
