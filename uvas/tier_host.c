/* The host tier: pages of the range's memfd. */
#include "uvas/tier.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

#include "fault/service.h"
#include "migrate/hostcache.h"
#include "uvas/internal.h"
#include "uvas/status.h"

static int host_populate(size_t bi, uintptr_t hot)
{
    /* The whole block is mapped at once, so its other pages never fault:
     * one fault per block instead of one per page. */
    int e = uvas_fault_zero_block((uintptr_t)uvas_block_addr(bi),
                                  uvas_g.block_size, hot);
    if (e)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot populate block %zu of the host tier: %s",
                         bi, strerror(-e));
    return UVAS_OK;
}

static int host_release(size_t bi, size_t n)
{
    /* Frees the pages and zaps them from every mapping of the memfd, so
     * the next touch faults again and reads zero. Imports pin pages: they
     * go first, or the punched pages would live on in the driver. */
    uvas_hostcache_drop(bi, n);
    if (fallocate(uvas_g.memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                  (off_t)(bi << uvas_g.shift), (off_t)(n << uvas_g.shift)) < 0)
        return uvas_fail(UVAS_ERR_SYS, "cannot release blocks %zu..%zu of the host tier: %s",
                         bi, bi + n, strerror(errno));
    return UVAS_OK;
}

const struct uvas_tier_ops uvas_tier_host = {
    .res = UVAS_RES_HOST,
    .name = "host",
    .populate = host_populate,
    .release = host_release,
};

const struct uvas_tier_ops *uvas_tier_of(int res)
{
    if (res == UVAS_RES_HOST)
        return &uvas_tier_host;
    if (res == UVAS_RES_DEVICE && uvas_devtier_present(&uvas_g.devtier))
        return &uvas_tier_device;
    return NULL;
}
