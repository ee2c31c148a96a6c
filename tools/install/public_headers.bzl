"""public_headers: the public headers (hdrs) of C/C++ libraries, as files to install.

Taken from each library's CcInfo, so a header added to a library's hdrs (e.g. mpi_proto.h next to
mpi.h) is installed without touching the installer.
"""

def _public_headers_impl(ctx):
    headers = []
    for dep in ctx.attr.deps:
        # strip_include_prefix adds a symlink under _virtual_includes: the source file is enough.
        headers += [
            h
            for h in dep[CcInfo].compilation_context.direct_public_headers
            if "/_virtual_includes/" not in h.path
        ]
    return [DefaultInfo(files = depset(headers), runfiles = ctx.runfiles(files = headers))]

public_headers = rule(
    implementation = _public_headers_impl,
    attrs = {"deps": attr.label_list(providers = [CcInfo])},
    doc = "The direct public headers of `deps` (not their dependencies' headers).",
)
