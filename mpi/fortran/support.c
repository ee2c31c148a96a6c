/* The Fortran bindings' C helpers and the wrappers written by hand (mpi/fortran/README.md). */
#include "mpi/fortran/support.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint), "a Fortran status is an MPI_Status");
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER and C int are both MPI_Fint");
_Static_assert(sizeof(MPI_Aint) == 8 && sizeof(MPI_Count) == 8 && sizeof(MPI_Offset) == 8,
               "MPI_ADDRESS_KIND, MPI_COUNT_KIND and MPI_OFFSET_KIND are 8");

MPI_Fint mpi_fortran_bottom_;
MPI_Fint mpi_fortran_in_place_;
MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
MPI_Fint mpi_fortran_errcodes_ignore_[1];
MPI_Fint mpi_fortran_unweighted_[1];
MPI_Fint mpi_fortran_weights_empty_[1];
char mpi_fortran_argv_null_[1];
char mpi_fortran_argvs_null_[1];

/* ---- strings ---- */

static size_t trimmed(const char* s, size_t len);

char* gasket_f_string_in(const char* s, size_t len) {
  len = trimmed(s, len);
  char* c = malloc(len + 1);
  if (c == NULL) return NULL;
  memcpy(c, s, len);
  c[len] = '\0';
  return c;
}

char* gasket_f_info_string_in(const char* s, size_t len) {
  while (len > 0 && s[0] == ' ') ++s, --len;
  return gasket_f_string_in(s, len);
}

char* gasket_f_string_buffer(size_t len) {
  size_t most = MPI_MAX_INFO_VAL;  /* the longest MPI_MAX_* string a C binding writes */
  if (most < MPI_MAX_ERROR_STRING) most = MPI_MAX_ERROR_STRING;
  return calloc((len > most ? len : most) + 1, 1);
}

void gasket_f_string_out(char* dst, size_t len, const char* src) {
  if (src == NULL) return;
  size_t n = strlen(src);
  if (n > len) n = len;
  memcpy(dst, src, n);
  memset(dst + n, ' ', len - n);
}

/* ---- arrays of strings ---- */

static size_t trimmed(const char* s, size_t len) {
  while (len > 0 && s[len - 1] == ' ') --len;
  return len;
}

/* How many strings `stride` bytes apart come before the first blank one. */
static size_t before_blank(const char* s, size_t len, size_t stride) {
  size_t n = 0;
  while (trimmed(s + n * stride, len) > 0) ++n;
  return n;
}

/* Room for n strings of at most len characters as a NULL-ended array, its end kept aligned. */
static size_t room(size_t n, size_t len) {
  size_t text = n * (len + 1);
  return (n + 1) * sizeof(char*) + (text + sizeof(char*) - 1) / sizeof(char*) * sizeof(char*);
}

/* Writes n strings (`stride` bytes apart) at `to` as room(n, len) bytes: the array, then the text. */
static char** put_strings(char* to, const char* s, size_t len, size_t stride, size_t n) {
  char** array = (char**)(void*)to;
  char* text = to + (n + 1) * sizeof(char*);
  for (size_t i = 0; i < n; ++i) {
    size_t l = trimmed(s + i * stride, len);
    memcpy(text, s + i * stride, l);
    text[l] = '\0';
    array[i] = text;
    text += l + 1;
  }
  array[n] = NULL;
  return array;
}

static void* allocate(size_t bytes) {
  void* p = malloc(bytes);
  if (p == NULL) {
    fprintf(stderr, "gasket Fortran bindings: out of memory converting %zu bytes of strings\n", bytes);
    abort();
  }
  return p;
}

/* Not the root of comm (a bad comm or root counts as the root: C's call then names the error). */
static int not_root(MPI_Comm comm, int root) {
  int rank = -1;
  return PMPI_Comm_rank(comm, &rank) == MPI_SUCCESS && rank != root && root >= 0;
}

char** gasket_f_argv(const char* argv, size_t len, MPI_Comm comm, int root) {
  if (argv == mpi_fortran_argv_null_ || not_root(comm, root)) return MPI_ARGV_NULL;
  size_t n = before_blank(argv, len, len);
  return put_strings(allocate(room(n, len)), argv, len, len, n);
}

char** gasket_f_strings(const char* strings, size_t len, MPI_Fint count, MPI_Comm comm, int root) {
  if (not_root(comm, root)) return NULL;
  size_t n = count > 0 ? (size_t)count : 0;
  return put_strings(allocate(room(n, len)), strings, len, len, n);
}

