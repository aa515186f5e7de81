/* The migration engine: the protocol of migrate.h, batched. */
#include "migrate/migrate.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fault/service.h"
#include "migrate/copy.h"
#include "migrate/cpuview.h"
#include "migrate/import.h"
#include "migrate/import_cache.h"
#include "migrate/pinner.h"
#include "migrate/staging.h"
#include "migrate/policy.h"
#include "migrate/state.h"
#include "migrate/transition.h"
#include "uvas/atomics.h"
#include "uvas/gate.h"
#include "uvas/inject.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"
#include "uvas/uffd.h"

/* Blocks per submission, and submissions in flight: the copy engine works
 * on the oldest stages while the CPU prepares the next one (to the device:
 * unmaps its pages; to the host: makes sure the memfd holds them) and
 * finishes the last (to the host: maps its pages). The first stage is
 * short so the engine starts early. A migration takes up to MAX_JOBS
 * blocks at once, so the pipeline drains once per MAX_JOBS, not per stage. */
#define STAGE 8
#define FIRST_STAGE 2
#define DEPTH 3
#define BATCH 256     /* jobs on the stack */
#define MAX_JOBS 8192 /* jobs taken at once (16 GiB of 2 MiB blocks) */

struct job {
    size_t bi;
    uint32_t seen; /* state before BUSY */
    int from;
    uint32_t slot;
    bool dup;                /* to the device keeping a read-only host copy */
    bool defer_wake;         /* on failure the faulting caller wakes it */
    bool shown;              /* to the host: shown there before it ends (show_host) */
    bool staged;             /* copied through a staging lane: pin it after */
    struct uvas_import tmp; /* an uncached import to release */
};

/* Time spent since *t0 goes to counter c; *t0 moves on. */
static void lap(_Atomic uint64_t *c, uint64_t *t0)
{
    uint64_t t = uvas_os_now_ns();
    atomic_fetch_add_explicit(c, t - *t0, RLX);
    *t0 = t;
}

/* The blocks per tier follow the residence the blocks show. */
static void count_tiers(int from, int to, bool populated)
{
    if (from != UVAS_RES_UNPOPULATED)
        uvas_stats_block_out(from);
    uvas_stats_block_in(to, populated);
}

/* The move's own counts, and the tiers' unless done already (shown). */
static void count_move(size_t bi, int from, int to, bool populated, bool tiers_done)
{
    struct uvas_counters *c = &uvas_g.ctr;
    if (!tiers_done)
        count_tiers(from, to, populated);
    if (from != UVAS_RES_UNPOPULATED) {
        struct uvas_block *b = &uvas_g.bt[bi];
        atomic_fetch_add_explicit(&b->moves, 1, RLX);
        atomic_store_explicit(&b->moved_ns, uvas_os_now_ns(), RLX);
        atomic_fetch_add_explicit(&c->migrations[to], 1, RLX);
        atomic_fetch_add_explicit(&c->bytes_migrated[to], uvas_g.block_size, RLX);
    }
}

/* ---- device slots and eviction --------------------------------------------- */

static bool evict_block(size_t bi);

static int evict_some(size_t want)
{
    size_t cand[16];
    size_t n = uvas_devtier_lru_oldest(&uvas_g.devtier, cand, want < 16 ? want : 16);
    size_t freed = 0;
    for (size_t i = 0; i < n && freed < want; i++)
        if (evict_block(cand[i])) {
            atomic_fetch_add_explicit(&uvas_g.ctr.evictions, 1, RLX);
            freed++;
        }
    return freed ? UVAS_OK : UVAS_ERR_NOMEM;
}

/* A slot for block bi; when the tier is full the policy says whether to
 * evict the least recently migrated blocks or leave bi on the host. */
