/*
 * vk-submit: what one small copy costs the submitting thread on a copy
 * queue, step by step, with each way of learning it is done. A lone 2 MiB
 * migration submits four pieces, and its calling thread's time went to
 * unmapping and submitting (docs/migration.md): is the submission the
 * recording, vkQueueSubmit itself, or the timeline semaphore uvas signals?
 * Plain Vulkan, no uvas. For each variant, ITERS copies of 4 KiB between
 * two host-visible buffers, one at a time, each waited for by polling
 * before the next; medians in microseconds of:
 *   record  vkAllocateCommandBuffers, begin, the copy and a barrier, end
 *   submit  vkQueueSubmit
 *   done    from vkQueueSubmit's return until the poll sees the copy done
 *   free    vkFreeCommandBuffers
 * Variants: timeline (a timeline semaphore signalled, as uvas does),
 * fence (a fence), marker (no synchronisation object: the command buffer
 * ends by writing a counter into host-visible memory, which the host
 * polls), timeline-reuse (one command buffer recorded once, submitted
 * again each time). Also the cost of one vkGetSemaphoreCounterValue.
 * usage: vk-submit [device index]
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#include "vk-util.h"

#define ITERS 3000
#define SIZE 4096

static VkDevice dev;
static VkQueue queue;
static VkCommandPool pool;
static VkBuffer src, dst, mark;
static volatile uint32_t *mark_p;

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

static void buffer(const VkPhysicalDeviceMemoryProperties *mp, VkBuffer *b, void **p)
{
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = SIZE,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    CHECK_VK(vkCreateBuffer(dev, &bci, NULL, b));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, *b, &req);
    const VkMemoryPropertyFlags want =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mp->memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) && (mp->memoryTypes[i].propertyFlags & want) == want)
            type = i;
    if (type == UINT32_MAX) {
        fprintf(stderr, "vk-submit: no host-visible coherent memory\n");
        exit(1);
    }
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size,
                               .memoryTypeIndex = type};
    VkDeviceMemory m;
    CHECK_VK(vkAllocateMemory(dev, &ai, NULL, &m));
    CHECK_VK(vkBindBufferMemory(dev, *b, m, 0));
    CHECK_VK(vkMapMemory(dev, m, 0, VK_WHOLE_SIZE, 0, p));
}

/* The copy, then (marker) the counter written after it, then the barrier
 * that makes both visible to the host. */
static void record(VkCommandBuffer cb, uint32_t marker)
{
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    CHECK_VK(vkBeginCommandBuffer(cb, &bi));
    VkBufferCopy reg = {0, 0, SIZE};
    vkCmdCopyBuffer(cb, src, dst, 1, &reg);
    if (marker) {
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT};
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                             0, 1, &mb, 0, NULL, 0, NULL);
        vkCmdFillBuffer(cb, mark, 0, 4, marker);
    }
    VkMemoryBarrier hb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &hb,
                         0, NULL, 0, NULL);
    CHECK_VK(vkEndCommandBuffer(cb));
}

enum variant { TIMELINE, FENCE, MARKER, TIMELINE_REUSE, NVARIANTS };
static const char *names[] = {"timeline", "fence", "marker", "timeline-reuse"};

