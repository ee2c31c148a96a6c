// The conversions of libmpi_abi.so.1 (README.md, "Conversions"): ABI handles, constants,
// statuses and callbacks to the native library's and back. Included by the layer's translation
// units, which see the ABI's mpi.h (include/mpi.h); the native values come from values.h's
// tables, filled at load by runtime.cc.
#pragma once

#include <climits>
#include <cstdint>
#include <cstddef>
#include <cstring>

#include "mpi/abi/include/mpi.h"  // the ABI's, not the native one
#include "mpi/abi/values.h"

namespace gasket::mpi::abi {

// The native MPI_Status: source, tag, error, then the library's own 12 bytes, kept in the ABI
// status's MPI_internal.
struct NativeStatus {
  int source;
  int tag;
  int error;
  int cancelled;
  long long bytes;
};
static_assert(sizeof(NativeStatus) == 24, "the native MPI_Status");
static_assert(sizeof(MPI_Status) == 32 && offsetof(MPI_Status, MPI_internal) == 12, "the ABI's MPI_Status");
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "an int written into a handle's low half is its value");

// The native procedures the wrappers call (layer.cc: their names, and the table runtime.cc fills
// at load through dlsym).
extern const char* const kNativeProcedureNames[];
extern const int kNativeProcedureCount;
void** native_procedure_slots();

// ---- handles ----
// ABI values below 0x400 are the predefined and null handles; a native handle (at least 2^26)
// passes as its value. Native to ABI: per kind, the null (native 0) and the predefined handles
// by their offset from the kind's first handle.
constexpr int kPredefinedOffsets = 128;
struct KindTable {
  int base;         // the native handle of slot 0 of this kind
  intptr_t null_abi;
  intptr_t by_offset[kPredefinedOffsets];
  int extra_native;  // one predefined handle beyond the offsets (MPI_MESSAGE_NO_PROC)
  intptr_t extra_abi;
};
struct HandleTables {
  int to_native[0x400];
  int invalid;  // a native handle of no kind: what an ABI value no table knows becomes
  KindTable kinds[kHandleKinds];
};
extern HandleTables handle_tables;

template <class H> struct KindOf;
#define GASKET_ABI_KIND(type, kind) \
  template <> struct KindOf<type> { static constexpr HandleKind value = HandleKind::kind; }
GASKET_ABI_KIND(MPI_Comm, kComm);
GASKET_ABI_KIND(MPI_Group, kGroup);
GASKET_ABI_KIND(MPI_Datatype, kDatatype);
GASKET_ABI_KIND(MPI_Op, kOp);
GASKET_ABI_KIND(MPI_Request, kRequest);
GASKET_ABI_KIND(MPI_Info, kInfo);
GASKET_ABI_KIND(MPI_Win, kWin);
GASKET_ABI_KIND(MPI_Errhandler, kErrhandler);
GASKET_ABI_KIND(MPI_Message, kMessage);
GASKET_ABI_KIND(MPI_File, kFile);
GASKET_ABI_KIND(MPI_Session, kSession);
#undef GASKET_ABI_KIND

inline int to_native(const void* handle) {
  uintptr_t v = reinterpret_cast<uintptr_t>(handle);
  if (v < 0x400) return handle_tables.to_native[v];
  return v <= static_cast<uintptr_t>(INT_MAX) ? static_cast<int>(v) : handle_tables.invalid;
}

// A predefined datatype of the ABI that the native library does not have (the optional types
// gfortran has no kind for, MPI_REAL2, MPI_COMPLEX4): its table entry is the native null. Its
// size is MPI_UNDEFINED (MPI 5.0 section 21.4: how a program learns that it is absent).
inline bool absent_datatype(MPI_Datatype type) {
  uintptr_t v = reinterpret_cast<uintptr_t>(type);
  return v > reinterpret_cast<uintptr_t>(MPI_DATATYPE_NULL) && v < 0x400 && handle_tables.to_native[v] == 0;
}

template <class H> inline H to_abi(int native) {
  const KindTable& k = handle_tables.kinds[static_cast<int>(KindOf<H>::value)];
  if (native == 0) return reinterpret_cast<H>(k.null_abi);
  unsigned offset = static_cast<unsigned>(native) - static_cast<unsigned>(k.base);
  if (offset < kPredefinedOffsets && k.by_offset[offset] != 0) return reinterpret_cast<H>(k.by_offset[offset]);
  if (native == k.extra_native) return reinterpret_cast<H>(k.extra_abi);
  return reinterpret_cast<H>(static_cast<intptr_t>(native));
}

