/*
 * OpenSHMEM 1.5 on uvas: every PE maps one flat symmetric range, and each
 * block of it lives in CPU or GPU memory, placed on first touch and moved
 * at run time. Existing OpenSHMEM programs compile unchanged against this
 * header; the shmemx_ extensions at the end say which heap a pointer came
 * from and where it lives now.
 *
 * Every routine also answers to pshmem_X (include/pshmem.h), the
 * profiling names, for tools that wrap shmem_X.
 *
 * Bad input (a non-symmetric address, a PE out of range, an unknown
 * comparison, ...) prints "uvas: <call>: <what to do>" and ends the job,
 * as MPI_ERRORS_ARE_FATAL does. With UVAS_SHMEM_ERRORS=return the call
 * returns instead (NULL, 0 or nonzero as its type allows) and
 * shmemx_last_error() says what went wrong.
 *
 * The typed families are declared through X-macros (UVAS_SHMEM_*_TYPES):
 * each line X(NAME, TYPE) declares shmem_NAME_put(TYPE *, ...) and so on;
 * the implementation defines them from the same lists, so the two cannot
 * drift apart.
 */
#ifndef SHMEM_H
#define SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; this header is its ABI. */
#pragma GCC visibility push(default)

/* ---- constants ---------------------------------------------------------- */

#define SHMEM_MAJOR_VERSION 1
#define SHMEM_MINOR_VERSION 5
#define SHMEM_MAX_NAME_LEN 256
#define SHMEM_VENDOR_STRING "uvas"

/* Numbered as the PE layer's UVAS_PE_THREAD_*. */
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

#define SHMEM_SIGNAL_SET 0
#define SHMEM_SIGNAL_ADD 1

/* pSync and pWrk of the classic collectives: uvas synchronises without
 * them, but programs size and initialise them from these. */
#define SHMEM_SYNC_VALUE 0L
#define SHMEM_SYNC_SIZE 64
#define SHMEM_BCAST_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE 1

/* Pre-1.3 spellings, still found in programs. */
#define _SHMEM_MAJOR_VERSION SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION SHMEM_MINOR_VERSION
#define _SHMEM_MAX_NAME_LEN SHMEM_MAX_NAME_LEN
#define _SHMEM_VENDOR_STRING SHMEM_VENDOR_STRING
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE
#define _SHMEM_SYNC_VALUE SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* Hints of shmem_malloc_with_hints. The first two are OpenSHMEM 1.5's
 * (accepted; the placement policy places such memory as any other). The
 * heap hints are the multi-heap proposal's: HOST keeps the allocation in
 * CPU memory, DEVICE in GPU memory (CPU memory if the job has no GPU);
 * giving both is an error. Without a heap hint, SHMEM_SYMMETRIC_HEAP_DEFAULT
 * chooses, as for shmem_malloc. */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE (1L << 1)
#define SHMEM_MALLOC_DEVICE_HEAP (1L << 16)
#define SHMEM_MALLOC_HOST_HEAP (1L << 17)

/* ---- teams -------------------------------------------------------------- */

typedef struct uvas_shmem_team *shmem_team_t;

#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_TEAM_WORLD ((shmem_team_t)1)
/* The PEs that reach this PE's memory with loads and stores: the world
 * when every PE of the job does, else this PE alone. */
#define SHMEM_TEAM_SHARED ((shmem_team_t)2)

/* What a team is made with (OpenSHMEM 1.5): the contexts it will use. */
typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* New teams from a parent's PEs (collective over the parent; PEs left out
 * get SHMEM_TEAM_INVALID): start + i * stride for i < size, in the
 * parent's numbering; _2d: rows of xrange consecutive parent PEs (x) and
 * the columns across them (y). 0, or nonzero (no team made). */
int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team);
int shmem_team_split_2d(shmem_team_t parent, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team);
int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config);
void shmem_team_destroy(shmem_team_t team);

/* -1 for SHMEM_TEAM_INVALID. */
int shmem_team_my_pe(shmem_team_t team);
int shmem_team_n_pes(shmem_team_t team);
/* src_pe of src_team as numbered in dest_team, or -1 if not a member. */
int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team);

/* ---- setup, exit, query ------------------------------------------------- */

/* Failure to start is fatal: a message and exit status 1. */
void shmem_init(void);
/* 0 on success; nonzero (after a message) if the job could not start. */
int shmem_init_thread(int requested, int *provided);
void shmem_query_thread(int *provided);
void shmem_finalize(void);
int shmem_my_pe(void);
int shmem_n_pes(void);
int shmem_pe_accessible(int pe);
int shmem_addr_accessible(const void *addr, int pe);
void *shmem_ptr(const void *dest, int pe);
void *shmem_team_ptr(shmem_team_t team, const void *dest, int pe);
void shmem_info_get_version(int *major, int *minor);
void shmem_info_get_name(char *name);
void shmem_global_exit(int status);
/* Profiling control (OpenSHMEM 1.5 section 9.17): uvas has no profiling
 * levels of its own; a tool that wraps the pshmem_ names sees the call. */
