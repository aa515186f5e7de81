/*
 * OpenSHMEM's type-generic names in C11 (shmem_put, shmem_atomic_add, ...):
 * _Generic selections over the typed routines shmem.h declares. Included
 * by shmem.h; C++ gets overloads of the same names (shmem_generic_cxx.h).
 */
#ifndef SHMEM_GENERIC_C11_H
#define SHMEM_GENERIC_C11_H

/* Selection is by the C type an argument points to; fixed-width and
 * size/ptrdiff types are aliases of these, so listing them would repeat a
 * type (an error in _Generic). */
/* P: shmem_, or shmem_ctx_ for the forms that take a context first. */
#define UVAS_SHMEM_G_RMA_P(P, OP)                                              \
    float: P##float_##OP, double: P##double_##OP,                             \
    long double: P##longdouble_##OP, char: P##char_##OP,                      \
    signed char: P##schar_##OP, short: P##short_##OP,                         \
    int: P##int_##OP, long: P##long_##OP,                                     \
    long long: P##longlong_##OP, unsigned char: P##uchar_##OP,                \
    unsigned short: P##ushort_##OP, unsigned int: P##uint_##OP,               \
    unsigned long: P##ulong_##OP, unsigned long long: P##ulonglong_##OP
#define UVAS_SHMEM_G_AMO_P(P, OP)                                              \
    int: P##int_##OP, long: P##long_##OP,                                     \
    long long: P##longlong_##OP, unsigned int: P##uint_##OP,                  \
    unsigned long: P##ulong_##OP, unsigned long long: P##ulonglong_##OP
#define UVAS_SHMEM_G_AMO_EXT_P(P, OP)                                          \
    UVAS_SHMEM_G_AMO_P(P, OP), float: P##float_##OP, double: P##double_##OP
#define UVAS_SHMEM_G_AMO_BIT_P(P, OP)                                          \
    unsigned int: P##uint_##OP, unsigned long: P##ulong_##OP,                 \
    unsigned long long: P##ulonglong_##OP, int32_t: P##int32_##OP,            \
    int64_t: P##int64_##OP
#define UVAS_SHMEM_G_RMA(OP) UVAS_SHMEM_G_RMA_P(shmem_, OP)
#define UVAS_SHMEM_G_AMO(OP) UVAS_SHMEM_G_AMO_P(shmem_, OP)
#define UVAS_SHMEM_G_P2P(OP)                                                   \
    UVAS_SHMEM_G_AMO(OP), short: shmem_short_##OP,                            \
    unsigned short: shmem_ushort_##OP
#define UVAS_SHMEM_G_AMO_EXT(OP) UVAS_SHMEM_G_AMO_EXT_P(shmem_, OP)
#define UVAS_SHMEM_G_AMO_BIT(OP) UVAS_SHMEM_G_AMO_BIT_P(shmem_, OP)
#define UVAS_SHMEM_G_ORDER(OP)                                                 \
    char: shmem_char_##OP, signed char: shmem_schar_##OP,                     \
    short: shmem_short_##OP, int: shmem_int_##OP, long: shmem_long_##OP,      \
    long long: shmem_longlong_##OP, unsigned char: shmem_uchar_##OP,          \
    unsigned short: shmem_ushort_##OP, unsigned int: shmem_uint_##OP,         \
    unsigned long: shmem_ulong_##OP, unsigned long long: shmem_ulonglong_##OP,\
    float: shmem_float_##OP, double: shmem_double_##OP,                       \
    long double: shmem_longdouble_##OP
#define UVAS_SHMEM_G_ARITH(OP)                                                 \
    UVAS_SHMEM_G_ORDER(OP), double _Complex: shmem_complexd_##OP,             \
    float _Complex: shmem_complexf_##OP
#define UVAS_SHMEM_G_BIT(OP)                                                   \
    unsigned char: shmem_uchar_##OP, unsigned short: shmem_ushort_##OP,       \
    unsigned int: shmem_uint_##OP, unsigned long: shmem_ulong_##OP,           \
    unsigned long long: shmem_ulonglong_##OP, int8_t: shmem_int8_##OP,        \
    int16_t: shmem_int16_##OP, int32_t: shmem_int32_##OP,                    \
    int64_t: shmem_int64_##OP, long long: shmem_longlong_##OP

