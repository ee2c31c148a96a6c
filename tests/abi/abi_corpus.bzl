"""The tests/mpi corpus built against the MPI 5.0 standard ABI's mpi.h, run on libmpi_abi.so.1."""

load("//tests:multi_pe.bzl", "multi_pe_test")

ABI_PATHS = ["local", "pciddc-shm", "ucx-shm", "pciddc-tcp", "ucx-tcp"]

def abi_corpus(programs, package = "tests/mpi", extra_srcs = [], deps = [], linkopts = [], paths = ABI_PATHS, pes = [2, 4]):
    """For each program of `package` (tests/mpi or one of its folders): abi_<program>, its source
    compiled against //mpi/abi:abi, and abi_<program>_test, a multi_pe_test of it on `paths` at
    `pes` ranks. extra_srcs: the headers the sources include beside check.h; deps: what they
    need besides MPI (a table of gasket's that is no MPI header); linkopts: the system libraries
    they call (hwloc)."""
    for prog in programs:
        native.cc_binary(
            name = "abi_" + prog,
            testonly = True,
            srcs = ["//%s:%s.c" % (package, prog), "//tests/mpi:check.h"] + extra_srcs,
            copts = ["-Itests/mpi"],
            linkopts = ["-lpthread"] + linkopts,
            deps = ["//mpi/abi:abi"] + deps,
        )
        multi_pe_test(
            name = "abi_%s_test" % prog,
            paths = paths,
            pes = pes,
            program = ":abi_" + prog,
        )
