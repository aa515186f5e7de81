/*
 * Events: a point of a queue (queue.h), recorded now and passed once the
 * queue's work up to it has run. An event holds a reference to its queue,
 * so it stays answerable after the queue is destroyed.
 */
#include <pthread.h>
#include <stdlib.h>

#include "queue/queue.h"
#include "uvas/status.h"

struct uvas_event {
    pthread_mutex_t mu;
    struct uvas_queue *q; /* NULL: never recorded */
    uint64_t value;
};

int uvas_event_create(uvas_event_t **out)
{
    uvas_clear_error();
    if (!out)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_event_create: out is NULL");
    struct uvas_event *ev = calloc(1, sizeof *ev);
    if (!ev)
        return uvas_fail(UVAS_ERR_NOMEM, "uvas_event_create: no memory for an event");
    pthread_mutex_init(&ev->mu, NULL);
    *out = ev;
    return UVAS_OK;
}

void uvas_event_destroy(uvas_event_t *ev)
{
    if (!ev)
        return;
    if (ev->q)
        uvas_queue_unref(ev->q);
    pthread_mutex_destroy(&ev->mu);
    free(ev);
}

int uvas_event_record(uvas_event_t *ev, uvas_queue_t *q)
{
    uvas_clear_error();
    if (!ev)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_event_record: the event is NULL");
    int rc = uvas_queue_check(q, "uvas_event_record");
    if (rc)
        return rc;
    uvas_queue_ref(q);
    uint64_t v = uvas_queue_point(q);
    pthread_mutex_lock(&ev->mu);
    struct uvas_queue *old = ev->q;
    ev->q = q;
    ev->value = v;
    pthread_mutex_unlock(&ev->mu);
    if (old)
        uvas_queue_unref(old);
    return UVAS_OK;
}

/* The event's queue (referenced) and point, or NULL if never recorded. */
static struct uvas_queue *point_of(struct uvas_event *ev, uint64_t *value)
{
    pthread_mutex_lock(&ev->mu);
    struct uvas_queue *q = ev->q;
    *value = ev->value;
    if (q)
        uvas_queue_ref(q);
    pthread_mutex_unlock(&ev->mu);
    return q;
}

int uvas_event_sync(uvas_event_t *ev)
{
    uvas_clear_error();
    if (!ev)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_event_sync: the event is NULL");
    uint64_t v;
    struct uvas_queue *q = point_of(ev, &v);
    int rc = UVAS_OK;
    if (q && uvas_queue_is_own_thread(q) && !uvas_queue_passed(q, v))
        rc = uvas_fail(UVAS_ERR_INVAL, "uvas_event_sync: called from a host function of the "
                       "event's queue for a point after it, which would wait for itself");
    else if (q)
        uvas_queue_wait_point(q, v);
    if (q)
        uvas_queue_unref(q);
    return rc;
}

int uvas_event_query(uvas_event_t *ev)
{
    uvas_clear_error();
    if (!ev)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_event_query: the event is NULL");
    uint64_t v;
    struct uvas_queue *q = point_of(ev, &v);
    if (!q)
        return 1;
    bool passed = uvas_queue_passed(q, v);
    uvas_queue_unref(q);
    return passed ? 1 : 0;
}

int uvas_queue_wait_event(uvas_queue_t *q, uvas_event_t *ev)
{
    uvas_clear_error();
    int rc = uvas_queue_check(q, "uvas_queue_wait_event");
    if (rc)
        return rc;
    if (!ev)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_queue_wait_event: the event is NULL");
    uint64_t v;
    struct uvas_queue *other = point_of(ev, &v);
    if (!other)
        return UVAS_OK; /* never recorded: nothing to wait for */
    rc = uvas_queue_enqueue_wait(q, other, v);
    uvas_queue_unref(other);
    return rc;
}