/* The generic names take a context first or not: the number of arguments
 * picks (UVAS_SHMEM_ARGn gives the n-th). */
#define UVAS_SHMEM_ARG4(_1, _2, _3, N, ...) N
#define UVAS_SHMEM_ARG5(_1, _2, _3, _4, N, ...) N
#define UVAS_SHMEM_ARG6(_1, _2, _3, _4, _5, N, ...) N
#define UVAS_SHMEM_ARG7(_1, _2, _3, _4, _5, _6, N, ...) N
#define UVAS_SHMEM_ARG8(_1, _2, _3, _4, _5, _6, _7, N, ...) N
#define UVAS_SHMEM_ARG9(_1, _2, _3, _4, _5, _6, _7, _8, N, ...) N
#define UVAS_SHMEM_ARG10(_1, _2, _3, _4, _5, _6, _7, _8, _9, N, ...) N
#define uvas_shmem_g_put(dest, source, nelems, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_, put))(dest, source, nelems, pe)
#define uvas_shmem_gc_put(ctx, dest, source, nelems, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_ctx_, put))(ctx, dest, source, nelems, pe)
#define shmem_put(...) \
    UVAS_SHMEM_ARG6(__VA_ARGS__, uvas_shmem_gc_put, uvas_shmem_g_put, -)(__VA_ARGS__)
#define uvas_shmem_g_get(dest, source, nelems, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_, get))(dest, source, nelems, pe)
#define uvas_shmem_gc_get(ctx, dest, source, nelems, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_ctx_, get))(ctx, dest, source, nelems, pe)
#define shmem_get(...) \
    UVAS_SHMEM_ARG6(__VA_ARGS__, uvas_shmem_gc_get, uvas_shmem_g_get, -)(__VA_ARGS__)
#define uvas_shmem_g_put_nbi(dest, source, nelems, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_, put_nbi))(dest, source, nelems, pe)
#define uvas_shmem_gc_put_nbi(ctx, dest, source, nelems, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_ctx_, put_nbi))(ctx, dest, source, nelems, pe)
#define shmem_put_nbi(...) \
    UVAS_SHMEM_ARG6(__VA_ARGS__, uvas_shmem_gc_put_nbi, uvas_shmem_g_put_nbi, -)(__VA_ARGS__)
#define uvas_shmem_g_get_nbi(dest, source, nelems, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_, get_nbi))(dest, source, nelems, pe)
#define uvas_shmem_gc_get_nbi(ctx, dest, source, nelems, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_ctx_, get_nbi))(ctx, dest, source, nelems, pe)
#define shmem_get_nbi(...) \
    UVAS_SHMEM_ARG6(__VA_ARGS__, uvas_shmem_gc_get_nbi, uvas_shmem_g_get_nbi, -)(__VA_ARGS__)
#define uvas_shmem_g_p(dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_, p))(dest, value, pe)
#define uvas_shmem_gc_p(ctx, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_ctx_, p))(ctx, dest, value, pe)
#define shmem_p(...) \
    UVAS_SHMEM_ARG5(__VA_ARGS__, uvas_shmem_gc_p, uvas_shmem_g_p, -)(__VA_ARGS__)
#define uvas_shmem_g_g(source, pe) \
    _Generic(*(source), UVAS_SHMEM_G_RMA_P(shmem_, g))(source, pe)
#define uvas_shmem_gc_g(ctx, source, pe) \
    _Generic(*(source), UVAS_SHMEM_G_RMA_P(shmem_ctx_, g))(ctx, source, pe)
#define shmem_g(...) \
    UVAS_SHMEM_ARG4(__VA_ARGS__, uvas_shmem_gc_g, uvas_shmem_g_g, -)(__VA_ARGS__)
#define uvas_shmem_g_iput(dest, source, dst, sst, nelems, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_, iput))(dest, source, dst, sst, nelems, pe)
#define uvas_shmem_gc_iput(ctx, dest, source, dst, sst, nelems, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_ctx_, iput))(ctx, dest, source, dst, sst, nelems, pe)
#define shmem_iput(...) \
    UVAS_SHMEM_ARG8(__VA_ARGS__, uvas_shmem_gc_iput, uvas_shmem_g_iput, -)(__VA_ARGS__)
