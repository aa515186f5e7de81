/*
 * Pools and queue-ordered allocation. A pool keeps the memory of freed
 * allocations, each with the point of the queue where it was freed, and
 * gives it to a later allocation of the same size class when that is safe:
 * on the same queue always (its uses come after the free), on another
 * when the pool's reuse policy proves the point passed (uvas_queue.h).
 * Memory comes from uvas_malloc_hint in power-of-two classes, so every
 * allocation is an ordinary uvas allocation.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "queue/pool.h"
#include "migrate/shared.h"
#include "queue/queue.h"
#include "uvas/status.h"

#define MIN_CLASS 256

static struct uvas_pool *default_pool;

static unsigned hint_of(int location)
{
    return location == UVAS_POOL_HOST ? UVAS_HINT_HOST :
           location == UVAS_POOL_DEVICE ? UVAS_HINT_DEVICE : 0;
}

static size_t class_of(size_t size)
{
    size_t c = MIN_CLASS;
    while (c < size && c <= SIZE_MAX / 2)
        c *= 2;
    return c < size ? 0 : c;
}

static int check_props(const struct uvas_pool_props *props)
{
    if (!props)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_create: props is NULL");
    if (props->location < UVAS_POOL_UNIFIED || props->location > UVAS_POOL_DEVICE)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_create: location %d is not "
                         "UVAS_POOL_UNIFIED, _HOST or _DEVICE", props->location);
    if (props->reuse & ~UVAS_POOL_REUSE_ALL)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_create: unknown reuse bits %#x",
                         props->reuse & ~UVAS_POOL_REUSE_ALL);
    return UVAS_OK;
}

/* ---- debug mode: uses outside an allocation's queue lifetime ----------------- */

/* [p, p+n) inside the len bytes at base. */
static bool within(const void *base, size_t len, const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p, s = (uintptr_t)base;
    return a >= s && a - s < len && n <= len - (a - s);
}

static bool inside(const struct blk *b, const void *p, size_t n)
{
    return within(b->ptr, b->size, p, n);
}

/* A use by work enqueued on q now: of memory freed already (cached), or of
 * an allocation made on another queue at a point q is not ordered after
 * and that has not passed. Memory of no pool is not this check's. */
static int use_check(struct uvas_queue *q, const void *ptr, size_t n, const char *fn)
{
    int rc = UVAS_OK;
    pthread_mutex_lock(&uvas_pool_reg_mu);
    for (struct uvas_pool *p = uvas_pools; p && !rc; p = p->next) {
        uvas_pool_lock(p);
        for (struct blk *b = p->cache; b && !rc; b = b->next)
            if (inside(b, ptr, 1))
                rc = uvas_fail(UVAS_ERR_INVAL, "%s: %p is in memory freed by uvas_free_async "
                               "(on queue %p) before this was enqueued (UVAS_QUEUE_CHECK)", fn,
                               ptr, (void *)b->q);
        for (struct blk *b = p->live; b && !rc; b = b->next) {
            if (!inside(b, ptr, 1))
                continue;
            /* The bytes asked for, not the class's: what lies past them
             * is no one's to use. */
            if (!within(b->ptr, b->want, ptr, n))
                rc = uvas_fail(UVAS_ERR_INVAL, "%s: [%p, +%zu) runs past its allocation "
                               "(%p, %zu bytes) (UVAS_QUEUE_CHECK)", fn, ptr, n, b->ptr,
                               b->want);
            else if (b->aq && b->aq != q && !uvas_queue_ordered_after(q, b->aq, b->apoint) &&
                     !uvas_queue_passed(b->aq, b->apoint))
                rc = uvas_fail(UVAS_ERR_INVAL, "%s: %p was allocated on queue %p, and this "
                               "queue (%p) is not ordered after that point: make it wait for "
                               "an event recorded on %p after the allocation "
                               "(UVAS_QUEUE_CHECK)", fn, ptr, (void *)b->aq, (void *)q,
                               (void *)b->aq);
        }
        pthread_mutex_unlock(&p->mu);
    }
    pthread_mutex_unlock(&uvas_pool_reg_mu);
    return rc;
}

/* Installed with the first pool when UVAS_QUEUE_CHECK=1. */
static void arm_check(void)
{
    const char *e = getenv("UVAS_QUEUE_CHECK");
    if (e && !strcmp(e, "1"))
        atomic_store_explicit(&uvas_queue_use_check, use_check, memory_order_relaxed);
}

int uvas_pool_create(const struct uvas_pool_props *props, uvas_pool_t **out)
{
    arm_check();
    uvas_clear_error();
    if (!out)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_create: out is NULL");
    *out = NULL;
    int rc = check_props(props);
    if (rc)
        return rc;
    struct uvas_pool *p = uvas_pool_new(props);
    if (!p)
        return uvas_fail(UVAS_ERR_NOMEM, "uvas_pool_create: no memory for a pool");
    *out = p;
    return UVAS_OK;
}

