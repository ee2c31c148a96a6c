"""Multi-host tests: programs run across hosts simulated as network namespaces (netns_cluster.sh)."""

def netns_cluster_test(name, topology, pes, transports, programs, probe_args = []):
    """One sh_test per (program, transport) on `topology`; a test_suite `name`.

    `probe_args` go to programs named cluster_probe (expected PE and node counts)."""
    tests = []
    for transport in transports:
        for program in programs:
            short = program.split(":")[-1]
            test = "%s_%s_%s" % (name, short, transport.replace("-", "_"))
            native.sh_test(
                name = test,
                size = "medium",
                srcs = ["netns_cluster.sh"],
                args = [topology, transport, "$(location //tools/gasketrun)", str(pes),
                        "$(location %s)" % program] + (probe_args if short == "cluster_probe" else []),
                data = ["//tools/gasketrun", program],
                local = True,
                tags = ["exclusive", "no-sandbox"],
            )
            tests.append(test)
    native.test_suite(name = name, tests = tests)