void shmem_pcontrol(const int level, ...);

/* Deprecated names of the same. */
void start_pes(int npes);
int _my_pe(void);
int _num_pes(void);

/* ---- symmetric memory ---------------------------------------------------- */

/* Collective (every PE, same arguments, same order), ending in a barrier.
 * Size 0 gives NULL and does nothing else. Plain shmem_malloc, shmem_calloc
 * and shmem_align take the heap that SHMEM_SYMMETRIC_HEAP_DEFAULT names:
 * HOST, DEVICE (case-insensitive), or, when unset or empty, the unified
 * heap, where the placement policy puts each block on first touch and
 * moves it at run time. */
void *shmem_malloc(size_t size);
void *shmem_calloc(size_t count, size_t size);
void *shmem_align(size_t alignment, size_t size);
void *shmem_malloc_with_hints(size_t size, long hints);
/* Barrier, reallocate (keeping the heap), barrier. NULL ptr: shmem_malloc;
 * size 0: shmem_free. */
void *shmem_realloc(void *ptr, size_t size);
/* Barrier, then free. NULL does nothing. */
void shmem_free(void *ptr);

void *shmalloc(size_t size);
void *shmemalign(size_t alignment, size_t size);
void *shrealloc(void *ptr, size_t size);
void shfree(void *ptr);

/* ---- type lists (see the top of this file) ------------------------------ */

#define UVAS_SHMEM_RMA_TYPES(X)                                                \
    X(float, float) X(double, double) X(longdouble, long double)              \
    X(char, char) X(schar, signed char) X(short, short) X(int, int)           \
    X(long, long) X(longlong, long long) X(uchar, unsigned char)              \
    X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long)   \
    X(ulonglong, unsigned long long) X(int8, int8_t) X(int16, int16_t)        \
    X(int32, int32_t) X(int64, int64_t) X(uint8, uint8_t)                     \
    X(uint16, uint16_t) X(uint32, uint32_t) X(uint64, uint64_t)               \
    X(size, size_t) X(ptrdiff, ptrdiff_t)

/* put8 .. put128: X(BITS, BYTES) */
#define UVAS_SHMEM_SIZES(X) X(8, 1) X(16, 2) X(32, 4) X(64, 8) X(128, 16)

/* Standard AMO types; also the point-to-point synchronisation types. */
#define UVAS_SHMEM_AMO_TYPES(X)                                                \
    X(int, int) X(long, long) X(longlong, long long) X(uint, unsigned int)    \
    X(ulong, unsigned long) X(ulonglong, unsigned long long)                  \
    X(int32, int32_t) X(int64, int64_t) X(uint32, uint32_t)                   \
    X(uint64, uint64_t) X(size, size_t) X(ptrdiff, ptrdiff_t)
/* Extended AMO types: fetch, set and swap only. */
#define UVAS_SHMEM_AMO_EXT_TYPES(X) X(float, float) X(double, double)
/* Bitwise AMO types. */
#define UVAS_SHMEM_AMO_BIT_TYPES(X)                                            \
    X(uint, unsigned int) X(ulong, unsigned long)                             \
    X(ulonglong, unsigned long long) X(int32, int32_t) X(int64, int64_t)      \
    X(uint32, uint32_t) X(uint64, uint64_t)
/* Pre-1.4 AMO names (shmem_int_fadd, ...). */
#define UVAS_SHMEM_AMO_OLD_TYPES(X) X(int, int) X(long, long) X(longlong, long long)

/* Point-to-point synchronisation: the AMO types, short and unsigned short
 * (OpenSHMEM 1.5, Table 10). */
#define UVAS_SHMEM_P2P_TYPES(X)                                                \
    X(short, short) X(ushort, unsigned short) UVAS_SHMEM_AMO_TYPES(X)

/* Reductions of OpenSHMEM 1.5: integers take every operation of their row
 * (bitwise only for UVAS_SHMEM_REDUCE_BIT_TYPES), floating types sum,
 * prod, min and max, complex types sum and prod. */
#define UVAS_SHMEM_REDUCE_INT_TYPES(X)                                         \
    X(char, char) X(schar, signed char) X(short, short) X(int, int)           \
    X(long, long) X(longlong, long long) X(ptrdiff, ptrdiff_t)                \
    X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int)   \
    X(ulong, unsigned long) X(ulonglong, unsigned long long)                  \
    X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t)     \
    X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t)                 \
    X(uint64, uint64_t) X(size, size_t)
#define UVAS_SHMEM_REDUCE_BIT_TYPES(X)                                         \
    X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int)   \
    X(longlong, long long) /* beyond 1.5's table, as other implementations */ \
    X(ulong, unsigned long) X(ulonglong, unsigned long long)                  \
    X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t)     \
    X(uint8, uint8_t) X(uint16, uint16_t) X(uint32, uint32_t)                 \
    X(uint64, uint64_t) X(size, size_t)
#define UVAS_SHMEM_REDUCE_FLOAT_TYPES(X)                                       \
    X(float, float) X(double, double) X(longdouble, long double)
