/*
 * The copy engine: batches of buffer copies and fills recorded into one
 * command buffer, submitted once to a transfer queue, and waited for on
 * that queue's timeline semaphore (briefly polled, for as long as the copy
 * should take, then asleep in the driver). Where the device offers two
 * copy-engine queues, batches alternate between them, and a batch the
 * caller waits for alone is split over both. Host memory takes part
 * through imported buffers (migrate/import.h), so nothing is staged.
 * Zero fills of device memory may go to a queue of the kernels' family
 * instead (UVAS_COPY_SM_FILL), where the GPU's cores run them.
 */
#ifndef UVAS_COPY_H
#define UVAS_COPY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "uvas/atomics.h"
#include "uvas/vulkan.h"

struct uvas_copy_op {
    VkBuffer src;          /* VK_NULL_HANDLE: fill dst with `fill` */
    VkDeviceSize src_off;
    VkBuffer dst;
    VkDeviceSize dst_off;
    VkDeviceSize size;     /* a fill: a multiple of 4 */
    uint32_t fill;
};

#define UVAS_COPY_QUEUES_MAX 3 /* two copy-engine queues, the fill queue */
#define UVAS_COPY_FILL_QUEUE 2

struct uvas_copier {
    struct uvas_vulkan *dev;
    pthread_mutex_t mu;    /* the pools, `last` and `next` */
    VkCommandPool pool;
    VkCommandPool fill_pool; /* of the fill queue (uvas_vulkan.fqueue); none: NULL */
    uint32_t nq;           /* copy-engine queues in use */
    VkSemaphore timeline[UVAS_COPY_QUEUES_MAX]; /* one per queue: values rise per queue */
    uint64_t last[UVAS_COPY_QUEUES_MAX];        /* last value signalled on each */
    uint32_t next;         /* the queue the next batch goes to */
    _Atomic uint64_t ps_per_byte; /* the copies' recent pace, for the poll's length */
};

int uvas_copier_init(struct uvas_copier *c, struct uvas_vulkan *dev);
void uvas_copier_fini(struct uvas_copier *c);
/* A submission in flight: a part per queue it went to. */
struct uvas_copy_ticket {
    struct {
        uint64_t value; /* timeline value it signals; 0: nothing submitted */
        VkCommandBuffer cb;
    } part[UVAS_COPY_QUEUES_MAX];
    uint64_t bytes, t0_ns; /* what it moves, and when it was submitted */
    unsigned flags;        /* UVAS_COPY_SOON, UVAS_COPY_SPREAD */
};

/* Record the ops into one command buffer and submit it. Flags:
 * UVAS_COPY_SOON: the caller waits for this batch next (its wait polls for
 * as long as the copy should take instead of sleeping in the driver at
 * once); UVAS_COPY_SPREAD: and nothing else of the caller's is in flight,
 * so its copies are split over every queue. Status. */
#define UVAS_COPY_SOON 1u
#define UVAS_COPY_SPREAD 2u
/* UVAS_COPY_SM_FILL: the ops are fills of device memory the kernels' family
 * shares (uvas_vulkan_share), and no kernel of this process waits for
 * them: they may run on the fill queue, on the GPU's cores. A kernel
 * waiting for a fault's block must not have its fill queue behind it for
 * the same cores, so only launches before their run ask for this. */
#define UVAS_COPY_SM_FILL 4u
int uvas_copier_submit(struct uvas_copier *c, const struct uvas_copy_op *ops, size_t n,
                       unsigned flags, struct uvas_copy_ticket *t);
/* Split ops into two lists of about half the bytes each, in order: a gets
 * the first half (an op cut at a page boundary goes to both), b the rest.
 * a and b hold n + 1 ops. The halves run on two queues at once, unordered:
 * only for independent ops (uvas_copy_independent). */
void uvas_copy_halve(const struct uvas_copy_op *ops, size_t n, struct uvas_copy_op *a,
                     size_t *na, struct uvas_copy_op *b, size_t *nb);
/* Can the ops run in any order? Not when one reads what a fill before it
 * writes (a device write: a fill of a scratch buffer, then a copy of it
 * into the block). Within one command buffer the fill's barrier orders
 * them; spread over two queues the copy raced the fill and moved part of
 * the buffer's previous contents (found on the H100: the CPU read a
 * device write one round behind, in patches). */
bool uvas_copy_independent(const struct uvas_copy_op *ops, size_t n);
/* Wait for a submission and recycle its command buffer. Status. */
int uvas_copier_wait(struct uvas_copier *c, struct uvas_copy_ticket *t);
/* Submit and wait. */
int uvas_copier_run(struct uvas_copier *c, const struct uvas_copy_op *ops, size_t n);

#endif
