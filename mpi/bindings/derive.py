#!/usr/bin/env python3
"""derive: the MPI Forum's list of procedures (standard/mpi-4.1-apis.json) -> procedures.tsv.

Keeps every procedure a C program can call (c_expressible, not a callback type, not a predefined
callback like MPI_COMM_DUP_FN) and writes its C signature in one line:

    name <TAB> return type <TAB> parameters separated by '; '

A type written {small|large} differs between the int form and the large-count _c form
(MPI_Count / MPI_Aint); a procedure has a _c form exactly when one of its parameters has such a
type. {|large} marks a parameter that only the _c form has (MPI_Type_get_contents_c).

Usage: derive.py standard.json > procedures.tsv
"""
import json
import sys

# Semantic kind -> C type of the int form. Kinds absent here are decided in c_base_type().
KIND_TYPE = {
    "ACCESS_MODE": "int", "ALLOC_MEM_NUM_BYTES": "MPI_Aint", "ARGUMENT_COUNT": "int",
    "ARRAY_LENGTH": "int", "ARRAY_LENGTH_NNI": "int", "ARRAY_LENGTH_PI": "int", "ASSERT": "int",
    "BIND_TYPE": "int", "CALLBACK_SAFETY": "MPI_T_cb_safety", "CAT_INDEX": "int", "COLOR": "int",
    "COMBINER": "int", "COMMUNICATOR": "MPI_Comm", "COMM_COMPARISON": "int", "COMM_SIZE": "int",
    "COMM_SIZE_PI": "int", "COORDINATE": "int", "CVAR": "MPI_T_cvar_handle", "CVAR_INDEX": "int",
    "CVAR_INDEX_SPECIAL": "int", "DATATYPE": "MPI_Datatype", "DEGREE": "int", "DIMENSION": "int",
    "DISPLACEMENT": "MPI_Aint", "DISPLACEMENT_NNI": "MPI_Aint", "DISTRIB_ENUM": "int",
    "DTYPE_DISTRIBUTION": "int", "ERRHANDLER": "MPI_Errhandler", "ERROR_CLASS": "int",
    "ERROR_CODE": "int", "ERROR_CODE_SHOW_INTENT": "int",
    "EVENT_CB_FUNCTION": "MPI_T_event_cb_function *",
    "EVENT_DROP_CB_FUNCTION": "MPI_T_event_dropped_cb_function *",
    "EVENT_FREE_CB_FUNCTION": "MPI_T_event_free_cb_function *", "EVENT_INDEX": "int",
    "EVENT_INSTANCE": "MPI_T_event_instance", "EVENT_REGISTRATION": "MPI_T_event_registration",
    "F08_STATUS": "MPI_F08_status", "F90_STATUS": "MPI_Fint", "FILE": "MPI_File",
    "FILE_DESCRIPTOR": "int", "GENERIC_DTYPE_INT": "int", "GROUP": "MPI_Group",
    "GROUP_COMPARISON": "int", "INDEX": "int", "INFO": "MPI_Info", "INFO_VALUE_LENGTH": "int",
    "KEY": "int", "KEYVAL": "int", "KEY_INDEX": "int", "LOCATION_SMALL": "MPI_Aint",
    "LOCK_TYPE": "int", "LOGICAL": "int", "LOGICAL_OPTIONAL": "int", "MATH": "int",
    "MESSAGE": "MPI_Message", "NUM_BYTES": "MPI_Count", "NUM_BYTES_SMALL": "int",
    "NUM_DIMS": "int", "OFFSET": "MPI_Offset", "OPERATION": "MPI_Op", "ORDER": "int",
    "PARTITION": "int", "PROCESS_GRID_SIZE": "int", "PROFILE_LEVEL": "int",
    "PVAR": "MPI_T_pvar_handle", "PVAR_CLASS": "int", "PVAR_INDEX": "int",
    "PVAR_SESSION": "MPI_T_pvar_session", "RANK": "int", "RANK_NNI": "int", "REQUEST": "MPI_Request",
    "RMA_DISPLACEMENT_NNI": "MPI_Aint", "SESSION": "MPI_Session", "SOURCE_INDEX": "int",
    "SOURCE_ORDERING": "MPI_T_source_order", "SPLIT_TYPE": "int", "STATUS": "MPI_Status",
    "STRING_LENGTH": "int", "TAG": "int", "THREAD_LEVEL": "int", "TOOLENUM_INDEX": "int",
    "TOOLENUM_SIZE": "int", "TOOLS_ENUM": "MPI_T_enum", "TOOLS_NUM_ELEM_SMALL": "int",
    "TOOLS_TICK_COUNT": "MPI_Count", "TOOL_VAR_VALUE": "int", "TOOL_VAR_VERBOSITY": "int",
    "TOPOLOGY_TYPE": "int", "TYPECLASS": "int", "TYPECLASS_SIZE": "int", "UPDATE_MODE": "int",
    "UPDATE_NUMBER": "int", "VARIABLE_SCOPE": "int", "VERSION": "int", "WEIGHT": "int",
    "WINDOW": "MPI_Win", "WINDOW_SIZE": "MPI_Aint", "WIN_ATTACH_SIZE": "MPI_Aint",
    "XFER_NUM_ELEM": "MPI_Count", "XFER_NUM_ELEM_NNI": "MPI_Count", "XFER_NUM_ELEM_SMALL": "int",
    "GENERIC_DTYPE_COUNT": "MPI_Count",
    # Handles converted to and from Fortran integers (MPI_Comm_f2c ...).
    "F90_COMM": "MPI_Fint", "F90_DATATYPE": "MPI_Fint", "F90_ERRHANDLER": "MPI_Fint",
    "F90_FILE": "MPI_Fint", "F90_GROUP": "MPI_Fint", "F90_INFO": "MPI_Fint",
    "F90_MESSAGE": "MPI_Fint", "F90_OP": "MPI_Fint", "F90_REQUEST": "MPI_Fint",
    "F90_SESSION": "MPI_Fint", "F90_WIN": "MPI_Fint",
    # Return kinds of the few procedures that do not return an error code.
    "WALL_TIME": "double", "TICK_RESOLUTION": "double", "NOTHING": "void",
}

