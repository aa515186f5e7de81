/* Lease entries a kernel left pinned (lease_stuck.h). */
#include "transport/pe/lease_stuck.h"

#include <pthread.h>
#include <stdlib.h>

#include "uvas/atomics.h"
#include "uvas/status.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct stuck {
    const void *e;
    uint32_t left;
} *tab; /* under mu */
static size_t cap; /* under mu */
static _Atomic size_t n; /* written under mu */

uint32_t uvas_lease_stuck_left(const void *e)
{
    /* Every run's end asks this of every lease it held: with nothing
     * stuck (the rule), no lock and no search. */
    if (!atomic_load_explicit(&n, ACQ))
        return 0;
    uint32_t left = 0;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < n; i++)
        if (tab[i].e == e)
            left = tab[i].left;
    pthread_mutex_unlock(&mu);
    return left;
}

void uvas_lease_stuck_set(const void *e, uint32_t left)
{
    pthread_mutex_lock(&mu);
    size_t k = atomic_load_explicit(&n, RLX), i = 0;
    while (i < k && tab[i].e != e)
        i++;
    if (!left) {
        /* The pins came back: forgotten, so the table (and with it the
         * lock-free answer above) empties again. */
        if (i < k) {
            tab[i] = tab[k - 1];
            atomic_store_explicit(&n, k - 1, REL);
        }
    } else if (i < k) {
        tab[i].left = left;
    } else {
        if (k == cap) {
            size_t nc = cap ? 2 * cap : 16;
            struct stuck *nt = realloc(tab, nc * sizeof *nt);
            if (!nt) {
                pthread_mutex_unlock(&mu);
                uvas_warn("out of memory remembering a lease a kernel left pinned: each "
                          "later end of it waits its bound again");
                return;
            }
            tab = nt, cap = nc;
        }
        tab[k] = (struct stuck){e, left};
        atomic_store_explicit(&n, k + 1, REL);
    }
    pthread_mutex_unlock(&mu);
}

size_t uvas_lease_stuck_count(void)
{
    return atomic_load_explicit(&n, ACQ);
}

void uvas_lease_stuck_clear(void)
{
    pthread_mutex_lock(&mu);
    atomic_store_explicit(&n, 0, REL);
    free(tab);
    tab = NULL, cap = 0;
    pthread_mutex_unlock(&mu);
}
