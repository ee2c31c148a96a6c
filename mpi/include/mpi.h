/* gasket's MPI library: the MPI 5.0 C API (prototypes of every procedure in mpi_proto.h; those
 * implemented: mpi/README.md). MPI_VERSION is 5.0: every procedure and constant of the standard
 * is provided (//mpi/bindings:coverage_test).
 * Handles are integers (MPI_Comm, MPI_Datatype, ...); predefined handles are constants.
 * Usable from C and C++. Link with -lgasket_mpi through mpicc/mpicxx, or depend on //mpi in Bazel. */
#ifndef GASKET_MPI_H_
#define GASKET_MPI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 5
#define MPI_SUBVERSION 0
/* The standard ABI version (MPI 5.0 chapter 20) of the ABI header; this native header is not
 * the ABI (MPI_Abi_get_version answers -1 -1 here, 1 0 through libmpi_abi.so.1). */
#define MPI_ABI_VERSION 1
#define MPI_ABI_SUBVERSION 0
#define GASKET_MPI 1

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Group;
typedef int MPI_Request;
typedef int MPI_Op;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef int MPI_Message;
typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int gasket_cancelled;      /* implementation fields: use MPI_Test_cancelled / MPI_Get_count */
  long long gasket_bytes;
} MPI_Status;

#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)

/* ---- error classes ---- */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_ACCESS 20
#define MPI_ERR_AMODE 21
#define MPI_ERR_ASSERT 22
#define MPI_ERR_BAD_FILE 23
#define MPI_ERR_BASE 24
#define MPI_ERR_CONVERSION 25
#define MPI_ERR_DISP 26
#define MPI_ERR_DUP_DATAREP 27
#define MPI_ERR_FILE_EXISTS 28
#define MPI_ERR_FILE_IN_USE 29
#define MPI_ERR_FILE 30
#define MPI_ERR_INFO_KEY 31
#define MPI_ERR_INFO_NOKEY 32
#define MPI_ERR_INFO_VALUE 33
#define MPI_ERR_INFO 34
#define MPI_ERR_IO 35
#define MPI_ERR_KEYVAL 36
#define MPI_ERR_LOCKTYPE 37
#define MPI_ERR_NAME 38
#define MPI_ERR_NO_MEM 39
#define MPI_ERR_NOT_SAME 40
#define MPI_ERR_NO_SPACE 41
#define MPI_ERR_NO_SUCH_FILE 42
#define MPI_ERR_PORT 43
#define MPI_ERR_QUOTA 44
#define MPI_ERR_READ_ONLY 45
#define MPI_ERR_RMA_CONFLICT 46
#define MPI_ERR_RMA_SYNC 47
#define MPI_ERR_SERVICE 48
#define MPI_ERR_SIZE 49
#define MPI_ERR_SPAWN 50
#define MPI_ERR_UNSUPPORTED_DATAREP 51
#define MPI_ERR_UNSUPPORTED_OPERATION 52
#define MPI_ERR_WIN 53
#define MPI_ERR_RMA_RANGE 54
#define MPI_ERR_RMA_ATTACH 55
#define MPI_ERR_RMA_SHARED 56
#define MPI_ERR_RMA_FLAVOR 57
/* sessions and the tools interface (mpi4: mpi/session, mpi/tools) */
#define MPI_ERR_SESSION 58
#define MPI_T_ERR_MEMORY 59
#define MPI_T_ERR_NOT_INITIALIZED 60
#define MPI_T_ERR_CANNOT_INIT 61
#define MPI_T_ERR_INVALID_INDEX 62
#define MPI_T_ERR_INVALID_ITEM 63
#define MPI_T_ERR_INVALID_HANDLE 64
#define MPI_T_ERR_OUT_OF_HANDLES 65
#define MPI_T_ERR_OUT_OF_SESSIONS 66
#define MPI_T_ERR_INVALID_SESSION 67
#define MPI_T_ERR_CVAR_SET_NOT_NOW 68
#define MPI_T_ERR_CVAR_SET_NEVER 69
#define MPI_T_ERR_PVAR_NO_STARTSTOP 70
#define MPI_T_ERR_PVAR_NO_WRITE 71
#define MPI_T_ERR_PVAR_NO_ATOMIC 72
#define MPI_T_ERR_INVALID_NAME 73
#define MPI_T_ERR_INVALID 74
#define MPI_T_ERR_NOT_SUPPORTED 75
#define MPI_T_ERR_NOT_ACCESSIBLE 76
#define MPI_ERR_VALUE_TOO_LARGE 77 /* MPI 4.0: an int OUT argument cannot hold the value */
#define MPI_ERR_PROC_ABORTED 78    /* MPI 4.0: a process of the operation has aborted */
#define MPI_ERR_ERRHANDLER 79      /* MPI 4.1: an invalid error handler argument */
#define MPI_ERR_ABI 80             /* MPI 5.0: an ABI query or setting refused */
#define MPI_ERR_LASTCODE 81       /* a class of its own, as the ABI's (no predefined class shares it) */