#if !defined(__cplusplus)
typedef double _Complex uvas_shmem_complexd;
typedef float _Complex uvas_shmem_complexf;
#elif defined(__GNUC__)
/* C++ has no _Complex; GCC and Clang take it as an extension, and programs
 * ported from C (Sandia's C++ tests among them) reduce such arrays. */
__extension__ typedef double _Complex uvas_shmem_complexd;
__extension__ typedef float _Complex uvas_shmem_complexf;
#endif
#if !defined(__cplusplus) || defined(__GNUC__)
#define UVAS_SHMEM_REDUCE_COMPLEX_TYPES(X)                                     \
    X(complexd, uvas_shmem_complexd) X(complexf, uvas_shmem_complexf)
#endif

/* The classic *_to_all reductions: integers take every operation. */
#define UVAS_SHMEM_TOALL_INT_TYPES(X)                                          \
    X(short, short) X(int, int) X(long, long) X(longlong, long long)
#define UVAS_SHMEM_TOALL_FLOAT_TYPES(X) UVAS_SHMEM_REDUCE_FLOAT_TYPES(X)
#ifdef UVAS_SHMEM_REDUCE_COMPLEX_TYPES
#define UVAS_SHMEM_TOALL_COMPLEX_TYPES(X) UVAS_SHMEM_REDUCE_COMPLEX_TYPES(X)
#endif

/* ---- remote memory access ----------------------------------------------- */

/* dest (put) or source (get) is symmetric, at PE pe; the other side is any
 * local memory, also in the range and at any residence. Blocking forms:
 * the local buffer may be reused on return; _nbi forms: after shmem_quiet.
 * iput/iget strides count elements. */
void shmem_putmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem(void *dest, const void *source, size_t nelems, int pe);
void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe);
void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe);

#define UVAS_SHMEM_DECL_RMA(NAME, TYPE)                                        \
    void shmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe);  \
    void shmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe);  \
    void shmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems,       \
                                int pe);                                             \
    void shmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems,       \
                                int pe);                                             \
    void shmem_##NAME##_p(TYPE *dest, TYPE value, int pe);                           \
    TYPE shmem_##NAME##_g(const TYPE *source, int pe);                               \
    void shmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst,          \
                             ptrdiff_t sst, size_t nelems, int pe);                  \
    void shmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst,          \
                             ptrdiff_t sst, size_t nelems, int pe);                  \
    void shmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems,    \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op,  \
                                   int pe);                                          \
    void shmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source,               \
                                       size_t nelems, uint64_t *sig_addr,            \
                                       uint64_t signal, int sig_op, int pe);
UVAS_SHMEM_RMA_TYPES(UVAS_SHMEM_DECL_RMA)
#undef UVAS_SHMEM_DECL_RMA

#define UVAS_SHMEM_DECL_SIZED(BITS, BYTES)                                     \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe);     \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe);     \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems,        \
                               int pe);                                              \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems,        \
                               int pe);                                              \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst,             \
                          ptrdiff_t sst, size_t nelems, int pe);                     \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst,             \
                          ptrdiff_t sst, size_t nelems, int pe);                     \
    void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,     \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op,   \
                                  int pe);                                           \
    void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems, \
                                      uint64_t *sig_addr, uint64_t signal,           \
                                      int sig_op, int pe);
UVAS_SHMEM_SIZES(UVAS_SHMEM_DECL_SIZED)
#undef UVAS_SHMEM_DECL_SIZED

/* Put the data, then (ordered after it, as by shmem_fence) set or add
 * (sig_op SHMEM_SIGNAL_SET / SHMEM_SIGNAL_ADD) the 64-bit signal at
 * sig_addr on pe. */
void shmem_putmem_signal(void *dest, const void *source, size_t nelems,
                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
/* The local signal's value, read atomically. */
uint64_t shmem_signal_fetch(const uint64_t *sig_addr);

/* ---- atomic memory operations -------------------------------------------- */

#define UVAS_SHMEM_DECL_AMO_FSS(NAME, TYPE)                                    \
    TYPE shmem_##NAME##_atomic_fetch(const TYPE *source, int pe);                    \
    void shmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe);                  \
    TYPE shmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe);                 \
    void shmem_##NAME##_atomic_fetch_nbi(TYPE *fetch, const TYPE *source, int pe);   \
    void shmem_##NAME##_atomic_swap_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe);
#define UVAS_SHMEM_DECL_AMO(NAME, TYPE)                                        \
    UVAS_SHMEM_DECL_AMO_FSS(NAME, TYPE)                                        \
    TYPE shmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value,       \
                                            int pe);                                 \
    TYPE shmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe);                        \
    void shmem_##NAME##_atomic_inc(TYPE *dest, int pe);                              \
    TYPE shmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe);            \
    void shmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe);                  \
    void shmem_##NAME##_atomic_compare_swap_nbi(TYPE *fetch, TYPE *dest, TYPE cond,  \
                                                TYPE value, int pe);                 \
    void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE *fetch, TYPE *dest, int pe);       \
    void shmem_##NAME##_atomic_fetch_add_nbi(TYPE *fetch, TYPE *dest, TYPE value,    \
                                             int pe);
