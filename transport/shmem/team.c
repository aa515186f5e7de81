/*
 * Teams. A team is a strided set of world PEs (member i is world PE
 * start + i * stride; a negative stride lists them backwards): the world, the shared team (the world when every PE
 * reaches every other with loads and stores, else this PE alone), and the
 * teams shmem_team_split_strided and _2d make from a parent (strided
 * subsets of a strided set stay strided).
 *
 * A created team synchronises through a slot of symmetric counters, one
 * per round of a dissemination barrier: in round k, member i adds 1 to
 * member (i + 2^k) mod n's counter k and waits for its own to reach the
 * number of syncs the team has made, so counters only grow and nothing is
 * reset between syncs. A split picks the slot all of the parent's members
 * agree is free: each PE publishes a mask of the slots its teams use, and
 * the parent ORs them (two PEs that share a team both have its bit, so two
 * teams with a common member never share a slot; disjoint teams, such as
 * the rows of a 2D split, may).
 *
 * Under SHMEM_THREAD_MULTIPLE two threads of a PE may split two parents at
 * once, and both read the same masks: each member claims the slots it
 * picked in its own mask (under a lock, and only if no other split of this
 * PE claimed them meanwhile), and the parent's members compare their
 * picks and claims through the parent's word. A split whose members did
 * not all pick and claim the same slots gives its claims back and tries
 * again, starting its search elsewhere (a place that depends on the
 * parent, so that two splits racing for one slot part ways). A lock held
 * across the whole agreement would deadlock: PE 0's thread holding it
 * waits for PE 1, whose thread holding its own waits for PE 0's other.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shmem.h"
#include "transport/pe/pe.h"
#include "transport/shmem/internal.h"
#include "uvas.h"

#define SLOTS UVAS_SHMEM_SLOTS
#define ROUNDS 32

struct uvas_shmem_team_reg {
    struct uvas_shmem_team t;
    /* The user's handle: a number never given before, not the address, so
     * that a destroyed team's handle cannot name a team made later where
     * its memory was. */
    shmem_team_t handle;
    struct uvas_shmem_team_reg *next; /* the teams this PE made, to know a handle */
};

static struct uvas_shmem_team world = {.slot = -1}, self = {.slot = -1};
static bool shared_world;
static uint64_t (*slots)[ROUNDS]; /* symmetric: SLOTS x ROUNDS counters */
static uint64_t *used;            /* symmetric: this PE's teams' slots (and claims), a bit each */
static uint64_t *words;           /* symmetric: each slot's team's word, then self's */
/* The registry below and this PE's changes to *used (peers read it). */
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static struct uvas_shmem_team_reg *made;
static uintptr_t handles = 16; /* the last handle given; 0-2 are the predefined teams */

static int index_of(const struct uvas_shmem_team *t, int w);

int uvas_shmem_team_init(uint64_t *world_word)
{
    int me = uvas_pe_me(), n = uvas_pe_count();
    const void *probe = world_word;
    world = (struct uvas_shmem_team){.start = 0, .stride = 1, .size = n, .me = me, .slot = -1,
                                     .word = world_word};
    self = (struct uvas_shmem_team){.start = me, .stride = 1, .size = 1, .me = 0, .slot = -1};
    /* The PEs whose shmem_malloc objects shmem_ptr reaches (OpenSHMEM
     * 1.5's SHMEM_TEAM_SHARED): the node's, when plain allocations come
     * from the host heap; else none but this PE, as shmem_ptr hands out no
     * pointer into memory that may migrate (mem.c). */
    shared_world = uvas_shmem_default_heap_is_host();
    for (int pe = 0; pe < n && shared_world; pe++)
        if (pe != me && !uvas_pe_ptr(probe, pe))
            shared_world = false;
    /* Collective, right after the collectives' own scratch: the same
     * addresses everywhere. Host memory: peers add to it with AMOs. */
    if (!slots) {
        slots = uvas_malloc_hint(sizeof(uint64_t[SLOTS][ROUNDS]), UVAS_HINT_HOST);
        used = uvas_malloc_hint(sizeof *used, UVAS_HINT_HOST);
        words = uvas_malloc_hint((SLOTS + 1) * sizeof *words, UVAS_HINT_HOST);
        if (!slots || !used || !words)
            return UVAS_ERR_NOMEM;
        memset(slots, 0, sizeof(uint64_t[SLOTS][ROUNDS]));
        memset(words, 0, (SLOTS + 1) * sizeof *words);
        *used = 0;
    }
    self.word = &words[SLOTS];
    return UVAS_OK;
}

