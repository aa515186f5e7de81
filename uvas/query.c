/*
 * Residency queries: lock-free reads of the block table and the slab
 * metadata. Both stay mapped while the range lives, so a query racing a
 * free may answer for either side of it but never faults. uvas_query is
 * not counted in (uvas_api_enter: one shared counter for every thread),
 * so a finalize does not wait for it; the range queries are.
 */
#include <string.h>

#include "uvas/atomics.h"
#include "uvas/internal.h"
#include "uvas/span.h"
#include "uvas/status.h"

const char *uvas_residence_name(int r)
{
    switch (r) {
    case UVAS_RES_UNPOPULATED: return "unpopulated";
    case UVAS_RES_HOST: return "host";
    case UVAS_RES_DEVICE: return "device";
    default: return "invalid";
    }
}

static int not_owned(const void *p)
{
    if (!atomic_load_explicit(&uvas_g.ready, RLX))
        return uvas_fail(UVAS_ERR_NOT_OWNED, "uvas_query(%p): uvas is not initialised", p);
    return uvas_fail(UVAS_ERR_NOT_OWNED, "uvas_query(%p): pointer is in no live uvas "
                     "allocation", p);
}

int uvas_query(const void *p, struct uvas_ptr_info *info)
{
    uvas_clear_error();
    if (!info)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_query: info is NULL");
    char *base;
    size_t size;
    if (!atomic_load_explicit(&uvas_g.ready, ACQ) || !uvas_span_alloc(p, &base, &size))
        return not_owned(p);
    size_t bi = uvas_block_index(p);
    const struct uvas_block *b = &uvas_g.bt[bi];
    uint32_t owner = atomic_load_explicit(&b->owner, RLX);
    if (owner == 0 || owner > uvas_g.nblocks) /* freed since */
        return not_owned(p);
    const struct uvas_block *h = &uvas_g.bt[owner - 1];
    info->residence = uvas_blk_res(atomic_load_explicit(&b->state, ACQ));
    info->block_size = uvas_g.block_size;
    info->block_base = uvas_block_addr(bi);
    info->alloc_base = base;
    info->alloc_size = size;
    info->alloc_hints = atomic_load_explicit(&h->hints, RLX);
    info->duplicated = info->residence == UVAS_RES_DEVICE && atomic_load_explicit(&b->dup, RLX);
    info->cpu_mapped = info->residence == UVAS_RES_DEVICE &&
                       atomic_load_explicit(&b->cpu_mapped, RLX);
    return UVAS_OK;
}

static int range_blocks(const void *p, size_t len, size_t *first, size_t *n, const char *fn)
{
    if (!atomic_load_explicit(&uvas_g.ready, ACQ))
        return uvas_fail(UVAS_ERR_NOT_INIT, "%s: call uvas_init first", fn);
    if (len == 0)
        return uvas_fail(UVAS_ERR_INVAL, "%s: len 0 covers no block", fn);
    if (!uvas_in_range(p) || len > uvas_g.size ||
        (size_t)((const char *)p - uvas_g.base) + len > uvas_g.size)
        return uvas_fail(UVAS_ERR_NOT_OWNED, "%s(%p, %zu): the bytes are not all inside the "
                         "uvas range [%p, %p)", fn, p, len, (void *)uvas_g.base,
                         (void *)(uvas_g.base + uvas_g.size));
    *first = uvas_block_index(p);
    *n = uvas_block_index((const char *)p + len - 1) - *first + 1;
    return UVAS_OK;
}

static int query_range_entered(const void *p, size_t len, struct uvas_range_info *info)
{
    uvas_clear_error();
    if (!info)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_query_range: info is NULL");
    size_t first, n;
    int rc = range_blocks(p, len, &first, &n, "uvas_query_range");
    if (rc)
        return rc;
    memset(info, 0, sizeof *info);
    info->block_size = uvas_g.block_size;
    for (size_t i = first; i < first + n; i++)
        info->blocks[uvas_blk_res(atomic_load_explicit(&uvas_g.bt[i].state, RLX))]++;
    return UVAS_OK;
}

int uvas_query_range(const void *p, size_t len, struct uvas_range_info *info)
{
    int entered = uvas_api_enter("uvas_query_range");
    if (entered)
        return entered;
    int rc = query_range_entered(p, len, info);
    uvas_api_leave();
    return rc;
}

/* Counted in (uvas_api_enter) like uvas_query_range: its loop over the
 * block table is long enough for a uvas_finalize on another thread to
 * release the table under it (SIGSEGV, found by review). */
static int residency_map_entered(const void *p, size_t len, uint8_t *map, size_t cap,
                                 size_t *nblocks)
{
    uvas_clear_error();
    size_t first, n;
    int rc = range_blocks(p, len, &first, &n, "uvas_residency_map");
    if (rc)
        return rc;
    if (nblocks)
        *nblocks = n;
    if (!map || cap < n)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_residency_map: the range has %zu blocks but "
                         "the map holds %zu", n, map ? cap : 0);
    for (size_t i = 0; i < n; i++)
        map[i] = (uint8_t)uvas_blk_res(atomic_load_explicit(&uvas_g.bt[first + i].state, RLX));
    return UVAS_OK;
}

int uvas_residency_map(const void *p, size_t len, uint8_t *map, size_t cap, size_t *nblocks)
{
    int entered = uvas_api_enter("uvas_residency_map");
    if (entered)
        return entered;
    int rc = residency_map_entered(p, len, map, cap, nblocks);
    uvas_api_leave();
    return rc;
}

static int residency_print_entered(FILE *out, const void *p, size_t len)
{
    uvas_clear_error();
    if (!out)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_residency_print: out is NULL (give a FILE *, "
                         "e.g. stdout)");
    size_t first, n;
    int rc = range_blocks(p, len, &first, &n, "uvas_residency_print");
    if (rc)
        return rc;
    static const char glyph[UVAS_RES_COUNT] = {'.', 'H', 'D'};
    const size_t per_line = 64;
    for (size_t i = 0; i < n; i++) {
        if (i % per_line == 0)
            fprintf(out, "%s%p ", i ? "\n" : "", (void *)uvas_block_addr(first + i));
        fputc(glyph[uvas_blk_res(atomic_load_explicit(&uvas_g.bt[first + i].state, RLX))], out);
    }
    fputc('\n', out);
    return UVAS_OK;
}

int uvas_residency_print(FILE *out, const void *p, size_t len)
{
    int entered = uvas_api_enter("uvas_residency_print");
    if (entered)
        return entered;
    int rc = residency_print_entered(out, p, len);
    uvas_api_leave();
    return rc;
}
