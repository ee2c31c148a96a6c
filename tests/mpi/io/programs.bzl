"""The MPI-IO test programs: run here, and built against the standard ABI's mpi.h by tests/abi."""

IO_PROGRAMS = [
    "io_files",
    "io_views",
    "io_atomic",
    "io_routines",
    "io_close_then_self_open",
    "io_nonblocking_coll",
    "io_external32",
    "io_external32_views",
    "io_contiguous_coll",
    "io_collective_outcomes",
    "io_cb_choice",
    "io_write_behind",
    "io_collective_read",
]
