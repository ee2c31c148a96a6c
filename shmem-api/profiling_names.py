#!/usr/bin/env python3
"""OpenSHMEM's profiling interface (OpenSHMEM 1.5 chapter 10), generated from shmem.h.

Reads shmem.h after the C preprocessor (stdin): every routine it declares, named shmem_*, gets
  - in pshmem.h, the same declaration under its pshmem_* name (what a tool calls);
  - in profiling_aliases.inc (included at the end of shmem.cc, which defines the routines):
    shmem_* made weak and pshmem_* a strong alias of the same code, so a tool library defining
    shmem_putmem interposes it (statically or dynamically) and reaches gasket by pshmem_putmem.
One declaration (shmem.h) serves all three names; nothing is copied by hand.
Usage: profiling_names.py PSHMEM_H ALIASES_INC < preprocessed-shmem.h
"""
import re
import sys

ROUTINE = re.compile(r"\b(shmem_[a-z0-9_]+)\s*\(")


def declarations(text):
    """The function declarations of the preprocessed header, one string each, whitespace folded."""
    for statement in " ".join(text.split()).split(";"):
        statement = statement.strip()
        if statement.startswith("typedef") or "{" in statement or "}" in statement:
            statement = statement.rsplit("}", 1)[-1].strip()  # after an extern "C" block or a struct
        match = ROUTINE.search(statement)
        if match and not statement.startswith("typedef"):
            yield match.group(1), statement


def main():
    pshmem_h, aliases_inc = sys.argv[1], sys.argv[2]
    routines = {}
    for name, statement in declarations(sys.stdin.read()):
        routines.setdefault(name, statement)
    if len(routines) < 100:
        sys.exit("profiling_names.py: found only %d routines in shmem.h: the parser is broken" % len(routines))
    with open(pshmem_h, "w") as out:
        out.write("/* Generated from shmem.h by shmem-api/profiling_names.py: the OpenSHMEM profiling\n"
                  " * interface (every shmem_ routine under its pshmem_ name). */\n"
                  "#ifndef PSHMEM_H\n#define PSHMEM_H\n#include <shmem.h>\n"
                  "#ifdef __cplusplus\nextern \"C\" {\n#endif\n")
        for name, statement in sorted(routines.items()):
            out.write(ROUTINE.sub("p" + name + "(", statement, count=1) + ";\n")
        out.write("#ifdef __cplusplus\n}\n#endif\n#endif\n")
    with open(aliases_inc, "w") as out:
        out.write("// Generated from shmem.h by shmem-api/profiling_names.py (%d routines).\n" % len(routines))
        for name in sorted(routines):
            out.write('asm(".weak %s\\n.globl p%s\\n.set p%s, %s");\n' % (name, name, name, name))


if __name__ == "__main__":
    main()
