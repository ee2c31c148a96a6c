"""Multi-PE tests: one sh_test per (program, path, PE count), run through the launcher."""

ALL_PATHS = ["local", "pciddc-shm", "pciddc-tcp", "ucx-shm", "ucx-tcp"]

# Mixed nodes (2 PEs per simulated node): same-node peers direct, the others over the backend.
NODES_PATHS = ["pciddc-tcp-nodes", "ucx-tcp-nodes"]

# Resolved against gasket's repository, so the macros work from another workspace (@gasket).
_RUNNER = str(Label("//tests:run_multi_pe.sh"))
_LAUNCHER = str(Label("//tools/gasketrun"))
_PATHS_FILE = str(Label("//tests:paths.txt"))

def multi_pe_test(name, program, pes = [2, 4, 8], paths = ALL_PATHS, args = [], size = "medium",
                  launcher = None, expect_stdout = None, env = {}):
    """Runs `program` through gasketrun on every path at every PE count; a test_suite `name`.

    launcher: another MPI's launcher to use instead of gasketrun: the absolute path of an
      `mpiexec.*`, optionally followed by its options (tests/pmi).
    expect_stdout: a regular expression the job's stdout must match; {n} stands for the PE count.
    env: environment of every PE (knobs such as GASKET_PROGRESS_THREAD).
    """
    tests = []
    for path in paths:
        for n in pes:
            test = "%s_%s_%dpe" % (name, path.replace("-", "_"), n)
            native.sh_test(
                name = test,
                size = size,
                srcs = [_RUNNER],
                args = ["'%s'" % launcher if launcher else "$(location %s)" % _LAUNCHER, "$(location %s)" % program, str(n), path] +
                       (["--expect-stdout", "'%s'" % expect_stdout.replace("{n}", str(n))] if expect_stdout else []) +
                       (["--"] + args if args else []),
                data = [_LAUNCHER, _PATHS_FILE, program],
                env = env,
            )
            tests.append(test)
    native.test_suite(name = name, tests = tests)

def expect_failure_test(name, program, expect, args = [], pes = 2, path = "local"):
    """The job must end non-zero at once, with stderr matching the regular expression `expect`."""
    native.sh_test(
        name = name,
        size = "small",
        srcs = [_RUNNER],
        args = ["$(location %s)" % _LAUNCHER, "$(location %s)" % program, str(pes), path,
                "--expect-failure", "'%s'" % expect, "--"] + args,
        data = [_LAUNCHER, _PATHS_FILE, program],
    )

def local_variant_tests(prefix, program, variants, size = "medium"):
    """One test on the local path per variant, named prefix + variant.

    variants: (variant, PE count, environment dict, extra launcher arguments) tuples; the
      program's own arguments follow a "--" among the extra ones.
    """
    for variant, pes, env, extra in variants:
        native.sh_test(
            name = prefix + variant,
            size = size,
            srcs = [_RUNNER],
            args = ["$(location %s)" % _LAUNCHER, "$(location %s)" % program, str(pes), "local"] + extra,
            data = [_LAUNCHER, _PATHS_FILE, program],
            env = env,
        )
