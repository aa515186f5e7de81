/* The kernels' translation table (xlat.h). */
#include "gpu/xlat.h"

#include <stdlib.h>
#include <string.h>

#include "uvas.h"
#include "uvas/status.h"

static uint32_t pick_type(const struct uvas_vulkan *d, uint32_t bits)
{
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    /* Device-local first: every access of a kernel reads an entry. Memory
     * that is not coherent would need flushes the table's writers do not
     * make. */
    const VkMemoryPropertyFlags want[2] = {host | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, host};
    for (int w = 0; w < 2; w++)
        for (uint32_t i = 0; i < d->mem.memoryTypeCount; i++)
            if ((bits & (1u << i)) && (d->mem.memoryTypes[i].propertyFlags & want[w]) == want[w])
                return i;
    return UINT32_MAX;
}

/* A buffer of `bytes` with a device address, in memory of type `type`
 * (UINT32_MAX: the first host-visible coherent one). Status. */
static int make(struct uvas_vulkan *d, VkDeviceSize bytes, uint32_t type, VkBuffer *buf,
                VkDeviceMemory *mem, const char *what)
{
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = bytes,
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT};
    uvas_vulkan_share(d, &bci);
    if (vkCreateBuffer(d->dev, &bci, NULL, buf) != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot create the %s buffer on '%s'", what, d->name);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d->dev, *buf, &req);
    if (type == UINT32_MAX)
        type = pick_type(d, req.memoryTypeBits);
    VkMemoryAllocateFlagsInfo fi;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .pNext = uvas_vulkan_addr_alloc(d, &fi, NULL),
                                .allocationSize = req.size,
                                .memoryTypeIndex = type};
    VkResult r = type == UINT32_MAX || !(req.memoryTypeBits & (1u << type))
                     ? VK_ERROR_FEATURE_NOT_PRESENT
                     : vkAllocateMemory(d->dev, &mai, NULL, mem);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(d->dev, *buf, NULL);
        *buf = VK_NULL_HANDLE;
        return uvas_fail(UVAS_ERR_NOMEM, "cannot allocate %llu bytes for the %s on '%s' "
                         "(VkResult %d)", (unsigned long long)bytes, what, d->name, r);
    }
    vkBindBufferMemory(d->dev, *buf, *mem, 0);
    return UVAS_OK;
}

int uvas_xlat_init(struct uvas_xlat *x, struct uvas_vulkan *d, uintptr_t base, unsigned shift,
                   size_t nblocks)
{
    memset(x, 0, sizeof *x);
    pthread_mutex_init(&x->run, NULL);
    x->dev = d;
    if (!(x->reach = calloc(nblocks, sizeof *x->reach)))
        return uvas_fail(UVAS_ERR_NOMEM, "out of memory for the translation table");
    x->nreq0 = (nblocks + 31) / 32;
    x->nreq1 = (x->nreq0 + 31) / 32;
    size_t req_off = sizeof(struct uvas_xlat_header) + nblocks * sizeof(struct uvas_xlat_entry);
    x->bytes = req_off + (x->nreq0 + x->nreq1) * sizeof(uint32_t);
    int rc = make(d, x->bytes, UINT32_MAX, &x->buf, &x->mem, "translation table");
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
    rc = make(d, UVAS_XLAT_SINK_BYTES, d->dev_type, &x->sink, &x->sink_mem, "fault sink");
    if (rc) {
        uvas_xlat_fini(x);
        return rc;
    }
    x->hdr->base = base;
    x->hdr->shift = shift;
    x->hdr->nblocks = (uint32_t)nblocks;
    x->hdr->sink = uvas_vulkan_address(d, x->sink);
    x->hdr->req = uvas_vulkan_address(d, x->buf) + req_off;
    return UVAS_OK;
}

void uvas_xlat_fini(struct uvas_xlat *x)
{
    struct uvas_vulkan *d = x->dev;
    if (!d)
        return;
    free(x->reach);
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
    memset(x, 0, sizeof *x);
}

void uvas_xlat_run_begin(struct uvas_xlat *x, bool wait)
{
    volatile struct uvas_xlat_header *h = x->hdr;
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
 * Bits stay set for the run; the caller knows which it has served. */
void uvas_xlat_requests(struct uvas_xlat *x, void (*fn)(size_t bi, void *arg), void *arg)
{
    for (size_t i = 0; i < x->nreq1; i++) {
        uint32_t w1 = x->req1[i];
        while (w1) {
            size_t w = i * 32 + (size_t)__builtin_ctz(w1);
            w1 &= w1 - 1;
            uint32_t w0 = x->req0[w];
            while (w0) {
                fn(w * 32 + (size_t)__builtin_ctz(w0), arg);
                w0 &= w0 - 1;
            }
        }
    }
}
