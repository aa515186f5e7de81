/* Batches on the transfer queues, completion on a timeline per queue. */
#include "migrate/copy.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "uvas.h"
#include "uvas/atomics.h"
#include "uvas/inject.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"

/* A batch split over the queues only from this size: below it the second
 * submission costs more than it saves. */
#define SPREAD_MIN ((VkDeviceSize)1 << 20)
/* The poll before sleeping in the driver: at least this, and at most this
 * past the copy's expected end. */
#define POLL_MIN_NS 20000ull
#define POLL_MAX_NS 400000ull

int uvas_copier_init(struct uvas_copier *c, struct uvas_vulkan *dev)
{
    memset(c, 0, sizeof *c);
    c->dev = dev;
    c->nq = dev->copy_queues == 2 && dev->queue2 ? 2 : 1;
    atomic_store_explicit(&c->ps_per_byte, 25, RLX); /* 40 GB/s until measured */
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
    for (uint32_t q = 0; q < c->nq; q++) {
        r = vkCreateSemaphore(dev->dev, &sci, NULL, &c->timeline[q]);
        if (r != VK_SUCCESS)
            return uvas_fail(UVAS_ERR_NO_DEVICE, "vkCreateSemaphore(timeline) failed "
                             "(VkResult %d)", r);
    }
    if (dev->fqueue) { /* without it fills go with the copies */
        pci.queueFamilyIndex = dev->cfam;
        VkCommandPool fp;
        VkSemaphore fs;
        if (vkCreateCommandPool(dev->dev, &pci, NULL, &fp) == VK_SUCCESS) {
            if (vkCreateSemaphore(dev->dev, &sci, NULL, &fs) == VK_SUCCESS) {
                c->fill_pool = fp;
                c->timeline[UVAS_COPY_FILL_QUEUE] = fs;
            } else {
                vkDestroyCommandPool(dev->dev, fp, NULL);
            }
        }
    }
    return UVAS_OK;
}

void uvas_copier_fini(struct uvas_copier *c)
{
    if (!c->dev)
        return;
    VkDevice d = c->dev->dev;
    for (uint32_t q = 0; q < UVAS_COPY_QUEUES_MAX; q++)
        if (c->timeline[q])
            vkDestroySemaphore(d, c->timeline[q], NULL);
    if (c->pool)
        vkDestroyCommandPool(d, c->pool, NULL);
    if (c->fill_pool)
        vkDestroyCommandPool(d, c->fill_pool, NULL);
    pthread_mutex_destroy(&c->mu);
    memset(c, 0, sizeof *c);
}

static void record(VkCommandBuffer cb, const struct uvas_copy_op *ops, size_t n)
{
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
    /* The CPU reads what the batch wrote (host pages, or device memory
     * through its CPU view) once the wait returns: the signal alone makes
     * the writes available to the device only. */
    VkMemoryBarrier hb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb,
                         0, NULL, 0, NULL);
}

static bool overlap(VkDeviceSize a, VkDeviceSize an, VkDeviceSize b, VkDeviceSize bn)
{
    return a < b + bn && b < a + an;
}

bool uvas_copy_independent(const struct uvas_copy_op *ops, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (ops[i].src != VK_NULL_HANDLE)
            continue;
        for (size_t j = i + 1; j < n; j++)
            if (ops[j].src == ops[i].dst &&
                overlap(ops[i].dst_off, ops[i].size, ops[j].src_off, ops[j].size))
                return false;
    }
    return true;
}

static VkCommandPool pool_of(const struct uvas_copier *c, uint32_t q)
{
    return q == UVAS_COPY_FILL_QUEUE ? c->fill_pool : c->pool;
}

/* One command buffer of ops on queue q (c->mu held). Status. */
static int submit_on(struct uvas_copier *c, uint32_t q, const struct uvas_copy_op *ops, size_t n,
                     struct uvas_copy_ticket *t)
{
    VkDevice d = c->dev->dev;
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = pool_of(c, q),
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkCommandBuffer cb;
    VkResult r = vkAllocateCommandBuffers(d, &ai, &cb);
    if (r != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_NOMEM, "vkAllocateCommandBuffers failed (VkResult %d)", r);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkBeginCommandBuffer(cb, &bi);
    record(cb, ops, n);
    vkEndCommandBuffer(cb);
    uint64_t value = c->last[q] + 1;
    VkTimelineSemaphoreSubmitInfo tsi = {.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
                                         .signalSemaphoreValueCount = 1,
                                         .pSignalSemaphoreValues = &value};
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .pNext = &tsi,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &cb,
                       .signalSemaphoreCount = 1,
                       .pSignalSemaphores = &c->timeline[q]};
    if (uvas_inject_fail(UVAS_INJ_DMA)) {
        r = VK_ERROR_OUT_OF_DEVICE_MEMORY;
    } else if (q == UVAS_COPY_FILL_QUEUE) { /* the copier's alone (c->mu) */
        r = vkQueueSubmit(c->dev->fqueue, 1, &si, VK_NULL_HANDLE);
    } else if (q == 0) {
        pthread_mutex_lock(&c->dev->qmu); /* kernels may share the queue */
        r = vkQueueSubmit(c->dev->queue, 1, &si, VK_NULL_HANDLE);
        pthread_mutex_unlock(&c->dev->qmu);
    } else {
        pthread_mutex_lock(&c->dev->qmu2);
        r = vkQueueSubmit(c->dev->queue2, 1, &si, VK_NULL_HANDLE);
        pthread_mutex_unlock(&c->dev->qmu2);
    }
    if (r != VK_SUCCESS) {
        vkFreeCommandBuffers(d, pool_of(c, q), 1, &cb);
        return uvas_fail(UVAS_ERR_SYS, "vkQueueSubmit on '%s' failed (VkResult %d)",
                         c->dev->name, r);
    }
    c->last[q] = value;
    t->part[q].value = value;
    t->part[q].cb = cb;
    return UVAS_OK;
}

