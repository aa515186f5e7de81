/*
 * Collectives on teams (team.c: the world, or any strided set of its
 * PEs), built from gets and team barriers: each PE
 * pulls what it needs between an entering barrier (every source is ready)
 * and a leaving one (no source is reused while a peer still reads it).
 * Small reductions, broadcasts and fcollects copy the sources for the
 * call instead (stage.c) and need only the first. O(n) gets per PE, no
 * trees; a large reduction splits its vector among the members (reduce()).
 *
 * Every PE passes every barrier of a collective even when its own part
 * failed, so that with UVAS_SHMEM_ERRORS=return one PE's error does not
 * hang the others; argument errors that every PE sees alike (a bad team or
 * root) return before the first barrier.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "shmem.h"
#include "transport/pe/pe.h"
#include "transport/shmem/error.h"
#include "transport/shmem/internal.h"
#include "uvas.h"

/* A reduction works in pieces of at most PIECE bytes (an accumulator and
 * an input, both in cache while they combine), and from SPLIT bytes on
 * splits the vector among the members (below). */
#define PIECE (512u << 10)
#define SPLIT (64u << 10)

/* Scratch buffers of 2 x PIECE, kept between calls: a reduction that
 * allocated and freed its buffers each call paid for fresh pages every
 * time (docs/transport.md, "Reductions"). One per thread in a call at
 * once, found again under a lock. */
struct scratch {
    struct scratch *next;
    _Alignas(64) unsigned char b[2 * PIECE];
};
static pthread_mutex_t scratch_mu = PTHREAD_MUTEX_INITIALIZER;
static struct scratch *scratch_free;

static struct scratch *scratch_take(void)
{
    pthread_mutex_lock(&scratch_mu);
    struct scratch *s = scratch_free;
    if (s)
        scratch_free = s->next;
    pthread_mutex_unlock(&scratch_mu);
    return s ? s : aligned_alloc(64, sizeof *s);
}

static void scratch_give(struct scratch *s)
{
    if (!s)
        return;
    pthread_mutex_lock(&scratch_mu);
    s->next = scratch_free;
    scratch_free = s;
    pthread_mutex_unlock(&scratch_mu);
}

static void scratch_drop_all(void)
{
    pthread_mutex_lock(&scratch_mu);
    while (scratch_free) {
        struct scratch *s = scratch_free;
        scratch_free = s->next;
        free(s);
    }
    pthread_mutex_unlock(&scratch_mu);
}

/* The world team's word (team.c): this PE's element count for a
 * shmem_collect on the world, where peers read it. */
static uint64_t *count_slot;

int uvas_shmem_coll_init(void)
{
    if (count_slot)
        return UVAS_OK;
    count_slot = uvas_malloc_hint(sizeof *count_slot, UVAS_HINT_HOST);
    if (!count_slot)
        return UVAS_ERR_NOMEM; /* the allocator's message says why */
    *count_slot = 0;           /* populated, so the window question has an answer */
    int st = uvas_shmem_stage_init();
    if (st != UVAS_OK)
        return st;
    st = uvas_shmem_agree_init();
    if (st != UVAS_OK)
        return st;
    st = uvas_pe_barrier_all();
    if (st != UVAS_OK)
        return st;
    return uvas_shmem_team_init(count_slot);
}

void uvas_shmem_coll_fini(void)
{
    /* Its barrier first: no peer reads what this PE staged any more. */
    uvas_shmem_stage_fini();
    /* No peer reads it any more: every collective that uses it ended in a
     * barrier. */
    if (count_slot)
        uvas_try_free(count_slot);
    count_slot = NULL;
    scratch_drop_all();
    uvas_shmem_team_fini();
    uvas_shmem_agree_fini();
}

/* ---- pieces --------------------------------------------------------------- */

static int report(const char *call, int st)
{
    if (st != UVAS_OK)
        uvas_shmem_report(call, st);
    return st;
}

static int barrier(const char *call, struct uvas_shmem_team *t)
{
    return report(call, uvas_shmem_team_barrier(t));
}

/* The first failure of a collective, keeping the status of the first. */
static int keep(int first, int next)
{
    return first != UVAS_OK ? first : next;
}

static int get_from(const char *call, void *dest, const void *src, size_t n, int pe)
{
    if (n == 0)
        return UVAS_OK;
    int st = uvas_pe_check(call, src, n, pe);
    if (st == UVAS_OK)
        st = uvas_pe_get(dest, src, n, pe, false);
    return report(call, st);
}

