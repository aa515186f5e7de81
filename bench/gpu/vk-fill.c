/*
 * vk-fill: how fast each queue family of the device fills device memory
 * (vkCmdFillBuffer of 2, 16 and 64 MiB, best of 6 after one untimed, the
 * fence polled). Why uvas's zero fills of freshly placed blocks go to a
 * queue of the kernels' family where it has one (docs/migration.md): on
 * the H100 a copy-engine family fills at about 100 GB/s, a compute family
 * at 1-2 TB/s. Plain Vulkan, no uvas. usage: vk-fill [device index]
 *
 * Built with glslc, it also runs uvas-bench queue's kernel (fill.comp)
 * over a plain buffer device address, 1000 dispatches in one command
 * buffer on a compute queue, with the barrier uvas records between two
 * launches and without it, timed by the device's clock: the floor that
 * NVIDIA's Vulkan itself sets under uvas's queue-ordered loop, beside
 * cudaMallocAsync's (docs/queues.md).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vulkan/vulkan.h>

#include "vk-util.h"

/* One primary command buffer at a time from cp, and a fence to wait on. */
static VkCommandBufferAllocateInfo one_buffer(VkCommandPool cp)
{
    return (VkCommandBufferAllocateInfo){.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                         .commandPool = cp,
                                         .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                         .commandBufferCount = 1};
}

static VkFence new_fence(VkDevice d)
{
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fe;
    CHECK_VK(vkCreateFence(d, &fci, NULL, &fe));
    return fe;
}

#ifdef VK_FILL_KERNEL
static const uint32_t fill_raw_spv[] =
#include "fill-raw.spv.h"
    ;

struct fill_args {
    uint64_t x;
    uint32_t n, v;
};

/* The fill kernel n times over size bytes at address x, one command
 * buffer, each dispatch after a barrier (dep) or not; device
 * microseconds per dispatch, best of 3 after an untimed one. */
static double dispatch_loop(VkDevice d, VkQueue q, VkCommandPool cp, VkPipeline pipe,
                            VkPipelineLayout pl, VkQueryPool qp, double ns_per_tick,
                            uint64_t x, VkDeviceSize size, int n, int dep)
{
    VkCommandBufferAllocateInfo cai = one_buffer(cp);
    VkFence fe = new_fence(d);
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                          .dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT};
    uint32_t elems = (uint32_t)(size / 4), groups = (elems + 255) / 256;
    if (groups > 1024)
        groups = 1024; /* as uvas-bench queue's and malloc-async.cu's grids */
    double best = 1e30;
    for (int r = 0; r < 4; r++) {
        VkCommandBuffer cb;
        CHECK_VK(vkAllocateCommandBuffers(d, &cai, &cb));
        VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                       .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        vkBeginCommandBuffer(cb, &bi);
        vkCmdResetQueryPool(cb, qp, 0, 2);
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, qp, 0);
        vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
        for (int i = 0; i < n; i++) {
            if (i && dep)
                vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL,
                                     0, NULL);
            struct fill_args a = {x, elems, (uint32_t)i};
            vkCmdPushConstants(cb, pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof a, &a);
            vkCmdDispatch(cb, groups, 1, 1);
        }
        vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, qp, 1);
        vkEndCommandBuffer(cb);
        VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                           .commandBufferCount = 1,
                           .pCommandBuffers = &cb};
        CHECK_VK(vkQueueSubmit(q, 1, &si, fe));
        CHECK_VK(vkWaitForFences(d, 1, &fe, VK_TRUE, UINT64_MAX));
        uint64_t t[2];
        CHECK_VK(vkGetQueryPoolResults(d, qp, 0, 2, sizeof t, t, sizeof t[0],
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
        double us = (double)(t[1] - t[0]) * ns_per_tick / 1e3 / n;
        vkResetFences(d, 1, &fe);
        vkFreeCommandBuffers(d, cp, 1, &cb);
        if (r && us < best)
            best = us;
    }
    vkDestroyFence(d, fe, NULL);
    return best;
}