/* ---- special values ---- */
#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID 0
#define MPI_BSEND_OVERHEAD 64
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_BOTTOM ((void*)0)
#define MPI_IN_PLACE ((void*)-1)
/* MPI 4.1: attach a buffer the library grows as buffered sends need (MPI_Buffer_attach and the
 * communicator and session forms). */
#define MPI_BUFFER_AUTOMATIC ((void*)-2)

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* comparison results */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* ---- handle layout (mpi/README.md, "Handles"; mpi/base/handle.h converts) ----
 * A handle is a non-negative int: (kind << GASKET_HANDLE_KIND_SHIFT) | slot, the slot being the
 * object's place in its kind's table (slot 0 is never used). 0 is every kind's null handle. A
 * value of one kind passed where another is expected is refused with the expected kind's error
 * class. No handle is negative, so each survives a round trip through unsigned types (mpi4py
 * keeps handles as unsigned integers). */
#define GASKET_HANDLE_KIND_SHIFT 26
#define GASKET_HANDLE_SLOT_MASK ((1 << GASKET_HANDLE_KIND_SHIFT) - 1)
#define GASKET_HANDLE_KIND_COMM 1
#define GASKET_HANDLE_KIND_GROUP 2
#define GASKET_HANDLE_KIND_DATATYPE 3
#define GASKET_HANDLE_KIND_OP 4
#define GASKET_HANDLE_KIND_REQUEST 5
#define GASKET_HANDLE_KIND_INFO 6
#define GASKET_HANDLE_KIND_WIN 7
#define GASKET_HANDLE_KIND_ERRHANDLER 8
#define GASKET_HANDLE_KIND_MESSAGE 9
#define GASKET_HANDLE_KIND_FILE 10    /* reserved for MPI-IO */
#define GASKET_HANDLE_KIND_SESSION 11 /* reserved for sessions */
#define GASKET_HANDLE(kind, slot) ((GASKET_HANDLE_KIND_##kind << GASKET_HANDLE_KIND_SHIFT) | (slot))

/* ---- null and predefined handles ---- */
#define MPI_COMM_NULL 0
#define MPI_COMM_WORLD GASKET_HANDLE(COMM, 1)
#define MPI_COMM_SELF GASKET_HANDLE(COMM, 2)
#define MPI_GROUP_NULL 0
#define MPI_GROUP_EMPTY GASKET_HANDLE(GROUP, 1)
#define MPI_REQUEST_NULL 0
#define MPI_MESSAGE_NULL 0
#define MPI_MESSAGE_NO_PROC GASKET_HANDLE(MESSAGE, GASKET_HANDLE_SLOT_MASK) /* a slot no table reaches */
#define MPI_INFO_NULL 0
#define MPI_INFO_ENV GASKET_HANDLE(INFO, 1)
#define MPI_ERRHANDLER_NULL 0
#define MPI_ERRORS_ARE_FATAL GASKET_HANDLE(ERRHANDLER, 1)
#define MPI_ERRORS_RETURN GASKET_HANDLE(ERRHANDLER, 2)
#define MPI_ERRORS_ABORT GASKET_HANDLE(ERRHANDLER, 3)
#define MPI_OP_NULL 0