char*** gasket_f_argvs(const char* argvs, size_t len, MPI_Fint count, MPI_Comm comm, int root) {
  if (argvs == mpi_fortran_argvs_null_ || not_root(comm, root)) return MPI_ARGVS_NULL;
  size_t rows = count > 0 ? (size_t)count : 0, stride = rows * len, bytes = (rows + 1) * sizeof(char**);
  for (size_t i = 0; i < rows; ++i) bytes += room(before_blank(argvs + i * len, len, stride), len);
  char* block = allocate(bytes);
  char*** array = (char***)(void*)block;
  char* at = block + (rows + 1) * sizeof(char**);
  for (size_t i = 0; i < rows; ++i) {
    size_t n = before_blank(argvs + i * len, len, stride);
    array[i] = put_strings(at, argvs + i * len, len, stride, n);
    at += room(n, len);
  }
  array[rows] = NULL;
  return array;
}

/* ---- mpi_f08's choice buffers ---- */

static int section_error(const char* call, int code, const char* fmt, const char* buffer, long long a, long long b) {
  int rank = -1;
  int initialized = 0;
  PMPI_Initialized(&initialized);
  if (initialized) PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char what[256];
  snprintf(what, sizeof what, fmt, buffer, a, b);
  fprintf(stderr, "%s: rank %d: %s\n", call, rank, what);
  return initialized ? PMPI_Comm_call_errhandler(MPI_COMM_WORLD, code), code : code;
}

/* Each dimension's stride is the bytes of the dimensions below it (CFI_is_contiguous is in
 * libgfortran, which the C library does not link). */
static int contiguous(const CFI_cdesc_t* d) {
  CFI_index_t expected = (CFI_index_t)d->elem_len;
  for (int r = 0; r < d->rank; ++r) {
    if (d->dim[r].extent > 1 && d->dim[r].sm != expected) return 0;
    expected *= d->dim[r].extent;
  }
  return 1;
}

int gasket_f08_section_open(const char* call, const char* buffer, CFI_cdesc_t* d, MPI_Count* count,
                            MPI_Datatype* datatype, struct gasket_f08_section* s) {
  s->base = d->base_addr;
  s->made = MPI_DATATYPE_NULL;
  if (d->base_addr == &mpi_fortran_bottom_ || d->base_addr == &mpi_fortran_in_place_) {
    s->base = gasket_f_buffer(d->base_addr);
    return MPI_SUCCESS;
  }
  if (d->base_addr == NULL || contiguous(d)) return MPI_SUCCESS;
  if (count == NULL) {
    return section_error(call, MPI_ERR_BUFFER, "%s is a non-contiguous array section; this argument needs a contiguous one (rank %lld of the section, element %lld bytes)",
                         buffer, (long long)d->rank, (long long)d->elem_len);
  }
  MPI_Count size = 0;
  MPI_Aint lb = 0, extent = 0;
  int e = PMPI_Type_size_c(*datatype, &size);
  if (e == MPI_SUCCESS) e = PMPI_Type_get_extent(*datatype, &lb, &extent);
  if (e != MPI_SUCCESS) return e;
  long long elements = 1;
  for (int r = 0; r < d->rank; ++r) elements *= d->dim[r].extent;
  if (size == 0 || lb != 0 || extent != size || (MPI_Count)d->elem_len % size != 0) {
    return section_error(call, MPI_ERR_BUFFER, "%s: a non-contiguous array section needs a datatype without holes whose size divides the array element (%lld bytes; datatype size %lld)",
                         buffer, (long long)d->elem_len, (long long)size);
  }
  if (*count * size != elements * (MPI_Count)d->elem_len) {
    return section_error(call, MPI_ERR_COUNT, "%s: count %lld does not cover the non-contiguous array section of %lld elements (gasket moves whole sections)",
                         buffer, (long long)*count, elements);
  }
  MPI_Datatype t = *datatype, next;
  int per_element = (int)((MPI_Count)d->elem_len / size);
  if (per_element > 1) {
    if ((e = PMPI_Type_contiguous(per_element, t, &next)) != MPI_SUCCESS) return e;
    t = next;
  }
  for (int r = 0; r < d->rank; ++r) {
    if (d->dim[r].extent > INT32_MAX) {
      return section_error(call, MPI_ERR_COUNT, "%s: dimension of %lld elements in a non-contiguous array section (at most %lld)",
                           buffer, (long long)d->dim[r].extent, (long long)INT32_MAX);
    }
    e = PMPI_Type_create_hvector((int)d->dim[r].extent, 1, d->dim[r].sm, t, &next);
    if (t != *datatype) PMPI_Type_free(&t);
    if (e != MPI_SUCCESS) return e;
    t = next;
  }
  if ((e = PMPI_Type_commit(&t)) != MPI_SUCCESS) return e;
  s->made = t;
  *datatype = t;
  *count = 1;
  return MPI_SUCCESS;
}

void gasket_f08_section_close(struct gasket_f08_section* s) {
  if (s->made != MPI_DATATYPE_NULL) PMPI_Type_free(&s->made);
}

