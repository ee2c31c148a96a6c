"""Public Bazel macros for programs built on gasket, from gasket or another workspace:

    load("@gasket//:defs.bzl", "gasket_test")
    gasket_test(name = "ring_test", srcs = ["ring.c"], deps = ["@gasket//mpi"], pes = [2, 4])

Programs depend on @gasket//mpi (mpi.h) and/or @gasket//shmem-api:shmem (shmem.h): linked
statically into the program, both share one runtime.
"""

load("//tests:multi_pe.bzl", _ALL_PATHS = "ALL_PATHS", _multi_pe_test = "multi_pe_test")

# The paths a multi-PE test can take: local (same-node loads and stores), pciddc-shm, pciddc-tcp,
# ucx-shm, ucx-tcp (every peer reached through that backend).
GASKET_PATHS = _ALL_PATHS

def gasket_test(name, srcs = [], deps = [], program = None, pes = [2, 4], paths = ["local"], args = [], size = "medium", copts = []):
    """Runs a program through gasket's launcher on `pes` PEs over each of `paths`.

    The program is `program` (a label), or else one built here from `srcs` and `deps`. One sh_test
    per (path, PE count), named NAME_PATH_NPE, gathered in the test_suite `name`; a test passes
    when the job exits 0 (every PE exited 0) within the launcher's timeout.
    """
    if not program:
        if not srcs:
            fail("gasket_test %s: give `srcs` (with `deps`) or `program`" % name)
        native.cc_binary(name = name + "_program", srcs = srcs, deps = deps, copts = copts, testonly = True)
        program = ":" + name + "_program"
    elif srcs:
        fail("gasket_test %s: give `srcs` or `program`, not both" % name)
    _multi_pe_test(name = name, program = program, pes = pes, paths = paths, args = args, size = size)
