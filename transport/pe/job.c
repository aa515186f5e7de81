/* The PE layer's state (job.h): the job, and the per-thread path counters. */
#include "transport/pe/job.h"

#include <stdlib.h>
#include <string.h>

struct uvas_job uvas_job = {.server = {.lfd = -1, .stopfd = -1}, .stop_fd = -1,
                            .barrier_mu = PTHREAD_MUTEX_INITIALIZER};

_Thread_local struct uvas_path_ctr *uvas_path_mine __attribute__((tls_model("initial-exec")));
static struct uvas_path_ctr *path_all;
static pthread_mutex_t path_mu = PTHREAD_MUTEX_INITIALIZER;

/* A thread's first operation: a set of its own, kept for the process's
 * life (the sums must not lose what exited threads did). */
struct uvas_path_ctr *uvas_path_register(void)
{
    static struct uvas_path_ctr spare; /* if allocation fails, shared and racy */
    struct uvas_path_ctr *c = aligned_alloc(_Alignof(struct uvas_path_ctr), sizeof *c);
    if (!c)
        return &spare;
    memset(c, 0, sizeof *c);
    pthread_mutex_lock(&path_mu);
    c->next = path_all;
    path_all = c;
    pthread_mutex_unlock(&path_mu);
    uvas_path_mine = c;
    return c;
}

void uvas_path_sum(uint64_t ops[UVAS_PATH_COUNT], uint64_t bytes[UVAS_PATH_COUNT])
{
    pthread_mutex_lock(&path_mu);
    for (struct uvas_path_ctr *c = path_all; c; c = c->next)
        for (int i = 0; i < UVAS_PATH_COUNT; i++) {
            ops[i] += atomic_load_explicit(&c->p[i].ops, memory_order_relaxed);
            bytes[i] += atomic_load_explicit(&c->p[i].bytes, memory_order_relaxed);
        }
    pthread_mutex_unlock(&path_mu);
}