static void run(enum variant v)
{
    static double rec[ITERS], sub[ITERS], done[ITERS], fr[ITERS];
    VkSemaphoreTypeCreateInfo sti = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO,
                                     .semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE};
    VkSemaphoreCreateInfo sci = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO, .pNext = &sti};
    VkSemaphore tl;
    CHECK_VK(vkCreateSemaphore(dev, &sci, NULL, &tl));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fe;
    CHECK_VK(vkCreateFence(dev, &fci, NULL, &fe));
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkCommandBuffer kept = VK_NULL_HANDLE;
    if (v == TIMELINE_REUSE) {
        CHECK_VK(vkAllocateCommandBuffers(dev, &ai, &kept));
        record(kept, 0);
    }
    for (int i = 0; i < ITERS; i++) {
        uint64_t value = (uint64_t)i + 1;
        double t0 = now_us();
        VkCommandBuffer cb = kept;
        if (!kept) {
            CHECK_VK(vkAllocateCommandBuffers(dev, &ai, &cb));
            record(cb, v == MARKER ? (uint32_t)value : 0);
        }
        double t1 = now_us();
        VkTimelineSemaphoreSubmitInfo tsi = {
            .sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO,
            .signalSemaphoreValueCount = 1,
            .pSignalSemaphoreValues = &value};
        bool timeline = v == TIMELINE || v == TIMELINE_REUSE;
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .pNext = timeline ? &tsi : NULL,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &cb,
                           .signalSemaphoreCount = timeline,
                           .pSignalSemaphores = timeline ? &tl : NULL};
        CHECK_VK(vkQueueSubmit(queue, 1, &si, v == FENCE ? fe : VK_NULL_HANDLE));
        double t2 = now_us();
        for (;;) {
            if (timeline) {
                uint64_t got = 0;
                CHECK_VK(vkGetSemaphoreCounterValue(dev, tl, &got));
                if (got >= value)
                    break;
            } else if (v == FENCE) {
                if (vkGetFenceStatus(dev, fe) == VK_SUCCESS)
                    break;
            } else if (*mark_p == (uint32_t)value) {
                break;
            }
        }
        double t3 = now_us();
        if (v == MARKER) /* nothing tells the driver the buffer is done: wait once */
            CHECK_VK(vkQueueWaitIdle(queue));
        if (v == FENCE)
            CHECK_VK(vkResetFences(dev, 1, &fe));
        double t4 = now_us();
        if (!kept)
            vkFreeCommandBuffers(dev, pool, 1, &cb);
        double t5 = now_us();
        rec[i] = t1 - t0;
        sub[i] = t2 - t1;
        done[i] = t3 - t2;
        fr[i] = t5 - t4;
    }
    if (kept)
        vkFreeCommandBuffers(dev, pool, 1, &kept);
    printf("%-15s record %6.2f  submit %6.2f  done %6.2f  free %6.2f  (us, medians of %d)\n",
           names[v], median(rec, ITERS), median(sub, ITERS), median(done, ITERS),
           median(fr, ITERS), ITERS);
    if (v == TIMELINE) {
        double t0 = now_us();
        uint64_t got;
        for (int i = 0; i < ITERS; i++)
            vkGetSemaphoreCounterValue(dev, tl, &got);
        printf("%-15s one vkGetSemaphoreCounterValue %.3f us\n", "", (now_us() - t0) / ITERS);
    }
    vkDestroySemaphore(dev, tl, NULL);
    vkDestroyFence(dev, fe, NULL);
}

int main(int argc, char **argv)
{
    VkInstance inst;
    VkPhysicalDevice pd = bench_vk_device(argc > 1 ? (uint32_t)atoi(argv[1]) : 0, &inst);
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(pd, &props);
    uint32_t nf = 16;
    VkQueueFamilyProperties qf[16];
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nf, qf);
    uint32_t fam = UINT32_MAX; /* a transfer-only family (the copy engines), else any */
    for (uint32_t i = 0; i < nf; i++)
        if ((qf[i].queueFlags & VK_QUEUE_TRANSFER_BIT) &&
            !(qf[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)))
            fam = fam == UINT32_MAX ? i : fam;
    bool copy_only = fam != UINT32_MAX;
    if (!copy_only)
        fam = 0;
    float prio = 1;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = fam,
                                   .queueCount = 1,
                                   .pQueuePriorities = &prio};
    VkPhysicalDeviceTimelineSemaphoreFeatures tf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES,
        .timelineSemaphore = VK_TRUE};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .pNext = &tf,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci};
    CHECK_VK(vkCreateDevice(pd, &dci, NULL, &dev));
    vkGetDeviceQueue(dev, fam, 0, &queue);
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                   .queueFamilyIndex = fam};
    CHECK_VK(vkCreateCommandPool(dev, &pci, NULL, &pool));
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    void *ps, *pdst, *pm;
    buffer(&mp, &src, &ps);
    buffer(&mp, &dst, &pdst);
    buffer(&mp, &mark, &pm);
    memset(ps, 1, SIZE);
    mark_p = pm;
    printf("vk-submit: %s, queue family %u (%s), %d B copies\n", props.deviceName, fam,
           copy_only ? "transfer only" : "no transfer-only family", SIZE);
    for (int round = 0; round < 2; round++)
        for (int v = 0; v < NVARIANTS; v++)
            run((enum variant)v);
    vkDestroyDevice(dev, NULL);
    vkDestroyInstance(inst, NULL);
    return 0;
}
