/*
 * OpenSHMEM's type-generic names in C++ (shmem_put, shmem_atomic_add, ...):
 * overloads of the typed routines shmem.h declares, so a C++ program calls
 * them as a C11 program does (shmem_generic_c11.h). Included by shmem.h.
 *
 * Overloads are on the C types themselves. The fixed-width and size types
 * alias them (int32_t is int here), so an overload per alias would define
 * one function twice; a call on an int64_t * finds the long one, as the
 * C11 selection does. Where an alias is the only spelling that reaches a
 * type (int8_t, int16_t, int32_t, int64_t of the bitwise lists), the list
 * names the alias.
 *
 * Each overload is an inline forwarder: the call costs what the typed
 * routine costs.
 */
#ifndef SHMEM_GENERIC_CXX_H
#define SHMEM_GENERIC_CXX_H

#define UVAS_SHMEM_CXX_RMA_TYPES(X)                                            \
    X(float, float) X(double, double) X(longdouble, long double)              \
    X(char, char) X(schar, signed char) X(short, short) X(int, int)           \
    X(long, long) X(longlong, long long) X(uchar, unsigned char)              \
    X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long)   \
    X(ulonglong, unsigned long long)
#define UVAS_SHMEM_CXX_AMO_TYPES(X)                                            \
    X(int, int) X(long, long) X(longlong, long long) X(uint, unsigned int)    \
    X(ulong, unsigned long) X(ulonglong, unsigned long long)
#define UVAS_SHMEM_CXX_AMO_EXT_TYPES(X) X(float, float) X(double, double)
#define UVAS_SHMEM_CXX_AMO_BIT_TYPES(X)                                        \
    X(uint, unsigned int) X(ulong, unsigned long)                             \
    X(ulonglong, unsigned long long) X(int32, int32_t) X(int64, int64_t)
#define UVAS_SHMEM_CXX_P2P_TYPES(X)                                            \
    UVAS_SHMEM_CXX_AMO_TYPES(X) X(short, short) X(ushort, unsigned short)
#define UVAS_SHMEM_CXX_ORDER_TYPES(X)                                          \
    X(char, char) X(schar, signed char) X(short, short) X(int, int)           \
    X(long, long) X(longlong, long long) X(uchar, unsigned char)              \
    X(ushort, unsigned short) X(uint, unsigned int) X(ulong, unsigned long)   \
    X(ulonglong, unsigned long long) X(float, float) X(double, double)        \
    X(longdouble, long double)
#define UVAS_SHMEM_CXX_BIT_TYPES(X)                                            \
    X(uchar, unsigned char) X(ushort, unsigned short) X(uint, unsigned int)   \
    X(ulong, unsigned long) X(ulonglong, unsigned long long)                  \
    X(int8, int8_t) X(int16, int16_t) X(int32, int32_t) X(int64, int64_t)     \
    X(longlong, long long)

/* ---- RMA ------------------------------------------------------------------ */

