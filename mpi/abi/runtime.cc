// libmpi_abi.so.1 at load: opens the native library next to itself, resolves the native
// procedures the generated wrappers call (layer.cc), builds the conversion tables from
// native_values.cc; and the conversions that are more than a table look-up (README.md).
#include <dlfcn.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <utility>

#include "mpi/abi/convert.h"

namespace gasket::mpi::abi {

HandleTables handle_tables;

namespace {

constexpr int kMaxPerCategory = 128;
struct CategoryTable {
  int n;
  int native[kMaxPerCategory];
  int abi[kMaxPerCategory];
};
CategoryTable categories[kCategories];

// The ABI numbers user error codes and keyvals from here on, above its predefined values.
constexpr int kAbiFirstUserCode = MPI_ERR_LASTCODE + 1;
constexpr int kAbiFirstUserKeyval = 1024;

int* native_unweighted;
int* native_weights_empty;

// A few native procedures the conversions call themselves.
struct {
  int (*comm_test_inter)(int, int*);
  int (*comm_size)(int, int*);
  int (*comm_remote_size)(int, int*);
  int (*comm_rank)(int, int*);
  int (*topo_test)(int, int*);
  int (*cartdim_get)(int, int*);
  int (*graph_neighbors_count)(int, int, int*);
  int (*dist_graph_neighbors_count)(int, int*, int*, int*);
  int (*type_get_envelope)(int, int*, int*, int*, int*);
} call;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "libmpi_abi.so.1: %s\n", what.c_str());
  std::_Exit(127);
}

void* open_native() {
  Dl_info self;
  if (dladdr(reinterpret_cast<void*>(&open_native), &self) == 0 || self.dli_fname == nullptr) {
    fail("cannot find its own path (dladdr)");
  }
  // Where it was loaded from, then where that link points (Bazel's _solib_ directories hold
  // links to the library in its package).
  std::string dirs[2] = {self.dli_fname, ""};
  if (char* real = realpath(self.dli_fname, nullptr)) {
    dirs[1] = real;
    std::free(real);
  }
  std::string tried;
  for (std::string dir : dirs) {
    if (dir.empty()) continue;
    dir = dir.find('/') == std::string::npos ? "." : dir.substr(0, dir.rfind('/'));
    // Installed: PREFIX/lib/libgasket.so beside it. Bazel: mpi/libgasket_mpi.so, one level up.
    for (const char* candidate : {"/libgasket.so", "/libgasket_mpi.so", "/../libgasket_mpi.so"}) {
      std::string path = dir + candidate;
      if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
      tried += std::string("\n  ") + dlerror();
    }
  }
  fail("cannot open the native MPI library:" + tried);
}

template <class F> void resolve(void* lib, const char* name, F* out) {
  void* p = dlsym(lib, name);
  if (p == nullptr) fail(std::string("the native library lacks ") + name);
  *out = reinterpret_cast<F>(p);
}

void build_tables() {
  HandleTables& t = handle_tables;
  const int shift = kNativeHandleKindShift;
  t.invalid = (15 << shift) | 0x3ff;
  for (int& v : t.to_native) v = t.invalid;
  for (int k = 0; k < kHandleKinds; ++k) t.kinds[k].base = -1;
  // The kind's base from any of its predefined non-null handles.
  for (int i = 0; i < kHandleValueCount; ++i) {
    const HandleValue& h = kHandleValues[i];
    KindTable& k = t.kinds[static_cast<int>(h.kind)];
    t.to_native[h.abi] = h.native;
    if (h.null) {
      k.null_abi = h.abi;
      continue;
    }
    if (h.native == 0) continue;  // predefined as null natively (MPI_REAL2, MPI_COMPLEX4)
    k.base = (h.native >> shift) << shift;
    unsigned offset = static_cast<unsigned>(h.native - k.base);
    if (offset < kPredefinedOffsets) {
      if (k.by_offset[offset] == 0) k.by_offset[offset] = h.abi;  // aliases: the first name
    } else {
      k.extra_native = h.native;
      k.extra_abi = h.abi;
    }
  }
  for (int i = 0; i < kConstantValueCount; ++i) {
    const ConstantValue& c = kConstantValues[i];
    CategoryTable& table = categories[static_cast<int>(c.category)];
    if (table.n == kMaxPerCategory) fail("too many constants in one category");
    table.native[table.n] = c.native;
    table.abi[table.n] = c.abi;
    ++table.n;
  }
}