/* Datatypes: predefined handles are their slot in the type table (mpi/datatype/datatype.cc). */
#define MPI_DATATYPE_NULL 0
#define MPI_CHAR GASKET_HANDLE(DATATYPE, 1)
#define MPI_SIGNED_CHAR GASKET_HANDLE(DATATYPE, 2)
#define MPI_UNSIGNED_CHAR GASKET_HANDLE(DATATYPE, 3)
#define MPI_BYTE GASKET_HANDLE(DATATYPE, 4)
#define MPI_SHORT GASKET_HANDLE(DATATYPE, 5)
#define MPI_UNSIGNED_SHORT GASKET_HANDLE(DATATYPE, 6)
#define MPI_INT GASKET_HANDLE(DATATYPE, 7)
#define MPI_UNSIGNED GASKET_HANDLE(DATATYPE, 8)
#define MPI_LONG GASKET_HANDLE(DATATYPE, 9)
#define MPI_UNSIGNED_LONG GASKET_HANDLE(DATATYPE, 10)
#define MPI_LONG_LONG_INT GASKET_HANDLE(DATATYPE, 11)
#define MPI_LONG_LONG GASKET_HANDLE(DATATYPE, 11)
#define MPI_UNSIGNED_LONG_LONG GASKET_HANDLE(DATATYPE, 12)
#define MPI_FLOAT GASKET_HANDLE(DATATYPE, 13)
#define MPI_DOUBLE GASKET_HANDLE(DATATYPE, 14)
#define MPI_LONG_DOUBLE GASKET_HANDLE(DATATYPE, 15)
#define MPI_WCHAR GASKET_HANDLE(DATATYPE, 16)
#define MPI_C_BOOL GASKET_HANDLE(DATATYPE, 17)
#define MPI_INT8_T GASKET_HANDLE(DATATYPE, 18)
#define MPI_INT16_T GASKET_HANDLE(DATATYPE, 19)
#define MPI_INT32_T GASKET_HANDLE(DATATYPE, 20)
#define MPI_INT64_T GASKET_HANDLE(DATATYPE, 21)
#define MPI_UINT8_T GASKET_HANDLE(DATATYPE, 22)
#define MPI_UINT16_T GASKET_HANDLE(DATATYPE, 23)
#define MPI_UINT32_T GASKET_HANDLE(DATATYPE, 24)
#define MPI_UINT64_T GASKET_HANDLE(DATATYPE, 25)
#define MPI_AINT GASKET_HANDLE(DATATYPE, 26)
#define MPI_OFFSET GASKET_HANDLE(DATATYPE, 27)
#define MPI_COUNT GASKET_HANDLE(DATATYPE, 28)
#define MPI_C_FLOAT_COMPLEX GASKET_HANDLE(DATATYPE, 29)
#define MPI_C_COMPLEX GASKET_HANDLE(DATATYPE, 29)
#define MPI_C_DOUBLE_COMPLEX GASKET_HANDLE(DATATYPE, 30)
#define MPI_C_LONG_DOUBLE_COMPLEX GASKET_HANDLE(DATATYPE, 31)
#define MPI_PACKED GASKET_HANDLE(DATATYPE, 32)
#define MPI_FLOAT_INT GASKET_HANDLE(DATATYPE, 33)
#define MPI_DOUBLE_INT GASKET_HANDLE(DATATYPE, 34)
#define MPI_LONG_INT GASKET_HANDLE(DATATYPE, 35)
#define MPI_2INT GASKET_HANDLE(DATATYPE, 36)
#define MPI_SHORT_INT GASKET_HANDLE(DATATYPE, 37)
#define MPI_LONG_DOUBLE_INT GASKET_HANDLE(DATATYPE, 38)
#define MPI_UB GASKET_HANDLE(DATATYPE, 39)
#define MPI_LB GASKET_HANDLE(DATATYPE, 40)
/* Fortran named datatypes (mpi/fortran; sizes of gfortran's default kinds: INTEGER, REAL, LOGICAL
 * 4 bytes). gfortran has no REAL*2 / COMPLEX*4: MPI_REAL2 and MPI_COMPLEX4 are MPI_DATATYPE_NULL,
 * as the standard allows for a kind the compiler lacks. */
