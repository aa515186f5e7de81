/*
 * uvas_migrate, uvas_migrate_wait and uvas_advise: argument checks, and
 * the asynchronous form (one worker thread draining a queue, in the spirit
 * of cudaMemPrefetchAsync on one stream).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "migrate/migrate.h"
#include "migrate/worker.h"
#include "uvas/locality.h"
#include "uvas/internal.h"
#include "uvas/span.h"
#include "uvas/status.h"

struct request {
    struct request *next;
    size_t first, n;
    int to;
};

static struct {
    struct uvas_worker w; /* w.cv: work queued, or stop */
    pthread_cond_t idle;
    struct request *head, *tail;
    bool busy;
    struct request *running; /* while busy */
    int first_error;
    char error_msg[UVAS_MSG_MAX];
} q = {.w = UVAS_WORKER_INIT, .idle = PTHREAD_COND_INITIALIZER};

static void *worker(void *arg)
{
    (void)arg;
    uvas_locality_bind_thread(&uvas_g.devtier.dev);
    pthread_mutex_lock(&q.w.mu);
    for (;;) {
        while (!q.head && !q.w.stop)
            pthread_cond_wait(&q.w.cv, &q.w.mu);
        if (!q.head)
            break;
        struct request *r = q.head;
        q.head = r->next;
        if (!q.head)
            q.tail = NULL;
        q.busy = true;
        q.running = r;
        pthread_mutex_unlock(&q.w.mu);
        int rc = uvas_migrate_blocks(r->first, r->n, r->to, UVAS_MIG_WAIT | UVAS_MIG_SM_FILL);
        pthread_mutex_lock(&q.w.mu);
        if (rc && !q.first_error) {
            q.first_error = rc;
            snprintf(q.error_msg, sizeof q.error_msg, "%s", uvas_last_error());
        }
        free(r);
        q.busy = false;
        q.running = NULL;
        /* A settle waits for its blocks' requests, not for the queue to
         * empty: told after each one. */
        pthread_cond_broadcast(&q.idle);
    }
    pthread_mutex_unlock(&q.w.mu);
    return NULL;
}

int uvas_migrate_async_start(void)
{
    q.first_error = 0;
    return uvas_worker_start(&q.w, worker, NULL, "migration");
}

void uvas_migrate_async_stop(void)
{
    uvas_worker_stop(&q.w);
}

int uvas_migrate_enqueue(size_t first, size_t n, int to)
{
    struct request *r = malloc(sizeof *r);
    if (!r)
        return uvas_fail(UVAS_ERR_NOMEM, "uvas_migrate: cannot queue the request");
    *r = (struct request){NULL, first, n, to};
    pthread_mutex_lock(&q.w.mu);
    if (q.tail)
        q.tail->next = r;
    else
        q.head = r;
    q.tail = r;
    pthread_cond_signal(&q.w.cv);
    pthread_mutex_unlock(&q.w.mu);
    return UVAS_OK;
}

static bool overlaps(const struct request *r, size_t first, size_t n)
{
    return r->first < first + n && first < r->first + r->n;
}

/* Does a request queued or running cover a block of [first, first+n)?
 * (q.w.mu held) */
static bool pending_on(size_t first, size_t n)
{
    if (q.running && overlaps(q.running, first, n))
        return true;
    for (const struct request *r = q.head; r; r = r->next)
        if (overlaps(r, first, n))
            return true;
    return false;
}

void uvas_migrate_async_settle(size_t first, size_t n)
{
    /* The worker never frees: waiting for it here cannot wait for us. */
    pthread_mutex_lock(&q.w.mu);
    while (pending_on(first, n))
        pthread_cond_wait(&q.idle, &q.w.mu);
    pthread_mutex_unlock(&q.w.mu);
}

static int wait_all(void)
{
    pthread_mutex_lock(&q.w.mu);
    while (q.head || q.busy)
        pthread_cond_wait(&q.idle, &q.w.mu);
    int rc = q.first_error;
    if (rc)
        uvas_fail(rc, "an asynchronous migration failed: %s", q.error_msg);
    q.first_error = 0;
    pthread_mutex_unlock(&q.w.mu);
    return rc;
}

void uvas_migrate_async_wait(void)
{
    (void)wait_all();
}

/* The blocks covering [ptr, ptr+len), which must lie in one live
 * allocation. */
static int blocks_of(const void *ptr, size_t len, size_t *first, size_t *n, const char *fn)
{
    struct uvas_ptr_info info;
    int rc = uvas_span_check(ptr, len, fn, &info);
    if (rc)
        return rc;
    *first = uvas_block_index(ptr);
    *n = uvas_block_index((const char *)ptr + len - 1) - *first + 1;
    return UVAS_OK;
}

