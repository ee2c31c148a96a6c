/* OpenSHMEM 1.6 for gasket. The typed families are declared from the type tables below (the
 * standard's lists, one X-macro per list) and implemented once, with C++ templates, in
 * shmem-api/shmem.cc. C11 type-generic macros (and C++ overloads) cover the routines the
 * specification defines generics for. Deprecated names still found in programs are kept. */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- constants ---- */
#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 6
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
/* Said while gasket had these 1.6 routines under SHMEM_MINOR_VERSION 5 (kept for programs that
 * test them): shmem_ibput/ibget, shmem_signal_add/set, shmem_pe_quiet, shmem_team_ptr,
 * shmem_query_initialized; the scans. */
#define SHMEM_GASKET_HAS_1_6_RMA 1
#define SHMEM_GASKET_HAS_1_6_SCAN 1 /* shmem_sum_inscan/exscan */
#define SHMEM_MAX_NAME_LEN 256
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING "gasket OpenSHMEM 1.6"
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING

#define SHMEM_THREAD_SINGLE 0
#define SHMEM_THREAD_FUNNELED 1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE 3

#define SHMEM_CMP_EQ 0
#define SHMEM_CMP_NE 1
#define SHMEM_CMP_GT 2
#define SHMEM_CMP_GE 3
#define SHMEM_CMP_LT 4
#define SHMEM_CMP_LE 5
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

#define SHMEM_CTX_PRIVATE 1L
#define SHMEM_CTX_SERIALIZED 2L
#define SHMEM_CTX_NOSTORE 4L

#define SHMEM_MALLOC_ATOMICS_REMOTE 1L
#define SHMEM_MALLOC_SIGNAL_REMOTE 2L

#define SHMEM_TEAM_NUM_CONTEXTS 1L

/* pSync arrays: every collective signals through these words (core/coll kSyncWords). */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 40
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ---- handles ---- */
typedef struct shmem_gasket_team* shmem_team_t;
typedef struct shmem_gasket_ctx* shmem_ctx_t;
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_TEAM_WORLD ((shmem_team_t)1)
#define SHMEM_TEAM_SHARED ((shmem_team_t)2)
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_CTX_DEFAULT ((shmem_ctx_t)1)

typedef struct {
  int num_contexts;
} shmem_team_config_t;

/* ---- the standard's type lists: X(C type, TYPENAME) ---- */
#define SHMEM_GASKET_BASE_INT_TYPES(X)                                                        \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)               \
  X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)                    \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEM_GASKET_FIXED_INT_TYPES(X)                                                       \
  X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)     \
  X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)                 \
  X(ptrdiff_t, ptrdiff)
#define SHMEM_GASKET_FLOAT_TYPES(X) X(float, float) X(double, double) X(long double, longdouble)
/* RMA (put, get, p, g, iput, iget, nbi, put_signal) */
#define SHMEM_GASKET_RMA_BASE_TYPES(X) SHMEM_GASKET_FLOAT_TYPES(X) SHMEM_GASKET_BASE_INT_TYPES(X)
#define SHMEM_GASKET_RMA_TYPES(X) SHMEM_GASKET_RMA_BASE_TYPES(X) SHMEM_GASKET_FIXED_INT_TYPES(X)
/* Each list below is its base C types (what the C11 generics and the C++ overloads dispatch on)
 * plus the fixed-width and size types, which are aliases of base types. */
/* standard AMOs (inc, add, compare_swap and fetching forms) */
#define SHMEM_GASKET_AMO_BASE_TYPES(X)                                                        \
  X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)                      \
  X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEM_GASKET_AMO_TYPES(X)                                                             \
  SHMEM_GASKET_AMO_BASE_TYPES(X) X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32)      \
  X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
/* extended AMOs (fetch, set, swap) add float and double */
#define SHMEM_GASKET_AMO_EXT_BASE_TYPES(X) SHMEM_GASKET_AMO_BASE_TYPES(X) X(float, float) X(double, double)
#define SHMEM_GASKET_AMO_EXT_TYPES(X) SHMEM_GASKET_AMO_TYPES(X) X(float, float) X(double, double)
/* bitwise AMOs: the unsigned base types, and the signed fixed-width types, which the generics
 * and the C++ overloads also dispatch on (no signed base type is in the list) */
#define SHMEM_GASKET_AMO_BIT_BASE_TYPES(X)                                                    \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEM_GASKET_AMO_BIT_SIGNED_TYPES(X) X(int32_t, int32) X(int64_t, int64)
#define SHMEM_GASKET_AMO_BIT_TYPES(X)                                                         \
  SHMEM_GASKET_AMO_BIT_BASE_TYPES(X) SHMEM_GASKET_AMO_BIT_SIGNED_TYPES(X) X(uint32_t, uint32) \
  X(uint64_t, uint64)
/* point-to-point synchronisation (`long` apart: shmem_wait_until(long*, int, long) is also the
 * deprecated untyped routine, which the C++ overload set reuses) */
#define SHMEM_GASKET_P2P_BASE_NOT_LONG_TYPES(X)                                               \
  X(short, short) X(int, int) X(long long, longlong) X(unsigned short, ushort)                \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)
#define SHMEM_GASKET_P2P_BASE_TYPES(X) X(long, long) SHMEM_GASKET_P2P_BASE_NOT_LONG_TYPES(X)
#define SHMEM_GASKET_P2P_TYPES(X)                                                             \
  SHMEM_GASKET_P2P_BASE_TYPES(X) X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32)      \
  X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
/* reductions: and/or/xor; max/min; sum/prod */
#define SHMEM_GASKET_REDUCE_BIT_BASE_TYPES(X)                                                 \
  X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                     \
  X(unsigned long, ulong) X(unsigned long long, ulonglong)
/* (the signed fixed-width types are dispatched on too, like the bitwise AMOs') */
#define SHMEM_GASKET_REDUCE_BIT_SIGNED_TYPES(X)                                               \
  X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)
#define SHMEM_GASKET_REDUCE_BIT_TYPES(X)                                                      \
  SHMEM_GASKET_REDUCE_BIT_BASE_TYPES(X) SHMEM_GASKET_REDUCE_BIT_SIGNED_TYPES(X)               \
  X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define SHMEM_GASKET_REDUCE_MINMAX_BASE_TYPES(X)                                              \
  X(char, char) X(signed char, schar) X(short, short) X(int, int) X(long, long)               \
  X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)                    \
  X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)              \
  SHMEM_GASKET_FLOAT_TYPES(X)
#define SHMEM_GASKET_REDUCE_MINMAX_TYPES(X)                                                   \
  SHMEM_GASKET_REDUCE_MINMAX_BASE_TYPES(X) X(ptrdiff_t, ptrdiff) X(int8_t, int8)              \
  X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8) X(uint16_t, uint16) \
  X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
#define SHMEM_GASKET_COMPLEX_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)
#define SHMEM_GASKET_REDUCE_ARITH_BASE_TYPES(X) \
  SHMEM_GASKET_REDUCE_MINMAX_BASE_TYPES(X) SHMEM_GASKET_COMPLEX_TYPES(X)
#define SHMEM_GASKET_REDUCE_ARITH_TYPES(X) \
  SHMEM_GASKET_REDUCE_MINMAX_TYPES(X) SHMEM_GASKET_COMPLEX_TYPES(X)
/* deprecated active-set reductions (*_to_all) */
#define SHMEM_GASKET_TO_ALL_BIT_TYPES(X) X(short, short) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_GASKET_TO_ALL_MINMAX_TYPES(X) SHMEM_GASKET_TO_ALL_BIT_TYPES(X) SHMEM_GASKET_FLOAT_TYPES(X)
#define SHMEM_GASKET_TO_ALL_ARITH_TYPES(X) SHMEM_GASKET_TO_ALL_MINMAX_TYPES(X) SHMEM_GASKET_COMPLEX_TYPES(X)
/* the deprecated generic AMO names (OpenSHMEM 1.4 keeps them as C11 generics): cswap, fadd,
 * finc, add and inc on these; fetch, set and swap on these and float, double */
#define SHMEM_GASKET_DEPRECATED_AMO_TYPES(X) X(int, int) X(long, long) X(long long, longlong)
#define SHMEM_GASKET_DEPRECATED_AMO_EXT_TYPES(X) \
  SHMEM_GASKET_DEPRECATED_AMO_TYPES(X) X(float, float) X(double, double)