/* MPI_Sizeof (`use mpi`, `use mpi_f08`): the bytes of one element of x. */
void gasket_f_sizeof(CFI_cdesc_t* x, MPI_Fint* size, MPI_Fint* ierror) {
  *size = (MPI_Fint)x->elem_len;
  if (ierror != NULL) *ierror = MPI_SUCCESS;
}

/* MPI_F_sync_reg: an external procedure the compiler cannot see into, so it must assume `buf` is
 * read and written here and cannot keep it in a register across the call. Nothing to do. */
void gasket_f_sync_reg(CFI_cdesc_t* buf) { (void)buf; }
/* and mpif.h's MPI_F_SYNC_REG (no interface: the buffer's address) */
void mpi_f_sync_reg_(void* buf) { (void)buf; }
void pmpi_f_sync_reg_(void* buf) { (void)buf; }

/* ---- wrappers written by hand ---- */

/* Evaluates `call` once, and stores its code where the caller asked (mpi_f08's ierror is optional). */
#define GASKET_F_RETURN(call)           \
  do {                                  \
    int gasket_e = (call);              \
    if (ierror != NULL) *ierror = gasket_e; \
  } while (0)

/* Fortran's MPI_Init has no argc/argv (MPI_INFO_ENV's argv comes from /proc/self/cmdline). */
void mpi_init_(MPI_Fint* ierror) { GASKET_F_RETURN(MPI_Init(NULL, NULL)); }
void pmpi_init_(MPI_Fint* ierror) { GASKET_F_RETURN(PMPI_Init(NULL, NULL)); }
void mpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierror) {
  GASKET_F_RETURN(MPI_Init_thread(NULL, NULL, *required, provided));
}
void pmpi_init_thread_(MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierror) {
  GASKET_F_RETURN(PMPI_Init_thread(NULL, NULL, *required, provided));
}

/* Fortran's MPI_Pcontrol has the level only: no varargs (not Fortran) and no ierror (MPI 4.1
 * section 15.2.4 gives it none in any interface; writing one would write through whatever the
 * caller's next argument slot holds). */
void mpi_pcontrol_(MPI_Fint* level) { (void)MPI_Pcontrol(*level); }
void pmpi_pcontrol_(MPI_Fint* level) { (void)PMPI_Pcontrol(*level); }

/* Attribute callbacks written in Fortran take every argument by reference and the attribute
 * values as INTEGER(KIND=MPI_ADDRESS_KIND): a keyval made from Fortran keeps its two functions and
 * the user's extra_state in a record passed to C as extra_state, and C calls these adapters. One
 * adapter serves communicators, windows and datatypes (all int handles). The record lives as long
 * as the process: attributes may outlive MPI_*_free_keyval. */
typedef void FortranCopyFn(MPI_Fint* old, MPI_Fint* keyval, MPI_Aint* extra_state, MPI_Aint* in, MPI_Aint* out,
                           MPI_Fint* flag, MPI_Fint* ierror);
typedef void FortranDeleteFn(MPI_Fint* handle, MPI_Fint* keyval, MPI_Aint* value, MPI_Aint* extra_state,
                             MPI_Fint* ierror);
/* The deprecated MPI_Keyval_create's callbacks: the same with INTEGER values and extra_state. */
typedef void FortranCopyFn1(MPI_Fint* old, MPI_Fint* keyval, MPI_Fint* extra_state, MPI_Fint* in, MPI_Fint* out,
                            MPI_Fint* flag, MPI_Fint* ierror);
typedef void FortranDeleteFn1(MPI_Fint* handle, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* extra_state,
                              MPI_Fint* ierror);
struct FortranKeyval {
  void (*copy)(void);  /* a FortranCopyFn, or a FortranCopyFn1 when integer_values */
  void (*del)(void);
  MPI_Aint extra_state;
  int integer_values;
};

static int copy_adapter(int old, int keyval, void* extra, void* in, void* out, int* flag) {
  struct FortranKeyval* k = extra;
  MPI_Fint o = old, kv = keyval, f = 0, ierror = MPI_SUCCESS;
  MPI_Aint value_in = gasket_f_attribute_out(in), value_out = 0;
  if (k->integer_values) {
    MPI_Fint extra1 = (MPI_Fint)k->extra_state, in1 = (MPI_Fint)value_in, out1 = 0;
    ((FortranCopyFn1*)k->copy)(&o, &kv, &extra1, &in1, &out1, &f, &ierror);
    value_out = out1;
  } else {
    ((FortranCopyFn*)k->copy)(&o, &kv, &k->extra_state, &value_in, &value_out, &f, &ierror);
  }
  if (f != 0) *(void**)out = gasket_f_attribute_in(value_out);
  *flag = f != 0;
  return ierror;
}

