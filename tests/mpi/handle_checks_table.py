#!/usr/bin/env python3
"""The rows of tests/mpi/handle_checks.c, generated from mpi.h.

Reads mpi.h after the C preprocessor (stdin) and writes C: for every binding and every handle it
takes as input (by value, through a pointer it reads, or in an array), one function calling the
binding with the handle under test in that position and valid values everywhere else, and a
table of {binding, parameter, kind, function}. The harness (handle_checks.c) calls each row with
the kind's null handle and with a freed handle, and checks the error class. A declaration with
an attribute after it (mpi/bindings marks the procedures gasket does not provide yet
`__attribute__((unavailable))`) is not a binding to call and gets no row.
Usage: handle_checks_table.py OUT.inc < preprocessed-mpi.h
"""
import re
import sys

KINDS = {"MPI_Comm": "COMM", "MPI_Datatype": "TYPE", "MPI_Group": "GROUP", "MPI_Request": "REQUEST",
         "MPI_Op": "OP", "MPI_Errhandler": "ERRHANDLER", "MPI_Info": "INFO", "MPI_Message": "MESSAGE",
         "MPI_Win": "WIN", "MPI_File": "FH"}
# Bindings that read (and may change) the handle a pointer argument points at; elsewhere a pointer
# to a handle is an output.
READS_POINTER = re.compile(r"^MPI_(\w+_free|(Wait|Test|Start)(all|any|some)?|Cancel)$")
READS_MESSAGE = re.compile(r"^MPI_I?[mM]recv$")


def reads_pointer(fn, kind):
    fn = re.sub(r"_c$", "", fn)  # the large-count form reads what its int form reads
    return bool(READS_POINTER.match(fn)) or (kind == "MESSAGE" and bool(READS_MESSAGE.match(fn)))
# Arguments significant only at the root of a collective (MPI 4.1 chapter 11): the other ranks
# rightly ignore them, so a row cannot expect every rank's error; tests/dynproc checks them.
ROOT_ONLY = {("MPI_Comm_spawn", "info"), ("MPI_Comm_spawn_multiple", "array_of_info"),
             ("MPI_Comm_accept", "info"), ("MPI_Comm_connect", "info")}
SKIPPED = {"MPI_Abort", "MPI_Finalize", "MPI_Init", "MPI_Init_thread"}  # end or start the job
# The tools interface returns its own codes (MPI_T_ERR_*) and needs MPI_T_init_thread: not here.
SKIPPED_PREFIX = "MPI_T_"
# MPI_x_toint returns the handle's integer, not an error code (MPI 5.0 section 20.3).
SKIPPED_SUFFIX = "_toint"
COUNT_NAME = re.compile(r"(^|_)(count|incount|n|size|ndims|maxdims|maxindex|maxedges|maxneighbors|"
                        r"max_integers|max_addresses|max_datatypes|indegree|outdegree|nnodes)$")


def parameters(text):
    out = []
    for p in text.split(","):
        p = p.strip()
        m = re.match(r"^(.*?)(\w+)\s*(\[\](?:\[\d+\])?)?$", p)
        if p in ("void", "...") or not m:
            out.append((p, "", ""))
            continue
        out.append((m.group(1).strip(), m.group(2), m.group(3) or ""))
    return out


def handle_of(ctype):
    base = ctype.replace("const", "").replace("*", "").strip()
    return KINDS.get(base)