/* sized RMA: X(bits) */
#define SHMEM_GASKET_SIZES(X) X(8) X(16) X(32) X(64) X(128)
#define SHMEM_GASKET_REDUCE_OPS(X) X(and) X(or) X(xor) X(max) X(min) X(sum) X(prod)

/* ---- setup, exit, query ---- */
void shmem_init(void);
int shmem_init_thread(int requested, int* provided);
void shmem_query_thread(int* provided);
void shmem_finalize(void);
void shmem_global_exit(int status);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void* addr, int pe);
void* shmem_ptr(const void* dest, int pe);
void* shmem_team_ptr(shmem_team_t team, const void* dest, int pe);
int shmem_query_initialized(int* initialized);
void shmem_info_get_version(int* major, int* minor);
void shmem_info_get_name(char* name);
void shmem_pcontrol(const int level, ...);
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);
int my_pe(void);
int num_pes(void);

/* ---- memory management ---- */
void* shmem_malloc(size_t size);
void* shmem_malloc_with_hints(size_t size, long hints);
void* shmem_calloc(size_t count, size_t size);
void* shmem_realloc(void* ptr, size_t size);
void* shmem_align(size_t alignment, size_t size);
void shmem_free(void* ptr);
void* shmalloc(size_t size);
void shfree(void* ptr);
void* shrealloc(void* ptr, size_t size);
void* shmemalign(size_t alignment, size_t size);

/* ---- teams ---- */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t* config);
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);
int shmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                             const shmem_team_config_t* config, long config_mask,
                             shmem_team_t* new_team);
int shmem_team_split_2d(shmem_team_t parent_team, int xrange,
                        const shmem_team_config_t* xaxis_config, long xaxis_mask,
                        shmem_team_t* xaxis_team, const shmem_team_config_t* yaxis_config,
                        long yaxis_mask, shmem_team_t* yaxis_team);
void shmem_team_destroy(shmem_team_t team);

/* ---- contexts ---- */
int shmem_ctx_create(long options, shmem_ctx_t* ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t* ctx);
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t* team);

/* 1.6 sessions: hints that the calling thread is about to issue a series of operations on ctx.
 * shmem_session_start/stop are the 1.6 names (no result: a hint that cannot be taken is ignored).
 * shmem_ctx_session_start/stop are the same calls under alternative names, with a
 * result: 0, or non-zero for SHMEM_CTX_INVALID, an unknown option or mask bit, a missing or
 * negative total_ops, a session already open on ctx. stop ends it (nothing if none is open). */
#define SHMEM_SESSION_SAME_AMO 1L  /* option: the session's atomics are one operation on one type */
#define SHMEM_SESSION_TOTAL_OPS 1L /* config_mask: config->total_ops is the expected count */
typedef struct {
  long total_ops;
} shmem_session_config_t;
typedef shmem_session_config_t shmem_ctx_session_config_t;
void shmem_session_start(shmem_ctx_t ctx, long options, const shmem_session_config_t* config,
                         long config_mask);
void shmem_session_stop(shmem_ctx_t ctx);
int shmem_ctx_session_start(shmem_ctx_t ctx, long options, const shmem_session_config_t* config,
                            long config_mask);
void shmem_ctx_session_stop(shmem_ctx_t ctx);

/* ---- RMA, signals, atomics: every routine with its ctx form ---- */
#define SHMEM_GASKET_DECL_RMA(T, N)                                                            \
  void shmem_##N##_put(T* dest, const T* source, size_t nelems, int pe);                      \
  void shmem_ctx_##N##_put(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe); \
  void shmem_##N##_get(T* dest, const T* source, size_t nelems, int pe);                      \
  void shmem_ctx_##N##_get(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems, int pe); \
  void shmem_##N##_put_nbi(T* dest, const T* source, size_t nelems, int pe);                  \
  void shmem_ctx_##N##_put_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems,      \
                               int pe);                                                       \
  void shmem_##N##_get_nbi(T* dest, const T* source, size_t nelems, int pe);                  \
  void shmem_ctx_##N##_get_nbi(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems,      \
                               int pe);                                                       \
  void shmem_##N##_p(T* dest, T value, int pe);                                               \
  void shmem_ctx_##N##_p(shmem_ctx_t ctx, T* dest, T value, int pe);                          \
  T shmem_##N##_g(const T* source, int pe);                                                   \
  T shmem_ctx_##N##_g(shmem_ctx_t ctx, const T* source, int pe);                              \
  void shmem_##N##_iput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,               \
                        size_t nelems, int pe);                                               \
  void shmem_ctx_##N##_iput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst,         \
                            ptrdiff_t sst, size_t nelems, int pe);                            \
  void shmem_##N##_iget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,               \
                        size_t nelems, int pe);                                               \
  void shmem_ctx_##N##_iget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst,         \
                            ptrdiff_t sst, size_t nelems, int pe);                            \
  void shmem_##N##_ibput(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,              \
                         size_t bsize, size_t nblocks, int pe);                               \
  void shmem_ctx_##N##_ibput(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst,        \
                             ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);            \
  void shmem_##N##_ibget(T* dest, const T* source, ptrdiff_t dst, ptrdiff_t sst,              \
                         size_t bsize, size_t nblocks, int pe);                               \
  void shmem_ctx_##N##_ibget(shmem_ctx_t ctx, T* dest, const T* source, ptrdiff_t dst,        \
                             ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);            \
  void shmem_##N##_put_signal(T* dest, const T* source, size_t nelems, uint64_t* sig_addr,    \
                              uint64_t signal, int sig_op, int pe);                           \
  void shmem_ctx_##N##_put_signal(shmem_ctx_t ctx, T* dest, const T* source, size_t nelems,   \
                                  uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);   \
  void shmem_##N##_put_signal_nbi(T* dest, const T* source, size_t nelems,                    \
                                  uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);   \
  void shmem_ctx_##N##_put_signal_nbi(shmem_ctx_t ctx, T* dest, const T* source,              \
                                      size_t nelems, uint64_t* sig_addr, uint64_t signal,     \
                                      int sig_op, int pe);
SHMEM_GASKET_RMA_TYPES(SHMEM_GASKET_DECL_RMA)

#define SHMEM_GASKET_DECL_SIZED(B)                                                             \
  void shmem_put##B(void* dest, const void* source, size_t nelems, int pe);                   \
  void shmem_ctx_put##B(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,       \
                        int pe);                                                              \
  void shmem_get##B(void* dest, const void* source, size_t nelems, int pe);                   \
  void shmem_ctx_get##B(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,       \
                        int pe);                                                              \
  void shmem_put##B##_nbi(void* dest, const void* source, size_t nelems, int pe);             \
  void shmem_ctx_put##B##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, \
                              int pe);                                                        \
  void shmem_get##B##_nbi(void* dest, const void* source, size_t nelems, int pe);             \
  void shmem_ctx_get##B##_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, \
                              int pe);                                                        \
  void shmem_iput##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,            \
                     size_t nelems, int pe);                                                  \
  void shmem_ctx_iput##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst,      \
                         ptrdiff_t sst, size_t nelems, int pe);                               \
  void shmem_iget##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,            \
                     size_t nelems, int pe);                                                  \
  void shmem_ctx_iget##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst,      \
                         ptrdiff_t sst, size_t nelems, int pe);                               \
  void shmem_ibput##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,           \
                      size_t bsize, size_t nblocks, int pe);                                  \
  void shmem_ctx_ibput##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst,     \
                          ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);               \
  void shmem_ibget##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,           \
                      size_t bsize, size_t nblocks, int pe);                                  \
  void shmem_ctx_ibget##B(shmem_ctx_t ctx, void* dest, const void* source, ptrdiff_t dst,     \
                          ptrdiff_t sst, size_t bsize, size_t nblocks, int pe);               \
  void shmem_put##B##_signal(void* dest, const void* source, size_t nelems,                   \
                             uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);        \
  void shmem_ctx_put##B##_signal(shmem_ctx_t ctx, void* dest, const void* source,             \
                                 size_t nelems, uint64_t* sig_addr, uint64_t signal,          \
                                 int sig_op, int pe);                                         \
  void shmem_put##B##_signal_nbi(void* dest, const void* source, size_t nelems,               \
                                 uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);    \
  void shmem_ctx_put##B##_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source,         \
                                     size_t nelems, uint64_t* sig_addr, uint64_t signal,      \
                                     int sig_op, int pe);
SHMEM_GASKET_SIZES(SHMEM_GASKET_DECL_SIZED)

