/*
 * The copy engine: batches of buffer copies and fills recorded into one
 * command buffer, submitted once to the device's transfer queue, and
 * waited for on a timeline semaphore (the thread sleeps in the driver; no
 * core spins). Host memory takes part through imported buffers
 * (migrate/hostbuf.h), so nothing is staged.
 */
#ifndef UVAS_COPY_H
#define UVAS_COPY_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "uvas/device.h"

struct uvas_copy_op {
    VkBuffer src;          /* VK_NULL_HANDLE: fill dst with zeros */
    VkDeviceSize src_off;
    VkBuffer dst;
    VkDeviceSize dst_off;
    VkDeviceSize size;
};

struct uvas_copier {
    struct uvas_device *dev;
    pthread_mutex_t mu;    /* pool and queue are externally synchronised */
    VkCommandPool pool;
    VkSemaphore timeline;
    uint64_t last;         /* last value signalled */
};

int uvas_copier_init(struct uvas_copier *c, struct uvas_device *dev);
void uvas_copier_fini(struct uvas_copier *c);
/* Run the ops as one submission and wait for them. Status. */
int uvas_copier_run(struct uvas_copier *c, const struct uvas_copy_op *ops, size_t n);

#endif
