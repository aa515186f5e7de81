/*
 * An example policy loaded at run time: UVAS_POLICY=./libpolicy-stripe.so:every=3
 * puts every `every`-th block on the device at first touch, and never moves
 * anything on a fault (accesses are served where the block is). Build your
 * own the same way: export `const struct uvas_policy_ops uvas_policy_ops`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uvas_policy.h>

struct stripe {
    long every;
};

static int init(const char *params, void **state, char *err, size_t errlen)
{
    struct stripe *s = malloc(sizeof *s);
    if (!s)
        return -1;
    s->every = 2;
    if (params[0]) {
        char *end;
        if (strncmp(params, "every=", 6) || (s->every = strtol(params + 6, &end, 10)) < 1 ||
            *end) {
            snprintf(err, errlen, "'%s': stripe takes every=N with N >= 1", params);
            free(s);
            return -1;
        }
    }
    *state = s;
    return 0;
}

static int first_touch(void *st, const struct uvas_block_view *b, int agent)
{
    (void)agent;
    const struct stripe *s = st;
    return b->index % (size_t)s->every == 0 ? UVAS_RES_DEVICE : UVAS_RES_HOST;
}

static int fault(void *st, const struct uvas_block_view *b, int agent, int write)
{
    (void)st, (void)b, (void)agent, (void)write;
    return UVAS_ACTION_REMOTE;
}

const struct uvas_policy_ops uvas_policy_ops = {
    .name = "stripe",
    .init = init,
    .fini = free,
    .first_touch = first_touch,
    .fault = fault,
};
