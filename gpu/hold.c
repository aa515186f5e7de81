/* The blocks a launch holds (hold.h). */
#include "gpu/hold.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uvas_policy.h"

#include "migrate/device_access.h"
#include "migrate/import_cache.h"
#include "uvas/atomics.h"
#include "uvas/internal.h"
#include "uvas/span.h"
#include "uvas/status.h"
#include "uvas/uffd.h"

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return x < y ? -1 : x > y;
}

/* Are blocks [first, last] all in the set already? (Sorted and unique:
 * then they are consecutive entries.) A batch of launches over the same
 * memory names the same blocks again and again. */
static bool has_all(const struct uvas_hold_set *s, size_t first, size_t last)
{
    size_t lo = 0, hi = s->nwant;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->want[mid] < first)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo + (last - first);
    return end < s->nwant && s->want[lo] == first && s->want[end] == last;
}

static bool want(struct uvas_hold_set *s, const char *base, size_t size, int *rc)
{
    size_t first = uvas_block_index(base), last = uvas_block_index(base + size - 1);
    if (has_all(s, first, last))
        return true;
    size_t need = s->nwant + (last - first + 1);
    if (need > s->cap) {
        size_t cap = s->cap ? s->cap : 64;
        while (cap < need)
            cap *= 2;
        size_t *w = realloc(s->want, cap * sizeof *w);
        if (!w) {
            *rc = uvas_fail(UVAS_ERR_NOMEM, "out of memory for a launch's %zu blocks", need);
            return true;
        }
        s->want = w;
        s->cap = cap;
    }
    for (size_t bi = first; bi <= last; bi++)
        s->want[s->nwant++] = bi;
    /* Sorted and unique: one hold per block however many arguments share
     * it (small allocations share slabs), taken in address order. */
    qsort(s->want, s->nwant, sizeof *s->want, cmp_size);
    size_t k = 0;
    for (size_t i = 0; i < s->nwant; i++)
        if (!k || s->want[k - 1] != s->want[i])
            s->want[k++] = s->want[i];
    s->nwant = k;
    return true;
}

bool uvas_hold_want_alloc(struct uvas_hold_set *s, const void *p, int *rc)
{
    char *base;
    size_t size;
    *rc = UVAS_OK;
    return uvas_span_alloc(p, &base, &size) && want(s, base, size, rc);
}

bool uvas_hold_want_range(struct uvas_hold_set *s, const void *p, size_t len, int *rc)
{
    char *base;
    size_t size;
    *rc = UVAS_OK;
    const char *c = p;
    if (!len || !uvas_span_alloc(p, &base, &size) || c < base || (size_t)(c - base) >= size ||
        len > size - (size_t)(c - base))
        return false;
    return want(s, c, len, rc);
}

/* Hold block bi: *busy if another agent has it (nothing held then). how:
 * uvas_device_take's, beyond WRITE. *prep: what uvas_device_prepare did
 * for it (UVAS_PREP_NONE without it), COUNTED once this has counted it. */
