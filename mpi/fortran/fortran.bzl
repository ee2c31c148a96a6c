"""Fortran programs in Bazel (which has no Fortran rules): gfortran compiles the source in a
genrule against the generated module files and mpif.h; a cc_binary links the object with the
MPI library, the Fortran bindings and libgfortran."""

GFORTRAN_FLAGS = "-O2 -Wno-c-binding-type -fno-range-check"

_HEADERS = "//mpi/fortran:fortran_headers"

def fortran_object(name, src, testonly = False, fflags = "", hdrs = []):
    """`name`.o: `src` compiled with gfortran, mpif.h and the modules on the include path (hdrs:
    files a .F90 source #includes, beside it)."""
    native.genrule(
        name = name + "_compile",
        srcs = [src, _HEADERS] + hdrs,
        outs = [name + ".o"],
        testonly = testonly,
        cmd = "inc=$$(dirname $$(echo $(locations %s) | tr ' ' '\\n' | grep mpi.mod)); " % _HEADERS +
              "d=$$(mktemp -d); gfortran %s %s -I$$inc -J$$d -c $(location %s) -o $@; rc=$$?; rm -rf $$d; exit $$rc" % (GFORTRAN_FLAGS, fflags, src),
    )
    return name + ".o"

def fortran_binary(name, src, c_srcs = [], testonly = False, deps = [], fflags = "", visibility = None, hdrs = []):
    """An MPI program written in Fortran (plus optional C sources linked with it). fflags: more
    gfortran options (mpif.h programs passing buffers of several types to one routine need
    -fallow-argument-mismatch since gfortran 10)."""
    obj = fortran_object(name + "_f", src, testonly = testonly, fflags = fflags, hdrs = hdrs)
    native.cc_binary(
        name = name,
        srcs = [obj] + c_srcs,
        testonly = testonly,
        deps = ["//mpi", "//mpi/fortran:bindings"] + deps,
        linkopts = ["-lgfortran", "-lm"],
        visibility = visibility,
    )
