/* Completion of a PE's puts and atomics (pe.h: uvas_pe_quiet, uvas_pe_fence). */
#include <stdatomic.h>

#include "transport/pe/am.h"
#include "transport/pe/job.h"
#include "transport/pe/pe.h"
#include "transport/pe/ucx.h"
#include "uvas/status.h"

int uvas_pe_quiet(void)
{
    int rc = UVAS_OK;
    if (uvas_job.n > 1 && uvas_job.worker)
        rc = uvas_am_quiet();
    /* A get's access count, posted to its owner, lands by a quiet as the
     * puts' do: the owner's policy reads counts after its peers' quiet
     * and a barrier. A load first: every quiet passes here, and a locked
     * exchange is for the rare one that has a count to land. */
    if (rc == UVAS_OK && uvas_job.worker &&
        atomic_load_explicit(&uvas_job.ucx_counts_posted, memory_order_relaxed) &&
        atomic_exchange_explicit(&uvas_job.ucx_counts_posted, false, memory_order_relaxed))
        rc = uvas_ucx_flush();
    /* Direct accesses end with a release (a quick pin's drop is a plain
     * store): a full fence orders their stores before what follows. */
    atomic_thread_fence(memory_order_seq_cst);
    return rc;
}

int uvas_pe_fence(void)
{
    return uvas_pe_quiet();
}