void shmem_putmem(void* dest, const void* source, size_t nelems, int pe);
void shmem_ctx_putmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);
void shmem_getmem(void* dest, const void* source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);
void shmem_putmem_nbi(void* dest, const void* source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);
void shmem_getmem_nbi(void* dest, const void* source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems, int pe);
void shmem_putmem_signal(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,
                         uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,
                             uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void* dest, const void* source, size_t nelems, uint64_t* sig_addr,
                             uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void* dest, const void* source, size_t nelems,
                                 uint64_t* sig_addr, uint64_t signal, int sig_op, int pe);
uint64_t shmem_signal_fetch(const uint64_t* sig_addr);
uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t cmp_value);
void shmem_signal_add(uint64_t* sig_addr, uint64_t signal, int pe);
void shmem_ctx_signal_add(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe);
void shmem_signal_set(uint64_t* sig_addr, uint64_t signal, int pe);
void shmem_ctx_signal_set(shmem_ctx_t ctx, uint64_t* sig_addr, uint64_t signal, int pe);

#define SHMEM_GASKET_DECL_AMO(T, N)                                                            \
  T shmem_##N##_atomic_fetch_inc(T* dest, int pe);                                            \
  T shmem_ctx_##N##_atomic_fetch_inc(shmem_ctx_t ctx, T* dest, int pe);                       \
  void shmem_##N##_atomic_fetch_inc_nbi(T* fetch, T* dest, int pe);                           \
  void shmem_ctx_##N##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, T* fetch, T* dest, int pe);      \
  void shmem_##N##_atomic_inc(T* dest, int pe);                                               \
  void shmem_ctx_##N##_atomic_inc(shmem_ctx_t ctx, T* dest, int pe);                          \
  T shmem_##N##_atomic_fetch_add(T* dest, T value, int pe);                                   \
  T shmem_ctx_##N##_atomic_fetch_add(shmem_ctx_t ctx, T* dest, T value, int pe);              \
  void shmem_##N##_atomic_fetch_add_nbi(T* fetch, T* dest, T value, int pe);                  \
  void shmem_ctx_##N##_atomic_fetch_add_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value,      \
                                            int pe);                                          \
  void shmem_##N##_atomic_add(T* dest, T value, int pe);                                      \
  void shmem_ctx_##N##_atomic_add(shmem_ctx_t ctx, T* dest, T value, int pe);                 \
  T shmem_##N##_atomic_compare_swap(T* dest, T cond, T value, int pe);                        \
  T shmem_ctx_##N##_atomic_compare_swap(shmem_ctx_t ctx, T* dest, T cond, T value, int pe);   \
  void shmem_##N##_atomic_compare_swap_nbi(T* fetch, T* dest, T cond, T value, int pe);       \
  void shmem_ctx_##N##_atomic_compare_swap_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T cond,    \
                                               T value, int pe);                              \
  T shmem_##N##_finc(T* dest, int pe);                                                        \
  T shmem_##N##_fadd(T* dest, T value, int pe);                                               \
  T shmem_##N##_cswap(T* dest, T cond, T value, int pe);                                      \
  void shmem_##N##_inc(T* dest, int pe);                                                      \
  void shmem_##N##_add(T* dest, T value, int pe);
SHMEM_GASKET_AMO_TYPES(SHMEM_GASKET_DECL_AMO)

#define SHMEM_GASKET_DECL_AMO_EXT(T, N)                                                        \
  T shmem_##N##_atomic_fetch(const T* source, int pe);                                        \
  T shmem_ctx_##N##_atomic_fetch(shmem_ctx_t ctx, const T* source, int pe);                   \
  void shmem_##N##_atomic_fetch_nbi(T* fetch, const T* source, int pe);                       \
  void shmem_ctx_##N##_atomic_fetch_nbi(shmem_ctx_t ctx, T* fetch, const T* source, int pe);  \
  void shmem_##N##_atomic_set(T* dest, T value, int pe);                                      \
  void shmem_ctx_##N##_atomic_set(shmem_ctx_t ctx, T* dest, T value, int pe);                 \
  T shmem_##N##_atomic_swap(T* dest, T value, int pe);                                        \
  T shmem_ctx_##N##_atomic_swap(shmem_ctx_t ctx, T* dest, T value, int pe);                   \
  void shmem_##N##_atomic_swap_nbi(T* fetch, T* dest, T value, int pe);                       \
  void shmem_ctx_##N##_atomic_swap_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value, int pe);  \
  T shmem_##N##_fetch(const T* source, int pe);                                               \
  void shmem_##N##_set(T* dest, T value, int pe);                                             \
  T shmem_##N##_swap(T* dest, T value, int pe);
SHMEM_GASKET_AMO_EXT_TYPES(SHMEM_GASKET_DECL_AMO_EXT)

#define SHMEM_GASKET_DECL_AMO_BIT_OP(T, N, OP)                                                 \
  T shmem_##N##_atomic_fetch_##OP(T* dest, T value, int pe);                                  \
  T shmem_ctx_##N##_atomic_fetch_##OP(shmem_ctx_t ctx, T* dest, T value, int pe);             \
  void shmem_##N##_atomic_fetch_##OP##_nbi(T* fetch, T* dest, T value, int pe);               \
  void shmem_ctx_##N##_atomic_fetch_##OP##_nbi(shmem_ctx_t ctx, T* fetch, T* dest, T value,   \
                                               int pe);                                       \
  void shmem_##N##_atomic_##OP(T* dest, T value, int pe);                                     \
  void shmem_ctx_##N##_atomic_##OP(shmem_ctx_t ctx, T* dest, T value, int pe);
#define SHMEM_GASKET_DECL_AMO_BIT(T, N)                                                        \
  SHMEM_GASKET_DECL_AMO_BIT_OP(T, N, and)                                                     \
  SHMEM_GASKET_DECL_AMO_BIT_OP(T, N, or) SHMEM_GASKET_DECL_AMO_BIT_OP(T, N, xor)
SHMEM_GASKET_AMO_BIT_TYPES(SHMEM_GASKET_DECL_AMO_BIT)

/* ---- point-to-point synchronisation ---- */
#define SHMEM_GASKET_DECL_P2P(T, N)                                                            \
  void shmem_##N##_wait_until(T* ivar, int cmp, T cmp_value);                                 \
  void shmem_##N##_wait(T* ivar, T cmp_value);                                                \
  void shmem_##N##_wait_until_all(T* ivars, size_t nelems, const int* status, int cmp,        \
                                  T cmp_value);                                               \
  size_t shmem_##N##_wait_until_any(T* ivars, size_t nelems, const int* status, int cmp,      \
                                    T cmp_value);                                             \
  size_t shmem_##N##_wait_until_some(T* ivars, size_t nelems, size_t* indices,                \
                                     const int* status, int cmp, T cmp_value);                \
  void shmem_##N##_wait_until_all_vector(T* ivars, size_t nelems, const int* status, int cmp, \
                                         T* cmp_values);                                      \
  size_t shmem_##N##_wait_until_any_vector(T* ivars, size_t nelems, const int* status,        \
                                           int cmp, T* cmp_values);                           \
  size_t shmem_##N##_wait_until_some_vector(T* ivars, size_t nelems, size_t* indices,         \
                                            const int* status, int cmp, T* cmp_values);       \
  int shmem_##N##_test(T* ivar, int cmp, T cmp_value);                                        \
  int shmem_##N##_test_all(T* ivars, size_t nelems, const int* status, int cmp, T cmp_value); \
  size_t shmem_##N##_test_any(T* ivars, size_t nelems, const int* status, int cmp,            \
                              T cmp_value);                                                   \
  size_t shmem_##N##_test_some(T* ivars, size_t nelems, size_t* indices, const int* status,   \
                               int cmp, T cmp_value);                                         \
  int shmem_##N##_test_all_vector(T* ivars, size_t nelems, const int* status, int cmp,        \
                                  T* cmp_values);                                             \
  size_t shmem_##N##_test_any_vector(T* ivars, size_t nelems, const int* status, int cmp,     \
                                     T* cmp_values);                                          \
  size_t shmem_##N##_test_some_vector(T* ivars, size_t nelems, size_t* indices,               \
                                      const int* status, int cmp, T* cmp_values);
SHMEM_GASKET_P2P_TYPES(SHMEM_GASKET_DECL_P2P)
void shmem_wait_until(long* ivar, int cmp, long cmp_value);
void shmem_wait(long* ivar, long cmp_value);