static int get_slot(size_t bi, uint32_t *slot)
{
    for (int tries = 0; tries < 4; tries++) {
        if (uvas_devtier_slot_alloc(&uvas_g.devtier, slot) == UVAS_OK)
            return UVAS_OK;
        if (uvas_policy_device_full(&uvas_mg.policy, bi) != UVAS_FULL_DO_EVICT)
            return uvas_fail(UVAS_ERR_NOMEM, "the device tier is full and policy '%s' keeps "
                             "new blocks on the host", uvas_mg.policy.spec);
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
    size_t placed;
    return uvas_migrate_place_many_on_device(&bi, 1, false, &placed);
}

int uvas_migrate_place_many_on_device(const size_t *bi, size_t n, bool before_run,
                                      size_t *placed)
{
    struct uvas_copy_op ops[UVAS_PLACE_MAX];
    uint32_t slot[UVAS_PLACE_MAX];
    size_t k = 0;
    int rc = UVAS_OK;
    *placed = 0;
    if (n > UVAS_PLACE_MAX)
        n = UVAS_PLACE_MAX;
    /* As many slots as the tier gives (the rest go where the caller says):
     * the first refusal ends the batch, later blocks would evict for
     * nothing. */
    while (k < n && (rc = get_slot(bi[k], &slot[k])) == UVAS_OK) {
        slot_op(slot[k], &ops[k], true, VK_NULL_HANDLE, 0); /* no source: a zero fill */
        k++;
    }
    if (!k)
        return rc;
    /* One submission and one wait for all of them. */
    struct uvas_copy_ticket t;
    int crc = uvas_copier_submit(&uvas_mg.copier, ops, k,
                                 UVAS_COPY_SOON | UVAS_COPY_SPREAD |
                                     (before_run ? UVAS_COPY_SM_FILL : 0),
                                 &t);
    if (!crc)
        crc = uvas_copier_wait(&uvas_mg.copier, &t);
    if (crc) {
        for (size_t i = 0; i < k; i++)
            uvas_devtier_slot_free(&uvas_g.devtier, slot[i]);
        return crc;
    }
    for (size_t i = 0; i < k; i++) {
        uvas_g.bt[bi[i]].dev_slot = slot[i];
        atomic_store_explicit(&uvas_g.bt[bi[i]].shadow, 0, RLX);
        uvas_devtier_lru_add(&uvas_g.devtier, bi[i]);
    }
    *placed = k;
    return UVAS_OK;
}

/* ---- staged copies ------------------------------------------------------------ */

/* Drop the cached imports of jobs [a, b) that a punch made stale, a run
 * of consecutive blocks at a time; punched[i - a]: block i had a hole. */
static void revalidate_imports(struct job *j, size_t a, size_t b, bool *punched)
{
    for (size_t i = a; i < b;) {
        size_t k = i + 1;
        while (k < b && j[k].bi == j[k - 1].bi + 1)
            k++;
        uvas_import_cache_revalidate(j[i].bi, k - i, punched + (i - a));
        i = k;
    }
}

/* Does job x's copy go through a lane? Its block's host pages, whose
 * import is not kept (the device's side is a slot either way). */
static bool cold(const struct job *x, bool to_device)
{
    return x->from == (to_device ? UVAS_RES_HOST : UVAS_RES_DEVICE) &&
           !uvas_import_cache_has(x->bi);
}

/* Copies into a lane started and not finished yet (at most one per
 * block of a stage). */
struct lane_copies {
    struct uvas_fill_job job[STAGE];
    size_t n;
};

/* Jobs [a, b) whose host pages' imports are not kept, through a lane
 * (staging.h): to the device, their pages copied into it with the fault
 * service's threads (started into *cp, which the caller finishes; not at
 * all with `later`: a lone block, copied whole once unmapped) and the
 * copy engine reading it; to the host, the copy engine writing it and
 * unstage() copying it out after. Their ops are set; lane->index -1 when
 * no lane was taken (no lane free: they are imported instead). Nothing
 * here can fail: the copies into the lane are only started. */
static void stage_lane(struct job *j, size_t a, size_t b, bool to_device, bool later,
                       struct lane_copies *cp, struct uvas_copy_op *ops, struct uvas_lane *lane)
{
    lane->index = -1;
    size_t n = 0;
    for (size_t i = a; i < b; i++)
        n += cold(&j[i], to_device);
    if (!n || !uvas_g.alias || !uvas_staging_take((b - a) << uvas_g.shift, lane))
        return;
    for (size_t i = a; i < b;) {
        if (!cold(&j[i], to_device)) {
            i++;
            continue;
        }
        size_t k = i + 1;
        while (k < b && cold(&j[k], to_device) && j[k].bi == j[k - 1].bi + 1)
            k++;
        if (to_device && !later)
            uvas_fault_copy_start(&cp->job[cp->n++], lane->map + ((i - a) << uvas_g.shift),
                                  uvas_g.alias + (j[i].bi << uvas_g.shift),
                                  (k - i) << uvas_g.shift);
        for (size_t x = i; x < k; x++) {
            slot_op(j[x].slot, &ops[x - a], to_device, lane->buf,
                    lane->off + ((x - a) << uvas_g.shift));
            j[x].staged = true;
        }
        i = k;
    }
}

/* To the host, after the copy: the lane's staged blocks into their host
 * pages (before those are mapped). Status. */
static int unstage(struct job *j, size_t a, size_t b, const struct uvas_lane *lane)
{
    int rc = UVAS_OK;
    for (size_t i = a; i < b && rc == UVAS_OK;) {
        if (!j[i].staged) {
            i++;
            continue;
        }
        size_t k = i + 1;
        while (k < b && j[k].staged && j[k].bi == j[k - 1].bi + 1)
            k++;
        rc = uvas_fault_copy(uvas_g.alias + (j[i].bi << uvas_g.shift),
                             lane->map + ((i - a) << uvas_g.shift), (k - i) << uvas_g.shift);
        i = k;
    }
    return rc;
}

/* The copy ops of jobs [a, b); fills for untouched blocks going to the
 * device. lane NULL: no staging; `later`, cp: stage_lane's (cp's copies
 * run on after this returns, whatever its status). */
static int stage_ops(struct job *j, size_t a, size_t b, bool to_device, bool later,
                     struct lane_copies *cp, struct uvas_copy_op *ops, struct uvas_lane *lane)
{
    uint64_t t0 = uvas_os_now_ns();
    int rc = UVAS_OK;
    bool punched[STAGE];
    if (to_device)
        revalidate_imports(j, a, b, punched);
    if (lane)
        stage_lane(j, a, b, to_device, later, cp, ops, lane);
    for (size_t i = a; i < b && rc == UVAS_OK; i++) {
        if (to_device && j[i].from == UVAS_RES_UNPOPULATED) {
            slot_op(j[i].slot, &ops[i - a], true, VK_NULL_HANDLE, 0); /* a zero fill */
            continue;
        }
        if (j[i].staged)
            continue;
        VkBuffer hb;
        VkDeviceSize ho;
        rc = uvas_import_cache_get(j[i].bi, &hb, &ho, &j[i].tmp);
        if (rc == UVAS_OK)
            slot_op(j[i].slot, &ops[i - a], to_device, hb, ho);
    }
    lap(&uvas_g.ctr.migrate_ns_import, &t0);
    return rc;
}

static void stage_put(struct job *j, size_t a, size_t b)
{
    uint64_t t0 = uvas_os_now_ns();
    for (size_t i = a; i < b; i++)
        uvas_import_cache_put(&j[i].tmp);
    lap(&uvas_g.ctr.migrate_ns_import, &t0);
}

/* Jobs [a, b) published: the staged ones' imports, off this path. */
static void pin_staged(const struct job *j, size_t a, size_t b)
{
    for (size_t i = a; i < b;) {
        size_t k = i;
        while (k < b && j[k].staged && (k == i || j[k].bi == j[k - 1].bi + 1))
            k++;
        if (k > i) {
            atomic_fetch_add_explicit(&uvas_g.ctr.staged_blocks, k - i, RLX);
            uvas_pinner_add(j[i].bi, k - i);
        }
        i = k > i ? k : i + 1;
    }
}

static int unmap_stage(struct job *j, size_t a, size_t b);

/* Stage [a, b)'s copies submitted. To the device, while the service
 * threads copy its cold blocks into a lane, the calling thread unmaps the
 * next stage, [na, nb) (none if na == nb): *next_rc is that status and
 * *unmapped says it was done (only beside a lane copy: otherwise the next
 * stage is unmapped in its turn). Status. */
static int stage_submit(struct job *j, size_t a, size_t b, bool to_device, unsigned cflags,
                        struct uvas_copy_ticket *t, struct uvas_lane *lane, size_t na,
                        size_t nb, int *next_rc, bool *unmapped)
{
    struct uvas_copy_op ops[STAGE];
    struct lane_copies cp = {.n = 0};
    *t = (struct uvas_copy_ticket){0};
    *unmapped = false;
    int rc = stage_ops(j, a, b, to_device, false, &cp, ops, lane);
    if (cp.n && na < nb) {
        *next_rc = unmap_stage(j, na, nb);
        *unmapped = true;
    }
    for (size_t i = 0; i < cp.n; i++) {
        int e = uvas_fault_copy_finish(&cp.job[i]);
        if (rc == UVAS_OK)
            rc = e;
    }
    if (rc == UVAS_OK)
        rc = uvas_copier_submit(&uvas_mg.copier, ops, b - a, cflags, t);
    return rc;
}

static int stage_wait(struct uvas_copy_ticket *t)
{
    uint64_t t0 = uvas_os_now_ns();
    int rc = uvas_copier_wait(&uvas_mg.copier, t);
    lap(&uvas_g.ctr.migrate_ns_copy, &t0);
    return rc;
}

/* ---- host -> device ---------------------------------------------------------- */

/* Host blocks are unmapped from the range before their copy starts: from
 * then on every CPU access (user or kernel) is a minor fault that parks
 * until the block is published, so nothing can change the pages being
 * copied. The pages stay in the memfd as a stale shadow: a later return
 * costs a copy, not an allocation. */
/* Read-mostly host blocks stay mapped, write-protected: readers keep the
 * host pages; a writer parks on the protection and, once the block is
 * published, drops the device copy. (If protecting fails, the block is
 * unmapped like any other.) */
static void protect_read_mostly(struct job *j, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++)
        j[i].dup = j[i].from == UVAS_RES_HOST &&
                   (atomic_load_explicit(&uvas_g.bt[j[i].bi].advice, RLX) &
                    UVAS_BA_READ_MOSTLY) &&
                   uvas_uffd_protect(&uvas_g.uffd, uvas_block_addr(j[i].bi), uvas_g.block_size,
                                     true) == 0;
}