#define UVAS_SHMEM_DECL_AMO_BIT(NAME, TYPE)                                    \
    TYPE shmem_##NAME##_atomic_fetch_and(TYPE *dest, TYPE value, int pe);            \
    void shmem_##NAME##_atomic_and(TYPE *dest, TYPE value, int pe);                  \
    TYPE shmem_##NAME##_atomic_fetch_or(TYPE *dest, TYPE value, int pe);             \
    void shmem_##NAME##_atomic_or(TYPE *dest, TYPE value, int pe);                   \
    TYPE shmem_##NAME##_atomic_fetch_xor(TYPE *dest, TYPE value, int pe);            \
    void shmem_##NAME##_atomic_xor(TYPE *dest, TYPE value, int pe);                  \
    void shmem_##NAME##_atomic_fetch_and_nbi(TYPE *fetch, TYPE *dest, TYPE value,    \
                                             int pe);                                \
    void shmem_##NAME##_atomic_fetch_or_nbi(TYPE *fetch, TYPE *dest, TYPE value,     \
                                            int pe);                                 \
    void shmem_##NAME##_atomic_fetch_xor_nbi(TYPE *fetch, TYPE *dest, TYPE value,    \
                                             int pe);
#define UVAS_SHMEM_DECL_AMO_OLD(NAME, TYPE)                                    \
    TYPE shmem_##NAME##_fetch(const TYPE *source, int pe);                           \
    void shmem_##NAME##_set(TYPE *dest, TYPE value, int pe);                         \
    TYPE shmem_##NAME##_swap(TYPE *dest, TYPE value, int pe);                        \
    TYPE shmem_##NAME##_cswap(TYPE *dest, TYPE cond, TYPE value, int pe);            \
    TYPE shmem_##NAME##_finc(TYPE *dest, int pe);                                    \
    void shmem_##NAME##_inc(TYPE *dest, int pe);                                     \
    TYPE shmem_##NAME##_fadd(TYPE *dest, TYPE value, int pe);                        \
    void shmem_##NAME##_add(TYPE *dest, TYPE value, int pe);
#define UVAS_SHMEM_DECL_AMO_OLD_EXT(NAME, TYPE)                                \
    TYPE shmem_##NAME##_fetch(const TYPE *source, int pe);                           \
    void shmem_##NAME##_set(TYPE *dest, TYPE value, int pe);                         \
    TYPE shmem_##NAME##_swap(TYPE *dest, TYPE value, int pe);
UVAS_SHMEM_AMO_TYPES(UVAS_SHMEM_DECL_AMO)
UVAS_SHMEM_AMO_EXT_TYPES(UVAS_SHMEM_DECL_AMO_FSS)
UVAS_SHMEM_AMO_BIT_TYPES(UVAS_SHMEM_DECL_AMO_BIT)
UVAS_SHMEM_AMO_OLD_TYPES(UVAS_SHMEM_DECL_AMO_OLD)
UVAS_SHMEM_AMO_EXT_TYPES(UVAS_SHMEM_DECL_AMO_OLD_EXT)
#undef UVAS_SHMEM_DECL_AMO_FSS
#undef UVAS_SHMEM_DECL_AMO
#undef UVAS_SHMEM_DECL_AMO_BIT
#undef UVAS_SHMEM_DECL_AMO_OLD
#undef UVAS_SHMEM_DECL_AMO_OLD_EXT

/* ---- communication contexts ------------------------------------------------ */

/* A context is an ordering domain: shmem_ctx_quiet and shmem_ctx_fence
 * wait for and order its own operations only (a put that completes late
 * is counted in the context it was made in). Every operation of the
 * standard RMA and AMO interface has a shmem_ctx_ form taking the context
 * first; the C11 generic names take one first or not. */
typedef struct uvas_shmem_ctx *shmem_ctx_t;
#define SHMEM_CTX_INVALID ((shmem_ctx_t)0)
#define SHMEM_CTX_DEFAULT ((shmem_ctx_t)1)
#define SHMEM_CTX_SERIALIZED (1L << 0)
#define SHMEM_CTX_PRIVATE (1L << 1)
#define SHMEM_CTX_NOSTORE (1L << 2)
/* 0, or nonzero (*ctx SHMEM_CTX_INVALID). */
int shmem_ctx_create(long options, shmem_ctx_t *ctx);
int shmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx);
/* Completes the context's operations, then frees it. */
void shmem_ctx_destroy(shmem_ctx_t ctx);
int shmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team);
void shmem_ctx_fence(shmem_ctx_t ctx);
void shmem_ctx_quiet(shmem_ctx_t ctx);
#define UVAS_SHMEM_DECL_RMA_CTX(NAME, TYPE)                                                                                                                          \
    void shmem_ctx_##NAME##_put(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe);                                                             \
    void shmem_ctx_##NAME##_get(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe);                                                             \
    void shmem_ctx_##NAME##_put_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe);                                                         \
    void shmem_ctx_##NAME##_get_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, int pe);                                                         \
    void shmem_ctx_##NAME##_p(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                                                                                      \
    TYPE shmem_ctx_##NAME##_g(shmem_ctx_t ctx, const TYPE *source, int pe);                                                                                          \
    void shmem_ctx_##NAME##_iput(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);                              \
    void shmem_ctx_##NAME##_iget(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);                              \
    void shmem_ctx_##NAME##_put_signal(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);     \
    void shmem_ctx_##NAME##_put_signal_nbi(shmem_ctx_t ctx, TYPE *dest, const TYPE *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