/* Into this PE's symmetric dest through the PE layer, so that a
 * device-resident dest is written where it lives, not pulled to the CPU. */
static int put_local(const char *call, void *dest, const void *src, size_t n)
{
    if (n == 0)
        return UVAS_OK;
    return report(call, uvas_pe_put(dest, src, n, uvas_pe_me(), false));
}

static int check_local(const char *call, const void *dest, size_t n)
{
    if (n == 0)
        return UVAS_OK;
    return report(call, uvas_pe_check(call, dest, n, uvas_pe_me()));
}

/* ---- the operations, on bytes ----------------------------------------------- */

static int broadcast(const char *call, struct uvas_shmem_team *t, void *dest,
                     const void *source, size_t nelems, size_t elem, int root,
                     bool root_writes)
{
    int n = t->size, me = t->me;
    size_t bytes;
    if (root < 0 || root >= n)
        return uvas_shmem_fail(call, UVAS_ERR_INVAL, "PE_root %d is not a PE of the "
                               "team (0..%d)", root, n - 1);
    if (!uvas_shmem_bytes(call, nelems, elem, &bytes))
        return UVAS_ERR_INVAL;
    /* The get writes through the owner's range, which knows no allocation:
     * dest is checked here, as every collective checks its own. */
    int st = check_local(call, dest, bytes);
    if (uvas_shmem_stage_fits(t, bytes)) {
        /* One barrier: the root's source copied for the call (stage.c);
         * the others stage nothing but keep the team's count of calls. */
        uint64_t epoch;
        st = uvas_shmem_stage_begin(call, t, source, me == root ? bytes : 0, st, &epoch);
        st = keep(st, barrier(call, t));
        if (st == UVAS_OK && (me != root || (root_writes && dest != source))) {
            unsigned char got[UVAS_SHMEM_STAGE_MAX];
            st = uvas_shmem_stage_read(call, t, root, got, bytes, epoch);
            if (st == UVAS_OK)
                st = put_local(call, dest, got, bytes);
        }
        return st;
    }
    st = keep(st, barrier(call, t));
    if (st == UVAS_OK && (me != root || (root_writes && dest != source)))
        st = get_from(call, dest, source, bytes, uvas_shmem_team_pe(t, root));
    return keep(st, barrier(call, t));
}

static int fcollect(const char *call, struct uvas_shmem_team *t, void *dest,
                    const void *source, size_t nelems, size_t elem)
{
    int n = t->size;
    size_t bytes, total;
    if (!uvas_shmem_bytes(call, nelems, elem, &bytes) ||
        !uvas_shmem_bytes(call, bytes, (size_t)n, &total))
        return UVAS_ERR_INVAL;
    int st = check_local(call, dest, total);
    if (uvas_shmem_stage_fits(t, bytes)) {
        /* One barrier: every member's source copied for the call. */
        uint64_t epoch;
        st = uvas_shmem_stage_begin(call, t, source, bytes, st, &epoch);
        st = keep(st, barrier(call, t));
        unsigned char got[UVAS_SHMEM_STAGE_MAX];
        for (int m = 0; st == UVAS_OK && m < n; m++) {
            st = uvas_shmem_stage_read(call, t, m, got, bytes, epoch);
            if (st == UVAS_OK)
                st = put_local(call, (char *)dest + (size_t)m * bytes, got, bytes);
        }
        return st;
    }
    st = keep(st, barrier(call, t));
    for (int pe = 0; st == UVAS_OK && pe < n; pe++)
        st = get_from(call, (char *)dest + (size_t)pe * bytes, source, bytes,
                      uvas_shmem_team_pe(t, pe));
    return keep(st, barrier(call, t));
}

/* A team's word's value for a PE whose own call failed. */
#define COUNT_FAILED UINT64_MAX

/* Counts differ per PE: each publishes its byte count in its team's word,
 * every PE reads them all and places each block after its predecessors.
 * A PE whose call fails publishes COUNT_FAILED, so that the others fail
 * too rather than read the count of its last collect. */