int convert(Category c, int value, bool to_native) {
  const CategoryTable& t = categories[static_cast<int>(c)];
  const int* from = to_native ? t.abi : t.native;
  const int* to = to_native ? t.native : t.abi;
  if (c == Category::kAssert || c == Category::kAmode) {  // bit masks: bit by bit
    int out = 0;
    for (int i = 0; i < t.n; ++i) {
      if (value & from[i]) {
        out |= to[i];
        value &= ~from[i];
      }
    }
    return out | value;
  }
  for (int i = 0; i < t.n; ++i) {
    if (from[i] == value) return to[i];
  }
  if (c == Category::kError) {  // codes and classes the program added
    if (to_native && value >= kAbiFirstUserCode) return value - kAbiFirstUserCode + kNativeErrLastcode + 1;
    if (!to_native && value > kNativeErrLastcode) return value - kNativeErrLastcode - 1 + kAbiFirstUserCode;
  }
  if (c == Category::kKeyval) {  // keyvals the program created
    if (to_native && value >= kAbiFirstUserKeyval) return value - kAbiFirstUserKeyval + kNativeLastUsedCode + 1;
    if (!to_native && value > kNativeLastUsedCode) return value - kNativeLastUsedCode - 1 + kAbiFirstUserKeyval;
  }
  return value;
}

__attribute__((constructor)) void load() {
  void* lib = open_native();
  void** slots = native_procedure_slots();
  for (int i = 0; i < kNativeProcedureCount; ++i) resolve(lib, kNativeProcedureNames[i], &slots[i]);
  resolve(lib, "PMPI_Comm_test_inter", &call.comm_test_inter);
  resolve(lib, "PMPI_Comm_size", &call.comm_size);
  resolve(lib, "PMPI_Comm_remote_size", &call.comm_remote_size);
  resolve(lib, "PMPI_Comm_rank", &call.comm_rank);
  resolve(lib, "PMPI_Topo_test", &call.topo_test);
  resolve(lib, "PMPI_Cartdim_get", &call.cartdim_get);
  resolve(lib, "PMPI_Graph_neighbors_count", &call.graph_neighbors_count);
  resolve(lib, "PMPI_Dist_graph_neighbors_count", &call.dist_graph_neighbors_count);
  resolve(lib, "PMPI_Type_get_envelope", &call.type_get_envelope);
  int** unweighted = nullptr;
  int** weights_empty = nullptr;
  resolve(lib, "MPI_UNWEIGHTED", &unweighted);
  resolve(lib, "MPI_WEIGHTS_EMPTY", &weights_empty);
  native_unweighted = *unweighted;
  native_weights_empty = *weights_empty;
  build_tables();
}

// Slots of trampolines for callbacks without extra state: one per distinct user function.
constexpr int kSlots = 64;
template <class F> struct Slots {
  F* fns[kSlots];
  void* trampolines[kSlots];
  int used;
  std::mutex mutex;  // MPI_Op_create and the errhandler creations may run on several threads
  void* take(F* fn) {
    if (fn == nullptr) return nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    for (int i = 0; i < used; ++i) {
      if (fns[i] == fn) return trampolines[i];
    }
    if (used == kSlots) return nullptr;
    fns[used] = fn;
    return trampolines[used++];
  }
};

Slots<MPI_User_function> op_slots;
Slots<MPI_User_function_c> op_c_slots;
Slots<MPI_Comm_errhandler_function> comm_eh_slots;
Slots<MPI_Win_errhandler_function> win_eh_slots;
Slots<MPI_File_errhandler_function> file_eh_slots;
Slots<MPI_Session_errhandler_function> session_eh_slots;
Slots<MPI_T_event_dropped_cb_function> dropped_slots;

