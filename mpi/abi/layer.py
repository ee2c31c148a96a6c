#!/usr/bin/env python3
"""layer: the wrappers of libmpi_abi.so.1 and the native values they translate to.

  layer.py wrappers mpi-5.0-abi-mpi.h procedures.tsv mpi-4.1-apis.json > layer.cc
  layer.py values   mpi-5.0-abi-mpi.h                                  > native_values.cc

layer.cc (compiled against the ABI header, include/mpi.h) defines, for every procedure of the
ABI, PMPI_x converting its arguments, calling the native library's PMPI_x through a pointer
resolved at load, converting the results back, and MPI_x as a weak function calling PMPI_x. How
each parameter converts is decided here, once, from its C type, the Forum's parameter kind and
direction (mpi-4.1-apis.json; for procedures the list lacks, from the parameter's name): the
table of kinds and conversions is in README.md. native_values.cc (compiled against the native
mpi.h) pairs every ABI constant and predefined handle, its ABI value read from the Forum's
header as data, with the native value of the same name: runtime.cc builds its tables from it.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bindings"))
from derive import abi_procedures  # noqa: E402
from generate import forms, tidy, weak  # noqa: E402

HANDLE_TYPES = {"MPI_Comm": "Comm", "MPI_Group": "Group", "MPI_Datatype": "Datatype", "MPI_Op": "Op",
                "MPI_Request": "Request", "MPI_Info": "Info", "MPI_Win": "Win",
                "MPI_Errhandler": "Errhandler", "MPI_Message": "Message", "MPI_File": "File",
                "MPI_Session": "Session"}

# Integer constants: the Forum's parameter kind -> the category of constants runtime.cc converts.
KIND_CATEGORY = {
    "RANK": "Rank", "RANK_NNI": "Rank", "TAG": "Tag", "ERROR_CODE": "Error", "ERROR_CLASS": "Error",
    "THREAD_LEVEL": "Thread", "COMM_COMPARISON": "Compare", "GROUP_COMPARISON": "Compare",
    "COMBINER": "Combiner", "TYPECLASS": "Typeclass", "ORDER": "Order",
    "DISTRIB_ENUM": "Distribute", "DTYPE_DISTRIBUTION": "Distribute", "SPLIT_TYPE": "SplitType",
    "TOPOLOGY_TYPE": "Topology", "LOCK_TYPE": "Lock", "ASSERT": "Assert", "ACCESS_MODE": "Amode",
    "UPDATE_MODE": "Seek", "KEYVAL": "Keyval", "TOOL_VAR_VERBOSITY": "Verbosity",
    "BIND_TYPE": "Bind", "VARIABLE_SCOPE": "Scope", "PVAR_CLASS": "PvarClass",
    "CALLBACK_SAFETY": "CbSafety", "SOURCE_ORDERING": "SourceOrder",
}
# Parameters of the procedures the Forum's 4.1 list lacks (MPI 4.1 and 5.0 additions), by name.
NAME_CATEGORY = {"source": "Rank", "tag": "Tag", "error": "Error", "errorclass": "Error",
                 "errorcode": "Error"}

# The ABI constants of each category, by name (the categories of KIND_CATEGORY and the values
# the library returns of its own: attribute values, error classes).
CATEGORY_OF_CONSTANT = [
    (r"MPI_(SUCCESS|ERR_\w+|T_ERR_\w+)$", "Error"), (r"MPI_(ANY_SOURCE|PROC_NULL|ROOT)$", "Rank"),
    (r"MPI_ANY_TAG$", "Tag"), (r"MPI_THREAD_\w+$", "Thread"),
    (r"MPI_(IDENT|CONGRUENT|SIMILAR|UNEQUAL)$", "Compare"), (r"MPI_COMBINER_\w+$", "Combiner"),
    (r"MPIX?_TYPECLASS_\w+$", "Typeclass"), (r"MPI_ORDER_\w+$", "Order"),
    (r"MPI_DISTRIBUTE_\w+$", "Distribute"), (r"MPI_COMM_TYPE_\w+$", "SplitType"),
    (r"MPI_(CART|GRAPH|DIST_GRAPH)$", "Topology"), (r"MPI_LOCK_\w+$", "Lock"),
    (r"MPI_MODE_NO\w+$", "Assert"), (r"MPI_MODE_\w+$", "Amode"), (r"MPI_SEEK_\w+$", "Seek"),
    (r"MPI_(KEYVAL_INVALID|TAG_UB|IO|HOST|WTIME_IS_GLOBAL|APPNUM|LASTUSEDCODE|UNIVERSE_SIZE|"
     r"WIN_BASE|WIN_DISP_UNIT|WIN_SIZE|WIN_CREATE_FLAVOR|WIN_MODEL)$", "Keyval"),
    (r"MPI_WIN_FLAVOR_\w+$", "Flavor"), (r"MPI_WIN_(UNIFIED|SEPARATE)$", "Model"),
    (r"MPI_T_VERBOSITY_\w+$", "Verbosity"), (r"MPI_T_BIND_\w+$", "Bind"),
    (r"MPI_T_SCOPE_\w+$", "Scope"), (r"MPI_T_PVAR_CLASS_\w+$", "PvarClass"),
    (r"MPI_T_CB_REQUIRE_\w+$", "CbSafety"), (r"MPI_T_SOURCE_\w+$", "SourceOrder"),
]
CATEGORIES = ["Error", "Rank", "Tag", "Thread", "Compare", "Combiner", "Typeclass", "Order",
              "Distribute", "SplitType", "Topology", "Lock", "Assert", "Amode", "Seek", "Keyval",
              "Flavor", "Model", "Verbosity", "Bind", "Scope", "PvarClass", "CbSafety",
              "SourceOrder"]
# Native values that are enumerators, not macros (no #ifdef guards them).
ENUMERATORS = re.compile(r"MPI_T_(CB_REQUIRE|SOURCE)_")

# Callbacks. With extra state: the procedure's callbacks and extra_state travel in a
# CallbackState, the trampoline (runtime.cc) finds the user's function in it. Without: a slot
# of a table of trampolines per function type.
STATEFUL_CALLBACKS = {
    "MPI_Comm_copy_attr_function": "comm_copy", "MPI_Comm_delete_attr_function": "comm_delete",
    "MPI_Copy_function": "comm_copy", "MPI_Delete_function": "comm_delete",
    "MPI_Type_copy_attr_function": "type_copy", "MPI_Type_delete_attr_function": "type_delete",
    "MPI_Win_copy_attr_function": "win_copy", "MPI_Win_delete_attr_function": "win_delete",
    "MPI_Grequest_query_function": "grequest_query", "MPI_Grequest_free_function": "grequest_free",
    "MPI_Grequest_cancel_function": "grequest_cancel",
    "MPI_Datarep_conversion_function": "datarep_conversion",
    "MPI_Datarep_conversion_function_c": "datarep_conversion_c",
    "MPI_Datarep_extent_function": "datarep_extent",
    "MPI_T_event_cb_function": "event_cb", "MPI_T_event_free_cb_function": "event_free_cb",
}
# Callbacks whose predefined values (MPI_*_NULL_COPY_FN = 0, MPI_*_DUP_FN = 1) the trampoline
# itself implements: the trampoline is passed whatever the value.
ALWAYS_TRAMPOLINE = {"comm_copy", "comm_delete", "type_copy", "type_delete", "win_copy", "win_delete"}
SLOT_CALLBACKS = {
    "MPI_User_function": "op_function", "MPI_User_function_c": "op_function_c",
    "MPI_Comm_errhandler_function": "comm_errhandler", "MPI_File_errhandler_function": "file_errhandler",
    "MPI_Win_errhandler_function": "win_errhandler", "MPI_Session_errhandler_function": "session_errhandler",
    "MPI_T_event_dropped_cb_function": "event_dropped",
}

def collective_forms(name, value):
    """{(MPI_x, p): v, (MPI_Ix, p): v, (MPI_x_init, p): v} for the three forms of a collective."""
    blocking = "MPI_" + name
    return {(n, p): v for n in (blocking, "MPI_I" + name[0].lower() + name[1:], blocking + "_init")
            for p, v in value.items()}


# Array lengths the Forum's list gives as '*' or not at all: the expression that counts them.
LENGTH = {
    **collective_forms("Alltoallw", {"sendtypes": "peers(comm)", "recvtypes": "peers(comm)"}),
    **collective_forms("Neighbor_alltoallw", {"sendtypes": "out_degree(comm)", "recvtypes": "in_degree(comm)"}),
    ("MPI_Comm_spawn", "array_of_errcodes"): "maxprocs",
    ("MPI_Comm_spawn_multiple", "array_of_errcodes"): "sum(count, array_of_maxprocs)",
    ("MPI_Group_range_incl", "ranges"): None, ("MPI_Group_range_excl", "ranges"): None,
    ("MPI_Request_get_status_all", "array_of_requests"): "count",
    ("MPI_Request_get_status_all", "array_of_statuses"): "count",
    ("MPI_Request_get_status_any", "array_of_requests"): "count",
    ("MPI_Request_get_status_some", "array_of_requests"): "incount",
    ("MPI_Request_get_status_some", "array_of_statuses"): "incount",
}
# Procedures whose OUT values need a step of their own after the call (runtime.cc).
AFTER = {
    "MPI_Comm_get_attr": "attribute_value_to_abi(comm_keyval, attribute_val, flag)",
    "MPI_Attr_get": "attribute_value_to_abi(keyval, attribute_val, flag)",
    "MPI_Win_get_attr": "attribute_value_to_abi(win_keyval, attribute_val, flag)",
    "MPI_Buffer_detach": "buffer_address_to_abi(buffer_addr)",
    "MPI_Comm_detach_buffer": "buffer_address_to_abi(buffer_addr)",
    "MPI_Session_detach_buffer": "buffer_address_to_abi(buffer_addr)",
    "MPI_File_get_view": "*disp = displacement_to_abi(*disp)",
    "MPI_Type_get_contents": "contents_to_abi(native_datatype, array_of_integers, max_integers)",
}
# Procedures the layer answers itself for some arguments, before converting (convert.h).
SIZE_OF_ABSENT_TYPE = "if (size != nullptr && absent_datatype(datatype)) return *size = MPI_UNDEFINED, MPI_SUCCESS;"
BEFORE = {"MPI_Type_size": SIZE_OF_ABSENT_TYPE, "MPI_Type_size_x": SIZE_OF_ABSENT_TYPE}
# Parameters of a converted kind that keep their value: MPI_Abort's errorcode is the exit status.
UNCONVERTED = {("MPI_Abort", "errorcode")}
# OUT handles of non-blocking calls, written by the native library at completion.
DEFERRED = {("MPI_Comm_idup", "newcomm"), ("MPI_Comm_idup_with_info", "newcomm")}
# Procedures the layer answers itself (runtime.cc), not the native library.
OWN = {"MPI_Abi_get_version"}


def base_name(name):
    return name[:-2] if name.endswith("_c") else name


class Param:
    DECL = re.compile(r"^(const )?([A-Za-z_][A-Za-z_0-9]*)\s*(\**)\s*([A-Za-z_0-9]*)(\[\])?((?:\[\d+\])*)$")

    def __init__(self, decl, forum):
        self.decl = decl
        m = self.DECL.match(decl)
        if decl == "...":
            self.const, self.type, self.stars, self.name, self.array = "", "...", "", "", False
        else:
            self.const, self.type, self.stars, self.name, self.array = \
                m.group(1) or "", m.group(2), m.group(3), m.group(4), bool(m.group(5))
            self.extents = m.group(6)
        self.forum = forum or {}
        self.kind = self.forum.get("kind")
        self.direction = self.forum.get("param_direction")
        if self.name.startswith("array_of_") and self.stars and self.type == "MPI_Status":
            self.array, self.stars = True, ""


class Wrapper:
    def __init__(self, proc, forum_params, max_slot):
        self.proc = proc
        self.params = [Param(d, forum_params.get(Param.DECL.match(d).group(4)) if d != "..." else None)
                       for d in proc.params]
        self.pre, self.args, self.post = [], [], []
        self.by_name = {p.name: p for p in self.params}

    def length_of(self, p):
        key = (base_name(self.proc.name), p.name)
        if key in LENGTH:
            return LENGTH[key]
        length = p.forum.get("length")
        if isinstance(length, list):
            length = length[0]
        if length in self.by_name:
            q = self.by_name[length]
            return "(%s ? *%s : 0)" % (q.name, q.name) if q.stars else q.name
        if p.type == "int" and length in ("*", "", None):
            return None  # no constant in it needs converting (graph edges, ranges)
        if p.type == "MPI_Status":  # as many as the requests
            for q in self.params:
                if q.type == "MPI_Request" and q.array:
                    return self.length_of(q)
        raise SystemExit("layer.py: no length for %s's %s (add it to LENGTH)" % (self.proc.name, p.name))

    def category(self, p):
        if self.proc.name.startswith("MPI_T_") and p.name in ("source", "source_index"):
            return None
        if p.kind in KIND_CATEGORY:
            return KIND_CATEGORY[p.kind]
        if not p.forum and p.type == "int":
            return NAME_CATEGORY.get(p.name)
        return None

    def convert(self, p, i):
        """Appends the conversion of one parameter: its lines before the call, the argument
        passed, its lines after."""
        n = p.name
        if p.type == "...":
            return
        if p.type in HANDLE_TYPES:
            h = HANDLE_TYPES[p.type]
            if p.array:
                length = self.length_of(p)
                out = "" if p.const else ", true"
                self.pre.append("HandleArray<MPI_%s> %s_n(%s, %s%s);" % (h, n, n, length, out))
                self.args.append("%s_n.get()" % n)
                if not p.const:
                    self.post.append("%s_n.out();" % n)
            elif (base_name(self.proc.name), n) in DEFERRED:
                # The native library writes the handle when the request completes: into the low
                # half of the ABI handle, zeroed here (a user handle's ABI value is its value).
                self.pre.append("if (%s) *%s = nullptr;" % (n, n))
                self.args.append("reinterpret_cast<int*>(%s)" % n)
            elif p.stars:
                self.pre.append("HandleRef<MPI_%s> %s_n(%s);" % (h, n, n))
                self.args.append("%s_n.get()" % n)
                self.post.append("%s_n.out();" % n)
            else:
                self.args.append("to_native(%s)" % n)
            return
        if p.type == "MPI_Status":
            if p.array:
                self.pre.append("StatusArray %s_n(%s, %s);" % (n, n, self.length_of(p)))
            else:
                self.pre.append("StatusRef %s_n(%s);" % (n, n))
            self.args.append("%s_n.get()" % n)
            if not p.const:
                self.post.append("%s_n.out();" % n)
            return
        if p.type.endswith("_function") or p.type.endswith("_function_c"):
            self.args.append(self.callback(p))
            return
        if p.type == "MPI_T_pvar_handle" and not p.stars:
            self.args.append("pvar_handle_to_native(%s)" % n)
            return
        if p.type in ("MPI_T_cb_safety", "MPI_T_source_order"):
            cat = "CbSafety" if p.type == "MPI_T_cb_safety" else "SourceOrder"
            if p.stars:
                self.args.append("reinterpret_cast<int*>(%s)" % n)
                self.post.append("if (%s) *%s = (%s)to_abi(Category::k%s, (int)*%s);" % (n, n, p.type, cat, n))
            else:
                self.args.append("to_native(Category::k%s, (int)%s)" % (cat, n))
            return
        if p.kind == "WEIGHT":
            self.args.append("weights_to_native(%s)" % n)
            return
        if p.type == "void" and p.kind in ("BUFFER", "C_BUFFER", "C_BUFFER2", "C_BUFFER3", "C_BUFFER4") or \
                (p.type == "void" and not p.forum and p.name == "buffer"):
            self.args.append("buffer_to_native(%s)" % n)
            return
        if p.type == "MPI_Offset" and p.name == "disp" and not p.stars:
            self.args.append("displacement_to_native(%s)" % n)
            return
        if p.name == "extra_state" or (p.name == "user_data" and any(
                q.type in STATEFUL_CALLBACKS for q in self.params)):
            self.args.append("state")
            return
        cat = self.category(p) if p.type == "int" and (self.proc.name, n) not in UNCONVERTED else None
        if cat:
            c = "Category::k" + cat
            if p.array:
                length = self.length_of(p)
                if length is None:
                    self.args.append(n)
                elif p.const or p.direction == "in":
                    self.pre.append("ConstantArray %s_n(%s, %s, %s);" % (n, c, n, length))
                    self.args.append("%s_n.get()" % n)
                else:
                    self.args.append(n)
                    self.post.append("constants_to_abi(%s, %s, %s);" % (c, n, length))
            elif p.stars:
                self.args.append(n)
                if p.direction == "inout":
                    self.pre.append("if (%s) *%s = to_native(%s, *%s);" % (n, n, c, n))
                self.post.append("if (%s) *%s = to_abi(%s, *%s);" % (n, n, c, n))
            else:
                self.args.append("to_native(%s, %s)" % (c, n))
            return
        self.args.append(n)

    def callback(self, p):
        n = p.name
        if p.type in SLOT_CALLBACKS:
            return "%s_trampoline(%s)" % (SLOT_CALLBACKS[p.type], n)
        family = STATEFUL_CALLBACKS[p.type]
        index = [q.name for q in self.params if q.type in STATEFUL_CALLBACKS].index(n)
        if not self.pre or not self.pre[0].startswith("CallbackState*"):
            fns = [q.name for q in self.params if q.type in STATEFUL_CALLBACKS]
            extra = "extra_state" if "extra_state" in self.by_name else (
                "user_data" if "user_data" in self.by_name else "nullptr")
            self.pre.insert(0, "CallbackState* state = new CallbackState{{%s}, %s};" % (
                ", ".join("(void (*)())%s" % f for f in fns), extra))
        if family in ALWAYS_TRAMPOLINE:
            return "(void*)&%s_trampoline<%d>" % (family, index)
        return "%s ? (void*)&%s_trampoline<%d> : nullptr" % (n, family, index)

    def native_type(self, p):
        """The parameter's type in the native library's signature (the values the layer passes)."""
        if p.type == "...":
            return "..."
        t = p.type
        if t in HANDLE_TYPES or t in ("MPI_T_cb_safety", "MPI_T_source_order"):
            t = "int"
        elif t == "MPI_Status":
            t = "NativeStatus"
        elif t.endswith("_function") or t.endswith("_function_c"):
            return "void*"
        if p.array and p.extents:
            return "%s%s(*)%s" % (p.const, t, p.extents)
        stars = p.stars + ("*" if p.array else "")
        return (p.const + t + stars).strip()

    def body(self):
        name = self.proc.name
        if base_name(name) in BEFORE:
            self.pre.append(BEFORE[base_name(name)])
        for i, p in enumerate(self.params):
            self.convert(p, i)
        if base_name(name) in AFTER:
            after = AFTER[base_name(name)]
            if "native_datatype" in after:
                self.pre.append("int native_datatype = to_native(datatype);")
            self.post.append(after + ";")
        call = "native.P%s(%s)" % (name, ", ".join(self.args))
        lines = list(self.pre)
        ret = self.proc.ret
        if ret == "void":
            lines.append(call + ";")
            lines += self.post
        elif not self.post:
            lines.append("return %s;" % (("error_to_abi(%s)" % call) if ret == "int" else call))
        else:
            lines.append("%s rc_ = %s;" % (ret, call))
            lines += self.post
            lines.append("return %s;" % ("error_to_abi(rc_)" if ret == "int" else "rc_"))
        return lines


def handle_cast(proc):
    """MPI_x_toint / MPI_x_fromint: a user handle's value is the native handle; a predefined
    handle's int is its ABI value (what MPI_x_fromint is given back); MPI_x_fromint of an int
    naming no live object is the kind's null handle, as the native library answers."""
    name, p = proc.name, proc.params[0]
    arg = Param.DECL.match(p).group(4)
    if name.endswith("_toint"):
        return ["return (int)(intptr_t)%s;" % arg]
    # The native library checks that the handle names a live object (else the kind's null).
    return ["return to_abi<%s>(native.P%s(to_native(reinterpret_cast<const void*>(static_cast<intptr_t>(%s)))));"
            % (proc.ret, name, arg)]