static int delete_adapter(int handle, int keyval, void* value, void* extra) {
  struct FortranKeyval* k = extra;
  MPI_Fint h = handle, kv = keyval, ierror = MPI_SUCCESS;
  MPI_Aint v = gasket_f_attribute_out(value);
  if (k->integer_values) {
    MPI_Fint extra1 = (MPI_Fint)k->extra_state, v1 = (MPI_Fint)v;
    ((FortranDeleteFn1*)k->del)(&h, &kv, &v1, &extra1, &ierror);
  } else {
    ((FortranDeleteFn*)k->del)(&h, &kv, &v, &k->extra_state, &ierror);
  }
  return ierror;
}

typedef int CreateKeyval(MPI_Comm_copy_attr_function*, MPI_Comm_delete_attr_function*, int*, void*);

static int create_keyval(CreateKeyval* create, void (*copy)(void), void (*del)(void), MPI_Fint* keyval,
                         MPI_Aint extra_state, int integer_values) {
  struct FortranKeyval* k = malloc(sizeof *k);
  if (k == NULL) return MPI_ERR_NO_MEM;
  k->copy = copy, k->del = del, k->extra_state = extra_state, k->integer_values = integer_values;
  int e = create(copy_adapter, delete_adapter, keyval, k);
  if (e != MPI_SUCCESS) free(k);
  return e;
}

/* MPI_Win_create_keyval and MPI_Type_create_keyval have the same C signature with int handles. */
#define GASKET_F_KEYVAL(fortran, c_name)                                                           \
  void fortran(FortranCopyFn* copy, FortranDeleteFn* del, MPI_Fint* keyval, MPI_Aint* extra_state,  \
               MPI_Fint* ierror) {                                                                  \
    GASKET_F_RETURN(create_keyval((CreateKeyval*)c_name, (void (*)(void))copy, (void (*)(void))del, keyval, \
                                  *extra_state, 0));                                                \
  }
GASKET_F_KEYVAL(mpi_comm_create_keyval_, MPI_Comm_create_keyval)
GASKET_F_KEYVAL(pmpi_comm_create_keyval_, PMPI_Comm_create_keyval)
GASKET_F_KEYVAL(mpi_win_create_keyval_, MPI_Win_create_keyval)
GASKET_F_KEYVAL(pmpi_win_create_keyval_, PMPI_Win_create_keyval)
GASKET_F_KEYVAL(mpi_type_create_keyval_, MPI_Type_create_keyval)
GASKET_F_KEYVAL(pmpi_type_create_keyval_, PMPI_Type_create_keyval)
void mpi_keyval_create_(FortranCopyFn1* copy, FortranDeleteFn1* del, MPI_Fint* keyval, MPI_Fint* extra_state,
                        MPI_Fint* ierror) {
  GASKET_F_RETURN(create_keyval((CreateKeyval*)MPI_Keyval_create, (void (*)(void))copy, (void (*)(void))del, keyval,
                                *extra_state, 1));
}
void pmpi_keyval_create_(FortranCopyFn1* copy, FortranDeleteFn1* del, MPI_Fint* keyval, MPI_Fint* extra_state,
                         MPI_Fint* ierror) {
  GASKET_F_RETURN(create_keyval((CreateKeyval*)PMPI_Keyval_create, (void (*)(void))copy, (void (*)(void))del, keyval,
                                *extra_state, 1));
}