/* The fill kernel's dispatch loop on the first compute family (the one
 * uvas launches kernels on), at the queue benchmark's sizes. */
static void kernel_loops(VkDevice d, const VkQueueFamilyProperties *qf, uint32_t nf,
                         VkBuffer b, VkBuffer bx, float period)
{
    uint32_t f = 0;
    while (f < nf && !((qf[f].queueFlags & VK_QUEUE_COMPUTE_BIT) &&
                       !(qf[f].queueFlags & VK_QUEUE_GRAPHICS_BIT)))
        f++;
    if (f == nf)
        for (f = 0; f < nf && !(qf[f].queueFlags & VK_QUEUE_COMPUTE_BIT); f++)
            ;
    if (f == nf || !qf[f].timestampValidBits) {
        printf("vk-fill: no compute family with timestamps: no kernel loop\n");
        return;
    }
    VkQueue q;
    vkGetDeviceQueue(d, f, 0, &q);
    VkShaderModuleCreateInfo smi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                    .codeSize = sizeof fill_raw_spv,
                                    .pCode = fill_raw_spv};
    VkShaderModule sm;
    CHECK_VK(vkCreateShaderModule(d, &smi, NULL, &sm));
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(struct fill_args)};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                      .pushConstantRangeCount = 1,
                                      .pPushConstantRanges = &pr};
    VkPipelineLayout pl;
    CHECK_VK(vkCreatePipelineLayout(d, &pli, NULL, &pl));
    VkComputePipelineCreateInfo cpci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = sm,
                  .pName = "main"},
        .layout = pl};
    VkPipeline pipe;
    CHECK_VK(vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &cpci, NULL, &pipe));
    VkQueryPoolCreateInfo qpi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                 .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                 .queryCount = 2};
    VkQueryPool qp;
    CHECK_VK(vkCreateQueryPool(d, &qpi, NULL, &qp));
    VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .queueFamilyIndex = f};
    VkCommandPool cp;
    CHECK_VK(vkCreateCommandPool(d, &cpi, NULL, &cp));
    VkBufferDeviceAddressInfo bai = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
                                     .buffer = b};
    uint64_t x = vkGetBufferDeviceAddress(d, &bai);
    bai.buffer = bx;
    uint64_t xx = bx ? vkGetBufferDeviceAddress(d, &bai) : 0;
    const int n = 1000;
    printf("vk-fill: fill.comp over a plain device address, %d dispatches in one command "
           "buffer, family %u (at most 1024 workgroups of 256), device us per dispatch: each "
           "after a barrier (dependent, as uvas records launches) or not; and dependent on "
           "exportable memory (a dedicated allocation exportable as an opaque fd, as uvas's "
           "device slabs)\n",
           n, f);
    printf("  %10s %14s %14s %14s\n", "size", "dependent", "independent", "exportable");
    static const VkDeviceSize sizes[] = {4u << 10, 64u << 10, 1u << 20, 16u << 20, 64u << 20};
    for (int s = 0; s < 5; s++) {
        double dep = dispatch_loop(d, q, cp, pipe, pl, qp, period, x, sizes[s], n, 1);
        double ind = dispatch_loop(d, q, cp, pipe, pl, qp, period, x, sizes[s], n, 0);
        double ex = xx ? dispatch_loop(d, q, cp, pipe, pl, qp, period, xx, sizes[s], n, 1) : 0;
        printf("  %9lluK %14.2f %14.2f %14.2f\n", (unsigned long long)(sizes[s] >> 10), dep,
               ind, ex);
        printf("metric vk_fill.kernel.%lluK.dependent_us %g\n",
               (unsigned long long)(sizes[s] >> 10), dep);
        printf("metric vk_fill.kernel.%lluK.independent_us %g\n",
               (unsigned long long)(sizes[s] >> 10), ind);
        if (xx)
            printf("metric vk_fill.kernel.%lluK.exportable_us %g\n",
                   (unsigned long long)(sizes[s] >> 10), ex);
    }
    vkDestroyCommandPool(d, cp, NULL);
    vkDestroyQueryPool(d, qp, NULL);
    vkDestroyPipeline(d, pipe, NULL);
    vkDestroyPipelineLayout(d, pl, NULL);
    vkDestroyShaderModule(d, sm, NULL);
}
#endif