# Kinds whose type differs in the large-count (_c) form: (int form, _c form).
POLY_KIND_TYPES = {
    "POLYXFER_NUM_ELEM": ("int", "MPI_Count"), "POLYXFER_NUM_ELEM_NNI": ("int", "MPI_Count"),
    "POLYDTYPE_NUM_ELEM": ("int", "MPI_Count"), "POLYDTYPE_NUM_ELEM_NNI": ("int", "MPI_Count"),
    "POLYDTYPE_NUM_ELEM_PI": ("int", "MPI_Count"), "POLYNUM_PARAM_VALUES": ("int", "MPI_Count"),
    "POLYNUM_BYTES": ("int", "MPI_Count"), "POLYNUM_BYTES_NNI": ("int", "MPI_Count"),
    "POLYDISPLACEMENT_COUNT": ("int", "MPI_Count"), "POLYDISPLACEMENT": ("int", "MPI_Aint"),
    "POLYRMA_DISPLACEMENT": ("int", "MPI_Aint"),
    "POLYDISPLACEMENT_AINT_COUNT": ("MPI_Aint", "MPI_Count"),
    "POLYDTYPE_PACK_SIZE": ("MPI_Aint", "MPI_Count"), "POLYLOCATION": ("MPI_Aint", "MPI_Count"),
    "POLYDISPOFFSET": ("MPI_Aint", "MPI_Count"), "POLYDTYPE_STRIDE_BYTES": ("MPI_Aint", "MPI_Count"),
}

# Kinds passed as void * whatever their direction (buffers, attribute values, user data).
VOID_POINTER_KINDS = {"BUFFER", "C_BUFFER", "C_BUFFER2", "C_BUFFER3", "C_BUFFER4", "EXTRA_STATE",
                      "EXTRA_STATE2", "ATTRIBUTE_VAL", "ATTRIBUTE_VAL_10", "TOOL_MPI_OBJ"}