void uvas_shmem_team_fini(void)
{
    while (made) {
        struct uvas_shmem_team_reg *r = made;
        made = r->next;
        free(r);
    }
    if (slots)
        uvas_try_free(slots);
    if (used)
        uvas_try_free(used);
    if (words)
        uvas_try_free(words);
    slots = NULL;
    used = NULL;
    words = NULL;
}

bool uvas_shmem_shared_is_world(void)
{
    return shared_world || uvas_pe_count() == 1;
}

struct uvas_shmem_team *uvas_shmem_team_find(shmem_team_t team)
{
    if (team == SHMEM_TEAM_WORLD)
        return &world;
    if (team == SHMEM_TEAM_SHARED)
        return uvas_shmem_shared_is_world() ? &world : &self;
    /* The entry outlives the lock: only the team's destroy frees it, and a
     * team used while it is destroyed is the program's error. */
    struct uvas_shmem_team *t = NULL;
    pthread_mutex_lock(&reg_mu);
    for (struct uvas_shmem_team_reg *r = made; r && !t; r = r->next)
        if (r->handle == team)
            t = &r->t;
    pthread_mutex_unlock(&reg_mu);
    return t;
}

struct uvas_shmem_team *uvas_shmem_team_of(const char *call, shmem_team_t team)
{
    struct uvas_shmem_team *t = uvas_shmem_team_find(team);
    if (!t)
        uvas_shmem_fail(call, UVAS_ERR_INVAL, team == SHMEM_TEAM_INVALID
                            ? "team is SHMEM_TEAM_INVALID"
                            : "team handle %p is not a team of this PE (destroyed, or "
                              "never made)", (void *)team);
    return t;
}

struct uvas_shmem_team *uvas_shmem_world_team(void)
{
    return &world;
}

/* Wait for a local counter to reach v: peers' AMOs land in it. A dead
 * peer ends the job (uvas_pe_wait_turn); it waited for ever. */
static void wait_at_least(uint64_t *c, uint64_t v)
{
    for (unsigned turn = 0; __atomic_load_n(c, __ATOMIC_ACQUIRE) < v; turn++)
        if (turn > 64)
            uvas_pe_wait_turn(turn);
}

int uvas_shmem_team_sync(struct uvas_shmem_team *t)
{
    if (t->size == 1)
        return UVAS_OK;
    if (t->slot == -1)
        return uvas_pe_sync_all();
    uint64_t e = ++t->epoch;
    for (int k = 0, d = 1; d < t->size; k++, d <<= 1) {
        int partner = uvas_shmem_team_pe(t, (t->me + d) % t->size);
        int st = uvas_pe_amo(UVAS_AMO_ADD, &t->ctr[k], 8, 1, 0, NULL, partner);
        if (st != UVAS_OK)
            return st;
        wait_at_least(&t->ctr[k], e);
    }
    return UVAS_OK;
}

int uvas_shmem_team_barrier(struct uvas_shmem_team *t)
{
    if (t->slot == -1 && t->size > 1)
        return uvas_pe_barrier_all();
    int st = uvas_pe_quiet();
    return st != UVAS_OK ? st : uvas_shmem_team_sync(t);
}

/* Rounds of a dissemination barrier over n members. */
static int rounds(int n)
{
    int k = 0;
    for (int d = 1; d < n; d <<= 1)
        k++;
    return k;
}

/* The counters of a classic call live in its pSync: the same words at
 * every member (pSync is symmetric), SHMEM_SYNC_VALUE (0) before the call,
 * as the specification asks of the caller, and after it: each member
 * takes its call's syncs back off its own counters once its last sync is
 * done. Not a reset: in round k only one PE adds to a member's counter k,
 * one add at a time (each waits for its answer), so reaching the call's
 * count means exactly the call's adds arrived; an add of the next call on
 * that pSync (a barrier right after a barrier) may already be there, and
 * must stay. */
