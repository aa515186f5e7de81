/*
 * vk-export-flags: does the driver's vkGetMemoryFdKHR hand back a
 * descriptor that is close-on-exec from its birth? uvas marks the slabs'
 * descriptors close-on-exec after the call (uvas/devtier.c); a fork and
 * exec by another thread in between inherits the descriptor, and with it
 * the device memory, wherever the driver did not set the flag itself
 * (docs/reliability.md). Plain Vulkan, no uvas: for each external handle
 * type the device exports (opaque fd, dma-buf), one exportable allocation
 * of 2 MiB and the flags of the descriptor the driver gave.
 * Also: how many other descriptors the call left open (a driver that opens
 * its own files in the call could not export from a thread with a private
 * descriptor table, which would close the window on every driver).
 * Prints one line per handle type:
 *   export <type> cloexec <yes|no> others <n>   (or: export <type> unsupported)
 * usage: vk-export-flags [device index]
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include "vk-util.h"

/* Descriptors open now. */
static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) {
        perror("vk-export-flags: /proc/self/fd");
        exit(1);
    }
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own */
}

static char line[64];

static const char *try_export(VkPhysicalDevice pd, VkDevice dev, PFN_vkGetMemoryFdKHR get_fd,
                              VkExternalMemoryHandleTypeFlagBits ht)
{
    VkPhysicalDeviceExternalBufferInfo q = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
        .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        .handleType = ht};
    VkExternalBufferProperties p = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(pd, &q, &p);
    if (!(p.externalMemoryProperties.externalMemoryFeatures &
          VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT))
        return "unsupported";
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++)
        if (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)
            type = i;
    if (type == UINT32_MAX)
        type = 0;
    VkExportMemoryAllocateInfo exp = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                      .handleTypes = ht};
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .pNext = &exp,
                               .allocationSize = 2u << 20,
                               .memoryTypeIndex = type};
    VkDeviceMemory mem;
    CHECK_VK(vkAllocateMemory(dev, &ai, NULL, &mem));
    VkMemoryGetFdInfoKHR gfi = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
                                .memory = mem,
                                .handleType = ht};
    int fd = -1, before = open_fds();
    CHECK_VK(get_fd(dev, &gfi, &fd));
    int others = open_fds() - before - 1;
    int f = fcntl(fd, F_GETFD);
    if (f < 0) {
        perror("vk-export-flags: fcntl(F_GETFD) of the exported descriptor");
        exit(1);
    }
    close(fd);
    vkFreeMemory(dev, mem, NULL);
    snprintf(line, sizeof line, "cloexec %s others %d", (f & FD_CLOEXEC) ? "yes" : "no", others);
    return line;
}

int main(int argc, char **argv)
{
    VkInstance inst;
    VkPhysicalDevice pd = bench_vk_device(argc > 1 ? (uint32_t)atoi(argv[1]) : 0, &inst);
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(pd, &props);
    float prio = 1;
    VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                  .queueCount = 1,
                                  .pQueuePriorities = &prio};
    const char *ext[2] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                          VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME};
    uint32_t next = 1, n = 0;
    vkEnumerateDeviceExtensionProperties(pd, NULL, &n, NULL);
    VkExtensionProperties *ep = calloc(n ? n : 1, sizeof *ep);
    vkEnumerateDeviceExtensionProperties(pd, NULL, &n, ep);
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(ep[i].extensionName, ext[1]))
            next = 2;
    free(ep);
    VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .queueCreateInfoCount = 1,
                             .pQueueCreateInfos = &qi,
                             .enabledExtensionCount = next,
                             .ppEnabledExtensionNames = ext};
    VkDevice dev;
    CHECK_VK(vkCreateDevice(pd, &di, NULL, &dev));
    PFN_vkGetMemoryFdKHR get_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(dev, "vkGetMemoryFdKHR");
    if (!get_fd) {
        fprintf(stderr, "vk-export-flags: %s has no vkGetMemoryFdKHR\n", props.deviceName);
        return 1;
    }
    printf("device %s (driver version %u)\n", props.deviceName, props.driverVersion);
    for (int k = 0; k < 2; k++) /* the first call may open what later ones reuse */
        printf("export opaque_fd %s\n",
               try_export(pd, dev, get_fd, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT));
    printf("export dma_buf %s\n",
           next == 2 ? try_export(pd, dev, get_fd, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT)
                     : "unsupported");
    vkDestroyDevice(dev, NULL);
    vkDestroyInstance(inst, NULL);
    return 0;
}