# Kinds that are C pointers already (void *, char *): never given another '*' for direction.
POINTER_KINDS = VOID_POINTER_KINDS | {"STRING"}

# Kinds passed by address even when only read (const MPI_Status *status).
BY_ADDRESS_KINDS = {"STATUS", "F08_STATUS", "F90_STATUS"}


def is_const(p):
    return p["constant"] in (True, "true")


def c_base_type(p):
    """The C type of one parameter, or (int form, _c form) for a large-count parameter."""
    kind = p["kind"]
    if kind in POLY_KIND_TYPES:
        return POLY_KIND_TYPES[kind]
    if kind == "POLYFUNCTION":
        return (p["func_type"] + " *", p["func_type"] + "_c *")
    if kind == "FUNCTION":
        return p["func_type"] + " *"
    if kind in VOID_POINTER_KINDS:
        return "const void *" if is_const(p) else "void *"
    if kind == "STRING":
        return "const char *" if p["param_direction"] == "in" else "char *"
    if kind == "STRING_ARRAY":  # argv of MPI_Comm_spawn: char *argv[]
        return "char *"
    if kind == "STRING_2DARRAY":  # char **array_of_argv[]
        return "char **"
    if kind == "ARGUMENT_LIST":  # char ***argv (MPI_Init) or char *argv[] (MPI_Info_create_env)
        return "char *" if p["pointer"] is False else "char ***"
    return KIND_TYPE[kind]


def render(ctype, name):
    return ctype + name if ctype.endswith("*") else ctype + " " + name


def is_array(p):
    kind = p["kind"]
    if kind == "STRING":  # char name[] is written char *name
        return False
    if kind == "ARGUMENT_LIST":
        return p["pointer"] is False
    return kind == "STRING_ARRAY" or p["length"] is not None


def declaration(p):
    """'type name' of one parameter, types possibly written {int form|_c form}."""
    kind, name = p["kind"], p["name"]
    if kind == "VARARGS":
        return "..."
    base = c_base_type(p)
    small, large = base if isinstance(base, tuple) else (base, base)
    if p["large_only"]:
        small = ""
    ctype = small if small == large else "{%s|%s}" % (small, large)
    if is_array(p):
        extents = p["length"][1:] if isinstance(p["length"], list) else []
        const = "const " if is_const(p) and kind not in POINTER_KINDS else ""
        return render(const + ctype, name + "[]" + "".join("[%s]" % n for n in extents))
    already_pointer = kind in POINTER_KINDS or kind == "ARGUMENT_LIST" or "FUNCTION" in kind
    by_address = not already_pointer and (
        p["pointer"] is True or kind in BY_ADDRESS_KINDS or
        (p["pointer"] is not False and p["param_direction"] in ("out", "inout")))
    if not by_address:
        return render(ctype, name)
    return render(("const " if is_const(p) else "") + ctype + " *", name)


def wanted(proc):
    a = proc["attributes"]
    return a["c_expressible"] and not a["callback"] and not a["predefined_function"]


def derive(standard):
    lines = []
    for proc in sorted(standard.values(), key=lambda p: p["name"]):
        if not wanted(proc):
            continue
        params = [declaration(p) for p in proc["parameters"] if "c_parameter" not in p["suppress"]]
        ret = KIND_TYPE[proc["return_kind"]] if proc["return_kind"] != "ERROR_CODE" else "int"
        lines.append("%s\t%s\t%s" % (proc["name"], ret, "; ".join(params) if params else "void"))
    return lines


HEADER = """# The C procedures of MPI 4.1: one line each, derived from the MPI Forum's list by derive.py
# (do not edit: run `python3 mpi/bindings/derive.py mpi/bindings/standard/mpi-4.1-apis.json`).
# name<TAB>return type<TAB>parameters separated by '; '. {int form|_c form}: a large-count type;
# {|_c form}: a parameter only the _c form has. A line with such a type has a _c procedure.
"""


def main():
    with open(sys.argv[1]) as f:
        standard = json.load(f)
    sys.stdout.write(HEADER + "\n".join(derive(standard)) + "\n")


if __name__ == "__main__":
    main()