static const char *kind(VkQueueFlags f)
{
    return f & VK_QUEUE_GRAPHICS_BIT ? "graphics" : f & VK_QUEUE_COMPUTE_BIT ? "compute"
                                                                              : "copy";
}

int main(int argc, char **argv)
{
    VkApplicationInfo ai = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                            .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &ai};
    VkInstance inst;
    if (vkCreateInstance(&ici, NULL, &inst) != VK_SUCCESS) {
        fprintf(stderr, "vk-fill: no Vulkan instance\n");
        return 77;
    }
    uint32_t n = 8, want = argc > 1 ? (uint32_t)atoi(argv[1]) : 0;
    VkPhysicalDevice pd[8];
    if (vkEnumeratePhysicalDevices(inst, &n, pd) < 0 || want >= n) {
        fprintf(stderr, "vk-fill: no device %u\n", want);
        return 77;
    }
    VkPhysicalDevice p = pd[want];
    VkPhysicalDeviceProperties pp;
    vkGetPhysicalDeviceProperties(p, &pp);
    uint32_t nf = 16;
    VkQueueFamilyProperties qf[16];
    vkGetPhysicalDeviceQueueFamilyProperties(p, &nf, qf);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci[16];
    for (uint32_t i = 0; i < nf; i++)
        qci[i] = (VkDeviceQueueCreateInfo){.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                           .queueFamilyIndex = i,
                                           .queueCount = 1,
                                           .pQueuePriorities = &prio};
    /* Buffer device addresses for the kernel loop, where the device has them. */
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &f12};
    int bda = 0;
    if (pp.apiVersion >= VK_API_VERSION_1_2) {
        vkGetPhysicalDeviceFeatures2(p, &f2);
        bda = f12.bufferDeviceAddress && f2.features.shaderInt64;
    }
    VkPhysicalDeviceVulkan12Features want12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .bufferDeviceAddress = VK_TRUE};
    VkPhysicalDeviceFeatures2 want2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                       .pNext = &want12,
                                       .features = {.shaderInt64 = VK_TRUE}};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .pNext = bda ? &want2 : NULL,
                              .queueCreateInfoCount = nf,
                              .pQueueCreateInfos = qci};
    VkDevice d;
    CHECK_VK(vkCreateDevice(p, &dci, NULL, &d));
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(p, &mp);
    const VkDeviceSize max = 64u << 20;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = max,
                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       (bda ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT
                                            : 0)};
    VkBuffer b;
    CHECK_VK(vkCreateBuffer(d, &bci, NULL, &b));
    VkMemoryRequirements mr;
    vkGetBufferMemoryRequirements(d, b, &mr);
    uint32_t t = 0;
    while (t < mp.memoryTypeCount &&
           !((mr.memoryTypeBits & (1u << t)) &&
             (mp.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)))
        t++;
    if (t == mp.memoryTypeCount) {
        fprintf(stderr, "vk-fill: no device-local memory for a buffer\n");
        return 77;
    }
    VkMemoryAllocateFlagsInfo mfi = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                     .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .pNext = bda ? &mfi : NULL,
                                .allocationSize = mr.size,
                                .memoryTypeIndex = t};
    VkDeviceMemory m;
    CHECK_VK(vkAllocateMemory(d, &mai, NULL, &m));
    CHECK_VK(vkBindBufferMemory(d, b, m, 0));
    printf("vk-fill: %s, vkCmdFillBuffer of device memory per queue family\n", pp.deviceName);
    for (uint32_t f = 0; f < nf; f++) {
        if (!(qf[f].queueFlags & (VK_QUEUE_TRANSFER_BIT | VK_QUEUE_COMPUTE_BIT |
                                  VK_QUEUE_GRAPHICS_BIT)))
            continue;
        VkQueue q;
        vkGetDeviceQueue(d, f, 0, &q);
        VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                       .queueFamilyIndex = f};
        VkCommandPool cp;
        CHECK_VK(vkCreateCommandPool(d, &cpi, NULL, &cp));
        VkCommandBufferAllocateInfo cai = one_buffer(cp);
        VkFence fe = new_fence(d);
        static const VkDeviceSize sizes[] = {2u << 20, 16u << 20, 64u << 20};
        for (int s = 0; s < 3; s++) {
            double best = 1e30;
            for (int r = 0; r < 7; r++) {
                VkCommandBuffer cb;
                CHECK_VK(vkAllocateCommandBuffers(d, &cai, &cb));
                VkCommandBufferBeginInfo bi = {
                    .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                    .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
                vkBeginCommandBuffer(cb, &bi);
                vkCmdFillBuffer(cb, b, 0, sizes[s], 0);
                vkEndCommandBuffer(cb);
                VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                                   .commandBufferCount = 1,
                                   .pCommandBuffers = &cb};
                double t0 = now_us();
                CHECK_VK(vkQueueSubmit(q, 1, &si, fe));
                while (vkGetFenceStatus(d, fe) == VK_NOT_READY)
                    ;
                double us = now_us() - t0;
                vkResetFences(d, 1, &fe);
                vkFreeCommandBuffers(d, cp, 1, &cb);
                if (r && us < best) /* the first is untimed */
                    best = us;
            }
            printf("  family %u (%-8s flags 0x%03x) %3llu MiB: %8.1f us %8.1f GB/s\n", f,
                   kind(qf[f].queueFlags), (unsigned)qf[f].queueFlags,
                   (unsigned long long)(sizes[s] >> 20), best, (double)sizes[s] / best / 1e3);
            printf("metric vk_fill.family%u_%s.%lluM_gbs %g\n", f, kind(qf[f].queueFlags),
                   (unsigned long long)(sizes[s] >> 20), (double)sizes[s] / best / 1e3);
        }
        vkDestroyFence(d, fe, NULL);
        vkDestroyCommandPool(d, cp, NULL);
    }
