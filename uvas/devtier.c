/* Device tier memory: exported slabs, slots, and the residency LRU. */
#include "uvas/devtier.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "uvas/internal.h"
#include "uvas/status.h"

#define SLAB_BYTES ((size_t)64 << 20)

int uvas_devtier_open(struct uvas_devtier *t, int want, size_t cap_bytes, size_t block_size,
                      char *note, size_t notelen)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    int rc = uvas_device_open(want, &t->dev, note, notelen);
    if (rc || !uvas_device_present(&t->dev))
        return rc;
    /* Leave a tenth of the budget to the application's own allocations. */
    size_t budget = (size_t)uvas_device_budget(&t->dev) / 10 * 9;
    t->cap_bytes = cap_bytes && cap_bytes < budget ? cap_bytes : budget;
    t->slab_bytes = SLAB_BYTES > block_size ? SLAB_BYTES : block_size;
    if (t->cap_bytes < t->slab_bytes) /* a small bound: one slab of exactly that */
        t->slab_bytes = t->cap_bytes / block_size * block_size;
    t->slots_per_slab = (uint32_t)(t->slab_bytes / block_size);
    t->max_slabs = t->slots_per_slab ? (uint32_t)(t->cap_bytes / t->slab_bytes) : 0;
    size_t total = (size_t)t->max_slabs * t->slots_per_slab;
    t->slabs = calloc(t->max_slabs ? t->max_slabs : 1, sizeof *t->slabs);
    t->free_slots = calloc(total ? total : 1, sizeof *t->free_slots);
    if (!t->slabs || !t->free_slots) {
        uvas_devtier_close(t);
        return uvas_fail(UVAS_ERR_NOMEM, "cannot allocate the device tier's tables");
    }
    size_t used = strlen(note);
    snprintf(note + used, notelen - used, ", capacity %zu MiB", total * block_size >> 20);
    return UVAS_OK;
}

void uvas_devtier_close(struct uvas_devtier *t)
{
    VkDevice d = t->dev.dev;
    if (d)
        vkDeviceWaitIdle(d);
    for (uint32_t i = 0; i < t->nslabs; i++) {
        if (t->slabs[i].fd >= 0)
            close(t->slabs[i].fd);
        vkDestroyBuffer(d, t->slabs[i].buf, NULL);
        vkFreeMemory(d, t->slabs[i].mem, NULL);
    }
    free(t->slabs);
    free(t->free_slots);
    uvas_device_close(&t->dev);
    pthread_mutex_destroy(&t->mu);
    memset(t, 0, sizeof *t);
}

/* One more slab (lock held). */
static int grow(struct uvas_devtier *t)
{
    if (t->full || t->nslabs == t->max_slabs)
        return UVAS_ERR_NOMEM;
    struct uvas_device *dv = &t->dev;
    struct uvas_dslab s = {.fd = -1};
    VkExternalMemoryBufferCreateInfo ebi = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
        .handleTypes = dv->export_type};
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .pNext = &ebi,
                              .size = t->slab_bytes,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                              .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkResult r = vkCreateBuffer(dv->dev, &bci, NULL, &s.buf);
    if (r != VK_SUCCESS)
        goto refused;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dv->dev, s.buf, &req);
    if (!(req.memoryTypeBits & (1u << dv->dev_type))) {
        vkDestroyBuffer(dv->dev, s.buf, NULL);
        goto refused;
    }
    VkExportMemoryAllocateInfo exp = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                      .handleTypes = dv->export_type};
    VkMemoryDedicatedAllocateInfo ded = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
                                         .pNext = &exp,
                                         .buffer = s.buf};
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .pNext = &ded,
                                .allocationSize = req.size,
                                .memoryTypeIndex = dv->dev_type};
    r = vkAllocateMemory(dv->dev, &mai, NULL, &s.mem);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(dv->dev, s.buf, NULL);
        goto refused;
    }
    vkBindBufferMemory(dv->dev, s.buf, s.mem, 0);
    VkMemoryGetFdInfoKHR gfi = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
                                .memory = s.mem,
                                .handleType = dv->export_type};
    if (dv->get_memory_fd(dv->dev, &gfi, &s.fd) != VK_SUCCESS)
        s.fd = -1; /* usable for copies; peers cannot import this slab */
    uint32_t base = t->nslabs * t->slots_per_slab;
    t->slabs[t->nslabs++] = s;
    /* Pushed in reverse so slots are handed out in address order. */
    for (uint32_t i = t->slots_per_slab; i-- > 0;)
        t->free_slots[t->nfree++] = base + i + 1;
    return UVAS_OK;
