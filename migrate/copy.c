/* One submission per batch, completion on a timeline semaphore. */
#include "migrate/copy.h"

#include <string.h>
#include <time.h>

#include "uvas.h"
#include "uvas/inject.h"
#include "uvas/status.h"

int uvas_copier_init(struct uvas_copier *c, struct uvas_vulkan *dev)
{
    memset(c, 0, sizeof *c);
    c->dev = dev;
    pthread_mutex_init(&c->mu, NULL);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                   .queueFamilyIndex = dev->qfam};
    VkResult r = vkCreateCommandPool(dev->dev, &pci, NULL, &c->pool);
    if (r != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_NO_DEVICE, "vkCreateCommandPool failed (VkResult %d)", r);
    VkSemaphoreTypeCreateInfo sti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                     .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &sti};
    r = vkCreateSemaphore(dev->dev, &sci, NULL, &c->timeline);
    if (r != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_NO_DEVICE, "vkCreateSemaphore(timeline) failed (VkResult %d)",
                         r);
    return UVAS_OK;
}

void uvas_copier_fini(struct uvas_copier *c)
{
    if (!c->dev)
        return;
    VkDevice d = c->dev->dev;
    if (c->timeline)
        vkDestroySemaphore(d, c->timeline, NULL);
    if (c->pool)
        vkDestroyCommandPool(d, c->pool, NULL);
    pthread_mutex_destroy(&c->mu);
    memset(c, 0, sizeof *c);
}

int uvas_copier_submit(struct uvas_copier *c, const struct uvas_copy_op *ops, size_t n,
                       struct uvas_copy_ticket *t)
{
    *t = (struct uvas_copy_ticket){0};
    if (n == 0)
        return UVAS_OK;
    VkDevice d = c->dev->dev;
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = c->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    pthread_mutex_lock(&c->mu);
    VkResult r = vkAllocateCommandBuffers(d, &ai, &t->cb);
    if (r != VK_SUCCESS) {
        pthread_mutex_unlock(&c->mu);
        return uvas_fail(UVAS_ERR_NOMEM, "vkAllocateCommandBuffers failed (VkResult %d)", r);
    }
    VkCommandBuffer cb = t->cb;
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkBeginCommandBuffer(cb, &bi);
    for (size_t i = 0; i < n; i++) {
        const struct uvas_copy_op *o = &ops[i];
        if (o->src == VK_NULL_HANDLE) {
            vkCmdFillBuffer(cb, o->dst, o->dst_off, o->size, o->fill);
            /* what follows may read what this wrote */
            VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                  .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                                  .dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT |
                                                   VK_ACCESS_TRANSFER_WRITE_BIT};
            vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                 VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
            continue;
        }
        /* Consecutive ops between the same buffers become regions of one
         * command. */
        VkBufferCopy reg[64];
        uint32_t k = 0;
        size_t j = i;
        while (j < n && k < 64 && ops[j].src == o->src && ops[j].dst == o->dst) {
            reg[k++] = (VkBufferCopy){ops[j].src_off, ops[j].dst_off, ops[j].size};
            j++;
        }
        vkCmdCopyBuffer(cb, o->src, o->dst, k, reg);
        i = j - 1;
    }
    vkEndCommandBuffer(cb);
    uint64_t value = ++c->last;
    VkTimelineSemaphoreSubmitInfo tsi = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                         .signalSemaphoreValueCount = 1,
                                         .pSignalSemaphoreValues = &value};
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .pNext = &tsi,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &cb,
                       .signalSemaphoreCount = 1,
                       .pSignalSemaphores = &c->timeline};
    if (uvas_inject_fail(UVAS_INJ_DMA)) {
        r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    } else {
        pthread_mutex_lock(&c->dev->qmu); /* kernels may share the queue */
        r = vkQueueSubmit(c->dev->queue, 1, &si, VK_NULL_HANDLE);
        pthread_mutex_unlock(&c->dev->qmu);
    }
    if (r != VK_SUCCESS) {
        vkFreeCommandBuffers(d, c->pool, 1, &cb);
        t->cb = VK_NULL_HANDLE;
        pthread_mutex_unlock(&c->mu);
        return uvas_fail(UVAS_ERR_SYS, "vkQueueSubmit on '%s' failed (VkResult %d)",
                         c->dev->name, r);
    }
    pthread_mutex_unlock(&c->mu);
    t->value = value;
    return UVAS_OK;
}

int uvas_copier_wait(struct uvas_copier *c, struct uvas_copy_ticket *t)
{
    if (!t->value)
        return UVAS_OK;
    VkDevice d = c->dev->dev;
    VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                              .semaphoreCount = 1,
                              .pSemaphores = &c->timeline,
                              .pValues = &t->value};
    /* Small transfers (a peer's 8-byte put) finish in microseconds: poll
     * the counter briefly before sleeping in the driver, whose wake-up
     * costs tens of microseconds on NVIDIA. */
    VkResult r = VK_TIMEOUT;
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* Not on a CPU implementation: there the poll takes the core the copy runs on. */
    for (bool spin = c->dev->type != VK_PHYSICAL_DEVICE_TYPE_CPU; spin;) {
        uint64_t v = 0;
        if (vkGetSemaphoreCounterValue(d, c->timeline, &v) != VK_SUCCESS)
            break;
        if (v >= t->value) {
            r = VK_SUCCESS;
            break;
        }
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((now.tv_sec - t0.tv_sec) * 1000000000L + (now.tv_nsec - t0.tv_nsec) > 20000)
            break;
    }
    if (r != VK_SUCCESS)
        r = vkWaitSemaphores(d, &wi, UINT64_MAX);
    pthread_mutex_lock(&c->mu);
    vkFreeCommandBuffers(d, c->pool, 1, &t->cb);
    pthread_mutex_unlock(&c->mu);
    *t = (struct uvas_copy_ticket){0};
    if (r != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_SYS, "a copy on '%s' failed (VkResult %d)", c->dev->name, r);
    return UVAS_OK;
}

int uvas_copier_run(struct uvas_copier *c, const struct uvas_copy_op *ops, size_t n)
{
    struct uvas_copy_ticket t;
    int rc = uvas_copier_submit(c, ops, n, &t);
    if (rc)
        return rc;
    return uvas_copier_wait(c, &t);
}
