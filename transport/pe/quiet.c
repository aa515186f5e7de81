/* Completion of a PE's puts and atomics (pe.h: uvas_pe_quiet, uvas_pe_fence). */
#include <stdatomic.h>

#include "transport/pe/am.h"
#include "transport/pe/job.h"
#include "transport/pe/pe.h"
#include "uvas/status.h"

int uvas_pe_quiet(void)
{
    int rc = UVAS_OK;
    if (uvas_job.n > 1 && uvas_job.worker)
        rc = uvas_am_quiet();
#if defined(__x86_64__) || defined(__i386__)
    /* Every direct access ended with a locked RMW (dropping its pin),
     * which on x86 already drained this core's stores. */
    atomic_signal_fence(memory_order_seq_cst);
#else
    atomic_thread_fence(memory_order_seq_cst);
#endif
    return rc;
}

int uvas_pe_fence(void)
{
    return uvas_pe_quiet();
}