int uvas_shmem_active_set(const char *call, int PE_start, int logPE_stride, int PE_size,
                          long *pSync, struct uvas_shmem_team *out)
{
    int n = uvas_pe_count(), me = uvas_pe_me();
    if (PE_start == 0 && PE_size == n && (logPE_stride == 0 || n == 1)) {
        *out = world;
        return UVAS_OK;
    }
    long stride = logPE_stride >= 0 && logPE_stride < 31 ? 1L << logPE_stride : 0;
    if (PE_start < 0 || PE_size < 1 || !stride ||
        PE_start + (PE_size - 1) * stride >= n)
        return uvas_shmem_fail(call, UVAS_ERR_INVAL, "active set (PE_start %d, logPE_stride "
                               "%d, PE_size %d) does not name PEs of the job (0..%d)",
                               PE_start, logPE_stride, PE_size, n - 1);
    *out = (struct uvas_shmem_team){.start = PE_start, .stride = (int)stride,
                                    .size = PE_size, .slot = -2};
    out->me = index_of(out, me);
    if (out->me < 0)
        return uvas_shmem_fail(call, UVAS_ERR_INVAL, "PE %d is not in the active set "
                               "(PE_start %d, logPE_stride %d, PE_size %d) it called for",
                               me, PE_start, logPE_stride, PE_size);
    /* Counters first (at most ROUNDS), then the set's word: within
     * SHMEM_SYNC_SIZE, which every pSync has. */
    int st = pSync ? uvas_pe_check(call, pSync, (ROUNDS + 1) * sizeof *pSync, me)
                   : UVAS_ERR_INVAL;
    if (st != UVAS_OK)
        return uvas_shmem_fail(call, st == UVAS_ERR_INVAL ? st : UVAS_ERR_NOT_OWNED,
                               "pSync %p is not a symmetric array of SHMEM_SYNC_SIZE longs",
                               (void *)pSync);
    out->ctr = (uint64_t *)pSync;
    out->word = (uint64_t *)&pSync[ROUNDS];
    return UVAS_OK;
}

void uvas_shmem_active_set_done(struct uvas_shmem_team *t)
{
    if (t->slot != -2 || !t->ctr)
        return;
    for (int k = 0; k < rounds(t->size); k++)
        __atomic_fetch_sub(&t->ctr[k], t->epoch, __ATOMIC_ACQ_REL);
    /* The call's last barrier is passed: no member reads it any more. */
    __atomic_store_n(t->word, SHMEM_SYNC_VALUE, __ATOMIC_RELEASE);
}

/* ---- queries ---------------------------------------------------------------- */

int shmem_team_my_pe(shmem_team_t team)
{
    struct uvas_shmem_team *t = uvas_shmem_team_find(team);
    return t ? t->me : -1;
}

int shmem_team_n_pes(shmem_team_t team)
{
    struct uvas_shmem_team *t = uvas_shmem_team_find(team);
    return t ? t->size : -1;
}

/* A member's index of world PE w, or -1. */
static int index_of(const struct uvas_shmem_team *t, int w)
{
    int d = w - t->start; /* the stride may be negative (a team in reverse) */
    if (d % t->stride)
        return -1;
    int i = d / t->stride;
    return i >= 0 && i < t->size ? i : -1;
}

int shmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    struct uvas_shmem_team *s = uvas_shmem_team_find(src_team),
                           *d = uvas_shmem_team_find(dest_team);
    if (!s || !d || src_pe < 0 || src_pe >= s->size)
        return -1;
    return index_of(d, uvas_shmem_team_pe(s, src_pe));
}

int shmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    if (team == SHMEM_TEAM_INVALID)
        return uvas_shmem_decline(__func__, UVAS_ERR_INVAL, "team is SHMEM_TEAM_INVALID") != 0;
    struct uvas_shmem_team *t = uvas_shmem_team_of(__func__, team);
    if (!t)
        return 1;
    if (!config) {
        uvas_shmem_fail(__func__, UVAS_ERR_INVAL, "config is NULL");
        return 1;
    }
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = t->config.num_contexts;
    return 0;
}