static int collect(const char *call, struct uvas_shmem_team *t, void *dest,
                   const void *source, size_t nelems, size_t elem)
{
    int n = t->size;
    size_t bytes = 0;
    uint64_t *counts = malloc((size_t)n * sizeof *counts);
    int st = UVAS_OK;
    if (!uvas_shmem_bytes(call, nelems, elem, &bytes))
        st = UVAS_ERR_INVAL;
    else if (!counts)
        st = uvas_shmem_fail(call, UVAS_ERR_NOMEM, "no memory for %d counts", n);
    st = keep(st, put_local(call, t->word, &(uint64_t){st == UVAS_OK ? bytes : COUNT_FAILED},
                            sizeof *t->word));
    st = keep(st, barrier(call, t));
    uint64_t total = 0;
    for (int pe = 0; st == UVAS_OK && pe < n; pe++) {
        st = get_from(call, &counts[pe], t->word, sizeof *counts, uvas_shmem_team_pe(t, pe));
        if (st == UVAS_OK && counts[pe] == COUNT_FAILED)
            st = uvas_shmem_fail(call, UVAS_ERR_INVAL, "team PE %d's call failed (its count "
                                 "or memory): this collect gathers nothing", pe);
        else if (st == UVAS_OK && __builtin_add_overflow(total, counts[pe], &total))
            st = uvas_shmem_fail(call, UVAS_ERR_INVAL, "the PEs' counts overflow");
    }
    if (st == UVAS_OK)
        st = check_local(call, dest, total);
    uint64_t off = 0;
    for (int pe = 0; st == UVAS_OK && pe < n; pe++) {
        st = get_from(call, (char *)dest + off, source, counts[pe], uvas_shmem_team_pe(t, pe));
        off += counts[pe];
    }
    free(counts);
    return keep(st, barrier(call, t));
}

/* Bytes that count elements at stride (elements, >= 1) cover. */
static bool strided_span(const char *call, size_t count, ptrdiff_t stride, size_t elem,
                         size_t *span)
{
    size_t steps;
    if (count == 0) {
        *span = 0;
        return true;
    }
    if (__builtin_mul_overflow(count - 1, (size_t)stride, &steps) ||
        __builtin_add_overflow(steps, 1, &steps) ||
        __builtin_mul_overflow(steps, elem, span)) {
        uvas_shmem_fail(call, UVAS_ERR_INVAL, "%zu elements at stride %td overflow "
                        "size_t", count, stride);
        return false;
    }
    return true;
}

/* Strides in elements, >= 1; contiguous alltoall is dst = sst = 1. The
 * block from PE i lands at dest + i * nelems * dst; the block for PE j
 * starts at source + j * nelems * sst. */
static int alltoalls(const char *call, struct uvas_shmem_team *t, void *dest,
                     const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,
                     size_t elem)
{
    int n = t->size, me = t->me;
    size_t bytes, count, dspan = 0;
    if (dst < 1 || sst < 1)
        return uvas_shmem_fail(call, UVAS_ERR_INVAL, "strides dst %td and sst %td must "
                               "be at least 1", dst, sst);
    /* The element count of every PE's blocks too: a product that wraps
     * would make the destination's span small and leave it unchecked. */
    if (!uvas_shmem_bytes(call, nelems, elem, &bytes) ||
        !uvas_shmem_bytes(call, nelems, (size_t)n, &count) ||
        !strided_span(call, count, dst, elem, &dspan) ||
        !strided_span(call, count, sst, elem, &(size_t){0}))
        return UVAS_ERR_INVAL;
    int st = check_local(call, dest, dspan);
    st = keep(st, barrier(call, t));
    for (int pe = 0; st == UVAS_OK && pe < n; pe++) {
        char *d = (char *)dest + (size_t)pe * nelems * (size_t)dst * elem;
        const char *s = (const char *)source + (size_t)me * nelems * (size_t)sst * elem;
        int w = uvas_shmem_team_pe(t, pe);
        if (dst == 1 && sst == 1) {
            st = get_from(call, d, s, bytes, w);
            continue;
        }
        for (size_t k = 0; st == UVAS_OK && k < nelems; k++)
            st = get_from(call, d + k * (size_t)dst * elem, s + k * (size_t)sst * elem,
                          elem, w);
    }
    return keep(st, barrier(call, t));
}

typedef void combine_fn(void *acc, const void *in, size_t n);

/* Elements [lo, lo + cnt) of every member's source combined in member
 * order into acc (cnt * elem <= PIECE; in: as large). */