refused:
    t->full = true; /* the driver is out of memory: stop asking */
    uvas_warn("device tier: the driver refused a %zu MiB slab (VkResult %d); the tier stays "
              "at %zu MiB", t->slab_bytes >> 20, r, (size_t)t->nslabs * t->slab_bytes >> 20);
    return UVAS_ERR_NOMEM;
}

int uvas_devtier_slot_alloc(struct uvas_devtier *t, uint32_t *slot)
{
    pthread_mutex_lock(&t->mu);
    int rc = t->nfree ? UVAS_OK : grow(t);
    if (rc == UVAS_OK)
        *slot = t->free_slots[--t->nfree];
    pthread_mutex_unlock(&t->mu);
    return rc;
}

void uvas_devtier_slot_free(struct uvas_devtier *t, uint32_t slot)
{
    pthread_mutex_lock(&t->mu);
    t->free_slots[t->nfree++] = slot;
    pthread_mutex_unlock(&t->mu);
}

void uvas_devtier_slot_where(const struct uvas_devtier *t, uint32_t slot, VkBuffer *buf,
                             VkDeviceSize *off, int *fd)
{
    uint32_t i = (slot - 1) / t->slots_per_slab, k = (slot - 1) % t->slots_per_slab;
    if (buf)
        *buf = t->slabs[i].buf;
    if (off)
        *off = (VkDeviceSize)k * (t->slab_bytes / t->slots_per_slab);
    if (fd)
        *fd = t->slabs[i].fd;
}

size_t uvas_devtier_capacity_blocks(const struct uvas_devtier *t)
{
    return (size_t)t->max_slabs * t->slots_per_slab;
}

void uvas_devtier_lru_add(struct uvas_devtier *t, size_t bi)
{
    pthread_mutex_lock(&t->mu);
    struct uvas_block *b = &uvas_g.bt[bi];
    b->lru_next = 0;
    b->lru_prev = t->lru_tail;
    if (t->lru_tail)
        uvas_g.bt[t->lru_tail - 1].lru_next = (uint32_t)bi + 1;
    else
        t->lru_head = (uint32_t)bi + 1;
    t->lru_tail = (uint32_t)bi + 1;
    pthread_mutex_unlock(&t->mu);
}

void uvas_devtier_lru_remove(struct uvas_devtier *t, size_t bi)
{
    pthread_mutex_lock(&t->mu);
    struct uvas_block *b = &uvas_g.bt[bi];
    if (b->lru_prev)
        uvas_g.bt[b->lru_prev - 1].lru_next = b->lru_next;
    else if (t->lru_head == bi + 1)
        t->lru_head = b->lru_next;
    if (b->lru_next)
        uvas_g.bt[b->lru_next - 1].lru_prev = b->lru_prev;
    else if (t->lru_tail == bi + 1)
        t->lru_tail = b->lru_prev;
    b->lru_next = b->lru_prev = 0;
    pthread_mutex_unlock(&t->mu);
}

size_t uvas_devtier_lru_oldest(struct uvas_devtier *t, size_t *out, size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&t->mu);
    for (uint32_t b = t->lru_head; b && n < max; b = uvas_g.bt[b - 1].lru_next)
        out[n++] = b - 1;
    pthread_mutex_unlock(&t->mu);
    return n;
}