int uvas_pool_get_default(uvas_pool_t **out)
{
    arm_check();
    uvas_clear_error();
    if (!out)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_get_default: out is NULL");
    static const struct uvas_pool_props props = {UVAS_POOL_UNIFIED, 0, UVAS_POOL_REUSE_ALL};
    pthread_mutex_lock(&uvas_pool_reg_mu);
    struct uvas_pool *p = default_pool;
    pthread_mutex_unlock(&uvas_pool_reg_mu);
    if (!p) {
        struct uvas_pool *n = uvas_pool_new(&props);
        if (!n)
            return uvas_fail(UVAS_ERR_NOMEM, "uvas_pool_get_default: no memory for a pool");
        n->is_default = 1;
        pthread_mutex_lock(&uvas_pool_reg_mu);
        if (!default_pool)
            default_pool = n;
        p = default_pool;
        pthread_mutex_unlock(&uvas_pool_reg_mu);
        /* a racing thread's pool stays registered, empty; harmless */
    }
    *out = p;
    return UVAS_OK;
}

static void note_use(struct uvas_pool *p)
{
    if (p->use.used > p->use.used_high)
        p->use.used_high = p->use.used;
    if (p->use.reserved > p->use.reserved_high)
        p->use.reserved_high = p->use.reserved;
}

/* A cached block of class c that may serve an allocation on q now; NULL
 * if none (unlinked from the cache, its queue reference dropped). */
static struct blk *reuse(struct uvas_pool *p, size_t c, struct uvas_queue *q, bool any,
                         struct uvas_queue **dep_q, uint64_t *dep_point)
{
    unsigned r = p->props.reuse;
    for (struct blk **pp = &p->cache; *pp; pp = &(*pp)->next) {
        struct blk *b = *pp;
        if (b->size != c)
            continue;
        /* No queue: memory no queue has used (an empty pool's export
         * made it), free for anyone. */
        bool ok = !b->q || b->q == q ||
                  ((r & UVAS_POOL_REUSE_FOLLOW_EVENTS) &&
                   uvas_queue_ordered_after(q, b->q, b->point)) ||
                  ((r & UVAS_POOL_REUSE_OPPORTUNISTIC) && uvas_queue_passed(b->q, b->point));
        if (!ok && !any)
            continue;
        if (!ok) { /* internal dependency: the caller makes q wait for it */
            *dep_q = b->q;
            *dep_point = b->point;
        } else {
            uvas_queue_unref(b->q);
        }
        *pp = b->next;
        b->q = NULL;
        return b;
    }
    return NULL;
}

void *uvas_malloc_from_pool_async(size_t size, uvas_pool_t *p, uvas_queue_t *q)
{
    static const char fn[] = "uvas_malloc_from_pool_async";
    uvas_clear_error();
    int rc = uvas_queue_check(q, fn);
    size_t c = class_of(size);
    if (!rc && !p)
        rc = uvas_fail(UVAS_ERR_INVAL, "%s: the pool is NULL", fn);
    if (!rc && p->fd >= 0)
        rc = uvas_fail(UVAS_ERR_INVAL, "%s: the pool was imported from another process: its "
                       "allocations come from uvas_pool_import_pointer", fn);
    if (!rc && (size == 0 || c == 0))
        rc = uvas_fail(UVAS_ERR_INVAL, "%s: size %zu (0, or too large)", fn, size);
    if (!rc && !uvas_range_generation())
        rc = uvas_fail(UVAS_ERR_NOT_INIT, "%s: call uvas_init first (uvas_finalize gave "
                       "back the range, and every pool's memory with it)", fn);
    if (rc) {
        errno = EINVAL;
        return NULL;
    }
    struct uvas_queue *dep_q = NULL;
    uint64_t dep_point = 0;
    uvas_pool_lock(p);
    struct blk *b = reuse(p, c, q, false, &dep_q, &dep_point);
    pthread_mutex_unlock(&p->mu);
    if (!b) {
        b = calloc(1, sizeof *b);
        void *mem = b ? uvas_malloc_hint(c, hint_of(p->props.location)) : NULL;
        if (!mem) {
            free(b);
            b = NULL;
            if (p->props.reuse & UVAS_POOL_REUSE_INTERNAL_DEPS) {
                uvas_pool_lock(p);
                b = reuse(p, c, q, true, &dep_q, &dep_point);
                pthread_mutex_unlock(&p->mu);
            }
            if (!b) {
                uvas_fail(UVAS_ERR_NOMEM, "%s: no memory for %zu bytes", fn, size);
                errno = ENOMEM;
                return NULL;
            }
            if (dep_q) {
                rc = uvas_queue_enqueue_wait(q, dep_q, dep_point);
                if (rc) { /* could not order it: back to the cache, as it was */
                    uvas_pool_lock(p);
                    b->q = dep_q;
                    b->point = dep_point;
                    b->next = p->cache;
                    p->cache = b;
                    pthread_mutex_unlock(&p->mu);
                    errno = ENOMEM;
                    return NULL;
                }
                uvas_queue_unref(dep_q);
            }
        } else {
            b->ptr = mem;
            b->size = c;
            uvas_pool_lock(p);
            p->use.reserved += c;
            pthread_mutex_unlock(&p->mu);
        }
    }
    uvas_queue_ref(q);
    b->aq = q;
    b->apoint = uvas_queue_point(q);
    b->want = size;
    uvas_pool_lock(p);
    b->next = p->live;
    p->live = b;
    p->nlive++;
    p->use.used += b->size;
    note_use(p);
    pthread_mutex_unlock(&p->mu);
    return b->ptr;
}

