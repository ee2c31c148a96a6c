/* gasket's MPI library: the MPI 4.1 C API (prototypes of every procedure in mpi_proto.h; those
 * implemented: mpi/README.md). MPI_VERSION stays 3.1 until the whole API is implemented.
 * Handles are integers (MPI_Comm, MPI_Datatype, ...); predefined handles are constants.
 * Usable from C and C++. Link with -lgasket_mpi through mpicc/mpicxx, or depend on //mpi in Bazel. */
#ifndef GASKET_MPI_H_
#define GASKET_MPI_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1
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
#define MPI_ERR_LASTCODE 57

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

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* comparison results */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* ---- null and predefined handles ----
 * Layout (mpi/README.md, "Handles"): a handle is a non-negative int; 0 is every kind's null
 * handle; predefined handles are small positive constants; created objects get their table's
 * index. No handle is negative, so each survives a round trip through unsigned types (mpi4py
 * keeps handles as unsigned integers). MPI_MESSAGE_NO_PROC is INT_MAX, a value no table reaches. */
#define MPI_COMM_NULL 0
#define MPI_COMM_WORLD 1
#define MPI_COMM_SELF 2
#define MPI_GROUP_NULL 0
#define MPI_GROUP_EMPTY 1
#define MPI_REQUEST_NULL 0
#define MPI_MESSAGE_NULL 0
#define MPI_MESSAGE_NO_PROC 0x7fffffff
#define MPI_INFO_NULL 0
#define MPI_INFO_ENV 1
#define MPI_ERRHANDLER_NULL 0
#define MPI_ERRORS_ARE_FATAL 1
#define MPI_ERRORS_RETURN 2
#define MPI_OP_NULL 0

/* Datatypes: predefined handles are their table index (mpi/datatype/datatype.h keeps the order). */
#define MPI_DATATYPE_NULL 0
#define MPI_CHAR 1
#define MPI_SIGNED_CHAR 2
#define MPI_UNSIGNED_CHAR 3
#define MPI_BYTE 4
#define MPI_SHORT 5
#define MPI_UNSIGNED_SHORT 6
#define MPI_INT 7
#define MPI_UNSIGNED 8
#define MPI_LONG 9
#define MPI_UNSIGNED_LONG 10
#define MPI_LONG_LONG_INT 11
#define MPI_LONG_LONG 11
#define MPI_UNSIGNED_LONG_LONG 12
#define MPI_FLOAT 13
#define MPI_DOUBLE 14
#define MPI_LONG_DOUBLE 15
#define MPI_WCHAR 16
#define MPI_C_BOOL 17
#define MPI_INT8_T 18
#define MPI_INT16_T 19
#define MPI_INT32_T 20
#define MPI_INT64_T 21
#define MPI_UINT8_T 22
#define MPI_UINT16_T 23
#define MPI_UINT32_T 24
#define MPI_UINT64_T 25
#define MPI_AINT 26
#define MPI_OFFSET 27
#define MPI_COUNT 28
#define MPI_C_FLOAT_COMPLEX 29
#define MPI_C_COMPLEX 29
#define MPI_C_DOUBLE_COMPLEX 30
#define MPI_C_LONG_DOUBLE_COMPLEX 31
#define MPI_PACKED 32
#define MPI_FLOAT_INT 33
#define MPI_DOUBLE_INT 34
#define MPI_LONG_INT 35
#define MPI_2INT 36
#define MPI_SHORT_INT 37
#define MPI_LONG_DOUBLE_INT 38
#define MPI_UB 39
#define MPI_LB 40
#define GASKET_MPI_N_PREDEFINED_TYPES 41

/* reduction operations */
#define MPI_MAX 1
#define MPI_MIN 2
#define MPI_SUM 3
#define MPI_PROD 4
#define MPI_LAND 5
#define MPI_BAND 6
#define MPI_LOR 7
#define MPI_BOR 8
#define MPI_LXOR 9
#define MPI_BXOR 10
#define MPI_MINLOC 11
#define MPI_MAXLOC 12
#define MPI_REPLACE 13
#define MPI_NO_OP 14

/* ---- error handlers ---- */
typedef void MPI_Comm_errhandler_function(MPI_Comm*, int*, ...);

/* ---- communicators, groups, attributes ---- */
#define MPI_COMM_TYPE_SHARED 1
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
typedef int MPI_File; /* file I/O is not implemented (issue 19 leaves it to an issue of its own) */
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

/* Every procedure: MPI_x, its profiling name PMPI_x and its large-count form MPI_x_c, generated
 * from the standard's list (mpi/bindings). Those gasket does not provide yet (listed in
 * mpi/bindings/missing.txt) are declared unavailable: calling one does not compile. */
#include "mpi_proto.h"

/* MPI 4.1's removal of user error classes, codes and strings (section 9.5): absent from the Forum's
 * machine-readable list that mpi_proto.h is generated from, so declared here, with the same
 * profiling interface (MPI_x weak, calling PMPI_x: mpi/api/error_classes.cc). */
int MPI_Remove_error_class(int errorclass);
int PMPI_Remove_error_class(int errorclass);
int MPI_Remove_error_code(int errorcode);
int PMPI_Remove_error_code(int errorcode);
int MPI_Remove_error_string(int errorcode);
int PMPI_Remove_error_string(int errorcode);

#ifdef __cplusplus
}
#endif
#endif /* GASKET_MPI_H_ */