template <int I> void op_slot(void* in, void* inout, int* len, int* datatype) {
  MPI_Datatype d = to_abi<MPI_Datatype>(*datatype);
  op_slots.fns[I](in, inout, len, &d);
}
template <int I> void op_c_slot(void* in, void* inout, MPI_Count* len, int* datatype) {
  MPI_Datatype d = to_abi<MPI_Datatype>(*datatype);
  op_c_slots.fns[I](in, inout, len, &d);
}
template <class H, class F, Slots<F>* S, int I> void errhandler_slot(int* object, int* code, ...) {
  H h = to_abi<H>(*object);
  int c = error_to_abi(*code);
  S->fns[I](&h, &c);
}
template <int I> void dropped_slot(MPI_Count count, MPI_T_event_registration r, int source, int safety, void* data) {
  dropped_slots.fns[I](count, r, source, static_cast<MPI_T_cb_safety>(to_abi(Category::kCbSafety, safety)), data);
}

template <class F, class Make, size_t... I> void fill(Slots<F>& s, Make make, std::index_sequence<I...>) {
  ((s.trampolines[I] = make(std::integral_constant<int, static_cast<int>(I)>())), ...);
}

struct FillSlots {
  FillSlots() {
    auto seq = std::make_index_sequence<kSlots>();
    fill(op_slots, [](auto i) { return reinterpret_cast<void*>(&op_slot<decltype(i)::value>); }, seq);
    fill(op_c_slots, [](auto i) { return reinterpret_cast<void*>(&op_c_slot<decltype(i)::value>); }, seq);
    fill(comm_eh_slots, [](auto i) {
      return reinterpret_cast<void*>(&errhandler_slot<MPI_Comm, MPI_Comm_errhandler_function, &comm_eh_slots, decltype(i)::value>);
    }, seq);
    fill(win_eh_slots, [](auto i) {
      return reinterpret_cast<void*>(&errhandler_slot<MPI_Win, MPI_Win_errhandler_function, &win_eh_slots, decltype(i)::value>);
    }, seq);
    fill(file_eh_slots, [](auto i) {
      return reinterpret_cast<void*>(&errhandler_slot<MPI_File, MPI_File_errhandler_function, &file_eh_slots, decltype(i)::value>);
    }, seq);
    fill(session_eh_slots, [](auto i) {
      return reinterpret_cast<void*>(
          &errhandler_slot<MPI_Session, MPI_Session_errhandler_function, &session_eh_slots, decltype(i)::value>);
    }, seq);
    fill(dropped_slots, [](auto i) { return reinterpret_cast<void*>(&dropped_slot<decltype(i)::value>); }, seq);
  }
} fill_slots;

}  // namespace

int constant_to_native(Category c, int value) { return convert(c, value, true); }
int constant_to_abi(Category c, int value) { return convert(c, value, false); }

void* op_function_trampoline(MPI_User_function* fn) { return op_slots.take(fn); }
void* op_function_c_trampoline(MPI_User_function_c* fn) { return op_c_slots.take(fn); }
void* comm_errhandler_trampoline(MPI_Comm_errhandler_function* fn) { return comm_eh_slots.take(fn); }
void* win_errhandler_trampoline(MPI_Win_errhandler_function* fn) { return win_eh_slots.take(fn); }
void* file_errhandler_trampoline(MPI_File_errhandler_function* fn) { return file_eh_slots.take(fn); }
void* session_errhandler_trampoline(MPI_Session_errhandler_function* fn) { return session_eh_slots.take(fn); }
void* event_dropped_trampoline(MPI_T_event_dropped_cb_function* fn) { return dropped_slots.take(fn); }

void buffer_address_to_abi(void* buffer_addr) {
  if (buffer_addr == nullptr) return;
  void** p = static_cast<void**>(buffer_addr);
  if (*p == kNativeBufferAutomatic) *p = MPI_BUFFER_AUTOMATIC;
}

int* weights_to_native(const int* weights) {
  if (weights == MPI_UNWEIGHTED) return native_unweighted;
  if (weights == MPI_WEIGHTS_EMPTY) return native_weights_empty;
  return const_cast<int*>(weights);
}

