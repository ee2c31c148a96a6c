#!/usr/bin/env python3
"""derive: the MPI 5.0 procedures -> procedures.tsv.

The procedure list is the MPI 5.0 standard ABI header (standard/mpi-5.0-abi-mpi.h: every C
procedure of MPI 5.0), plus the C procedures of the Forum's list (standard/mpi-4.1-apis.json) that
the ABI leaves to the Fortran layer (MPI_x_c2f / MPI_x_f2c, the status conversions): gasket's
native mpi.h declares them. A procedure's signature comes from the Forum's list where it has it
(the parameters' semantic kinds decide the C types and the large-count forms); from the header
otherwise (MPI 4.1 and 5.0 additions: the int and _c declarations side by side give the
large-count types). Where both have a procedure and the header's C types differ from the
Forum's (MPI_Psend_init's count: int in the standard, MPI_Count in the Forum's list), the header
wins. Each line:

    name <TAB> return type <TAB> parameters separated by '; '

A type written {small|large} differs between the int form and the large-count _c form
(MPI_Count / MPI_Aint); a procedure has a _c form exactly when one of its parameters has such a
type. {|large} marks a parameter that only the _c form has (MPI_Type_get_contents_c).

Usage: derive.py standard.json abi-header.h > procedures.tsv
"""
import json
import re
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


ABI_DECLARATION = re.compile(r"^([A-Za-z_][A-Za-z_0-9 ]*?)\s+(MPI_[A-Za-z0-9_]+)\((.*)\);", re.M)


def abi_procedures(header_text):
    """name -> (return type, [parameter declarations]) of every MPI_ procedure of the ABI header
    (its PMPI_ declarations repeat them)."""
    procs = {}
    for m in ABI_DECLARATION.finditer(header_text):
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3)
        params = [] if params.strip() == "void" else [p.strip() for p in params.split(",")]
        procs[name] = (ret, params)
    return procs


PARAMETER = re.compile(r"^(const )?([A-Za-z_][A-Za-z_0-9]*)(.*)$")


def paired(small, large):
    """One parameter of the int form and of the _c form -> the table's declaration."""
    s, l = PARAMETER.match(small), PARAMETER.match(large)
    if small == large:
        return small
    if s.group(1) != l.group(1) or s.group(3) != l.group(3):
        raise SystemExit("derive: %s and %s differ by more than their type" % (small, large))
    return "%s{%s|%s}%s" % (s.group(1) or "", s.group(2), l.group(2), s.group(3))


def from_header(name, abi):
    """The table line of a procedure the Forum's list lacks, from the ABI header's declarations."""
    ret, params = abi[name]
    if name + "_c" in abi:
        _, large = abi[name + "_c"]
        if len(large) != len(params):
            raise SystemExit("derive: %s and %s_c differ in their parameters" % (name, name))
        params = [paired(s, l) for s, l in zip(params, large)]
    return ret, params


def type_words(declaration):
    """The type names of a C parameter declaration (not its name, not const): 'int *count' -> ['int']."""
    words = [w for w in re.findall(r"[A-Za-z_][A-Za-z_0-9]*", declaration) if w != "const"]
    return words[:-1] if len(words) > 1 else words


def same_types(line, abi):
    """Whether every form of a table line has the C types the ABI header declares."""
    name, _, params = line.split("\t")
    params = [] if params == "void" else params.split("; ")
    small = [TYPE_CHOICE.sub(r"\1", p) for p in params if not p.startswith("{|")]
    large = [TYPE_CHOICE.sub(r"\2", p) for p in params]
    if (name + "_c" in abi) != (large != small):
        return False  # one has a large-count form, the other not (MPI_Status_set_elements_c)
    for form, decls in ((name, small), (name + "_c", large if large != small else None)):
        if decls is None:
            continue
        if form not in abi or [type_words(d) for d in decls] != [type_words(d) for d in abi[form][1]]:
            return False
    return True


TYPE_CHOICE = re.compile(r"\{([^|}]*)\|([^}]*)\}")


def derive(standard, abi):
    forum = {p["name"]: p for p in standard.values() if wanted(p)}
    names = {n for n in abi if not n.endswith("_c") or n[:-2] not in abi} | set(forum)
    lines = []
    for name in sorted(names):
        line = None
        if name in forum:
            proc = forum[name]
            params = [declaration(p) for p in proc["parameters"] if "c_parameter" not in p["suppress"]]
            ret = KIND_TYPE[proc["return_kind"]] if proc["return_kind"] != "ERROR_CODE" else "int"
            line = "%s\t%s\t%s" % (name, ret, "; ".join(params) if params else "void")
        # The header's C types win where the Forum's list says otherwise (MPI_Psend_init's count is
        # int, with an MPI_Count _c form) or has no entry.
        if name in abi and (line is None or not same_types(line, abi)):
            ret, params = from_header(name, abi)
            line = "%s\t%s\t%s" % (name, ret, "; ".join(params) if params else "void")
        lines.append(line)
    return lines


HEADER = """# The C procedures of MPI 5.0: one line each, derived by derive.py from the standard ABI header
# (the list) and the MPI Forum's list (signatures where it has them) (do not edit: run
# mpi/bindings/update.sh). name<TAB>return type<TAB>parameters separated by '; '.
# {int form|_c form}: a large-count type; {|_c form}: a parameter only the _c form has. A line
# with such a type has a _c procedure.
"""


def main():
    with open(sys.argv[1]) as f:
        standard = json.load(f)
    with open(sys.argv[2]) as f:
        abi = abi_procedures(f.read())
    sys.stdout.write(HEADER + "\n".join(derive(standard, abi)) + "\n")


if __name__ == "__main__":
    main()
