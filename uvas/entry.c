/* Public calls in flight (internal.h: uvas_api_enter). */
#include <time.h>

#include "uvas/internal.h"
#include "uvas/status.h"

/* Dekker with ready: a call counts itself in, then reads ready; finalize
 * clears ready, then reads the count (both sequentially consistent), so
 * one of them sees the other. */
static _Atomic long api_active;

int uvas_api_enter(const char *fn)
{
    atomic_fetch_add(&api_active, 1);
    if (atomic_load(&uvas_g.ready))
        return UVAS_OK;
    atomic_fetch_sub(&api_active, 1);
    return uvas_fail(UVAS_ERR_NOT_INIT, "%s: uvas is not initialised (call uvas_init first, "
                     "and no uvas call after uvas_finalize)", fn);
}

void uvas_api_leave(void)
{
    atomic_fetch_sub_explicit(&api_active, 1, memory_order_release);
}

void uvas_api_wait_idle(void)
{
    while (atomic_load(&api_active) > 0) {
        struct timespec ms = {0, 100000};
        nanosleep(&ms, NULL);
    }
}
