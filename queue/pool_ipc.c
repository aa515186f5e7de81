/*
 * Sharing a pool with another process of the node (uvas_queue.h): a host
 * pool's memory never migrates, so another process of the same user can
 * map it through the exporter's host tier (uvas_ipc_*, uvas.h). The
 * exporter hands out the descriptor once (uvas_pool_export) and a small
 * record per allocation (uvas_pool_export_pointer); the importer makes a
 * pool of the descriptor and maps allocations into it.
 */
#include <stdlib.h>

#include "queue/pool.h"
#include "uvas/status.h"

int uvas_pool_export(uvas_pool_t *p, int *fd)
{
    static const char fn[] = "uvas_pool_export";
    uvas_clear_error();
    if (!p || !fd)
        return uvas_fail(UVAS_ERR_INVAL, "%s: the pool or fd is NULL", fn);
    if (p->fd >= 0)
        return uvas_fail(UVAS_ERR_INVAL, "%s: the pool was imported from another process; "
                         "only its exporter shares it", fn);
    if (p->props.location == UVAS_POOL_DEVICE)
        return uvas_pool_dev_export(p, fd, fn);
    if (p->props.location != UVAS_POOL_HOST)
        return uvas_fail(UVAS_ERR_INVAL, "%s: a UVAS_POOL_UNIFIED pool cannot be shared: its "
                         "memory moves between the tiers, and sharing would pin it to one "
                         "(share a UVAS_POOL_HOST or UVAS_POOL_DEVICE pool)", fn);
    /* The descriptor comes with a pointer's export; a pool without
     * allocations yet exports one of its own, kept in its cache. */
    void *any = NULL;
    uvas_pool_lock(p);
    if (p->live)
        any = p->live->ptr;
    else if (p->cache)
        any = p->cache->ptr;
    pthread_mutex_unlock(&p->mu);
    struct blk *own = NULL;
    if (!any) {
        own = calloc(1, sizeof *own);
        any = own ? uvas_malloc_hint(256, UVAS_HINT_HOST) : NULL;
        if (!any) {
            free(own);
            return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory: %s", fn, uvas_last_error());
        }
        own->ptr = any;
        own->size = 256;
    }
    struct uvas_ipc_handle h;
    int rc = uvas_ipc_export(any, &h, fd);
    uvas_pool_lock(p);
    if (own && rc == UVAS_OK) { /* a cached block whose free point has passed */
        own->next = p->cache;
        p->cache = own;
        p->use.reserved += own->size;
        own = NULL;
    }
    if (rc == UVAS_OK)
        p->exported = true;
    pthread_mutex_unlock(&p->mu);
    if (own) {
        uvas_free(own->ptr);
        free(own);
    }
    return rc ? uvas_fail(rc, "%s: %s", fn, uvas_last_error()) : UVAS_OK;
}

int uvas_pool_import(int fd, uvas_pool_t **out)
{
    static const char fn[] = "uvas_pool_import";
    uvas_clear_error();
    if (!out)
        return uvas_fail(UVAS_ERR_INVAL, "%s: out is NULL", fn);
    *out = NULL;
    if (uvas_pool_dev_is_channel(fd))
        return uvas_pool_dev_import(fd, out, fn);
    /* Checked now (a uvas host tier of this user), not at the first
     * pointer: a wrong descriptor is refused where it is given. */
    int d;
    int rc = uvas_ipc_keep(fd, &d);
    if (rc)
        return uvas_fail(rc, "%s: %s", fn, uvas_last_error());
    const struct uvas_pool_props props = {UVAS_POOL_HOST, 0, 0};
    struct uvas_pool *p = uvas_pool_new(&props);
    if (!p) {
        uvas_ipc_drop(d);
        return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory for a pool", fn);
    }
    p->fd = d;
    *out = p;
    return UVAS_OK;
}

