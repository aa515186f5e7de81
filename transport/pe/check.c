/* Which addresses a PE may name in an RMA (pe.h: uvas_pe_check). */
#include "transport/pe/job.h"
#include "transport/pe/pe.h"
#include "transport/pe/segment.h"
#include "uvas/internal.h"
#include "uvas/span.h"
#include "uvas/status.h"

int uvas_pe_check(const char *call, const void *addr, size_t len, int pe)
{
    if (!uvas_job.up)
        return uvas_fail(UVAS_ERR_NOT_INIT, "%s: call shmem_init first", call);
    if (pe < 0 || pe >= uvas_job.n)
        return uvas_fail(UVAS_ERR_INVAL, "%s: PE %d is out of range (the job has %d PEs: "
                         "0..%d)", call, pe, uvas_job.n, uvas_job.n - 1);
    const char *a = addr;
    if (!uvas_in_range(a) && uvas_seg_has(a, len))
        return UVAS_OK; /* a global or static variable (segment.h) */
    const void *olo;
    size_t osize;
    if (!uvas_in_range(a) && uvas_seg_object(a, &olo, &osize))
        return uvas_fail(UVAS_ERR_NOT_OWNED, "%s: [%p, +%zu) is not symmetric: it runs past "
                         "the end of the global or static variable it starts in ([%p, +%zu)), "
                         "and a variable is reached only inside its own bounds", call, addr,
                         len, olo, osize);
    if (!uvas_in_range(a) && uvas_seg_in(a) && !uvas_seg_has(a, 0))
        return uvas_fail(UVAS_ERR_NOT_OWNED, "%s: %p is not symmetric: it is in the program's "
                         "data but in none of its global or static variables (an object the "
                         "dynamic linker copied in from a library, such as stdout, or padding)",
                         call, addr);
    if (!uvas_in_range(a) || (len && (size_t)(uvas_g.base + uvas_g.size - a) < len)) {
        const void *slo, *shi;
        uvas_seg_bounds(&slo, &shi);
        return uvas_fail(UVAS_ERR_NOT_OWNED, "%s: [%p, +%zu) is not symmetric: neither from "
                         "shmem_malloc and friends (the symmetric range is [%p, %p)) nor a "
                         "global or static variable of the program (its data is [%p, %p)) or of a "
                         "library loaded with it that calls OpenSHMEM (links libuvas)",
                         call, addr, len, (void *)uvas_g.base,
                         (void *)(uvas_g.base + uvas_g.size), slo, shi);
    }
    /* One live allocation must hold all of it: the object's bounds, not
     * the blocks' (small objects share slab blocks; extents lie side by
     * side). */
    if (!uvas_span_covers(a, len))
        return uvas_fail(UVAS_ERR_NOT_OWNED, "%s: [%p, +%zu) is not inside a live symmetric "
                         "allocation (freed, or never allocated)", call, addr, len);
    return UVAS_OK;
}