void *uvas_malloc_async(size_t size, uvas_queue_t *q)
{
    uvas_pool_t *p;
    if (uvas_pool_get_default(&p) != UVAS_OK) {
        errno = ENOMEM;
        return NULL;
    }
    return uvas_malloc_from_pool_async(size, p, q);
}

int uvas_free_async(void *ptr, uvas_queue_t *q)
{
    static const char fn[] = "uvas_free_async";
    uvas_clear_error();
    if (!ptr)
        return UVAS_OK;
    int rc = uvas_queue_check(q, fn);
    if (rc)
        return rc;
    uint64_t point = uvas_queue_point(q);
    bool twice = false;
    void *outer = NULL; /* a live allocation ptr lies inside, not at its start */
    pthread_mutex_lock(&uvas_pool_reg_mu);
    for (struct uvas_pool *p = uvas_pools; p; p = p->next) {
        uvas_pool_lock(p);
        for (struct blk **pp = &p->live; *pp; pp = &(*pp)->next) {
            struct blk *b = *pp;
            if (b->ptr != ptr) {
                if (inside(b, ptr, 1))
                    outer = b->ptr;
                continue;
            }
            /* Its free would fail once its point passed, and the block
             * would be lost to the pool and the range alike. */
            if (uvas_shared_held(ptr)) {
                pthread_mutex_unlock(&p->mu);
                pthread_mutex_unlock(&uvas_pool_reg_mu);
                return uvas_fail(UVAS_ERR_INVAL, "%s(%p): its memory is held by uvas_gpu_hold: "
                                 "call uvas_gpu_release first", fn, ptr);
            }
            *pp = b->next;
            p->nlive--;
            p->use.used -= b->size;
            uvas_queue_unref(b->aq);
            b->aq = NULL;
            uvas_queue_ref(q);
            b->q = q;
            b->point = point;
            b->next = p->cache;
            p->cache = b;
            pthread_mutex_unlock(&p->mu);
            pthread_mutex_unlock(&uvas_pool_reg_mu);
            return UVAS_OK;
        }
        for (struct blk *b = p->cache; b && !twice; b = b->next)
            twice = b->ptr == ptr;
        pthread_mutex_unlock(&p->mu);
    }
    bool imported = uvas_pool_of_import(ptr) != NULL;
    pthread_mutex_unlock(&uvas_pool_reg_mu);
    if (imported)
        return uvas_fail(UVAS_ERR_INVAL, "%s: %p was imported from another process's pool: "
                         "the exporter frees it; its mapping here goes with the imported pool "
                         "(uvas_pool_destroy)", fn, ptr);
    if (twice)
        return uvas_fail(UVAS_ERR_DOUBLE_FREE, "%s: %p was freed before (uvas_free_async)",
                         fn, ptr);
    if (outer)
        return uvas_fail(UVAS_ERR_INVAL, "%s: %p lies inside the allocation %p of "
                         "uvas_malloc_async, not at its start: free %p", fn, ptr, outer, outer);
    struct uvas_ptr_info info;
    if (uvas_query(ptr, &info) == UVAS_OK)
        return uvas_fail(UVAS_ERR_INVAL, "%s: %p is not from uvas_malloc_async (it is an "
                         "allocation of uvas_malloc and friends: free it with uvas_free)",
                         fn, ptr);
    return uvas_fail(UVAS_ERR_NOT_OWNED, "%s: %p is not from uvas_malloc_async", fn, ptr);
}

/* Give back cached blocks beyond keep: those whose free points passed,
 * or (wait) all, after their points. A wait on a host function's own
 * queue for a point after it would wait for ever: then nothing is given
 * back and that queue is returned. */
