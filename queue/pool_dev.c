/*
 * Sharing a device pool with another process of the node (uvas_queue.h,
 * docs/queues.md). A device pool's blocks live in the device tier's slabs,
 * each exported as a descriptor; the blocks of one allocation need not be
 * contiguous there, and the slabs grow after the pool is exported. So the
 * pool's descriptor is one end of a socket pair whose other end the
 * exporter keeps: uvas_pool_export_pointer fixes the allocation's blocks in
 * their slots (migrate/shared.h) and sends down every such socket the slabs
 * that importer lacks (SCM_RIGHTS) and a record naming the blocks; the
 * importer reads them when it imports that pointer, imports the slabs
 * into its own device and gives an allocation of its own range those
 * blocks: an ordinary uvas pointer there, device-resident, for kernels
 * and copies.
 */
#include <stdlib.h>
#include <unistd.h>

#include "queue/pool_dev.h"
#include "uvas/status.h"

struct uvas_pool_share *uvas_pool_dev_share(struct uvas_pool *p)
{
    if (!p->share)
        p->share = calloc(1, sizeof *p->share);
    p->drop_share = uvas_pool_dev_drop;
    return p->share;
}

/* ---- both sides: the end ------------------------------------------------------ */

void uvas_pool_dev_drop(struct uvas_pool *p, bool range_gone)
{
    struct uvas_pool_share *s = p->share;
    if (!s)
        return;
    /* The range's blocks and the device tier's imports are let go only
     * while they are there: a uvas_finalize before (or racing) this took
     * them already. */
    bool entered = !range_gone && uvas_shared_enter("uvas_pool_destroy") == UVAS_OK;
    while (s->chans) {
        struct pd_chan *c = s->chans;
        s->chans = c->next;
        close(c->fd);
        free(c->sent);
        free(c);
    }
    struct imported *im = p->imports;
    p->imports = NULL;
    while (im) {
        struct imported *n = im->next;
        if (entered && uvas_shared_release(im->base)) /* the blocks let go of their slots */
            uvas_warn("uvas_pool_destroy: %s", uvas_last_error());
        free(im);
        im = n;
    }
    /* With the range went the device tier and what it imported. */
    for (uint32_t i = 0; i < s->nslab_id && entered; i++)
        if (s->slab_id[i])
            uvas_shared_unimport(s->slab_id[i] - 1);
    free(s->slab_id);
    s->slab_id = NULL;
    s->nslab_id = 0;
    while (s->pending) {
        struct pd_rec *r = s->pending;
        s->pending = r->next;
        free(r->b);
        free(r);
    }
    s->pending_bytes = 0;
    p->use.used = p->use.reserved = 0;
    if (entered)
        uvas_shared_leave();
    if (range_gone && p->fd >= 0) { /* still an imported pool, of nothing now */
        s->gone = true;
        return;
    }
    free(s);
    p->share = NULL;
    if (p->fd >= 0) {
        close(p->fd);
        p->fd = -1;
    }
}