#define MPI_INTEGER GASKET_HANDLE(DATATYPE, 41)
#define MPI_REAL GASKET_HANDLE(DATATYPE, 42)
#define MPI_DOUBLE_PRECISION GASKET_HANDLE(DATATYPE, 43)
#define MPI_COMPLEX GASKET_HANDLE(DATATYPE, 44)
#define MPI_DOUBLE_COMPLEX GASKET_HANDLE(DATATYPE, 45)
#define MPI_LOGICAL GASKET_HANDLE(DATATYPE, 46)
#define MPI_CHARACTER GASKET_HANDLE(DATATYPE, 47)
#define MPI_2REAL GASKET_HANDLE(DATATYPE, 48)
#define MPI_2DOUBLE_PRECISION GASKET_HANDLE(DATATYPE, 49)
#define MPI_2INTEGER GASKET_HANDLE(DATATYPE, 50)
#define MPI_INTEGER1 GASKET_HANDLE(DATATYPE, 51)
#define MPI_INTEGER2 GASKET_HANDLE(DATATYPE, 52)
#define MPI_INTEGER4 GASKET_HANDLE(DATATYPE, 53)
#define MPI_INTEGER8 GASKET_HANDLE(DATATYPE, 54)
#define MPI_INTEGER16 GASKET_HANDLE(DATATYPE, 55)
#define MPI_REAL2 MPI_DATATYPE_NULL
#define MPI_REAL4 GASKET_HANDLE(DATATYPE, 56)
#define MPI_REAL8 GASKET_HANDLE(DATATYPE, 57)
#define MPI_REAL16 GASKET_HANDLE(DATATYPE, 58)
#define MPI_COMPLEX4 MPI_DATATYPE_NULL
#define MPI_COMPLEX8 GASKET_HANDLE(DATATYPE, 59)
#define MPI_COMPLEX16 GASKET_HANDLE(DATATYPE, 60)
#define MPI_COMPLEX32 GASKET_HANDLE(DATATYPE, 61)
/* The C++ types (bool, std::complex<float|double|long double>) and Fortran's sized LOGICALs. */
#define MPI_CXX_BOOL GASKET_HANDLE(DATATYPE, 62)
#define MPI_CXX_FLOAT_COMPLEX GASKET_HANDLE(DATATYPE, 63)
#define MPI_CXX_DOUBLE_COMPLEX GASKET_HANDLE(DATATYPE, 64)
#define MPI_CXX_LONG_DOUBLE_COMPLEX GASKET_HANDLE(DATATYPE, 65)
#define MPI_LOGICAL1 GASKET_HANDLE(DATATYPE, 66)
#define MPI_LOGICAL2 GASKET_HANDLE(DATATYPE, 67)
#define MPI_LOGICAL4 GASKET_HANDLE(DATATYPE, 68)
#define MPI_LOGICAL8 GASKET_HANDLE(DATATYPE, 69)
#define MPI_LOGICAL16 GASKET_HANDLE(DATATYPE, 70)
#define GASKET_MPI_N_PREDEFINED_TYPES 71