static struct uvas_queue *release(struct uvas_pool *p, size_t keep, bool wait)
{
    struct blk *out = NULL;
    uvas_pool_lock(p);
    for (struct blk *b = p->cache; wait && b; b = b->next)
        if (b->q && uvas_queue_is_own_thread(b->q) && !uvas_queue_passed(b->q, b->point)) {
            pthread_mutex_unlock(&p->mu);
            return b->q;
        }
    /* An exported pool's memory may be mapped by an importer: given back
     * to the range, its pages would be punched under that mapping. */
    if (p->exported && !wait)
        keep = SIZE_MAX;
    for (struct blk **pp = &p->cache; *pp && p->use.reserved > keep;) {
        struct blk *b = *pp;
        if (!wait && !uvas_queue_passed(b->q, b->point)) {
            pp = &b->next;
            continue;
        }
        *pp = b->next;
        p->use.reserved -= b->size;
        b->next = out;
        out = b;
    }
    pthread_mutex_unlock(&p->mu);
    while (out) {
        struct blk *b = out;
        out = b->next;
        uvas_queue_wait_point(b->q, b->point);
        uvas_queue_unref(b->q);
        uvas_free(b->ptr);
        free(b);
    }
    return NULL;
}

void uvas_pool_release_all(void)
{
    pthread_mutex_lock(&uvas_pool_reg_mu);
    for (struct uvas_pool *p = uvas_pools; p; p = p->next)
        (void)release(p, p->props.release_threshold, false);
    pthread_mutex_unlock(&uvas_pool_reg_mu);
}

int uvas_pool_trim_to(uvas_pool_t *p, size_t keep)
{
    uvas_clear_error();
    if (!p)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_trim_to: the pool is NULL");
    (void)release(p, keep, false);
    return UVAS_OK;
}

int uvas_pool_set_threshold(uvas_pool_t *p, size_t release_threshold)
{
    uvas_clear_error();
    if (!p)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_set_threshold: the pool is NULL");
    uvas_pool_lock(p);
    p->props.release_threshold = release_threshold;
    pthread_mutex_unlock(&p->mu);
    return UVAS_OK;
}

int uvas_pool_get_usage(uvas_pool_t *p, struct uvas_pool_usage *out)
{
    uvas_clear_error();
    if (!p || !out)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_get_usage: the pool or out is NULL");
    uvas_pool_lock(p);
    *out = p->use;
    pthread_mutex_unlock(&p->mu);
    return UVAS_OK;
}

int uvas_pool_reset_high(uvas_pool_t *p)
{
    uvas_clear_error();
    if (!p)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_reset_high: the pool is NULL");
    uvas_pool_lock(p);
    p->use.used_high = p->use.used;
    p->use.reserved_high = p->use.reserved;
    pthread_mutex_unlock(&p->mu);
    return UVAS_OK;
}

int uvas_pool_destroy(uvas_pool_t *p)
{
    uvas_clear_error();
    if (!p)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_destroy: the pool is NULL");
    if (p->is_default)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_destroy: the default pool stays");
    uvas_pool_lock(p);
    size_t live = p->nlive;
    pthread_mutex_unlock(&p->mu);
    if (live)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_destroy: %zu allocation%s of the pool "
                         "%s live: uvas_free_async %s first", live, live == 1 ? "" : "s",
                         live == 1 ? "is" : "are", live == 1 ? "it" : "them");
    if (p->fd >= 0) {
        /* Memory of it held (uvas_gpu_hold) cannot go: refused before any
         * of it does. (A hold taken after this check fails that import's
         * release, which then stays, with a warning.) */
        void *held = NULL;
        uvas_pool_lock(p);
        for (struct imported *im = p->imports; im && !held; im = im->next)
            if (uvas_shared_held(im->base ? im->base : im->ptr))
                held = im->ptr;
        pthread_mutex_unlock(&p->mu);
        if (held)
            return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_destroy: %p, imported from the pool, is "
                             "held by uvas_gpu_hold: call uvas_gpu_release first", held);
        uvas_pool_drop_imports(p);
    } else {
        struct uvas_queue *own = release(p, 0, true);
        if (own)
            return uvas_fail(UVAS_ERR_INVAL, "uvas_pool_destroy: called from a host function "
                             "of queue %p, on its own thread, before the point where that "
                             "queue frees a block of the pool: the destroy would wait for "
                             "it, and the queue for the host function; destroy the pool after "
                             "that point", (void *)own);
        uvas_pool_lock(p);
        uvas_pool_dev_drop(p, false); /* an exporter's channels */
        pthread_mutex_unlock(&p->mu);
    }
    uvas_pool_delete(p);
    return UVAS_OK;
}

