/*
 * The two calls that end a stretch of a queue's work: sync and destroy
 * wait for it (queue.c) and then let the pools give back what exceeds
 * their thresholds (pool.c), which is why they sit above both.
 */
#include "queue/pool.h"
#include "queue/queue.h"
#include "uvas/status.h"

int uvas_queue_sync(uvas_queue_t *q)
{
    uvas_clear_error();
    int rc = uvas_queue_check(q, "uvas_queue_sync");
    if (rc)
        return rc;
    rc = uvas_queue_drain(q);
    uvas_pool_release_all();
    return rc;
}

int uvas_queue_destroy(uvas_queue_t *q)
{
    uvas_clear_error();
    int rc = uvas_queue_check(q, "uvas_queue_destroy");
    if (rc)
        return rc;
    rc = uvas_queue_drain(q);
    uvas_queue_stop(q);
    uvas_pool_release_all();
    uvas_queue_unref(q);
    return rc;
}