#define UVAS_SHMEM_DECL_AMO_FSS_CTX(NAME, TYPE)                                                            \
    TYPE shmem_ctx_##NAME##_atomic_fetch(shmem_ctx_t ctx, const TYPE *source, int pe);                     \
    void shmem_ctx_##NAME##_atomic_set(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                   \
    TYPE shmem_ctx_##NAME##_atomic_swap(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                  \
    void shmem_ctx_##NAME##_atomic_fetch_nbi(shmem_ctx_t ctx, TYPE *fetch, const TYPE *source, int pe);    \
    void shmem_ctx_##NAME##_atomic_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe);
#define UVAS_SHMEM_DECL_AMO_CTX(NAME, TYPE)                                                                                   \
    TYPE shmem_ctx_##NAME##_atomic_compare_swap(shmem_ctx_t ctx, TYPE *dest, TYPE cond, TYPE value, int pe);                  \
    TYPE shmem_ctx_##NAME##_atomic_fetch_inc(shmem_ctx_t ctx, TYPE *dest, int pe);                                            \
    void shmem_ctx_##NAME##_atomic_inc(shmem_ctx_t ctx, TYPE *dest, int pe);                                                  \
    TYPE shmem_ctx_##NAME##_atomic_fetch_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                                \
    void shmem_ctx_##NAME##_atomic_add(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                                      \
    void shmem_ctx_##NAME##_atomic_compare_swap_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE cond, TYPE value, int pe); \
    void shmem_ctx_##NAME##_atomic_fetch_inc_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, int pe);                           \
    void shmem_ctx_##NAME##_atomic_fetch_add_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe);
#define UVAS_SHMEM_DECL_AMO_BIT_CTX(NAME, TYPE)                                                                 \
    TYPE shmem_ctx_##NAME##_atomic_fetch_and(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                  \
    void shmem_ctx_##NAME##_atomic_and(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                        \
    void shmem_ctx_##NAME##_atomic_fetch_and_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe); \
    TYPE shmem_ctx_##NAME##_atomic_fetch_or(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                   \
    void shmem_ctx_##NAME##_atomic_or(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                         \
    void shmem_ctx_##NAME##_atomic_fetch_or_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe);  \
    TYPE shmem_ctx_##NAME##_atomic_fetch_xor(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                  \
    void shmem_ctx_##NAME##_atomic_xor(shmem_ctx_t ctx, TYPE *dest, TYPE value, int pe);                        \
    void shmem_ctx_##NAME##_atomic_fetch_xor_nbi(shmem_ctx_t ctx, TYPE *fetch, TYPE *dest, TYPE value, int pe);
#define UVAS_SHMEM_DECL_SIZED_CTX(BITS, BYTES)                                                                                                                      \
    void shmem_ctx_put##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);                                                               \
    void shmem_ctx_get##BITS(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);                                                               \
    void shmem_ctx_put##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);                                                         \
    void shmem_ctx_get##BITS##_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);                                                         \
    void shmem_ctx_iput##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);                                \
    void shmem_ctx_iget##BITS(shmem_ctx_t ctx, void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe);                                \
    void shmem_ctx_put##BITS##_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);     \
    void shmem_ctx_put##BITS##_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
UVAS_SHMEM_RMA_TYPES(UVAS_SHMEM_DECL_RMA_CTX)
UVAS_SHMEM_AMO_TYPES(UVAS_SHMEM_DECL_AMO_FSS_CTX)
UVAS_SHMEM_AMO_EXT_TYPES(UVAS_SHMEM_DECL_AMO_FSS_CTX)
UVAS_SHMEM_AMO_TYPES(UVAS_SHMEM_DECL_AMO_CTX)
UVAS_SHMEM_AMO_BIT_TYPES(UVAS_SHMEM_DECL_AMO_BIT_CTX)
UVAS_SHMEM_SIZES(UVAS_SHMEM_DECL_SIZED_CTX)
#undef UVAS_SHMEM_DECL_RMA_CTX
#undef UVAS_SHMEM_DECL_AMO_FSS_CTX
#undef UVAS_SHMEM_DECL_AMO_CTX
#undef UVAS_SHMEM_DECL_AMO_BIT_CTX
#undef UVAS_SHMEM_DECL_SIZED_CTX
void shmem_ctx_putmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_getmem_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, int pe);
void shmem_ctx_putmem_signal(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);
void shmem_ctx_putmem_signal_nbi(shmem_ctx_t ctx, void *dest, const void *source, size_t nelems, uint64_t *sig_addr, uint64_t signal, int sig_op, int pe);

