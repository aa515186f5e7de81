/*
 * peers: a block lives where most of its accesses come from, other PEs'
 * counted with this PE's own (UVAS_POLICY_TRACK_PEERS). Every tick the
 * accesses each block took since the last are split by the memory they
 * want: the device's (this PE's device accesses and kernels, other PEs'
 * kernels' leases) and the host's (this PE's CPU faults and the accesses
 * the sampling sees, other PEs' CPU puts, gets and atomics, the calls
 * their hosts made for their kernels among them), and added to the
 * side's score. The scores decay with a half-life of `half_ms` of the
 * time between ticks (recent use weighs most; a slow but steady user adds
 * up, where a count per tick would never reach `min`). A block whose
 * other side scores `ratio` times its own, and at least `min`, moves
 * there, and its scores start again from zero. Promotions take the room
 * the device tier has, with this tick's demotions, highest score first:
 * the rest wait, rather than evict blocks the device's own side wants.
 * This PE's own agents move blocks on demand as first-touch does; a block
 * that moved `thrash` times in its allocation and last within `window_ms`
 * stays where it is until the window passes (UVM's thrashing guard, as
 * access-counter's), its accesses then served where it is.
 *
 * Why: a peer's CPU reaches a host block through its window at memory
 * speed and a device block through the copy engine (microseconds a call);
 * a peer's kernel reaches a device block on its GPU at the GPU's speed
 * and a host block over the bus (docs/transport.md, path-bench).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate/policy.h"
#include "uvas/os.h"

struct peers {
    double ratio, min, half_ms, tick_ms, thrash, window_ms;
    uint64_t last_ns;          /* the last tick's time, 0 before the first */
    unsigned track;            /* UVAS_POLICY_TRACK_ACCESS from sample= */
    struct seen {              /* per block index: */
        struct uvas_policy_entry e;
        uint32_t moves;        /* its migrations at the last tick */
        uint64_t dev, host;    /* this PE's counts then, by side */
        uint32_t pdev, phost;  /* other PEs' then (kernels; CPUs and the network) */
        float sdev, shost;     /* the sides' scores */
    } *seen;
    size_t nseen;
    struct want { size_t index; float score; } *want; /* this tick's promotions */
    size_t nwant;
};

static int param(void *st, const char *k, const char *v, char *err, size_t n)
{
    struct peers *s = st;
    if (!strcmp(k, "ratio"))
        return uvas_policy_number(k, v, 1, 1e9, &s->ratio, err, n);
    if (!strcmp(k, "min"))
        return uvas_policy_number(k, v, 1, 1e9, &s->min, err, n);
    if (!strcmp(k, "half_ms"))
        return uvas_policy_number(k, v, 1, 1e9, &s->half_ms, err, n);
    if (!strcmp(k, "tick_ms"))
        return uvas_policy_number(k, v, 1, 60000, &s->tick_ms, err, n);
    if (!strcmp(k, "thrash"))
        return uvas_policy_number(k, v, 1, 1e9, &s->thrash, err, n);
    if (!strcmp(k, "window_ms"))
        return uvas_policy_number(k, v, 0, 1e9, &s->window_ms, err, n);
    if (!strcmp(k, "sample")) {
        if (!strcmp(v, "access"))
            s->track = UVAS_POLICY_TRACK_ACCESS;
        else if (!strcmp(v, "none"))
            s->track = 0;
        else {
            snprintf(err, n, "sample=%s: use access or none", v);
            return -1;
        }
        return 0;
    }
    snprintf(err, n, "unknown parameter '%s' (peers takes ratio, min, half_ms, tick_ms, sample, "
             "thrash, window_ms)", k);
    return -1;
}

static int init(const char *params, void **state, char *err, size_t n)
{
    struct peers *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    *s = (struct peers){.ratio = 2, .min = 4, .half_ms = 1000, .tick_ms = 20, .thrash = 4,
                        .window_ms = 1000, .track = UVAS_POLICY_TRACK_ACCESS};
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
    struct peers *s = st;
    free(s->seen);
    free(s->want);
    free(s);
}

static int fault(void *st, const struct uvas_block_view *b, int agent, int write)
{
    (void)agent, (void)write;
    const struct peers *s = st;
    return uvas_policy_thrashing(b, s->thrash, s->window_ms, uvas_os_now_ns())
               ? UVAS_ACTION_REMOTE : UVAS_ACTION_MIGRATE;
}

