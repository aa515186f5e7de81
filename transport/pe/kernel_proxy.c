/* Kernels' requests served by the PE layer (kernel_proxy.h). */
#include "transport/pe/kernel_proxy.h"

#include "transport/pe/job.h"
#include "transport/pe/lease.h"
#include "transport/pe/pe.h"
#include "uvas/block.h"
#include "uvas/gate.h"
#include "uvas/internal.h"
#include "uvas/span.h"
#include "uvas/status.h"

/* The device-side call a request comes from, for messages. */
static const char *call_of(const struct uvas_ring_req *r)
{
    switch (r->op & UVAS_RING_OP_MASK) {
    case UVAS_RING_PUT:
    case UVAS_RING_PUT_REF: return "shmem_putmem in a kernel";
    case UVAS_RING_GET: return "shmem_getmem in a kernel";
    case UVAS_RING_AMO: return "a shmem atomic in a kernel";
    case UVAS_RING_PUT_SIGNAL: return "shmem_putmem_signal in a kernel";
    default: return "a shmem call in a kernel";
    }
}

/* An atomic the host makes on this PE's word runs on the CPU, which must
 * take a device-resident block back first: not while a kernel holds it,
 * and the kernel (the launching thread serves its requests) waits. A
 * kernel reaches a word it holds itself (shmem.glsl), so this is a word
 * it faulted in after it made the call: refused, not a hang. */
static int amo_reachable(const char *call, const void *at, int pe)
{
    if (pe != uvas_job.me || !uvas_in_range(at))
        return UVAS_OK;
    uint32_t st = atomic_load_explicit(&uvas_g.bt[uvas_block_index(at)].state,
                                       memory_order_acquire);
    if (uvas_blk_held(st) && uvas_blk_res(st) != UVAS_RES_HOST)
        return uvas_fail(UVAS_ERR_INVAL, "%s: %p is this PE's memory, which a kernel holds on "
                         "the device, so the host cannot update it while the kernel runs; the "
                         "kernel brought it in only after it made the call (a fault): name "
                         "its allocation in the launch's arguments or hold it with "
                         "uvas_gpu_hold, so the kernel updates it itself", call, at);
    return UVAS_OK;
}

/* A put or get the host makes on this PE's [at, at+n) reaches a
 * device-resident block a kernel holds by the device's own copy where the
 * block's gate says it may (side.c), and otherwise through the CPU's
 * mapping, which waits for the holds to end: the launching thread, which
 * serves this request, would wait for itself (an imported pool's block,
 * a block mapped for the CPU). Refused, not a hang (found by review). */
static int rma_reachable(const char *call, const void *at, size_t n, int pe)
{
    const char *a = at;
    if (pe != uvas_job.me || !n || !uvas_in_range(a) ||
        (size_t)(uvas_g.base + uvas_g.size - a) < n)
        return UVAS_OK;
    for (size_t bi = uvas_block_index(a); bi <= uvas_block_index(a + n - 1); bi++) {
        uint32_t st = atomic_load_explicit(&uvas_g.bt[bi].state, memory_order_acquire);
        uint64_t w = uvas_g.gates ? atomic_load_explicit(&uvas_g.gates[bi], memory_order_acquire)
                                  : 0;
        if (uvas_blk_held(st) && uvas_blk_res(st) != UVAS_RES_HOST &&
            !(uvas_gate_is_open(w) && (w & UVAS_GATE_DIRECT)))
            return uvas_fail(UVAS_ERR_INVAL, "%s: [%p, +%zu) is this PE's memory, which a "
                             "kernel holds on the device where the host reaches it only "
                             "through the CPU's mapping (memory imported from another "
                             "process's pool, or mapped for the CPU), which waits for the "
                             "kernel: write or read it in the kernel itself", call, at, n);
    }
    return UVAS_OK;
}

/* A put by reference's source: this PE's memory in one live allocation,
 * none of it on the device (the host reads it while the kernel runs, which
 * holds its device-resident blocks; shmem.glsl sends only host memory). */