#define UVAS_SHMEM_CXX_RMA(N, T)                                               \
    inline void shmem_put(T *d, const T *s, size_t n, int pe) { shmem_##N##_put(d, s, n, pe); } \
    inline void shmem_get(T *d, const T *s, size_t n, int pe) { shmem_##N##_get(d, s, n, pe); } \
    inline void shmem_put_nbi(T *d, const T *s, size_t n, int pe) { shmem_##N##_put_nbi(d, s, n, pe); } \
    inline void shmem_get_nbi(T *d, const T *s, size_t n, int pe) { shmem_##N##_get_nbi(d, s, n, pe); } \
    inline void shmem_p(T *d, T v, int pe) { shmem_##N##_p(d, v, pe); }                      \
    inline T shmem_g(const T *s, int pe) { return shmem_##N##_g(s, pe); }                    \
    inline void shmem_iput(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) \
    { shmem_##N##_iput(d, s, dst, sst, n, pe); }                                             \
    inline void shmem_iget(T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst, size_t n, int pe) \
    { shmem_##N##_iget(d, s, dst, sst, n, pe); }                                             \
    inline void shmem_put_signal(T *d, const T *s, size_t n, uint64_t *sig, uint64_t sv,     \
                                 int op, int pe)                                             \
    { shmem_##N##_put_signal(d, s, n, sig, sv, op, pe); }                                    \
    inline void shmem_put_signal_nbi(T *d, const T *s, size_t n, uint64_t *sig, uint64_t sv, \
                                     int op, int pe)                                         \
    { shmem_##N##_put_signal_nbi(d, s, n, sig, sv, op, pe); }                                \
    inline void shmem_put(shmem_ctx_t c, T *d, const T *s, size_t n, int pe)                 \
    { shmem_ctx_##N##_put(c, d, s, n, pe); }                                                 \
    inline void shmem_get(shmem_ctx_t c, T *d, const T *s, size_t n, int pe)                 \
    { shmem_ctx_##N##_get(c, d, s, n, pe); }                                                 \
    inline void shmem_put_nbi(shmem_ctx_t c, T *d, const T *s, size_t n, int pe)             \
    { shmem_ctx_##N##_put_nbi(c, d, s, n, pe); }                                             \
    inline void shmem_get_nbi(shmem_ctx_t c, T *d, const T *s, size_t n, int pe)             \
    { shmem_ctx_##N##_get_nbi(c, d, s, n, pe); }                                             \
    inline void shmem_p(shmem_ctx_t c, T *d, T v, int pe) { shmem_ctx_##N##_p(c, d, v, pe); } \
    inline T shmem_g(shmem_ctx_t c, const T *s, int pe) { return shmem_ctx_##N##_g(c, s, pe); } \
    inline void shmem_iput(shmem_ctx_t c, T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst,    \
                           size_t n, int pe)                                                 \
    { shmem_ctx_##N##_iput(c, d, s, dst, sst, n, pe); }                                      \
    inline void shmem_iget(shmem_ctx_t c, T *d, const T *s, ptrdiff_t dst, ptrdiff_t sst,    \
                           size_t n, int pe)                                                 \
    { shmem_ctx_##N##_iget(c, d, s, dst, sst, n, pe); }                                      \
    inline void shmem_put_signal(shmem_ctx_t c, T *d, const T *s, size_t n, uint64_t *sig,   \
                                 uint64_t sv, int op, int pe)                                \
    { shmem_ctx_##N##_put_signal(c, d, s, n, sig, sv, op, pe); }                             \
    inline void shmem_put_signal_nbi(shmem_ctx_t c, T *d, const T *s, size_t n,              \
                                     uint64_t *sig, uint64_t sv, int op, int pe)             \
    { shmem_ctx_##N##_put_signal_nbi(c, d, s, n, sig, sv, op, pe); }
UVAS_SHMEM_CXX_RMA_TYPES(UVAS_SHMEM_CXX_RMA)
#undef UVAS_SHMEM_CXX_RMA

/* ---- atomics -------------------------------------------------------------- */

/* fetch, set, swap: every AMO type and float, double. The deprecated 1.4
 * names (shmem_fetch, ...) are the same operations without a context. */
#define UVAS_SHMEM_CXX_AMO_FSS(N, T)                                           \
    inline T shmem_atomic_fetch(const T *s, int pe) { return shmem_##N##_atomic_fetch(s, pe); } \
    inline void shmem_atomic_set(T *d, T v, int pe) { shmem_##N##_atomic_set(d, v, pe); }    \
    inline T shmem_atomic_swap(T *d, T v, int pe) { return shmem_##N##_atomic_swap(d, v, pe); } \
    inline void shmem_atomic_fetch_nbi(T *f, const T *s, int pe)                             \
    { shmem_##N##_atomic_fetch_nbi(f, s, pe); }                                              \
    inline void shmem_atomic_swap_nbi(T *f, T *d, T v, int pe)                               \
    { shmem_##N##_atomic_swap_nbi(f, d, v, pe); }                                            \
    inline T shmem_atomic_fetch(shmem_ctx_t c, const T *s, int pe)                           \
    { return shmem_ctx_##N##_atomic_fetch(c, s, pe); }                                       \
    inline void shmem_atomic_set(shmem_ctx_t c, T *d, T v, int pe)                           \
    { shmem_ctx_##N##_atomic_set(c, d, v, pe); }                                             \
    inline T shmem_atomic_swap(shmem_ctx_t c, T *d, T v, int pe)                             \
    { return shmem_ctx_##N##_atomic_swap(c, d, v, pe); }                                     \
    inline void shmem_atomic_fetch_nbi(shmem_ctx_t c, T *f, const T *s, int pe)              \
    { shmem_ctx_##N##_atomic_fetch_nbi(c, f, s, pe); }                                       \
    inline void shmem_atomic_swap_nbi(shmem_ctx_t c, T *f, T *d, T v, int pe)                \
    { shmem_ctx_##N##_atomic_swap_nbi(c, f, d, v, pe); }                                     \
    inline T shmem_fetch(const T *s, int pe) { return shmem_##N##_atomic_fetch(s, pe); }     \
    inline void shmem_set(T *d, T v, int pe) { shmem_##N##_atomic_set(d, v, pe); }          \
    inline T shmem_swap(T *d, T v, int pe) { return shmem_##N##_atomic_swap(d, v, pe); }
UVAS_SHMEM_CXX_AMO_TYPES(UVAS_SHMEM_CXX_AMO_FSS)
UVAS_SHMEM_CXX_AMO_EXT_TYPES(UVAS_SHMEM_CXX_AMO_FSS)
#undef UVAS_SHMEM_CXX_AMO_FSS

#define UVAS_SHMEM_CXX_AMO(N, T)                                               \
    inline T shmem_atomic_compare_swap(T *d, T cond, T v, int pe)                            \
    { return shmem_##N##_atomic_compare_swap(d, cond, v, pe); }                              \
    inline T shmem_atomic_fetch_inc(T *d, int pe) { return shmem_##N##_atomic_fetch_inc(d, pe); } \
    inline void shmem_atomic_inc(T *d, int pe) { shmem_##N##_atomic_inc(d, pe); }            \
    inline T shmem_atomic_fetch_add(T *d, T v, int pe)                                       \
    { return shmem_##N##_atomic_fetch_add(d, v, pe); }                                       \
    inline void shmem_atomic_add(T *d, T v, int pe) { shmem_##N##_atomic_add(d, v, pe); }    \
    inline void shmem_atomic_compare_swap_nbi(T *f, T *d, T cond, T v, int pe)               \
    { shmem_##N##_atomic_compare_swap_nbi(f, d, cond, v, pe); }                              \
    inline void shmem_atomic_fetch_inc_nbi(T *f, T *d, int pe)                               \
    { shmem_##N##_atomic_fetch_inc_nbi(f, d, pe); }                                          \
    inline void shmem_atomic_fetch_add_nbi(T *f, T *d, T v, int pe)                          \
    { shmem_##N##_atomic_fetch_add_nbi(f, d, v, pe); }                                       \
    inline T shmem_atomic_compare_swap(shmem_ctx_t c, T *d, T cond, T v, int pe)             \
    { return shmem_ctx_##N##_atomic_compare_swap(c, d, cond, v, pe); }                       \
    inline T shmem_atomic_fetch_inc(shmem_ctx_t c, T *d, int pe)                             \
    { return shmem_ctx_##N##_atomic_fetch_inc(c, d, pe); }                                   \
    inline void shmem_atomic_inc(shmem_ctx_t c, T *d, int pe)                                \
    { shmem_ctx_##N##_atomic_inc(c, d, pe); }                                                \
    inline T shmem_atomic_fetch_add(shmem_ctx_t c, T *d, T v, int pe)                        \
    { return shmem_ctx_##N##_atomic_fetch_add(c, d, v, pe); }                                \
    inline void shmem_atomic_add(shmem_ctx_t c, T *d, T v, int pe)                           \
    { shmem_ctx_##N##_atomic_add(c, d, v, pe); }                                             \
    inline void shmem_atomic_compare_swap_nbi(shmem_ctx_t c, T *f, T *d, T cond, T v, int pe) \
    { shmem_ctx_##N##_atomic_compare_swap_nbi(c, f, d, cond, v, pe); }                       \
    inline void shmem_atomic_fetch_inc_nbi(shmem_ctx_t c, T *f, T *d, int pe)                \
    { shmem_ctx_##N##_atomic_fetch_inc_nbi(c, f, d, pe); }                                   \
    inline void shmem_atomic_fetch_add_nbi(shmem_ctx_t c, T *f, T *d, T v, int pe)           \
    { shmem_ctx_##N##_atomic_fetch_add_nbi(c, f, d, v, pe); }                                \
    inline T shmem_cswap(T *d, T cond, T v, int pe)                                          \
    { return shmem_##N##_atomic_compare_swap(d, cond, v, pe); }                              \
    inline T shmem_finc(T *d, int pe) { return shmem_##N##_atomic_fetch_inc(d, pe); }        \
    inline void shmem_inc(T *d, int pe) { shmem_##N##_atomic_inc(d, pe); }                   \
    inline T shmem_fadd(T *d, T v, int pe) { return shmem_##N##_atomic_fetch_add(d, v, pe); } \
    inline void shmem_add(T *d, T v, int pe) { shmem_##N##_atomic_add(d, v, pe); }
UVAS_SHMEM_CXX_AMO_TYPES(UVAS_SHMEM_CXX_AMO)
#undef UVAS_SHMEM_CXX_AMO

#define UVAS_SHMEM_CXX_AMO_BIT_OP(N, T, OP)                                    \
    inline T shmem_atomic_fetch_##OP(T *d, T v, int pe)                                      \
    { return shmem_##N##_atomic_fetch_##OP(d, v, pe); }                                      \
    inline void shmem_atomic_##OP(T *d, T v, int pe) { shmem_##N##_atomic_##OP(d, v, pe); }  \
    inline void shmem_atomic_fetch_##OP##_nbi(T *f, T *d, T v, int pe)                       \
    { shmem_##N##_atomic_fetch_##OP##_nbi(f, d, v, pe); }                                    \
    inline T shmem_atomic_fetch_##OP(shmem_ctx_t c, T *d, T v, int pe)                       \
    { return shmem_ctx_##N##_atomic_fetch_##OP(c, d, v, pe); }                               \
    inline void shmem_atomic_##OP(shmem_ctx_t c, T *d, T v, int pe)                          \
    { shmem_ctx_##N##_atomic_##OP(c, d, v, pe); }                                            \
    inline void shmem_atomic_fetch_##OP##_nbi(shmem_ctx_t c, T *f, T *d, T v, int pe)        \
    { shmem_ctx_##N##_atomic_fetch_##OP##_nbi(c, f, d, v, pe); }
#define UVAS_SHMEM_CXX_AMO_BIT(N, T)                                           \
    UVAS_SHMEM_CXX_AMO_BIT_OP(N, T, and) UVAS_SHMEM_CXX_AMO_BIT_OP(N, T, or)  \
    UVAS_SHMEM_CXX_AMO_BIT_OP(N, T, xor)
UVAS_SHMEM_CXX_AMO_BIT_TYPES(UVAS_SHMEM_CXX_AMO_BIT)
#undef UVAS_SHMEM_CXX_AMO_BIT
#undef UVAS_SHMEM_CXX_AMO_BIT_OP

/* ---- point-to-point synchronisation ---------------------------------------- */

#define UVAS_SHMEM_CXX_P2P(N, T)                                               \
    inline void shmem_wait_until(T *v, int cmp, T cv) { shmem_##N##_wait_until(v, cmp, cv); } \
    inline void shmem_wait_until_all(T *v, size_t n, const int *st, int cmp, T cv)           \
    { shmem_##N##_wait_until_all(v, n, st, cmp, cv); }                                       \
    inline size_t shmem_wait_until_any(T *v, size_t n, const int *st, int cmp, T cv)         \
    { return shmem_##N##_wait_until_any(v, n, st, cmp, cv); }                                \
    inline size_t shmem_wait_until_some(T *v, size_t n, size_t *idx, const int *st, int cmp, \
                                        T cv)                                                \
    { return shmem_##N##_wait_until_some(v, n, idx, st, cmp, cv); }                          \
    inline void shmem_wait_until_all_vector(T *v, size_t n, const int *st, int cmp, T *cvs)  \
    { shmem_##N##_wait_until_all_vector(v, n, st, cmp, cvs); }                               \
    inline size_t shmem_wait_until_any_vector(T *v, size_t n, const int *st, int cmp,        \
                                              T *cvs)                                        \
    { return shmem_##N##_wait_until_any_vector(v, n, st, cmp, cvs); }                        \
    inline size_t shmem_wait_until_some_vector(T *v, size_t n, size_t *idx, const int *st,   \
                                               int cmp, T *cvs)                              \
    { return shmem_##N##_wait_until_some_vector(v, n, idx, st, cmp, cvs); }                  \
    inline int shmem_test(T *v, int cmp, T cv) { return shmem_##N##_test(v, cmp, cv); }      \
    inline int shmem_test_all(T *v, size_t n, const int *st, int cmp, T cv)                  \
    { return shmem_##N##_test_all(v, n, st, cmp, cv); }                                      \
    inline size_t shmem_test_any(T *v, size_t n, const int *st, int cmp, T cv)               \
    { return shmem_##N##_test_any(v, n, st, cmp, cv); }                                      \
    inline size_t shmem_test_some(T *v, size_t n, size_t *idx, const int *st, int cmp, T cv) \
    { return shmem_##N##_test_some(v, n, idx, st, cmp, cv); }                                \
    inline int shmem_test_all_vector(T *v, size_t n, const int *st, int cmp, T *cvs)         \
    { return shmem_##N##_test_all_vector(v, n, st, cmp, cvs); }                              \
    inline size_t shmem_test_any_vector(T *v, size_t n, const int *st, int cmp, T *cvs)      \
    { return shmem_##N##_test_any_vector(v, n, st, cmp, cvs); }                              \
    inline size_t shmem_test_some_vector(T *v, size_t n, size_t *idx, const int *st,         \
                                         int cmp, T *cvs)                                    \
    { return shmem_##N##_test_some_vector(v, n, idx, st, cmp, cvs); }
UVAS_SHMEM_CXX_P2P_TYPES(UVAS_SHMEM_CXX_P2P)
#undef UVAS_SHMEM_CXX_P2P

/* Deprecated since OpenSHMEM 1.4: wait until *ivar != cmp_value. */
inline void shmem_wait(short *v, short cv) { shmem_short_wait(v, cv); }
inline void shmem_wait(int *v, int cv) { shmem_int_wait(v, cv); }
inline void shmem_wait(long *v, long cv) { shmem_long_wait(v, cv); }
inline void shmem_wait(long long *v, long long cv) { shmem_longlong_wait(v, cv); }

/* ---- collectives ------------------------------------------------------------ */

/* OpenSHMEM 1.5's shmem_sync(team) beside the deprecated active-set form
 * (shmem.h), which keeps C linkage. */
inline int shmem_sync(shmem_team_t team) { return shmem_team_sync(team); }

#define UVAS_SHMEM_CXX_COLL(N, T)                                              \
    inline int shmem_broadcast(shmem_team_t t, T *d, const T *s, size_t n, int root)         \
    { return shmem_##N##_broadcast(t, d, s, n, root); }                                      \
    inline int shmem_collect(shmem_team_t t, T *d, const T *s, size_t n)                     \
    { return shmem_##N##_collect(t, d, s, n); }                                              \
    inline int shmem_fcollect(shmem_team_t t, T *d, const T *s, size_t n)                    \
    { return shmem_##N##_fcollect(t, d, s, n); }                                             \
    inline int shmem_alltoall(shmem_team_t t, T *d, const T *s, size_t n)                    \
    { return shmem_##N##_alltoall(t, d, s, n); }                                             \
    inline int shmem_alltoalls(shmem_team_t t, T *d, const T *s, ptrdiff_t dst,              \
                               ptrdiff_t sst, size_t n)                                      \
    { return shmem_##N##_alltoalls(t, d, s, dst, sst, n); }
UVAS_SHMEM_CXX_RMA_TYPES(UVAS_SHMEM_CXX_COLL)
#undef UVAS_SHMEM_CXX_COLL

#define UVAS_SHMEM_CXX_REDUCE(N, T, OP)                                        \
    inline int shmem_##OP##_reduce(shmem_team_t t, T *d, const T *s, size_t n)               \
    { return shmem_##N##_##OP##_reduce(t, d, s, n); }
#define UVAS_SHMEM_CXX_REDUCE_ORDER(N, T)                                      \
    UVAS_SHMEM_CXX_REDUCE(N, T, min) UVAS_SHMEM_CXX_REDUCE(N, T, max)
#define UVAS_SHMEM_CXX_REDUCE_ARITH(N, T)                                      \
    UVAS_SHMEM_CXX_REDUCE(N, T, sum) UVAS_SHMEM_CXX_REDUCE(N, T, prod)
#define UVAS_SHMEM_CXX_REDUCE_BIT(N, T)                                        \
    UVAS_SHMEM_CXX_REDUCE(N, T, and) UVAS_SHMEM_CXX_REDUCE(N, T, or)          \
    UVAS_SHMEM_CXX_REDUCE(N, T, xor)
UVAS_SHMEM_CXX_ORDER_TYPES(UVAS_SHMEM_CXX_REDUCE_ORDER)
UVAS_SHMEM_CXX_ORDER_TYPES(UVAS_SHMEM_CXX_REDUCE_ARITH)
#ifdef UVAS_SHMEM_REDUCE_COMPLEX_TYPES
UVAS_SHMEM_REDUCE_COMPLEX_TYPES(UVAS_SHMEM_CXX_REDUCE_ARITH)
#endif
UVAS_SHMEM_CXX_BIT_TYPES(UVAS_SHMEM_CXX_REDUCE_BIT)
#undef UVAS_SHMEM_CXX_REDUCE
#undef UVAS_SHMEM_CXX_REDUCE_ORDER
#undef UVAS_SHMEM_CXX_REDUCE_ARITH
#undef UVAS_SHMEM_CXX_REDUCE_BIT

#endif /* SHMEM_GENERIC_CXX_H */