def argument(fn, ctype, name, array, tested, tested_kind):
    """C expression for one argument; `tested` when this is the handle under test, whose kind is
    `tested_kind`."""
    kind = handle_of(ctype)
    pointer = "*" in ctype
    if tested_kind == "TYPE" and not kind and re.search(r"count$", name) and not pointer and not array:
        return "1"  # a count of 0 makes MPI_DATATYPE_NULL valid (no data): the type must matter
    if tested_kind == "TYPE" and not kind and re.search(r"counts$", name) and (pointer or array):
        wide = "int" not in ctype
        return "(%s*)h->%s" % (ctype.replace("const", "").replace("*", "").strip(), "wide_ones" if wide else "ones")
    if kind:
        if array:
            return "bad_array(%s, bad)" % kind.lower() if tested else "h->%s_array" % kind.lower()
        if pointer:
            if reads_pointer(fn, kind) or tested:
                return "pointer_to(%s, bad)" % kind.lower() if tested else "pointer_to(%s, h->%s)" % (kind.lower(), kind.lower())
            return "&h->out_%s" % kind.lower()
        if tested:
            return "bad"
        if kind == "COMM" and "eighbor" in fn:
            return "h->ring"  # neighborhood collectives need a topology
        return "h->%s" % kind.lower()
    if ctype == "MPI_Session":
        return "h->session"
    if ctype == "MPI_Session*":  # an output: a session made by a row that fails is never made
        return "&h->out_session"
    if ctype.replace("const ", "") == "MPI_Status*" or (ctype == "MPI_Status" and array):
        return "h->statuses"
    if ctype.endswith("_function*") or ctype.endswith("_fn*"):
        return "NULL"
    if "char" in ctype and (pointer or array):
        return '"external32"' if name == "datarep" else "h->text"
    if "void" in ctype and pointer:
        return "h->buffer"
    if ctype in ("MPI_Aint", "MPI_Count") and not array and fn.endswith("_c"):
        # the large-count forms' counts and disp_unit: as the int forms' below
        return "1" if name == "disp_unit" or COUNT_NAME.search(name) else "0"
    if ctype in ("int", "const int") and not array:
        if name == "disp_unit":
            return "1"
        if name in ("insize", "outsize"):
            return "(int)sizeof h->buffer"
        if name == "split_type":
            return "MPI_COMM_TYPE_SHARED"
        if "keyval" in name:
            return "h->%s_keyval" % ("win" if "Win" in fn else "comm")
        return "1" if COUNT_NAME.search(name) else "0"
    if array.startswith("[][") and "int" in ctype:
        return "(int(*)%s)h->numbers" % array[2:]
    if re.match(r"^(const )?(int|MPI_Aint|MPI_Count|MPI_Offset)\*?$", ctype) and (pointer or array):
        return "(%s*)h->numbers" % ctype.replace("const", "").replace("*", "").strip()
    if ctype in ("MPI_Aint", "MPI_Count", "MPI_Offset", "MPI_Fint", "double", "const int"):
        return "0"
    sys.exit("handle_checks_table.py: %s: no value for parameter '%s %s%s'" % (fn, ctype, name, array))


def main():
    text = " ".join(sys.stdin.read().split())
    rows, functions = [], []
    for m in re.finditer(r"(?<!typedef )\b(int|double) (MPI_\w+)\(([^()]*)\);", text):
        fn, params = m.group(2), parameters(m.group(3))
        if fn in SKIPPED or fn.startswith(SKIPPED_PREFIX) or fn.endswith(SKIPPED_SUFFIX):
            continue
        for i, (ctype, name, array) in enumerate(params):
            kind = handle_of(ctype)
            if not kind:
                continue
            reads = not ("*" in ctype and not reads_pointer(fn, kind)) or array
            if array and "const" not in ctype and not reads_pointer(fn, kind):
                reads = False  # an output array
            if not reads or (fn, name) in ROOT_ONLY:
                continue
            row = "row_%d" % len(rows)
            args = ", ".join(argument(fn, c, n, a, j == i, kind) for j, (c, n, a) in enumerate(params))
            functions.append("static int %s(Handles* h, int bad) { return (int)%s(%s); }" % (row, fn, args))
            rows.append('  {"%s", "%s", %s, %s},' % (fn, name, kind, row))
    if len(rows) < 100:
        sys.exit("handle_checks_table.py: only %d rows: the parser is broken" % len(rows))
    with open(sys.argv[1], "w") as out:
        out.write("/* Generated from mpi.h by tests/mpi/handle_checks_table.py: %d rows. */\n" % len(rows))
        out.write("\n".join(functions) + "\n")
        out.write("static const Row kRows[] = {\n" + "\n".join(rows) + "\n};\n")


if __name__ == "__main__":
    main()
