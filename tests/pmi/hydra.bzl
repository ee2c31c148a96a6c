"""Multi-PE tests launched by MPICH's Hydra instead of gasketrun (see BUILD)."""

HYDRA = "/usr/bin/mpiexec.mpich"

def hydra_test(name, program, expect, pes = [2, 4], paths = ["local", "pciddc-tcp", "ucx-tcp"], args = []):
    """`mpiexec.mpich -n N program args` on every path at every PE count; a test_suite `name`.

    expect: a regular expression on stdout, with {n} standing for the PE count, that only a job
    of n PEs prints (N singletons also exit 0).
    """
    tests = []
    for path in paths:
        for n in pes:
            test = "%s_%s_%dpe" % (name, path.replace("-", "_"), n)
            native.sh_test(
                name = test,
                size = "small",
                srcs = ["expect_one_job.sh"],
                args = ["'%s'" % expect.replace("{n}", str(n)), "$(location //tests:run_multi_pe.sh)", HYDRA,
                        "$(location %s)" % program, str(n), path] + (["--"] + args if args else []),
                data = ["//tests:run_multi_pe.sh", "//tests:paths.txt", program],
            )
            tests.append(test)
    native.test_suite(name = name, tests = tests)