#ifdef VK_FILL_KERNEL
    /* The same size exportable, as uvas's slabs are (uvas/devtier.c): a
     * driver may lay out such memory differently. */
    VkBuffer bx = VK_NULL_HANDLE;
    VkDeviceMemory mx = VK_NULL_HANDLE;
    if (bda) {
        VkExternalMemoryBufferCreateInfo ebi = {
            .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
            .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
        VkBufferCreateInfo xci = bci;
        xci.pNext = &ebi;
        if (vkCreateBuffer(d, &xci, NULL, &bx) == VK_SUCCESS) {
            VkExportMemoryAllocateInfo exp = {
                .sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                .pNext = &mfi,
                .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
            VkMemoryDedicatedAllocateInfo ded = {
                .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
                .pNext = &exp,
                .buffer = bx};
            VkMemoryAllocateInfo xai = mai;
            xai.pNext = &ded;
            if (vkAllocateMemory(d, &xai, NULL, &mx) != VK_SUCCESS ||
                vkBindBufferMemory(d, bx, mx, 0) != VK_SUCCESS) {
                vkDestroyBuffer(d, bx, NULL);
                bx = VK_NULL_HANDLE;
            }
        } else {
            bx = VK_NULL_HANDLE;
        }
    }
    if (bda)
        kernel_loops(d, qf, nf, b, bx, pp.limits.timestampPeriod);
    if (bx) {
        vkDestroyBuffer(d, bx, NULL);
        vkFreeMemory(d, mx, NULL);
    }
    else
        printf("vk-fill: no buffer device addresses on this device: no kernel loop\n");
#endif
    vkDestroyBuffer(d, b, NULL);
    vkFreeMemory(d, m, NULL);
    vkDestroyDevice(d, NULL);
    vkDestroyInstance(inst, NULL);
    return 0;
}