/* ---- ordering, locks ---- */
void shmem_fence(void);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_quiet(void);
void shmem_ctx_quiet(shmem_ctx_t ctx);
void shmem_pe_quiet(const int* target_pes, size_t npes);
void shmem_ctx_pe_quiet(shmem_ctx_t ctx, const int* target_pes, size_t npes);
void shmem_set_lock(long* lock);
int shmem_test_lock(long* lock);
void shmem_clear_lock(long* lock);

/* ---- cache management (deprecated since OpenSHMEM 1.3, still required): no effect on
 * cache-coherent machines, accepted for programs written for SGI SHMEM ---- */
void shmem_clear_cache_inv(void);
void shmem_set_cache_inv(void);
void shmem_clear_cache_line_inv(void* dest);
void shmem_set_cache_line_inv(void* dest);
void shmem_udcflush(void);
void shmem_udcflush_line(void* dest);

/* ---- collectives ---- */
void shmem_barrier_all(void);
void shmem_sync_all(void);
int shmem_team_sync(shmem_team_t team);
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long* pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long* pSync);
int shmem_broadcastmem(shmem_team_t team, void* dest, const void* source, size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void* dest, const void* source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void* dest, const void* source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems);
#define SHMEM_GASKET_DECL_COLL(T, N)                                                           \
  int shmem_##N##_broadcast(shmem_team_t team, T* dest, const T* source, size_t nelems,       \
                            int PE_root);                                                     \
  int shmem_##N##_collect(shmem_team_t team, T* dest, const T* source, size_t nelems);        \
  int shmem_##N##_fcollect(shmem_team_t team, T* dest, const T* source, size_t nelems);       \
  int shmem_##N##_alltoall(shmem_team_t team, T* dest, const T* source, size_t nelems);       \
  int shmem_##N##_alltoalls(shmem_team_t team, T* dest, const T* source, ptrdiff_t dst,       \
                            ptrdiff_t sst, size_t nelems);
SHMEM_GASKET_RMA_TYPES(SHMEM_GASKET_DECL_COLL)
#define SHMEM_GASKET_DECL_ACTIVE_SET(B)                                                        \
  void shmem_broadcast##B(void* dest, const void* source, size_t nelems, int PE_root,         \
                          int PE_start, int logPE_stride, int PE_size, long* pSync);          \
  void shmem_collect##B(void* dest, const void* source, size_t nelems, int PE_start,          \
                        int logPE_stride, int PE_size, long* pSync);                          \
  void shmem_fcollect##B(void* dest, const void* source, size_t nelems, int PE_start,         \
                         int logPE_stride, int PE_size, long* pSync);                         \
  void shmem_alltoall##B(void* dest, const void* source, size_t nelems, int PE_start,         \
                         int logPE_stride, int PE_size, long* pSync);                         \
  void shmem_alltoalls##B(void* dest, const void* source, ptrdiff_t dst, ptrdiff_t sst,       \
                          size_t nelems, int PE_start, int logPE_stride, int PE_size,         \
                          long* pSync);
SHMEM_GASKET_DECL_ACTIVE_SET(32)
SHMEM_GASKET_DECL_ACTIVE_SET(64)

#define SHMEM_GASKET_DECL_REDUCE(T, N, OP)                                                     \
  int shmem_##N##_##OP##_reduce(shmem_team_t team, T* dest, const T* source, size_t nreduce);
#define SHMEM_GASKET_DECL_REDUCE_BIT(T, N) \
  SHMEM_GASKET_DECL_REDUCE(T, N, and) SHMEM_GASKET_DECL_REDUCE(T, N, or) SHMEM_GASKET_DECL_REDUCE(T, N, xor)
#define SHMEM_GASKET_DECL_REDUCE_MINMAX(T, N) \
  SHMEM_GASKET_DECL_REDUCE(T, N, max) SHMEM_GASKET_DECL_REDUCE(T, N, min)
#define SHMEM_GASKET_DECL_REDUCE_ARITH(T, N) \
  SHMEM_GASKET_DECL_REDUCE(T, N, sum) SHMEM_GASKET_DECL_REDUCE(T, N, prod)
SHMEM_GASKET_REDUCE_BIT_TYPES(SHMEM_GASKET_DECL_REDUCE_BIT)
SHMEM_GASKET_REDUCE_MINMAX_TYPES(SHMEM_GASKET_DECL_REDUCE_MINMAX)
SHMEM_GASKET_REDUCE_ARITH_TYPES(SHMEM_GASKET_DECL_REDUCE_ARITH)

/* 1.6 scans: prefix sums over the team, inclusive (dest on team PE k = source of PEs 0..k) and
 * exclusive (PEs 0..k-1; 0 on PE 0), for the sum/prod reduction types */
#define SHMEM_GASKET_DECL_SCAN(T, N)                                                           \
  int shmem_##N##_sum_inscan(shmem_team_t team, T* dest, const T* source, size_t nelems);     \
  int shmem_##N##_sum_exscan(shmem_team_t team, T* dest, const T* source, size_t nelems);
SHMEM_GASKET_REDUCE_ARITH_TYPES(SHMEM_GASKET_DECL_SCAN)

#define SHMEM_GASKET_DECL_TO_ALL(T, N, OP)                                                     \
  void shmem_##N##_##OP##_to_all(T* dest, const T* source, int nreduce, int PE_start,         \
                                 int logPE_stride, int PE_size, T* pWrk, long* pSync);
#define SHMEM_GASKET_DECL_TO_ALL_BIT(T, N) \
  SHMEM_GASKET_DECL_TO_ALL(T, N, and) SHMEM_GASKET_DECL_TO_ALL(T, N, or) SHMEM_GASKET_DECL_TO_ALL(T, N, xor)
#define SHMEM_GASKET_DECL_TO_ALL_MINMAX(T, N) \
  SHMEM_GASKET_DECL_TO_ALL(T, N, max) SHMEM_GASKET_DECL_TO_ALL(T, N, min)
#define SHMEM_GASKET_DECL_TO_ALL_ARITH(T, N) \
  SHMEM_GASKET_DECL_TO_ALL(T, N, sum) SHMEM_GASKET_DECL_TO_ALL(T, N, prod)
SHMEM_GASKET_TO_ALL_BIT_TYPES(SHMEM_GASKET_DECL_TO_ALL_BIT)
SHMEM_GASKET_TO_ALL_MINMAX_TYPES(SHMEM_GASKET_DECL_TO_ALL_MINMAX)
SHMEM_GASKET_TO_ALL_ARITH_TYPES(SHMEM_GASKET_DECL_TO_ALL_ARITH)

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---- type-generic interfaces: C11 _Generic in C, overloads in C++ ----
 * The ctx forms have one argument more; the count picks the form, the element type the routine. */
#define SHMEM_GASKET_CAT_(a, b) a##b
#define SHMEM_GASKET_CAT(a, b) SHMEM_GASKET_CAT_(a, b)
#define SHMEM_GASKET_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, N, ...) N
#define SHMEM_GASKET_NARGS(...) SHMEM_GASKET_NARGS_(__VA_ARGS__, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define SHMEM_GASKET_BY_COUNT(name, ...) \
  SHMEM_GASKET_CAT(name, SHMEM_GASKET_NARGS(__VA_ARGS__))(__VA_ARGS__)

#if !defined(__cplusplus) && defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* Base C types only: the fixed-width names are aliases of these. */
#define SHMEM_GASKET_G_RMA(pre, suf)                                                           \
  float: pre##float##suf, double: pre##double##suf, long double: pre##longdouble##suf,        \
  char: pre##char##suf, signed char: pre##schar##suf, short: pre##short##suf,                  \
  int: pre##int##suf, long: pre##long##suf, long long: pre##longlong##suf,                     \
  unsigned char: pre##uchar##suf, unsigned short: pre##ushort##suf,                            \
  unsigned int: pre##uint##suf, unsigned long: pre##ulong##suf,                                \
  unsigned long long: pre##ulonglong##suf
#define SHMEM_GASKET_G_AMO(pre, suf)                                                           \
  int: pre##int##suf, long: pre##long##suf, long long: pre##longlong##suf,                     \
  unsigned int: pre##uint##suf, unsigned long: pre##ulong##suf,                                \
  unsigned long long: pre##ulonglong##suf
#define SHMEM_GASKET_G_AMO_EXT(pre, suf) \
  SHMEM_GASKET_G_AMO(pre, suf), float: pre##float##suf, double: pre##double##suf
