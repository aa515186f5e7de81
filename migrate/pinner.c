/* The pinner (pinner.h). */
#include "migrate/pinner.h"

#include <stdint.h>
#include <time.h>

#include "migrate/import_cache.h"
#include "migrate/worker.h"
#include "uvas/atomics.h"
#include "uvas/block.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/uffd.h"

#define RANGES 1024

static struct {
    struct uvas_worker w;
    struct {
        size_t first, n;
    } ring[RANGES];
    size_t head, tail; /* under w.mu */
    bool on;           /* under w.mu: taking work */
} pn = {.w = UVAS_WORKER_INIT};

/* Resident on either tier, not held, no host duplicate: BUSY with its
 * gate open (migrate/device_access.c's take_in_place): the import moves
 * nothing, so peers' accesses go on. The queue names block indices, and a
 * block may have been freed and reused since it was queued: a device
 * block without host pages (born there) or shared with other processes
 * (it never moves) has no use for an import, which would allocate and pin
 * host pages for it. */
static bool take(struct uvas_block *b, uint32_t *seen)
{
    uint32_t s = atomic_load_explicit(&b->state, ACQ);
    int res = uvas_blk_res(s);
    if ((s & UVAS_BLK_BUSY) || uvas_blk_held(s) ||
        (res != UVAS_RES_DEVICE && res != UVAS_RES_HOST) || atomic_load_explicit(&b->dup, RLX))
        return false;
    if ((res == UVAS_RES_DEVICE && !atomic_load_explicit(&b->shadow, RLX)) ||
        (atomic_load_explicit(&b->advice, RLX) & UVAS_BA_SHARED))
        return false;
    if (!atomic_compare_exchange_strong_explicit(&b->state, &s, s | UVAS_BLK_BUSY, ACQ_REL, ACQ))
        return false;
    *seen = s;
    return true;
}

static void pin_block(size_t bi)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    uint32_t seen;
    if (!take(b, &seen)) /* the cache's entry is the holder's to read */
        return;
    if (!uvas_import_cache_has(bi))
        (void)uvas_import_cache_pin(bi); /* failed: imported on demand later */
    if (uvas_blk_unbusy(b, seen))
        uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
}

/* Migrations in flight, and when the last ended: imports made beside a
 * migration contend with its copies in the driver (halving a first
 * migration's pace, docs/migration.md), so the pinner works in the gaps. */
static _Atomic unsigned migrating;
static _Atomic uint64_t quiet_since;
#define QUIET_NS 1000000ull

void uvas_pinner_migration(bool begin)
{
    if (begin) {
        atomic_fetch_add_explicit(&migrating, 1, ACQ_REL);
        return;
    }
    atomic_store_explicit(&quiet_since, uvas_os_now_ns(), RLX);
    atomic_fetch_sub_explicit(&migrating, 1, ACQ_REL);
}

static void wait_quiet(void)
{
    while (atomic_load_explicit(&migrating, ACQ) ||
           uvas_os_now_ns() - atomic_load_explicit(&quiet_since, RLX) < QUIET_NS) {
        struct timespec ts = {0, 200000};
        nanosleep(&ts, NULL);
    }
}

static void *pinner_main(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pn.w.mu);
    for (;;) {
        while (!pn.w.stop && pn.head == pn.tail)
            pthread_cond_wait(&pn.w.cv, &pn.w.mu);
        if (pn.w.stop)
            break;
        size_t first = pn.ring[pn.tail % RANGES].first, n = pn.ring[pn.tail % RANGES].n;
        pn.tail++;
        pthread_mutex_unlock(&pn.w.mu);
        for (size_t i = 0; i < n; i++) {
            wait_quiet();
            /* A finalize does not wait for the rest of a long range (a
             * fill of gigabytes queues one). */
            pthread_mutex_lock(&pn.w.mu);
            bool stop = pn.w.stop;
            pthread_mutex_unlock(&pn.w.mu);
            if (stop)
                break;
            pin_block(first + i);
            atomic_fetch_sub_explicit(&uvas_g.ctr.pin_pending, 1, RLX);
        }
        pthread_mutex_lock(&pn.w.mu);
    }
    pthread_mutex_unlock(&pn.w.mu);
    return NULL;
}

int uvas_pinner_start(void)
{
    pn.head = pn.tail = 0;
    int rc = uvas_worker_start(&pn.w, pinner_main, NULL, "pinner");
    pthread_mutex_lock(&pn.w.mu);
    pn.on = rc == 0;
    pthread_mutex_unlock(&pn.w.mu);
    return rc;
}

void uvas_pinner_stop(void)
{
    pthread_mutex_lock(&pn.w.mu);
    pn.on = false;
    pthread_mutex_unlock(&pn.w.mu);
    uvas_worker_stop(&pn.w);
}

void uvas_pinner_add(size_t first, size_t n)
{
    pthread_mutex_lock(&pn.w.mu);
    if (pn.on && pn.head - pn.tail < RANGES) {
        pn.ring[pn.head % RANGES].first = first;
        pn.ring[pn.head % RANGES].n = n;
        pn.head++;
        atomic_fetch_add_explicit(&uvas_g.ctr.pin_pending, n, RLX);
        pthread_cond_signal(&pn.w.cv);
    }
    pthread_mutex_unlock(&pn.w.mu);
}