/* ---- making teams ----------------------------------------------------------- */

/* Give back slots this PE claimed and did not join. */
static void unclaim(uint64_t mask)
{
    pthread_mutex_lock(&reg_mu);
    __atomic_fetch_and(used, ~mask, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&reg_mu);
}

/* Every member's word of the parent p, read between two of its barriers
 * (each member wrote its own before). *same: all equal to mine. Status. */
static int compare_words(struct uvas_shmem_team *p, uint64_t mine, bool *same)
{
    __atomic_store_n(p->word, mine, __ATOMIC_RELEASE);
    int st = uvas_shmem_team_barrier(p);
    *same = true;
    for (int i = 0; st == UVAS_OK && i < p->size; i++) {
        uint64_t w = 0;
        st = uvas_pe_get(&w, p->word, sizeof w, uvas_shmem_team_pe(p, i), false);
        *same &= w == mine;
    }
    /* Nobody writes its word again until every member has read them all. */
    int st2 = uvas_shmem_team_barrier(p);
    return st != UVAS_OK ? st : st2;
}

#define CLAIMED (1ull << 63) /* in a member's word: it claimed what it picked */
#define AGREE_TRIES 64

/* The parent's members agree on `want` slots free at every one of them
 * (collective over the parent), claimed in this PE's mask: join keeps
 * those it joins, the caller gives back the rest (unclaim). Status; the
 * slots in out[]. */
static int agree_slots(const char *call, struct uvas_shmem_team *p, int want, int *out)
{
    /* Where a retry starts its search: the same at every member of p, and
     * unlike another parent's. */
    unsigned spread = (unsigned)(p->slot + 2) * 29u + (unsigned)p->start * 7u +
                      (unsigned)p->size * 3u;
    for (int attempt = 0; attempt < AGREE_TRIES; attempt++) {
        int st = uvas_shmem_team_barrier(p);
        uint64_t all = 0, m = 0;
        for (int i = 0; st == UVAS_OK && i < p->size; i++) {
            st = uvas_pe_get(&m, used, sizeof m, uvas_shmem_team_pe(p, i), false);
            all |= m;
        }
        int st2 = uvas_shmem_team_barrier(p);
        if (st == UVAS_OK)
            st = st2;
        if (st != UVAS_OK)
            return uvas_shmem_fail(call, st, "the parent team's members could not agree on a "
                                   "team slot");
        uint64_t pick = 0;
        int k = 0;
        unsigned first = attempt ? (spread + (unsigned)attempt * 17u) % SLOTS : 0;
        for (int j = 0; j < SLOTS && k < want; j++) {
            int s = (int)((first + (unsigned)j) % SLOTS);
            if (!(all & (1ull << s))) {
                out[k++] = s;
                pick |= 1ull << s;
            }
        }
        if (k < want)
            pick = 0;
        /* Claimed only where no other split of this PE took them since. */
        bool claimed = false;
        if (pick) {
            pthread_mutex_lock(&reg_mu);
            claimed = !(__atomic_load_n(used, __ATOMIC_ACQUIRE) & pick);
            if (claimed)
                __atomic_fetch_or(used, pick, __ATOMIC_RELEASE);
            pthread_mutex_unlock(&reg_mu);
        }
        bool same;
        st = compare_words(p, pick | (claimed ? CLAIMED : 0), &same);
        if (st != UVAS_OK) {
            if (claimed)
                unclaim(pick);
            return uvas_shmem_fail(call, st, "the parent team's members could not agree on a "
                                   "team slot");
        }
        if (same && claimed)
            return UVAS_OK;
        if (claimed)
            unclaim(pick);
        /* Every member found too few free: all see the same words. */
        if (same && !pick)
            return uvas_shmem_decline(call, UVAS_ERR_NOMEM, "every one of the %d team slots "
                                      "is in use by a team of some member: destroy teams no "
                                      "longer used", SLOTS);
    }
    return uvas_shmem_decline(call, UVAS_ERR_NOMEM, "the parent team's members found no team "
                              "slot free at all of them in %d tries while other threads made "
                              "teams of theirs: try again", AGREE_TRIES);
}

