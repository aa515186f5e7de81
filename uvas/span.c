/* The range arguments of the API (span.h). */
#include "uvas/span.h"

#include <stdatomic.h>
#include <stdint.h>

#include "uvas/internal.h"
#include "uvas/status.h"

#define RLX memory_order_relaxed
#define ACQ memory_order_acquire

bool uvas_span_alloc(const void *p, char **base, size_t *size)
{
    if (!atomic_load_explicit(&uvas_g.ready, ACQ) || !uvas_in_range(p))
        return false;
    size_t bi = uvas_block_index(p);
    const struct uvas_block *b = &uvas_g.bt[bi];
    uint32_t owner = atomic_load_explicit(&b->owner, ACQ);
    int kind = atomic_load_explicit(&b->kind, RLX);
    if (owner == 0 || owner > uvas_g.nblocks)
        return false;
    if (kind == UVAS_BK_EXTENT) {
        *base = uvas_block_addr(owner - 1);
        *size = atomic_load_explicit(&uvas_g.bt[owner - 1].size, RLX);
    } else if (kind == UVAS_BK_SLAB) {
        const struct uvas_slabs *S = &uvas_g.slabs;
        uint32_t cls = atomic_load_explicit(&b->cls, RLX) % UVAS_SLAB_MAX_CLASSES;
        uint32_t ss = S->class_size[cls];
        if (ss == 0)
            return false;
        uint32_t slot = uvas_slab_slot(S, cls, (size_t)((const char *)p - uvas_block_addr(bi)));
        if ((size_t)(slot + 1) * ss > uvas_g.block_size || !uvas_slab_live(S, bi, slot))
            return false;
        *base = uvas_block_addr(bi) + (size_t)slot * ss;
        *size = atomic_load_explicit(&uvas_slab_sizes(S, bi)[slot], RLX);
    } else {
        return false;
    }
    return (const char *)p < *base + *size;
}

int uvas_span_check(const void *ptr, size_t len, const char *fn, struct uvas_ptr_info *info)
{
    if (!atomic_load(&uvas_g.ready))
        return uvas_fail(UVAS_ERR_NOT_INIT, "%s: call uvas_init first", fn);
    if (len == 0)
        return uvas_fail(UVAS_ERR_INVAL, "%s(%p, 0): len 0 covers nothing", fn, ptr);
    if (uvas_query(ptr, info) != UVAS_OK)
        return uvas_fail(UVAS_ERR_NOT_OWNED, "%s(%p): pointer is in no live uvas allocation",
                         fn, ptr);
    size_t off = (size_t)((uintptr_t)ptr - (uintptr_t)info->alloc_base);
    if (len > info->alloc_size - off)
        return uvas_fail(UVAS_ERR_INVAL, "%s(%p, %zu): the range runs %zu bytes past the end "
                         "of its allocation (%p, %zu bytes); a range must lie inside one live "
                         "allocation", fn, ptr, len, len - (info->alloc_size - off),
                         info->alloc_base, info->alloc_size);
    return UVAS_OK;
}
