/*
 * vk-fill: how fast each queue family of the device fills device memory
 * (vkCmdFillBuffer of 2, 16 and 64 MiB, best of 6 after one untimed, the
 * fence polled). Why uvas's zero fills of freshly placed blocks go to a
 * queue of the kernels' family where it has one (docs/migration.md): on
 * the H100 a copy-engine family fills at about 100 GB/s, a compute family
 * at 1-2 TB/s. Plain Vulkan, no uvas. usage: vk-fill [device index]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vulkan/vulkan.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

#define CHECK_VK(x)                                                                      \
    do {                                                                                 \
        VkResult r_ = (x);                                                               \
        if (r_ != VK_SUCCESS) {                                                          \
            fprintf(stderr, "vk-fill: %s failed (VkResult %d)\n", #x, r_);               \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

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
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = nf,
                              .pQueueCreateInfos = qci};
    VkDevice d;
    CHECK_VK(vkCreateDevice(p, &dci, NULL, &d));
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(p, &mp);
    const VkDeviceSize max = 64u << 20;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = max,
                              .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT};
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
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
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
        VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                           .commandPool = cp,
                                           .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                           .commandBufferCount = 1};
        VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VkFence fe;
        CHECK_VK(vkCreateFence(d, &fci, NULL, &fe));
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
    vkDestroyBuffer(d, b, NULL);
    vkFreeMemory(d, m, NULL);
    vkDestroyDevice(d, NULL);
    vkDestroyInstance(inst, NULL);
    return 0;
}
