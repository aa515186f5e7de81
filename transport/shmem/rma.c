/*
 * One-sided puts and gets. Each call checks its symmetric side (address
 * inside a live allocation, PE of the job) before handing the bytes to the
 * PE layer, which picks the path by where the target block lives.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "shmem.h"
#include "transport/pe/pe.h"
#include "transport/shmem/error.h"
#include "transport/shmem/internal.h"
#include "uvas.h"

static void put_bytes(const char *call, void *dest, const void *src, size_t n, int pe,
                      bool nbi)
{
    if (n == 0 || uvas_pe_put_quick(dest, src, n, pe))
        return;
    int st = uvas_pe_check(call, dest, n, pe);
    if (st == UVAS_OK)
        st = uvas_pe_put(dest, src, n, pe, nbi);
    if (st != UVAS_OK)
        uvas_shmem_report(call, st);
}

static void get_bytes(const char *call, void *dest, const void *src, size_t n, int pe,
                      bool nbi)
{
    if (n == 0)
        return;
    int st = uvas_pe_check(call, src, n, pe);
    if (st == UVAS_OK)
        st = uvas_pe_get(dest, src, n, pe, nbi);
    if (st != UVAS_OK)
        uvas_shmem_report(call, st);
}

static void put_elems(const char *call, void *dest, const void *src, size_t nelems,
                      size_t elem, int pe, bool nbi)
{
    size_t n;
    if (uvas_shmem_bytes(call, nelems, elem, &n))
        put_bytes(call, dest, src, n, pe, nbi);
}

static void get_elems(const char *call, void *dest, const void *src, size_t nelems,
                      size_t elem, int pe, bool nbi)
{
    size_t n;
    if (uvas_shmem_bytes(call, nelems, elem, &n))
        get_bytes(call, dest, src, n, pe, nbi);
}

/* ---- strided ------------------------------------------------------------- */

/* The bytes that nelems elements at stride (in elements) from base cover,
 * as [*lo, *lo + *len) relative to base. */
static bool stride_span(const char *call, size_t nelems, ptrdiff_t stride, size_t elem,
                        ptrdiff_t *lo, size_t *len)
{
    ptrdiff_t step, last;
    if (nelems > PTRDIFF_MAX || __builtin_mul_overflow(stride, (ptrdiff_t)elem, &step) ||
        __builtin_mul_overflow((ptrdiff_t)(nelems - 1), step, &last)) {
        uvas_shmem_fail(call, UVAS_ERR_INVAL, "%zu elements at stride %td overflow the "
                        "address space", nelems, stride);
        return false;
    }
    *lo = last < 0 ? last : 0;
    *len = (size_t)(last < 0 ? -last : last) + elem;
    return true;
}

/* iput/iget: the symmetric side is checked as one span; then one element
 * at a time, except when both sides are contiguous. */
static void strided(const char *call, bool put, char *dest, const char *src,
                    ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t elem, int pe)
{
    if (nelems == 0)
        return;
    const char *sym = put ? dest : src;
    ptrdiff_t lo, local_lo;
    size_t len, local_len;
    if (!stride_span(call, nelems, put ? dst : sst, elem, &lo, &len) ||
        !stride_span(call, nelems, put ? sst : dst, elem, &local_lo, &local_len))
        return;
    int st = uvas_pe_check(call, sym + lo, len, pe);
    if (st == UVAS_OK && dst == 1 && sst == 1) {
        st = put ? uvas_pe_put(dest, src, nelems * elem, pe, false)
                 : uvas_pe_get(dest, src, nelems * elem, pe, false);
    } else {
        for (size_t i = 0; st == UVAS_OK && i < nelems; i++) {
            char *d = dest + (ptrdiff_t)i * dst * (ptrdiff_t)elem;
            const char *s = src + (ptrdiff_t)i * sst * (ptrdiff_t)elem;
            st = put ? uvas_pe_put(d, s, elem, pe, false) : uvas_pe_get(d, s, elem, pe, false);
        }
    }
    if (st != UVAS_OK)
        uvas_shmem_report(call, st);
}

/* ---- put with signal ------------------------------------------------------- */