/* ---- ordering and synchronisation ---------------------------------------- */

void shmem_fence(void);
void shmem_quiet(void);
void shmem_barrier_all(void);
void shmem_sync_all(void);
/* Every member of the team arrives before any leaves (no quiet). 0, or
 * nonzero for a bad team. */
int shmem_team_sync(shmem_team_t team);
/* Classic active sets: any (PE_start, logPE_stride, PE_size) of the job,
 * synchronising through pSync (SHMEM_BARRIER_SYNC_SIZE longs, symmetric,
 * SHMEM_SYNC_VALUE before and after the call); the whole job through the
 * world's barrier. */
void shmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync);
void shmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync);
/* shmem_sync(team) (OpenSHMEM 1.5) and the deprecated active-set form
 * share the name: the number of arguments picks (in C++, an overload:
 * shmem_generic_cxx.h). The trailing - keeps ISO C's "at least one
 * argument for ..." with one argument. */
#ifndef __cplusplus
#define UVAS_SHMEM_SYNC_PICK(_1, _2, _3, _4, NAME, ...) NAME
#define shmem_sync(...)                                                        \
    UVAS_SHMEM_SYNC_PICK(__VA_ARGS__, shmem_sync, -, -, shmem_team_sync, -)(__VA_ARGS__)
#endif

/* Wait for / test the local symmetric ivars against cmp_value(s) with
 * cmp SHMEM_CMP_*. status (may be NULL): nonzero entries are skipped.
 * _any: an index that satisfied, SIZE_MAX if every entry is skipped;
 * _some: how many satisfied, their indices in indices[]. */
#define UVAS_SHMEM_DECL_P2P(NAME, TYPE)                                        \
    void shmem_##NAME##_wait_until(TYPE *ivar, int cmp, TYPE cmp_value);             \
    void shmem_##NAME##_wait_until_all(TYPE *ivars, size_t nelems,                   \
                                       const int *status, int cmp, TYPE cmp_value);  \
    size_t shmem_##NAME##_wait_until_any(TYPE *ivars, size_t nelems,                 \
                                         const int *status, int cmp,                 \
                                         TYPE cmp_value);                            \
    size_t shmem_##NAME##_wait_until_some(TYPE *ivars, size_t nelems,                \
                                          size_t *indices, const int *status,        \
                                          int cmp, TYPE cmp_value);                  \
    void shmem_##NAME##_wait_until_all_vector(TYPE *ivars, size_t nelems,            \
                                              const int *status, int cmp,            \
                                              TYPE *cmp_values);                     \
    size_t shmem_##NAME##_wait_until_any_vector(TYPE *ivars, size_t nelems,          \
                                                const int *status, int cmp,          \
                                                TYPE *cmp_values);                   \
    size_t shmem_##NAME##_wait_until_some_vector(TYPE *ivars, size_t nelems,         \
                                                 size_t *indices,                    \
                                                 const int *status, int cmp,         \
                                                 TYPE *cmp_values);                  \
    int shmem_##NAME##_test(TYPE *ivar, int cmp, TYPE cmp_value);                    \
    int shmem_##NAME##_test_all(TYPE *ivars, size_t nelems, const int *status,       \
                                int cmp, TYPE cmp_value);                            \
    size_t shmem_##NAME##_test_any(TYPE *ivars, size_t nelems, const int *status,    \
                                   int cmp, TYPE cmp_value);                         \
    size_t shmem_##NAME##_test_some(TYPE *ivars, size_t nelems, size_t *indices,     \
                                    const int *status, int cmp, TYPE cmp_value);     \
    int shmem_##NAME##_test_all_vector(TYPE *ivars, size_t nelems,                   \
                                       const int *status, int cmp,                   \
                                       TYPE *cmp_values);                            \
    size_t shmem_##NAME##_test_any_vector(TYPE *ivars, size_t nelems,                \
                                          const int *status, int cmp,                \
                                          TYPE *cmp_values);                         \
    size_t shmem_##NAME##_test_some_vector(TYPE *ivars, size_t nelems,               \
                                           size_t *indices, const int *status,       \
                                           int cmp, TYPE *cmp_values);
UVAS_SHMEM_P2P_TYPES(UVAS_SHMEM_DECL_P2P)
#undef UVAS_SHMEM_DECL_P2P

/* Returns the signal value that satisfied the comparison. */
uint64_t shmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value);

/* Deprecated since OpenSHMEM 1.4, still in real programs: wait until
 * *ivar != cmp_value. */
void shmem_short_wait(short *ivar, short cmp_value);
void shmem_int_wait(int *ivar, int cmp_value);
void shmem_long_wait(long *ivar, long cmp_value);
void shmem_longlong_wait(long long *ivar, long long cmp_value);