// ---- integer constants ----
int constant_to_native(Category c, int value);
int constant_to_abi(Category c, int value);

inline int to_native(Category c, int value) {
  if ((c == Category::kRank || c == Category::kTag) && value >= 0) return value;
  if (c == Category::kError && value == 0) return 0;
  return constant_to_native(c, value);
}
inline int to_abi(Category c, int value) {
  if ((c == Category::kRank || c == Category::kTag) && value >= 0) return value;
  if (c == Category::kError && value == 0) return 0;
  return constant_to_abi(c, value);
}
inline int error_to_abi(int rc) { return rc == 0 ? 0 : constant_to_abi(Category::kError, rc); }
inline int error_to_native(int rc) { return rc == 0 ? 0 : constant_to_native(Category::kError, rc); }

inline void constants_to_abi(Category c, int* values, long long n) {
  if (values == nullptr) return;
  for (long long i = 0; i < n; ++i) values[i] = to_abi(c, values[i]);
}

// ---- statuses ----
inline void status_to_native(const MPI_Status& a, NativeStatus* n) {
  n->source = to_native(Category::kRank, a.MPI_SOURCE);
  n->tag = to_native(Category::kTag, a.MPI_TAG);
  n->error = error_to_native(a.MPI_ERROR);
  std::memcpy(&n->cancelled, a.MPI_internal, 12);
}
inline void status_to_abi(const NativeStatus& n, MPI_Status* a) {
  a->MPI_SOURCE = to_abi(Category::kRank, n.source);
  a->MPI_TAG = to_abi(Category::kTag, n.tag);
  a->MPI_ERROR = error_to_abi(n.error);
  std::memcpy(a->MPI_internal, &n.cancelled, 12);
}