static int hold_one(struct uvas_xlat *x, size_t bi, unsigned how, uint8_t *prep, bool *busy)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    *busy = false;
    /* A launch that may touch the block is one device access to the
     * policies (once, however often its holds are retried); what its
     * kernel counts adds to it after the run (a kernel built without
     * counters has only this). */
    if (*prep == UVAS_PREP_NONE) {
        atomic_fetch_add_explicit(&b->acc[UVAS_AGENT_DEVICE], 1, RLX);
        *prep = UVAS_PREP_COUNTED;
    }
    if (*prep == UVAS_PREP_REMOTE)
        how |= UVAS_DEV_IN_PLACE; /* the policy said so already */
    int more = uvas_blk_hold_more(b);
    if (more == UVAS_BLK_HOLD_MORE) /* held by another launch: translated already */
        return UVAS_OK;
    /* Full: never waited for, as the holders may be the caller's own
     * (uvas_gpu_hold of many small allocations of one slab block). */
    if (more == UVAS_BLK_HOLD_FULL)
        return uvas_fail(UVAS_ERR_NOMEM, "block %zu (%p) has %u holders already, as many as "
                         "a block counts (uvas_gpu_hold of allocations that share it, and "
                         "launches in flight over it): release some (uvas_gpu_release)", bi,
                         (void *)uvas_block_addr(bi), UVAS_BLK_HOLD_MASK / UVAS_BLK_HOLD_ONE);
    struct uvas_device_hold h;
    int rc = uvas_device_take(bi, UVAS_DEV_WRITE | how, &h);
    if (rc)
        return rc;
    if (h.busy) {
        *busy = true;
        return UVAS_OK;
    }
    uint64_t e = 0;
    if (h.remote) {
        rc = uvas_import_cache_address(bi, &e);
    } else {
        e = uvas_devtier_slot_address(&uvas_g.devtier, b->dev_slot);
        if (!e)
            rc = uvas_fail(UVAS_ERR_NO_DEVICE, "block %zu: its device slot has no device "
                           "address", bi);
    }
    if (rc) {
        uvas_device_give_back(bi, &h);
        return rc;
    }
    /* Where it is reached while held; the entry goes out with the run
     * (uvas_hold_publish), under the table's lock. */
    x->reach[bi] = e | (h.remote ? UVAS_XLAT_REACH_HOST : 0);
    /* Faults parked while it was taken go on (only if there are any: a
     * wake is a system call, and a launch holds hundreds of blocks). */
    if (uvas_blk_publish_held(b, h.seen, uvas_blk_res(h.seen)))
        uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
    atomic_fetch_add_explicit(&uvas_g.ctr.kernel_translations, 1, RLX);
    return UVAS_OK;
}

static void unhold_one(struct uvas_xlat *x, size_t bi)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    uint32_t seen;
    bool waiter;
    if (!uvas_blk_unhold(b, &seen, &waiter))
        return;
    uvas_xlat_clear(x, bi);
    /* Parked on the holds, or on the BUSY just now (a CPU touch of a
     * device-resident block as the last kernel let go of it). */
    if (uvas_blk_unbusy(b, seen))
        waiter = true;
    if (waiter)
        uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
}

int uvas_hold_all(struct uvas_hold_set *s, struct uvas_xlat *x)
{
    /* Already held blocks stay; new ones may sort before them, so let go
     * and hold the whole set again, in order. */
    pthread_mutex_lock(&x->run);
    uvas_hold_release(s, x);
    pthread_mutex_unlock(&x->run);
    /* The policy's moves for the whole set together, then the holds. */
    uint8_t *prep = malloc(s->nwant ? s->nwant : 1); /* prepare sets every entry */
    if (!prep)
        return uvas_fail(UVAS_ERR_NOMEM, "out of memory for a launch's %zu blocks", s->nwant);
    uvas_device_prepare(s->want, s->nwant, prep);
    for (unsigned attempt = 0;; attempt++) {
        bool busy = false;
        int rc = UVAS_OK;
        while (s->nheld < s->nwant && !busy && !rc)
            if (!(rc = hold_one(x, s->want[s->nheld], 0, &prep[s->nheld], &busy)) && !busy)
                s->nheld++;
        if (rc || busy) {
            pthread_mutex_lock(&x->run);
            uvas_hold_release(s, x);
            pthread_mutex_unlock(&x->run);
        }
        if (rc || !busy) {
            free(prep);
            return rc;
        }
        /* A transition (microseconds to milliseconds): back off, up to a
         * millisecond. */
        struct timespec ts = {0, attempt < 10 ? 1000L << attempt : 1000000L};
        nanosleep(&ts, NULL);
    }
}

int uvas_hold_block(struct uvas_hold_set *s, struct uvas_xlat *x, size_t bi, bool in_place,
                    bool *busy)
{
    if (s->nextra == s->cap_extra) {
        size_t cap = s->cap_extra ? 2 * s->cap_extra : 64;
        size_t *e = realloc(s->extra, cap * sizeof *e);
        if (!e)
            return uvas_fail(UVAS_ERR_NOMEM, "out of memory for a kernel's faults");
        s->extra = e;
        s->cap_extra = cap;
    }
    uint8_t prep = UVAS_PREP_NONE;
    int rc = hold_one(x, bi, in_place ? UVAS_DEV_IN_PLACE : 0, &prep, busy);
    if (!rc && !*busy) {
        s->extra[s->nextra++] = bi;
        uvas_xlat_publish(x, bi, (uintptr_t)uvas_block_addr(bi));
    }
    return rc;
}