/* Unmap [addr, addr + len) of the range (spread over the service
 * threads), timed as page-table work. Status: pages still mapped may not
 * be copied (what the CPU writes there after would be lost). */
static int unmap_range(uintptr_t addr, size_t len)
{
    uint64_t t0 = uvas_os_now_ns();
    int rc = uvas_fault_unmap_blocks(addr, len);
    lap(&uvas_g.ctr.migrate_ns_map, &t0);
    return rc;
}

/* Jobs [a, b)'s host pages unmapped (read-mostly ones write-protected
 * instead). Status: on failure the stage rolls back. */
static int unmap_stage(struct job *j, size_t a, size_t b)
{
    uint64_t t0 = uvas_os_now_ns();
    int rc = UVAS_OK;
    protect_read_mostly(j, a, b);
    for (size_t i = a; i < b && rc == UVAS_OK;) {
        if (j[i].from != UVAS_RES_HOST || j[i].dup) {
            i++;
            continue;
        }
        size_t k = i + 1;
        while (k < b && j[k].from == UVAS_RES_HOST && !j[k].dup && j[k].bi == j[k - 1].bi + 1)
            k++;
        rc = uvas_fault_unmap_blocks((uintptr_t)uvas_block_addr(j[i].bi),
                                     (k - i) << uvas_g.shift);
        i = k;
    }
    lap(&uvas_g.ctr.migrate_ns_map, &t0);
    return rc;
}

