/* Per-block cache of imported host pages (see import_cache.h). */
#include "migrate/import_cache.h"

#include <string.h>

#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"

/* At most this many blocks stay imported (pinned): 64 GiB at 2 MiB. */
#define CACHE_CAP 32768

static struct uvas_import *cache; /* one per block, NORESERVE */
static size_t cache_blocks;
static _Atomic size_t cached;
/* The blocks ever kept lie in [kept_lo, kept_hi): the finalize walks only
 * those. Walking every block (and clearing each one's refill mark) faulted
 * in the whole table and the block table behind it: 18 s and gigabytes at
 * the end of a 64 TiB range (test-env-size's 64T case, under load, past
 * its 20 s). */
static _Atomic size_t kept_lo, kept_hi;

static void widen_kept(size_t bi)
{
    size_t v = atomic_load_explicit(&kept_lo, memory_order_relaxed);
    while (bi < v && !atomic_compare_exchange_weak_explicit(&kept_lo, &v, bi, memory_order_relaxed,
                                                            memory_order_relaxed))
        ;
    v = atomic_load_explicit(&kept_hi, memory_order_relaxed);
    while (bi + 1 > v &&
           !atomic_compare_exchange_weak_explicit(&kept_hi, &v, bi + 1, memory_order_relaxed,
                                                  memory_order_relaxed))
        ;
}

int uvas_import_cache_init(size_t nblocks)
{
    void *p;
    int rc = uvas_os_table(nblocks * sizeof *cache, "the host import table", &p);
    if (rc)
        return rc;
    cache = p;
    cache_blocks = nblocks;
    atomic_store(&cached, 0);
    atomic_store(&kept_lo, SIZE_MAX);
    atomic_store(&kept_hi, 0);
    return UVAS_OK;
}

void uvas_import_cache_fini(void)
{
    if (!cache)
        return;
    size_t lo = atomic_load(&kept_lo), hi = atomic_load(&kept_hi);
    for (size_t i = lo; i < hi && atomic_load_explicit(&cached, memory_order_relaxed); i++)
        if (cache[i].buf) {
            uvas_import_release(&uvas_g.devtier.dev, &cache[i]);
            atomic_fetch_sub_explicit(&cached, 1, memory_order_relaxed);
        }
    uvas_os_table_free(cache, cache_blocks * sizeof *cache);
    cache = NULL;
}

static int import_view(void *view, size_t len, struct uvas_import *out)
{
    return uvas_import_host(&uvas_g.devtier.dev, view, len, out);
}

/* Block bi's import made and kept in *rc's status, if the cache has room
 * and there is an alias to import through; false (nothing tried) if not. */
static bool keep(size_t bi, int *rc)
{
    if (!uvas_g.alias || atomic_load_explicit(&cached, memory_order_relaxed) >= CACHE_CAP)
        return false;
    *rc = import_view(uvas_g.alias + (bi << uvas_g.shift), uvas_g.block_size, &cache[bi]);
    if (*rc == UVAS_OK) {
        widen_kept(bi);
        atomic_fetch_add_explicit(&cached, 1, memory_order_relaxed);
    }
    return true;
}

int uvas_import_cache_get(size_t bi, VkBuffer *buf, VkDeviceSize *off, struct uvas_import *tmp)
{
    *tmp = (struct uvas_import){0};
    *off = 0;
    struct uvas_import *c = &cache[bi];
    if (c->buf) {
        *buf = c->buf;
        return UVAS_OK;
    }
    int rc;
    if (keep(bi, &rc)) {
        *buf = c->buf;
        return rc;
    }
    /* Uncached: through the alias, or a view of the block made for this. */
    void *v = uvas_g.alias ? uvas_g.alias + (bi << uvas_g.shift) : NULL;
    if (!v && uvas_os_map(uvas_g.memfd, bi << uvas_g.shift, uvas_g.block_size,
                          UVAS_OS_RW | UVAS_OS_POPULATE | UVAS_OS_NORESERVE | UVAS_OS_NOFORK,
                          NULL, &v))
        return uvas_fail(UVAS_ERR_NOMEM, "cannot map host pages of block %zu: %s", bi,
                         uvas_last_error());
    rc = import_view(v, uvas_g.block_size, tmp);
    if (!uvas_g.alias) {
        if (rc)
            uvas_os_unmap(v, uvas_g.block_size);
        else
            tmp->view = v, tmp->view_len = uvas_g.block_size;
    }
    *buf = tmp->buf;
    return rc;
}