static int combine_from_all(const char *call, struct uvas_shmem_team *t, void *acc, void *in,
                            const void *source, size_t lo, size_t cnt, size_t elem,
                            combine_fn *combine)
{
    const char *src = (const char *)source + lo * elem;
    int st = get_from(call, acc, src, cnt * elem, uvas_shmem_team_pe(t, 0));
    for (int pe = 1; st == UVAS_OK && pe < t->size; pe++) {
        st = get_from(call, in, src, cnt * elem, uvas_shmem_team_pe(t, pe));
        if (st == UVAS_OK)
            combine(acc, in, cnt);
    }
    return st;
}

/* Member i's share of nreduce elements split n ways: [*lo, *lo + *cnt). */
static void share(size_t nreduce, int n, int i, size_t *lo, size_t *cnt)
{
    size_t per = nreduce / (size_t)n, rem = nreduce % (size_t)n, k = (size_t)i;
    *lo = k * per + (k < rem ? k : rem);
    *cnt = per + (k < rem);
}

/* A member's word in a split reduction: its share is in its dest, or its
 * call failed and its share is not to be read. */
#define SHARE_READY 1
#define SHARE_FAILED UINT64_MAX

/* Every member ends with the same bits (floating point included): each
 * element is combined once, by one member, over the sources in member
 * order, as a reduction on one PE would.
 *
 * Under SPLIT bytes, each member combines the whole vector between the
 * entering barrier (every source is ready) and the middle one (no source
 * is read any more), then writes dest, which may be source.
 *
 * From SPLIT bytes on, member i combines only its share (share()) from
 * every member's source and writes it into its own dest; after the middle
 * barrier each member reads the other shares from their owners' dests,
 * and a last barrier keeps a share in place until every member has it.
 * Each member reads the vector's size once and combines a member's share
 * of it, where the whole vector from every member (n times the bytes and
 * the work) made large reductions O(n). With dest == source, member i's
 * share of its own source is read only by member i, before it writes it.
 * A member whose part failed says so in its team's word, so that the
 * others fail rather than read its share. */
static int reduce(const char *call, struct uvas_shmem_team *t, void *dest,
                  const void *source, size_t nreduce, size_t elem, combine_fn *combine)
{
    int n = t->size;
    size_t bytes;
    if (!uvas_shmem_bytes(call, nreduce, elem, &bytes))
        return UVAS_ERR_INVAL;
    bool split = bytes >= SPLIT; /* a lone member too: its pieces fit the scratch */
    if (!split && uvas_shmem_stage_fits(t, bytes)) {
        /* One barrier: every source copied for the call (stage.c), so no
         * member reads a source, and dest (which may be source) is written
         * at once. Small: the buffers on the stack. */
        _Alignas(64) unsigned char acc[UVAS_SHMEM_STAGE_MAX], in[UVAS_SHMEM_STAGE_MAX];
        uint64_t epoch;
        int st = check_local(call, dest, bytes);
        st = uvas_shmem_stage_begin(call, t, source, bytes, st, &epoch);
        st = keep(st, barrier(call, t));
        if (st == UVAS_OK)
            st = uvas_shmem_stage_read(call, t, 0, acc, bytes, epoch);
        for (int m = 1; st == UVAS_OK && m < n; m++) {
            st = uvas_shmem_stage_read(call, t, m, in, bytes, epoch);
            if (st == UVAS_OK)
                combine(acc, in, nreduce);
        }
        if (st == UVAS_OK)
            st = put_local(call, dest, acc, bytes);
        return st;
    }
    struct scratch *sc = scratch_take();
    int st = check_local(call, dest, bytes);
    if (st == UVAS_OK && !sc)
        st = uvas_shmem_fail(call, UVAS_ERR_NOMEM, "no memory for a %u-byte scratch buffer",
                             2 * PIECE);
    void *acc = sc ? sc->b : NULL, *in = sc ? sc->b + PIECE : NULL;
    st = keep(st, barrier(call, t));
    if (!split) {
        if (st == UVAS_OK && bytes)
            st = combine_from_all(call, t, acc, in, source, 0, nreduce, elem, combine);
        st = keep(st, barrier(call, t));
        if (st == UVAS_OK)
            st = put_local(call, dest, acc, bytes);
        scratch_give(sc);
        return st;
    }
    size_t lo, cnt, step = PIECE / elem;
    share(nreduce, n, t->me, &lo, &cnt);
    for (size_t at = lo; st == UVAS_OK && at < lo + cnt; at += step) {
        size_t k = lo + cnt - at < step ? lo + cnt - at : step;
        st = combine_from_all(call, t, acc, in, source, at, k, elem, combine);
        if (st == UVAS_OK)
            st = put_local(call, (char *)dest + at * elem, acc, k * elem);
    }
    scratch_give(sc);
    st = keep(st, put_local(call, t->word,
                            &(uint64_t){st == UVAS_OK ? SHARE_READY : SHARE_FAILED},
                            sizeof *t->word));
    st = keep(st, barrier(call, t));
    for (int i = 1; st == UVAS_OK && i < n; i++) {
        int m = (t->me + i) % n; /* each member starts at a different owner */
        uint64_t w = 0;
        st = get_from(call, &w, t->word, sizeof w, uvas_shmem_team_pe(t, m));
        if (st == UVAS_OK && w != SHARE_READY)
            st = uvas_shmem_fail(call, UVAS_ERR_INVAL, "team PE %d's part failed: its "
                                 "share of the reduction is not there", m);
        share(nreduce, n, m, &lo, &cnt);
        if (st == UVAS_OK)
            st = get_from(call, (char *)dest + lo * elem, (char *)dest + lo * elem,
                          cnt * elem, uvas_shmem_team_pe(t, m));
    }
    return keep(st, barrier(call, t));
}

