/* The kernels' translation table (xlat.h). */
#include "gpu/xlat.h"

#include <stdlib.h>
#include <string.h>

#include "gpu/buffer.h"
#include "uvas.h"
#include "uvas/status.h"

int uvas_xlat_init(struct uvas_xlat *x, struct uvas_vulkan *d, uintptr_t base, unsigned shift,
                   size_t nblocks)
{
    memset(x, 0, sizeof *x);
    pthread_mutex_init(&x->run, NULL);
    x->dev = d;
    if (!(x->reach = calloc(nblocks, sizeof *x->reach)) ||
        !(x->runs_now = calloc(nblocks, sizeof *x->runs_now))) {
        uvas_xlat_fini(x);
        return uvas_fail(UVAS_ERR_NOMEM, "out of memory for the translation table");
    }
    x->nreq0 = (nblocks + 31) / 32;
    x->nreq1 = (x->nreq0 + 31) / 32;
    size_t req_off = sizeof(struct uvas_xlat_header) + nblocks * sizeof(struct uvas_xlat_entry);
    size_t runs_off = req_off + (x->nreq0 + x->nreq1) * sizeof(uint32_t);
    x->bytes = runs_off + nblocks * sizeof(uint32_t);
    /* Device-local if it can be: every access of a kernel reads an entry. */
    int rc = uvas_gpu_buffer_make(d, x->bytes, UINT32_MAX, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                  &x->buf, &x->mem, "translation table");
    if (rc)
        return rc;
    void *p;
    if (vkMapMemory(d->dev, x->mem, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS) {
        uvas_xlat_fini(x);
        return uvas_fail(UVAS_ERR_NOMEM, "cannot map the translation table of '%s'", d->name);
    }
    memset(p, 0, x->bytes);
    x->hdr = p;
    x->entry = (struct uvas_xlat_entry *)((char *)p + sizeof(struct uvas_xlat_header));
    x->req0 = (volatile uint32_t *)((char *)p + req_off);
    x->req1 = x->req0 + x->nreq0;
    x->runs = (volatile uint32_t *)((char *)p + runs_off);
    rc = uvas_gpu_buffer_make(d, UVAS_XLAT_SINK_BYTES, d->dev_type, 0, &x->sink, &x->sink_mem,
                              "fault sink");
    /* Counters where the atomics are cheap, read by the CPU from a copy in
     * cached memory: reads of device memory through the BAR cost about a
     * microsecond each. */
    VkDeviceSize cbytes = nblocks * sizeof(uint32_t);
    if (!rc)
        rc = uvas_gpu_buffer_make(d, cbytes, d->dev_type, 0, &x->counts, &x->counts_mem,
                                  "access counters");
    if (!rc)
        rc = uvas_gpu_buffer_make(d, cbytes, UINT32_MAX, VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                                  &x->counts_host, &x->counts_host_mem, "access counters' copy");
    if (!rc && vkMapMemory(d->dev, x->counts_host_mem, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS)
        rc = uvas_fail(UVAS_ERR_NOMEM, "cannot map the access counters' copy on '%s'", d->name);
    if (rc) {
        uvas_xlat_fini(x);
        return rc;
    }
    x->counted = p;
    x->fixed.base = base;
    x->fixed.shift = shift;
    x->fixed.nblocks = (uint32_t)nblocks;
    x->fixed.sink = uvas_vulkan_address(d, x->sink);
    x->fixed.req = uvas_vulkan_address(d, x->buf) + req_off;
    x->fixed.counts = uvas_vulkan_address(d, x->counts);
    x->fixed.runs = uvas_vulkan_address(d, x->buf) + runs_off;
    uvas_xlat_run_begin(x, false);
    /* Counters start at zero (device memory does not). */
    x->zero_counts = true;
    x->win_lo = 1; /* no run yet: an empty window */
    x->win_hi = 0;
    return UVAS_OK;
}

void uvas_xlat_fini(struct uvas_xlat *x)
{
    struct uvas_vulkan *d = x->dev;
    if (!d)
        return;
    free(x->reach);
    free(x->runs_now);
    pthread_mutex_destroy(&x->run);
    if (x->hdr)
        vkUnmapMemory(d->dev, x->mem);
    if (x->buf)
        vkDestroyBuffer(d->dev, x->buf, NULL);
    if (x->mem)
        vkFreeMemory(d->dev, x->mem, NULL);
    if (x->sink)
        vkDestroyBuffer(d->dev, x->sink, NULL);
    if (x->sink_mem)
        vkFreeMemory(d->dev, x->sink_mem, NULL);
    if (x->counted)
        vkUnmapMemory(d->dev, x->counts_host_mem);
    VkBuffer bufs[2] = {x->counts, x->counts_host};
    VkDeviceMemory mems[2] = {x->counts_mem, x->counts_host_mem};
    for (int i = 0; i < 2; i++) {
        if (bufs[i])
            vkDestroyBuffer(d->dev, bufs[i], NULL);
        if (mems[i])
            vkFreeMemory(d->dev, mems[i], NULL);
    }
    memset(x, 0, sizeof *x);
}

void uvas_xlat_run_begin(struct uvas_xlat *x, bool wait)
{
    volatile struct uvas_xlat_header *h = x->hdr;
    h->base = x->fixed.base;
    h->shift = x->fixed.shift;
    h->nblocks = x->fixed.nblocks;
    h->sink = x->fixed.sink;
    h->req = x->fixed.req;
    h->counts = x->fixed.counts;
    h->runs = x->fixed.runs;
    h->nfaults = 0;
    h->stray = 0;
    h->stray_claim = 0;
    h->timed_out = 0;
    for (int i = 0; i < UVAS_XLAT_FAULTS; i++)
        h->fault[i] = 0;
    for (size_t i = 0; i < x->nreq0; i++)
        x->req0[i] = 0;
    for (size_t i = 0; i < x->nreq1; i++)
        x->req1[i] = 0;
    h->flags = wait ? UVAS_XLAT_WAIT : 0;
}

/* The kernel sets a block's bit, then (after a barrier) its word's bit in
 * req1: reading req1 first, a set bit there finds its block's bit set.
 * Bits stay set for the run; the caller knows which it has served. The
 * bitmaps are the kernels' memory: bits past the last word or the last
 * block (which no correct kernel sets) name nothing. */
void uvas_xlat_requests(struct uvas_xlat *x, void (*fn)(size_t bi, void *arg), void *arg)
{
    const size_t nblocks = x->fixed.nblocks;
    for (size_t i = 0; i < x->nreq1; i++) {
        uint32_t w1 = x->req1[i];
        while (w1) {
            size_t w = i * 32 + (size_t)__builtin_ctz(w1);
            w1 &= w1 - 1;
            if (w >= x->nreq0)
                break; /* the higher bits of this word are further past */
            uint32_t w0 = x->req0[w];
            while (w0) {
                size_t bi = w * 32 + (size_t)__builtin_ctz(w0);
                w0 &= w0 - 1;
                if (bi >= nblocks)
                    break;
                fn(bi, arg);
            }
        }
    }
}

void uvas_xlat_record_begin(struct uvas_xlat *x, VkCommandBuffer cb)
{
    VkDeviceSize bytes = x->fixed.nblocks * sizeof(uint32_t);
    if (x->zero_counts) { /* the first run: fresh device memory */
        vkCmdFillBuffer(cb, x->counts, 0, bytes, 0);
        x->zero_counts = false;
    }
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_SHADER_READ_BIT |
                                           VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

void uvas_xlat_record_counts(struct uvas_xlat *x, VkCommandBuffer cb, size_t lo, size_t hi)
{
    x->win_lo = lo;
    x->win_hi = hi;
    if (lo > hi)
        return;
    VkDeviceSize off = lo * sizeof(uint32_t), bytes = (hi - lo + 1) * sizeof(uint32_t);
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         0, 1, &mb, 0, NULL, 0, NULL);
    VkBufferCopy r = {.srcOffset = off, .dstOffset = off, .size = bytes};
    vkCmdCopyBuffer(cb, x->counts, x->counts_host, 1, &r);
    /* The fill waits for the copy's reads (an execution dependency). */
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0,
                         NULL, 0, NULL, 0, NULL);
    vkCmdFillBuffer(cb, x->counts, off, bytes, 0);
    VkMemoryBarrier hb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb,
                         0, NULL, 0, NULL);
}
