/* Per-block cache of imported host pages (see hostcache.h). */
#include "migrate/hostcache.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "uvas/internal.h"
#include "uvas/status.h"

/* At most this many blocks stay imported (pinned): 64 GiB at 2 MiB. */
#define CACHE_CAP 32768

static struct uvas_hostbuf *cache; /* one per block, NORESERVE */
static size_t cache_blocks;
static _Atomic size_t cached;

int uvas_hostcache_init(size_t nblocks)
{
    void *p = mmap(NULL, nblocks * sizeof *cache, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot map the host import table: %s",
                         strerror(errno));
    cache = p;
    cache_blocks = nblocks;
    atomic_store(&cached, 0);
    return UVAS_OK;
}

void uvas_hostcache_fini(void)
{
    if (!cache)
        return;
    uvas_hostcache_drop(0, cache_blocks);
    munmap(cache, cache_blocks * sizeof *cache);
    cache = NULL;
}

static int import_view(void *view, size_t len, struct uvas_hostbuf *out)
{
    return uvas_hostbuf_import(&uvas_g.devtier.dev, view, len, out);
}

int uvas_hostcache_get(size_t bi, VkBuffer *buf, VkDeviceSize *off, struct uvas_hostbuf *tmp)
{
    *tmp = (struct uvas_hostbuf){0};
    *off = 0;
    struct uvas_hostbuf *c = &cache[bi];
    if (c->buf) {
        *buf = c->buf;
        return UVAS_OK;
    }
    if (uvas_g.alias && atomic_load_explicit(&cached, memory_order_relaxed) < CACHE_CAP) {
        int rc = import_view(uvas_g.alias + (bi << uvas_g.shift), uvas_g.block_size, c);
        if (rc)
            return rc;
        atomic_fetch_add_explicit(&cached, 1, memory_order_relaxed);
        *buf = c->buf;
        return UVAS_OK;
    }
    /* Uncached: through the alias, or a view of the block made for this. */
    void *v = uvas_g.alias ? uvas_g.alias + (bi << uvas_g.shift)
                           : mmap(NULL, uvas_g.block_size, PROT_READ | PROT_WRITE,
                                  MAP_SHARED | MAP_POPULATE, uvas_g.memfd,
                                  (off_t)(bi << uvas_g.shift));
    if (v == MAP_FAILED)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot map host pages of block %zu: %s", bi,
                         strerror(errno));
    int rc = import_view(v, uvas_g.block_size, tmp);
    if (!uvas_g.alias) {
        if (rc)
            munmap(v, uvas_g.block_size);
        else
            tmp->view = v, tmp->view_len = uvas_g.block_size;
    }
    *buf = tmp->buf;
    return rc;
}

void uvas_hostcache_put(struct uvas_hostbuf *tmp)
{
    if (!tmp->buf)
        return;
    void *v = tmp->view;
    size_t len = tmp->view_len;
    uvas_hostbuf_release(&uvas_g.devtier.dev, tmp);
    if (v)
        munmap(v, len);
}

void uvas_hostcache_drop(size_t bi, size_t n)
{
    if (!cache)
        return;
    for (size_t i = bi; i < bi + n && i < cache_blocks; i++)
        if (cache[i].buf) {
            uvas_hostbuf_release(&uvas_g.devtier.dev, &cache[i]);
            atomic_fetch_sub_explicit(&cached, 1, memory_order_relaxed);
        }
}

bool uvas_hostcache_punched(size_t bi)
{
    off_t at = (off_t)(bi << uvas_g.shift);
    off_t hole = lseek(uvas_g.memfd, at, SEEK_HOLE);
    return hole >= 0 && hole < at + (off_t)uvas_g.block_size;
}
