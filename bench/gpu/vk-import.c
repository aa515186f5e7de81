/*
 * vk-import: what importing host pages costs (VK_EXT_external_memory_host,
 * as migrate/import.c does; the driver pins them), against copying them.
 * A first migration of memory the CPU filled imports its pages before its
 * copies can start (bench/results/h200-ab/stages-cold-5d33c6e.txt: 256 MiB
 * to the GPU in 68 ms, 4 ms of every 16 MiB stage's submission spent
 * importing, where later ones take 5.7 ms). Does the import scale with
 * threads, with the chunk's size, on a second import of the same pages,
 * without buffer device addresses; and how fast do threads copy the same
 * bytes into memory imported already (a staging copy's CPU half)? And
 * as uvas does it: the pages written through one mapping, imported
 * through another (the controller's alias), with and without that
 * mapping's page-table entries made first (MADV_POPULATE_WRITE).
 * Plain Vulkan, no uvas. Memory: a memfd of SIZE MiB mapped shared (as
 * uvas's host tier is), filled before each measurement, untimed.
 * usage: vk-import [MiB, default 1024] [device index]
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include "vk-util.h"

#define MAXT 16 /* threads at most */
#define MAXCHUNKS 4096

static VkDevice dev;
static PFN_vkGetMemoryHostPointerPropertiesEXT host_props;
static bool have_bda;
static size_t total;
static char *host;   /* the memfd's shared mapping the imports are of */
static char *writer; /* where the CPU writes the pages: host, or a second mapping */
static int memfd;

struct chunk {
    VkBuffer buf;
    VkDeviceMemory mem;
};
static struct chunk chunks[MAXCHUNKS];

struct job {
    size_t chunk, first, n;
    bool bda;
    char *dst; /* copy jobs */
};

static void import_one(size_t i, size_t chunk, bool bda)
{
    const VkExternalMemoryHandleTypeFlagBits ht =
        VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    void *p = host + i * chunk;
    VkMemoryHostPointerPropertiesEXT props = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    CHECK_VK(host_props(dev, ht, p, &props));
    VkExternalMemoryBufferCreateInfo ebi = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO, .handleTypes = ht};
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .pNext = &ebi,
                              .size = chunk,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       (bda ? VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT : 0)};
    CHECK_VK(vkCreateBuffer(dev, &bci, NULL, &chunks[i].buf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, chunks[i].buf, &req);
    uint32_t bits = props.memoryTypeBits & req.memoryTypeBits;
    if (!bits) {
        fprintf(stderr, "vk-import: no memory type fits imported host memory\n");
        exit(1);
    }
    VkImportMemoryHostPointerInfoEXT imp = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
        .handleType = ht,
        .pHostPointer = p};
    VkMemoryAllocateFlagsInfo fi = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                    .pNext = &imp,
                                    .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .pNext = bda ? (void *)&fi : (void *)&imp,
                                .allocationSize = chunk,
                                .memoryTypeIndex = (uint32_t)__builtin_ctz(bits)};
    CHECK_VK(vkAllocateMemory(dev, &mai, NULL, &chunks[i].mem));
    CHECK_VK(vkBindBufferMemory(dev, chunks[i].buf, chunks[i].mem, 0));
}

static void *import_job(void *arg)
{
    struct job *j = arg;
    for (size_t i = j->first; i < j->first + j->n; i++)
        import_one(i, j->chunk, j->bda);
    return NULL;
}

static void *free_job(void *arg)
{
    struct job *j = arg;
    for (size_t i = j->first; i < j->first + j->n; i++) {
        vkDestroyBuffer(dev, chunks[i].buf, NULL);
        vkFreeMemory(dev, chunks[i].mem, NULL);
    }
    return NULL;
}

static void *copy_job(void *arg)
{
    struct job *j = arg;
    memcpy(j->dst + j->first * j->chunk, host + j->first * j->chunk, j->n * j->chunk);
    return NULL;
}

/* Run fn over the chunks on t threads; seconds. */
static double on_threads(void *(*fn)(void *), int t, size_t chunk, bool bda, char *dst)
{
    size_t n = total / chunk;
    pthread_t th[MAXT];
    struct job jobs[MAXT];
    double t0 = now_us();
    for (int k = 0; k < t; k++) {
        size_t first = n * (size_t)k / (size_t)t, last = n * (size_t)(k + 1) / (size_t)t;
        jobs[k] = (struct job){chunk, first, last - first, bda, dst};
        if (pthread_create(&th[k], NULL, fn, &jobs[k])) {
            perror("pthread_create");
            exit(1);
        }
    }
    for (int k = 0; k < t; k++)
        pthread_join(th[k], NULL);
    return (now_us() - t0) / 1e6;
}

/* Fresh pages: the old ones punched, new ones faulted in and written. */
static void refill(void)
{
    if (fallocate(memfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)total)) {
        perror("fallocate");
        exit(1);
    }
    memset(writer, 0x5a, total);
}