void uvas_copy_halve(const struct uvas_copy_op *ops, size_t n, struct uvas_copy_op *a,
                     size_t *na, struct uvas_copy_op *b, size_t *nb)
{
    VkDeviceSize total = 0, got = 0;
    for (size_t i = 0; i < n; i++)
        total += ops[i].size;
    const VkDeviceSize want = total / 2;
    *na = *nb = 0;
    for (size_t i = 0; i < n; i++) {
        struct uvas_copy_op o = ops[i];
        /* Cut where half the bytes are, rounded up to a page: copies stay
         * page-aligned and fills multiples of 4. */
        VkDeviceSize take = got >= want ? 0 : (want - got + 4095) & ~(VkDeviceSize)4095;
        if (take >= o.size) {
            a[(*na)++] = o;
            got += o.size;
        } else if (take == 0) {
            b[(*nb)++] = o;
        } else {
            struct uvas_copy_op rest = o;
            o.size = take;
            rest.size -= take;
            rest.dst_off += take;
            if (rest.src != VK_NULL_HANDLE)
                rest.src_off += take;
            a[(*na)++] = o;
            b[(*nb)++] = rest;
            got += take;
        }
    }
}

int uvas_copier_submit(struct uvas_copier *c, const struct uvas_copy_op *ops, size_t n,
                       unsigned flags, struct uvas_copy_ticket *t)
{
    *t = (struct uvas_copy_ticket){0};
    if (n == 0)
        return UVAS_OK;
    for (size_t i = 0; i < n; i++)
        t->bytes += ops[i].size;
    t->t0_ns = uvas_os_now_ns();
    t->flags = flags;
    int rc;
    bool fills = c->fill_pool && (flags & UVAS_COPY_SM_FILL);
    for (size_t i = 0; i < n && fills; i++)
        fills = ops[i].src == VK_NULL_HANDLE;
    /* Announced before the runs are looked at (a run starting now sees it
     * and waits), withdrawn if one is in flight: the copy engine fills. */
    if (fills) {
        atomic_fetch_add_explicit(&c->dev->sm_fills, 1, SEQ);
        if (atomic_load_explicit(&c->dev->runs, SEQ)) {
            atomic_fetch_sub_explicit(&c->dev->sm_fills, 1, REL);
            fills = false;
        }
    }
    pthread_mutex_lock(&c->mu);
    if (fills) {
        rc = submit_on(c, UVAS_COPY_FILL_QUEUE, ops, n, t);
    } else if (c->nq == 2 && (flags & UVAS_COPY_SPREAD) && t->bytes >= SPREAD_MIN && n <= 64 &&
               uvas_copy_independent(ops, n)) {
        struct uvas_copy_op a[65], b[65];
        size_t na, nb;
        uvas_copy_halve(ops, n, a, &na, b, &nb);
        rc = submit_on(c, 0, a, na, t);
        if (rc == UVAS_OK && nb)
            rc = submit_on(c, 1, b, nb, t);
    } else {
        uint32_t q = c->next;
        c->next = (c->next + 1) % c->nq;
        rc = submit_on(c, q, ops, n, t);
    }
    pthread_mutex_unlock(&c->mu);
    if (rc != UVAS_OK && t->part[0].value) {
        /* Half went: the caller rolls the batch back and may reuse its
         * destination at once, so that half must be over first. */
        char keep[UVAS_MSG_MAX];
        snprintf(keep, sizeof keep, "%s", uvas_last_error());
        (void)uvas_copier_wait(c, t);
        rc = uvas_fail(rc, "%s", keep);
    }
    if (rc != UVAS_OK) {
        if (fills)
            atomic_fetch_sub_explicit(&c->dev->sm_fills, 1, REL);
        *t = (struct uvas_copy_ticket){0};
    } else {
        atomic_fetch_add_explicit(&uvas_g.ctr.copy_submissions, 1, RLX);
    }
    return rc;
}