static void count_one(struct uvas_xlat *x, size_t bi, uint64_t scale)
{
    uint32_t c = uvas_xlat_take_count(x, bi);
    if (!c)
        return;
    struct uvas_block *b = &uvas_g.bt[bi];
    atomic_fetch_add_explicit(&b->acc[UVAS_AGENT_DEVICE], c * scale, RLX);
    atomic_fetch_add_explicit(&b->gpu_acc, c * scale, RLX);
    atomic_fetch_add_explicit(&uvas_g.ctr.kernel_accesses, c * scale, RLX);
}

void uvas_hold_count(const struct uvas_hold_set *s, struct uvas_xlat *x, uint64_t scale)
{
    for (size_t i = 0; i < s->nheld; i++)
        count_one(x, s->want[i], scale);
    for (size_t i = 0; i < s->nextra; i++)
        count_one(x, s->extra[i], scale);
}

/* The runs of the blocks asked for (xlat.h): k consecutive blocks, each
 * held by this set, device-resident, in consecutive device memory. Only
 * this set's blocks: its release zeroes them, so no count outlives a
 * hold it relies on (another set's count over the same blocks is zeroed
 * as well: a kernel then translates per access, slower, not wrong). */
static void publish_runs(const struct uvas_hold_set *s, struct uvas_xlat *x)
{
    const uint64_t flags = UVAS_XLAT_REACH_HOST | UVAS_XLAT_REACH_OUT;
    uint32_t k = 0;
    uint64_t next = 0; /* the device address of want[i + 1], in a run */
    for (size_t i = s->nheld; i-- > 0;) {
        size_t bi = s->want[i];
        uint64_t r = x->reach[bi];
        if (r & UVAS_XLAT_REACH_HOST) {
            k = 0;
        } else {
            uint64_t at = r & ~flags;
            bool joins = k && k < UINT32_MAX && s->want[i + 1] == bi + 1 &&
                         next == at + uvas_g.block_size;
            k = joins ? k + 1 : 1;
            next = at;
        }
        uvas_xlat_set_run(x, bi, k);
    }
}

void uvas_hold_publish(struct uvas_hold_set *s, struct uvas_xlat *x)
{
    for (size_t i = 0; i < s->nheld; i++)
        uvas_xlat_publish(x, s->want[i], (uintptr_t)uvas_block_addr(s->want[i]));
    for (size_t i = 0; i < s->nextra; i++)
        uvas_xlat_publish(x, s->extra[i], (uintptr_t)uvas_block_addr(s->extra[i]));
    publish_runs(s, x);
}

void uvas_hold_span(const struct uvas_hold_set *s, size_t *lo, size_t *hi)
{
    if (s->nheld) { /* sorted */
        *lo = s->want[0] < *lo ? s->want[0] : *lo;
        *hi = s->want[s->nheld - 1] > *hi ? s->want[s->nheld - 1] : *hi;
    }
    for (size_t i = 0; i < s->nextra; i++) {
        *lo = s->extra[i] < *lo ? s->extra[i] : *lo;
        *hi = s->extra[i] > *hi ? s->extra[i] : *hi;
    }
}

bool uvas_hold_has(const struct uvas_hold_set *s, size_t bi)
{
    if (s->nheld && bsearch(&bi, s->want, s->nheld, sizeof *s->want, cmp_size))
        return true;
    for (size_t i = 0; i < s->nextra; i++)
        if (s->extra[i] == bi)
            return true;
    return false;
}

void uvas_hold_release(struct uvas_hold_set *s, struct uvas_xlat *x)
{
    while (s->nextra)
        unhold_one(x, s->extra[--s->nextra]);
    while (s->nheld) {
        size_t bi = s->want[--s->nheld];
        uvas_xlat_set_run(x, bi, 0);
        unhold_one(x, bi);
    }
}

void uvas_hold_free(struct uvas_hold_set *s)
{
    free(s->want);
    free(s->extra);
    memset(s, 0, sizeof *s);
}
