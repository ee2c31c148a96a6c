"""The tests/mpi programs run alike on every path: run here, and built against the standard ABI's
mpi.h by tests/abi."""

PROGRAMS = [
    "p2p_basic",
    "send_modes",
    "requests",
    "probe",
    "errors",
    "threads",
    "comms",
    "datatypes",
    "unexpected",
    "coll",
    "coll_inter",
    "topo",
    "neighbor",
    # one-sided windows: every operation x synchronisation mode x window kind (win); exact
    # concurrent accumulates and atomics, lock fairness, error classes (win_atomic)
    "win",
    "win_atomic",
    # handles: ownership of MPI_Type_get_contents' handles, values
    "type_get_contents_ownership",
    "predefined_handle_values",
    # every kind of user callback calling back into MPI, at the default MULTIPLE
    "callbacks",
    # procedures by chapter (handle and status conversion; error classes, codes and
    # strings added by users, MPI_Type_match_size; communicator info hints, MPI_Info_get_string;
    # MPI_Isendrecv(_replace) and MPI_Status_set_elements_x; the deprecated MPI_Attr_*/MPI_Keyval_*)
    "conversion",
    "error_classes",
    "comm_info",
    "isendrecv",
    "deprecated_attributes",
    # the core's waiting policy: every same-node write a napping waiter may wait for rings it
    "naps_woken",
]
