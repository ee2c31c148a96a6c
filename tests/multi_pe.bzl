"""Multi-PE tests: one sh_test per (program, path, PE count), run through the launcher."""

ALL_PATHS = ["local", "pciddc-shm", "pciddc-tcp", "ucx-shm", "ucx-tcp"]

# Mixed nodes (2 PEs per simulated node): same-node peers direct, the others over the backend.
NODES_PATHS = ["pciddc-tcp-nodes", "ucx-tcp-nodes"]

def multi_pe_test(name, program, pes = [2, 4, 8], paths = ALL_PATHS, args = [], size = "medium"):
    """Runs `program` through gasketrun on every path at every PE count; a test_suite `name`."""
    tests = []
    for path in paths:
        for n in pes:
            test = "%s_%s_%dpe" % (name, path.replace("-", "_"), n)
            native.sh_test(
                name = test,
                size = size,
                srcs = ["//tests:run_multi_pe.sh"],
                args = ["$(location //tools/gasketrun)", "$(location %s)" % program, str(n), path] +
                       (["--"] + args if args else []),
                data = ["//tools/gasketrun", "//tests:paths.txt", program],
            )
            tests.append(test)
    native.test_suite(name = name, tests = tests)

def expect_failure_test(name, program, expect, args = [], pes = 2, path = "local"):
    """The job must end non-zero at once, with stderr matching the regular expression `expect`."""
    native.sh_test(
        name = name,
        size = "small",
        srcs = ["//tests:run_multi_pe.sh"],
        args = ["$(location //tools/gasketrun)", "$(location %s)" % program, str(pes), path,
                "--expect-failure", "'%s'" % expect, "--"] + args,
        data = ["//tools/gasketrun", "//tests:paths.txt", program],
    )
