/* The registry of pools (pool.h): what both the pools and their sharing
 * stand on. */
#include <stdlib.h>

#include "queue/pool.h"

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