/* reduction operations */
#define MPI_MAX GASKET_HANDLE(OP, 1)
#define MPI_MIN GASKET_HANDLE(OP, 2)
#define MPI_SUM GASKET_HANDLE(OP, 3)
#define MPI_PROD GASKET_HANDLE(OP, 4)
#define MPI_LAND GASKET_HANDLE(OP, 5)
#define MPI_BAND GASKET_HANDLE(OP, 6)
#define MPI_LOR GASKET_HANDLE(OP, 7)
#define MPI_BOR GASKET_HANDLE(OP, 8)
#define MPI_LXOR GASKET_HANDLE(OP, 9)
#define MPI_BXOR GASKET_HANDLE(OP, 10)
#define MPI_MINLOC GASKET_HANDLE(OP, 11)
#define MPI_MAXLOC GASKET_HANDLE(OP, 12)
#define MPI_REPLACE GASKET_HANDLE(OP, 13)
#define MPI_NO_OP GASKET_HANDLE(OP, 14)

/* ---- error handlers ---- */
typedef void MPI_Comm_errhandler_function(MPI_Comm*, int*, ...);

/* ---- communicators, groups, attributes ---- */
#define MPI_COMM_TYPE_SHARED 1
#define MPI_COMM_TYPE_HW_UNGUIDED 2
#define MPI_COMM_TYPE_HW_GUIDED 3
#define MPI_COMM_TYPE_RESOURCE_GUIDED 4 /* MPI 5.0: split by the info key mpi_hw_resource_type */
/* predefined attribute keys (MPI_Comm_get_attr on MPI_COMM_WORLD) */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_APPNUM 5
#define MPI_UNIVERSE_SIZE 6
#define MPI_LASTUSEDCODE 7
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void* extra_state,
                                        void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void* attribute_val,
                                          void* extra_state);
int gasket_comm_null_copy_fn(MPI_Comm, int, void*, void*, void*, int*);
int gasket_comm_dup_fn(MPI_Comm, int, void*, void*, void*, int*);
int gasket_comm_null_delete_fn(MPI_Comm, int, void*, void*);
#define MPI_COMM_NULL_COPY_FN gasket_comm_null_copy_fn
#define MPI_COMM_DUP_FN gasket_comm_dup_fn
#define MPI_COMM_NULL_DELETE_FN gasket_comm_null_delete_fn

/* ---- point-to-point ---- */
typedef int MPI_Grequest_query_function(void* extra_state, MPI_Status* status);
typedef int MPI_Grequest_free_function(void* extra_state);
typedef int MPI_Grequest_cancel_function(void* extra_state, int complete);

/* ---- datatypes ---- */
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
/* MPI_Type_match_size's classes */
#define MPI_TYPECLASS_INTEGER 1
#define MPI_TYPECLASS_REAL 2
#define MPI_TYPECLASS_COMPLEX 3
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_DARRAY 12
#define MPI_COMBINER_RESIZED 13
#define MPI_COMBINER_F90_REAL 14
#define MPI_COMBINER_F90_COMPLEX 15
#define MPI_COMBINER_F90_INTEGER 16
#define MPI_COMBINER_VALUE_INDEX 17 /* MPI 4.1: MPI_Type_get_value_index */

/* ---- collectives and reduction operations (mpi/coll, mpi/op) ---- */
typedef void MPI_User_function(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype);

/* ---- dynamic processes (mpi/api/dynproc.cc) ---- */
#define MPI_MAX_PORT_NAME 256
#define MPI_ARGV_NULL ((char**)0)
#define MPI_ARGVS_NULL ((char***)0)
#define MPI_ERRCODES_IGNORE ((int*)0)

/* ---- process topologies and neighborhood collectives (mpi/topo) ---- */
#define MPI_CART 1
#define MPI_GRAPH 2
#define MPI_DIST_GRAPH 3
/* Weights arguments: no weights / a weighted graph without edges here. Addresses of objects in the
 * library (as MPICH does), so compilers do not take them for zero-sized arrays. */
extern int* const MPI_UNWEIGHTED;
extern int* const MPI_WEIGHTS_EMPTY;

/* ---- one-sided communication: windows (mpi/win) ---- */
typedef int MPI_Win;
#define MPI_WIN_NULL 0
/* lock types */
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
/* assertions (fence, post/start, lock) */
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
/* predefined window attributes (MPI_Win_get_attr) */
#define MPI_WIN_BASE (-21)
#define MPI_WIN_SIZE (-22)
#define MPI_WIN_DISP_UNIT (-23)
#define MPI_WIN_CREATE_FLAVOR (-24)
#define MPI_WIN_MODEL (-25)
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2

