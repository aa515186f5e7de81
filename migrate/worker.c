/* A background thread with its lock, wake-up and stop (worker.h). */
#include "migrate/worker.h"

#include <string.h>

#include "uvas.h"
#include "uvas/status.h"

int uvas_worker_start(struct uvas_worker *w, void *(*fn)(void *), void *arg, const char *what)
{
    w->stop = false;
    int e = pthread_create(&w->th, NULL, fn, arg);
    if (e)
        return uvas_fail(UVAS_ERR_SYS, "cannot start the %s thread: %s", what, strerror(e));
    w->running = true;
    return UVAS_OK;
}

void uvas_worker_stop(struct uvas_worker *w)
{
    if (!w->running)
        return;
    pthread_mutex_lock(&w->mu);
    w->stop = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    w->running = false;
}