def wrappers(header, table_path, json_path):
    abi = abi_procedures(header)
    with open(json_path) as f:
        forum = {p["name"]: {q["name"]: q for q in p["parameters"]} for p in json.load(f).values()}
    with open(table_path) as f:
        lines = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    procs = [form for line in lines for form in forms(line) if form.name in abi]
    out = ["// Generated by mpi/abi/layer.py from the MPI 5.0 ABI header, mpi/bindings/procedures.tsv and",
           "// the Forum's parameter kinds (mpi-4.1-apis.json): do not edit. libmpi_abi.so.1's procedures:",
           "// PMPI_x converts its arguments (README.md, \"Conversions\"), calls the native library's PMPI_x",
           "// and converts the results back; MPI_x is weak and calls PMPI_x (the profiling interface).",
           "#include \"mpi/abi/convert.h\"", "",
           "namespace gasket::mpi::abi {", "",
           "// The native library's procedures, as the layer calls them (handles are ints there).",
           "struct NativeProcedures {"]
    table = []
    for p in procs:
        w = Wrapper(p, forum.get(base_name(p.name), {}), 0)
        sig = ", ".join(w.native_type(q) for q in w.params) or "void"
        ret = "int" if p.ret in HANDLE_TYPES else p.ret
        out.append("  %s (*P%s)(%s);" % (ret, p.name, sig))
        table.append(p.name)
    out += ["};", "", "NativeProcedures native;", "",
            "// Names of the procedures, in NativeProcedures' order: runtime.cc resolves them at load.",
            "const char* const kNativeProcedureNames[] = {"]
    out += ['    "P%s",' % n for n in table]
    out += ["};", "const int kNativeProcedureCount = %d;" % len(table),
            "void** native_procedure_slots() { return reinterpret_cast<void**>(&native); }", "",
            "}  // namespace gasket::mpi::abi", "",
            "using namespace gasket::mpi::abi;", "", "extern \"C\" {", ""]
    for p in procs:
        decl = tidy(p.signature("P"))
        if p.name in OWN:
            continue
        if p.name.endswith("_toint") or p.name.endswith("_fromint"):
            body = handle_cast(p)
        else:
            body = Wrapper(p, forum.get(base_name(p.name), {}), 0).body()
        out.append(decl + " {")
        out += ["  " + l for l in body]
        out.append("}")
    out += ["", "// The profiling interface: MPI_x calls PMPI_x, a tool's own MPI_x takes precedence."]
    out += [l for l in weak(procs, set()) if l.startswith("__attribute__((weak))")]
    out += ["", "}  // extern \"C\"", ""]
    return out


