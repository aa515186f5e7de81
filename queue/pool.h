/* The pools (pool.c) as sync.c and the sharing of pools (pool_ipc.c) see them. */
#ifndef UVAS_QUEUE_POOL_H
#define UVAS_QUEUE_POOL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uvas_queue.h"

struct blk {
    struct blk *next;
    void *ptr;
    size_t size;            /* the class */
    size_t want;            /* live: the bytes asked for (UVAS_QUEUE_CHECK's bound) */
    struct uvas_queue *q;   /* cached: freed on q (referenced) at point */
    uint64_t point;
    struct uvas_queue *aq;  /* live: allocated on aq (referenced) at apoint */
    uint64_t apoint;
};

/* An allocation of another process's pool, mapped here. */
struct imported {
    struct imported *next;
    void *ptr;
    void *base; /* a device pool's: the allocation of our range holding it */
    struct uvas_ipc_handle h;
};

struct uvas_pool_share; /* a device pool's sharing (pool_dev.c) */

struct uvas_pool {
    struct uvas_pool *next; /* in the registry */
    pthread_mutex_t mu;
    struct uvas_pool_props props;
    struct uvas_pool_usage use;
    struct blk *live, *cache;
    size_t nlive;
    int is_default;
    bool exported;          /* keeps its memory until destroyed */
    int fd;                 /* imported: the exporter's host tier; else -1 */
    uint64_t generation;    /* the range its blocks are of (uvas_range_generation) */
    struct imported *imports;
    struct uvas_pool_share *share; /* device pools: the exporter's channels, or the import */
    /* Set with share (pool_dev.c), so the registry, below it, can end it
     * when the range goes. */
    void (*drop_share)(struct uvas_pool *p, bool range_gone);
};

/* The registry of pools (pool.c). */
extern pthread_mutex_t uvas_pool_reg_mu;
extern struct uvas_pool *uvas_pools;

/* A new pool in the registry; NULL without memory. */
struct uvas_pool *uvas_pool_new(const struct uvas_pool_props *props);
/* Out of the registry and freed (its memory already given back). */
void uvas_pool_delete(struct uvas_pool *p);
/* The imported pool holding ptr, if any (registry lock held). */
struct uvas_pool *uvas_pool_of_import(const void *ptr);
/* Take p->mu; blocks of a range torn down since p last looked are dropped
 * first (the memory went with it; the range now there may have given the
 * addresses to others). Every use of p's lists goes through it. */
void uvas_pool_lock(struct uvas_pool *p);

/* Unmap an imported pool's allocations and close its descriptor. */
void uvas_pool_drop_imports(struct uvas_pool *p);

/* Device pools (pool_dev.c), fn naming the public call for messages. */
int uvas_pool_dev_export(struct uvas_pool *p, int *fd, const char *fn);
int uvas_pool_dev_export_pointer(struct uvas_pool *p, void *ptr, size_t size,
                                 struct uvas_pool_ptr_data *out, const char *fn);
bool uvas_pool_dev_is_channel(int fd);
int uvas_pool_dev_import(int fd, struct uvas_pool **out, const char *fn);
int uvas_pool_dev_import_pointer(struct uvas_pool *p, const struct uvas_pool_ptr_data *data,
                                 void **ptr, const char *fn);
/* Close the channels, free the imports (not if the range went: they went
 * with it). p->mu held, or p out of everyone's reach. */
void uvas_pool_dev_drop(struct uvas_pool *p, bool range_gone);

/* After a sync: every pool gives back cached memory whose free points have
 * passed, down to its release threshold. */
void uvas_pool_release_all(void);

#endif