/* Queues the batch went to. */
static uint64_t parts(const struct uvas_copy_ticket *t)
{
    uint64_t n = 0;
    for (uint32_t q = 0; q < UVAS_COPY_QUEUES_MAX; q++)
        n += t->part[q].value != 0;
    return n ? n : 1;
}

static bool part_done(struct uvas_copier *c, const struct uvas_copy_ticket *t, uint32_t q)
{
    uint64_t v = 0;
    return !t->part[q].value ||
           (vkGetSemaphoreCounterValue(c->dev->dev, c->timeline[q], &v) == VK_SUCCESS &&
            v >= t->part[q].value);
}

/* Poll before sleeping in the driver, whose wake-up costs tens of
 * microseconds on NVIDIA, as much as a 2 MiB copy: a batch waited for next
 * until its copy should be over (twice its expected time: it may queue
 * behind others), one behind others briefly (its wait overlaps the copies
 * queued after it). Not on a CPU implementation: there the poll takes the
 * core the copy runs on. */
static bool poll_done(struct uvas_copier *c, const struct uvas_copy_ticket *t)
{
    if (c->dev->type == VK_PHYSICAL_DEVICE_TYPE_CPU)
        return false;
    uint64_t start = uvas_os_now_ns(), end = start + POLL_MIN_NS;
    if (t->flags & UVAS_COPY_SOON) {
        uint64_t pace = atomic_load_explicit(&c->ps_per_byte, RLX);
        uint64_t expect = t->t0_ns + 2 * t->bytes * pace / 1000 / parts(t) + POLL_MIN_NS;
        if (expect > end)
            end = expect < start + POLL_MAX_NS ? expect : start + POLL_MAX_NS;
    }
    for (;;) {
        bool done = true;
        for (uint32_t q = 0; q < UVAS_COPY_QUEUES_MAX && done; q++)
            done = part_done(c, t, q);
        if (done)
            return true;
        if (uvas_os_now_ns() > end)
            return false;
    }
}

/* The pace of batches waited for alone, per queue: a wait that slept
 * reads the driver's wake-up as a slower copy, which lengthens the next
 * poll until one sees the copy end. */
static void learn_pace(struct uvas_copier *c, const struct uvas_copy_ticket *t)
{
    if (!(t->flags & UVAS_COPY_SPREAD) || t->bytes < SPREAD_MIN ||
        t->part[UVAS_COPY_FILL_QUEUE].value) /* not the copy engines' pace */
        return;
    uint64_t ps = (uvas_os_now_ns() - t->t0_ns) * 1000 * parts(t) / t->bytes;
    uint64_t old = atomic_load_explicit(&c->ps_per_byte, RLX);
    atomic_store_explicit(&c->ps_per_byte, (3 * old + ps) / 4, RLX);
}

int uvas_copier_wait(struct uvas_copier *c, struct uvas_copy_ticket *t)
{
    VkDevice d = c->dev->dev;
    VkSemaphore sem[UVAS_COPY_QUEUES_MAX];
    uint64_t val[UVAS_COPY_QUEUES_MAX];
    uint32_t ns = 0;
    for (uint32_t q = 0; q < UVAS_COPY_QUEUES_MAX; q++)
        if (t->part[q].value) {
            sem[ns] = c->timeline[q];
            val[ns++] = t->part[q].value;
        }
    if (!ns)
        return UVAS_OK;
    VkResult r = VK_SUCCESS;
    if (!poll_done(c, t)) {
        VkSemaphoreWaitInfo wi = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO,
                                  .semaphoreCount = ns,
                                  .pSemaphores = sem,
                                  .pValues = val};
        r = vkWaitSemaphores(d, &wi, UINT64_MAX);
    }
    if (r == VK_SUCCESS)
        learn_pace(c, t);
    if (t->part[UVAS_COPY_FILL_QUEUE].value) /* done, or the device is lost */
        atomic_fetch_sub_explicit(&c->dev->sm_fills, 1, REL);
    pthread_mutex_lock(&c->mu);
    for (uint32_t q = 0; q < UVAS_COPY_QUEUES_MAX; q++)
        if (t->part[q].cb)
            vkFreeCommandBuffers(d, pool_of(c, q), 1, &t->part[q].cb);
    pthread_mutex_unlock(&c->mu);
    *t = (struct uvas_copy_ticket){0};
    if (r != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_SYS, "a copy on '%s' failed (VkResult %d)", c->dev->name, r);
    return UVAS_OK;
}

int uvas_copier_run(struct uvas_copier *c, const struct uvas_copy_op *ops, size_t n)
{
    struct uvas_copy_ticket t;
    int rc = uvas_copier_submit(c, ops, n, UVAS_COPY_SOON | UVAS_COPY_SPREAD, &t);
    if (rc)
        return rc;
    return uvas_copier_wait(c, &t);
}
