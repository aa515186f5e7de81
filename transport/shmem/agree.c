/*
 * Symmetric calls agree: every PE must call shmem_malloc (and friends,
 * shmem_realloc, shmem_free) in the same order with the same arguments,
 * or the heaps drift apart and later puts land in the wrong object. The
 * check rides on the call's own barrier: before it, each PE puts a record
 * of its call (kind, size, the offset it got or frees) into its successor's
 * slot; after it, each PE compares its record with its predecessor's. Equal
 * around the ring means equal everywhere; a difference is reported by the
 * PE that sees it, naming both PEs and both calls. One small put per call.
 * Slots alternate by call number, so a fast PE's next record never lands
 * on one its successor has yet to read (it needs a barrier the slow one has
 * not passed). Where errors return (UVAS_SHMEM_ERRORS=return) instead of
 * ending the job, a PE that sees a difference also marks the call on
 * every other PE, and after one more barrier every PE fails the call: a
 * PE whose neighbours agreed would otherwise keep an object the others
 * dropped, and the heaps would drift apart after all.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "transport/pe/pe.h"
#include "transport/shmem/error.h"
#include "transport/shmem/internal.h"
#include "uvas.h"
#include "uvas/status.h"

struct rec {
    uint64_t seq;  /* symmetric calls made so far, this one included */
    uint64_t kind; /* enum uvas_agree_kind */
    uint64_t size; /* requested bytes (0 for a free) */
    uint64_t off;  /* offset in the range of the object, UINT64_MAX: none */
};

static struct rec *slot; /* [2], symmetric, host heap: the predecessor's records */
static uint64_t *bad;    /* symmetric, host heap: the seq of a call a PE found disagreeing */
static uint64_t seq;
static struct rec mine;

int uvas_shmem_agree_init(void)
{
    seq = 0;
    if (uvas_pe_count() < 2)
        return UVAS_OK;
    slot = uvas_malloc_hint(2 * sizeof *slot, UVAS_HINT_HOST);
    bad = uvas_malloc_hint(sizeof *bad, UVAS_HINT_HOST);
    if (!slot || !bad) {
        uvas_shmem_agree_fini();
        return UVAS_ERR_NOMEM;
    }
    memset(slot, 0, 2 * sizeof *slot);
    *bad = 0;
    return UVAS_OK;
}

void uvas_shmem_agree_fini(void)
{
    if (slot)
        uvas_try_free(slot);
    if (bad)
        uvas_try_free(bad);
    slot = NULL;
    bad = NULL;
}

/* p's offset in the range; UINT64_MAX for none, and for a pointer outside
 * the range (a global's, the stack's, malloc's): its difference from the
 * base differs between PEs, and a free of one read as a disagreement with
 * nonsense offsets where every PE passed the same wrong kind of pointer
 * (found by review). Such a free agrees, then fails as uvas_free does. */
static uint64_t offset_of(const void *p)
{
    struct uvas_range_desc d;
    if (!p || uvas_range(&d) != UVAS_OK || (uintptr_t)p - (uintptr_t)d.base >= d.size)
        return UINT64_MAX;
    return (uint64_t)((uintptr_t)p - (uintptr_t)d.base);
}

void uvas_shmem_agree_post(enum uvas_agree_kind kind, size_t size, const void *p)
{
    if (!slot)
        return;
    mine = (struct rec){++seq, (uint64_t)kind, size, offset_of(p)};
    int succ = (uvas_pe_me() + 1) % uvas_pe_count();
    (void)uvas_pe_put(&slot[seq & 1], &mine, sizeof mine, succ, false);
}

static const char *name_of(uint64_t kind)
{
    static const char *n[] = {"shmem_malloc", "shmem_realloc", "shmem_free"};
    return kind < sizeof n / sizeof n[0] ? n[kind] : "?";
}

static void describe(char *out, size_t len, const struct rec *r)
{
    if (r->kind == UVAS_AGREE_FREE && r->off == UINT64_MAX)
        snprintf(out, len, "shmem_free of a pointer outside the symmetric heap");
    else if (r->kind == UVAS_AGREE_FREE)
        snprintf(out, len, "shmem_free of the object at offset %#llx",
                 (unsigned long long)r->off);
    else if (r->off == UINT64_MAX)
        snprintf(out, len, "%s(%llu bytes), which failed", name_of(r->kind),
                 (unsigned long long)r->size);
    else
        snprintf(out, len, "%s(%llu bytes) at offset %#llx", name_of(r->kind),
                 (unsigned long long)r->size, (unsigned long long)r->off);
}

/* This PE's record against its predecessor's. Status. */
static int compare(const char *call)
{
    const volatile struct rec *got = &slot[mine.seq & 1];
    struct rec p = {got->seq, got->kind, got->size, got->off};
    if (!memcmp(&p, &mine, sizeof p))
        return UVAS_OK;
    int me = uvas_pe_me(), n = uvas_pe_count(), pred = (me + n - 1) % n;
    char a[128], b[128];
    describe(a, sizeof a, &p);
    describe(b, sizeof b, &mine);
    return uvas_shmem_fail(call, UVAS_ERR_INVAL, "symmetric calls disagree: PE %d's call %llu "
                           "was %s, PE %d's call %llu was %s; every PE must make the same "
                           "symmetric allocations and frees, in the same order, with the same "
                           "sizes", pred, (unsigned long long)p.seq, a, me,
                           (unsigned long long)mine.seq, b);
}

int uvas_shmem_agree_check(const char *call)
{
    if (!slot)
        return UVAS_OK;
    int st = compare(call);
    if (uvas_shmem_errors_fatal())
        return st; /* a difference has ended the job */
    int me = uvas_pe_me(), n = uvas_pe_count();
    if (st != UVAS_OK)
        for (int pe = 0; pe < n; pe++)
            if (pe != me)
                (void)uvas_pe_put(bad, &mine.seq, sizeof mine.seq, pe, false);
    (void)uvas_pe_quiet();
    (void)uvas_pe_barrier_all();
    if (st == UVAS_OK && *(volatile uint64_t *)bad == mine.seq)
        st = uvas_shmem_fail(call, UVAS_ERR_INVAL, "symmetric calls disagree: another PE saw "
                             "its call %llu differ from its neighbour's (its message names "
                             "them), so this PE undoes it too; every PE must make the same "
                             "symmetric allocations and frees, in the same order, with the "
                             "same sizes", (unsigned long long)mine.seq);
    return st;
}
