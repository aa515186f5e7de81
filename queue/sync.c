/*
 * The two calls that end a stretch of a queue's work: sync and destroy
 * wait for it (queue.c) and then let the pools give back what exceeds
 * their thresholds (pool.c), which is why they sit above both.
 */
#include <stdio.h>

#include "queue/pool.h"
#include "queue/queue.h"
#include "uvas/status.h"

/* Let the pools give back what exceeds their thresholds, keeping the
 * drain's failure and its message (a free clears the thread's error). */
static int release_keeping(int rc)
{
    char keep[UVAS_MSG_MAX];
    if (rc)
        snprintf(keep, sizeof keep, "%s", uvas_last_error());
    uvas_pool_release_all();
    return rc ? uvas_fail(rc, "%s", keep) : UVAS_OK;
}

/* A host function of q waiting for q waited for ever. */
static int not_own(uvas_queue_t *q, const char *fn)
{
    if (!uvas_queue_is_own_thread(q))
        return UVAS_OK;
    return uvas_fail(UVAS_ERR_INVAL, "%s: called from a host function of this queue, on its "
                     "own thread, which would wait for itself (the queue's later work waits "
                     "for the function to return)", fn);
}

int uvas_queue_sync(uvas_queue_t *q)
{
    uvas_clear_error();
    int rc = uvas_queue_check(q, "uvas_queue_sync");
    if (!rc)
        rc = not_own(q, "uvas_queue_sync");
    if (rc)
        return rc;
    return release_keeping(uvas_queue_drain(q));
}

int uvas_queue_destroy(uvas_queue_t *q)
{
    uvas_clear_error();
    int rc = uvas_queue_check(q, "uvas_queue_destroy");
    if (!rc)
        rc = not_own(q, "uvas_queue_destroy");
    if (rc)
        return rc;
    rc = uvas_queue_drain(q);
    uvas_queue_stop(q);
    rc = release_keeping(rc);
    uvas_queue_unref(q);
    return rc;
}
