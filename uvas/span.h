/*
 * The range arguments of the API ([ptr, ptr+len) of uvas_migrate,
 * uvas_advise, uvas_device_access): they must lie inside one live
 * allocation, not merely inside the range, or a length would reach free
 * blocks or a neighbour's memory.
 */
#ifndef UVAS_SPAN_H
#define UVAS_SPAN_H

#include <stdbool.h>
#include <stddef.h>

#include "uvas.h"
#include "uvas/internal.h"

/* Status: UVAS_ERR_NOT_INIT, UVAS_ERR_INVAL (len 0, or past the end of the
 * allocation), UVAS_ERR_NOT_OWNED (ptr in no live allocation), each with a
 * message naming fn; on success *info describes ptr's allocation. */
int uvas_span_check(const void *ptr, size_t len, const char *fn, struct uvas_ptr_info *info);

/* The live allocation holding p, as [*base, *base + *size): false when
 * there is none. For a running range only (the caller knows uvas_g.ready).
 * No message and no lock, for the paths that ask on every operation (a
 * put's symmetric check); racing a free, it answers for either side. */
static inline bool uvas_span_alloc(const void *p, char **base, size_t *size)
{
    if (!uvas_in_range(p))
        return false;
    size_t bi = uvas_block_index(p);
    const struct uvas_block *b = &uvas_g.bt[bi];
    uint32_t owner = atomic_load_explicit(&b->owner, memory_order_acquire);
    int kind = atomic_load_explicit(&b->kind, memory_order_relaxed);
    if (owner == 0 || owner > uvas_g.nblocks)
        return false;
    if (kind == UVAS_BK_EXTENT) {
        *base = uvas_block_addr(owner - 1);
        *size = atomic_load_explicit(&uvas_g.bt[owner - 1].size, memory_order_relaxed);
    } else if (kind == UVAS_BK_SLAB) {
        const struct uvas_slabs *S = &uvas_g.slabs;
        uint32_t cls = atomic_load_explicit(&b->cls, memory_order_relaxed) % UVAS_SLAB_MAX_CLASSES;
        uint32_t ss = S->class_size[cls];
        if (ss == 0)
            return false;
        uint32_t slot = uvas_slab_slot(S, cls, (size_t)((const char *)p - uvas_block_addr(bi)));
        if ((size_t)(slot + 1) * ss > uvas_g.block_size || !uvas_slab_live(S, bi, slot))
            return false;
        *base = uvas_block_addr(bi) + (size_t)slot * ss;
        *size = atomic_load_explicit(&uvas_slab_sizes(S, bi)[slot], memory_order_relaxed);
    } else {
        return false;
    }
    return (const char *)p < *base + *size;
}

/* A thread's last span found live, valid while no allocation has been
 * freed or resized since (uvas_spans_epoch): an operation on the same
 * object as the last one (a put loop) checks its bounds without the block
 * table and slab bitmap walk of uvas_span_alloc. */
struct uvas_span_memo {
    const char *base;
    size_t size;
    uint64_t epoch;
};
extern _Atomic uint64_t uvas_spans_epoch; /* never 0, never reset */
extern __thread struct uvas_span_memo uvas_span_memo __attribute__((tls_model("initial-exec")));

/* Any allocation freed or resized: every thread's memo is stale. */
static inline void uvas_span_changed(void)
{
    atomic_fetch_add_explicit(&uvas_spans_epoch, 1, memory_order_release);
}

/* Does one live allocation hold all of [p, p + len)? As uvas_span_alloc
 * with the bound check, remembered for the next call on this thread. */
static inline bool uvas_span_covers(const void *p, size_t len)
{
    /* The memo by value, never through a pointer: GCC 12 with
     * -fsanitize=null miscompiles the null check of a pointer to a TLS
     * variable (a flag test left out: a branch on stale flags). */
    struct uvas_span_memo m = uvas_span_memo;
    uint64_t e = atomic_load_explicit(&uvas_spans_epoch, memory_order_acquire);
    const char *a = p;
    if (m.epoch == e && a >= m.base && (size_t)(a - m.base) < m.size &&
        len <= m.size - (size_t)(a - m.base))
        return true;
    char *base;
    size_t size;
    if (!uvas_span_alloc(p, &base, &size) || len > size - (size_t)(a - base))
        return false;
    uvas_span_memo = (struct uvas_span_memo){base, size, e};
    return true;
}

#endif
