/*
 * Atomic memory operations. The PE layer takes a 4- or 8-byte target and
 * the operand as the value's bits, zero-extended to 64; every type here is
 * one of those widths, so each typed call is one uvas_pe_amo.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "shmem.h"
#include "transport/pe/pe.h"
#include "transport/shmem/error.h"
#include "uvas.h"

static uint64_t to_bits(const void *v, size_t width)
{
    if (width == 4) {
        uint32_t u;
        memcpy(&u, v, 4);
        return u;
    }
    uint64_t u;
    memcpy(&u, v, 8);
    return u;
}

static void from_bits(void *v, size_t width, uint64_t bits)
{
    if (width == 4) {
        uint32_t u = (uint32_t)bits;
        memcpy(v, &u, 4);
    } else {
        memcpy(v, &bits, 8);
    }
}

/* One checked AMO; the fetched bits (0 after a reported error). */
static uint64_t amo(const char *call, enum uvas_amo_op op, const void *target,
                    size_t width, uint64_t operand, uint64_t compare, bool fetch, int pe)
{
    uint64_t fetched = 0;
    int st = uvas_pe_check(call, target, width, pe);
    if (st == UVAS_OK)
        st = uvas_pe_amo(op, (void *)target, width, operand, compare,
                         fetch ? &fetched : NULL, pe);
    if (st != UVAS_OK)
        uvas_shmem_report(call, st);
    return fetched;
}

/* The typed wrappers: W is the width, B(x) a value's bits, R(bits) the
 * typed result. */
#define W(TYPE) sizeof(TYPE)
#define B(x) to_bits(&(x), sizeof(x))
#define R(TYPE, bits_expr)                                                         \
    TYPE r;                                                                        \
    from_bits(&r, sizeof r, bits_expr);                                            \
    return r

#define AMO_FSS(NAME, TYPE)                                                        \
    _Static_assert(sizeof(TYPE) == 4 || sizeof(TYPE) == 8, #TYPE " is 4 or 8 bytes"); \
    TYPE shmem_##NAME##_atomic_fetch(const TYPE *source, int pe)                   \
    {                                                                              \
        R(TYPE, amo(__func__, UVAS_AMO_FETCH, source, W(TYPE), 0, 0, true, pe));   \
    }                                                                              \
    void shmem_##NAME##_atomic_set(TYPE *dest, TYPE value, int pe)                 \
    {                                                                              \
        amo(__func__, UVAS_AMO_SET, dest, W(TYPE), B(value), 0, false, pe);        \
    }                                                                              \
    TYPE shmem_##NAME##_atomic_swap(TYPE *dest, TYPE value, int pe)                \
    {                                                                              \
        R(TYPE, amo(__func__, UVAS_AMO_SWAP, dest, W(TYPE), B(value), 0, true, pe)); \
    }                                                                              \
    void shmem_##NAME##_atomic_fetch_nbi(TYPE *fetch, const TYPE *source, int pe)  \
    {                                                                              \
        uint64_t bits = amo(__func__, UVAS_AMO_FETCH, source, W(TYPE), 0, 0, true, pe); \
        from_bits(fetch, W(TYPE), bits);                                           \
    }                                                                              \
    void shmem_##NAME##_atomic_swap_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe) \
    {                                                                              \
        uint64_t bits = amo(__func__, UVAS_AMO_SWAP, dest, W(TYPE), B(value), 0, true, pe); \
        from_bits(fetch, W(TYPE), bits);                                           \
    }

#define AMO(NAME, TYPE)                                                            \
    AMO_FSS(NAME, TYPE)                                                            \
    TYPE shmem_##NAME##_atomic_compare_swap(TYPE *dest, TYPE cond, TYPE value, int pe) \
    {                                                                              \
        R(TYPE, amo(__func__, UVAS_AMO_CSWAP, dest, W(TYPE), B(value), B(cond), true, pe)); \
    }                                                                              \
    TYPE shmem_##NAME##_atomic_fetch_inc(TYPE *dest, int pe)                       \
    {                                                                              \
        R(TYPE, amo(__func__, UVAS_AMO_ADD, dest, W(TYPE), 1, 0, true, pe));       \
    }                                                                              \
    void shmem_##NAME##_atomic_inc(TYPE *dest, int pe)                             \
    {                                                                              \
        amo(__func__, UVAS_AMO_ADD, dest, W(TYPE), 1, 0, false, pe);               \
    }                                                                              \
    TYPE shmem_##NAME##_atomic_fetch_add(TYPE *dest, TYPE value, int pe)           \
    {                                                                              \
        R(TYPE, amo(__func__, UVAS_AMO_ADD, dest, W(TYPE), B(value), 0, true, pe)); \
    }                                                                              \
    void shmem_##NAME##_atomic_add(TYPE *dest, TYPE value, int pe)                 \
    {                                                                              \
        amo(__func__, UVAS_AMO_ADD, dest, W(TYPE), B(value), 0, false, pe);        \
    }                                                                              \
    void shmem_##NAME##_atomic_compare_swap_nbi(TYPE *fetch, TYPE *dest, TYPE cond, \
                                                TYPE value, int pe)                \
    {                                                                              \
        uint64_t bits = amo(__func__, UVAS_AMO_CSWAP, dest, W(TYPE), B(value), B(cond), \
                            true, pe);                                             \
        from_bits(fetch, W(TYPE), bits);                                           \
    }                                                                              \
    void shmem_##NAME##_atomic_fetch_inc_nbi(TYPE *fetch, TYPE *dest, int pe)      \
    {                                                                              \
        from_bits(fetch, W(TYPE), amo(__func__, UVAS_AMO_ADD, dest, W(TYPE), 1, 0, true, pe)); \
    }                                                                              \
    void shmem_##NAME##_atomic_fetch_add_nbi(TYPE *fetch, TYPE *dest, TYPE value, int pe) \
    {                                                                              \
        uint64_t bits = amo(__func__, UVAS_AMO_ADD, dest, W(TYPE), B(value), 0, true, pe); \
        from_bits(fetch, W(TYPE), bits);                                           \
    }