static void finish_to_device(struct job *x, int rc)
{
    struct uvas_block *b = &uvas_g.bt[x->bi];
    bool dup = x->dup;
    if (rc) { /* nothing moved: the host pages are still the data */
        if (dup)
            uvas_uffd_protect(&uvas_g.uffd, uvas_block_addr(x->bi), uvas_g.block_size, false);
        uvas_devtier_slot_free(&uvas_g.devtier, x->slot);
        uvas_migrate_untake(b, x->seen);
    } else {
        b->dev_slot = x->slot;
        atomic_store_explicit(&b->shadow, x->from == UVAS_RES_HOST, RLX);
        atomic_store_explicit(&b->dup, dup, RLX);
        uvas_devtier_lru_add(&uvas_g.devtier, x->bi);
        bool parked = uvas_blk_publish(b, x->seen, UVAS_RES_DEVICE);
        count_move(x->bi, x->from, UVAS_RES_DEVICE, x->from == UVAS_RES_UNPOPULATED, false);
        if (!parked)
            return; /* no fault parked on it: a wake (a system call a block) wakes nobody */
    }
    uvas_migrate_wake(x->bi); /* parked accessors retry against the new state */
}

/* ---- device -> host ---------------------------------------------------------- */

/* A block on its way to the host, its pages about to be mapped: from then
 * on a thread may use them in place (one woken for an earlier block of
 * the migration runs on into this one), so queries and the tiers' counts
 * say host from now (uvas_blk_show); finish_to_host ends it, or undoes
 * this if the copy failed. */
static void show_host(struct job *x)
{
    uvas_blk_show(&uvas_g.bt[x->bi], UVAS_RES_HOST);
    count_tiers(UVAS_RES_DEVICE, UVAS_RES_HOST, false);
    x->shown = true;
}

/* Map [addr, addr + len) back into the range (spread over the service
 * threads), timed as page-table work. */
static void map_range(uintptr_t addr, size_t len)
{
    uint64_t t0 = uvas_os_now_ns();
    uvas_fault_map_blocks(addr, len);
    lap(&uvas_g.ctr.migrate_ns_map, &t0);
}

/* Map the copied pages of jobs [a, b), runs of consecutive blocks at a
 * time. */
static void map_stage(struct job *j, size_t a, size_t b)
{
    for (size_t i = a; i < b; i++)
        show_host(&j[i]);
    for (size_t i = a; i < b;) {
        size_t k = i + 1;
        while (k < b && j[k].bi == j[k - 1].bi + 1)
            k++;
        map_range((uintptr_t)uvas_block_addr(j[i].bi), (k - i) << uvas_g.shift);
        i = k;
    }
}

static void finish_to_host(struct job *x, int rc)
{
    struct uvas_block *b = &uvas_g.bt[x->bi];
    if (rc) { /* the device copy is still the data */
        if (x->shown)
            count_tiers(UVAS_RES_HOST, UVAS_RES_DEVICE, false);
        uvas_blk_unbusy(b, x->seen);
        if (x->defer_wake)
            return; /* the fault path signals its thread, then wakes */
    } else {
        uvas_migrate_drop_device(x->bi, 1);
        bool parked = uvas_blk_publish(b, x->seen, UVAS_RES_HOST);
        count_move(x->bi, UVAS_RES_DEVICE, UVAS_RES_HOST, false, x->shown);
        /* The block of the fault being served is not parked: its handler
         * is here. Others only if marked. */
        if (!parked && !x->defer_wake)
            return;
    }
    uvas_migrate_wake(x->bi);
}

/* The memfd holds block bi's pages, or is made to. Status. */
static int hold_pages(size_t bi)
{
    if (atomic_load_explicit(&uvas_g.bt[bi].shadow, RLX))
        return UVAS_OK;
    int rc = uvas_inject_fail(UVAS_INJ_MEMFD)
                 ? uvas_fail(UVAS_ERR_NOMEM, "fallocate: injected failure")
                 : uvas_os_allocate(uvas_g.memfd, bi << uvas_g.shift, uvas_g.block_size);
    if (rc)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot allocate host pages for block %zu: %s", bi,
                         uvas_last_error());
    return UVAS_OK;
}

/* Before the way back of jobs [0, m), all at once so that a failure moves
 * nothing: CPU views gone, the memfd holding pages. Status. */
static int prepare_to_host(struct job *j, size_t m)
{
    int rc = UVAS_OK;
    uint64_t t0 = uvas_os_now_ns();
    /* A CPU view of device memory goes first: writes through it must all
     * be in before the copy starts. */
    for (size_t i = 0; i < m && !rc; i++)
        rc = uvas_cpuview_unmap(j[i].bi);
    /* The memfd must hold the pages the copy lands in: it keeps them as a
     * shadow, unless the block was placed on the device directly. */
    for (size_t i = 0; i < m && !rc; i++)
        rc = hold_pages(j[i].bi);
    lap(&uvas_g.ctr.migrate_ns_map, &t0);
    return rc;
}

/* Jobs [a, b) of the way back, just before their copy: a shadow the user
 * punched (MADV_REMOVE) loses its import of the old pages and is filled
 * again. Status. */