/* ---- team and active-set frames ------------------------------------------- */

#define TEAM(call, team)                                                               \
    struct uvas_shmem_team *t = uvas_shmem_team_of(call, team);                        \
    if (!t)                                                                            \
    return -1
/* A classic call's active set as a team (its pSync the counters); the
 * operation runs, then DONE puts pSync back. */
#define SET(call, start, stride, size, psync)                                          \
    struct uvas_shmem_team set_, *t = &set_;                                            \
    if (uvas_shmem_active_set(call, start, stride, size, psync, &set_) != UVAS_OK)      \
    return
#define DONE uvas_shmem_active_set_done(t)

int shmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                       int PE_root)
{
    TEAM(__func__, team);
    return broadcast(__func__, t, dest, source, nelems, 1, PE_root, true) ? -1 : 0;
}

int shmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    TEAM(__func__, team);
    return collect(__func__, t, dest, source, nelems, 1) ? -1 : 0;
}

int shmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    TEAM(__func__, team);
    return fcollect(__func__, t, dest, source, nelems, 1) ? -1 : 0;
}

int shmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    TEAM(__func__, team);
    return alltoalls(__func__, t, dest, source, 1, 1, nelems, 1) ? -1 : 0;
}

int shmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                       ptrdiff_t sst, size_t nelems)
{
    TEAM(__func__, team);
    return alltoalls(__func__, t, dest, source, dst, sst, nelems, 1) ? -1 : 0;
}

#define COLL(NAME, TYPE)                                                               \
    int shmem_##NAME##_broadcast(shmem_team_t team, TYPE *dest, const TYPE *source,    \
                                 size_t nelems, int PE_root)                           \
    {                                                                                  \
        TEAM(__func__, team);                                                          \
        return broadcast(__func__, t, dest, source, nelems, sizeof(TYPE), PE_root, true)  \
                   ? -1 : 0;                                                           \
    }                                                                                  \
    int shmem_##NAME##_collect(shmem_team_t team, TYPE *dest, const TYPE *source,      \
                               size_t nelems)                                          \
    {                                                                                  \
        TEAM(__func__, team);                                                          \
        return collect(__func__, t, dest, source, nelems, sizeof(TYPE)) ? -1 : 0;         \
    }                                                                                  \
    int shmem_##NAME##_fcollect(shmem_team_t team, TYPE *dest, const TYPE *source,     \
                                size_t nelems)                                         \
    {                                                                                  \
        TEAM(__func__, team);                                                          \
        return fcollect(__func__, t, dest, source, nelems, sizeof(TYPE)) ? -1 : 0;        \
    }                                                                                  \
    int shmem_##NAME##_alltoall(shmem_team_t team, TYPE *dest, const TYPE *source,     \
                                size_t nelems)                                         \
    {                                                                                  \
        TEAM(__func__, team);                                                          \
        return alltoalls(__func__, t, dest, source, 1, 1, nelems, sizeof(TYPE)) ? -1 : 0; \
    }                                                                                  \
    int shmem_##NAME##_alltoalls(shmem_team_t team, TYPE *dest, const TYPE *source,    \
                                 ptrdiff_t dst, ptrdiff_t sst, size_t nelems)          \
    {                                                                                  \
        TEAM(__func__, team);                                                          \
        return alltoalls(__func__, t, dest, source, dst, sst, nelems, sizeof(TYPE)) ? -1  \
                                                                                 : 0;  \
    }