/* The predefined attribute callbacks, Fortran-callable (MPI_COMM_DUP_FN, ...). */
static void null_copy(MPI_Fint* old, MPI_Fint* keyval, MPI_Aint* extra, MPI_Aint* in, MPI_Aint* out,
                      MPI_Fint* flag, MPI_Fint* ierror) {
  (void)old, (void)keyval, (void)extra, (void)in, (void)out;
  *flag = 0;
  *ierror = MPI_SUCCESS;
}
static void dup_copy(MPI_Fint* old, MPI_Fint* keyval, MPI_Aint* extra, MPI_Aint* in, MPI_Aint* out, MPI_Fint* flag,
                     MPI_Fint* ierror) {
  (void)old, (void)keyval, (void)extra;
  *out = *in;
  *flag = 1;
  *ierror = MPI_SUCCESS;
}
static void null_delete(MPI_Fint* handle, MPI_Fint* keyval, MPI_Aint* value, MPI_Aint* extra, MPI_Fint* ierror) {
  (void)handle, (void)keyval, (void)value, (void)extra;
  *ierror = MPI_SUCCESS;
}
#define GASKET_F_CALLBACK(name, body) \
  FortranCopyFn name __attribute__((alias(#body)));
GASKET_F_CALLBACK(mpi_comm_null_copy_fn_, null_copy)
GASKET_F_CALLBACK(mpi_win_null_copy_fn_, null_copy)
GASKET_F_CALLBACK(mpi_type_null_copy_fn_, null_copy)
GASKET_F_CALLBACK(mpi_comm_dup_fn_, dup_copy)
GASKET_F_CALLBACK(mpi_win_dup_fn_, dup_copy)
GASKET_F_CALLBACK(mpi_type_dup_fn_, dup_copy)
FortranDeleteFn mpi_comm_null_delete_fn_ __attribute__((alias("null_delete")));
FortranDeleteFn mpi_win_null_delete_fn_ __attribute__((alias("null_delete")));
FortranDeleteFn mpi_type_null_delete_fn_ __attribute__((alias("null_delete")));
/* and MPI_Keyval_create's: MPI_NULL_COPY_FN, MPI_DUP_FN, MPI_NULL_DELETE_FN */
void mpi_null_copy_fn_(MPI_Fint* old, MPI_Fint* keyval, MPI_Fint* extra, MPI_Fint* in, MPI_Fint* out, MPI_Fint* flag,
                       MPI_Fint* ierror) {
  (void)old, (void)keyval, (void)extra, (void)in, (void)out;
  *flag = 0;
  *ierror = MPI_SUCCESS;
}
void mpi_dup_fn_(MPI_Fint* old, MPI_Fint* keyval, MPI_Fint* extra, MPI_Fint* in, MPI_Fint* out, MPI_Fint* flag,
                 MPI_Fint* ierror) {
  (void)old, (void)keyval, (void)extra;
  *out = *in;
  *flag = 1;
  *ierror = MPI_SUCCESS;
}
void mpi_null_delete_fn_(MPI_Fint* handle, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* extra, MPI_Fint* ierror) {
  (void)handle, (void)keyval, (void)value, (void)extra;
  *ierror = MPI_SUCCESS;
}

/* Attribute values across languages (MPI 4.1 section 19.3.7): a value set from Fortran (an
 * address-sized integer, or MPI_ATTR_PUT's INTEGER sign-extended) is cached as the address of a
 * cell holding it, so that C's MPI_*_get_attr gets a pointer to the stored value; Fortran gets the
 * cell's value back, and the value itself of what C set (a pointer, as an integer). Cells are
 * never written after they are made and live as long as the process (attributes are copied by C
 * callbacks as they are, and may outlive their keyval): one cell per distinct value. */
enum { kCellBuckets = 1024 };
struct AttributeCell {
  MPI_Aint value;  /* first: the address C gets is the value's */
  struct AttributeCell* next_by_value;
  struct AttributeCell* next_by_address;
};
static struct AttributeCell* cells_by_value[kCellBuckets];
static struct AttributeCell* cells_by_address[kCellBuckets];
static pthread_mutex_t cells_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t cell_bucket(uintptr_t key) { return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 54) % kCellBuckets; }

void* gasket_f_attribute_in(MPI_Aint value) {
  pthread_mutex_lock(&cells_lock);
  struct AttributeCell** chain = &cells_by_value[cell_bucket((uintptr_t)value)];
  struct AttributeCell* c = *chain;
  while (c != NULL && c->value != value) c = c->next_by_value;
  if (c == NULL && (c = malloc(sizeof *c)) != NULL) {
    c->value = value;
    c->next_by_value = *chain;
    *chain = c;
    struct AttributeCell** by_address = &cells_by_address[cell_bucket((uintptr_t)c)];
    c->next_by_address = *by_address;
    *by_address = c;
  }
  pthread_mutex_unlock(&cells_lock);
  return c != NULL ? (void*)&c->value : (void*)value;  /* out of memory: the value itself */
}

MPI_Aint gasket_f_attribute_out(void* cached) {
  pthread_mutex_lock(&cells_lock);
  struct AttributeCell* c = cells_by_address[cell_bucket((uintptr_t)cached)];
  while (c != NULL && (void*)&c->value != cached) c = c->next_by_address;
  pthread_mutex_unlock(&cells_lock);
  return c != NULL ? c->value : (MPI_Aint)cached;
}

/* MPI_*_get_attr: Fortran gets the attribute's value. C hands predefined attributes out as
 * pointers to the value (MPI_WIN_BASE: the base itself), user attributes as cached (above). */
typedef int GetAttr(int, int, void*, int*);
static int get_attr(GetAttr* get, int handle, int keyval, MPI_Aint* value, MPI_Fint* flag, int pointer_to_int,
                    int pointer_to_aint) {
  void* c_value = NULL;
  int f = 0;
  int e = get(handle, keyval, &c_value, &f);
  *flag = f != 0;
  if (e != MPI_SUCCESS || !f) return e;
  if (pointer_to_int) {
    *value = *(int*)c_value;
  } else if (pointer_to_aint) {
    *value = *(MPI_Aint*)c_value;
  } else {
    *value = gasket_f_attribute_out(c_value);
  }
  return e;
}
static int comm_predefined(int keyval) { return keyval >= MPI_TAG_UB && keyval <= MPI_LASTUSEDCODE; }
static int win_int(int keyval) {
  return keyval == MPI_WIN_DISP_UNIT || keyval == MPI_WIN_CREATE_FLAVOR || keyval == MPI_WIN_MODEL;
}
#define GASKET_F_GET_ATTR(fortran, c_name, pointer_to_int, pointer_to_aint)                              \
  void fortran(MPI_Fint* handle, MPI_Fint* keyval, MPI_Aint* value, MPI_Fint* flag, MPI_Fint* ierror) {  \
    GASKET_F_RETURN(get_attr((GetAttr*)c_name, *handle, *keyval, value, flag, pointer_to_int, pointer_to_aint)); \
  }
GASKET_F_GET_ATTR(mpi_comm_get_attr_, MPI_Comm_get_attr, comm_predefined(*keyval), 0)
GASKET_F_GET_ATTR(pmpi_comm_get_attr_, PMPI_Comm_get_attr, comm_predefined(*keyval), 0)
GASKET_F_GET_ATTR(mpi_win_get_attr_, MPI_Win_get_attr, win_int(*keyval), *keyval == MPI_WIN_SIZE)
GASKET_F_GET_ATTR(pmpi_win_get_attr_, PMPI_Win_get_attr, win_int(*keyval), *keyval == MPI_WIN_SIZE)
GASKET_F_GET_ATTR(mpi_type_get_attr_, MPI_Type_get_attr, 0, 0)
GASKET_F_GET_ATTR(pmpi_type_get_attr_, PMPI_Type_get_attr, 0, 0)

/* The deprecated MPI_Attr_get / MPI_Attr_put: INTEGER attribute values. */
static int attr_get(GetAttr* get, MPI_Fint comm, MPI_Fint keyval, MPI_Fint* value, MPI_Fint* flag) {
  MPI_Aint v = 0;
  int e = get_attr(get, comm, keyval, &v, flag, comm_predefined(keyval), 0);
  if (e == MPI_SUCCESS && *flag) *value = (MPI_Fint)v;
  return e;
}
void mpi_attr_get_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* flag, MPI_Fint* ierror) {
  GASKET_F_RETURN(attr_get((GetAttr*)MPI_Attr_get, *comm, *keyval, value, flag));
}
void pmpi_attr_get_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* flag, MPI_Fint* ierror) {
  GASKET_F_RETURN(attr_get((GetAttr*)PMPI_Attr_get, *comm, *keyval, value, flag));
}
void mpi_attr_put_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* ierror) {
  GASKET_F_RETURN(MPI_Attr_put(*comm, *keyval, gasket_f_attribute_in(*value)));
}
void pmpi_attr_put_(MPI_Fint* comm, MPI_Fint* keyval, MPI_Fint* value, MPI_Fint* ierror) {
  GASKET_F_RETURN(PMPI_Attr_put(*comm, *keyval, gasket_f_attribute_in(*value)));
}