static void put_signal(const char *call, void *dest, const void *src, size_t nelems,
                       size_t elem, uint64_t *sig_addr, uint64_t signal, int sig_op,
                       int pe, bool nbi)
{
    enum uvas_amo_op op;
    if (sig_op == SHMEM_SIGNAL_SET)
        op = UVAS_AMO_SET;
    else if (sig_op == SHMEM_SIGNAL_ADD)
        op = UVAS_AMO_ADD;
    else {
        uvas_shmem_fail(call, UVAS_ERR_INVAL, "sig_op %d is not SHMEM_SIGNAL_SET or "
                        "SHMEM_SIGNAL_ADD", sig_op);
        return;
    }
    size_t n;
    if (!uvas_shmem_bytes(call, nelems, elem, &n))
        return;
    /* Refused before the data goes: a misaligned signal word failed only
     * after the data had landed (found by review). */
    if ((uintptr_t)sig_addr & (sizeof *sig_addr - 1)) {
        uvas_shmem_fail(call, UVAS_ERR_INVAL, "sig_addr %p is not 8-byte aligned",
                        (void *)sig_addr);
        return;
    }
    int st = uvas_pe_check(call, sig_addr, sizeof *sig_addr, pe);
    if (st == UVAS_OK && n)
        st = uvas_pe_check(call, dest, n, pe);
    if (st == UVAS_OK && n)
        st = uvas_pe_put(dest, src, n, pe, nbi);
    /* The signal must not overtake the data it announces. */
    if (st == UVAS_OK)
        st = uvas_pe_fence();
    if (st == UVAS_OK)
        st = uvas_pe_amo(op, sig_addr, sizeof *sig_addr, signal, 0, NULL, pe);
    if (st != UVAS_OK)
        uvas_shmem_report(call, st);
}

uint64_t shmem_signal_fetch(const uint64_t *sig_addr)
{
    uint64_t v = 0;
    int me = uvas_pe_me();
    int st = uvas_pe_check(__func__, sig_addr, sizeof *sig_addr, me);
    /* Through the PE layer, so the read is atomic with respect to signals
     * arriving by any path, wherever the block lives. */
    if (st == UVAS_OK)
        st = uvas_pe_amo(UVAS_AMO_FETCH, (void *)sig_addr, sizeof *sig_addr, 0, 0, &v, me);
    if (st != UVAS_OK)
        uvas_shmem_report(__func__, st);
    return v;
}

/* ---- the families ------------------------------------------------------------ */

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    put_bytes(__func__, dest, source, nelems, pe, false);
}

void shmem_getmem(void *dest, const void *source, size_t nelems, int pe)
{
    get_bytes(__func__, dest, source, nelems, pe, false);
}

void shmem_putmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    put_bytes(__func__, dest, source, nelems, pe, true);
}

void shmem_getmem_nbi(void *dest, const void *source, size_t nelems, int pe)
{
    get_bytes(__func__, dest, source, nelems, pe, true);
}

void shmem_putmem_signal(void *dest, const void *source, size_t nelems,
                         uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    put_signal(__func__, dest, source, nelems, 1, sig_addr, signal, sig_op, pe, false);
}

void shmem_putmem_signal_nbi(void *dest, const void *source, size_t nelems,
                             uint64_t *sig_addr, uint64_t signal, int sig_op, int pe)
{
    put_signal(__func__, dest, source, nelems, 1, sig_addr, signal, sig_op, pe, true);
}

