/*
 * A background thread of the migration layer with its lock, its wake-up
 * and its stop: the asynchronous migration queue (api.c) and the policy
 * tick (tick.c) are two. The thread body waits on cv under mu and leaves
 * its loop once stop is set.
 */
#ifndef UVAS_MIGRATE_WORKER_H
#define UVAS_MIGRATE_WORKER_H

#include <pthread.h>
#include <stdbool.h>

struct uvas_worker {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* the thread waits here for work or stop */
    bool stop, running;
    pthread_t th;
};

#define UVAS_WORKER_INIT {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER}

/* Start fn(arg) on its own thread; what names it in the message. Status. */
int uvas_worker_start(struct uvas_worker *w, void *(*fn)(void *), void *arg, const char *what);
/* Set stop, wake the thread, wait for it to end. Safe when not running. */
void uvas_worker_stop(struct uvas_worker *w);

#endif