#define SHMEM_GASKET_G_DEPRECATED_AMO(pre, suf) \
  int: pre##int##suf, long: pre##long##suf, long long: pre##longlong##suf
#define SHMEM_GASKET_G_DEPRECATED_AMO_EXT(pre, suf) \
  SHMEM_GASKET_G_DEPRECATED_AMO(pre, suf), float: pre##float##suf, double: pre##double##suf
#define SHMEM_GASKET_G_AMO_BIT(pre, suf)                                                       \
  unsigned int: pre##uint##suf, unsigned long: pre##ulong##suf,                                \
  unsigned long long: pre##ulonglong##suf, int32_t: pre##int32##suf, int64_t: pre##int64##suf
#define SHMEM_GASKET_G_P2P(pre, suf)                                                           \
  short: pre##short##suf, int: pre##int##suf, long: pre##long##suf,                            \
  long long: pre##longlong##suf, unsigned short: pre##ushort##suf,                             \
  unsigned int: pre##uint##suf, unsigned long: pre##ulong##suf,                                \
  unsigned long long: pre##ulonglong##suf
#define SHMEM_GASKET_G_BIT_REDUCE(pre, suf)                                                    \
  unsigned char: pre##uchar##suf, unsigned short: pre##ushort##suf,                            \
  unsigned int: pre##uint##suf, unsigned long: pre##ulong##suf,                                \
  unsigned long long: pre##ulonglong##suf, int8_t: pre##int8##suf, int16_t: pre##int16##suf,  \
  int32_t: pre##int32##suf, int64_t: pre##int64##suf
#define SHMEM_GASKET_G_MINMAX_REDUCE(pre, suf)                                                 \
  char: pre##char##suf, signed char: pre##schar##suf, short: pre##short##suf,                  \
  int: pre##int##suf, long: pre##long##suf, long long: pre##longlong##suf,                     \
  unsigned char: pre##uchar##suf, unsigned short: pre##ushort##suf,                            \
  unsigned int: pre##uint##suf, unsigned long: pre##ulong##suf,                                \
  unsigned long long: pre##ulonglong##suf, float: pre##float##suf, double: pre##double##suf,   \
  long double: pre##longdouble##suf
#define SHMEM_GASKET_G_ARITH_REDUCE(pre, suf)                                                  \
  SHMEM_GASKET_G_MINMAX_REDUCE(pre, suf), double _Complex: pre##complexd##suf,                  \
  float _Complex: pre##complexf##suf

/* A routine with a plain form of `n` arguments dispatching on argument `k` (1-based), and a ctx
 * form dispatching on argument k+1. */
#define SHMEM_GASKET_ARG1(a, ...) a
#define SHMEM_GASKET_ARG2(a, b, ...) b
#define SHMEM_GASKET_ARG3(a, b, c, ...) c
#define SHMEM_GASKET_SEL(list, suf, x) _Generic(*(x), list(shmem_, suf))
#define SHMEM_GASKET_SEL_CTX(list, suf, x) _Generic(*(x), list(shmem_ctx_, suf))

#define shmem_put(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_put_, __VA_ARGS__)
#define SHMEM_GASKET_put_4(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_RMA, _put, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_put_5(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_RMA, _put, d)(c, d, __VA_ARGS__)
#define shmem_get(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_get_, __VA_ARGS__)
#define SHMEM_GASKET_get_4(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_RMA, _get, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_get_5(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_RMA, _get, d)(c, d, __VA_ARGS__)
#define shmem_put_nbi(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_put_nbi_, __VA_ARGS__)
#define SHMEM_GASKET_put_nbi_4(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_RMA, _put_nbi, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_put_nbi_5(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_RMA, _put_nbi, d)(c, d, __VA_ARGS__)
#define shmem_get_nbi(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_get_nbi_, __VA_ARGS__)
#define SHMEM_GASKET_get_nbi_4(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_RMA, _get_nbi, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_get_nbi_5(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_RMA, _get_nbi, d)(c, d, __VA_ARGS__)
#define shmem_iput(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_iput_, __VA_ARGS__)
#define SHMEM_GASKET_iput_6(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_RMA, _iput, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_iput_7(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_RMA, _iput, d)(c, d, __VA_ARGS__)
#define shmem_iget(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_iget_, __VA_ARGS__)
#define SHMEM_GASKET_iget_6(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_RMA, _iget, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_iget_7(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_RMA, _iget, d)(c, d, __VA_ARGS__)
#define shmem_ibput(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_ibput_, __VA_ARGS__)
#define SHMEM_GASKET_ibput_7(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_RMA, _ibput, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_ibput_8(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_RMA, _ibput, d)(c, d, __VA_ARGS__)
#define shmem_ibget(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_ibget_, __VA_ARGS__)
#define SHMEM_GASKET_ibget_7(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_RMA, _ibget, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_ibget_8(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_RMA, _ibget, d)(c, d, __VA_ARGS__)
#define shmem_p(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_p_, __VA_ARGS__)
#define SHMEM_GASKET_p_3(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_RMA, _p, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_p_4(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_RMA, _p, d)(c, d, __VA_ARGS__)
#define shmem_g(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_g_, __VA_ARGS__)
#define SHMEM_GASKET_g_2(s, pe) SHMEM_GASKET_SEL(SHMEM_GASKET_G_RMA, _g, s)(s, pe)
#define SHMEM_GASKET_g_3(c, s, pe) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_RMA, _g, s)(c, s, pe)
#define shmem_put_signal(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_put_signal_, __VA_ARGS__)
#define SHMEM_GASKET_put_signal_7(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_RMA, _put_signal, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_put_signal_8(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_RMA, _put_signal, d)(c, d, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_put_signal_nbi_, __VA_ARGS__)
#define SHMEM_GASKET_put_signal_nbi_7(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_RMA, _put_signal_nbi, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_put_signal_nbi_8(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_RMA, _put_signal_nbi, d)(c, d, __VA_ARGS__)

#define shmem_atomic_fetch(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_fetch_, __VA_ARGS__)
#define SHMEM_GASKET_fetch_2(s, pe) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO_EXT, _atomic_fetch, s)(s, pe)
#define SHMEM_GASKET_fetch_3(c, s, pe) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO_EXT, _atomic_fetch, s)(c, s, pe)
#define shmem_atomic_set(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_set_, __VA_ARGS__)
#define SHMEM_GASKET_set_3(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO_EXT, _atomic_set, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_set_4(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO_EXT, _atomic_set, d)(c, d, __VA_ARGS__)
#define shmem_atomic_swap(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_swap_, __VA_ARGS__)
#define SHMEM_GASKET_swap_3(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO_EXT, _atomic_swap, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_swap_4(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO_EXT, _atomic_swap, d)(c, d, __VA_ARGS__)
#define shmem_atomic_compare_swap(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_cswap_, __VA_ARGS__)
#define SHMEM_GASKET_cswap_4(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO, _atomic_compare_swap, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_cswap_5(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO, _atomic_compare_swap, d)(c, d, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_finc_, __VA_ARGS__)
#define SHMEM_GASKET_finc_2(d, pe) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO, _atomic_fetch_inc, d)(d, pe)
#define SHMEM_GASKET_finc_3(c, d, pe) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO, _atomic_fetch_inc, d)(c, d, pe)
#define shmem_atomic_inc(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_inc_, __VA_ARGS__)
#define SHMEM_GASKET_inc_2(d, pe) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO, _atomic_inc, d)(d, pe)
#define SHMEM_GASKET_inc_3(c, d, pe) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO, _atomic_inc, d)(c, d, pe)
#define shmem_atomic_fetch_add(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_fadd_, __VA_ARGS__)
#define SHMEM_GASKET_fadd_3(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO, _atomic_fetch_add, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_fadd_4(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO, _atomic_fetch_add, d)(c, d, __VA_ARGS__)
#define shmem_atomic_add(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_add_, __VA_ARGS__)
#define SHMEM_GASKET_add_3(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO, _atomic_add, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_add_4(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO, _atomic_add, d)(c, d, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_fand_, __VA_ARGS__)
#define SHMEM_GASKET_fand_3(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO_BIT, _atomic_fetch_and, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_fand_4(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO_BIT, _atomic_fetch_and, d)(c, d, __VA_ARGS__)
#define shmem_atomic_and(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_and_, __VA_ARGS__)
#define SHMEM_GASKET_and_3(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO_BIT, _atomic_and, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_and_4(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO_BIT, _atomic_and, d)(c, d, __VA_ARGS__)
#define shmem_atomic_fetch_or(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_for_, __VA_ARGS__)
#define SHMEM_GASKET_for_3(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO_BIT, _atomic_fetch_or, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_for_4(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO_BIT, _atomic_fetch_or, d)(c, d, __VA_ARGS__)
#define shmem_atomic_or(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_or_, __VA_ARGS__)
#define SHMEM_GASKET_or_3(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO_BIT, _atomic_or, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_or_4(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO_BIT, _atomic_or, d)(c, d, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_fxor_, __VA_ARGS__)
#define SHMEM_GASKET_fxor_3(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO_BIT, _atomic_fetch_xor, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_fxor_4(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO_BIT, _atomic_fetch_xor, d)(c, d, __VA_ARGS__)
#define shmem_atomic_xor(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_xor_, __VA_ARGS__)
#define SHMEM_GASKET_xor_3(d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO_BIT, _atomic_xor, d)(d, __VA_ARGS__)
#define SHMEM_GASKET_xor_4(c, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO_BIT, _atomic_xor, d)(c, d, __VA_ARGS__)