// ---- arguments: the native value while the call runs, written back by out() ----
// Arrays live on the stack up to kOnStack elements, on the heap beyond.
constexpr long long kOnStack = 32;
template <class T> class Scratch {
 public:
  explicit Scratch(long long n) : data_(n <= kOnStack ? stack_ : new T[static_cast<size_t>(n)]) {}
  ~Scratch() {
    if (data_ != stack_) delete[] data_;
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  T* data() { return data_; }

 private:
  T stack_[kOnStack];
  T* data_;
};

template <class H> class HandleRef {
 public:
  explicit HandleRef(H* abi) : abi_(abi), native_(abi ? to_native(*abi) : 0) {}
  int* get() { return abi_ ? &native_ : nullptr; }
  void out() {
    if (abi_) *abi_ = to_abi<H>(native_);
  }

 private:
  H* abi_;
  int native_;
};

template <class H> class HandleArray {
 public:
  HandleArray(const H* abi, long long n, bool writable = false)
      : abi_(const_cast<H*>(abi)), n_(abi && n > 0 ? n : 0), native_(n_) {
    for (long long i = 0; i < n_; ++i) native_.data()[i] = to_native(abi[i]);
  }
  int* get() { return abi_ ? native_.data() : nullptr; }
  void out() {
    for (long long i = 0; i < n_; ++i) abi_[i] = to_abi<H>(native_.data()[i]);
  }

 private:
  H* abi_;
  long long n_;
  Scratch<int> native_;
};

// A status written back: MPI_ERROR keeps the program's value when the library left it alone
// (the single-request completions do not set it), whatever that value is.
inline void status_back_to_abi(const NativeStatus& n, int native_error_before, MPI_Status* a) {
  int error_before = a->MPI_ERROR;
  status_to_abi(n, a);
  if (n.error == native_error_before) a->MPI_ERROR = error_before;
}

class StatusRef {
 public:
  explicit StatusRef(const MPI_Status* abi) : abi_(const_cast<MPI_Status*>(abi)) {
    if (abi_) status_to_native(*abi_, &native_);
    error_before_ = native_.error;
  }
  NativeStatus* get() { return abi_ ? &native_ : nullptr; }
  void out() {
    if (abi_) status_back_to_abi(native_, error_before_, abi_);
  }

 private:
  MPI_Status* abi_;
  NativeStatus native_{};
  int error_before_;
};

class StatusArray {
 public:
  StatusArray(const MPI_Status* abi, long long n)
      : abi_(const_cast<MPI_Status*>(abi)), n_(abi && n > 0 ? n : 0), native_(n_) {
    for (long long i = 0; i < n_; ++i) status_to_native(abi_[i], &native_.data()[i]);
  }
  NativeStatus* get() { return abi_ ? native_.data() : nullptr; }
  void out() {
    for (long long i = 0; i < n_; ++i) {
      status_back_to_abi(native_.data()[i], error_to_native(abi_[i].MPI_ERROR), &abi_[i]);
    }
  }

 private:
  MPI_Status* abi_;
  long long n_;
  Scratch<NativeStatus> native_;
};

class ConstantArray {
 public:
  ConstantArray(Category c, const int* abi, long long n) : abi_(abi), native_(abi && n > 0 ? n : 0) {
    for (long long i = 0; abi && i < n; ++i) native_.data()[i] = to_native(c, abi[i]);
  }
  int* get() { return abi_ ? native_.data() : nullptr; }

 private:
  const int* abi_;
  Scratch<int> native_;
};

// ---- address constants ----
inline void* buffer_to_native(const void* buffer) {
  uintptr_t v = reinterpret_cast<uintptr_t>(buffer);
  if (v - 1 < 2) return v == 1 ? kNativeInPlace : kNativeBufferAutomatic;  // MPI_IN_PLACE, MPI_BUFFER_AUTOMATIC
  return const_cast<void*>(buffer);
}
void buffer_address_to_abi(void* buffer_addr);
int* weights_to_native(const int* weights);
inline MPI_Offset displacement_to_native(MPI_Offset disp) {
  return disp == MPI_DISPLACEMENT_CURRENT ? kNativeDisplacementCurrent : disp;
}
inline MPI_Offset displacement_to_abi(MPI_Offset disp) {
  return disp == kNativeDisplacementCurrent ? MPI_DISPLACEMENT_CURRENT : disp;
}
inline MPI_T_pvar_handle pvar_handle_to_native(MPI_T_pvar_handle h) {
  return h == MPI_T_PVAR_ALL_HANDLES ? reinterpret_cast<MPI_T_pvar_handle>(-1) : h;
}
void attribute_value_to_abi(int abi_keyval, void* attribute_val, const int* flag);
void contents_to_abi(int native_datatype, int* integers, long long max_integers);

// ---- array lengths the call does not pass ----
long long peers(MPI_Comm comm);       // MPI_Alltoallw: the (remote) group's size
long long in_degree(MPI_Comm comm);   // neighborhood collectives: sources
long long out_degree(MPI_Comm comm);  // and destinations
long long sum(long long count, const int* values);

// ---- callbacks ----
// With extra state: the user's functions and extra state travel in a CallbackState the native
// library hands back to the trampoline as its extra state.
struct CallbackState {
  void (*fn[3])();
  void* extra;
};
template <class F> inline F* user(void* state, int i) {
  return reinterpret_cast<F*>(static_cast<CallbackState*>(state)->fn[i]);
}
inline void* user_extra(void* state) { return static_cast<CallbackState*>(state)->extra; }

// Attribute copy and delete: the predefined MPI_*_NULL_COPY_FN (0), MPI_*_DUP_FN (1) and
// MPI_*_NULL_DELETE_FN (0) are done here.
template <class H, int I>
int copy_trampoline(int object, int keyval, void* state, void* in, void* out, int* flag) {
  auto v = reinterpret_cast<uintptr_t>(static_cast<CallbackState*>(state)->fn[I]);
  if (v == 0) {
    *flag = 0;
    return 0;
  }
  if (v == 1) {
    *static_cast<void**>(out) = in;
    *flag = 1;
    return 0;
  }
  using F = int(H, int, void*, void*, void*, int*);
  return error_to_native(user<F>(state, I)(to_abi<H>(object), to_abi(Category::kKeyval, keyval), user_extra(state),
                                           in, out, flag));
}
template <class H, int I> int delete_trampoline(int object, int keyval, void* value, void* state) {
  if (static_cast<CallbackState*>(state)->fn[I] == nullptr) return 0;
  using F = int(H, int, void*, void*);
  return error_to_native(user<F>(state, I)(to_abi<H>(object), to_abi(Category::kKeyval, keyval), value, user_extra(state)));
}
template <int I> int comm_copy_trampoline(int o, int k, void* s, void* in, void* out, int* f) {
  return copy_trampoline<MPI_Comm, I>(o, k, s, in, out, f);
}
template <int I> int type_copy_trampoline(int o, int k, void* s, void* in, void* out, int* f) {
  return copy_trampoline<MPI_Datatype, I>(o, k, s, in, out, f);
}
template <int I> int win_copy_trampoline(int o, int k, void* s, void* in, void* out, int* f) {
  return copy_trampoline<MPI_Win, I>(o, k, s, in, out, f);
}
template <int I> int comm_delete_trampoline(int o, int k, void* v, void* s) { return delete_trampoline<MPI_Comm, I>(o, k, v, s); }
template <int I> int type_delete_trampoline(int o, int k, void* v, void* s) { return delete_trampoline<MPI_Datatype, I>(o, k, v, s); }
template <int I> int win_delete_trampoline(int o, int k, void* v, void* s) { return delete_trampoline<MPI_Win, I>(o, k, v, s); }

// Generalized requests: the state is freed after the user's free function.
template <int I> int grequest_query_trampoline(void* state, NativeStatus* status) {
  MPI_Status a;
  status_to_abi(*status, &a);
  int rc = user<MPI_Grequest_query_function>(state, I)(user_extra(state), &a);
  status_to_native(a, status);
  return error_to_native(rc);
}
template <int I> int grequest_free_trampoline(void* state) {
  int rc = user<MPI_Grequest_free_function>(state, I)(user_extra(state));
  delete static_cast<CallbackState*>(state);
  return error_to_native(rc);
}
template <int I> int grequest_cancel_trampoline(void* state, int complete) {
  return error_to_native(user<MPI_Grequest_cancel_function>(state, I)(user_extra(state), complete));
}

// Data representations (MPI_Register_datarep).
template <int I> int datarep_conversion_trampoline(void* userbuf, int datatype, int count, void* filebuf,
                                                   MPI_Offset position, void* state) {
  return error_to_native(user<MPI_Datarep_conversion_function>(state, I)(
      userbuf, to_abi<MPI_Datatype>(datatype), count, filebuf, position, user_extra(state)));
}
template <int I> int datarep_conversion_c_trampoline(void* userbuf, int datatype, MPI_Count count, void* filebuf,
                                                     MPI_Offset position, void* state) {
  return error_to_native(user<MPI_Datarep_conversion_function_c>(state, I)(
      userbuf, to_abi<MPI_Datatype>(datatype), count, filebuf, position, user_extra(state)));
}
template <int I> int datarep_extent_trampoline(int datatype, MPI_Aint* extent, void* state) {
  return error_to_native(
      user<MPI_Datarep_extent_function>(state, I)(to_abi<MPI_Datatype>(datatype), extent, user_extra(state)));
}

// Tools events: the user data is the state.
template <int I> void event_cb_trampoline(MPI_T_event_instance instance, MPI_T_event_registration registration,
                                          int safety, void* state) {
  user<MPI_T_event_cb_function>(state, I)(instance, registration,
                                          static_cast<MPI_T_cb_safety>(to_abi(Category::kCbSafety, safety)),
                                          user_extra(state));
}
template <int I> void event_free_cb_trampoline(MPI_T_event_registration registration, int safety, void* state) {
  user<MPI_T_event_free_cb_function>(state, I)(
      registration, static_cast<MPI_T_cb_safety>(to_abi(Category::kCbSafety, safety)), user_extra(state));
  delete static_cast<CallbackState*>(state);
}

// Without extra state: one trampoline per user function, from a table of slots (runtime.cc);
// nullptr when the table is full (the native library then refuses the call).
void* op_function_trampoline(MPI_User_function* fn);
void* op_function_c_trampoline(MPI_User_function_c* fn);
void* comm_errhandler_trampoline(MPI_Comm_errhandler_function* fn);
void* win_errhandler_trampoline(MPI_Win_errhandler_function* fn);
void* file_errhandler_trampoline(MPI_File_errhandler_function* fn);
void* session_errhandler_trampoline(MPI_Session_errhandler_function* fn);
void* event_dropped_trampoline(MPI_T_event_dropped_cb_function* fn);

}  // namespace gasket::mpi::abi