/* This PE's part of the team [start, stride, size] (world numbers) on slot. */
static int join(const char *call, int start, int stride, int size, int slot,
                const shmem_team_config_t *config, long mask, shmem_team_t *out)
{
    struct uvas_shmem_team_reg *r = calloc(1, sizeof *r);
    if (!r)
        return uvas_shmem_fail(call, UVAS_ERR_NOMEM, "no memory for a team");
    r->t = (struct uvas_shmem_team){.start = start, .stride = size > 1 ? stride : 1,
                                    .size = size, .slot = slot, .ctr = slots[slot]};
    r->t.me = index_of(&r->t, uvas_pe_me());
    if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS))
        r->t.config.num_contexts = config->num_contexts;
    r->t.word = &words[slot];
    memset(slots[slot], 0, sizeof slots[slot]); /* counters of a team before */
    uvas_shmem_stage_reset(slot);
    pthread_mutex_lock(&reg_mu);
    __atomic_fetch_or(used, 1ull << slot, __ATOMIC_RELEASE); /* claimed: kept */
    r->next = made;
    made = r;
    r->handle = (shmem_team_t)++handles;
    *out = r->handle;
    pthread_mutex_unlock(&reg_mu);
    return UVAS_OK;
}

int shmem_team_split_strided(shmem_team_t parent, int start, int stride, int size,
                             const shmem_team_config_t *config, long config_mask,
                             shmem_team_t *new_team)
{
    static const char call[] = "shmem_team_split_strided";
    if (!new_team) {
        uvas_shmem_fail(call, UVAS_ERR_INVAL, "new_team is NULL");
        return 1;
    }
    *new_team = SHMEM_TEAM_INVALID;
    /* A PE left out of an earlier split passes on what it got: no team. */
    if (parent == SHMEM_TEAM_INVALID)
        return uvas_shmem_decline(call, UVAS_ERR_INVAL, "the parent team is "
                                  "SHMEM_TEAM_INVALID: no team made") != 0;
    struct uvas_shmem_team *p = uvas_shmem_team_of(call, parent);
    if (!p)
        return 1;
    /* An empty team has no member: every PE gets SHMEM_TEAM_INVALID, as PEs
     * left out of a team do (programs shrink a team down to nothing in a
     * loop); still collective over the parent. */
    if (size == 0)
        return uvas_shmem_team_barrier(p) != UVAS_OK;
    /* A negative stride names the PEs backwards (OpenSHMEM 1.6; programs
     * written for other implementations use it). */
    long last = (long)start + (long)(size - 1) * (size > 1 ? stride : 0);
    if (size < 1 || start < 0 || start >= p->size || (size > 1 && stride == 0) || last < 0 ||
        last >= p->size) {
        uvas_shmem_fail(call, UVAS_ERR_INVAL, "start %d, stride %d, size %d do not name PEs "
                        "of the parent team (its %d PEs: 0..%d; stride not 0)", start,
                        stride, size, p->size, p->size - 1);
        return 1;
    }
    int slot[1] = {-1};
    int st = agree_slots(call, p, 1, slot);
    if (st != UVAS_OK)
        slot[0] = -1; /* nothing claimed */
    int wstart = uvas_shmem_team_pe(p, start), wstride = p->stride * (size > 1 ? stride : 1);
    struct uvas_shmem_team probe = {.start = wstart, .stride = wstride, .size = size};
    bool member = index_of(&probe, uvas_pe_me()) >= 0;
    if (st == UVAS_OK && member)
        st = join(call, wstart, wstride, size, slot[0], config, config_mask, new_team);
    if (st == UVAS_OK ? !member : slot[0] >= 0)
        unclaim(1ull << slot[0]);
    /* Counters zeroed everywhere before any member syncs on them. */
    int st2 = uvas_shmem_team_barrier(p);
    return st != UVAS_OK || st2 != UVAS_OK;
}