static int recheck_shadows(struct job *j, size_t a, size_t b)
{
    uint64_t t0 = uvas_os_now_ns();
    bool punched[STAGE];
    revalidate_imports(j, a, b, punched);
    int rc = UVAS_OK;
    for (size_t i = a; i < b && !rc; i++)
        if (punched[i - a]) {
            atomic_store_explicit(&uvas_g.bt[j[i].bi].shadow, 0, RLX);
            rc = hold_pages(j[i].bi);
        }
    lap(&uvas_g.ctr.migrate_ns_map, &t0);
    return rc;
}

/* A lone block's pieces: its copy cut in LONE_PIECES where its pages'
 * unmapping or mapping can overlap the rest (lone_to_host,
 * lone_to_device): from 256 pages (2 MiB of 4 KiB pages), where they
 * cost what the copy does; two below. Four against two and eight on the
 * H200: docs/migration.md. */
#define LONE_PIECES 4
#define LONE_PIECES_MAX 4

static size_t lone_pieces(void)
{
    return uvas_g.block_size >= 256 * uvas_g.uffd.page ? LONE_PIECES : 2;
}

/* Piece p waits on its copy queue behind the pieces before it there
 * (pieces under a MiB go to one queue each, in turn): its ticket counts
 * their bytes too, for the wait's poll and the pace it learns. */
static void count_queued(struct uvas_copy_ticket *t, const struct uvas_copy_op *piece, size_t p)
{
    for (size_t e = 0; e < p; e++)
        for (size_t q = 0; q < UVAS_COPY_QUEUES_MAX; q++)
            if (t[e].part[q].value && t[p].part[q].value) {
                t[p].bytes += piece[e].size;
                break;
            }
}

/* Bytes [off, off + len) of a copy or fill. */
static struct uvas_copy_op op_piece(const struct uvas_copy_op *op, size_t off, size_t len)
{
    struct uvas_copy_op p = *op;
    p.dst_off += off;
    if (p.src != VK_NULL_HANDLE)
        p.src_off += off;
    p.size = len;
    return p;
}

/*
 * A lone block back to the host and mapped (its migration's only stage,
 * not an eviction, which leaves the pages unmapped): copied in pieces
 * (lone_pieces), each split over the copy queues, each piece's pages
 * mapped while the later pieces copy. The mapping after the copy was a
 * quarter of such a migration's time, and nothing overlapped it
 * (docs/migration.md). Every piece is submitted before anything is
 * mapped, so only a failed copy (a lost device) can come after a mapping;
 * then what was mapped is unmapped again and the block stays where it
 * was. The CPU may reach the first pieces before the block is published:
 * the device copy cannot change while the block is taken, and what the
 * CPU writes there lands in the pages that become the data. A block with
 * no kept import is staged: each piece copied out of the lane before its
 * pages are mapped. Status.
 */
static int lone_to_host(struct job *j, int rc)
{
    struct uvas_copy_op op, piece[LONE_PIECES_MAX];
    struct uvas_copy_ticket t[LONE_PIECES_MAX];
    struct uvas_lane lane = {.index = -1};
    memset(t, 0, sizeof t);
    size_t n = lone_pieces(), len = uvas_g.block_size / n, sent = 0, mapped = 0;
    uintptr_t at = (uintptr_t)uvas_block_addr(j->bi);
    if (rc == UVAS_OK)
        rc = recheck_shadows(j, 0, 1);
    if (rc == UVAS_OK)
        rc = stage_ops(j, 0, 1, false, false, NULL, &op, &lane);
    for (; rc == UVAS_OK && sent < n; sent++) {
        piece[sent] = op_piece(&op, sent * len, len);
        rc = uvas_copier_submit(&uvas_mg.copier, &piece[sent], 1,
                                UVAS_COPY_SOON | UVAS_COPY_SPREAD, &t[sent]);
        if (rc == UVAS_OK)
            count_queued(t, piece, sent);
    }
    if (rc != UVAS_OK) {
        for (size_t p = 0; p < n && t[p].bytes; p++)
            stage_wait(&t[p]); /* what went ran; nothing is mapped */
    } else {
        for (size_t p = 0; p < n; p++) {
            int rp = stage_wait(&t[p]);
            if (rc == UVAS_OK)
                rc = rp;
            if (rc == UVAS_OK && j->staged)
                rc = uvas_fault_copy((uvas_g.alias + (j->bi << uvas_g.shift)) + p * len,
                                     lane.map + p * len, len);
            if (rc != UVAS_OK)
                continue; /* the later pieces are waited for, not mapped */
            if (p == 0)
                show_host(j);
            map_range(at + mapped, len);
            mapped += len;
        }
        if (rc != UVAS_OK && mapped)
            uvas_fault_unmap_blocks(at, mapped); /* the device copy stays the data */
    }
    stage_put(j, 0, 1);
    uvas_staging_give(&lane);
    finish_to_host(j, rc);
    if (rc == UVAS_OK)
        pin_staged(j, 0, 1);
    return rc;
}