/* Fortran's MPI_Info_create_env has no argc/argv: the command line comes from /proc/self/cmdline. */
void mpi_info_create_env_(MPI_Fint* info, MPI_Fint* ierror) { GASKET_F_RETURN(MPI_Info_create_env(0, NULL, info)); }
void pmpi_info_create_env_(MPI_Fint* info, MPI_Fint* ierror) { GASKET_F_RETURN(PMPI_Info_create_env(0, NULL, info)); }

/* Generalized requests' callbacks written in Fortran take extra_state (INTEGER(KIND=
 * MPI_ADDRESS_KIND)) and the rest by reference: the request keeps the three and the user's
 * extra_state in a record passed to C as extra_state; the free adapter frees it. */
typedef void FortranQueryFn(MPI_Aint* extra_state, MPI_Fint* status, MPI_Fint* ierror);
typedef void FortranFreeFn(MPI_Aint* extra_state, MPI_Fint* ierror);
typedef void FortranCancelFn(MPI_Aint* extra_state, MPI_Fint* complete, MPI_Fint* ierror);
struct FortranGrequest {
  FortranQueryFn* query;
  FortranFreeFn* free;
  FortranCancelFn* cancel;
  MPI_Aint extra_state;
};

static int grequest_query(void* extra, MPI_Status* status) {
  struct FortranGrequest* g = extra;
  MPI_Fint ierror = MPI_SUCCESS;
  g->query(&g->extra_state, (MPI_Fint*)(void*)status, &ierror);
  return ierror;
}
static int grequest_free(void* extra) {
  struct FortranGrequest* g = extra;
  MPI_Fint ierror = MPI_SUCCESS;
  g->free(&g->extra_state, &ierror);
  free(g);
  return ierror;
}
static int grequest_cancel(void* extra, int complete) {
  struct FortranGrequest* g = extra;
  MPI_Fint c = complete != 0, ierror = MPI_SUCCESS;
  g->cancel(&g->extra_state, &c, &ierror);
  return ierror;
}