/* Distributed locks over a symmetric long initialised to 0 (every PE
 * passes the same one): granted in the order they were asked for (a
 * ticket lock kept in PE 0's copy). shmem_clear_lock completes the
 * holder's puts and AMOs (shmem_quiet) before it lets go; shmem_test_lock
 * returns 0 having taken the lock, 1 if another PE holds it or waits. */
void shmem_set_lock(long *lock);
void shmem_clear_lock(long *lock);
int shmem_test_lock(long *lock);

/* ---- collectives ---------------------------------------------------------- */

/* Team forms return 0, or nonzero for a team other than the world (or bad
 * input, with UVAS_SHMEM_ERRORS=return). nelems and nreduce count
 * elements; the *mem forms count bytes. As OpenSHMEM 1.5 says, the root's
 * dest is written by the team broadcast, left alone by the classic one. */
int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source,
                       size_t nelems, int PE_root);
int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems);
int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source,
                       ptrdiff_t dst, ptrdiff_t sst, size_t nelems);

#define UVAS_SHMEM_DECL_COLL(NAME, TYPE)                                       \
    int shmem_##NAME##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source,  \
                                 size_t nelems, int PE_root);                        \
    int shmem_##NAME##_collect(shmem_team_t team, TYPE *dest, const TYPE *source,    \
                               size_t nelems);                                       \
    int shmem_##NAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source,   \
                                size_t nelems);                                      \
    int shmem_##NAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source,   \
                                size_t nelems);                                      \
    int shmem_##NAME##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source,  \
                                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems);
UVAS_SHMEM_RMA_TYPES(UVAS_SHMEM_DECL_COLL)
#undef UVAS_SHMEM_DECL_COLL

#define UVAS_SHMEM_DECL_REDUCE(NAME, TYPE, OP)                                 \
    int shmem_##NAME##_##OP##_reduce(shmem_team_t team, TYPE *dest,                  \
                                     const TYPE *source, size_t nreduce);
#define UVAS_SHMEM_DECL_REDUCE_ARITH(NAME, TYPE)                               \
    UVAS_SHMEM_DECL_REDUCE(NAME, TYPE, sum) UVAS_SHMEM_DECL_REDUCE(NAME, TYPE, prod)
#define UVAS_SHMEM_DECL_REDUCE_ORDER(NAME, TYPE)                               \
    UVAS_SHMEM_DECL_REDUCE(NAME, TYPE, min) UVAS_SHMEM_DECL_REDUCE(NAME, TYPE, max)
#define UVAS_SHMEM_DECL_REDUCE_BIT(NAME, TYPE)                                 \
    UVAS_SHMEM_DECL_REDUCE(NAME, TYPE, and) UVAS_SHMEM_DECL_REDUCE(NAME, TYPE, or)   \
    UVAS_SHMEM_DECL_REDUCE(NAME, TYPE, xor)
UVAS_SHMEM_REDUCE_INT_TYPES(UVAS_SHMEM_DECL_REDUCE_ARITH)
UVAS_SHMEM_REDUCE_INT_TYPES(UVAS_SHMEM_DECL_REDUCE_ORDER)
UVAS_SHMEM_REDUCE_BIT_TYPES(UVAS_SHMEM_DECL_REDUCE_BIT)
UVAS_SHMEM_REDUCE_FLOAT_TYPES(UVAS_SHMEM_DECL_REDUCE_ARITH)
UVAS_SHMEM_REDUCE_FLOAT_TYPES(UVAS_SHMEM_DECL_REDUCE_ORDER)
#ifdef UVAS_SHMEM_REDUCE_COMPLEX_TYPES
UVAS_SHMEM_REDUCE_COMPLEX_TYPES(UVAS_SHMEM_DECL_REDUCE_ARITH)
#endif
#undef UVAS_SHMEM_DECL_REDUCE
#undef UVAS_SHMEM_DECL_REDUCE_ARITH
#undef UVAS_SHMEM_DECL_REDUCE_ORDER
#undef UVAS_SHMEM_DECL_REDUCE_BIT

/* Classic active-set collectives: any active set, as shmem_barrier's;
 * pWrk is not used (uvas combines in memory of its own). */
#define UVAS_SHMEM_DECL_CLASSIC(BITS, BYTES)                                   \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems,        \
                               int PE_root, int PE_start, int logPE_stride,          \
                               int PE_size, long *pSync);                            \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems,          \
                             int PE_start, int logPE_stride, int PE_size,            \
                             long *pSync);                                           \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems,         \
                              int PE_start, int logPE_stride, int PE_size,           \
                              long *pSync);                                          \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems,         \
                              int PE_start, int logPE_stride, int PE_size,           \
                              long *pSync);                                          \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst,        \
                               ptrdiff_t sst, size_t nelems, int PE_start,           \
                               int logPE_stride, int PE_size, long *pSync);
UVAS_SHMEM_DECL_CLASSIC(32, 4)
UVAS_SHMEM_DECL_CLASSIC(64, 8)
#undef UVAS_SHMEM_DECL_CLASSIC

#define UVAS_SHMEM_DECL_TOALL(NAME, TYPE, OP)                                  \
    void shmem_##NAME##_##OP##_to_all(TYPE *dest, const TYPE *source, int nreduce,   \
                                      int PE_start, int logPE_stride, int PE_size,   \
                                      TYPE *pWrk, long *pSync);
