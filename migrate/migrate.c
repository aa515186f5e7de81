/* The migration engine: the protocol of migrate.h, batched. */
#include "migrate/migrate.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "fault/uffd.h"
#include "migrate/copy.h"
#include "migrate/hostbuf.h"
#include "uvas/internal.h"
#include "uvas/status.h"

#define BATCH 64
#define RLX memory_order_relaxed
#define ACQ memory_order_acquire

struct job {
    size_t bi;
    uint32_t seen; /* state before BUSY */
    int from;
    uint32_t slot;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Take a block for a transition; false if it is in one and we may not wait. */
static bool take(struct uvas_block *b, bool wait, uint32_t *seen)
{
    for (;;) {
        uint32_t s = atomic_load_explicit(&b->state, ACQ);
        if (!(s & UVAS_BLK_BUSY)) {
            *seen = s;
            if (atomic_compare_exchange_weak_explicit(&b->state, seen, s | UVAS_BLK_BUSY,
                                                      memory_order_acq_rel, ACQ))
                return true;
            continue;
        }
        if (!wait)
            return false;
        sched_yield();
    }
}

/* Give a block back unchanged (no new version: nothing moved). */
static void untake(struct uvas_block *b, uint32_t seen)
{
    atomic_store_explicit(&b->state, seen, memory_order_release);
}

static void wake_block(size_t bi)
{
    uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
}

/* Host-page buffers for the jobs' blocks: one import per run of
 * consecutive blocks, through the alias view of the memfd (the range
 * itself is registered with userfaultfd and unmapped there), or, for a
 * range too large to map twice, a view made for the run.
 * run_of[i] and off_of[i] say where job i's pages are. */
struct imports {
    struct uvas_hostbuf buf[BATCH];
    void *view[BATCH];
    size_t view_len[BATCH];
    size_t n;
    uint8_t run_of[BATCH];
    VkDeviceSize off_of[BATCH];
};

static void release_runs(struct imports *im)
{
    for (size_t r = 0; r < im->n; r++) {
        uvas_hostbuf_release(&uvas_g.devtier.dev, &im->buf[r]);
        if (!uvas_g.alias)
            munmap(im->view[r], im->view_len[r]);
    }
    im->n = 0;
}

static int import_runs(struct imports *im, const struct job *j, size_t m)
{
    im->n = 0;
    for (size_t i = 0; i < m;) {
        size_t k = i + 1;
        while (k < m && j[k].bi == j[k - 1].bi + 1)
            k++;
        size_t len = (k - i) << uvas_g.shift;
        void *v = uvas_g.alias ? uvas_g.alias + (j[i].bi << uvas_g.shift)
                               : mmap(NULL, len, PROT_READ | PROT_WRITE,
                                      MAP_SHARED | MAP_POPULATE, uvas_g.memfd,
                                      (off_t)(j[i].bi << uvas_g.shift));
        int rc = v == MAP_FAILED
                     ? uvas_fail(UVAS_ERR_NOMEM, "cannot map host pages of block %zu: %s",
                                 j[i].bi, strerror(errno))
                     : uvas_hostbuf_import(&uvas_g.devtier.dev, v, len, &im->buf[im->n]);
        if (rc) {
            if (v != MAP_FAILED && !uvas_g.alias)
                munmap(v, len);
            release_runs(im);
            return rc;
        }
        im->view[im->n] = v;
        im->view_len[im->n] = len;
        for (size_t x = i; x < k; x++) {
            im->run_of[x] = (uint8_t)im->n;
            im->off_of[x] = (VkDeviceSize)(x - i) << uvas_g.shift;
        }
        im->n++;
        i = k;
    }
    return UVAS_OK;
}

static void count_move(int from, int to, bool populated)
{
    struct uvas_counters *c = &uvas_g.ctr;
    if (from != UVAS_RES_UNPOPULATED)
        uvas_stats_block_out(from);
    uvas_stats_block_in(to, populated);
    if (from != UVAS_RES_UNPOPULATED) {
        atomic_fetch_add_explicit(&c->migrations[to], 1, RLX);
        atomic_fetch_add_explicit(&c->bytes_migrated[to], uvas_g.block_size, RLX);
    }
}

/* ---- device slots and eviction --------------------------------------------- */

static int evict_some(size_t want)
{
    size_t cand[16];
    size_t n = uvas_devtier_lru_oldest(&uvas_g.devtier, cand, want < 16 ? want : 16);
    size_t freed = 0;
    for (size_t i = 0; i < n && freed < want; i++) {
        uint64_t before = atomic_load_explicit(&uvas_g.ctr.migrations[UVAS_RES_HOST], RLX);
        uvas_migrate_blocks(cand[i], 1, UVAS_RES_HOST, UVAS_MIG_NO_MAP);
        if (atomic_load_explicit(&uvas_g.ctr.migrations[UVAS_RES_HOST], RLX) != before) {
            atomic_fetch_add_explicit(&uvas_g.ctr.evictions, 1, RLX);
            freed++;
        }
    }
    return freed ? UVAS_OK : UVAS_ERR_NOMEM;
}

/* A slot, evicting the least recently migrated blocks when the tier is full. */
static int get_slot(uint32_t *slot)
{
    for (int tries = 0; tries < 4; tries++) {
        if (uvas_devtier_slot_alloc(&uvas_g.devtier, slot) == UVAS_OK)
            return UVAS_OK;
        if (evict_some(4) != UVAS_OK)
            break;
    }
    return uvas_fail(UVAS_ERR_NOMEM, "the device tier is full (%zu blocks) and nothing could "
                     "be evicted", uvas_devtier_capacity_blocks(&uvas_g.devtier));
}

static void slot_op(uint32_t slot, struct uvas_copy_op *op, bool to_slot, VkBuffer host,
                    VkDeviceSize host_off)
{
    VkBuffer sb;
    VkDeviceSize so;
    uvas_devtier_slot_where(&uvas_g.devtier, slot, &sb, &so, NULL);
    if (to_slot)
        *op = (struct uvas_copy_op){host, host_off, sb, so, uvas_g.block_size};
    else
        *op = (struct uvas_copy_op){sb, so, host, host_off, uvas_g.block_size};
}

int uvas_migrate_place_on_device(size_t bi)
{
    uint32_t slot;
    int rc = get_slot(&slot);
    if (rc)
        return rc;
    struct uvas_copy_op op;
    slot_op(slot, &op, true, VK_NULL_HANDLE, 0); /* a fill: src NULL */
    op.src = VK_NULL_HANDLE;
    rc = uvas_copier_run(&uvas_g.copier, &op, 1);
    if (rc) {
        uvas_devtier_slot_free(&uvas_g.devtier, slot);
        return rc;
    }
    uvas_g.bt[bi].dev_slot = slot;
    atomic_store_explicit(&uvas_g.bt[bi].shadow, 0, RLX);
    uvas_devtier_lru_add(&uvas_g.devtier, bi);
    return UVAS_OK;
}

void uvas_migrate_drop_device(size_t bi, size_t n)
{
    for (size_t i = bi; i < bi + n; i++) {
        struct uvas_block *b = &uvas_g.bt[i];
        if (!b->dev_slot)
            continue;
        uvas_devtier_lru_remove(&uvas_g.devtier, i);
        uvas_devtier_slot_free(&uvas_g.devtier, b->dev_slot);
        b->dev_slot = 0;
        atomic_store_explicit(&b->shadow, 0, RLX);
    }
}

/* ---- host -> device ---------------------------------------------------------- */

static int batch_to_device(struct job *j, size_t m)
{
    /* Host blocks are unmapped from the range first: from then on every
     * CPU access (user or kernel) is a minor fault that parks until the
     * block is published, so nothing can change the pages being copied.
     * The pages stay in the memfd (a stale shadow after the copy): a later
     * return costs a copy, not an allocation. Untouched blocks get zeroed
     * slots. */
    size_t nh = 0;
    struct job host[BATCH];
    struct uvas_copy_op ops[BATCH];
    size_t nops = 0;
    for (size_t i = 0; i < m; i++) {
        if (j[i].from == UVAS_RES_HOST) {
            madvise(uvas_block_addr(j[i].bi), uvas_g.block_size, MADV_DONTNEED);
            host[nh++] = j[i];
        } else {
            slot_op(j[i].slot, &ops[nops], true, VK_NULL_HANDLE, 0);
            ops[nops++].src = VK_NULL_HANDLE;
        }
    }
    struct imports im = {0};
    int rc = import_runs(&im, host, nh);
    if (rc == UVAS_OK) {
        for (size_t i = 0; i < nh; i++)
            slot_op(host[i].slot, &ops[nops++], true, im.buf[im.run_of[i]].buf, im.off_of[i]);
        rc = uvas_copier_run(&uvas_g.copier, ops, nops);
        release_runs(&im);
    }
    for (size_t i = 0; i < m; i++) {
        size_t bi = j[i].bi;
        struct uvas_block *b = &uvas_g.bt[bi];
        if (rc) { /* nothing moved: the host pages are still the data */
            uvas_devtier_slot_free(&uvas_g.devtier, j[i].slot);
            untake(b, j[i].seen);
            wake_block(bi); /* parked accessors retry: a minor fault maps it */
            continue;
        }
        b->dev_slot = j[i].slot;
        atomic_store_explicit(&b->shadow, j[i].from == UVAS_RES_HOST, RLX);
        uvas_devtier_lru_add(&uvas_g.devtier, bi);
        uvas_blk_publish(b, j[i].seen, UVAS_RES_DEVICE);
        count_move(j[i].from, UVAS_RES_DEVICE, j[i].from == UVAS_RES_UNPOPULATED);
        wake_block(bi);
    }
    return rc;
}

/* ---- device -> host ---------------------------------------------------------- */

static int batch_to_host(struct job *j, size_t m, unsigned flags)
{
    struct uvas_copy_op ops[BATCH];
    int rc = UVAS_OK;
    /* The memfd must hold the pages the copy lands in: it keeps them as a
     * shadow, unless the block was placed on the device directly. */
    for (size_t i = 0; i < m && !rc; i++)
        if (!atomic_load_explicit(&uvas_g.bt[j[i].bi].shadow, RLX) &&
            fallocate(uvas_g.memfd, 0, (off_t)(j[i].bi << uvas_g.shift),
                      (off_t)uvas_g.block_size) < 0)
            rc = uvas_fail(UVAS_ERR_NOMEM, "cannot allocate host pages for block %zu: %s",
                           j[i].bi, strerror(errno));
    struct imports im = {0};
    if (!rc)
        rc = import_runs(&im, j, m);
    if (!rc) {
        for (size_t i = 0; i < m; i++)
            slot_op(j[i].slot, &ops[i], false, im.buf[im.run_of[i]].buf, im.off_of[i]);
        rc = uvas_copier_run(&uvas_g.copier, ops, m);
        release_runs(&im);
    }
    for (size_t i = 0; i < m; i++) {
        size_t bi = j[i].bi;
        struct uvas_block *b = &uvas_g.bt[bi];
        if (rc) { /* the device copy is still the data */
            untake(b, j[i].seen);
            wake_block(bi);
            continue;
        }
        if (!(flags & UVAS_MIG_NO_MAP))
            uvas_uffd_continue(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
        uvas_migrate_drop_device(bi, 1);
        uvas_blk_publish(b, j[i].seen, UVAS_RES_HOST);
        count_move(UVAS_RES_DEVICE, UVAS_RES_HOST, false);
        wake_block(bi);
    }
    return rc;
}

/* Populate untouched blocks on the host (a migration to the host of
 * memory nobody touched yet): zero pages, as a first touch would. */
static void place_on_host(struct job *j)
{
    char *a = uvas_block_addr(j->bi);
    int e = uvas_uffd_zero(&uvas_g.uffd, a, uvas_g.block_size);
    struct uvas_block *b = &uvas_g.bt[j->bi];
    if (e) {
        untake(b, j->seen);
    } else {
        uvas_blk_publish(b, j->seen, UVAS_RES_HOST);
        uvas_stats_block_in(UVAS_RES_HOST, 1);
    }
    wake_block(j->bi);
}

int uvas_migrate_blocks(size_t first, size_t n, int to, unsigned flags)
{
    if (!uvas_devtier_present(&uvas_g.devtier))
        return uvas_fail(UVAS_ERR_NO_DEVICE, "no device tier: %s", uvas_g.device_note);
    uint64_t t0 = now_ns();
    int rc = UVAS_OK;
    struct job j[BATCH];
    for (size_t c = first; c < first + n && rc == UVAS_OK;) {
        size_t m = 0;
        for (; c < first + n && m < BATCH && rc == UVAS_OK; c++) {
            struct uvas_block *b = &uvas_g.bt[c];
            struct job x = {.bi = c};
            if (!take(b, flags & UVAS_MIG_WAIT, &x.seen))
                continue;
            x.from = uvas_blk_res(x.seen);
            if (x.from == to) {
                untake(b, x.seen);
                continue;
            }
            if (to == UVAS_RES_HOST) {
                if (x.from == UVAS_RES_UNPOPULATED) {
                    place_on_host(&x);
                    continue;
                }
                x.slot = b->dev_slot;
            } else if ((rc = get_slot(&x.slot)) != UVAS_OK) {
                untake(b, x.seen);
                wake_block(c);
                break;
            }
            j[m++] = x;
        }
        int r = to == UVAS_RES_DEVICE ? batch_to_device(j, m) : batch_to_host(j, m, flags);
        if (rc == UVAS_OK)
            rc = r;
    }
    atomic_fetch_add_explicit(&uvas_g.ctr.migrate_ns_total, now_ns() - t0, RLX);
    return rc;
}