/*
 * A lone host block to the device (its migration's only stage): unmapped
 * and copied in pieces (lone_pieces), each piece unmapped while the ones
 * before it copy, each split over the copy queues. Unmapping a block of 4
 * KiB pages is one page table under one lock, most of such a migration's
 * time, and nothing overlapped it (docs/migration.md). Each piece is
 * unmapped before its copy is submitted, so what the CPU writes lands in
 * pages before they are copied or parks until the block is published. A
 * read-mostly block is write-protected whole instead (protect_read_mostly)
 * and stays mapped. A block with no kept import is staged: unmapped and
 * copied into the lane whole before its pieces are submitted. Status.
 */
static int lone_to_device(struct job *j, int rc)
{
    struct uvas_copy_op op, piece[LONE_PIECES_MAX];
    struct uvas_copy_ticket t[LONE_PIECES_MAX];
    struct uvas_lane lane = {.index = -1};
    memset(t, 0, sizeof t);
    size_t n = lone_pieces(), len = uvas_g.block_size / n;
    uintptr_t at = (uintptr_t)uvas_block_addr(j->bi);
    if (rc == UVAS_OK) {
        protect_read_mostly(j, 0, 1);
        rc = stage_ops(j, 0, 1, true, true, NULL, &op, &lane);
    }
    /* Staged: the whole block unmapped, then copied into the lane by all
     * the service threads at once; copying piece by piece as each was
     * unmapped woke the threads four times for a few hundred KiB each
     * (a 2 MiB block's first move 490-610 us against 380-430 on the H200,
     * docs/migration.md). */
    bool ready = false;
    if (rc == UVAS_OK && j->staged) {
        if (!j->dup)
            rc = unmap_range(at, uvas_g.block_size);
        if (rc == UVAS_OK)
            rc = uvas_fault_copy(lane.map, uvas_g.alias + (j->bi << uvas_g.shift),
                                 uvas_g.block_size);
        ready = true;
    }
    for (size_t p = 0; rc == UVAS_OK && p < n; p++) {
        if (!ready && !j->dup && (rc = unmap_range(at + p * len, len)) != UVAS_OK)
            break; /* the pieces sent are waited for, the block stays */
        piece[p] = op_piece(&op, p * len, len);
        rc = uvas_copier_submit(&uvas_mg.copier, &piece[p], 1,
                                UVAS_COPY_SOON | UVAS_COPY_SPREAD, &t[p]);
        if (rc == UVAS_OK)
            count_queued(t, piece, p);
    }
    for (size_t p = 0; p < n && t[p].bytes; p++) {
        int rp = stage_wait(&t[p]);
        if (rc == UVAS_OK)
            rc = rp;
    }
    stage_put(j, 0, 1);
    uvas_staging_give(&lane);
    finish_to_device(j, rc);
    if (rc == UVAS_OK)
        pin_staged(j, 0, 1);
    return rc;
}

/* ---- the pipeline -------------------------------------------------------------- */

/* Stage k's jobs: [stage_at(k), stage_at(k + 1)) clipped to m. (A small
 * last stage too, for the mapping after the last copy, gained nothing:
 * docs/migration.md.) */
static size_t stage_at(size_t k, size_t m)
{
    size_t a = k == 0 ? 0 : FIRST_STAGE + (k - 1) * STAGE;
    return a < m ? a : m;
}

/*
 * Both directions, in stages, up to DEPTH submitted at a time: a stage is
 * prepared (to the device: its host pages unmapped, as they must be before
 * the copy reads them; to the host: the memfd made to hold them) and
 * submitted, and the oldest stage is waited for and finished (to the
 * host: its pages mapped, as they may be only after the copy wrote them)
 * once DEPTH are in flight or nothing is left to submit. A stage that
 * fails rolls its jobs back; none is submitted after a failure is seen.
 * rc: an error already met (nothing is submitted then; every job rolls back).
 */
static int run_stages_(struct job *j, size_t m, bool to_device, unsigned flags, int rc);

/* The pinner stays out of the driver while a migration runs (an
 * eviction's too: it may come from outside migrate_blocks). */
static int run_stages(struct job *j, size_t m, bool to_device, unsigned flags, int rc)
{
    uvas_pinner_migration(true);
    rc = run_stages_(j, m, to_device, flags, rc);
    uvas_pinner_migration(false);
    return rc;
}