/* fetching non-blocking atomics (dispatch on the destination, the argument after fetch) */
#define shmem_atomic_fetch_nbi(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_fetch_nbi_, __VA_ARGS__)
#define SHMEM_GASKET_fetch_nbi_3(f, s, pe) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO_EXT, _atomic_fetch_nbi, s)(f, s, pe)
#define SHMEM_GASKET_fetch_nbi_4(c, f, s, pe) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO_EXT, _atomic_fetch_nbi, s)(c, f, s, pe)
#define shmem_atomic_swap_nbi(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_swap_nbi_, __VA_ARGS__)
#define SHMEM_GASKET_swap_nbi_4(f, d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO_EXT, _atomic_swap_nbi, d)(f, d, __VA_ARGS__)
#define SHMEM_GASKET_swap_nbi_5(c, f, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO_EXT, _atomic_swap_nbi, d)(c, f, d, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_cswap_nbi_, __VA_ARGS__)
#define SHMEM_GASKET_cswap_nbi_5(f, d, ...) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO, _atomic_compare_swap_nbi, d)(f, d, __VA_ARGS__)
#define SHMEM_GASKET_cswap_nbi_6(c, f, d, ...) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO, _atomic_compare_swap_nbi, d)(c, f, d, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_finc_nbi_, __VA_ARGS__)
#define SHMEM_GASKET_finc_nbi_3(f, d, pe) SHMEM_GASKET_SEL(SHMEM_GASKET_G_AMO, _atomic_fetch_inc_nbi, d)(f, d, pe)
#define SHMEM_GASKET_finc_nbi_4(c, f, d, pe) SHMEM_GASKET_SEL_CTX(SHMEM_GASKET_G_AMO, _atomic_fetch_inc_nbi, d)(c, f, d, pe)
/* fetch_add, fetch_and, fetch_or, fetch_xor: (fetch, dest, value, pe) */
#define SHMEM_GASKET_VALUE_NBI_4(list, suf, f, d, ...) SHMEM_GASKET_SEL(list, suf, d)(f, d, __VA_ARGS__)
#define SHMEM_GASKET_VALUE_NBI_5(list, suf, c, f, d, ...) SHMEM_GASKET_SEL_CTX(list, suf, d)(c, f, d, __VA_ARGS__)
#define SHMEM_GASKET_VALUE_NBI(list, suf, ...) \
  SHMEM_GASKET_CAT(SHMEM_GASKET_VALUE_NBI_, SHMEM_GASKET_NARGS(__VA_ARGS__))(list, suf, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...) SHMEM_GASKET_VALUE_NBI(SHMEM_GASKET_G_AMO, _atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...) SHMEM_GASKET_VALUE_NBI(SHMEM_GASKET_G_AMO_BIT, _atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...) SHMEM_GASKET_VALUE_NBI(SHMEM_GASKET_G_AMO_BIT, _atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...) SHMEM_GASKET_VALUE_NBI(SHMEM_GASKET_G_AMO_BIT, _atomic_fetch_xor_nbi, __VA_ARGS__)

/* The deprecated generic AMOs (shmem_swap, shmem_fadd...): only the types OpenSHMEM 1.4 lists
 * for each (any other type does not compile, never a wrong-size operation), each use warning
 * through a deprecated marker function that names the replacement. */
