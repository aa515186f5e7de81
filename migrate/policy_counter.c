/*
 * access-counter: a block moves to an agent only after that agent has
 * touched it `threshold` times (NVIDIA UVM's access counters); until then
 * the access is served remotely. The device's count includes what its
 * kernels counted (include/uvas.glsl), so it has its own threshold,
 * `gpu_threshold`: UVM's 256 by default, or `threshold` where only that
 * is given (as before kernels were counted). Thrashing guard (UVM's
 * thrashing detection): a block that has moved `thrash` times in its
 * allocation is pinned where it is for `window_ms` after each move.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migrate/policy.h"
#include "uvas/os.h"

struct counter {
    double threshold, gpu_threshold, thrash, window_ms;
    bool threshold_set, gpu_set;
};

static int param(void *st, const char *k, const char *v, char *err, size_t n)
{
    struct counter *s = st;
    if (!strcmp(k, "threshold")) {
        s->threshold_set = true;
        return uvas_policy_number(k, v, 1, 1e9, &s->threshold, err, n);
    }
    if (!strcmp(k, "gpu_threshold")) {
        s->gpu_set = true;
        return uvas_policy_number(k, v, 1, 4e9, &s->gpu_threshold, err, n);
    }
    if (!strcmp(k, "thrash"))
        return uvas_policy_number(k, v, 1, 1e9, &s->thrash, err, n);
    if (!strcmp(k, "window_ms"))
        return uvas_policy_number(k, v, 0, 1e9, &s->window_ms, err, n);
    snprintf(err, n, "unknown parameter '%s' (access-counter takes threshold, "
             "gpu_threshold, thrash, window_ms)", k);
    return -1;
}

static int init(const char *params, void **state, char *err, size_t n)
{
    struct counter *s = calloc(1, sizeof *s);
    if (!s)
        return -1;
    *s = (struct counter){.threshold = 8, .gpu_threshold = 256, .thrash = 4, .window_ms = 100};
    int rc = uvas_policy_params(params, err, n, param, s);
    if (rc) {
        free(s);
        return rc;
    }
    if (s->threshold_set && !s->gpu_set)
        s->gpu_threshold = s->threshold;
    *state = s;
    return 0;
}

static int fault(void *st, const struct uvas_block_view *b, int agent, int write)
{
    (void)write;
    const struct counter *s = st;
    if (uvas_policy_thrashing(b, s->thrash, s->window_ms, uvas_os_now_ns()))
        return UVAS_ACTION_REMOTE; /* pinned for now */
    double t = agent == UVAS_AGENT_DEVICE ? s->gpu_threshold : s->threshold;
    return b->accesses[agent] >= t ? UVAS_ACTION_MIGRATE : UVAS_ACTION_REMOTE;
}

const struct uvas_policy_ops uvas_policy_access_counter = {
    .name = "access-counter",
    .init = init,
    .fini = free,
    .first_touch = uvas_policy_at_agent,
    .fault = fault,
};