/* Accesses since the last tick of a count that only grows: this PE's own
 * (64 bits: never wraps). A count that reads lower than before, as a view
 * taken while the block is freed may, adds nothing. */
static uint64_t grew(uint64_t now, uint64_t then)
{
    return now >= then ? now - then : 0;
}

/* The same of other PEs' 32-bit counts, modulo 2^32: they wrap, and one
 * PE's two threads counting at once may write an older value back (a load
 * and a store, uvas/gate.h), which reads as a drop, not as 4 billion. */
static uint32_t grew32(uint32_t now, uint32_t then)
{
    uint32_t d = now - then;
    return (int32_t)d < 0 ? 0 : d;
}

static int stronger(const void *a, const void *b)
{
    const struct want *x = a, *y = b;
    if (x->score != y->score)
        return x->score < y->score ? 1 : -1;
    return x->index < y->index ? -1 : x->index > y->index; /* ties: lower address first */
}

static void tick(void *st, struct uvas_policy_tick *t)
{
    struct peers *s = st;
    struct seen *seen = uvas_policy_per_block(t, s->seen, &s->nseen, sizeof *seen);
    if (!seen)
        return;
    s->seen = seen;
    if (t->nblocks > s->nwant) {
        struct want *w = realloc(s->want, t->nblocks * sizeof *w);
        if (!w)
            return;
        s->want = w;
        s->nwant = t->nblocks;
    }
    /* The decay of the time that passed, not of the nominal tick: a slow
     * sweep or a late wake-up must not stretch the half-life. */
    double decay = 1;
    if (s->last_ns && t->now_ns > s->last_ns)
        decay = exp2(-(double)(t->now_ns - s->last_ns) * 1e-6 / s->half_ms);
    s->last_ns = t->now_ns;
    size_t want = 0, demoted = 0;
    for (size_t k = 0; k < t->nblocks; k++) {
        const struct uvas_block_view *b = &t->blocks[k];
        /* A free restarts the counts and changes the generation, and
         * with it the entry. */
        uint64_t dev = b->accesses[UVAS_AGENT_DEVICE];
        uint64_t host = b->accesses[UVAS_AGENT_CPU] + b->writes;
        uint32_t pdev = b->peer_kernel_accesses;
        uint32_t phost = b->peer_accesses - b->peer_kernel_accesses;
        struct seen *w = uvas_policy_entry(s->seen, sizeof *w, b);
        if (b->migrations != w->moves) { /* moved: from zero where it is */
            w->sdev = w->shost = 0;
        } else {
            w->sdev = (float)(w->sdev * decay);
            w->shost = (float)(w->shost * decay);
        }
        w->sdev += (float)grew(dev, w->dev) + (float)grew32(pdev, w->pdev);
        w->shost += (float)grew(host, w->host) + (float)grew32(phost, w->phost);
        w->dev = dev;
        w->host = host;
        w->pdev = pdev;
        w->phost = phost;
        w->moves = b->migrations;
        if (uvas_policy_thrashing(b, s->thrash, s->window_ms, t->now_ns))
            continue;
        if (b->residence == UVAS_RES_DEVICE && w->shost >= s->min &&
            w->shost >= s->ratio * w->sdev) {
            if (t->request(t, b->index, UVAS_RES_HOST) == 0)
                demoted++;
        } else if (b->residence == UVAS_RES_HOST && w->sdev >= s->min &&
                   w->sdev >= s->ratio * w->shost)
            s->want[want++] = (struct want){b->index, w->sdev};
    }
    size_t room = t->device_room_blocks + demoted;
    if (want > room)
        qsort(s->want, want, sizeof *s->want, stronger);
    for (size_t i = 0; i < want && i < room; i++)
        t->request(t, s->want[i].index, UVAS_RES_DEVICE);
}

static unsigned interval(void *st)
{
    return (unsigned)((struct peers *)st)->tick_ms;
}

static unsigned tracking(void *st)
{
    return UVAS_POLICY_TRACK_PEERS | ((struct peers *)st)->track;
}

const struct uvas_policy_ops uvas_policy_peers = {
    .name = "peers",
    .init = init,
    .fini = fini,
    .first_touch = uvas_policy_at_agent,
    .fault = fault,
    .tick = tick,
    .tick_ms = 20,
    .tick_interval = interval,
    .tracking = tracking,
};