typedef void MPI_Win_errhandler_function(MPI_Win*, int*, ...);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void* extra_state,
                                       void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void* attribute_val,
                                         void* extra_state);
int gasket_win_null_copy_fn(MPI_Win, int, void*, void*, void*, int*);
int gasket_win_dup_fn(MPI_Win, int, void*, void*, void*, int*);
int gasket_win_null_delete_fn(MPI_Win, int, void*, void*);
#define MPI_WIN_NULL_COPY_FN gasket_win_null_copy_fn
#define MPI_WIN_DUP_FN gasket_win_dup_fn
#define MPI_WIN_NULL_DELETE_FN gasket_win_null_delete_fn

/* ---- the remaining types of the MPI 4.1 prototypes (mpi_proto.h) ---- */
typedef int MPI_Session;
typedef int MPI_File; /* MPI-IO: mpi/io */
/* ---- MPI-IO (mpi/io, docs/MPI-IO.md) ---- */
#define MPI_FILE_NULL 0
#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_DISPLACEMENT_CURRENT (-54278278)
#define MPI_MAX_DATAREP_STRING 128
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function*)0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c*)0)
typedef struct MPI_F08_status {
  MPI_Fint MPI_SOURCE;
  MPI_Fint MPI_TAG;
  MPI_Fint MPI_ERROR;
  MPI_Fint gasket_internal[3]; /* MPI_Status's other fields */
} MPI_F08_status;
typedef void MPI_User_function_c(void* invec, void* inoutvec, MPI_Count* len, MPI_Datatype* datatype);
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void* extra_state, void* attribute_val_in,
                              void* attribute_val_out, int* flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void* attribute_val, void* extra_state);
/* the deprecated MPI_Keyval_create's predefined callbacks */
#define MPI_NULL_COPY_FN gasket_comm_null_copy_fn
#define MPI_DUP_FN gasket_comm_dup_fn
#define MPI_NULL_DELETE_FN gasket_comm_null_delete_fn
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void* extra_state,
                                        void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval, void* attribute_val,
                                          void* extra_state);
/* Datatype keyvals share the communicators' table; MPI_Datatype and MPI_Comm are both int, so the
 * communicator's predefined callbacks serve. */
#define MPI_TYPE_NULL_COPY_FN gasket_comm_null_copy_fn
#define MPI_TYPE_DUP_FN gasket_comm_dup_fn
#define MPI_TYPE_NULL_DELETE_FN gasket_comm_null_delete_fn
typedef void MPI_File_errhandler_function(MPI_File*, int*, ...);
typedef void MPI_Session_errhandler_function(MPI_Session*, int*, ...);
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint* extent, void* extra_state);
typedef int MPI_Datarep_conversion_function(void* userbuf, MPI_Datatype datatype, int count, void* filebuf,
                                            MPI_Offset position, void* extra_state);
typedef int MPI_Datarep_conversion_function_c(void* userbuf, MPI_Datatype datatype, MPI_Count count,
                                              void* filebuf, MPI_Offset position, void* extra_state);
/* Status conversion between C and Fortran (MPI_Status_c2f, ...): a Fortran status is
 * MPI_F_STATUS_SIZE MPI_Fints; MPI_F_SOURCE/TAG/ERROR are the C indices of its fields. The IGNORE
 * values are addresses of library objects, recognised (and refused) by the conversions. */
#define MPI_F_STATUS_SIZE 6
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2
extern MPI_Fint* const MPI_F_STATUS_IGNORE;
extern MPI_Fint* const MPI_F_STATUSES_IGNORE;
extern MPI_F08_status* const MPI_F08_STATUS_IGNORE;
extern MPI_F08_status* const MPI_F08_STATUSES_IGNORE;
/* ---- sessions (MPI 4.1 section 11.3; mpi/session) ---- */
#define MPI_SESSION_NULL 0
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256

