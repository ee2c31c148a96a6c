"""Multi-PE tests launched by MPICH's Hydra instead of gasketrun (see BUILD)."""

HYDRA = "/usr/bin/mpiexec.mpich"

def hydra_test(name, program, pes = [2, 4], paths = ["local", "pciddc-tcp", "ucx-tcp"]):
    """`mpiexec.mpich -n N program` on every path at every PE count; a test_suite `name`."""
    tests = []
    for path in paths:
        for n in pes:
            test = "%s_%s_%dpe" % (name, path.replace("-", "_"), n)
            native.sh_test(
                name = test,
                size = "small",
                srcs = ["//tests:run_multi_pe.sh"],
                args = [HYDRA, "$(location %s)" % program, str(n), path],
                data = ["//tests:paths.txt", program],
            )
            tests.append(test)
    native.test_suite(name = name, tests = tests)