typedef int GrequestStart(MPI_Grequest_query_function*, MPI_Grequest_free_function*,
                          MPI_Grequest_cancel_function*, void*, MPI_Request*);
static int grequest_start(GrequestStart* start, FortranQueryFn* query, FortranFreeFn* free_fn,
                          FortranCancelFn* cancel, MPI_Aint extra_state, MPI_Fint* request) {
  struct FortranGrequest* g = malloc(sizeof *g);
  if (g == NULL) return MPI_ERR_NO_MEM;
  g->query = query, g->free = free_fn, g->cancel = cancel, g->extra_state = extra_state;
  /* a missing callback stays NULL, so C's check names it */
  int e = start(query ? grequest_query : NULL, free_fn ? grequest_free : NULL, cancel ? grequest_cancel : NULL, g,
                request);
  if (e != MPI_SUCCESS) free(g);
  return e;
}
void mpi_grequest_start_(FortranQueryFn* query, FortranFreeFn* free_fn, FortranCancelFn* cancel,
                         MPI_Aint* extra_state, MPI_Fint* request, MPI_Fint* ierror) {
  GASKET_F_RETURN(grequest_start(MPI_Grequest_start, query, free_fn, cancel, *extra_state, request));
}
void pmpi_grequest_start_(FortranQueryFn* query, FortranFreeFn* free_fn, FortranCancelFn* cancel,
                          MPI_Aint* extra_state, MPI_Fint* request, MPI_Fint* ierror) {
  GASKET_F_RETURN(grequest_start(PMPI_Grequest_start, query, free_fn, cancel, *extra_state, request));
}

/* User data representations with conversion functions written in Fortran: the buffers come by
 * reference (`mpi`: <type> USERBUF(*)) or as TYPE(C_PTR) by value (mpi_f08), both the address;
 * the rest by reference. The representation keeps the functions and the user's extra_state in a
 * record passed to C as extra_state (for the life of the process, as the representation).
 * MPI_CONVERSION_FN_NULL(_C) is a Fortran-callable function of this file: it becomes C's NULL. */
typedef void FortranConversionFn(void* userbuf, MPI_Fint* datatype, MPI_Fint* count, void* filebuf,
                                 MPI_Offset* position, MPI_Aint* extra_state, MPI_Fint* ierror);
typedef void FortranConversionFnC(void* userbuf, MPI_Fint* datatype, MPI_Count* count, void* filebuf,
                                  MPI_Offset* position, MPI_Aint* extra_state, MPI_Fint* ierror);
typedef void FortranExtentFn(MPI_Fint* datatype, MPI_Aint* extent, MPI_Aint* extra_state, MPI_Fint* ierror);
struct FortranDatarep {
  void (*read)(void);  /* a FortranConversionFn, or a FortranConversionFnC when large */
  void (*write)(void);
  FortranExtentFn* extent;
  MPI_Aint extra_state;
  int large;
};

static void conversion_fn_null(void* userbuf, MPI_Fint* datatype, MPI_Fint* count, void* filebuf,
                               MPI_Offset* position, MPI_Aint* extra_state, MPI_Fint* ierror) {
  (void)userbuf, (void)datatype, (void)count, (void)filebuf, (void)position, (void)extra_state;
  *ierror = MPI_ERR_CONVERSION;  /* never registered as a function: it stands for C's NULL */
}
FortranConversionFn mpi_conversion_fn_null_ __attribute__((alias("conversion_fn_null")));
FortranConversionFn mpi_conversion_fn_null_c_ __attribute__((alias("conversion_fn_null")));