bool uvas_import_cache_has(size_t bi)
{
    return cache && bi < cache_blocks && cache[bi].buf;
}

int uvas_import_cache_pin(size_t bi)
{
    if (!cache || bi >= cache_blocks || cache[bi].buf)
        return UVAS_OK;
    int rc = UVAS_OK;
    (void)keep(bi, &rc);
    return rc;
}

void uvas_import_cache_put(struct uvas_import *tmp)
{
    if (!tmp->buf)
        return;
    void *v = tmp->view;
    size_t len = tmp->view_len;
    uvas_import_release(&uvas_g.devtier.dev, tmp);
    uvas_os_unmap(v, len);
}

void uvas_import_cache_drop(size_t bi, size_t n)
{
    if (!cache)
        return;
    for (size_t i = bi; i < bi + n && i < cache_blocks; i++) {
        atomic_store_explicit(&uvas_g.bt[i].refilled, 0, memory_order_relaxed);
        if (cache[i].buf) {
            uvas_import_release(&uvas_g.devtier.dev, &cache[i]);
            atomic_fetch_sub_explicit(&cached, 1, memory_order_relaxed);
        }
    }
}

/* Does the driver pin imported pages? A CPU implementation (lavapipe)
 * copies through the pointer, so it always sees the memfd's pages. */
static bool imports_pin(void)
{
    return uvas_g.devtier.dev.type != VK_PHYSICAL_DEVICE_TYPE_CPU;
}

/* The cached blocks of [first, first+n) whose memfd pages are not all
 * there: one mincore(2) over the alias per run of cached blocks. The
 * driver faulted the alias's page tables in when it pinned the pages, and
 * only a punch of the memfd zaps them again (uvas's own unmapping works on
 * the range, not the alias); for a zapped entry mincore reads the page
 * cache, which has a hole where the punch was. */
static void find_holes(size_t first, size_t n, bool *punched)
{
    const size_t page = UVAS_PAGE, bpp = uvas_g.block_size / page;
    unsigned char vec[4096]; /* mincore results, one per page */
    const size_t per_call = sizeof vec / bpp ? sizeof vec / bpp : 1;
    for (size_t i = 0; i < n;) {
        if (!cache[first + i].buf) {
            i++;
            continue;
        }
        size_t k = i + 1;
        while (k < n && k - i < per_call && cache[first + k].buf)
            k++;
        char *a = uvas_g.alias + ((first + i) << uvas_g.shift);
        size_t len = (k - i) << uvas_g.shift;
        if (uvas_os_resident(a, len, vec)) { /* cannot tell: take them as punched */
            for (size_t x = i; x < k; x++)
                punched[x] = true;
        } else {
            for (size_t x = i; x < k; x++)
                for (size_t p = 0; p < bpp && !punched[x]; p++)
                    punched[x] = !(vec[(x - i) * bpp + p] & 1);
        }
        i = k;
    }
}

void uvas_import_cache_revalidate(size_t first, size_t n, bool *punched)
{
    for (size_t i = 0; i < n; i++)
        punched[i] = false;
    if (!cache || !imports_pin() || !uvas_g.alias)
        return;
    find_holes(first, n, punched);
    for (size_t i = 0; i < n; i++) {
        struct uvas_block *b = &uvas_g.bt[first + i];
        bool refilled = atomic_exchange_explicit(&b->refilled, 0, memory_order_relaxed);
        if (punched[i] || refilled)
            uvas_import_cache_drop(first + i, 1);
    }
}

int uvas_import_cache_address(size_t bi, VkDeviceAddress *addr)
{
    bool punched;
    uvas_import_cache_revalidate(bi, 1, &punched);
    struct uvas_import *c = &cache[bi];
    if (!c->buf) {
        if (!uvas_g.alias || atomic_load_explicit(&cached, memory_order_relaxed) >= CACHE_CAP)
            return uvas_fail(UVAS_ERR_NOMEM, "block %zu: kernels reach host memory through "
                             "imports kept per block, and %s", bi,
                             uvas_g.alias ? "the import cache is full (CACHE_CAP blocks)"
                                          : "this process has no alias of the host tier");
        int rc = import_view(uvas_g.alias + (bi << uvas_g.shift), uvas_g.block_size, c);
        if (rc)
            return rc;
        widen_kept(bi);
        atomic_fetch_add_explicit(&cached, 1, memory_order_relaxed);
    }
    *addr = c->addr;
    return c->addr ? UVAS_OK
                   : uvas_fail(UVAS_ERR_NO_DEVICE, "block %zu: its host import has no device "
                               "address", bi);
}