int uvas_pool_export_pointer(void *ptr, struct uvas_pool_ptr_data *out)
{
    static const char fn[] = "uvas_pool_export_pointer";
    uvas_clear_error();
    if (!out)
        return uvas_fail(UVAS_ERR_INVAL, "%s: out is NULL", fn);
    struct uvas_pool *owner = NULL;
    size_t want = 0;
    pthread_mutex_lock(&uvas_pool_reg_mu);
    for (struct uvas_pool *p = uvas_pools; p && !owner; p = p->next) {
        uvas_pool_lock(p);
        for (struct blk *b = p->live; b && !owner; b = b->next)
            if (b->ptr == ptr) {
                owner = p;
                want = b->want;
            }
        pthread_mutex_unlock(&p->mu);
    }
    pthread_mutex_unlock(&uvas_pool_reg_mu);
    if (!owner)
        return uvas_fail(UVAS_ERR_INVAL, "%s: %p is not a live allocation of a pool "
                         "(uvas_malloc_from_pool_async)", fn, ptr);
    if (!owner->exported)
        return uvas_fail(UVAS_ERR_INVAL, "%s: %p is in a pool not exported: uvas_pool_export "
                         "it first", fn, ptr);
    if (owner->props.location == UVAS_POOL_DEVICE)
        return uvas_pool_dev_export_pointer(owner, ptr, want, out, fn);
    int rc = uvas_ipc_export(ptr, &out->h, NULL);
    return rc ? uvas_fail(rc, "%s: %s", fn, uvas_last_error()) : UVAS_OK;
}

int uvas_pool_import_pointer(uvas_pool_t *p, const struct uvas_pool_ptr_data *data, void **ptr)
{
    static const char fn[] = "uvas_pool_import_pointer";
    uvas_clear_error();
    if (!ptr)
        return uvas_fail(UVAS_ERR_INVAL, "%s: ptr is NULL", fn);
    *ptr = NULL;
    if (!p || !data)
        return uvas_fail(UVAS_ERR_INVAL, "%s: the pool or the data is NULL", fn);
    if (p->fd < 0)
        return uvas_fail(UVAS_ERR_INVAL, "%s: the pool was not imported (uvas_pool_import)",
                         fn);
    if (p->share)
        return uvas_pool_dev_import_pointer(p, data, ptr, fn);
    struct imported *im = calloc(1, sizeof *im);
    if (!im)
        return uvas_fail(UVAS_ERR_NOMEM, "%s: no memory", fn);
    int rc = uvas_ipc_open(p->fd, &data->h, &im->ptr);
    if (rc) {
        free(im);
        return uvas_fail(rc, "%s: %s", fn, uvas_last_error());
    }
    im->h = data->h;
    uvas_pool_lock(p);
    im->next = p->imports;
    p->imports = im;
    p->use.used += (size_t)im->h.size;
    p->use.reserved += (size_t)im->h.size;
    if (p->use.used > p->use.used_high)
        p->use.used_high = p->use.used;
    if (p->use.reserved > p->use.reserved_high)
        p->use.reserved_high = p->use.reserved;
    pthread_mutex_unlock(&p->mu);
    *ptr = im->ptr;
    return UVAS_OK;
}

struct uvas_pool *uvas_pool_of_import(const void *ptr)
{
    for (struct uvas_pool *p = uvas_pools; p; p = p->next) {
        if (p->fd < 0)
            continue;
        uvas_pool_lock(p);
        struct imported *im = p->imports;
        while (im && im->ptr != ptr)
            im = im->next;
        pthread_mutex_unlock(&p->mu);
        if (im)
            return p;
    }
    return NULL;
}

void uvas_pool_drop_imports(struct uvas_pool *p)
{
    if (p->share) {
        uvas_pool_lock(p);
        uvas_pool_dev_drop(p, false);
        pthread_mutex_unlock(&p->mu);
        return;
    }
    uvas_pool_lock(p);
    struct imported *im = p->imports;
    p->imports = NULL;
    p->use.used = p->use.reserved = 0;
    pthread_mutex_unlock(&p->mu);
    while (im) {
        struct imported *n = im->next;
        uvas_ipc_close(im->ptr, &im->h);
        free(im);
        im = n;
    }
    uvas_ipc_drop(p->fd);
    p->fd = -1;
}