#define AMO_BIT_OP(NAME, TYPE, OP, UOP)                                            \
    TYPE shmem_##NAME##_atomic_fetch_##OP(TYPE *dest, TYPE value, int pe)          \
    {                                                                              \
        R(TYPE, amo(__func__, UOP, dest, W(TYPE), B(value), 0, true, pe));         \
    }                                                                              \
    void shmem_##NAME##_atomic_##OP(TYPE *dest, TYPE value, int pe)                \
    {                                                                              \
        amo(__func__, UOP, dest, W(TYPE), B(value), 0, false, pe);                 \
    }                                                                              \
    void shmem_##NAME##_atomic_fetch_##OP##_nbi(TYPE *fetch, TYPE *dest, TYPE value, \
                                               int pe)                             \
    {                                                                              \
        from_bits(fetch, W(TYPE), amo(__func__, UOP, dest, W(TYPE), B(value), 0, true, pe)); \
    }
#define AMO_BIT(NAME, TYPE)                                                        \
    AMO_BIT_OP(NAME, TYPE, and, UVAS_AMO_AND)                                      \
    AMO_BIT_OP(NAME, TYPE, or, UVAS_AMO_OR)                                        \
    AMO_BIT_OP(NAME, TYPE, xor, UVAS_AMO_XOR)

/* Pre-1.4 names: the same operations. */
#define AMO_OLD_FSS(NAME, TYPE)                                                    \
    TYPE shmem_##NAME##_fetch(const TYPE *source, int pe)                          \
    {                                                                              \
        return shmem_##NAME##_atomic_fetch(source, pe);                            \
    }                                                                              \
    void shmem_##NAME##_set(TYPE *dest, TYPE value, int pe)                        \
    {                                                                              \
        shmem_##NAME##_atomic_set(dest, value, pe);                                \
    }                                                                              \
    TYPE shmem_##NAME##_swap(TYPE *dest, TYPE value, int pe)                       \
    {                                                                              \
        return shmem_##NAME##_atomic_swap(dest, value, pe);                        \
    }
#define AMO_OLD(NAME, TYPE)                                                        \
    AMO_OLD_FSS(NAME, TYPE)                                                        \
    TYPE shmem_##NAME##_cswap(TYPE *dest, TYPE cond, TYPE value, int pe)           \
    {                                                                              \
        return shmem_##NAME##_atomic_compare_swap(dest, cond, value, pe);          \
    }                                                                              \
    TYPE shmem_##NAME##_finc(TYPE *dest, int pe)                                   \
    {                                                                              \
        return shmem_##NAME##_atomic_fetch_inc(dest, pe);                          \
    }                                                                              \
    void shmem_##NAME##_inc(TYPE *dest, int pe)                                    \
    {                                                                              \
        shmem_##NAME##_atomic_inc(dest, pe);                                       \
    }                                                                              \
    TYPE shmem_##NAME##_fadd(TYPE *dest, TYPE value, int pe)                       \
    {                                                                              \
        return shmem_##NAME##_atomic_fetch_add(dest, value, pe);                   \
    }                                                                              \
    void shmem_##NAME##_add(TYPE *dest, TYPE value, int pe)                        \
    {                                                                              \
        shmem_##NAME##_atomic_add(dest, value, pe);                                \
    }

UVAS_SHMEM_AMO_TYPES(AMO)
UVAS_SHMEM_AMO_EXT_TYPES(AMO_FSS)
UVAS_SHMEM_AMO_BIT_TYPES(AMO_BIT)
UVAS_SHMEM_AMO_OLD_TYPES(AMO_OLD)
UVAS_SHMEM_AMO_EXT_TYPES(AMO_OLD_FSS)