static int run_stages_(struct job *j, size_t m, bool to_device, unsigned flags, int rc)
{
    /* Pieces are mapped apart: each must be whole pages of the range (a
     * block of one huge page is mapped in one step, which costs little). */
    if (m == 1 && !to_device && !(flags & UVAS_MIG_NO_MAP) &&
        uvas_g.block_size >= 2 * uvas_g.uffd.page)
        return lone_to_host(j, rc);
    /* In pieces only where unmapping a block costs what its copy does:
     * 256 pages and more (2 MiB of 4 KiB pages: docs/migration.md); a
     * small block's pages unmap in microseconds, less than a second
     * submission costs. */
    if (m == 1 && to_device && j->from == UVAS_RES_HOST &&
        uvas_g.block_size >= 256 * uvas_g.uffd.page)
        return lone_to_device(j, rc);
    size_t nst = 0;
    while (stage_at(nst, m) < m)
        nst++;
    struct uvas_copy_ticket t[DEPTH];
    struct uvas_lane lanes[DEPTH];
    int st_rc[DEPTH];
    /* A stage unmapped ahead, beside the lane copy of the one before it
     * (stage_submit), and that unmapping's status. An error met before its
     * turn rolls it back like any stage (its pages are still the memfd's). */
    size_t ahead = SIZE_MAX;
    int ahead_rc = UVAS_OK;
    for (size_t next = 0, done = 0; done < nst;) {
        if (next < nst && next - done < DEPTH) {
            size_t a = stage_at(next, m), b = stage_at(next + 1, m), r = next % DEPTH;
            t[r] = (struct uvas_copy_ticket){0};
            lanes[r].index = -1;
            int prc = rc;
            if (prc == UVAS_OK && to_device)
                prc = ahead == next ? ahead_rc : unmap_stage(j, a, b);
            else if (prc == UVAS_OK)
                prc = recheck_shadows(j, a, b);
            /* A lone stage is split over the copy queues. */
            unsigned cf = (nst == 1 ? UVAS_COPY_SOON | UVAS_COPY_SPREAD : 0) |
                          (flags & UVAS_MIG_SM_FILL ? UVAS_COPY_SM_FILL : 0);
            size_t na = to_device && next + 1 < nst ? b : 0, nb = na ? stage_at(next + 2, m) : 0;
            bool unmapped = false;
            st_rc[r] = prc ? prc
                           : stage_submit(j, a, b, to_device, cf, &t[r], &lanes[r], na, nb,
                                          &ahead_rc, &unmapped);
            if (unmapped)
                ahead = next + 1;
            next++;
            continue;
        }
        size_t a = stage_at(done, m), b = stage_at(done + 1, m), r = done % DEPTH;
        if (st_rc[r] == UVAS_OK)
            st_rc[r] = stage_wait(&t[r]);
        if (!to_device && st_rc[r] == UVAS_OK && lanes[r].index >= 0)
            st_rc[r] = unstage(j, a, b, &lanes[r]);
        stage_put(j, a, b);
        uvas_staging_give(&lanes[r]); /* its copy is done (or never ran) */
        if (!to_device && st_rc[r] == UVAS_OK && !(flags & UVAS_MIG_NO_MAP))
            map_stage(j, a, b);
        for (size_t i = a; i < b; i++) {
            if (to_device)
                finish_to_device(&j[i], st_rc[r]);
            else
                finish_to_host(&j[i], st_rc[r]);
        }
        if (st_rc[r] == UVAS_OK)
            pin_staged(j, a, b);
        if (!rc)
            rc = st_rc[r];
        done++;
    }
    return rc;
}

/* One victim to the host, if it is device-resident and nobody else holds
 * it; its pages stay unmapped until the CPU wants them. */
static bool evict_block(size_t bi)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    struct job x = {.bi = bi};
    if (!uvas_blk_take(b, false, &x.seen))
        return false;
    if (uvas_blk_res(x.seen) != UVAS_RES_DEVICE ||
        (atomic_load_explicit(&b->advice, RLX) & UVAS_BA_SHARED)) {
        uvas_migrate_untake(b, x.seen);
        return false;
    }
    /* Unmapping a CPU view waits for the fault threads to read an event:
     * a fault thread does not do it itself. */
    if (uvas_on_fault_thread && atomic_load_explicit(&b->cpu_mapped, RLX)) {
        uvas_migrate_untake(b, x.seen);
        return false;
    }
    x.from = UVAS_RES_DEVICE;
    x.slot = b->dev_slot;
    if (atomic_load_explicit(&b->dup, RLX)) {
        uvas_migrate_collapse_taken(x.bi, x.seen);
        return true;
    }
    return run_stages(&x, 1, false, UVAS_MIG_NO_MAP, prepare_to_host(&x, 1)) == UVAS_OK;
}

/* Readahead for CPU faults on device-resident blocks: when the blocks just
 * before bi came back to the host moments ago (a sequential sweep), bring
 * back the following ones with bi, in one pipelined migration, twice as
 * many as the sweep has already covered (as the kernel's readahead, and
 * UVM's prefetch of a region the GPU has mostly left). A random access
 * pattern finds no recent predecessor and moves bi alone. */
#define READAHEAD_RECENT_NS 5000000ull
#define READAHEAD_MAX_BYTES ((size_t)128 << 20)

size_t uvas_migrate_fault_window(size_t bi)
{
    size_t cap = READAHEAD_MAX_BYTES >> uvas_g.shift;
    if (cap < 1)
        cap = 1;
    uint32_t owner = atomic_load_explicit(&uvas_g.bt[bi].owner, RLX);
    if (!owner)
        return 1;
    uint64_t now = uvas_os_now_ns();
    size_t k = 0;
    while (k < cap / 2 && bi > k) {
        const struct uvas_block *p = &uvas_g.bt[bi - k - 1];
        if (atomic_load_explicit(&p->owner, RLX) != owner ||
            uvas_blk_res(atomic_load_explicit(&p->state, RLX)) != UVAS_RES_HOST ||
            now - atomic_load_explicit(&p->moved_ns, RLX) > READAHEAD_RECENT_NS)
            break;
        k++;
    }
    size_t n = k ? 2 * k : 1;
    if (n > cap)
        n = cap;
    /* Within the allocation and the range. */
    size_t end = bi;
    while (end < bi + n && end < uvas_g.nblocks &&
           atomic_load_explicit(&uvas_g.bt[end].owner, RLX) == owner)
        end++;
    return end - bi;
}

/* Populate untouched blocks on the host (a migration to the host of
 * memory nobody touched yet): zero pages, as a first touch would. */
