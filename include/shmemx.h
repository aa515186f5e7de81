/*
 * OpenSHMEM extensions, where programs written for other implementations
 * include them from. uvas's own (shmemx_residence, shmemx_heap_*, ...)
 * are declared in shmem.h with the standard interface.
 *
 * Here: the names under which Sandia OpenSHMEM offered what OpenSHMEM 1.4
 * and 1.5 later made standard (bitwise atomics, put-with-signal, teams,
 * team collectives, the test/wait_until _all/_any/_some forms), so that
 * programs written against those extensions build unchanged. Each is the
 * standard routine under its old name (macros and static inline
 * wrappers: no symbols of their own); the pre-1.5 put-with-signal, which
 * had no sig_op, sets the signal.
 */
#ifndef UVAS_SHMEMX_H
#define UVAS_SHMEMX_H
#include "shmem.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds on a monotonic clock, for timing. Here, not in shmem.h:
 * programs that include only shmem.h often define their own (guarded by
 * HAVE_SHMEMX_WTIME, which says this one exists). */
#pragma GCC visibility push(default)
double shmemx_wtime(void);
#pragma GCC visibility pop
#define HAVE_SHMEMX_WTIME 1

/* Signal updates of the put-with-signal extension. */
static inline void shmemx_signal_add(uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_uint64_atomic_add(sig_addr, signal, pe);
}
static inline void shmemx_signal_set(uint64_t *sig_addr, uint64_t signal, int pe)
{
    shmem_uint64_atomic_set(sig_addr, signal, pe);
}

/* ---- teams and contexts (OpenSHMEM 1.5 drafts) ----------------------------- */

#define shmemx_team_t shmem_team_t
#define shmemx_team_config_t shmem_team_config_t
#define shmemx_ctx_t shmem_ctx_t
#define SHMEMX_TEAM_WORLD SHMEM_TEAM_WORLD
#define SHMEMX_TEAM_SHARED SHMEM_TEAM_SHARED
#define SHMEMX_TEAM_INVALID SHMEM_TEAM_INVALID
#define SHMEMX_TEAM_NUM_CONTEXTS SHMEM_TEAM_NUM_CONTEXTS
#define SHMEMX_CTX_INVALID SHMEM_CTX_INVALID
#define SHMEMX_CTX_DEFAULT SHMEM_CTX_DEFAULT
#define SHMEMX_CTX_SERIALIZED SHMEM_CTX_SERIALIZED
#define SHMEMX_CTX_PRIVATE SHMEM_CTX_PRIVATE
#define SHMEMX_CTX_NOSTORE SHMEM_CTX_NOSTORE
#define SHMEMX_THREAD_SINGLE SHMEM_THREAD_SINGLE
#define SHMEMX_THREAD_FUNNELED SHMEM_THREAD_FUNNELED
#define SHMEMX_THREAD_SERIALIZED SHMEM_THREAD_SERIALIZED
#define SHMEMX_THREAD_MULTIPLE SHMEM_THREAD_MULTIPLE
#define SHMEMX_SIGNAL_SET SHMEM_SIGNAL_SET
#define SHMEMX_SIGNAL_ADD SHMEM_SIGNAL_ADD
#define shmemx_team_my_pe shmem_team_my_pe
#define shmemx_team_n_pes shmem_team_n_pes
#define shmemx_team_translate_pe shmem_team_translate_pe
#define shmemx_team_split_strided shmem_team_split_strided
#define shmemx_team_split_2d shmem_team_split_2d
#define shmemx_team_get_config shmem_team_get_config
#define shmemx_team_destroy shmem_team_destroy
#define shmemx_team_create_ctx shmem_team_create_ctx
#define shmemx_ctx_get_team shmem_ctx_get_team
#define shmemx_team_sync shmem_team_sync
#define shmemx_sync shmem_sync
#define shmemx_team_ptr shmem_team_ptr
#define shmemx_pcontrol shmem_pcontrol

/* ---- generic names ------------------------------------------------------- */

#define shmemx_test_all shmem_test_all
#define shmemx_test_any shmem_test_any
#define shmemx_test_some shmem_test_some
#define shmemx_wait_until_all shmem_wait_until_all
#define shmemx_wait_until_any shmem_wait_until_any
#define shmemx_wait_until_some shmem_wait_until_some
#define shmemx_test_all_vector shmem_test_all_vector
#define shmemx_test_any_vector shmem_test_any_vector
#define shmemx_test_some_vector shmem_test_some_vector
#define shmemx_wait_until_all_vector shmem_wait_until_all_vector
#define shmemx_wait_until_any_vector shmem_wait_until_any_vector
#define shmemx_wait_until_some_vector shmem_wait_until_some_vector
#define shmemx_atomic_and shmem_atomic_and
#define shmemx_atomic_or shmem_atomic_or
#define shmemx_atomic_xor shmem_atomic_xor
#define shmemx_atomic_fetch_and shmem_atomic_fetch_and
#define shmemx_atomic_fetch_or shmem_atomic_fetch_or
#define shmemx_atomic_fetch_xor shmem_atomic_fetch_xor

