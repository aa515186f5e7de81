/* The host tier: pages of the range's memfd. */
#include "uvas/tier.h"


#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"

static struct uvas_host_tier_hooks lent;

void uvas_tier_host_lend(const struct uvas_host_tier_hooks *hooks)
{
    lent = hooks ? *hooks : (struct uvas_host_tier_hooks){0};
}

static int host_populate(size_t bi, uintptr_t hot)
{
    /* The whole block is mapped at once, so its other pages never fault:
     * one fault per block instead of one per page. */
    char *a = uvas_block_addr(bi);
    int rc = lent.zero ? lent.zero((uintptr_t)a, uvas_g.block_size, hot)
                       : uvas_uffd_zero(&uvas_g.uffd, a, uvas_g.block_size);
    if (rc)
        return uvas_fail(rc, "cannot populate block %zu of the host tier: %s", bi,
                         uvas_last_error());
    return UVAS_OK;
}

static int host_release(size_t bi, size_t n)
{
    /* Frees the pages and zaps them from every mapping of the memfd, so
     * the next touch faults again and reads zero. Imports pin pages: they
     * go first, or the punched pages would live on in the driver. */
    if (lent.before_release)
        lent.before_release(bi, n);
    int rc = uvas_os_punch(uvas_g.memfd, bi << uvas_g.shift, n << uvas_g.shift);
    if (rc)
        return uvas_fail(rc, "cannot release blocks %zu..%zu: %s", bi, bi + n,
                         uvas_last_error());
    return UVAS_OK;
}

const struct uvas_tier_ops uvas_tier_host = {
    .res = UVAS_RES_HOST,
    .name = "host",
    .populate = host_populate,
    .release = host_release,
};