static void place_on_host(struct job *j)
{
    char *a = uvas_block_addr(j->bi);
    int e = uvas_uffd_zero(&uvas_g.uffd, a, uvas_g.block_size);
    struct uvas_block *b = &uvas_g.bt[j->bi];
    if (e) {
        uvas_migrate_untake(b, j->seen);
    } else {
        uvas_blk_publish(b, j->seen, UVAS_RES_HOST);
        uvas_stats_block_in(UVAS_RES_HOST, 1);
    }
    uvas_migrate_wake(j->bi);
}

static int migrate_blocks(size_t first, size_t n, int to, unsigned flags, size_t defer_bi)
{
    if (!uvas_devtier_present(&uvas_g.devtier))
        return uvas_fail(UVAS_ERR_NO_DEVICE, "no device tier: %s", uvas_g.device_note);
    uint64_t t0 = uvas_os_now_ns();
    int rc = UVAS_OK;
    size_t shared = SIZE_MAX; /* the first block left where it is, shared */
    /* From before the blocks are taken: a block the pinner holds is one
     * this migration would wait for. */
    uvas_pinner_migration(true);
    struct job stack_jobs[BATCH], *j = stack_jobs;
    size_t cap = BATCH;
    if (n > BATCH) { /* one pipeline for the whole request, up to MAX_JOBS */
        size_t want = n < MAX_JOBS ? n : MAX_JOBS;
        struct job *h = malloc(want * sizeof *h);
        if (h)
            j = h, cap = want;
    }
    for (size_t c = first; c < first + n && rc == UVAS_OK;) {
        size_t m = 0;
        /* The run's gates close together: one wait for peers' pins (and
         * at most one heavy fence per batch) before anything moves. */
        uvas_gate_batch_begin();
        for (; c < first + n && m < cap && rc == UVAS_OK; c++) {
            struct uvas_block *b = &uvas_g.bt[c];
            struct job x = {.bi = c, .defer_wake = c == defer_bi};
            if (!uvas_blk_take_batched(b, flags & UVAS_MIG_WAIT, &x.seen)) {
                if (x.defer_wake) /* the fault's block: its holder wakes it */
                    uvas_migrate_park(c);
                continue;
            }
            x.from = uvas_blk_res(x.seen);
            /* Host-heap memory stays on the host (uvas/alloc.c: peers may
             * hold direct pointers into it). */
            if (x.from == to || (to == UVAS_RES_DEVICE &&
                                 atomic_load_explicit(&b->heap, RLX) == UVAS_HEAP_HOST)) {
                uvas_migrate_untake(b, x.seen);
                continue;
            }
            /* Device memory shared with another process stays in its slot
             * (the other process maps that memory). */
            if (atomic_load_explicit(&b->advice, RLX) & UVAS_BA_SHARED) {
                uvas_migrate_untake(b, x.seen);
                if (shared == SIZE_MAX)
                    shared = c;
                continue;
            }
            if (to == UVAS_RES_HOST) {
                if (x.from == UVAS_RES_UNPOPULATED) {
                    uvas_gate_batch_flush();
                    place_on_host(&x);
                    continue;
                }
                if (atomic_load_explicit(&b->dup, RLX)) {
                    uvas_gate_batch_flush();
                    uvas_migrate_collapse_taken(x.bi, x.seen);
                    continue;
                }
                x.slot = b->dev_slot;
            } else if ((rc = get_slot(c, &x.slot)) != UVAS_OK) {
                uvas_migrate_untake(b, x.seen);
                /* A full tier past the first BATCH blocks: those go
                 * first, and once published they may be evicted to make
                 * room for the rest (this block is taken again next
                 * round). Within the first BATCH a full tier is the
                 * caller's NOMEM: a migration does not evict the blocks it
                 * has just taken (tests/test-device-full.c). */
                if (rc == UVAS_ERR_NOMEM && m >= BATCH)
                    rc = UVAS_OK;
                break;
            }
            j[m++] = x;
        }
        uvas_gate_batch_end();
        int r = to == UVAS_RES_DEVICE ? run_stages(j, m, true, flags, UVAS_OK)
                                      : run_stages(j, m, false, flags, prepare_to_host(j, m));
        if (rc == UVAS_OK)
            rc = r;
    }
    if (j != stack_jobs)
        free(j);
    uvas_pinner_migration(false);
    atomic_fetch_add_explicit(&uvas_g.ctr.migrate_ns_total, uvas_os_now_ns() - t0, RLX);
    if (rc == UVAS_OK && shared != SIZE_MAX)
        rc = uvas_fail(UVAS_ERR_INVAL, "the block at %p is device memory shared with another "
                       "process (uvas_pool_export_pointer, uvas_pool_import_pointer): it stays "
                       "on the device%s", (void *)uvas_block_addr(shared),
                       uvas_cpuview_in_place() ? "" : ", and this device's memory cannot be "
                       "mapped for the CPU in place: only kernels and copies reach it");
    return rc;
}

int uvas_migrate_blocks(size_t first, size_t n, int to, unsigned flags)
{
    return migrate_blocks(first, n, to, flags, SIZE_MAX);
}

int uvas_migrate_fault_back(size_t bi, size_t n)
{
    return migrate_blocks(bi, n, UVAS_RES_HOST, 0, bi);
}