#define uvas_shmem_g_iget(dest, source, dst, sst, nelems, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_, iget))(dest, source, dst, sst, nelems, pe)
#define uvas_shmem_gc_iget(ctx, dest, source, dst, sst, nelems, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_ctx_, iget))(ctx, dest, source, dst, sst, nelems, pe)
#define shmem_iget(...) \
    UVAS_SHMEM_ARG8(__VA_ARGS__, uvas_shmem_gc_iget, uvas_shmem_g_iget, -)(__VA_ARGS__)
#define uvas_shmem_g_put_signal(dest, source, nelems, sig_addr, signal, sig_op, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_, put_signal))(dest, source, nelems, sig_addr, signal, sig_op, pe)
#define uvas_shmem_gc_put_signal(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_ctx_, put_signal))(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)
#define shmem_put_signal(...) \
    UVAS_SHMEM_ARG9(__VA_ARGS__, uvas_shmem_gc_put_signal, uvas_shmem_g_put_signal, -)(__VA_ARGS__)
#define uvas_shmem_g_put_signal_nbi(dest, source, nelems, sig_addr, signal, sig_op, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_, put_signal_nbi))(dest, source, nelems, sig_addr, signal, sig_op, pe)
#define uvas_shmem_gc_put_signal_nbi(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_RMA_P(shmem_ctx_, put_signal_nbi))(ctx, dest, source, nelems, sig_addr, signal, sig_op, pe)
#define shmem_put_signal_nbi(...) \
    UVAS_SHMEM_ARG9(__VA_ARGS__, uvas_shmem_gc_put_signal_nbi, uvas_shmem_g_put_signal_nbi, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_fetch(source, pe) \
    _Generic(*(source), UVAS_SHMEM_G_AMO_EXT_P(shmem_, atomic_fetch))(source, pe)
#define uvas_shmem_gc_atomic_fetch(ctx, source, pe) \
    _Generic(*(source), UVAS_SHMEM_G_AMO_EXT_P(shmem_ctx_, atomic_fetch))(ctx, source, pe)
#define shmem_atomic_fetch(...) \
    UVAS_SHMEM_ARG4(__VA_ARGS__, uvas_shmem_gc_atomic_fetch, uvas_shmem_g_atomic_fetch, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_set(dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_EXT_P(shmem_, atomic_set))(dest, value, pe)
#define uvas_shmem_gc_atomic_set(ctx, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_EXT_P(shmem_ctx_, atomic_set))(ctx, dest, value, pe)
#define shmem_atomic_set(...) \
    UVAS_SHMEM_ARG5(__VA_ARGS__, uvas_shmem_gc_atomic_set, uvas_shmem_g_atomic_set, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_swap(dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_EXT_P(shmem_, atomic_swap))(dest, value, pe)
#define uvas_shmem_gc_atomic_swap(ctx, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_EXT_P(shmem_ctx_, atomic_swap))(ctx, dest, value, pe)
#define shmem_atomic_swap(...) \
    UVAS_SHMEM_ARG5(__VA_ARGS__, uvas_shmem_gc_atomic_swap, uvas_shmem_g_atomic_swap, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_fetch_nbi(fetch, source, pe) \
    _Generic(*(source), UVAS_SHMEM_G_AMO_EXT_P(shmem_, atomic_fetch_nbi))(fetch, source, pe)
#define uvas_shmem_gc_atomic_fetch_nbi(ctx, fetch, source, pe) \
    _Generic(*(source), UVAS_SHMEM_G_AMO_EXT_P(shmem_ctx_, atomic_fetch_nbi))(ctx, fetch, source, pe)
#define shmem_atomic_fetch_nbi(...) \
    UVAS_SHMEM_ARG5(__VA_ARGS__, uvas_shmem_gc_atomic_fetch_nbi, uvas_shmem_g_atomic_fetch_nbi, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_swap_nbi(fetch, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_EXT_P(shmem_, atomic_swap_nbi))(fetch, dest, value, pe)
#define uvas_shmem_gc_atomic_swap_nbi(ctx, fetch, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_EXT_P(shmem_ctx_, atomic_swap_nbi))(ctx, fetch, dest, value, pe)
#define shmem_atomic_swap_nbi(...) \
    UVAS_SHMEM_ARG6(__VA_ARGS__, uvas_shmem_gc_atomic_swap_nbi, uvas_shmem_g_atomic_swap_nbi, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_compare_swap(dest, cond, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_, atomic_compare_swap))(dest, cond, value, pe)
#define uvas_shmem_gc_atomic_compare_swap(ctx, dest, cond, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_ctx_, atomic_compare_swap))(ctx, dest, cond, value, pe)
#define shmem_atomic_compare_swap(...) \
    UVAS_SHMEM_ARG6(__VA_ARGS__, uvas_shmem_gc_atomic_compare_swap, uvas_shmem_g_atomic_compare_swap, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_fetch_inc(dest, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_, atomic_fetch_inc))(dest, pe)
#define uvas_shmem_gc_atomic_fetch_inc(ctx, dest, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_ctx_, atomic_fetch_inc))(ctx, dest, pe)
#define shmem_atomic_fetch_inc(...) \
    UVAS_SHMEM_ARG4(__VA_ARGS__, uvas_shmem_gc_atomic_fetch_inc, uvas_shmem_g_atomic_fetch_inc, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_inc(dest, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_, atomic_inc))(dest, pe)
#define uvas_shmem_gc_atomic_inc(ctx, dest, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_ctx_, atomic_inc))(ctx, dest, pe)
#define shmem_atomic_inc(...) \
    UVAS_SHMEM_ARG4(__VA_ARGS__, uvas_shmem_gc_atomic_inc, uvas_shmem_g_atomic_inc, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_fetch_add(dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_, atomic_fetch_add))(dest, value, pe)
#define uvas_shmem_gc_atomic_fetch_add(ctx, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_ctx_, atomic_fetch_add))(ctx, dest, value, pe)
#define shmem_atomic_fetch_add(...) \
    UVAS_SHMEM_ARG5(__VA_ARGS__, uvas_shmem_gc_atomic_fetch_add, uvas_shmem_g_atomic_fetch_add, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_add(dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_, atomic_add))(dest, value, pe)
#define uvas_shmem_gc_atomic_add(ctx, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_ctx_, atomic_add))(ctx, dest, value, pe)
#define shmem_atomic_add(...) \
    UVAS_SHMEM_ARG5(__VA_ARGS__, uvas_shmem_gc_atomic_add, uvas_shmem_g_atomic_add, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_compare_swap_nbi(fetch, dest, cond, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_, atomic_compare_swap_nbi))(fetch, dest, cond, value, pe)
#define uvas_shmem_gc_atomic_compare_swap_nbi(ctx, fetch, dest, cond, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_ctx_, atomic_compare_swap_nbi))(ctx, fetch, dest, cond, value, pe)
#define shmem_atomic_compare_swap_nbi(...) \
    UVAS_SHMEM_ARG7(__VA_ARGS__, uvas_shmem_gc_atomic_compare_swap_nbi, uvas_shmem_g_atomic_compare_swap_nbi, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_fetch_inc_nbi(fetch, dest, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_, atomic_fetch_inc_nbi))(fetch, dest, pe)
#define uvas_shmem_gc_atomic_fetch_inc_nbi(ctx, fetch, dest, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_ctx_, atomic_fetch_inc_nbi))(ctx, fetch, dest, pe)
#define shmem_atomic_fetch_inc_nbi(...) \
    UVAS_SHMEM_ARG5(__VA_ARGS__, uvas_shmem_gc_atomic_fetch_inc_nbi, uvas_shmem_g_atomic_fetch_inc_nbi, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_fetch_add_nbi(fetch, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_, atomic_fetch_add_nbi))(fetch, dest, value, pe)
#define uvas_shmem_gc_atomic_fetch_add_nbi(ctx, fetch, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_P(shmem_ctx_, atomic_fetch_add_nbi))(ctx, fetch, dest, value, pe)
#define shmem_atomic_fetch_add_nbi(...) \
    UVAS_SHMEM_ARG6(__VA_ARGS__, uvas_shmem_gc_atomic_fetch_add_nbi, uvas_shmem_g_atomic_fetch_add_nbi, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_fetch_and(dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_, atomic_fetch_and))(dest, value, pe)
#define uvas_shmem_gc_atomic_fetch_and(ctx, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_ctx_, atomic_fetch_and))(ctx, dest, value, pe)
#define shmem_atomic_fetch_and(...) \
    UVAS_SHMEM_ARG5(__VA_ARGS__, uvas_shmem_gc_atomic_fetch_and, uvas_shmem_g_atomic_fetch_and, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_and(dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_, atomic_and))(dest, value, pe)
#define uvas_shmem_gc_atomic_and(ctx, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_ctx_, atomic_and))(ctx, dest, value, pe)
#define shmem_atomic_and(...) \
    UVAS_SHMEM_ARG5(__VA_ARGS__, uvas_shmem_gc_atomic_and, uvas_shmem_g_atomic_and, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_fetch_and_nbi(fetch, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_, atomic_fetch_and_nbi))(fetch, dest, value, pe)
#define uvas_shmem_gc_atomic_fetch_and_nbi(ctx, fetch, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_ctx_, atomic_fetch_and_nbi))(ctx, fetch, dest, value, pe)
#define shmem_atomic_fetch_and_nbi(...) \
    UVAS_SHMEM_ARG6(__VA_ARGS__, uvas_shmem_gc_atomic_fetch_and_nbi, uvas_shmem_g_atomic_fetch_and_nbi, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_fetch_or(dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_, atomic_fetch_or))(dest, value, pe)
#define uvas_shmem_gc_atomic_fetch_or(ctx, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_ctx_, atomic_fetch_or))(ctx, dest, value, pe)
#define shmem_atomic_fetch_or(...) \
    UVAS_SHMEM_ARG5(__VA_ARGS__, uvas_shmem_gc_atomic_fetch_or, uvas_shmem_g_atomic_fetch_or, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_or(dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_, atomic_or))(dest, value, pe)
#define uvas_shmem_gc_atomic_or(ctx, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_ctx_, atomic_or))(ctx, dest, value, pe)
#define shmem_atomic_or(...) \
    UVAS_SHMEM_ARG5(__VA_ARGS__, uvas_shmem_gc_atomic_or, uvas_shmem_g_atomic_or, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_fetch_or_nbi(fetch, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_, atomic_fetch_or_nbi))(fetch, dest, value, pe)
#define uvas_shmem_gc_atomic_fetch_or_nbi(ctx, fetch, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_ctx_, atomic_fetch_or_nbi))(ctx, fetch, dest, value, pe)
#define shmem_atomic_fetch_or_nbi(...) \
    UVAS_SHMEM_ARG6(__VA_ARGS__, uvas_shmem_gc_atomic_fetch_or_nbi, uvas_shmem_g_atomic_fetch_or_nbi, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_fetch_xor(dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_, atomic_fetch_xor))(dest, value, pe)
#define uvas_shmem_gc_atomic_fetch_xor(ctx, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_ctx_, atomic_fetch_xor))(ctx, dest, value, pe)
#define shmem_atomic_fetch_xor(...) \
    UVAS_SHMEM_ARG5(__VA_ARGS__, uvas_shmem_gc_atomic_fetch_xor, uvas_shmem_g_atomic_fetch_xor, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_xor(dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_, atomic_xor))(dest, value, pe)
#define uvas_shmem_gc_atomic_xor(ctx, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_ctx_, atomic_xor))(ctx, dest, value, pe)
#define shmem_atomic_xor(...) \
    UVAS_SHMEM_ARG5(__VA_ARGS__, uvas_shmem_gc_atomic_xor, uvas_shmem_g_atomic_xor, -)(__VA_ARGS__)
#define uvas_shmem_g_atomic_fetch_xor_nbi(fetch, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_, atomic_fetch_xor_nbi))(fetch, dest, value, pe)
#define uvas_shmem_gc_atomic_fetch_xor_nbi(ctx, fetch, dest, value, pe) \
    _Generic(*(dest), UVAS_SHMEM_G_AMO_BIT_P(shmem_ctx_, atomic_fetch_xor_nbi))(ctx, fetch, dest, value, pe)
#define shmem_atomic_fetch_xor_nbi(...) \
    UVAS_SHMEM_ARG6(__VA_ARGS__, uvas_shmem_gc_atomic_fetch_xor_nbi, uvas_shmem_g_atomic_fetch_xor_nbi, -)(__VA_ARGS__)

/* Deprecated generic AMO names of OpenSHMEM 1.4: the same operations as
 * the shmem_atomic_ names, on every type those take (programs use them on
 * unsigned types too). */
#define shmem_fetch(source, pe) _Generic(*(source), UVAS_SHMEM_G_AMO_EXT(atomic_fetch))(source, pe)
#define shmem_set(dest, value, pe) _Generic(*(dest), UVAS_SHMEM_G_AMO_EXT(atomic_set))(dest, value, pe)
#define shmem_swap(dest, value, pe) _Generic(*(dest), UVAS_SHMEM_G_AMO_EXT(atomic_swap))(dest, value, pe)
#define shmem_cswap(dest, cond, value, pe)                                     \
    _Generic(*(dest), UVAS_SHMEM_G_AMO(atomic_compare_swap))(dest, cond, value, pe)
#define shmem_finc(dest, pe) _Generic(*(dest), UVAS_SHMEM_G_AMO(atomic_fetch_inc))(dest, pe)
#define shmem_inc(dest, pe) _Generic(*(dest), UVAS_SHMEM_G_AMO(atomic_inc))(dest, pe)
#define shmem_fadd(dest, value, pe) _Generic(*(dest), UVAS_SHMEM_G_AMO(atomic_fetch_add))(dest, value, pe)
#define shmem_add(dest, value, pe) _Generic(*(dest), UVAS_SHMEM_G_AMO(atomic_add))(dest, value, pe)

#define shmem_wait_until(ivar, cmp, cmp_value)                                 \
    _Generic(*(ivar), UVAS_SHMEM_G_P2P(wait_until))(ivar, cmp, cmp_value)
#define shmem_wait_until_all(ivars, nelems, status, cmp, cmp_value)            \
    _Generic(*(ivars), UVAS_SHMEM_G_P2P(wait_until_all))(ivars, nelems, status, cmp, \
                                                          cmp_value)
#define shmem_wait_until_any(ivars, nelems, status, cmp, cmp_value)            \
    _Generic(*(ivars), UVAS_SHMEM_G_P2P(wait_until_any))(ivars, nelems, status, cmp, \
                                                          cmp_value)
#define shmem_wait_until_some(ivars, nelems, indices, status, cmp, cmp_value)  \
    _Generic(*(ivars), UVAS_SHMEM_G_P2P(wait_until_some))(ivars, nelems, indices,   \
                                                           status, cmp, cmp_value)
#define shmem_wait_until_all_vector(ivars, nelems, status, cmp, cmp_values)    \
    _Generic(*(ivars), UVAS_SHMEM_G_P2P(wait_until_all_vector))(ivars, nelems,      \
                                                                 status, cmp, cmp_values)
#define shmem_wait_until_any_vector(ivars, nelems, status, cmp, cmp_values)    \
    _Generic(*(ivars), UVAS_SHMEM_G_P2P(wait_until_any_vector))(ivars, nelems,      \
                                                                 status, cmp, cmp_values)
#define shmem_wait_until_some_vector(ivars, nelems, indices, status, cmp, cmp_values) \
    _Generic(*(ivars), UVAS_SHMEM_G_P2P(wait_until_some_vector))(ivars, nelems,     \
                                                                  indices, status, cmp, \
                                                                  cmp_values)
#define shmem_test(ivar, cmp, cmp_value)                                       \
    _Generic(*(ivar), UVAS_SHMEM_G_P2P(test))(ivar, cmp, cmp_value)
#define shmem_test_all(ivars, nelems, status, cmp, cmp_value)                  \
    _Generic(*(ivars), UVAS_SHMEM_G_P2P(test_all))(ivars, nelems, status, cmp, cmp_value)
#define shmem_test_any(ivars, nelems, status, cmp, cmp_value)                  \
    _Generic(*(ivars), UVAS_SHMEM_G_P2P(test_any))(ivars, nelems, status, cmp, cmp_value)
#define shmem_test_some(ivars, nelems, indices, status, cmp, cmp_value)        \
    _Generic(*(ivars), UVAS_SHMEM_G_P2P(test_some))(ivars, nelems, indices, status, \
                                                     cmp, cmp_value)
#define shmem_test_all_vector(ivars, nelems, status, cmp, cmp_values)          \
    _Generic(*(ivars), UVAS_SHMEM_G_P2P(test_all_vector))(ivars, nelems, status,    \
                                                           cmp, cmp_values)
#define shmem_test_any_vector(ivars, nelems, status, cmp, cmp_values)          \
    _Generic(*(ivars), UVAS_SHMEM_G_P2P(test_any_vector))(ivars, nelems, status,    \
                                                           cmp, cmp_values)
#define shmem_test_some_vector(ivars, nelems, indices, status, cmp, cmp_values) \
    _Generic(*(ivars), UVAS_SHMEM_G_P2P(test_some_vector))(ivars, nelems, indices,  \
                                                            status, cmp, cmp_values)

#define shmem_broadcast(team, dest, source, nelems, PE_root)                   \
    _Generic(*(dest), UVAS_SHMEM_G_RMA(broadcast))(team, dest, source, nelems, PE_root)
#define shmem_collect(team, dest, source, nelems)                              \
    _Generic(*(dest), UVAS_SHMEM_G_RMA(collect))(team, dest, source, nelems)
#define shmem_fcollect(team, dest, source, nelems)                             \
    _Generic(*(dest), UVAS_SHMEM_G_RMA(fcollect))(team, dest, source, nelems)
#define shmem_alltoall(team, dest, source, nelems)                             \
    _Generic(*(dest), UVAS_SHMEM_G_RMA(alltoall))(team, dest, source, nelems)
#define shmem_alltoalls(team, dest, source, dst, sst, nelems)                  \
    _Generic(*(dest), UVAS_SHMEM_G_RMA(alltoalls))(team, dest, source, dst, sst, nelems)
#define shmem_sum_reduce(team, dest, source, nreduce)                          \
    _Generic(*(dest), UVAS_SHMEM_G_ARITH(sum_reduce))(team, dest, source, nreduce)
#define shmem_prod_reduce(team, dest, source, nreduce)                         \
    _Generic(*(dest), UVAS_SHMEM_G_ARITH(prod_reduce))(team, dest, source, nreduce)
#define shmem_min_reduce(team, dest, source, nreduce)                          \
    _Generic(*(dest), UVAS_SHMEM_G_ORDER(min_reduce))(team, dest, source, nreduce)
#define shmem_max_reduce(team, dest, source, nreduce)                          \
    _Generic(*(dest), UVAS_SHMEM_G_ORDER(max_reduce))(team, dest, source, nreduce)
#define shmem_and_reduce(team, dest, source, nreduce)                          \
    _Generic(*(dest), UVAS_SHMEM_G_BIT(and_reduce))(team, dest, source, nreduce)
#define shmem_or_reduce(team, dest, source, nreduce)                           \
    _Generic(*(dest), UVAS_SHMEM_G_BIT(or_reduce))(team, dest, source, nreduce)
#define shmem_xor_reduce(team, dest, source, nreduce)                          \
    _Generic(*(dest), UVAS_SHMEM_G_BIT(xor_reduce))(team, dest, source, nreduce)

/* Deprecated since OpenSHMEM 1.4: wait until *ivar != cmp_value. */
#define shmem_wait(ivar, cmp_value)                                            \
    _Generic(*(ivar), short: shmem_short_wait, int: shmem_int_wait,           \
             long: shmem_long_wait, long long: shmem_longlong_wait)(ivar, cmp_value)

#endif /* SHMEM_GENERIC_C11_H */
