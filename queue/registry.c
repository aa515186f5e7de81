/* The registry of pools (pool.h): what both the pools and their sharing
 * stand on. */
#include <stdlib.h>

#include "queue/pool.h"
#include "queue/queue.h"
#include "uvas.h"

pthread_mutex_t uvas_pool_reg_mu = PTHREAD_MUTEX_INITIALIZER;
struct uvas_pool *uvas_pools;

struct uvas_pool *uvas_pool_new(const struct uvas_pool_props *props)
{
    struct uvas_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    pthread_mutex_init(&p->mu, NULL);
    p->props = *props;
    p->fd = -1;
    p->generation = uvas_range_generation();
    pthread_mutex_lock(&uvas_pool_reg_mu);
    p->next = uvas_pools;
    uvas_pools = p;
    pthread_mutex_unlock(&uvas_pool_reg_mu);
    return p;
}

void uvas_pool_delete(struct uvas_pool *p)
{
    pthread_mutex_lock(&uvas_pool_reg_mu);
    for (struct uvas_pool **pp = &uvas_pools; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    pthread_mutex_unlock(&uvas_pool_reg_mu);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

static void drop_list(struct blk *b)
{
    while (b) {
        struct blk *n = b->next;
        if (b->q)
            uvas_queue_unref(b->q);
        if (b->aq)
            uvas_queue_unref(b->aq);
        free(b);
        b = n;
    }
}

static void outlived(struct uvas_pool *p)
{
    uint64_t now = uvas_range_generation();
    /* An imported pool's memory is the exporter's, mapped outside the range. */
    if (p->generation == now)
        return;
    /* A device pool's import lived in the range, as did what it exported. */
    if (p->drop_share)
        p->drop_share(p, true);
    if (p->fd >= 0)
        return;
    p->generation = now;
    drop_list(p->live);
    drop_list(p->cache);
    p->live = p->cache = NULL;
    p->nlive = 0;
    p->use.used = p->use.reserved = 0;
    p->exported = false;
}

void uvas_pool_lock(struct uvas_pool *p)
{
    pthread_mutex_lock(&p->mu);
    outlived(p);
}
