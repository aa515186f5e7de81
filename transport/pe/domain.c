/* Ordering domains (domain.h). */
#include "transport/pe/domain.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "transport/pe/job.h"
#include "transport/pe/ucx.h"
#include "uvas/status.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static bool open_[UVAS_PE_DOMAINS];
static _Atomic uint32_t pending[UVAS_PE_DOMAINS];
static _Thread_local unsigned current;

int uvas_pe_domain_open(unsigned *id)
{
    pthread_mutex_lock(&mu);
    for (unsigned i = 1; i < UVAS_PE_DOMAINS; i++)
        if (!open_[i]) {
            open_[i] = true;
            atomic_store_explicit(&pending[i], 0, memory_order_relaxed);
            pthread_mutex_unlock(&mu);
            *id = i;
            return UVAS_OK;
        }
    pthread_mutex_unlock(&mu);
    return uvas_fail(UVAS_ERR_NOMEM, "all %d contexts are in use: destroy contexts no longer "
                     "used", UVAS_PE_DOMAINS - 1);
}

void uvas_pe_domain_close(unsigned id)
{
    if (id == 0 || id >= UVAS_PE_DOMAINS)
        return;
    pthread_mutex_lock(&mu);
    open_[id] = false;
    pthread_mutex_unlock(&mu);
}

unsigned uvas_pe_domain_use(unsigned id)
{
    unsigned prev = current;
    current = id < UVAS_PE_DOMAINS ? id : 0;
    return prev;
}

int uvas_pe_domain_quiet(unsigned id)
{
    if (id == 0 || id >= UVAS_PE_DOMAINS || uvas_job.n <= 1 || !uvas_job.worker)
        return UVAS_OK;
    for (unsigned i = 0; atomic_load_explicit(&pending[id], memory_order_acquire); i++)
        uvas_ucx_poll(i);
    return UVAS_OK;
}

unsigned uvas_domain_put_sent(void)
{
    unsigned id = current;
    if (id)
        atomic_fetch_add_explicit(&pending[id], 1, memory_order_relaxed);
    return id;
}

void uvas_domain_put_unsent(unsigned id)
{
    if (id)
        atomic_fetch_sub_explicit(&pending[id], 1, memory_order_relaxed);
}

void uvas_domain_put_acked(uint64_t id)
{
    /* Echoed by a peer: only an id we could have sent counts. */
    if (id == 0 || id >= UVAS_PE_DOMAINS)
        return;
    uint32_t v = atomic_load_explicit(&pending[id], memory_order_relaxed);
    while (v && !atomic_compare_exchange_weak_explicit(&pending[id], &v, v - 1,
                                                       memory_order_release,
                                                       memory_order_relaxed))
        ;
}