#if defined(__GNUC__) || defined(__clang__)
#define SHMEM_GASKET_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define SHMEM_GASKET_DEPRECATED(msg)
#endif
#define SHMEM_GASKET_DEPRECATION_MARKER(old, replacement)                                      \
  SHMEM_GASKET_DEPRECATED(#old " is deprecated since OpenSHMEM 1.4: use " #replacement)       \
  static inline void gasket_deprecated_##old(void) {}
SHMEM_GASKET_DEPRECATION_MARKER(shmem_swap, shmem_atomic_swap)
SHMEM_GASKET_DEPRECATION_MARKER(shmem_fetch, shmem_atomic_fetch)
SHMEM_GASKET_DEPRECATION_MARKER(shmem_set, shmem_atomic_set)
SHMEM_GASKET_DEPRECATION_MARKER(shmem_cswap, shmem_atomic_compare_swap)
SHMEM_GASKET_DEPRECATION_MARKER(shmem_fadd, shmem_atomic_fetch_add)
SHMEM_GASKET_DEPRECATION_MARKER(shmem_finc, shmem_atomic_fetch_inc)
SHMEM_GASKET_DEPRECATION_MARKER(shmem_add, shmem_atomic_add)
SHMEM_GASKET_DEPRECATION_MARKER(shmem_inc, shmem_atomic_inc)
#define SHMEM_GASKET_DEPRECATED_G(list, name, x) \
  (gasket_deprecated_shmem_##name(), _Generic(*(x), list(shmem_, _##name)))
#define shmem_swap(d, v, pe) SHMEM_GASKET_DEPRECATED_G(SHMEM_GASKET_G_DEPRECATED_AMO_EXT, swap, d)(d, v, pe)
#define shmem_fetch(s, pe) SHMEM_GASKET_DEPRECATED_G(SHMEM_GASKET_G_DEPRECATED_AMO_EXT, fetch, s)(s, pe)
#define shmem_set(d, v, pe) SHMEM_GASKET_DEPRECATED_G(SHMEM_GASKET_G_DEPRECATED_AMO_EXT, set, d)(d, v, pe)
#define shmem_cswap(d, c, v, pe) SHMEM_GASKET_DEPRECATED_G(SHMEM_GASKET_G_DEPRECATED_AMO, cswap, d)(d, c, v, pe)
#define shmem_fadd(d, v, pe) SHMEM_GASKET_DEPRECATED_G(SHMEM_GASKET_G_DEPRECATED_AMO, fadd, d)(d, v, pe)
#define shmem_finc(d, pe) SHMEM_GASKET_DEPRECATED_G(SHMEM_GASKET_G_DEPRECATED_AMO, finc, d)(d, pe)
#define shmem_add(d, v, pe) SHMEM_GASKET_DEPRECATED_G(SHMEM_GASKET_G_DEPRECATED_AMO, add, d)(d, v, pe)
#define shmem_inc(d, pe) SHMEM_GASKET_DEPRECATED_G(SHMEM_GASKET_G_DEPRECATED_AMO, inc, d)(d, pe)

/* shmem_sync(team) (1.5) beside the deprecated active-set shmem_sync(PE_start, logPE_stride,
 * PE_size, pSync): the argument count picks the routine. */
#define shmem_sync(...) SHMEM_GASKET_BY_COUNT(SHMEM_GASKET_sync_, __VA_ARGS__)
#define SHMEM_GASKET_sync_1(team) shmem_team_sync(team)
#define SHMEM_GASKET_sync_4(start, log_stride, size, psync) (shmem_sync)(start, log_stride, size, psync)

/* point-to-point synchronisation (dispatch on the first argument) */
#define SHMEM_GASKET_P2P_G(suf, x) _Generic(*(x), SHMEM_GASKET_G_P2P(shmem_, suf))
#define shmem_wait_until(ivar, ...) SHMEM_GASKET_P2P_G(_wait_until, ivar)(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...) SHMEM_GASKET_P2P_G(_wait_until_all, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...) SHMEM_GASKET_P2P_G(_wait_until_any, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...) SHMEM_GASKET_P2P_G(_wait_until_some, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...) SHMEM_GASKET_P2P_G(_wait_until_all_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...) SHMEM_GASKET_P2P_G(_wait_until_any_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...) SHMEM_GASKET_P2P_G(_wait_until_some_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test(ivar, ...) SHMEM_GASKET_P2P_G(_test, ivar)(ivar, __VA_ARGS__)
#define shmem_test_all(ivars, ...) SHMEM_GASKET_P2P_G(_test_all, ivars)(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...) SHMEM_GASKET_P2P_G(_test_any, ivars)(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...) SHMEM_GASKET_P2P_G(_test_some, ivars)(ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...) SHMEM_GASKET_P2P_G(_test_all_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...) SHMEM_GASKET_P2P_G(_test_any_vector, ivars)(ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...) SHMEM_GASKET_P2P_G(_test_some_vector, ivars)(ivars, __VA_ARGS__)

/* team collectives (dispatch on dest, the second argument) */
#define SHMEM_GASKET_TEAM_G(list, suf, team, dest, ...) _Generic(*(dest), list(shmem_, suf))(team, dest, __VA_ARGS__)
#define shmem_broadcast(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_RMA, _broadcast, __VA_ARGS__)
#define shmem_collect(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_RMA, _collect, __VA_ARGS__)
#define shmem_fcollect(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_RMA, _fcollect, __VA_ARGS__)
#define shmem_alltoall(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_RMA, _alltoall, __VA_ARGS__)
#define shmem_alltoalls(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_RMA, _alltoalls, __VA_ARGS__)
#define shmem_and_reduce(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_BIT_REDUCE, _and_reduce, __VA_ARGS__)
#define shmem_or_reduce(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_BIT_REDUCE, _or_reduce, __VA_ARGS__)
#define shmem_xor_reduce(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_BIT_REDUCE, _xor_reduce, __VA_ARGS__)
#define shmem_max_reduce(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_MINMAX_REDUCE, _max_reduce, __VA_ARGS__)
#define shmem_min_reduce(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_MINMAX_REDUCE, _min_reduce, __VA_ARGS__)
#define shmem_sum_reduce(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_ARITH_REDUCE, _sum_reduce, __VA_ARGS__)
#define shmem_prod_reduce(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_ARITH_REDUCE, _prod_reduce, __VA_ARGS__)
#define shmem_sum_inscan(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_ARITH_REDUCE, _sum_inscan, __VA_ARGS__)
#define shmem_sum_exscan(...) SHMEM_GASKET_TEAM_G(SHMEM_GASKET_G_ARITH_REDUCE, _sum_exscan, __VA_ARGS__)
#endif /* C11 */

#ifdef __cplusplus
/* C++: every generic name the specification defines, as overloads generated from the base-type
 * part of the type lists (the fixed-width and size types are aliases of these). Each routine
 * comes with its ctx form: SHMEM_GASKET_CXX(ret, name, N, (params), (args)) defines
 * shmem_<name>(params) -> shmem_<N>_<name>(args) and shmem_<name>(ctx, params) ->
 * shmem_ctx_<N>_<name>(ctx, args); SHMEM_GASKET_CXX_PLAIN defines routines without a ctx form. */
#define SHMEM_GASKET_UNPAREN(...) __VA_ARGS__
#define SHMEM_GASKET_CXX_PLAIN(R, name, N, params, args) \
  inline R shmem_##name params { return shmem_##N##_##name args; }
#define SHMEM_GASKET_CXX(R, name, N, params, args)                                             \
  SHMEM_GASKET_CXX_PLAIN(R, name, N, params, args)                                            \
  inline R shmem_##name(shmem_ctx_t ctx, SHMEM_GASKET_UNPAREN params) {                       \
    return shmem_ctx_##N##_##name(ctx, SHMEM_GASKET_UNPAREN args);                            \
  }

/* RMA, signals and the team collectives that move data */
#define SHMEM_GASKET_CXX_RMA(T, N)                                                             \
  SHMEM_GASKET_CXX(void, put, N, (T* d, const T* s, size_t n, int pe), (d, s, n, pe))         \
  SHMEM_GASKET_CXX(void, get, N, (T* d, const T* s, size_t n, int pe), (d, s, n, pe))         \
  SHMEM_GASKET_CXX(void, put_nbi, N, (T* d, const T* s, size_t n, int pe), (d, s, n, pe))     \
  SHMEM_GASKET_CXX(void, get_nbi, N, (T* d, const T* s, size_t n, int pe), (d, s, n, pe))     \
  SHMEM_GASKET_CXX(void, p, N, (T* d, T v, int pe), (d, v, pe))                               \
  SHMEM_GASKET_CXX(T, g, N, (const T* s, int pe), (s, pe))                                    \
  SHMEM_GASKET_CXX(void, iput, N, (T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe), \
                   (d, s, dst, sst, n, pe))                                                   \
  SHMEM_GASKET_CXX(void, iget, N, (T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe), \
                   (d, s, dst, sst, n, pe))                                                   \
  SHMEM_GASKET_CXX(void, ibput, N,                                                            \
                   (T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t bs, size_t nb, int pe), \
                   (d, s, dst, sst, bs, nb, pe))                                              \
  SHMEM_GASKET_CXX(void, ibget, N,                                                            \
                   (T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t bs, size_t nb, int pe), \
                   (d, s, dst, sst, bs, nb, pe))                                              \
  SHMEM_GASKET_CXX(void, put_signal, N,                                                       \
                   (T* d, const T* s, size_t n, uint64_t* sa, uint64_t sv, int op, int pe),   \
                   (d, s, n, sa, sv, op, pe))                                                 \
  SHMEM_GASKET_CXX(void, put_signal_nbi, N,                                                   \
                   (T* d, const T* s, size_t n, uint64_t* sa, uint64_t sv, int op, int pe),   \
                   (d, s, n, sa, sv, op, pe))                                                 \
  SHMEM_GASKET_CXX_PLAIN(int, broadcast, N, (shmem_team_t t, T* d, const T* s, size_t n, int root), \
                         (t, d, s, n, root))                                                  \
  SHMEM_GASKET_CXX_PLAIN(int, collect, N, (shmem_team_t t, T* d, const T* s, size_t n), (t, d, s, n)) \
  SHMEM_GASKET_CXX_PLAIN(int, fcollect, N, (shmem_team_t t, T* d, const T* s, size_t n), (t, d, s, n)) \
  SHMEM_GASKET_CXX_PLAIN(int, alltoall, N, (shmem_team_t t, T* d, const T* s, size_t n), (t, d, s, n)) \
  SHMEM_GASKET_CXX_PLAIN(int, alltoalls, N,                                                   \
                         (shmem_team_t t, T* d, const T* s, ptrdiff_t dst, ptrdiff_t sst, size_t n), \
                         (t, d, s, dst, sst, n))
SHMEM_GASKET_RMA_BASE_TYPES(SHMEM_GASKET_CXX_RMA)

/* atomics: standard, extended and bitwise, with their fetching _nbi forms */
#define SHMEM_GASKET_CXX_AMO(T, N)                                                             \
  SHMEM_GASKET_CXX(T, atomic_fetch_inc, N, (T* d, int pe), (d, pe))                           \
  SHMEM_GASKET_CXX(void, atomic_fetch_inc_nbi, N, (T* f, T* d, int pe), (f, d, pe))           \
  SHMEM_GASKET_CXX(void, atomic_inc, N, (T* d, int pe), (d, pe))                              \
  SHMEM_GASKET_CXX(T, atomic_fetch_add, N, (T* d, T v, int pe), (d, v, pe))                   \
  SHMEM_GASKET_CXX(void, atomic_fetch_add_nbi, N, (T* f, T* d, T v, int pe), (f, d, v, pe))   \
  SHMEM_GASKET_CXX(void, atomic_add, N, (T* d, T v, int pe), (d, v, pe))                      \
  SHMEM_GASKET_CXX(T, atomic_compare_swap, N, (T* d, T c, T v, int pe), (d, c, v, pe))        \
  SHMEM_GASKET_CXX(void, atomic_compare_swap_nbi, N, (T* f, T* d, T c, T v, int pe), (f, d, c, v, pe))
SHMEM_GASKET_AMO_BASE_TYPES(SHMEM_GASKET_CXX_AMO)
#define SHMEM_GASKET_CXX_AMO_EXT(T, N)                                                         \
  SHMEM_GASKET_CXX(T, atomic_fetch, N, (const T* s, int pe), (s, pe))                         \
  SHMEM_GASKET_CXX(void, atomic_fetch_nbi, N, (T* f, const T* s, int pe), (f, s, pe))         \
  SHMEM_GASKET_CXX(void, atomic_set, N, (T* d, T v, int pe), (d, v, pe))                      \
  SHMEM_GASKET_CXX(T, atomic_swap, N, (T* d, T v, int pe), (d, v, pe))                        \
  SHMEM_GASKET_CXX(void, atomic_swap_nbi, N, (T* f, T* d, T v, int pe), (f, d, v, pe))
SHMEM_GASKET_AMO_EXT_BASE_TYPES(SHMEM_GASKET_CXX_AMO_EXT)
#define SHMEM_GASKET_CXX_AMO_BIT_OP(T, N, OP)                                                  \
  SHMEM_GASKET_CXX(T, atomic_fetch_##OP, N, (T* d, T v, int pe), (d, v, pe))                  \
  SHMEM_GASKET_CXX(void, atomic_fetch_##OP##_nbi, N, (T* f, T* d, T v, int pe), (f, d, v, pe)) \
  SHMEM_GASKET_CXX(void, atomic_##OP, N, (T* d, T v, int pe), (d, v, pe))
#define SHMEM_GASKET_CXX_AMO_BIT(T, N)                                                         \
  SHMEM_GASKET_CXX_AMO_BIT_OP(T, N, and)                                                      \
  SHMEM_GASKET_CXX_AMO_BIT_OP(T, N, or) SHMEM_GASKET_CXX_AMO_BIT_OP(T, N, xor)
SHMEM_GASKET_AMO_BIT_BASE_TYPES(SHMEM_GASKET_CXX_AMO_BIT)
SHMEM_GASKET_AMO_BIT_SIGNED_TYPES(SHMEM_GASKET_CXX_AMO_BIT)

/* the deprecated generic AMOs, on the types OpenSHMEM 1.4 lists for each */
#define SHMEM_GASKET_CXX_DEPRECATED(R, name, N, params, args, replacement)                     \
  [[deprecated("shmem_" #name " is deprecated since OpenSHMEM 1.4: use shmem_" #replacement)]] \
  inline R shmem_##name params { return shmem_##N##_##name args; }
#define SHMEM_GASKET_CXX_DEPRECATED_AMO(T, N)                                                  \
  SHMEM_GASKET_CXX_DEPRECATED(T, cswap, N, (T* d, T c, T v, int pe), (d, c, v, pe), atomic_compare_swap) \
  SHMEM_GASKET_CXX_DEPRECATED(T, fadd, N, (T* d, T v, int pe), (d, v, pe), atomic_fetch_add)  \
  SHMEM_GASKET_CXX_DEPRECATED(T, finc, N, (T* d, int pe), (d, pe), atomic_fetch_inc)          \
  SHMEM_GASKET_CXX_DEPRECATED(void, add, N, (T* d, T v, int pe), (d, v, pe), atomic_add)      \
  SHMEM_GASKET_CXX_DEPRECATED(void, inc, N, (T* d, int pe), (d, pe), atomic_inc)
SHMEM_GASKET_DEPRECATED_AMO_TYPES(SHMEM_GASKET_CXX_DEPRECATED_AMO)
#define SHMEM_GASKET_CXX_DEPRECATED_AMO_EXT(T, N)                                              \
  SHMEM_GASKET_CXX_DEPRECATED(T, swap, N, (T* d, T v, int pe), (d, v, pe), atomic_swap)       \
  SHMEM_GASKET_CXX_DEPRECATED(T, fetch, N, (const T* s, int pe), (s, pe), atomic_fetch)       \
  SHMEM_GASKET_CXX_DEPRECATED(void, set, N, (T* d, T v, int pe), (d, v, pe), atomic_set)
SHMEM_GASKET_DEPRECATED_AMO_EXT_TYPES(SHMEM_GASKET_CXX_DEPRECATED_AMO_EXT)

/* point-to-point synchronisation */
#define SHMEM_GASKET_CXX_WAIT_UNTIL(T, N) \
  SHMEM_GASKET_CXX_PLAIN(void, wait_until, N, (T* v, int cmp, T value), (v, cmp, value))
SHMEM_GASKET_P2P_BASE_NOT_LONG_TYPES(SHMEM_GASKET_CXX_WAIT_UNTIL)
#define SHMEM_GASKET_CXX_P2P_FAMILY(T, N, R_ALL, R_ANY, R_SOME, op)                            \
  SHMEM_GASKET_CXX_PLAIN(R_ALL, op##_all, N, (T* v, size_t n, const int* st, int cmp, T value), \
                         (v, n, st, cmp, value))                                              \
  SHMEM_GASKET_CXX_PLAIN(R_ANY, op##_any, N, (T* v, size_t n, const int* st, int cmp, T value), \
                         (v, n, st, cmp, value))                                              \
  SHMEM_GASKET_CXX_PLAIN(R_SOME, op##_some, N,                                                \
                         (T* v, size_t n, size_t* idx, const int* st, int cmp, T value),      \
                         (v, n, idx, st, cmp, value))                                         \
  SHMEM_GASKET_CXX_PLAIN(R_ALL, op##_all_vector, N,                                           \
                         (T* v, size_t n, const int* st, int cmp, T* values), (v, n, st, cmp, values)) \
  SHMEM_GASKET_CXX_PLAIN(R_ANY, op##_any_vector, N,                                           \
                         (T* v, size_t n, const int* st, int cmp, T* values), (v, n, st, cmp, values)) \
  SHMEM_GASKET_CXX_PLAIN(R_SOME, op##_some_vector, N,                                         \
                         (T* v, size_t n, size_t* idx, const int* st, int cmp, T* values),    \
                         (v, n, idx, st, cmp, values))
#define SHMEM_GASKET_CXX_P2P(T, N)                                                             \
  SHMEM_GASKET_CXX_PLAIN(int, test, N, (T* v, int cmp, T value), (v, cmp, value))             \
  SHMEM_GASKET_CXX_P2P_FAMILY(T, N, void, size_t, size_t, wait_until)                         \
  SHMEM_GASKET_CXX_P2P_FAMILY(T, N, int, size_t, size_t, test)
SHMEM_GASKET_P2P_BASE_TYPES(SHMEM_GASKET_CXX_P2P)

inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }

/* team reductions */
#define SHMEM_GASKET_CXX_REDUCE(T, N, OP)                                                      \
  inline int shmem_##OP##_reduce(shmem_team_t t, T* d, const T* s, size_t n) {                \
    return shmem_##N##_##OP##_reduce(t, d, s, n);                                             \
  }
#define SHMEM_GASKET_CXX_REDUCE_BIT(T, N) \
  SHMEM_GASKET_CXX_REDUCE(T, N, and) SHMEM_GASKET_CXX_REDUCE(T, N, or) SHMEM_GASKET_CXX_REDUCE(T, N, xor)
#define SHMEM_GASKET_CXX_REDUCE_MINMAX(T, N) SHMEM_GASKET_CXX_REDUCE(T, N, max) SHMEM_GASKET_CXX_REDUCE(T, N, min)
#define SHMEM_GASKET_CXX_REDUCE_ARITH(T, N)                                                    \
  SHMEM_GASKET_CXX_REDUCE(T, N, sum) SHMEM_GASKET_CXX_REDUCE(T, N, prod)                      \
  SHMEM_GASKET_CXX_PLAIN(int, sum_inscan, N, (shmem_team_t t, T* d, const T* s, size_t n), (t, d, s, n)) \
  SHMEM_GASKET_CXX_PLAIN(int, sum_exscan, N, (shmem_team_t t, T* d, const T* s, size_t n), (t, d, s, n))
SHMEM_GASKET_REDUCE_BIT_BASE_TYPES(SHMEM_GASKET_CXX_REDUCE_BIT)
SHMEM_GASKET_REDUCE_BIT_SIGNED_TYPES(SHMEM_GASKET_CXX_REDUCE_BIT)
SHMEM_GASKET_REDUCE_MINMAX_BASE_TYPES(SHMEM_GASKET_CXX_REDUCE_MINMAX)
SHMEM_GASKET_REDUCE_ARITH_BASE_TYPES(SHMEM_GASKET_CXX_REDUCE_ARITH)
#endif /* __cplusplus */

#endif /* SHMEM_H */