int shmem_team_split_2d(shmem_team_t parent, int xrange,
                        const shmem_team_config_t *xaxis_config, long xaxis_mask,
                        shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                        long yaxis_mask, shmem_team_t *yaxis_team)
{
    static const char call[] = "shmem_team_split_2d";
    if (!xaxis_team || !yaxis_team) {
        uvas_shmem_fail(call, UVAS_ERR_INVAL, "xaxis_team or yaxis_team is NULL");
        return 1;
    }
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    if (parent == SHMEM_TEAM_INVALID)
        return uvas_shmem_decline(call, UVAS_ERR_INVAL, "the parent team is "
                                  "SHMEM_TEAM_INVALID: no teams made") != 0;
    struct uvas_shmem_team *p = uvas_shmem_team_of(call, parent);
    if (!p)
        return 1;
    if (xrange < 1) {
        uvas_shmem_fail(call, UVAS_ERR_INVAL, "xrange %d is less than 1", xrange);
        return 1;
    }
    if (xrange > p->size)
        xrange = p->size; /* one row: the whole parent (as the specification says) */
    int slot[2];
    int st = agree_slots(call, p, 2, slot);
    bool agreed = st == UVAS_OK;
    /* This PE's row (x: consecutive parent PEs) and column (y: every
     * xrange-th); rows are disjoint, so they share a slot, as columns do. */
    int i = p->me, row0 = i / xrange * xrange, col = i % xrange;
    int xsize = p->size - row0 < xrange ? p->size - row0 : xrange;
    int ysize = (p->size - col + xrange - 1) / xrange;
    bool joined_x = false, joined_y = false;
    if (st == UVAS_OK)
        joined_x = (st = join(call, uvas_shmem_team_pe(p, row0), p->stride, xsize, slot[0],
                              xaxis_config, xaxis_mask, xaxis_team)) == UVAS_OK;
    if (st == UVAS_OK)
        joined_y = (st = join(call, uvas_shmem_team_pe(p, col), p->stride * xrange, ysize,
                              slot[1], yaxis_config, yaxis_mask, yaxis_team)) == UVAS_OK;
    /* Claims of teams not joined go back (a join that failed, or none). */
    if (agreed && !joined_x)
        unclaim(1ull << slot[0]);
    if (agreed && !joined_y)
        unclaim(1ull << slot[1]);
    int st2 = uvas_shmem_team_barrier(p);
    return st != UVAS_OK || st2 != UVAS_OK;
}

int uvas_shmem_team_unmake(shmem_team_t team)
{
    if (team == SHMEM_TEAM_WORLD || team == SHMEM_TEAM_SHARED || team == SHMEM_TEAM_INVALID) {
        if (team != SHMEM_TEAM_INVALID)
            uvas_shmem_fail("shmem_team_destroy", UVAS_ERR_INVAL, "the predefined teams "
                            "cannot be destroyed");
        return UVAS_ERR_INVAL;
    }
    /* A member may still read the staged buffers of the team's last small
     * collective (stage.c): the next team on the slot writes them only
     * once every member is here. Collective over the team, as destroy. */
    struct uvas_shmem_team *t = uvas_shmem_team_find(team);
    if (t && uvas_shmem_stage_used(t->slot))
        (void)uvas_shmem_team_sync(t);
    pthread_mutex_lock(&reg_mu);
    for (struct uvas_shmem_team_reg **pp = &made; *pp; pp = &(*pp)->next) {
        struct uvas_shmem_team_reg *r = *pp;
        if (r->handle != team)
            continue;
        /* Every member's syncs are done (they all reached destroy): the
         * slot is free for the next team. */
        bool shared = false;
        for (struct uvas_shmem_team_reg *o = made; o; o = o->next)
            shared |= o != r && o->t.slot == r->t.slot;
        if (!shared)
            __atomic_fetch_and(used, ~(1ull << r->t.slot), __ATOMIC_RELEASE);
        *pp = r->next;
        pthread_mutex_unlock(&reg_mu);
        free(r);
        return UVAS_OK;
    }
    pthread_mutex_unlock(&reg_mu);
    return uvas_shmem_fail("shmem_team_destroy", UVAS_ERR_INVAL, "team handle %p is not a "
                           "team of this PE", (void *)team);
}