/* ---- typed names ------------------------------------------------------------ */

#define UVAS_SHMEMX_BIT(NAME, TYPE)                                                           \
    static inline void shmemx_##NAME##_atomic_and(TYPE *d, TYPE v, int pe)                    \
    { shmem_##NAME##_atomic_and(d, v, pe); }                                                   \
    static inline void shmemx_##NAME##_atomic_or(TYPE *d, TYPE v, int pe)                     \
    { shmem_##NAME##_atomic_or(d, v, pe); }                                                    \
    static inline void shmemx_##NAME##_atomic_xor(TYPE *d, TYPE v, int pe)                    \
    { shmem_##NAME##_atomic_xor(d, v, pe); }                                                   \
    static inline TYPE shmemx_##NAME##_atomic_fetch_and(TYPE *d, TYPE v, int pe)              \
    { return shmem_##NAME##_atomic_fetch_and(d, v, pe); }                                      \
    static inline TYPE shmemx_##NAME##_atomic_fetch_or(TYPE *d, TYPE v, int pe)               \
    { return shmem_##NAME##_atomic_fetch_or(d, v, pe); }                                       \
    static inline TYPE shmemx_##NAME##_atomic_fetch_xor(TYPE *d, TYPE v, int pe)              \
    { return shmem_##NAME##_atomic_fetch_xor(d, v, pe); }
UVAS_SHMEM_AMO_BIT_TYPES(UVAS_SHMEMX_BIT)
#undef UVAS_SHMEMX_BIT

#define UVAS_SHMEMX_RMA(NAME, TYPE)                                                           \
    static inline void shmemx_##NAME##_put_signal(TYPE *d, const TYPE *s, size_t n,           \
                                                  uint64_t *sig, uint64_t v, int pe)          \
    { shmem_##NAME##_put_signal(d, s, n, sig, v, SHMEM_SIGNAL_SET, pe); }                      \
    static inline void shmemx_##NAME##_put_signal_nbi(TYPE *d, const TYPE *s, size_t n,       \
                                                      uint64_t *sig, uint64_t v, int pe)      \
    { shmem_##NAME##_put_signal_nbi(d, s, n, sig, v, SHMEM_SIGNAL_SET, pe); }                  \
    static inline int shmemx_##NAME##_alltoall(shmem_team_t t, TYPE *d, const TYPE *s,        \
                                               size_t n)                                      \
    { return shmem_##NAME##_alltoall(t, d, s, n); }                                            \
    static inline int shmemx_##NAME##_alltoalls(shmem_team_t t, TYPE *d, const TYPE *s,       \
                                                ptrdiff_t dst, ptrdiff_t sst, size_t n)       \
    { return shmem_##NAME##_alltoalls(t, d, s, dst, sst, n); }                                 \
    static inline int shmemx_##NAME##_broadcast(shmem_team_t t, TYPE *d, const TYPE *s,       \
                                                size_t n, int root)                           \
    { return shmem_##NAME##_broadcast(t, d, s, n, root); }                                     \
    static inline int shmemx_##NAME##_collect(shmem_team_t t, TYPE *d, const TYPE *s,         \
                                              size_t n)                                       \
    { return shmem_##NAME##_collect(t, d, s, n); }                                             \
    static inline int shmemx_##NAME##_fcollect(shmem_team_t t, TYPE *d, const TYPE *s,        \
                                               size_t n)                                      \
    { return shmem_##NAME##_fcollect(t, d, s, n); }
UVAS_SHMEM_RMA_TYPES(UVAS_SHMEMX_RMA)
#undef UVAS_SHMEMX_RMA
static inline void shmemx_putmem_signal(void *d, const void *s, size_t n, uint64_t *sig,
                                        uint64_t v, int pe)
{
    shmem_putmem_signal(d, s, n, sig, v, SHMEM_SIGNAL_SET, pe);
}
static inline void shmemx_putmem_signal_nbi(void *d, const void *s, size_t n, uint64_t *sig,
                                            uint64_t v, int pe)
{
    shmem_putmem_signal_nbi(d, s, n, sig, v, SHMEM_SIGNAL_SET, pe);
}

#define UVAS_SHMEMX_P2P(NAME, TYPE)                                                           \
    static inline int shmemx_##NAME##_test_all(TYPE *iv, size_t n, const int *st, int cmp,    \
                                               TYPE v)                                        \
    { return shmem_##NAME##_test_all(iv, n, st, cmp, v); }                                     \
    static inline size_t shmemx_##NAME##_test_any(TYPE *iv, size_t n, const int *st, int cmp, \
                                                  TYPE v)                                     \
    { return shmem_##NAME##_test_any(iv, n, st, cmp, v); }                                     \
    static inline size_t shmemx_##NAME##_test_some(TYPE *iv, size_t n, size_t *idx,           \
                                                   const int *st, int cmp, TYPE v)            \
    { return shmem_##NAME##_test_some(iv, n, idx, st, cmp, v); }                               \
    static inline void shmemx_##NAME##_wait_until_all(TYPE *iv, size_t n, const int *st,      \
                                                      int cmp, TYPE v)                        \
    { shmem_##NAME##_wait_until_all(iv, n, st, cmp, v); }                                      \
    static inline size_t shmemx_##NAME##_wait_until_any(TYPE *iv, size_t n, const int *st,    \
                                                        int cmp, TYPE v)                      \
    { return shmem_##NAME##_wait_until_any(iv, n, st, cmp, v); }                               \
    static inline size_t shmemx_##NAME##_wait_until_some(TYPE *iv, size_t n, size_t *idx,     \
                                                         const int *st, int cmp, TYPE v)      \
    { return shmem_##NAME##_wait_until_some(iv, n, idx, st, cmp, v); }                         \
    static inline int shmemx_##NAME##_test_all_vector(TYPE *iv, size_t n, const int *st,      \
                                                      int cmp, TYPE *v)                       \
    { return shmem_##NAME##_test_all_vector(iv, n, st, cmp, v); }                              \
    static inline size_t shmemx_##NAME##_test_any_vector(TYPE *iv, size_t n, const int *st,   \
                                                         int cmp, TYPE *v)                    \
    { return shmem_##NAME##_test_any_vector(iv, n, st, cmp, v); }                              \
    static inline size_t shmemx_##NAME##_test_some_vector(TYPE *iv, size_t n, size_t *idx,    \
                                                          const int *st, int cmp, TYPE *v)    \
    { return shmem_##NAME##_test_some_vector(iv, n, idx, st, cmp, v); }                        \
    static inline void shmemx_##NAME##_wait_until_all_vector(TYPE *iv, size_t n,              \
                                                             const int *st, int cmp, TYPE *v) \
    { shmem_##NAME##_wait_until_all_vector(iv, n, st, cmp, v); }                               \
    static inline size_t shmemx_##NAME##_wait_until_any_vector(TYPE *iv, size_t n,            \
                                                               const int *st, int cmp,        \
                                                               TYPE *v)                       \
    { return shmem_##NAME##_wait_until_any_vector(iv, n, st, cmp, v); }                        \
    static inline size_t shmemx_##NAME##_wait_until_some_vector(TYPE *iv, size_t n,           \
                                                                size_t *idx, const int *st,   \
                                                                int cmp, TYPE *v)             \
    { return shmem_##NAME##_wait_until_some_vector(iv, n, idx, st, cmp, v); }
UVAS_SHMEM_P2P_TYPES(UVAS_SHMEMX_P2P)
#undef UVAS_SHMEMX_P2P

#define UVAS_SHMEMX_REDUCE(NAME, TYPE, OP)                                                    \
    static inline int shmemx_##NAME##_##OP##_reduce(shmem_team_t t, TYPE *d, const TYPE *s,   \
                                                    size_t n)                                 \
    { return shmem_##NAME##_##OP##_reduce(t, d, s, n); }
#define UVAS_SHMEMX_REDUCE_ARITH(NAME, TYPE)                                                  \
    UVAS_SHMEMX_REDUCE(NAME, TYPE, sum) UVAS_SHMEMX_REDUCE(NAME, TYPE, prod)
#define UVAS_SHMEMX_REDUCE_ORDER(NAME, TYPE)                                                  \
    UVAS_SHMEMX_REDUCE(NAME, TYPE, min) UVAS_SHMEMX_REDUCE(NAME, TYPE, max)
#define UVAS_SHMEMX_REDUCE_BIT(NAME, TYPE)                                                    \
    UVAS_SHMEMX_REDUCE(NAME, TYPE, and) UVAS_SHMEMX_REDUCE(NAME, TYPE, or)                    \
    UVAS_SHMEMX_REDUCE(NAME, TYPE, xor)
UVAS_SHMEM_REDUCE_INT_TYPES(UVAS_SHMEMX_REDUCE_ARITH)
UVAS_SHMEM_REDUCE_INT_TYPES(UVAS_SHMEMX_REDUCE_ORDER)
UVAS_SHMEM_REDUCE_BIT_TYPES(UVAS_SHMEMX_REDUCE_BIT)
UVAS_SHMEM_REDUCE_FLOAT_TYPES(UVAS_SHMEMX_REDUCE_ARITH)
UVAS_SHMEM_REDUCE_FLOAT_TYPES(UVAS_SHMEMX_REDUCE_ORDER)
#undef UVAS_SHMEMX_REDUCE
#undef UVAS_SHMEMX_REDUCE_ARITH
#undef UVAS_SHMEMX_REDUCE_ORDER
#undef UVAS_SHMEMX_REDUCE_BIT

#ifdef __cplusplus
}
#endif

#endif
