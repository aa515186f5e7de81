/*
 * hot-cold: every tick, rank blocks by their accesses since the last tick
 * (faults and device accesses of both agents, and the CPU accesses the
 * sampling sees: sample=access (default) counts any access once per tick,
 * sample=writes only writes, sample=none nothing) and keep the hottest
 * ones on the device, up to
 * `fraction` of its capacity; demote the rest (HeMem, TPP). A block that
 * has moved `thrash` times in its allocation stays where it is for
 * `window_ms` after each move (UVM's thrashing guard, as
 * access-counter's). Between
 * ticks nothing moves on a fault: accesses are served where the block is.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate/policy.h"

struct hotcold {
    double fraction, tick_ms, thrash, window_ms;
    unsigned track;   /* UVAS_POLICY_TRACK_* from sample= */
    struct seen {     /* per block index: */
        struct uvas_policy_entry e;
        uint64_t acc; /* its accesses at the last tick */
    } *seen;
    size_t nseen;
    struct hot { size_t i; uint64_t heat; } *rank;
};

static int param(void *st, const char *k, const char *v, char *err, size_t n)
{
    struct hotcold *s = st;
    if (!strcmp(k, "fraction"))
        return uvas_policy_number(k, v, 0, 1, &s->fraction, err, n);
    if (!strcmp(k, "tick_ms"))
        return uvas_policy_number(k, v, 1, 60000, &s->tick_ms, err, n);
    if (!strcmp(k, "thrash"))
        return uvas_policy_number(k, v, 1, 1e9, &s->thrash, err, n);
    if (!strcmp(k, "window_ms"))
        return uvas_policy_number(k, v, 0, 1e9, &s->window_ms, err, n);
    if (!strcmp(k, "sample")) {
        if (!strcmp(v, "access"))
            s->track = UVAS_POLICY_TRACK_ACCESS;
        else if (!strcmp(v, "writes"))
            s->track = UVAS_POLICY_TRACK_WRITES;
        else if (!strcmp(v, "none"))
            s->track = 0;
        else {
            snprintf(err, n, "sample=%s: use access, writes or none", v);
            return -1;
        }
        return 0;
    }
    snprintf(err, n, "unknown parameter '%s' (hot-cold takes fraction, tick_ms, sample, thrash, "
             "window_ms)", k);
    return -1;
}

static int init(const char *params, void **state, char *err, size_t n)
{
    struct hotcold *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->fraction = 0.9;
    s->tick_ms = 20;
    s->thrash = 4;
    s->window_ms = 1000;
    s->track = UVAS_POLICY_TRACK_ACCESS;
    int rc = uvas_policy_params(params, err, n, param, s);
    if (rc) {
        free(s);
        return rc;
    }
    *state = s;
    return 0;
}

static void fini(void *st)
{
    struct hotcold *s = st;
    free(s->seen);
    free(s->rank);
    free(s);
}

static int hotter(const void *a, const void *b)
{
    const struct hot *x = a, *y = b;
    if (x->heat != y->heat)
        return x->heat < y->heat ? 1 : -1;
    return x->i < y->i ? -1 : x->i > y->i; /* ties: lower address first */
}

static void tick(void *st, struct uvas_policy_tick *t)
{
    struct hotcold *s = st;
    struct seen *seen = uvas_policy_per_block(t, s->seen, &s->nseen, sizeof *seen);
    if (!seen)
        return;
    s->seen = seen;
    struct hot *rank = realloc(s->rank, (t->nblocks ? t->nblocks : 1) * sizeof *rank);
    if (!rank)
        return;
    s->rank = rank;
    for (size_t k = 0; k < t->nblocks; k++) {
        const struct uvas_block_view *b = &t->blocks[k];
        uint64_t now = b->accesses[0] + b->accesses[1] + b->writes;
        /* A free restarts the counts and the entry with them; a count read
         * lower (a view taken while the block is freed) adds nothing. */
        struct seen *w = uvas_policy_entry(s->seen, sizeof *w, b);
        rank[k] = (struct hot){k, now >= w->acc ? now - w->acc : 0};
        w->acc = now;
    }
    qsort(rank, t->nblocks, sizeof *rank, hotter);
    size_t keep = (size_t)(s->fraction * (double)t->device_capacity_blocks);
    for (size_t k = 0; k < t->nblocks; k++) {
        const struct uvas_block_view *b = &t->blocks[rank[k].i];
        bool hot = k < keep && rank[k].heat > 0;
        /* Thrashing: a block that has moved thrash times stays where it
         * is for window_ms after each move (as access-counter's guard):
         * on the random workload the CPU's faults brought
         * promoted blocks back and every tick promoted them again. */
        if (uvas_policy_thrashing(b, s->thrash, s->window_ms, t->now_ns))
            continue;
        if (hot && b->residence != UVAS_RES_DEVICE)
            t->request(t, b->index, UVAS_RES_DEVICE);
        else if (!hot && b->residence == UVAS_RES_DEVICE && k >= keep)
            t->request(t, b->index, UVAS_RES_HOST);
    }
}

static unsigned interval(void *st)
{
    return (unsigned)((struct hotcold *)st)->tick_ms;
}

static unsigned tracking(void *st)
{
    return ((struct hotcold *)st)->track;
}

const struct uvas_policy_ops uvas_policy_hot_cold = {
    .name = "hot-cold",
    .init = init,
    .fini = fini,
    .first_touch = uvas_policy_at_host,
    .fault = uvas_policy_serve_remote,
    .tick = tick,
    .tick_ms = 20,
    .tick_interval = interval,
    .tracking = tracking,
};