static int migrate_entered(const void *ptr, size_t len, int location, unsigned flags)
{
    uvas_clear_error();
    size_t first, n;
    int rc = blocks_of(ptr, len, &first, &n, "uvas_migrate");
    if (rc)
        return rc;
    if (location != UVAS_LOC_HOST && location != UVAS_LOC_DEVICE)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_migrate: location %d is neither UVAS_LOC_HOST "
                         "nor UVAS_LOC_DEVICE", location);
    if (flags & ~UVAS_MIGRATE_ASYNC)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_migrate: flags %#x has unknown bits", flags);
    if (!uvas_devtier_present(&uvas_g.devtier)) {
        if (location == UVAS_LOC_HOST) /* everything already is */
            return UVAS_OK;
        return uvas_fail(UVAS_ERR_NO_DEVICE, "uvas_migrate to the device: %s",
                         uvas_g.device_note);
    }
    struct uvas_ptr_info info;
    if (location == UVAS_LOC_DEVICE && uvas_query(ptr, &info) == UVAS_OK &&
        (info.alloc_hints & UVAS_HINT_HOST))
        return uvas_fail(UVAS_ERR_INVAL, "uvas_migrate(%p): host-heap memory (UVAS_HINT_HOST, "
                         "SHMEM_MALLOC_HOST_HEAP) stays on the host; allocate it without the "
                         "hint to let it move", ptr);
    if (flags & UVAS_MIGRATE_ASYNC)
        return uvas_migrate_enqueue(first, n, location);
    return uvas_migrate_blocks(first, n, location, UVAS_MIG_WAIT | UVAS_MIG_SM_FILL);
}

int uvas_migrate(const void *ptr, size_t len, int location, unsigned flags)
{
    int entered = uvas_api_enter("uvas_migrate");
    if (entered)
        return entered;
    int rc = migrate_entered(ptr, len, location, flags);
    uvas_api_leave();
    return rc;
}

static int migrate_wait_entered(void)
{
    uvas_clear_error();
    if (!atomic_load(&uvas_g.ready))
        return uvas_fail(UVAS_ERR_NOT_INIT, "uvas_migrate_wait: call uvas_init first");
    if (!q.w.running)
        return UVAS_OK;
    return wait_all();
}

int uvas_migrate_wait(void)
{
    int entered = uvas_api_enter("uvas_migrate_wait");
    if (entered)
        return entered;
    int rc = migrate_wait_entered();
    uvas_api_leave();
    return rc;
}

static int advise_entered(const void *ptr, size_t len, int advice, int location)
{
    uvas_clear_error();
    size_t first, n;
    int rc = blocks_of(ptr, len, &first, &n, "uvas_advise");
    if (rc)
        return rc;
    switch (advice) {
    case UVAS_ADVISE_PREFERRED_LOCATION:
    case UVAS_ADVISE_UNSET_PREFERRED_LOCATION: {
        uint8_t pref = 0;
        if (advice == UVAS_ADVISE_PREFERRED_LOCATION) {
            if (location != UVAS_LOC_HOST && location != UVAS_LOC_DEVICE)
                return uvas_fail(UVAS_ERR_INVAL, "uvas_advise: location %d is neither "
                                 "UVAS_LOC_HOST nor UVAS_LOC_DEVICE", location);
            pref = (uint8_t)location;
        }
        for (size_t i = first; i < first + n; i++)
            atomic_store_explicit(&uvas_g.bt[i].tier_pref, pref, memory_order_relaxed);
        return UVAS_OK;
    }
    case UVAS_ADVISE_READ_MOSTLY:
        if (uvas_devtier_present(&uvas_g.devtier) && !uvas_g.uffd.has_wp)
            return uvas_fail(UVAS_ERR_PERM, "uvas_advise: read-mostly needs userfaultfd "
                             "write-protect on shmem, which this kernel lacks");
        for (size_t i = first; i < first + n; i++)
            atomic_fetch_or_explicit(&uvas_g.bt[i].advice, UVAS_BA_READ_MOSTLY,
                                     memory_order_relaxed);
        return UVAS_OK;
    case UVAS_ADVISE_UNSET_READ_MOSTLY:
        for (size_t i = first; i < first + n; i++)
            atomic_fetch_and_explicit(&uvas_g.bt[i].advice, (uint8_t)~UVAS_BA_READ_MOSTLY,
                                      memory_order_relaxed);
        /* Duplicates collapse to the host, the side that asked. */
        if (uvas_devtier_present(&uvas_g.devtier))
            return uvas_migrate_collapse(first, n);
        return UVAS_OK;
    case UVAS_ADVISE_ACCESSED_BY_CPU:
        for (size_t i = first; i < first + n; i++)
            atomic_fetch_or_explicit(&uvas_g.bt[i].advice, UVAS_BA_CPU_MAP,
                                     memory_order_relaxed);
        return UVAS_OK;
    case UVAS_ADVISE_UNSET_ACCESSED_BY_CPU:
        for (size_t i = first; i < first + n; i++)
            atomic_fetch_and_explicit(&uvas_g.bt[i].advice, (uint8_t)~UVAS_BA_CPU_MAP,
                                      memory_order_relaxed);
        if (uvas_devtier_present(&uvas_g.devtier))
            return uvas_migrate_cpu_unmap(first, n);
        return UVAS_OK;
    default:
        return uvas_fail(UVAS_ERR_INVAL, "uvas_advise: advice %d is unknown", advice);
    }
}

int uvas_advise(const void *ptr, size_t len, int advice, int location)
{
    int entered = uvas_api_enter("uvas_advise");
    if (entered)
        return entered;
    int rc = advise_entered(ptr, len, advice, location);
    uvas_api_leave();
    return rc;
}
