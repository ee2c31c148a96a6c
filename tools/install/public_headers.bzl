"""public_headers: the public headers of C/C++ libraries, as files to install.

Taken from each library's CcInfo, so a header added to a library's hdrs (e.g. mpi_proto.h next to
mpi.h) is installed without touching the installer. With transitive = True: every header of this
repository the libraries compile with (a C++ API's header and what it includes, by path).
"""

def _public_headers_impl(ctx):
    headers = []
    for dep in ctx.attr.deps:
        context = dep[CcInfo].compilation_context
        if ctx.attr.transitive:
            candidates = [h for h in context.headers.to_list() if not h.owner.workspace_name]
        else:
            candidates = context.direct_public_headers

        # strip_include_prefix adds a symlink under _virtual_includes: the source file is enough.
        headers += [h for h in candidates if "/_virtual_includes/" not in h.path]
    return [DefaultInfo(files = depset(headers), runfiles = ctx.runfiles(files = headers))]

public_headers = rule(
    implementation = _public_headers_impl,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo]),
        "transitive": attr.bool(default = False),
    },
    doc = "The public headers of `deps` (with transitive: all of this repository's they use).",
)
