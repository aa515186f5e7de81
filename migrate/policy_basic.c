/*
 * The simple built-in policies: first-touch (where the toucher is), host
 * and device (one tier for everything), interleave (a fixed share of
 * blocks on the device, as numactl --interleave spreads pages over nodes).
 */
#include <stdlib.h>
#include <string.h>

#include "migrate/policy.h"

bool uvas_policy_thrashing(const struct uvas_block_view *b, double thrash, double window_ms,
                           uint64_t now_ns)
{
    return b->migrations >= thrash && b->last_migration_ns &&
           (double)(now_ns - b->last_migration_ns) < window_ms * 1e6;
}

void *uvas_policy_per_block(const struct uvas_policy_tick *t, void *arr, size_t *n, size_t elem)
{
    size_t maxi = 0;
    for (size_t k = 0; k < t->nblocks; k++)
        if (t->blocks[k].index + 1 > maxi)
            maxi = t->blocks[k].index + 1;
    if (maxi <= *n)
        return arr;
    char *grown = realloc(arr, maxi * elem);
    if (!grown)
        return NULL;
    memset(grown + *n * elem, 0, (maxi - *n) * elem);
    *n = maxi;
    return grown;
}

void *uvas_policy_entry(void *arr, size_t elem, const struct uvas_block_view *b)
{
    struct uvas_policy_entry *e = (struct uvas_policy_entry *)((char *)arr + b->index * elem);
    if (e->generation != b->generation) {
        memset(e, 0, elem);
        e->generation = b->generation;
    }
    return e;
}

int uvas_policy_at_agent(void *st, const struct uvas_block_view *b, int agent)
{
    (void)st, (void)b;
    return agent == UVAS_AGENT_DEVICE ? UVAS_RES_DEVICE : UVAS_RES_HOST;
}

const struct uvas_policy_ops uvas_policy_first_touch = {
    .name = "first-touch",
    .first_touch = uvas_policy_at_agent,
};

int uvas_policy_at_host(void *st, const struct uvas_block_view *b, int agent)
{
    (void)st, (void)b, (void)agent;
    return UVAS_RES_HOST;
}

int uvas_policy_serve_remote(void *st, const struct uvas_block_view *b, int agent, int write)
{
    (void)st, (void)b, (void)agent, (void)write;
    return UVAS_ACTION_REMOTE;
}

const struct uvas_policy_ops uvas_policy_host = {
    .name = "host",
    .first_touch = uvas_policy_at_host,
    .fault = uvas_policy_serve_remote, /* the device reaches host memory where it is */
};

static int on_device(void *st, const struct uvas_block_view *b, int agent)
{
    (void)st, (void)b, (void)agent;
    return UVAS_RES_DEVICE;
}

const struct uvas_policy_ops uvas_policy_device = {
    .name = "device",
    .first_touch = on_device,
    .fault = uvas_policy_serve_remote, /* the CPU maps device memory where the driver can */
};

/* ---- interleave ------------------------------------------------------------------ */

struct interleave {
    double ratio; /* share of blocks on the device */
};

static int interleave_param(void *st, const char *k, const char *v, char *err, size_t n)
{
    struct interleave *s = st;
    if (!strcmp(k, "ratio"))
        return uvas_policy_number(k, v, 0, 1, &s->ratio, err, n);
    snprintf(err, n, "unknown parameter '%s' (interleave takes ratio)", k);
    return -1;
}

static int interleave_init(const char *params, void **state, char *err, size_t n)
{
    struct interleave *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    s->ratio = 0.5;
    int rc = uvas_policy_params(params, err, n, interleave_param, s);
    if (rc) {
        free(s);
        return rc;
    }
    *state = s;
    return 0;
}

/* Block i goes to the device when floor((i+1)*r) > floor(i*r): exactly a
 * share r of every run of blocks, spread evenly, the same in every PE. */
static int interleave_place(void *st, const struct uvas_block_view *b, int agent)
{
    (void)agent;
    double r = ((struct interleave *)st)->ratio;
    double i = (double)b->index;
    return (long long)((i + 1) * r) > (long long)(i * r) ? UVAS_RES_DEVICE : UVAS_RES_HOST;
}

const struct uvas_policy_ops uvas_policy_interleave = {
    .name = "interleave",
    .init = interleave_init,
    .fini = free,
    .first_touch = interleave_place,
    .fault = uvas_policy_serve_remote,
};
