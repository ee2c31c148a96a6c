#!/usr/bin/env python3
"""generate: gasket's Fortran bindings from the declaration the C bindings come from.

Inputs: the MPI Forum's list (mpi/bindings/standard/mpi-4.1-apis.json), mpi/bindings/missing.txt
(what the C library does not provide yet: left out here too, so the Fortran set follows it) and,
for the constants, the `name value` lines printed by the program `constants` writes (compiled
against mpi.h at build time, so no number is copied by hand).

Modes (output on stdout); TABLE is mpi/bindings/procedures.tsv (with_table):
  wrappers JSON TABLE MISSING        C: mpi_x_/pmpi_x_ (mpif.h and `use mpi`; all arguments by
                                     reference, hidden CHARACTER lengths), calling MPI_x / PMPI_x,
                                     and mpi_f08's mpi_x_f08ts_ / mpi_x_f08_ (choice buffers and
                                     strings as TS 29113 descriptors; the others alias mpi_x_)
  constants MPI_H                    C: a program printing every integer constant of mpi.h
  mpif JSON TABLE MISSING VALUES     mpif.h
  module JSON TABLE MISSING VALUES   the `mpi` module (explicit interfaces)
  f08 JSON TABLE MISSING VALUES      the `mpi_f08` module
  skipped JSON TABLE MISSING         the procedures without a Fortran binding, and why
  symbols JSON TABLE MISSING         the C symbols the bindings define (coverage_test)
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
import derive  # noqa: E402  (the C bindings' kind -> C type table)

# Procedures whose Fortran wrapper is written by hand in support.c (callbacks with another calling
# convention, predefined attributes read back as values, MPI_Init without argc/argv).
HAND_WRITTEN = {
    "MPI_Init", "MPI_Init_thread", "MPI_Comm_create_keyval", "MPI_Win_create_keyval",
    "MPI_Type_create_keyval", "MPI_Comm_get_attr", "MPI_Win_get_attr", "MPI_Type_get_attr",
    "MPI_Pcontrol", "MPI_Keyval_create", "MPI_Attr_get", "MPI_Attr_put", "MPI_Grequest_start",
    "MPI_Register_datarep", "MPI_Info_create_env",
}

HANDLE_KINDS = {
    "COMMUNICATOR": "MPI_Comm", "DATATYPE": "MPI_Datatype", "ERRHANDLER": "MPI_Errhandler",
    "FILE": "MPI_File", "GROUP": "MPI_Group", "INFO": "MPI_Info", "MESSAGE": "MPI_Message",
    "OPERATION": "MPI_Op", "REQUEST": "MPI_Request", "SESSION": "MPI_Session", "WINDOW": "MPI_Win",
}
BUFFER_KINDS = {"BUFFER"}
# Fortran's integer kind of each C integer type.
INTEGER_KIND = {"int": "", "MPI_Aint": "MPI_ADDRESS_KIND", "MPI_Offset": "MPI_OFFSET_KIND",
                "MPI_Count": "MPI_COUNT_KIND", "MPI_Fint": ""}
# Abstract interface of each callback type in mpi_f08 (written in f08_header()).
CALLBACK_TYPES = {"MPI_User_function", "MPI_Comm_errhandler_function", "MPI_Win_errhandler_function",
                  "MPI_File_errhandler_function", "MPI_Session_errhandler_function",
                  "MPI_Comm_copy_attr_function", "MPI_Comm_delete_attr_function",
                  "MPI_Win_copy_attr_function", "MPI_Win_delete_attr_function",
                  "MPI_Type_copy_attr_function", "MPI_Type_delete_attr_function",
                  "MPI_Copy_function", "MPI_Delete_function", "MPI_Grequest_query_function",
                  "MPI_Grequest_free_function", "MPI_Grequest_cancel_function",
                  "MPI_Datarep_conversion_function", "MPI_Datarep_extent_function"}


def load(json_path, table_path, missing_path):
    with open(json_path) as f:
        standard = json.load(f)
    with open(table_path) as f:
        table = [l.rstrip("\n").split("\t") for l in f if l.strip() and not l.startswith("#")]
    with open(missing_path) as f:
        missing = {l.strip() for l in f if l.strip() and not l.startswith("#")}
    return with_table(standard, table), missing


# Procedures of MPI 4.1/5.0 that C has and Fortran does not (MPI 5.0 chapter 20): the handle <->
# int conversions (a Fortran handle is that int; MPI_x_c2f is their Fortran-facing form) and the
# calls with which a Fortran layer describes itself to a C library.
NO_FORTRAN_BINDING = re.compile(r"^MPI_\w+_(toint|fromint)$|^MPI_Abi_set_fortran_info$|^MPI_Abi_(get|set)_fortran_booleans$")
FALLBACK_PARAMETER = {"kind": None, "param_direction": "in", "length": None, "pointer": None, "suppress": "",
                      "large_only": False, "asynchronous": False, "constant": False, "func_type": "",
                      "optional": False, "root_only": False}
# Kinds of the parameters of the additions that are neither handles nor named as a parameter of the list.
NEW_PARAMETER_KINDS = {"abi_major": "VERSION", "abi_minor": "VERSION", "indx": "INDEX", "error": "ERROR_CODE"}
TYPE_CHOICE = re.compile(r"\{([^|}]*)\|([^}]*)\}")


def with_table(standard, table):
    """The Forum's list completed from mpi/bindings/procedures.tsv (the MPI 5.0 ABI header's
    procedures): a procedure the list lacks gets a record like the list's, each parameter the
    list's record of a parameter with the same name and C declaration (its kind, direction,
    length), taken from the procedure whose name shares the longest prefix with this one
    (MPI_Status_set_source's status is MPI_Status_set_elements's, inout; MPI_Request_get_status_any's
    is MPI_Request_get_status's, out); a parameter no procedure of the list has gets its handle
    kind from its C type, or the kind of a parameter of that name, its direction from the pointer.
    And where the table gives a parameter of a listed procedure an int/MPI_Count pair the list does
    not (MPI_Psend_init's count, MPI_Status_set_elements's), the parameter takes the list's kind of
    that pair, so the procedure gets its large-count form."""
    forum = {p["name"]: p for p in standard.values() if derive.wanted(p)}
    by_declaration, by_name = {}, {}
    for proc in forum.values():
        for p in proc["parameters"]:
            if "c_parameter" in p["suppress"] or p["kind"] == "VARARGS":
                continue
            by_declaration.setdefault((p["name"], derive.declaration(p)), []).append((proc["name"], p))
            by_name.setdefault(p["name"], []).append((proc["name"], p))
    handle_kind = {t: k for k, t in HANDLE_KINDS.items()}
    out = dict(standard)
    for name, ret, params in table:
        decls = [] if params == "void" else params.split("; ")
        if name in forum:
            proc = forum[name]
            for p in proc["parameters"]:
                d = next((d for d in decls if re.search(r"\b%s\b(\[\])?$" % p["name"], d)), None)
                if d and TYPE_CHOICE.search(d) and not isinstance(derive.c_base_type(p), tuple):
                    p["kind"] = "POLYXFER_NUM_ELEM"
            continue
        if NO_FORTRAN_BINDING.match(name) or ret != "int":
            continue
        record = {"name": name, "name_f90": None, "return_kind": "ERROR_CODE", "parameters": [],
                  "attributes": {"c_expressible": True, "callback": False, "deprecated": False,
                                 "f90_expressible": True, "f08_expressible": True, "not_with_mpif": False,
                                 "predefined_function": None}}
        names = [re.sub(r"\W", "", d.split()[-1].replace("[]", "")) for d in decls]
        for d, n in zip(decls, names):
            def best(candidates):
                fits = [(len(os.path.commonprefix([name, owner])), p) for owner, p in candidates
                        if not isinstance(p["length"], str) or p["length"] in names]
                return dict(max(fits, key=lambda s: s[0])[1]) if fits else None
            p = best(by_declaration.get((n, d), []))
            if p is None:
                ctype = TYPE_CHOICE.sub(r"\1", d).replace("const ", "").split()[0]
                p = best(by_name.get(n, [])) or dict(FALLBACK_PARAMETER, name=n)
                if ctype in handle_kind:
                    p["kind"] = handle_kind[ctype]
                elif n in NEW_PARAMETER_KINDS:
                    p["kind"] = NEW_PARAMETER_KINDS[n]
                elif n in by_name:
                    p["kind"] = by_name[n][0][1]["kind"]
                else:
                    raise SystemExit("generate: no kind for %s of %s" % (d, name))
                p["param_direction"] = "out" if "const" not in d and ("*" in d or "[]" in d) else "in"
                if ("[]" in d or n.startswith("array_of_")) and p["length"] is None:
                    p["length"] = next(c for c in ("count", "incount") if c in names)
            record["parameters"].append(p)
        record["parameters"].append({"name": "ierror", "kind": "ERROR_CODE", "param_direction": "out",
                                     "suppress": "c_parameter lis_parameter", "length": None,
                                     "large_only": False, "pointer": None, "optional": True,
                                     "asynchronous": False, "constant": False, "func_type": ""})
        out[name.lower()] = record
    return out


def params_of(proc):
    return [p for p in proc["parameters"] if not is_ierror(p) and "f90_parameter" not in p["suppress"]]


def is_ierror(p):
    return p["kind"] == "ERROR_CODE" and "c_parameter" in p["suppress"]


def has_large(proc):
    return any(isinstance(derive.c_base_type(p), tuple) for p in proc["parameters"]
               if p["kind"] not in ("VARARGS",) and "c_parameter" not in p["suppress"]) or \
        any(p["large_only"] for p in proc["parameters"])


def unsupported_kind(proc):
    if proc["name"] in HAND_WRITTEN:
        return None
    for p in proc["parameters"]:
        if p["kind"] in ("VARARGS", "ATTRIBUTE_VAL_10", "EXTRA_STATE2"):
            return p["kind"]
        if p["kind"] in ("FUNCTION", "POLYFUNCTION") and p["func_type"] not in CALLBACK_TYPES:
            return p["func_type"]
    return None


def procedures(standard, missing):
    """(proc, large) for every binding to generate: large False = the int form, True = the _c form."""
    out, skipped = [], []
    for proc in sorted(standard.values(), key=lambda p: p["name"]):
        a = proc["attributes"]
        name = proc["name"]
        if not derive.wanted(proc) or not (a["f90_expressible"] or a["f08_expressible"]):
            continue
        if name in missing:
            skipped.append((name, "not provided by the C library yet (mpi/bindings/missing.txt)"))
            continue
        why = unsupported_kind(proc)
        if why:
            skipped.append((name, "parameter kind %s is not converted" % why))
            continue
        out.append((proc, False))
        if has_large(proc):
            if name + "_c" in missing:
                skipped.append((name + "_c", "not provided by the C library yet (mpi/bindings/missing.txt)"))
            else:
                out.append((proc, True))
    return out, skipped


def ctype(p, large):
    base = derive.c_base_type(p)
    if isinstance(base, tuple):
        return base[1] if large else base[0]
    return base


def present(p, large):
    return large or not p["large_only"]


def has_choice(proc):
    return any(p["kind"] in BUFFER_KINDS for p in proc["parameters"])


def symbol(proc, large, profiling, f08=False):
    """The linker name: mpi_x_ (mpif.h, `use mpi`: gfortran's mangling of MPI_x), and mpi_f08's
    specific procedures as MPI 4.1 section 19.1.5 names them, MPI_x_f08ts (choice buffers through
    TS 29113 descriptors) or MPI_x_f08, mangled the same way; PMPI_ names alike."""
    full = ("p" if profiling else "") + (proc["name"] + ("_c" if large else "")).lower()
    if f08:
        return full + ("_f08ts_" if has_choice(proc) else "_f08_")
    return full + "_"


# ---------------------------------------------------------------- C wrappers (layer 1 and 2)

def is_string(p):
    return p["kind"] == "STRING"


def is_character(p):
    """A CHARACTER dummy: a string, or an array of them (MPI_Comm_spawn(_multiple)'s commands and argv)."""
    return p["kind"] in ("STRING", "STRING_ARRAY", "STRING_2DARRAY")


# Arrays of strings -> C: (C type, helper making it from the Fortran array, its length and count).
# argv is ended by a blank string (MPI_ARGV_NULL -> NULL); the commands are `count` strings; the
# argvs are a (count, *) array whose row i is command i's argv (MPI_ARGVS_NULL -> NULL). They
# matter at the root only (MPI_Comm_spawn(_multiple)): elsewhere they are not read.
STRING_ARRAYS = {
    "argv": ("char**", "gasket_f_argv(%s, %s_len, *comm, *root)"),
    "array_of_commands": ("char**", "gasket_f_strings(%s, %s_len, *count, *comm, *root)"),
    "array_of_argv": ("char***", "gasket_f_argvs(%s, %s_len, *count, *comm, *root)"),
}


def is_position(proc, p):
    """An output the Forum marks INDEX in a procedure taking an array of handles: a position in that
    array (MPI_Waitany's index, MPI_Testsome's array_of_indices), 1-based in Fortran. The other
    INDEX parameters are numbers of the same value in both languages: MPI_Cart_shift's direction
    (dimensions numbered from 0), MPI_Graph_create/get's index (cumulative degrees)."""
    return p["kind"] == "INDEX" and p["param_direction"] == "out" and any(
        q["kind"] in HANDLE_KINDS and derive.is_array(q) for q in proc["parameters"])


def position_count(proc, p):
    """How many of an array of positions C wrote: the procedure's output count (outcount)."""
    if not derive.is_array(p):
        return None
    return next(q["name"] for q in proc["parameters"]
                if q["kind"] == "ARRAY_LENGTH" and q["param_direction"] == "out")


def is_terminated_length(p):
    """The length of a string output that the caller gives and the call sets (MPI_Info_get_string's
    buflen, MPI_Session_get_nth_pset's pset_len): in C it counts the terminating null, in Fortran
    the characters only (the standard's Fortran string rules)."""
    return p["kind"] in ("INFO_VALUE_LENGTH", "STRING_LENGTH") and p["param_direction"] == "inout"


def string_written(proc):
    """When an output string is copied back (blank-padded): the call succeeded, its flag (if any)
    says the value exists, and a caller-given length (if any) was not 0 -- otherwise the standard
    leaves the Fortran variable unchanged (MPI_Info_get, MPI_Info_get_string)."""
    conditions = ["e == MPI_SUCCESS"]
    for p in proc["parameters"]:
        if p["kind"] == "LOGICAL" and p["param_direction"] == "out":
            conditions.append("*" + p["name"])
        if is_terminated_length(p):
            conditions.append("in_%s > 0" % p["name"])
    return " && ".join(conditions)


def c_wrapper(proc, large, profiling):
    """mpi_x_ (or pmpi_x_): every argument by reference as Fortran passes it."""
    name = proc["name"]
    target = ("PMPI_" if profiling else "MPI_") + name[4:] + ("_c" if large else "")
    args, pre, call, post, hidden = [], [], [], [], []
    for p in proc["parameters"]:
        if "c_parameter" in p["suppress"] or not present(p, large):
            continue
        kind, n = p["kind"], p["name"]
        t = ctype(p, large)
        array = derive.is_array(p)
        if is_position(proc, p):  # C's 0-based positions -> Fortran's 1-based, MPI_UNDEFINED kept
            args.append("MPI_Fint* " + n)
            call.append(n)
            count = position_count(proc, p)
            post.append("gasket_f_positions(e, %s, *%s);" % (n, count) if count else "gasket_f_position(%s);" % n)
        elif kind in BUFFER_KINDS:
            args.append("void* " + n)
            call.append("gasket_f_buffer(%s)" % n)
        elif kind in ("C_BUFFER", "C_BUFFER2"):  # out: the address, written as an integer
            args.append("MPI_Aint* " + n)
            call.append(n)
        elif is_string(p):
            args.append("char* " + n)
            hidden.append("size_t %s_len" % n)
            if p["param_direction"] == "in":
                strip = "gasket_f_info_string_in" if name.startswith("MPI_Info_") else "gasket_f_string_in"
                pre.append("char* c_%s = %s(%s, %s_len);" % (n, strip, n, n))
                post.append("free(c_%s);" % n)
            else:
                pre.append("char* c_%s = gasket_f_string_buffer(%s_len);" % (n, n))
                post.append("if (%s) gasket_f_string_out(%s, %s_len, c_%s);" % (string_written(proc), n, n, n))
                post.append("free(c_%s);" % n)
            call.append("c_" + n)
        elif is_terminated_length(p):  # C counts the null, Fortran does not
            args.append("int* " + n)
            pre.append("int in_%s = *%s, c_%s = in_%s > 0 ? in_%s + 1 : 0;" % (n, n, n, n, n))
            call.append("&c_" + n)
            post.append("if (e == MPI_SUCCESS) *%s = c_%s > 0 ? c_%s - 1 : 0;" % (n, n, n))
        elif is_character(p):
            ct, make = STRING_ARRAYS[n]
            args.append("char* " + n)
            hidden.append("size_t %s_len" % n)
            pre.append("%s c_%s = %s;" % (ct, n, make % (n, n)))
            post.append("free((void*)c_%s);" % n)
            call.append("c_" + n)
        elif kind == "STATUS":
            args.append("MPI_Fint* " + n)
            call.append(("gasket_f_statuses(%s)" if array else "gasket_f_status(%s)") % n)
        elif kind in ("F90_STATUS", "F08_STATUS"):
            args.append("MPI_Fint* " + n)
            call.append("(%s*)%s" % (t, n))
        elif kind == "ATTRIBUTE_VAL" and p["param_direction"] == "in":  # C gets a pointer to the value
            args.append("MPI_Aint* " + n)
            call.append("gasket_f_attribute_in(*%s)" % n)
        elif kind == "EXTRA_STATE" and p["param_direction"] == "in":
            args.append("MPI_Aint* " + n)
            call.append("(void*)*" + n)
        elif kind in ("FUNCTION", "POLYFUNCTION"):
            args.append("%s* %s" % (p["func_type"] + ("_c" if large and kind == "POLYFUNCTION" else ""), n))
            call.append(n)
        elif kind == "WEIGHT" and array:
            args.append("MPI_Fint* " + n)
            call.append("gasket_f_weights(%s)" % n)
        elif kind == "ERROR_CODE" and p["name"] != "ierror":
            args.append("MPI_Fint* " + n)
            by_value = not array and p["param_direction"] == "in"
            call.append(("gasket_f_errcodes(%s)" if array else "*%s" if by_value else "%s") % n)
        elif isinstance(p["length"], list):  # int ranges[][3]
            args.append("%s* %s" % (t, n))
            call.append("(%s (*)[%s])%s" % (t, "][".join(p["length"][1:]), n))
        else:
            by_value = not array and p["param_direction"] == "in" and p["pointer"] is not True
            args.append("%s* %s" % (t.replace("const ", ""), n))
            call.append(("*" if by_value else "") + n)
    ret = proc["return_kind"]
    if ret == "ERROR_CODE":
        args.append("MPI_Fint* ierror")
    sig = ", ".join(args + hidden) or "void"
    lines = []
    # MPI_x's wrapper is weak, as C's MPI_x is (bindings/profiling.cc): a tool linked statically
    # may define its own MPI_SEND and call PMPI_SEND.
    weak = "" if profiling else "__attribute__((weak)) "
    if ret == "ERROR_CODE":
        # mpi_f08's adapter calls the body itself (inlined: no call through the weak symbol)
        head = symbol(proc, large, profiling)
        if needs_f08_adapter(proc):
            head = body(proc, large, profiling)
            lines.append("static inline void %s(%s) {" % (head, sig))
        else:
            lines.append("%svoid %s(%s) {" % (weak, head, sig))
        lines += ["  " + s for s in pre]
        lines.append("  int e = %s(%s);" % (target, ", ".join(call)))
        lines += ["  " + s for s in post]
        lines.append("  if (ierror != NULL) *ierror = e;")
        if needs_f08_adapter(proc):
            names = [a.split()[-1].lstrip("*") for a in args + hidden]
            lines.append("}")
            lines.append("%svoid %s(%s) {" % (weak, symbol(proc, large, profiling), sig))
            lines.append("  %s(%s);" % (head, ", ".join(names)))
    else:
        rt = derive.KIND_TYPE[ret]
        lines.append("%s%s %s(%s) {" % (weak, rt, symbol(proc, large, profiling), sig))
        lines.append("  return %s(%s);" % (target, ", ".join(call)))
    lines.append("}")
    return "\n".join(lines)


def body(proc, large, profiling):
    """The static inline body of mpi_x_ (or pmpi_x_), which mpi_f08's adapter calls directly."""
    return "gasket_f_" + symbol(proc, large, profiling)


def buffer_pairs(proc, large):
    """For each choice buffer: (count parameter, datatype parameter) when the buffer alone owns a
    scalar count and a datatype (a non-contiguous section then becomes a derived type), else None."""
    params = {p["name"]: p for p in proc["parameters"] if present(p, large)}
    buffers = [p["name"] for p in proc["parameters"] if p["kind"] in BUFFER_KINDS]
    pairs = {}
    for b in buffers:
        prefix = re.sub(r"(buf|_addr)$", "", b)
        count = next((c for c in (prefix + "count", prefix + "_count", "count", "incount") if c in params), None)
        dtype = next((t for t in (prefix + "type", prefix + "_datatype", "datatype") if t in params), None)
        ok = count is not None and dtype is not None and params[count]["length"] is None and \
            params[dtype]["length"] is None and params[count]["param_direction"] == "in"
        pairs[b] = (count, dtype) if ok else None
    # A count shared by two buffers cannot become 1 for only one of them.
    used = [v[0] for v in pairs.values() if v]
    return {b: (v if v and used.count(v[0]) == 1 else None) for b, v in pairs.items()}


def has_cptr_form(proc):
    """`mpi` gives the procedures returning the address of memory the library provides
    (MPI_Alloc_mem, MPI_Win_allocate(_shared), MPI_Win_shared_query) a second specific,
    MPI_x_CPTR, whose baseptr is TYPE(C_PTR) (MPI 4.1 sections 9.2 and 12.2): the same C function
    (an address either way)."""
    return proc["attributes"]["f90_expressible"] and any(
        p["kind"] == "C_BUFFER" and p["param_direction"] == "out" for p in proc["parameters"])


def cptr_symbol(proc, profiling):
    return symbol(proc, False, profiling)[:-1] + "_cptr_"


def needs_f08_adapter(proc):
    return any(p["kind"] in BUFFER_KINDS or is_character(p) for p in proc["parameters"])


def f08_adapter(proc, large, profiling):
    """mpi_x_f08ts_ / mpi_x_f08_: mpi_f08's descriptors (buffers, strings) -> the mpi_x_ wrapper."""
    name = proc["name"]
    pairs = buffer_pairs(proc, large)
    args, pre, call, post = [], [], [], []
    hidden, direct = [], []
    for p in proc["parameters"]:
        if "c_parameter" in p["suppress"] or not present(p, large):
            continue
        n, kind = p["name"], p["kind"]
        if kind in BUFFER_KINDS:
            args.append("CFI_cdesc_t* " + n)
            call.append("s_%s.base" % n)
            direct.append("%s->base_addr" % n)
            continue
        elif is_character(p):
            args.append("CFI_cdesc_t* " + n)
            call.append("(char*)%s->base_addr" % n)
            hidden.append("%s->elem_len" % n)
        else:
            args.append("void* " + n)
            call.append(n)
        direct.append(call[-1])
    # the wrapper's body, or the hand-written mpi_x_ (MPI_Register_datarep)
    target = symbol(proc, large, profiling) if name in HAND_WRITTEN else body(proc, large, profiling)
    for b, pair in pairs.items():
        if pair:
            count, dtype = pair
            ct = ctype(next(p for p in proc["parameters"] if p["name"] == count), large)
            pre.append("%s n_%s = *(%s*)%s; MPI_Datatype t_%s = *(MPI_Datatype*)%s;" % (ct, b, ct, count, b, dtype))
            pre.append("MPI_Count c_%s = n_%s;" % (b, b))
            pre.append("struct gasket_f08_section s_%s;" % b)
            pre.append("int e_%s = gasket_f08_section_open(\"%s\", \"%s\", %s, &c_%s, &t_%s, &s_%s);" %
                       (b, name, b, b, b, b, b))
            pre.append("n_%s = (%s)c_%s;" % (b, ct, b))
            call = [("&n_%s" % b if c == count else "&t_%s" % b if c == dtype else c) for c in call]
        else:
            pre.append("struct gasket_f08_section s_%s;" % b)
            pre.append("int e_%s = gasket_f08_section_open(\"%s\", \"%s\", %s, NULL, NULL, &s_%s);" % (b, name, b, b, b))
        post.append("gasket_f08_section_close(&s_%s);" % b)
    buffers = list(pairs)
    args.append("MPI_Fint* ierror")
    weak = "" if profiling else "__attribute__((weak)) "
    f08_name = symbol(proc, large, profiling, f08=True)
    # buffers: sections (rare) out of line, so that simple buffers (the usual case, used in place)
    # take the short path: one test and the inlined body
    general = "gasket_f08_sections_" + f08_name if buffers else f08_name
    lines = ["%svoid %s(%s) {" % ("static __attribute__((noinline)) " if buffers else weak, general, ", ".join(args))]
    lines += ["  " + s for s in pre]
    if buffers:
        cond = " && ".join("e_%s == MPI_SUCCESS" % b for b in buffers)
        first_error = " ".join("e_%s != MPI_SUCCESS ? e_%s :" % (b, b) for b in buffers) + " MPI_SUCCESS"
        lines.append("  if (%s) {" % cond)
        lines.append("    %s(%s);" % (target, ", ".join(call + ["ierror"] + hidden)))
        lines.append("  } else if (ierror != NULL) {")
        lines.append("    *ierror = %s;" % first_error)
        lines.append("  }")
    else:
        lines.append("  %s(%s);" % (target, ", ".join(call + ["ierror"] + hidden)))
    lines += ["  " + s for s in post]
    lines.append("}")
    if buffers:
        lines.append("%svoid %s(%s) {" % (weak, f08_name, ", ".join(args)))
        lines.append("  if (%s) {" % " && ".join("gasket_f08_simple(%s)" % b for b in buffers))
        lines.append("    %s(%s);" % (target, ", ".join(direct + ["ierror"] + hidden)))
        lines.append("  } else {")
        lines.append("    %s(%s);" % (general, ", ".join(a.split()[-1] for a in args)))
        lines.append("  }")
        lines.append("}")
    return "\n".join(lines)


def wrappers(standard, missing):
    out = ["/* Generated by mpi/fortran/generate.py from the MPI Forum's list, mpi/bindings/procedures.tsv and missing.txt:",
           " * do not edit. The Fortran bindings' C side (mpi/fortran/README.md). */",
           "#include <stdlib.h>", "#include <ISO_Fortran_binding.h>", "#include \"mpi.h\"",
           "#include \"mpi/fortran/support.h\"", ""]
    procs, _ = procedures(standard, missing)
    for proc, large in procs:
        if proc["name"] in HAND_WRITTEN:
            continue
        for profiling in (False, True):
            out.append(c_wrapper(proc, large, profiling))
    for proc, large in procs:
        for profiling in (False, True):
            if not large and has_cptr_form(proc):
                out.append('extern __typeof__(%s) %s __attribute__((%salias("%s")));' %
                           (symbol(proc, large, profiling), cptr_symbol(proc, profiling),
                            "" if profiling else "weak, ", symbol(proc, large, profiling)))
            if needs_f08_adapter(proc):
                out.append(f08_adapter(proc, large, profiling))
            elif proc["name"] not in HAND_WRITTEN and proc["attributes"]["f08_expressible"]:
                # (support.c names its own: GASKET_F08_NAME)
                out.append('extern __typeof__(%s) %s __attribute__((%salias("%s")));' %
                           (symbol(proc, large, profiling), symbol(proc, large, profiling, f08=True),
                            "" if profiling else "weak, ", symbol(proc, large, profiling)))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- constants

def constants_program(mpi_h):
    names = []
    with open(mpi_h) as f:
        for line in f:
            m = re.match(r"#define (MPI_[A-Z0-9_]+)\s+(\S.*)$", line)
            if m:
                names.append(m.group(1))
    out = ["/* Generated by mpi/fortran/generate.py: prints mpi.h's integer constants, `name value`. */",
           "#include <stdio.h>", "#include \"mpi.h\"",
           "#define GASKET_PRINT(x) _Generic((x), int: print_integer, long: print_integer, \\",
           "    long long: print_integer, default: print_nothing)(#x, _Generic((x), int: (x), long: (x), \\",
           "    long long: (x), default: 0))",
           "static void print_integer(const char* n, long long v) { printf(\"%s %lld\\n\", n, v); }",
           "static void print_nothing(const char* n, long long v) { (void)n; (void)v; }",
           "int main(void) {"]
    out += ["  GASKET_PRINT(%s);" % n for n in names]
    out += ["  return 0;", "}"]
    return "\n".join(out) + "\n"


def read_values(path):
    values = []
    with open(path) as f:
        for line in f:
            n, v = line.split()
            values.append((n, int(v)))
    return values


# The standard's predefined handles of each kind (names only; values come from mpi.h).
HANDLE_CONSTANTS = {
    "MPI_Comm": ["MPI_COMM_NULL", "MPI_COMM_WORLD", "MPI_COMM_SELF"],
    "MPI_Group": ["MPI_GROUP_NULL", "MPI_GROUP_EMPTY"],
    "MPI_Request": ["MPI_REQUEST_NULL"],
    "MPI_Message": ["MPI_MESSAGE_NULL", "MPI_MESSAGE_NO_PROC"],
    "MPI_Info": ["MPI_INFO_NULL", "MPI_INFO_ENV"],
    "MPI_Errhandler": ["MPI_ERRHANDLER_NULL", "MPI_ERRORS_ARE_FATAL", "MPI_ERRORS_RETURN", "MPI_ERRORS_ABORT"],
    "MPI_Op": ["MPI_OP_NULL", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND", "MPI_LOR",
               "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"],
    "MPI_Win": ["MPI_WIN_NULL"],
    "MPI_File": ["MPI_FILE_NULL"],
    "MPI_Session": ["MPI_SESSION_NULL"],
    "MPI_Datatype": [
        "MPI_DATATYPE_NULL", "MPI_CHAR", "MPI_SIGNED_CHAR", "MPI_UNSIGNED_CHAR", "MPI_BYTE", "MPI_SHORT",
        "MPI_UNSIGNED_SHORT", "MPI_INT", "MPI_UNSIGNED", "MPI_LONG", "MPI_UNSIGNED_LONG", "MPI_LONG_LONG_INT",
        "MPI_LONG_LONG", "MPI_UNSIGNED_LONG_LONG", "MPI_FLOAT", "MPI_DOUBLE", "MPI_LONG_DOUBLE", "MPI_WCHAR",
        "MPI_C_BOOL", "MPI_INT8_T", "MPI_INT16_T", "MPI_INT32_T", "MPI_INT64_T", "MPI_UINT8_T", "MPI_UINT16_T",
        "MPI_UINT32_T", "MPI_UINT64_T", "MPI_AINT", "MPI_OFFSET", "MPI_COUNT", "MPI_C_FLOAT_COMPLEX",
        "MPI_C_COMPLEX", "MPI_C_DOUBLE_COMPLEX", "MPI_C_LONG_DOUBLE_COMPLEX", "MPI_PACKED", "MPI_FLOAT_INT",
        "MPI_DOUBLE_INT", "MPI_LONG_INT", "MPI_2INT", "MPI_SHORT_INT", "MPI_LONG_DOUBLE_INT", "MPI_UB",
        "MPI_LB", "MPI_INTEGER", "MPI_REAL", "MPI_DOUBLE_PRECISION", "MPI_COMPLEX", "MPI_DOUBLE_COMPLEX",
        "MPI_LOGICAL", "MPI_CHARACTER", "MPI_2REAL", "MPI_2DOUBLE_PRECISION", "MPI_2INTEGER", "MPI_INTEGER1",
        "MPI_INTEGER2", "MPI_INTEGER4", "MPI_INTEGER8", "MPI_INTEGER16", "MPI_REAL2", "MPI_REAL4",
        "MPI_REAL8", "MPI_REAL16", "MPI_COMPLEX4", "MPI_COMPLEX8", "MPI_COMPLEX16", "MPI_COMPLEX32",
        "MPI_CXX_BOOL", "MPI_CXX_FLOAT_COMPLEX", "MPI_CXX_DOUBLE_COMPLEX", "MPI_CXX_LONG_DOUBLE_COMPLEX"],
}
HANDLE_KIND_OF = {n: k for k, names in HANDLE_CONSTANTS.items() for n in names}
# Constants a Fortran program passes where the standard's argument is not a default INTEGER:
# MPI_DISPLACEMENT_CURRENT is MPI_FILE_SET_VIEW's disp, INTEGER(KIND=MPI_OFFSET_KIND) (without an
# interface, mpif.h's callers pass its storage as it is: 4 bytes would be read as 8).
CONSTANT_KINDS = {"MPI_DISPLACEMENT_CURRENT": "MPI_OFFSET_KIND"}
# C-only constants that have no Fortran meaning.
C_ONLY = {"MPI_F_SOURCE", "MPI_F_TAG", "MPI_F_ERROR"}


def fortran_value(v):
    return str(v) if -2**31 <= v < 2**31 else "%d_8" % v


def fortran_only_lines(values):
    """The Fortran-only parameters: kinds (mpi_f08's types use them, so they come first) and the
    status layout (MPI_SOURCE ... are 1-based indices of C's MPI_F_SOURCE ...)."""
    v = dict(values)
    return [
        "INTEGER, PARAMETER :: MPI_ADDRESS_KIND = 8",
        "INTEGER, PARAMETER :: MPI_OFFSET_KIND = 8",
        "INTEGER, PARAMETER :: MPI_COUNT_KIND = 8",
        "INTEGER, PARAMETER :: MPI_INTEGER_KIND = 4",
        "INTEGER, PARAMETER :: MPI_STATUS_SIZE = %d" % v["MPI_F_STATUS_SIZE"],
        "INTEGER, PARAMETER :: MPI_SOURCE = %d" % (v["MPI_F_SOURCE"] + 1),
        "INTEGER, PARAMETER :: MPI_TAG = %d" % (v["MPI_F_TAG"] + 1),
        "INTEGER, PARAMETER :: MPI_ERROR = %d" % (v["MPI_F_ERROR"] + 1),
    ]


def constant_lines(values, f08):
    """mpi.h's constants as `INTEGER, PARAMETER ::` lines (handles typed in mpi_f08)."""
    lines = []
    seen = set()
    for n, v in values:
        if n in C_ONLY or n in seen:
            continue
        seen.add(n)
        if f08 and n in HANDLE_KIND_OF:
            kind = HANDLE_KIND_OF[n]
            lines.append("TYPE(%s), PARAMETER :: %s = %s(%s)" % (kind, n, kind, fortran_value(v)))
        elif n in CONSTANT_KINDS:
            lines.append("INTEGER(KIND=%s), PARAMETER :: %s = %d_%s" % (CONSTANT_KINDS[n], n, v, CONSTANT_KINDS[n]))
        else:
            lines.append("INTEGER, PARAMETER :: %s = %s" % (n, fortran_value(v)))
    return lines


# Library variables whose addresses the C side recognises (support.c defines them).
SENTINELS = [  # (name, Fortran declaration in mpif.h / mpi, f08 type, C symbol)
    ("MPI_BOTTOM", "INTEGER MPI_BOTTOM", "INTEGER", "mpi_fortran_bottom"),
    ("MPI_IN_PLACE", "INTEGER MPI_IN_PLACE", "INTEGER", "mpi_fortran_in_place"),
    ("MPI_STATUS_IGNORE", "INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)", "TYPE(MPI_Status)",
     "mpi_fortran_status_ignore"),
    ("MPI_STATUSES_IGNORE", "INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)", "TYPE(MPI_Status)",
     "mpi_fortran_statuses_ignore"),
    ("MPI_ERRCODES_IGNORE", "INTEGER MPI_ERRCODES_IGNORE(1)", "INTEGER", "mpi_fortran_errcodes_ignore"),
    ("MPI_UNWEIGHTED", "INTEGER MPI_UNWEIGHTED(1)", "INTEGER", "mpi_fortran_unweighted"),
    ("MPI_WEIGHTS_EMPTY", "INTEGER MPI_WEIGHTS_EMPTY(1)", "INTEGER", "mpi_fortran_weights_empty"),
    ("MPI_ARGV_NULL", "CHARACTER*1 MPI_ARGV_NULL(1)", "CHARACTER(LEN=1)", "mpi_fortran_argv_null"),
    ("MPI_ARGVS_NULL", "CHARACTER*1 MPI_ARGVS_NULL(1,1)", "CHARACTER(LEN=1)", "mpi_fortran_argvs_null"),
]

# Predefined callbacks, Fortran-callable (support.c): (name, kind).
PREDEFINED_CALLBACKS = [
    ("MPI_COMM_NULL_COPY_FN", "MPI_Comm_copy_attr_function"), ("MPI_COMM_DUP_FN", "MPI_Comm_copy_attr_function"),
    ("MPI_COMM_NULL_DELETE_FN", "MPI_Comm_delete_attr_function"),
    ("MPI_WIN_NULL_COPY_FN", "MPI_Win_copy_attr_function"), ("MPI_WIN_DUP_FN", "MPI_Win_copy_attr_function"),
    ("MPI_WIN_NULL_DELETE_FN", "MPI_Win_delete_attr_function"),
    ("MPI_TYPE_NULL_COPY_FN", "MPI_Type_copy_attr_function"), ("MPI_TYPE_DUP_FN", "MPI_Type_copy_attr_function"),
    ("MPI_TYPE_NULL_DELETE_FN", "MPI_Type_delete_attr_function"),
    ("MPI_CONVERSION_FN_NULL", "MPI_Datarep_conversion_function"),
    ("MPI_CONVERSION_FN_NULL_C", "MPI_Datarep_conversion_function_c"),
]
# The deprecated MPI_Keyval_create's (INTEGER attribute values; mpif.h and `mpi` only).
MPI1_CALLBACKS = ["MPI_NULL_COPY_FN", "MPI_DUP_FN", "MPI_NULL_DELETE_FN"]


def mpif(standard, missing, values):
    out = ["! mpif.h: gasket's MPI for Fortran 77-style programs. Generated by mpi/fortran/generate.py",
           "! from mpi.h's values and the MPI Forum's list: do not edit."]
    for line in fortran_only_lines(values) + constant_lines(values, False):
        declaration, definition = line.split(" :: ")
        n, v = definition.split(" = ")
        out += ["      %s %s" % (declaration.split(",")[0], n), "      PARAMETER (%s=%s)" % (n, v)]
    for n, decl, _, sym in SENTINELS:
        out += ["      %s" % decl, "      COMMON /%s/ %s" % (sym, n)]
    out += ["      EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK",
            "      DOUBLE PRECISION MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK",
            "      EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF",
            "      INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF"]
    out += ["      EXTERNAL %s" % n for n, _ in PREDEFINED_CALLBACKS] + ["      EXTERNAL %s" % n for n in MPI1_CALLBACKS]
    return "\n".join(l for l in out if l) + "\n"


# ---------------------------------------------------------------- Fortran declarations

def fortran_type(p, large, f08, cptr=False):
    kind = p["kind"]
    if kind in HANDLE_KINDS:
        return "TYPE(%s)" % HANDLE_KINDS[kind] if f08 else "INTEGER"
    if kind == "LOGICAL":
        return "LOGICAL"
    if is_character(p):
        return "CHARACTER(LEN=*)"
    if kind == "STATUS":
        return "TYPE(MPI_Status)" if f08 else "INTEGER"
    if kind == "F08_STATUS":
        return "TYPE(MPI_Status)"
    if kind == "F90_STATUS":
        return "INTEGER"
    if kind in ("EXTRA_STATE", "ATTRIBUTE_VAL"):
        return "INTEGER(KIND=MPI_ADDRESS_KIND)"
    if kind in ("EXTRA_STATE2", "ATTRIBUTE_VAL_10"):  # the deprecated MPI-1 attribute procedures
        return "INTEGER"
    if kind in ("C_BUFFER", "C_BUFFER2"):
        return "TYPE(C_PTR)" if f08 or (cptr and kind == "C_BUFFER") else "INTEGER(KIND=MPI_ADDRESS_KIND)"
    t = ctype(p, large).replace("const ", "").strip()
    k = INTEGER_KIND.get(t)
    if k is None:
        raise ValueError("%s: no Fortran type for %s (%s)" % (p["name"], kind, t))
    return "INTEGER(KIND=%s)" % k if k else "INTEGER"


def dimension(p, f08):
    if p["kind"] == "STATUS" and not f08:
        return "(MPI_STATUS_SIZE,*)" if derive.is_array(p) else "(MPI_STATUS_SIZE)"
    if p["kind"] == "F90_STATUS":
        return "(MPI_STATUS_SIZE)"
    if p["kind"] == "STRING_ARRAY":
        return "(*)"
    if p["kind"] == "STRING_2DARRAY":
        return "(%s,*)" % p["length"]
    if not derive.is_array(p):
        return ""
    length = p["length"]
    if isinstance(length, list):
        return "(%s,*)" % ",".join(length[1:])
    return "(*)"


def intent(p):
    return {"in": "IN", "out": "OUT", "inout": "INOUT"}[p["param_direction"]]


def declarations(proc, large, f08, cptr=False):
    """(dummy names, declaration lines) of one procedure's interface (cptr: `mpi`'s MPI_x_CPTR)."""
    names, lines = [], []
    for p in params_of(proc):
        if not present(p, large):
            continue
        n, kind = p["name"], p["kind"]
        if kind == "VARARGS":  # MPI_Pcontrol's Fortran form has the level only
            continue
        names.append(n)
        if kind in BUFFER_KINDS:
            if f08:
                asyn = ", ASYNCHRONOUS" if p["asynchronous"] else ""
                lines.append("TYPE(*), DIMENSION(..)%s :: %s" % (asyn, n))
            else:
                lines.append("!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s" % n)
                lines.append("TYPE(*), DIMENSION(*) :: %s" % n)
        elif kind in ("FUNCTION", "POLYFUNCTION"):
            ft = p["func_type"] + ("_c" if large and kind == "POLYFUNCTION" else "")
            lines.append("PROCEDURE(%s) :: %s" % (ft, n) if f08 else "EXTERNAL :: %s" % n)
        else:
            attrs = [fortran_type(p, large, f08, cptr), "INTENT(%s)" % intent(p)]
            if f08 and p["asynchronous"]:
                attrs.append("ASYNCHRONOUS")
            lines.append("%s :: %s%s" % (", ".join(attrs), n, dimension(p, f08)))
    if proc["return_kind"] == "ERROR_CODE" and any(is_ierror(p) for p in proc["parameters"]):
        # (not MPI_Pcontrol: its Fortran form has no ierror in the standard)
        names.append("ierror")
        lines.append("INTEGER, OPTIONAL, INTENT(OUT) :: ierror" if f08 else "INTEGER, INTENT(OUT) :: ierror")
    return names, lines


def interface_body(fname, proc, large, f08, bind=None, cptr=False):
    names, decls = declarations(proc, large, f08, cptr)
    ret = proc["return_kind"]
    bind_clause = ' BIND(C, NAME="%s")' % bind if bind else ""
    if ret == "ERROR_CODE":
        head = "SUBROUTINE %s(%s)%s" % (fname, ", ".join(names), bind_clause)
        tail = "END SUBROUTINE"
    else:
        rt = "DOUBLE PRECISION" if ret in ("WALL_TIME", "TICK_RESOLUTION") else "INTEGER(KIND=MPI_ADDRESS_KIND)"
        head = "%s FUNCTION %s(%s)%s" % (rt, fname, ", ".join(names), bind_clause)
        tail = "END FUNCTION"
    body = ["  " + head]
    if f08 or any("MPI_" in d or "C_PTR" in d or "PROCEDURE" in d for d in decls):
        body.append("    IMPORT")
    body += ["    " + d for d in decls]
    body.append("  " + tail)
    return body


def wrap(line, indent="  "):
    """Free-form lines longer than 132 characters, continued with '&'."""
    out = []
    while len(line) > 120:
        cut = line.rfind(", ", 0, 118)
        if cut < 0:
            break
        out.append(line[:cut + 1] + " &")
        line = indent + "  " + line[cut + 2:]
    out.append(line)
    return out


def module_mpi(standard, missing, values):
    out = ["! The `mpi` module: generated by mpi/fortran/generate.py (do not edit).",
           "MODULE mpi", "  USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR", "  IMPLICIT NONE",
           "  PRIVATE :: gasket_dummy", "  INTEGER :: gasket_dummy"]
    out += ["  " + l for l in fortran_only_lines(values) + constant_lines(values, False)]
    out += ["  LOGICAL, PARAMETER :: MPI_SUBARRAYS_SUPPORTED = .FALSE.",
            "  LOGICAL, PARAMETER :: MPI_ASYNC_PROTECTS_NONBLOCKING = .FALSE."]
    out.append(STATUS_TYPE)  # `mpi` has TYPE(MPI_Status) too, for MPI_Status_f082f / f2f08
    for n, decl, _, sym in SENTINELS:
        out += ["  %s" % decl.replace("CHARACTER*1", "CHARACTER(LEN=1) ::").replace("INTEGER ", "INTEGER :: "),
                "  COMMON /%s/ %s" % (sym, n)]
    out += ["  EXTERNAL :: %s" % n for n, _ in PREDEFINED_CALLBACKS] + ["  EXTERNAL :: %s" % n for n in MPI1_CALLBACKS]
    out.append("  INTERFACE")
    procs, _ = procedures(standard, missing)
    for proc, large in procs:
        if large or not proc["attributes"]["f90_expressible"]:
            continue  # the large-count forms are mpi_f08's (MPI 4.1 section 19.2)
        for prefix in ("MPI_", "PMPI_"):
            name = prefix + proc["name"][4:]
            if has_cptr_form(proc):  # generic over the INTEGER(KIND=MPI_ADDRESS_KIND) and TYPE(C_PTR) forms
                out.append("  END INTERFACE")
                out.append("  INTERFACE %s" % name)
            for line in interface_body(name, proc, False, False):
                out += wrap(line, "    ")
            if has_cptr_form(proc):
                for line in interface_body(name + "_CPTR", proc, False, False, cptr=True):
                    out += wrap(line, "    ")
                out.append("  END INTERFACE")
                out.append("  INTERFACE")
    out += sizeof_interface()
    out += ["  END INTERFACE", "END MODULE mpi"]
    return "\n".join(out) + "\n"


def sizeof_interface():
    """The Fortran-only procedures (support.c): MPI_Sizeof and MPI_F_sync_reg."""
    # ierror OPTIONAL in both modules: one C function (gasket_f_sizeof) has one interface, so gfortran
    # does not warn when a file uses both modules; `mpi`'s calls all pass it
    out = []
    for prefix in ("MPI_", "PMPI_"):
        out += ['  SUBROUTINE %sSizeof(x, size, ierror) BIND(C, NAME="gasket_f_sizeof")' % prefix,
                "    TYPE(*), DIMENSION(..) :: x", "    INTEGER, INTENT(OUT) :: size",
                "    INTEGER, OPTIONAL, INTENT(OUT) :: ierror", "  END SUBROUTINE",
                '  SUBROUTINE %sF_sync_reg(buf) BIND(C, NAME="gasket_f_sync_reg")' % prefix,
                "    TYPE(*), DIMENSION(..), ASYNCHRONOUS :: buf", "  END SUBROUTINE"]
    return out


STATUS_TYPE = ("  TYPE, BIND(C) :: MPI_Status\n    INTEGER :: MPI_SOURCE, MPI_TAG, MPI_ERROR\n"
               "    INTEGER, PRIVATE :: gasket_internal(3)\n  END TYPE MPI_Status")

F08_TYPES = ["MPI_Comm", "MPI_Datatype", "MPI_Errhandler", "MPI_File", "MPI_Group", "MPI_Info", "MPI_Message",
             "MPI_Op", "MPI_Request", "MPI_Session", "MPI_Win"]


def f08_header():
    out = ["  TYPE, BIND(C) :: %s\n    INTEGER :: MPI_VAL\n  END TYPE %s" % (t, t) for t in F08_TYPES]
    out.append(STATUS_TYPE)
    out.append("""  ABSTRACT INTERFACE
    SUBROUTINE MPI_User_function(invec, inoutvec, len, datatype) BIND(C)
      IMPORT
      TYPE(C_PTR), VALUE :: invec, inoutvec
      INTEGER :: len
      TYPE(MPI_Datatype) :: datatype
    END SUBROUTINE
    SUBROUTINE MPI_User_function_c(invec, inoutvec, len, datatype) BIND(C)
      IMPORT
      TYPE(C_PTR), VALUE :: invec, inoutvec
      INTEGER(KIND=MPI_COUNT_KIND) :: len
      TYPE(MPI_Datatype) :: datatype
    END SUBROUTINE""")
    for obj in ("Comm", "Win", "File", "Session"):
        out.append("""    SUBROUTINE MPI_%s_errhandler_function(handle, error_code) BIND(C)
      IMPORT
      TYPE(MPI_%s) :: handle
      INTEGER :: error_code
    END SUBROUTINE""" % (obj, obj))
    for obj, t in (("Comm", "MPI_Comm"), ("Win", "MPI_Win"), ("Type", "MPI_Datatype")):
        out.append("""    SUBROUTINE MPI_%s_copy_attr_function(old, keyval, extra_state, attribute_val_in, &
        attribute_val_out, flag, ierror) BIND(C)
      IMPORT
      TYPE(%s) :: old
      INTEGER :: keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      LOGICAL :: flag
    END SUBROUTINE
    SUBROUTINE MPI_%s_delete_attr_function(handle, keyval, attribute_val, extra_state, ierror) BIND(C)
      IMPORT
      TYPE(%s) :: handle
      INTEGER :: keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    END SUBROUTINE""" % (obj, t, obj, t))
    out.append("""    SUBROUTINE MPI_Grequest_query_function(extra_state, status, ierror) BIND(C)
      IMPORT
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      TYPE(MPI_Status) :: status
      INTEGER :: ierror
    END SUBROUTINE
    SUBROUTINE MPI_Grequest_free_function(extra_state, ierror) BIND(C)
      IMPORT
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      INTEGER :: ierror
    END SUBROUTINE
    SUBROUTINE MPI_Grequest_cancel_function(extra_state, complete, ierror) BIND(C)
      IMPORT
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      LOGICAL :: complete
      INTEGER :: ierror
    END SUBROUTINE
    SUBROUTINE MPI_Datarep_extent_function(datatype, extent, extra_state, ierror) BIND(C)
      IMPORT
      TYPE(MPI_Datatype) :: datatype
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extent, extra_state
      INTEGER :: ierror
    END SUBROUTINE""")
    for suffix, count_kind in (("", ""), ("_c", "(KIND=MPI_COUNT_KIND)")):
        out.append("""    SUBROUTINE MPI_Datarep_conversion_function%s(userbuf, datatype, count, filebuf, position, &
        extra_state, ierror) BIND(C)
      IMPORT
      TYPE(C_PTR), VALUE :: userbuf, filebuf
      TYPE(MPI_Datatype) :: datatype
      INTEGER%s :: count
      INTEGER(KIND=MPI_OFFSET_KIND) :: position
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      INTEGER :: ierror
    END SUBROUTINE""" % (suffix, count_kind))
    out.append("  END INTERFACE")
    return out


def handle_operators():
    """== and /= on every handle type (MPI 4.1 section 19.3.2)."""
    out = []
    for op, name in (("==", "eq"), ("/=", "ne")):
        out.append("  INTERFACE OPERATOR(%s)" % op)
        out += wrap("    MODULE PROCEDURE " + ", ".join("gasket_%s_%s" % (name, t[4:].lower()) for t in F08_TYPES), "    ")
        out.append("  END INTERFACE")
    out += wrap("  PRIVATE :: " + ", ".join("gasket_%s_%s" % (n, t[4:].lower()) for n in ("eq", "ne") for t in F08_TYPES), "  ")
    out.append("CONTAINS")
    for t in F08_TYPES:
        for name, op in (("eq", "=="), ("ne", "/=")):
            out += ["  ELEMENTAL LOGICAL FUNCTION gasket_%s_%s(a, b)" % (name, t[4:].lower()),
                    "    TYPE(%s), INTENT(IN) :: a, b" % t,
                    "    gasket_%s_%s = a%%MPI_VAL %s b%%MPI_VAL" % (name, t[4:].lower(), op),
                    "  END FUNCTION"]
    return out


def f08_large_form(proc):
    """How mpi_f08 offers a procedure's _c form (MPI 4.1 section 19.2): 'generic' beside the int
    form when the counts' kinds tell them apart; 'named' (MPI_x_c) when only a callback's interface
    differs (MPI_Op_create_c), which generic resolution does not look at; 'none' when the two
    are the same in Fortran (MPI_ADDRESS_KIND and MPI_COUNT_KIND are both 8: MPI_Type_get_extent)."""
    def key(large, callbacks):
        _, decls = declarations(proc, large, True)
        same_kind = re.compile(r"KIND=MPI_(ADDRESS|COUNT|OFFSET)_KIND")  # all three are 8
        return [same_kind.sub("KIND=8", d) if callbacks or not d.startswith("PROCEDURE(") else "PROCEDURE"
                for d in decls]
    if key(False, False) != key(True, False):
        return "generic"
    return "named" if key(False, True) != key(True, True) else "none"


def module_f08(standard, missing, values):
    out = ["! The `mpi_f08` module: generated by mpi/fortran/generate.py (do not edit).",
           "MODULE mpi_f08", "  USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR", "  IMPLICIT NONE"]
    out += ["  " + l for l in fortran_only_lines(values)]
    out += f08_header()
    out += ["  " + l for l in constant_lines(values, True)]
    out += ["  LOGICAL, PARAMETER :: MPI_SUBARRAYS_SUPPORTED = .TRUE.",
            "  LOGICAL, PARAMETER :: MPI_ASYNC_PROTECTS_NONBLOCKING = .TRUE."]
    for n, _, t, sym in SENTINELS:
        dims = "(1)" if "STATUSES" in n or "ARGV" in n or n in ("MPI_ERRCODES_IGNORE", "MPI_UNWEIGHTED",
                                                                 "MPI_WEIGHTS_EMPTY") else ""
        if n == "MPI_ARGVS_NULL":
            dims = "(1,1)"
        out.append('  %s, BIND(C, NAME="%s_") :: %s%s' % (t, sym, n, dims))
    for n, kind in PREDEFINED_CALLBACKS:
        out.append('  PROCEDURE(%s), BIND(C, NAME="%s_") :: %s' % (kind, n.lower(), n))
    procs, _ = procedures(standard, missing)
    generics = {}
    for proc, large in procs:
        base = proc["name"][4:]
        if not proc["attributes"]["f08_expressible"]:
            continue  # the deprecated MPI-1 attribute procedures, for one (MPI 4.1 section 19.1.1)
        large_form = f08_large_form(proc) if large else "generic"
        if large_form == "none":
            continue
        for prefix in ("MPI_", "PMPI_"):
            specific = prefix + base + ("_c" if large else "") + ("_f08ts" if has_choice(proc) else "_f08")
            if large_form == "named":
                specific = prefix + base + "_c"  # its own name: a generic cannot tell them apart
            else:
                generics.setdefault(prefix + base, []).append(specific)
            sym = symbol(proc, large, prefix == "PMPI_", f08=True)
            out.append("  INTERFACE")
            for line in interface_body(specific, proc, large, True, bind=sym):
                out += wrap(line, "    ")
            out.append("  END INTERFACE")
    for g, specifics in sorted(generics.items()):
        out.append("  INTERFACE %s" % g)
        out += wrap("    PROCEDURE :: " + ", ".join(specifics), "    ")
        out.append("  END INTERFACE")
    out.append("  INTERFACE")
    out += sizeof_interface()
    out.append("  END INTERFACE")
    out += handle_operators()
    out.append("END MODULE mpi_f08")
    return "\n".join(out) + "\n"


def symbols(standard, missing):
    """The C symbols the bindings must define, one a line (coverage_test checks the library)."""
    names = []
    for proc, large in procedures(standard, missing)[0]:
        for profiling in (False, True):
            names.append(symbol(proc, large, profiling))
            if not large and has_cptr_form(proc):
                names.append(cptr_symbol(proc, profiling))
            if proc["attributes"]["f08_expressible"]:
                names.append(symbol(proc, large, profiling, f08=True))
    names += ["%s_" % n.lower() for n, _ in PREDEFINED_CALLBACKS] + ["%s_" % s for _, _, _, s in SENTINELS]
    names += ["%s_" % n.lower() for n in MPI1_CALLBACKS]
    return "\n".join(names + ["gasket_f_sizeof", "gasket_f_sync_reg"]) + "\n"


def skipped_report(standard, missing):
    _, skipped = procedures(standard, missing)
    lines = ["# Procedures of the MPI 4.1 list without a Fortran binding in gasket (generated by",
             "# mpi/fortran/generate.py; the first group shrinks with mpi/bindings/missing.txt)."]
    return "\n".join(lines + ["%s\t%s" % s for s in skipped]) + "\n"


def main():
    mode = sys.argv[1]
    if mode == "constants":
        sys.stdout.write(constants_program(sys.argv[2]))
        return
    standard, missing = load(sys.argv[2], sys.argv[3], sys.argv[4])
    if mode == "wrappers":
        sys.stdout.write(wrappers(standard, missing))
    elif mode == "skipped":
        sys.stdout.write(skipped_report(standard, missing))
    elif mode == "symbols":
        sys.stdout.write(symbols(standard, missing))
    else:
        values = read_values(sys.argv[5])
        sys.stdout.write({"mpif": mpif, "module": module_mpi, "f08": module_f08}[mode](standard, missing, values))


if __name__ == "__main__":
    main()