HANDLE_VALUE = re.compile(r"^#define (MPI_\w+)\s+\(\((MPI_\w+)\)(0x[0-9a-f]+)\)", re.M)
ENUM_MEMBER = re.compile(r"^\s+(MPIX?_\w+)\s*=\s*([-0-9xA-Fa-f]+),?", re.M)


def values(header):
    out = ["// Generated by mpi/abi/layer.py from the MPI 5.0 ABI header: do not edit. Compiled against",
           "// the native mpi.h: each ABI constant and predefined handle, its ABI value (read from the",
           "// Forum's header) beside the native value of the same name. runtime.cc builds its tables",
           "// from these.",
           "#include \"mpi.h\"", "#include \"mpi/abi/values.h\"", "",
           "namespace gasket::mpi::abi {", "",
           "const HandleValue kHandleValues[] = {"]
    n_handles = 0
    for name, kind, value in HANDLE_VALUE.findall(header):
        null = "true" if name.endswith("_NULL") else "false"
        out.append("    {%s, %s, HandleKind::k%s, %s}," % (name, value, HANDLE_TYPES[kind], null))
        n_handles += 1
    out += ["};", "const int kHandleValueCount = %d;" % n_handles, "", "const ConstantValue kConstantValues[] = {"]
    n = 0
    for block in re.findall(r"enum\s*(?:\w+\s*)?\{(.*?)\}", header, re.S):
        for name, value in ENUM_MEMBER.findall(block):
            cat = next((c for pattern, c in CATEGORY_OF_CONSTANT if re.match(pattern, name)), None)
            if cat is None:
                continue
            line = "    {%s, %s, Category::k%s}," % (name, value, cat)
            if ENUMERATORS.match(name):
                out.append(line)
            else:
                out += ["#ifdef %s" % name, line, "#endif"]
            n += 1
    out += ["};", "const int kConstantValueCount = sizeof(kConstantValues) / sizeof(kConstantValues[0]);",
            "", "// Native values of the address constants the layer translates.",
            "void* const kNativeInPlace = MPI_IN_PLACE;",
            "void* const kNativeBufferAutomatic = MPI_BUFFER_AUTOMATIC;",
            "const long long kNativeDisplacementCurrent = MPI_DISPLACEMENT_CURRENT;",
            "const int kNativeErrLastcode = MPI_ERR_LASTCODE;",
            "const int kNativeLastUsedCode = MPI_LASTUSEDCODE;",
            "const int kNativeHandleKindShift = GASKET_HANDLE_KIND_SHIFT;", "",
            "}  // namespace gasket::mpi::abi", ""]
    return out


def main():
    with open(sys.argv[2]) as f:
        header = f.read()
    if sys.argv[1] == "wrappers":
        lines = wrappers(header, sys.argv[3], sys.argv[4])
    else:
        lines = values(header)
    sys.stdout.write("\n".join(lines))


if __name__ == "__main__":
    main()