/* ---- the tools interface (MPI 4.1 section 15.3; mpi/tools) ---- */
#define MPI_T_VERBOSITY_USER_BASIC 1
#define MPI_T_VERBOSITY_USER_DETAIL 2
#define MPI_T_VERBOSITY_USER_ALL 3
#define MPI_T_VERBOSITY_TUNER_BASIC 4
#define MPI_T_VERBOSITY_TUNER_DETAIL 5
#define MPI_T_VERBOSITY_TUNER_ALL 6
#define MPI_T_VERBOSITY_MPIDEV_BASIC 7
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 8
#define MPI_T_VERBOSITY_MPIDEV_ALL 9
#define MPI_T_BIND_NO_OBJECT 0
#define MPI_T_BIND_MPI_COMM 1
#define MPI_T_BIND_MPI_DATATYPE 2
#define MPI_T_BIND_MPI_ERRHANDLER 3
#define MPI_T_BIND_MPI_FILE 4
#define MPI_T_BIND_MPI_GROUP 5
#define MPI_T_BIND_MPI_OP 6
#define MPI_T_BIND_MPI_REQUEST 7
#define MPI_T_BIND_MPI_WIN 8
#define MPI_T_BIND_MPI_MESSAGE 9
#define MPI_T_BIND_MPI_INFO 10
#define MPI_T_BIND_MPI_SESSION 11
#define MPI_T_SCOPE_CONSTANT 0
#define MPI_T_SCOPE_READONLY 1
#define MPI_T_SCOPE_LOCAL 2
#define MPI_T_SCOPE_GROUP 3
#define MPI_T_SCOPE_GROUP_EQ 4
#define MPI_T_SCOPE_ALL 5
#define MPI_T_SCOPE_ALL_EQ 6
#define MPI_T_PVAR_CLASS_STATE 0
#define MPI_T_PVAR_CLASS_LEVEL 1
#define MPI_T_PVAR_CLASS_SIZE 2
#define MPI_T_PVAR_CLASS_PERCENTAGE 3
#define MPI_T_PVAR_CLASS_HIGHWATERMARK 4
#define MPI_T_PVAR_CLASS_LOWWATERMARK 5
#define MPI_T_PVAR_CLASS_COUNTER 6
#define MPI_T_PVAR_CLASS_AGGREGATE 7
#define MPI_T_PVAR_CLASS_TIMER 8
#define MPI_T_PVAR_CLASS_GENERIC 9

/* The tools interface (MPI_T): opaque handles and the callback types. */
typedef struct gasket_T_enum* MPI_T_enum;
typedef struct gasket_T_cvar_handle* MPI_T_cvar_handle;
typedef struct gasket_T_pvar_handle* MPI_T_pvar_handle;
typedef struct gasket_T_pvar_session* MPI_T_pvar_session;
typedef struct gasket_T_event_instance* MPI_T_event_instance;
typedef struct gasket_T_event_registration* MPI_T_event_registration;
typedef enum MPI_T_cb_safety {
  MPI_T_CB_REQUIRE_NONE,
  MPI_T_CB_REQUIRE_MPI_RESTRICTED,
  MPI_T_CB_REQUIRE_THREAD_SAFE,
  MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
} MPI_T_cb_safety;
typedef enum MPI_T_source_order { MPI_T_SOURCE_ORDERED, MPI_T_SOURCE_UNORDERED } MPI_T_source_order;
typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                     void* user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                          void* user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count, MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety, void* user_data);
#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)-1)

/* Every procedure: MPI_x, its profiling name PMPI_x and its large-count form MPI_x_c, generated
 * from the standard's list (mpi/bindings). Those gasket does not provide yet (listed in
 * mpi/bindings/missing.txt) are declared unavailable: calling one does not compile. */
#include "mpi_proto.h"

#ifdef __cplusplus
}
#endif
#endif /* GASKET_MPI_H_ */