static int ref_source(const char *call, const void *src, size_t n)
{
    const char *s = src;
    if (!uvas_in_range(s) || (size_t)(uvas_g.base + uvas_g.size - s) < n ||
        !uvas_span_covers(s, n))
        return uvas_fail(UVAS_ERR_NOT_OWNED, "%s: its source [%p, +%zu) is not inside a live "
                         "allocation of this PE's", call, src, n);
    for (size_t bi = uvas_block_index(s); n && bi <= uvas_block_index(s + n - 1); bi++) {
        uint32_t st = atomic_load_explicit(&uvas_g.bt[bi].state, memory_order_acquire);
        if (uvas_blk_res(st) == UVAS_RES_DEVICE)
            return uvas_fail(UVAS_ERR_INVAL, "%s: its source [%p, +%zu) is device memory, "
                             "which the host cannot read while the kernel runs", call, src, n);
    }
    return UVAS_OK;
}

int uvas_pe_serve_kernel(struct uvas_ring_req *r)
{
    void *at = (void *)(uintptr_t)r->addr;
    const char *call = call_of(r);
    int rc;
    switch (r->op & UVAS_RING_OP_MASK) {
    case UVAS_RING_PUT:
    case UVAS_RING_PUT_SIGNAL:
        if ((rc = uvas_pe_check(call, at, r->size, r->pe)) ||
            (rc = rma_reachable(call, at, r->size, r->pe)) ||
            (rc = uvas_pe_put(at, r->payload, r->size, r->pe, false)))
            return rc;
        uvas_lease_range(r->pe, at, r->size); /* the kernel's next puts there: direct */
        if ((r->op & UVAS_RING_OP_MASK) == UVAS_RING_PUT)
            return UVAS_OK;
        /* Puts and atomics to one PE take effect in the order issued
         * (pe.h): the signal lands after the data. */
        if (r->amo > 1)
            return uvas_fail(UVAS_ERR_INVAL, "%s: signal operation %u (SHMEM_SIGNAL_SET or "
                             "SHMEM_SIGNAL_ADD)", call, r->amo);
        at = (void *)(uintptr_t)r->sig;
        if ((rc = uvas_pe_check(call, at, 8, r->pe)) || (rc = amo_reachable(call, at, r->pe)))
            return rc;
        return uvas_pe_amo(r->amo ? UVAS_AMO_ADD : UVAS_AMO_SET, at, 8, r->value, 0, NULL,
                           r->pe);
    case UVAS_RING_PUT_REF: {
        const void *src = (const void *)(uintptr_t)r->value;
        size_t n = (size_t)r->cmp;
        if ((rc = uvas_pe_check(call, at, n, r->pe)) || (rc = ref_source(call, src, n)) ||
            (rc = rma_reachable(call, at, n, r->pe)) ||
            (rc = uvas_pe_put(at, src, n, r->pe, false)))
            return rc;
        uvas_lease_range(r->pe, at, n);
        return UVAS_OK;
    }
    case UVAS_RING_GET:
        if ((rc = uvas_pe_check(call, at, r->size, r->pe)) ||
            (rc = rma_reachable(call, at, r->size, r->pe)) ||
            (rc = uvas_pe_get(r->payload, at, r->size, r->pe, false)))
            return rc;
        uvas_lease_range(r->pe, at, r->size);
        return UVAS_OK;
    case UVAS_RING_AMO:
        if (r->amo >= UVAS_AMO_COUNT)
            return uvas_fail(UVAS_ERR_INVAL, "%s: operation %u is not one", call, r->amo);
        if ((rc = uvas_pe_check(call, at, r->size, r->pe)) ||
            (rc = amo_reachable(call, at, r->pe)))
            return rc;
        if ((rc = uvas_pe_amo((enum uvas_amo_op)r->amo, at, r->size, r->value, r->cmp,
                              &r->result, r->pe)))
            return rc;
        uvas_lease_range(r->pe, at, r->size);
        return UVAS_OK;
    case UVAS_RING_QUIET:
        return uvas_pe_quiet();
    default:
        return uvas_fail(UVAS_ERR_INVAL, "a kernel posted request %#x, which is none "
                         "(shmem.glsl and libuvas from different versions?)", r->op);
    }
}