#define RMA(NAME, TYPE)                                                                \
    void shmem_##NAME##_put(TYPE *dest, const TYPE *source, size_t nelems, int pe)     \
    {                                                                                  \
        put_elems(__func__, dest, source, nelems, sizeof(TYPE), pe, false);            \
    }                                                                                  \
    void shmem_##NAME##_get(TYPE *dest, const TYPE *source, size_t nelems, int pe)     \
    {                                                                                  \
        get_elems(__func__, dest, source, nelems, sizeof(TYPE), pe, false);            \
    }                                                                                  \
    void shmem_##NAME##_put_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe) \
    {                                                                                  \
        put_elems(__func__, dest, source, nelems, sizeof(TYPE), pe, true);             \
    }                                                                                  \
    void shmem_##NAME##_get_nbi(TYPE *dest, const TYPE *source, size_t nelems, int pe) \
    {                                                                                  \
        get_elems(__func__, dest, source, nelems, sizeof(TYPE), pe, true);             \
    }                                                                                  \
    void shmem_##NAME##_p(TYPE *dest, TYPE value, int pe)                              \
    {                                                                                  \
        put_bytes(__func__, dest, &value, sizeof value, pe, false);                    \
    }                                                                                  \
    TYPE shmem_##NAME##_g(const TYPE *source, int pe)                                  \
    {                                                                                  \
        TYPE value = 0;                                                                \
        get_bytes(__func__, &value, source, sizeof value, pe, false);                  \
        return value;                                                                  \
    }                                                                                  \
    void shmem_##NAME##_iput(TYPE *dest, const TYPE *source, ptrdiff_t dst,            \
                             ptrdiff_t sst, size_t nelems, int pe)                     \
    {                                                                                  \
        strided(__func__, true, (char *)dest, (const char *)source, dst, sst, nelems,  \
                sizeof(TYPE), pe);                                                     \
    }                                                                                  \
    void shmem_##NAME##_iget(TYPE *dest, const TYPE *source, ptrdiff_t dst,            \
                             ptrdiff_t sst, size_t nelems, int pe)                     \
    {                                                                                  \
        strided(__func__, false, (char *)dest, (const char *)source, dst, sst, nelems, \
                sizeof(TYPE), pe);                                                     \
    }                                                                                  \
    void shmem_##NAME##_put_signal(TYPE *dest, const TYPE *source, size_t nelems,      \
                                   uint64_t *sig_addr, uint64_t signal, int sig_op,    \
                                   int pe)                                             \
    {                                                                                  \
        put_signal(__func__, dest, source, nelems, sizeof(TYPE), sig_addr, signal,     \
                   sig_op, pe, false);                                                 \
    }                                                                                  \
    void shmem_##NAME##_put_signal_nbi(TYPE *dest, const TYPE *source, size_t nelems,  \
                                       uint64_t *sig_addr, uint64_t signal,            \
                                       int sig_op, int pe)                             \
    {                                                                                  \
        put_signal(__func__, dest, source, nelems, sizeof(TYPE), sig_addr, signal,     \
                   sig_op, pe, true);                                                  \
    }
UVAS_SHMEM_RMA_TYPES(RMA)

#define SIZED(BITS, BYTES)                                                             \
    void shmem_put##BITS(void *dest, const void *source, size_t nelems, int pe)        \
    {                                                                                  \
        put_elems(__func__, dest, source, nelems, BYTES, pe, false);                   \
    }                                                                                  \
    void shmem_get##BITS(void *dest, const void *source, size_t nelems, int pe)        \
    {                                                                                  \
        get_elems(__func__, dest, source, nelems, BYTES, pe, false);                   \
    }                                                                                  \
    void shmem_put##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)  \
    {                                                                                  \
        put_elems(__func__, dest, source, nelems, BYTES, pe, true);                    \
    }                                                                                  \
    void shmem_get##BITS##_nbi(void *dest, const void *source, size_t nelems, int pe)  \
    {                                                                                  \
        get_elems(__func__, dest, source, nelems, BYTES, pe, true);                    \
    }                                                                                  \
    void shmem_iput##BITS(void *dest, const void *source, ptrdiff_t dst,               \
                          ptrdiff_t sst, size_t nelems, int pe)                        \
    {                                                                                  \
        strided(__func__, true, dest, source, dst, sst, nelems, BYTES, pe);            \
    }                                                                                  \
    void shmem_iget##BITS(void *dest, const void *source, ptrdiff_t dst,               \
                          ptrdiff_t sst, size_t nelems, int pe)                        \
    {                                                                                  \
        strided(__func__, false, dest, source, dst, sst, nelems, BYTES, pe);           \
    }                                                                                  \
    void shmem_put##BITS##_signal(void *dest, const void *source, size_t nelems,       \
                                  uint64_t *sig_addr, uint64_t signal, int sig_op,     \
                                  int pe)                                              \
    {                                                                                  \
        put_signal(__func__, dest, source, nelems, BYTES, sig_addr, signal, sig_op,    \
                   pe, false);                                                         \
    }                                                                                  \
    void shmem_put##BITS##_signal_nbi(void *dest, const void *source, size_t nelems,   \
                                      uint64_t *sig_addr, uint64_t signal,             \
                                      int sig_op, int pe)                              \
    {                                                                                  \
        put_signal(__func__, dest, source, nelems, BYTES, sig_addr, signal, sig_op,    \
                   pe, true);                                                          \
    }
UVAS_SHMEM_SIZES(SIZED)
