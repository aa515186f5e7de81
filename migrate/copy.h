/*
 * The copy engine: batches of buffer copies and fills recorded into one
 * command buffer, submitted once to the device's transfer queue, and
 * waited for on a timeline semaphore (the thread sleeps in the driver; no
 * core spins). Host memory takes part through imported buffers
 * (migrate/import.h), so nothing is staged.
 */
#ifndef UVAS_COPY_H
#define UVAS_COPY_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "uvas/vulkan.h"

struct uvas_copy_op {
    VkBuffer src;          /* VK_NULL_HANDLE: fill dst with `fill` */
    VkDeviceSize src_off;
    VkBuffer dst;
    VkDeviceSize dst_off;
    VkDeviceSize size;     /* a fill: a multiple of 4 */
    uint32_t fill;
};

struct uvas_copier {
    struct uvas_vulkan *dev;
    pthread_mutex_t mu;    /* pool and queue are externally synchronised */
    VkCommandPool pool;
    VkSemaphore timeline;
    uint64_t last;         /* last value signalled */
};

int uvas_copier_init(struct uvas_copier *c, struct uvas_vulkan *dev);
void uvas_copier_fini(struct uvas_copier *c);
/* A submission in flight. */
struct uvas_copy_ticket {
    uint64_t value; /* timeline value it signals; 0: nothing submitted */
    VkCommandBuffer cb;
};

/* Record the ops into one command buffer and submit it. Status. */
int uvas_copier_submit(struct uvas_copier *c, const struct uvas_copy_op *ops, size_t n,
                       struct uvas_copy_ticket *t);
/* Wait for a submission and recycle its command buffer. Status. */
int uvas_copier_wait(struct uvas_copier *c, struct uvas_copy_ticket *t);
/* Submit and wait. */
int uvas_copier_run(struct uvas_copier *c, const struct uvas_copy_op *ops, size_t n);

#endif