static void import_row(const char *what, int t, size_t chunk, bool bda, bool fresh)
{
    if (total / chunk > MAXCHUNKS) {
        printf("  %-28s %zu MiB chunks: more than %d of them, not measured\n", what,
               chunk >> 20, MAXCHUNKS);
        return;
    }
    if (fresh)
        refill();
    double imp = on_threads(import_job, t, chunk, bda, NULL);
    double fr = on_threads(free_job, t, chunk, bda, NULL);
    printf("  %-28s %2d thread%s, %4zu MiB chunks: import %7.2f GB/s (%6.1f ms), free %7.2f GB/s\n",
           what, t, t == 1 ? " " : "s", chunk >> 20, (double)total / imp / 1e9, imp * 1e3,
           (double)total / fr / 1e9);
    printf("metric import.%s.t%d.c%zu_gbs %.4g\n", what, t, chunk >> 20,
           (double)total / imp / 1e9);
}

int main(int argc, char **argv)
{
    total = (size_t)(argc > 1 ? atoi(argv[1]) : 1024) << 20;
    VkInstance inst;
    VkPhysicalDevice pd = bench_vk_device(argc > 2 ? (uint32_t)atoi(argv[2]) : 0, &inst);
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(pd, &props);
    float prio = 1;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = 0,
                                   .queueCount = 1,
                                   .pQueuePriorities = &prio};
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &f12};
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    have_bda = f12.bufferDeviceAddress;
    VkPhysicalDeviceVulkan12Features on12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .bufferDeviceAddress = have_bda};
    const char *ext[] = {VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .pNext = &on12,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = 1,
                              .ppEnabledExtensionNames = ext};
    CHECK_VK(vkCreateDevice(pd, &dci, NULL, &dev));
    host_props = (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
        dev, "vkGetMemoryHostPointerPropertiesEXT");
    if (!host_props) {
        fprintf(stderr, "vk-import: no VK_EXT_external_memory_host\n");
        return 1;
    }
    memfd = memfd_create("vk-import", MFD_CLOEXEC);
    if (memfd < 0 || ftruncate(memfd, (off_t)total)) {
        perror("memfd");
        return 1;
    }
    host = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (host == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    printf("vk-import: %s, %zu MiB of a memfd's shared mapping, buffer device addresses %s\n",
           props.deviceName, total >> 20, have_bda ? "on" : "not offered");
    const size_t M = 1 << 20;
    writer = host;
    import_row("fresh", 1, 16 * M, have_bda, true);
    import_row("same-pages-again", 1, 16 * M, have_bda, false);
    import_row("fresh-no-address", 1, 16 * M, false, true);
    import_row("fresh", 1, 2 * M, have_bda, true);
    import_row("fresh", 1, 64 * M, have_bda, true);
    int ts[] = {2, 4, 8};
    for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++)
        import_row("fresh", ts[k], 16 * M, have_bda, true);
    /* As uvas does: the CPU writes through one mapping of the memfd (the
     * program's), the imports are of another (the controller's alias),
     * whose page-table entries do not exist yet: the pinning faults each
     * page in there. Then with those entries made first, in one call. */
    writer = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (writer == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    import_row("alias", 1, 16 * M, have_bda, true);
    import_row("alias-no-address", 1, 16 * M, false, true);
    for (int k = 0; k < 2; k++) {
        refill();
        munmap(host, total); /* no entries left in the alias */
        host = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
        double t0 = now_us();
        if (madvise(host, total, MADV_POPULATE_WRITE)) {
            perror("madvise(MADV_POPULATE_WRITE)");
            break;
        }
        double pop = (now_us() - t0) / 1e6;
        printf("  %-28s MADV_POPULATE_WRITE of the alias: %7.2f GB/s (%6.1f ms)\n", "alias",
               (double)total / pop / 1e9, pop * 1e3);
        printf("metric import.populate_gbs %.4g\n", (double)total / pop / 1e9);
        import_row(k ? "alias-populated-no-address" : "alias-populated", 1, 16 * M, k ? false
                   : have_bda, false);
    }
    writer = host;
    /* The CPU half of a staging copy: the filled pages into memory that
     * stays imported (here plain memory the threads touched before). */
    char *dst = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (dst == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    memset(dst, 1, total);
    int cts[] = {1, 2, 4, 8, 16};
    for (size_t k = 0; k < sizeof cts / sizeof cts[0]; k++) {
        refill();
        double s = on_threads(copy_job, cts[k], 16 * M, false, dst);
        printf("  %-28s %2d thread%s: %7.2f GB/s\n", "memcpy into pinned", cts[k],
               cts[k] == 1 ? " " : "s", (double)total / s / 1e9);
        printf("metric import.memcpy.t%d_gbs %.4g\n", cts[k], (double)total / s / 1e9);
    }
    /* The same read through a mapping with no page-table entries yet (a
     * staging copy reads the controller's alias of pages the program
     * wrote through its own). */
    writer = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (writer == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    for (size_t k = 0; k < sizeof cts / sizeof cts[0]; k++) {
        refill();
        munmap(host, total);
        host = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
        double s = on_threads(copy_job, cts[k], 16 * M, false, dst);
        printf("  %-28s %2d thread%s: %7.2f GB/s\n", "memcpy from a fresh alias", cts[k],
               cts[k] == 1 ? " " : "s", (double)total / s / 1e9);
        printf("metric import.memcpy_alias.t%d_gbs %.4g\n", cts[k], (double)total / s / 1e9);
    }
    vkDestroyDevice(dev, NULL);
    vkDestroyInstance(inst, NULL);
    return 0;
}
