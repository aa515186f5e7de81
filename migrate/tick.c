/*
 * The tick thread of policies that have one (hot-cold, access-counter,
 * read-mostly): every tick_ms it shows the policy every allocated block,
 * arms the write and access tracking the policy asks for, and carries out
 * the moves it requests through the engine.
 */
#include "migrate/tick.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "migrate/migrate.h"
#include "migrate/policy.h"
#include "migrate/worker.h"
#include "uvas/atomics.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"
#include "uvas/uffd.h"

#define MAX_REQUESTS 4096

struct tick_req {
    size_t index;
    int res;
};

static struct {
    struct uvas_worker w; /* w.cv: the tick's timed wait, woken to stop */
    struct tick_req req[MAX_REQUESTS];
    size_t nreq;
} ticker = {.w = UVAS_WORKER_INIT};

static int request(struct uvas_policy_tick *t, size_t index, int res)
{
    (void)t;
    if (ticker.nreq == MAX_REQUESTS)
        return UVAS_ERR_NOMEM;
    if (index >= uvas_g.nblocks || (res != UVAS_RES_HOST && res != UVAS_RES_DEVICE))
        return UVAS_ERR_INVAL;
    ticker.req[ticker.nreq++] = (struct tick_req){index, res};
    return UVAS_OK;
}

/* Arm the tracking the policy asked for on the live host blocks not in a
 * transition: unmap them (any access faults once) or write-protect them
 * (a write faults once). */
static void arm_tracking(const struct uvas_block_view *v, size_t n, unsigned flags)
{
    bool access = flags & UVAS_POLICY_TRACK_ACCESS;
    if (!access && !uvas_g.uffd.has_wp)
        return;
    for (size_t k = 0; k < n; k++) {
        if (v[k].residence != UVAS_RES_HOST)
            continue;
        struct uvas_block *b = &uvas_g.bt[v[k].index];
        uint32_t seen;
        if (!uvas_blk_try_busy(b, UVAS_RES_HOST, &seen))
            continue;
        char *a = uvas_block_addr(v[k].index);
        /* The memfd keeps the pages. A block left mapped (the zap
         * failed) is only not tracked this tick. */
        if (access)
            (void)uvas_os_zap(a, uvas_g.block_size);
        else
            uvas_uffd_protect(&uvas_g.uffd, a, uvas_g.block_size, true);
        uvas_blk_unbusy(b, seen);
        /* A fault dropped while we held the block must be retried. */
        uvas_uffd_wake(&uvas_g.uffd, a, uvas_g.block_size);
    }
}

/* Views of the live blocks, in a buffer that grows with them (a 64 GiB
 * range of 4 KiB blocks has 16M blocks; few are live). */
static void one_tick(struct uvas_policy *p, struct uvas_block_view **vp, size_t *cap)
{
    size_t n = 0, dev = 0;
    for (size_t bi = 0; bi < uvas_g.nblocks; bi++) {
        const struct uvas_block *b = &uvas_g.bt[bi];
        uint32_t owner = atomic_load_explicit(&b->owner, memory_order_acquire);
        if (!owner)
            continue;
        uint32_t gen = atomic_load_explicit(&b->generation, memory_order_acquire);
        if (n == *cap) {
            size_t c = *cap ? 2 * *cap : 1024;
            struct uvas_block_view *v = realloc(*vp, c * sizeof *v);
            if (!v)
                break;
            *vp = v;
            *cap = c;
        }
        struct uvas_block_view *views = *vp;
        uvas_policy_view(bi, &views[n]);
        /* A view taken while the block was freed (and maybe taken again)
         * mixes the two allocations' counts: the release zeroes them
         * after the owner's clearing and before the generation's bump
         * (uvas/alloc.c), so a view that read any of the zeroes sees
         * either changed here. Such a block waits for the next tick. */
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&b->owner, memory_order_acquire) != owner ||
            atomic_load_explicit(&b->generation, memory_order_relaxed) != gen)
            continue;
        views[n].generation = gen;
        if (views[n].residence == UVAS_RES_DEVICE)
            dev++;
        n++;
    }
    struct uvas_policy_tick t = {
        .blocks = *vp,
        .nblocks = n,
        .device_capacity_blocks = uvas_devtier_capacity_blocks(&uvas_g.devtier),
        .device_blocks = dev,
        .request = request,
        .now_ns = uvas_os_now_ns(),
        .device_room_blocks = uvas_devtier_room_blocks(&uvas_g.devtier),
    };
    ticker.nreq = 0;
    p->ops->tick(p->state, &t);
    unsigned track = uvas_policy_tracking(p);
    if (track & (UVAS_POLICY_TRACK_WRITES | UVAS_POLICY_TRACK_ACCESS))
        arm_tracking(*vp, n, track);
    /* Demotions first: they make the room promotions need. */
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < ticker.nreq; i++) {
            struct tick_req *r = &ticker.req[i];
            if ((pass == 0) == (r->res == UVAS_RES_HOST) &&
                atomic_load_explicit(&uvas_g.bt[r->index].owner, RLX))
                uvas_migrate_blocks(r->index, 1, r->res, 0);
        }
}

static void *ticker_main(void *arg)
{
    struct uvas_policy *p = arg;
    struct uvas_block_view *views = NULL;
    size_t cap = 0;
    pthread_mutex_lock(&ticker.w.mu);
    while (!ticker.w.stop) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        unsigned ms = p->ops->tick_interval ? p->ops->tick_interval(p->state) : p->ops->tick_ms;
        uint64_t ns = (uint64_t)ts.tv_nsec + (uint64_t)ms * 1000000ull;
        ts.tv_sec += (time_t)(ns / 1000000000ull);
        ts.tv_nsec = (long)(ns % 1000000000ull);
        while (!ticker.w.stop && pthread_cond_timedwait(&ticker.w.cv, &ticker.w.mu, &ts) == 0)
            ;
        if (ticker.w.stop)
            break;
        pthread_mutex_unlock(&ticker.w.mu);
        one_tick(p, &views, &cap);
        pthread_mutex_lock(&ticker.w.mu);
    }
    pthread_mutex_unlock(&ticker.w.mu);
    free(views);
    return NULL;
}

int uvas_policy_ticker_start(struct uvas_policy *p)
{
    unsigned ms = p->ops->tick_interval ? p->ops->tick_interval(p->state) : p->ops->tick_ms;
    if (!p->ops->tick || !ms || !uvas_devtier_present(&uvas_g.devtier))
        return UVAS_OK;
    return uvas_worker_start(&ticker.w, ticker_main, p, "policy tick");
}

void uvas_policy_ticker_stop(void)
{
    uvas_worker_stop(&ticker.w);
}