UVAS_SHMEM_RMA_TYPES(COLL)

#define CLASSIC(BITS, BYTES)                                                           \
    void shmem_broadcast##BITS(void *dest, const void *source, size_t nelems,          \
                               int PE_root, int PE_start, int logPE_stride,            \
                               int PE_size, long *pSync)                               \
    {                                                                                  \
        SET(__func__, PE_start, logPE_stride, PE_size, pSync);                         \
        broadcast(__func__, t, dest, source, nelems, BYTES, PE_root, false);              \
        DONE;                                                                             \
    }                                                                                  \
    void shmem_collect##BITS(void *dest, const void *source, size_t nelems,            \
                             int PE_start, int logPE_stride, int PE_size, long *pSync) \
    {                                                                                  \
        SET(__func__, PE_start, logPE_stride, PE_size, pSync);                         \
        collect(__func__, t, dest, source, nelems, BYTES);                                \
        DONE;                                                                             \
    }                                                                                  \
    void shmem_fcollect##BITS(void *dest, const void *source, size_t nelems,           \
                              int PE_start, int logPE_stride, int PE_size,             \
                              long *pSync)                                             \
    {                                                                                  \
        SET(__func__, PE_start, logPE_stride, PE_size, pSync);                         \
        fcollect(__func__, t, dest, source, nelems, BYTES);                               \
        DONE;                                                                             \
    }                                                                                  \
    void shmem_alltoall##BITS(void *dest, const void *source, size_t nelems,           \
                              int PE_start, int logPE_stride, int PE_size,             \
                              long *pSync)                                             \
    {                                                                                  \
        SET(__func__, PE_start, logPE_stride, PE_size, pSync);                         \
        alltoalls(__func__, t, dest, source, 1, 1, nelems, BYTES);                        \
        DONE;                                                                             \
    }                                                                                  \
    void shmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst,          \
                               ptrdiff_t sst, size_t nelems, int PE_start,             \
                               int logPE_stride, int PE_size, long *pSync)             \
    {                                                                                  \
        SET(__func__, PE_start, logPE_stride, PE_size, pSync);                         \
        alltoalls(__func__, t, dest, source, dst, sst, nelems, BYTES);                    \
        DONE;                                                                             \
    }
CLASSIC(32, 4)
CLASSIC(64, 8)

/* ---- reductions ----------------------------------------------------------------- */

/* Integer sums and products wrap (two's complement), as the hardware's
 * would, instead of overflowing into undefined behaviour. */
#define COMBINE(NAME, TYPE, OP, STMT)                                                  \
    __attribute__((unused)) static void combine_##NAME##_##OP(void *acc_,              \
                                                              const void *in_,         \
                                                              size_t n)                \
    {                                                                                  \
        TYPE *a = acc_;                                                                \
        const TYPE *b = in_;                                                           \
        for (size_t i = 0; i < n; i++) {                                               \
            STMT;                                                                      \
        }                                                                              \
    }
#define COMBINE_ORDER(NAME, TYPE)                                                      \
    COMBINE(NAME, TYPE, min, if (b[i] < a[i]) a[i] = b[i])                             \
    COMBINE(NAME, TYPE, max, if (b[i] > a[i]) a[i] = b[i])
#define COMBINE_INT(NAME, TYPE)                                                        \
    COMBINE(NAME, TYPE, sum, (void)__builtin_add_overflow(a[i], b[i], &a[i]))          \
    COMBINE(NAME, TYPE, prod, (void)__builtin_mul_overflow(a[i], b[i], &a[i]))         \
    COMBINE(NAME, TYPE, and, a[i] &= b[i])                                             \
    COMBINE(NAME, TYPE, or, a[i] |= b[i])                                              \
    COMBINE(NAME, TYPE, xor, a[i] ^= b[i])                                             \
    COMBINE_ORDER(NAME, TYPE)