static int convert(struct FortranDatarep* d, void (*fn)(void), void* userbuf, MPI_Datatype datatype,
                   MPI_Count count, void* filebuf, MPI_Offset position) {
  MPI_Fint t = datatype, ierror = MPI_SUCCESS;
  if (d->large) {
    ((FortranConversionFnC*)fn)(userbuf, &t, &count, filebuf, &position, &d->extra_state, &ierror);
  } else {
    MPI_Fint n = (MPI_Fint)count;  /* MPI_Register_datarep's count is an int: it fits */
    ((FortranConversionFn*)fn)(userbuf, &t, &n, filebuf, &position, &d->extra_state, &ierror);
  }
  return ierror;
}
static int read_int(void* u, MPI_Datatype t, int n, void* f, MPI_Offset at, void* d) {
  return convert(d, ((struct FortranDatarep*)d)->read, u, t, n, f, at);
}
static int write_int(void* u, MPI_Datatype t, int n, void* f, MPI_Offset at, void* d) {
  return convert(d, ((struct FortranDatarep*)d)->write, u, t, n, f, at);
}
static int read_large(void* u, MPI_Datatype t, MPI_Count n, void* f, MPI_Offset at, void* d) {
  return convert(d, ((struct FortranDatarep*)d)->read, u, t, n, f, at);
}
static int write_large(void* u, MPI_Datatype t, MPI_Count n, void* f, MPI_Offset at, void* d) {
  return convert(d, ((struct FortranDatarep*)d)->write, u, t, n, f, at);
}
static int datarep_extent(MPI_Datatype datatype, MPI_Aint* extent, void* extra) {
  struct FortranDatarep* d = extra;
  MPI_Fint t = datatype, ierror = MPI_SUCCESS;
  d->extent(&t, extent, &d->extra_state, &ierror);
  return ierror;
}

typedef int RegisterDatarep(const char*, void*, void*, MPI_Datarep_extent_function*, void*);
static int register_datarep(RegisterDatarep* reg, int large, const char* name, size_t len, void (*read)(void),
                            void (*write)(void), FortranExtentFn* extent, MPI_Aint extra_state) {
  char* c_name = gasket_f_string_in(name, len);
  struct FortranDatarep* d = malloc(sizeof *d);
  if (c_name == NULL || d == NULL) return free(c_name), free(d), MPI_ERR_NO_MEM;
  d->read = read, d->write = write, d->extent = extent, d->extra_state = extra_state, d->large = large;
  void (*null)(void) = (void (*)(void))conversion_fn_null;
  void* c_read = read == null ? NULL : large ? (void*)read_large : (void*)read_int;
  void* c_write = write == null ? NULL : large ? (void*)write_large : (void*)write_int;
  int e = reg(c_name, c_read, c_write, extent ? datarep_extent : NULL, d);
  free(c_name);
  if (e != MPI_SUCCESS) free(d);
  return e;
}
#define GASKET_F_DATAREP(fortran, c_name, large)                                                       \
  void fortran(char* datarep, void* read, void* write, void* extent, MPI_Aint* extra_state, MPI_Fint* ierror, \
               size_t datarep_len) {                                                                   \
    GASKET_F_RETURN(register_datarep((RegisterDatarep*)c_name, large, datarep, datarep_len,            \
                                     (void (*)(void))read, (void (*)(void))write,                       \
                                     (FortranExtentFn*)extent, *extra_state));                          \
  }
GASKET_F_DATAREP(mpi_register_datarep_, MPI_Register_datarep, 0)
GASKET_F_DATAREP(pmpi_register_datarep_, PMPI_Register_datarep, 0)
GASKET_F_DATAREP(mpi_register_datarep_c_, MPI_Register_datarep_c, 1)
GASKET_F_DATAREP(pmpi_register_datarep_c_, PMPI_Register_datarep_c, 1)

/* mpi_f08's linker names (MPI 4.1 section 19.1.5: MPI_x_f08, mangled) of the wrappers above. */
#define GASKET_F08_NAME(wrapper) extern __typeof__(wrapper) wrapper##f08_ __attribute__((alias(#wrapper)));
GASKET_F08_NAME(mpi_init_)
GASKET_F08_NAME(pmpi_init_)
GASKET_F08_NAME(mpi_init_thread_)
GASKET_F08_NAME(pmpi_init_thread_)
GASKET_F08_NAME(mpi_pcontrol_)
GASKET_F08_NAME(pmpi_pcontrol_)
GASKET_F08_NAME(mpi_comm_create_keyval_)
GASKET_F08_NAME(pmpi_comm_create_keyval_)
GASKET_F08_NAME(mpi_win_create_keyval_)
GASKET_F08_NAME(pmpi_win_create_keyval_)
GASKET_F08_NAME(mpi_type_create_keyval_)
GASKET_F08_NAME(pmpi_type_create_keyval_)
GASKET_F08_NAME(mpi_comm_get_attr_)
GASKET_F08_NAME(pmpi_comm_get_attr_)
GASKET_F08_NAME(mpi_win_get_attr_)
GASKET_F08_NAME(pmpi_win_get_attr_)
GASKET_F08_NAME(mpi_type_get_attr_)
GASKET_F08_NAME(pmpi_type_get_attr_)
GASKET_F08_NAME(mpi_info_create_env_)
GASKET_F08_NAME(pmpi_info_create_env_)
GASKET_F08_NAME(mpi_grequest_start_)
GASKET_F08_NAME(pmpi_grequest_start_)
