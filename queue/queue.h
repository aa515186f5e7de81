/*
 * What the queue floor's files share: a queue is a list of operations a
 * thread of its own runs in order; its counters say how many were
 * enqueued (submitted) and have run (completed), so a point of a queue is
 * a value of submitted, passed once completed reaches it.
 */
#ifndef UVAS_QUEUE_QUEUE_H
#define UVAS_QUEUE_QUEUE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "uvas_queue.h"

struct uvas_queue_op;

/* A point of another queue this one has waited for (pool.c's
 * UVAS_POOL_REUSE_FOLLOW_EVENTS reads them). */
struct uvas_queue_dep {
    struct uvas_queue *q;
    uint64_t value;
};

struct uvas_queue {
    pthread_mutex_t mu;
    pthread_cond_t work; /* an operation was enqueued, or stop */
    pthread_cond_t done; /* completed moved */
    struct uvas_queue_op *head, *tail;
    uint64_t submitted, completed;
    int error;           /* the first failed operation's status, until sync */
    char message[256];   /* and its message */
    bool stop;
    int refs;            /* the creator, events, pool blocks freed on it */
    pthread_t thread;
    struct uvas_queue_dep *deps;
    size_t ndeps, cap;
    pthread_mutex_t trim_mu; /* forget_gone (queue.c): one at a time */
    /* The device's push-constant limit, asked once (0: not yet): asking
     * at every launch took the kernels' lock, which this queue's own
     * thread holds while it launches. */
    _Atomic uint32_t max_args;
};

void uvas_queue_ref(struct uvas_queue *q);
void uvas_queue_unref(struct uvas_queue *q);
/* Is the caller q's own thread (a host function of q)? It must not wait
 * for q's later work: that work waits for it. */
bool uvas_queue_is_own_thread(const struct uvas_queue *q);
/* Has q's point `value` passed? Wait until it has. */
bool uvas_queue_passed(struct uvas_queue *q, uint64_t value);
void uvas_queue_wait_point(struct uvas_queue *q, uint64_t value);
/* q's current point (after everything enqueued so far). */
uint64_t uvas_queue_point(struct uvas_queue *q);
/* Has q waited for a point of `other` at or past value? */
bool uvas_queue_ordered_after(struct uvas_queue *q, struct uvas_queue *other, uint64_t value);
/* Enqueue a wait for other's point value on q (and remember it). Status. */
int uvas_queue_enqueue_wait(struct uvas_queue *q, struct uvas_queue *other, uint64_t value);
/* NULL or a destroyed queue: reported (UVAS_ERR_INVAL) for fn. */
int uvas_queue_check(struct uvas_queue *q, const char *fn);

/* UVAS_QUEUE_CHECK=1 (pool.c installs it): is a use of [p, p + n) by work
 * enqueued on q now inside the lifetime of the pool allocation it falls
 * in? Status, with fn's name in the message; NULL when not checking. */
typedef int (*uvas_queue_use_check_fn)(struct uvas_queue *q, const void *p, size_t n,
                                       const char *fn);
extern _Atomic(uvas_queue_use_check_fn) uvas_queue_use_check;

/* Wait for everything enqueued; the first error since the last drain,
 * reported in this thread (and cleared). */
int uvas_queue_drain(struct uvas_queue *q);
/* End the queue's thread (after a drain) and drop its dependencies. */
void uvas_queue_stop(struct uvas_queue *q);

#endif