#define UVAS_SHMEM_DECL_TOALL_ARITH(NAME, TYPE)                                \
    UVAS_SHMEM_DECL_TOALL(NAME, TYPE, sum) UVAS_SHMEM_DECL_TOALL(NAME, TYPE, prod)
#define UVAS_SHMEM_DECL_TOALL_ORDER(NAME, TYPE)                                \
    UVAS_SHMEM_DECL_TOALL(NAME, TYPE, min) UVAS_SHMEM_DECL_TOALL(NAME, TYPE, max)
#define UVAS_SHMEM_DECL_TOALL_BIT(NAME, TYPE)                                  \
    UVAS_SHMEM_DECL_TOALL(NAME, TYPE, and) UVAS_SHMEM_DECL_TOALL(NAME, TYPE, or)     \
    UVAS_SHMEM_DECL_TOALL(NAME, TYPE, xor)
UVAS_SHMEM_TOALL_INT_TYPES(UVAS_SHMEM_DECL_TOALL_ARITH)
UVAS_SHMEM_TOALL_INT_TYPES(UVAS_SHMEM_DECL_TOALL_ORDER)
UVAS_SHMEM_TOALL_INT_TYPES(UVAS_SHMEM_DECL_TOALL_BIT)
UVAS_SHMEM_TOALL_FLOAT_TYPES(UVAS_SHMEM_DECL_TOALL_ARITH)
UVAS_SHMEM_TOALL_FLOAT_TYPES(UVAS_SHMEM_DECL_TOALL_ORDER)
#ifdef UVAS_SHMEM_TOALL_COMPLEX_TYPES
UVAS_SHMEM_TOALL_COMPLEX_TYPES(UVAS_SHMEM_DECL_TOALL_ARITH)
#endif
#undef UVAS_SHMEM_DECL_TOALL
#undef UVAS_SHMEM_DECL_TOALL_ARITH
#undef UVAS_SHMEM_DECL_TOALL_ORDER
#undef UVAS_SHMEM_DECL_TOALL_BIT

/* ---- uvas extensions: errors ---------------------------------------------- */

/* The calling thread's last reported error: a negative UVAS_ERR_* status
 * (see uvas.h), 0 if none since the last shmemx_clear_error. Reported
 * errors return only with UVAS_SHMEM_ERRORS=return; otherwise they end the
 * job. */
int shmemx_last_error(void);
/* Its message, as printed ("" if none). */
const char *shmemx_last_error_string(void);
/* Forget the calling thread's last error. */
void shmemx_clear_error(void);

/* ---- uvas extensions: heaps and residence ---------------------------------- */

/* The heap an allocation came from. UNIFIED: no heap hint; the placement
 * policy chooses each block's tier and may move it. */
enum { SHMEMX_HEAP_UNIFIED = 0, SHMEMX_HEAP_HOST = 1, SHMEMX_HEAP_DEVICE = 2 };
/* Where a block lives now: UNPOPULATED (never touched, no memory behind
 * it), CPU memory, GPU memory. */
enum { SHMEMX_RES_UNPOPULATED = 0, SHMEMX_RES_HOST = 1, SHMEMX_RES_DEVICE = 2 };

/* The SHMEMX_HEAP_* that ptr's allocation came from (on this PE; symmetric
 * allocations come from the same heap everywhere). ptr may point anywhere
 * inside a live symmetric allocation; otherwise an error (-1). */
int shmemx_heap_of(const void *ptr);
/* The SHMEMX_RES_* of the block holding ptr on PE pe, right now (it can
 * change the next moment unless the heap pins it); -1 on error. */
int shmemx_residence(const void *ptr, int pe);
/* The same, pe numbered in a team, or in the team a context was made on
 * (as that context's puts and gets number it); -1 on error (a PE outside
 * the team included). Allocations are collective over the whole job, as
 * shmem_malloc is; teams and contexts use them like any symmetric memory. */
int shmemx_team_residence(shmem_team_t team, const void *ptr, int pe);
int shmemx_ctx_residence(shmem_ctx_t ctx, const void *ptr, int pe);
/* The SHMEMX_HEAP_* that plain shmem_malloc uses (SHMEM_SYMMETRIC_HEAP_DEFAULT);
 * -1, reported, if that variable holds something else than HOST or DEVICE. */
int shmemx_default_heap(void);
/* 1 if the job has a device (GPU) tier, 0 if SHMEM_MALLOC_DEVICE_HEAP
 * falls back to CPU memory; -1 before shmem_init. */
int shmemx_device_present(void);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

/* ---- type-generic names ---------------------------------------------------- */

/* shmem_put(dest, source, nelems, pe) and the others: C11 _Generic
 * selections, or C++ overloads, over the typed routines above. */
#if defined(__cplusplus)
#include "shmem_generic_cxx.h"
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#include "shmem_generic_c11.h"
#endif

#endif /* SHMEM_H */