// The predefined attributes whose values are constants: the native library's int, converted,
// kept here (the attribute value is a pointer to it). A window's flavor and memory model point
// to one int per ABI value, so each window's pointer stays right; the process's MPI_HOST, MPI_IO
// and MPI_LASTUSEDCODE to one int each.
void attribute_value_to_abi(int abi_keyval, void* attribute_val, const int* flag) {
  if (attribute_val == nullptr || flag == nullptr || *flag == 0) return;
  static const int kWindowValues[] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_DYNAMIC,
                                      MPI_WIN_FLAVOR_SHARED, MPI_WIN_UNIFIED, MPI_WIN_SEPARATE};
  static int process_values[3];
  int** value = static_cast<int**>(attribute_val);
  if (abi_keyval == MPI_WIN_CREATE_FLAVOR || abi_keyval == MPI_WIN_MODEL) {
    int v = to_abi(abi_keyval == MPI_WIN_MODEL ? Category::kModel : Category::kFlavor, **value);
    for (const int& known : kWindowValues) {
      if (known == v) *value = const_cast<int*>(&known);
    }
    return;
  }
  int slot;
  switch (abi_keyval) {
    case MPI_HOST: slot = 0; break;
    case MPI_IO: slot = 1; break;
    case MPI_LASTUSEDCODE: slot = 2; break;
    default: return;
  }
  int v = **value;
  // The last code in use: the ABI's MPI_ERR_LASTCODE while the program added none.
  if (slot == 2) {
    v = v == kNativeErrLastcode ? MPI_ERR_LASTCODE : to_abi(Category::kError, v);
  } else {
    v = to_abi(Category::kRank, v);
  }
  __atomic_store_n(&process_values[slot], v, __ATOMIC_RELAXED);
  *value = &process_values[slot];
}

// MPI_Type_get_contents: the constants inside the integers of a subarray or darray type.
void contents_to_abi(int native_datatype, int* integers, long long max_integers) {
  int ni, na, nd, combiner;
  if (integers == nullptr || call.type_get_envelope(native_datatype, &ni, &na, &nd, &combiner) != 0) return;
  if (ni > max_integers) return;
  combiner = to_abi(Category::kCombiner, combiner);
  if (combiner == MPI_COMBINER_SUBARRAY) {  // ndims, sizes, subsizes, starts, order
    integers[ni - 1] = to_abi(Category::kOrder, integers[ni - 1]);
  } else if (combiner == MPI_COMBINER_DARRAY) {  // size, rank, ndims, gsizes, distribs, dargs, psizes, order
    int ndims = integers[2];
    for (int i = 0; i < 2 * ndims; ++i) integers[3 + ndims + i] = to_abi(Category::kDistribute, integers[3 + ndims + i]);
    integers[ni - 1] = to_abi(Category::kOrder, integers[ni - 1]);
  }
}

long long peers(MPI_Comm comm) {
  int c = to_native(comm), inter = 0, n = 0;
  if (call.comm_test_inter(c, &inter) != 0) return 0;
  if ((inter ? call.comm_remote_size(c, &n) : call.comm_size(c, &n)) != 0) return 0;
  return n;
}

namespace {
void degrees(MPI_Comm comm, int* in, int* out) {
  int c = to_native(comm), topology = 0, weighted = 0;
  *in = *out = 0;
  if (call.topo_test(c, &topology) != 0) return;
  topology = to_abi(Category::kTopology, topology);
  if (topology == MPI_CART) {
    int ndims = 0;
    call.cartdim_get(c, &ndims);
    *in = *out = 2 * ndims;
  } else if (topology == MPI_GRAPH) {
    int rank = 0, n = 0;
    call.comm_rank(c, &rank);
    call.graph_neighbors_count(c, rank, &n);
    *in = *out = n;
  } else if (topology == MPI_DIST_GRAPH) {
    call.dist_graph_neighbors_count(c, in, out, &weighted);
  }
}
}  // namespace

long long in_degree(MPI_Comm comm) {
  int in, out;
  degrees(comm, &in, &out);
  return in;
}
long long out_degree(MPI_Comm comm) {
  int in, out;
  degrees(comm, &in, &out);
  return out;
}
long long sum(long long count, const int* values) {
  long long s = 0;
  for (long long i = 0; values && i < count; ++i) s += values[i];
  return s;
}

}  // namespace gasket::mpi::abi

extern "C" {
// The ABI this library implements (the native library answers -1 -1: it is not the ABI).
int PMPI_Abi_get_version(int* abi_major, int* abi_minor) {
  if (abi_major == nullptr || abi_minor == nullptr) return MPI_ERR_ARG;
  *abi_major = MPI_ABI_VERSION;
  *abi_minor = MPI_ABI_SUBVERSION;
  return MPI_SUCCESS;
}
}
