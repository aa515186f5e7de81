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
/* The first put of each domain that its target refused since the last
 * quiet: the PE in the high half, the status in the low; 0: none. */
static _Atomic uint64_t refused[UVAS_PE_DOMAINS];
static _Thread_local unsigned current;

int uvas_pe_domain_open(unsigned *id)
{
    pthread_mutex_lock(&mu);
    for (unsigned i = 1; i < UVAS_PE_DOMAINS; i++)
        if (!open_[i]) {
            open_[i] = true;
            atomic_store_explicit(&pending[i], 0, memory_order_relaxed);
            atomic_store_explicit(&refused[i], 0, memory_order_relaxed);
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
    return uvas_domain_refusal(id);
}

void uvas_domain_put_refused(uint64_t id, int pe, int status)
{
    if (id >= UVAS_PE_DOMAINS)
        return; /* no domain of ours: nothing waits on it */
    /* A peer's status is a UVAS_ERR_*; anything else is reported as one. */
    if (status >= 0 || status < UVAS_ERR_DOUBLE_FREE)
        status = UVAS_ERR_SYS;
    uint64_t none = 0, v = (uint64_t)(uint32_t)pe << 32 | (uint32_t)status;
    atomic_compare_exchange_strong_explicit(&refused[id], &none, v, memory_order_release,
                                            memory_order_relaxed);
}

int uvas_domain_refusal(unsigned id)
{
    /* Read first: every quiet comes here, and a refusal is rare. */
    if (id >= UVAS_PE_DOMAINS || !atomic_load_explicit(&refused[id], memory_order_relaxed))
        return UVAS_OK;
    uint64_t v = atomic_exchange_explicit(&refused[id], 0, memory_order_acquire);
    if (v == 0)
        return UVAS_OK;
    int st = (int32_t)(uint32_t)v, pe = (int32_t)(uint32_t)(v >> 32);
    return uvas_fail(st, "a put to PE %d was refused by its target: %s (the data did not "
                     "land)", pe, uvas_strerror(st));
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
