"""The repositories gasket needs, for a workspace that depends on gasket (@gasket).

    load("@gasket//:repositories.bzl", "gasket_dependencies", "gasket_offline_bazel_stubs")
    gasket_dependencies()
    gasket_offline_bazel_stubs()  # only with Debian's offline bazel-bootstrap 4.2.3
"""

def gasket_dependencies():
    """System libraries gasket's BUILD files name: @system_pmix (Debian's libpmix-dev)."""
    if not native.existing_rule("system_pmix"):
        native.new_local_repository(
            name = "system_pmix",
            path = "/usr/lib/x86_64-linux-gnu/pmix2",
            build_file = str(Label("//third_party:pmix.BUILD")),
        )

def _directory_of_impl(ctx):
    source = ctx.path(ctx.attr.marker).dirname
    for entry in source.readdir():
        ctx.symlink(entry, entry.basename)

_directory_of = repository_rule(
    implementation = _directory_of_impl,
    attrs = {"marker": attr.label(allow_single_file = True)},
    doc = "A repository whose files are those of the directory holding `marker` (a file of @gasket).",
)

def gasket_offline_bazel_stubs():
    """rules_cc, rules_java, remote_coverage_tools: the stand-ins of third_party/bazel_stubs, for
    Debian's bazel-bootstrap 4.2.3, which otherwise downloads them (see their README)."""
    for name in ["rules_cc", "rules_java", "remote_coverage_tools"]:
        if not native.existing_rule(name):
            _directory_of(
                name = name,
                marker = Label("//third_party/bazel_stubs/%s:WORKSPACE" % name),
            )