#define COMBINE_ARITH(NAME, TYPE)                                                      \
    COMBINE(NAME, TYPE, sum, a[i] += b[i])                                             \
    COMBINE(NAME, TYPE, prod, a[i] *= b[i])
UVAS_SHMEM_REDUCE_INT_TYPES(COMBINE_INT)
UVAS_SHMEM_REDUCE_FLOAT_TYPES(COMBINE_ARITH)
UVAS_SHMEM_REDUCE_FLOAT_TYPES(COMBINE_ORDER)
UVAS_SHMEM_REDUCE_COMPLEX_TYPES(COMBINE_ARITH)

#define REDUCE(NAME, TYPE, OP)                                                         \
    int shmem_##NAME##_##OP##_reduce(shmem_team_t team, TYPE *dest, const TYPE *source, \
                                     size_t nreduce)                                   \
    {                                                                                  \
        TEAM(__func__, team);                                                          \
        return reduce(__func__, t, dest, source, nreduce, sizeof(TYPE),                   \
                      combine_##NAME##_##OP) ? -1 : 0;                                 \
    }
#define REDUCE_ARITH(NAME, TYPE) REDUCE(NAME, TYPE, sum) REDUCE(NAME, TYPE, prod)
#define REDUCE_ORDER(NAME, TYPE) REDUCE(NAME, TYPE, min) REDUCE(NAME, TYPE, max)
#define REDUCE_BIT(NAME, TYPE)                                                         \
    REDUCE(NAME, TYPE, and) REDUCE(NAME, TYPE, or) REDUCE(NAME, TYPE, xor)
UVAS_SHMEM_REDUCE_INT_TYPES(REDUCE_ARITH)
UVAS_SHMEM_REDUCE_INT_TYPES(REDUCE_ORDER)
UVAS_SHMEM_REDUCE_BIT_TYPES(REDUCE_BIT)
UVAS_SHMEM_REDUCE_FLOAT_TYPES(REDUCE_ARITH)
UVAS_SHMEM_REDUCE_FLOAT_TYPES(REDUCE_ORDER)
UVAS_SHMEM_REDUCE_COMPLEX_TYPES(REDUCE_ARITH)

static void to_all(const char *call, void *dest, const void *source, int nreduce,
                   int PE_start, int logPE_stride, int PE_size, long *pSync, size_t elem,
                   combine_fn *combine)
{
    if (nreduce < 0) {
        uvas_shmem_fail(call, UVAS_ERR_INVAL, "nreduce %d is negative", nreduce);
        return;
    }
    SET(call, PE_start, logPE_stride, PE_size, pSync);
    reduce(call, t, dest, source, (size_t)nreduce, elem, combine);
    DONE;
}

#define TOALL(NAME, TYPE, OP)                                                          \
    void shmem_##NAME##_##OP##_to_all(TYPE *dest, const TYPE *source, int nreduce,     \
                                      int PE_start, int logPE_stride, int PE_size,     \
                                      TYPE *pWrk, long *pSync)                         \
    {                                                                                  \
        (void)pWrk;                                                                    \
        to_all(__func__, dest, source, nreduce, PE_start, logPE_stride, PE_size,       \
               pSync, sizeof(TYPE), combine_##NAME##_##OP);                            \
    }
#define TOALL_ARITH(NAME, TYPE) TOALL(NAME, TYPE, sum) TOALL(NAME, TYPE, prod)
#define TOALL_ORDER(NAME, TYPE) TOALL(NAME, TYPE, min) TOALL(NAME, TYPE, max)
#define TOALL_BIT(NAME, TYPE) TOALL(NAME, TYPE, and) TOALL(NAME, TYPE, or) TOALL(NAME, TYPE, xor)
UVAS_SHMEM_TOALL_INT_TYPES(TOALL_ARITH)
UVAS_SHMEM_TOALL_INT_TYPES(TOALL_ORDER)
UVAS_SHMEM_TOALL_INT_TYPES(TOALL_BIT)
UVAS_SHMEM_TOALL_FLOAT_TYPES(TOALL_ARITH)
UVAS_SHMEM_TOALL_FLOAT_TYPES(TOALL_ORDER)
UVAS_SHMEM_TOALL_COMPLEX_TYPES(TOALL_ARITH)
