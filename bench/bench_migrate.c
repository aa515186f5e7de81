/*
 * Migration throughput: uvas_migrate of N bytes to the device and back,
 * beside the same bytes copied with a bare vkCmdCopyBuffer between
 * imported host memory and device memory on the same device (the floor
 * uvas's protocol adds to), alternating the two within each repetition.
 * Then fault-driven migration: the CPU touching device-resident blocks.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include "bench.h"
#include "uvas.h"

struct raw {
    VkInstance inst;
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue q, q2; /* q2: a second queue of the copy family, or NULL */
    uint32_t qfam;
    VkCommandPool pool;
    VkFence fence, fence2;
    VkBuffer hbuf, dbuf;
    VkDeviceMemory hmem, dmem;
    void *host;
};

#define VKCHECK(x)                                                                        \
    do {                                                                                  \
        VkResult r_ = (x);                                                                \
        if (r_ != VK_SUCCESS) {                                                           \
            fprintf(stderr, "migrate: %s failed (VkResult %d)\n", #x, r_);                \
            return -1;                                                                    \
        }                                                                                 \
    } while (0)

/* The same physical device as uvas's tier, found by name. */
static int raw_open(struct raw *w, const char *name, size_t len)
{
    memset(w, 0, sizeof *w);
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app};
    VKCHECK(vkCreateInstance(&ici, NULL, &w->inst));
    uint32_t n = 16;
    VkPhysicalDevice ph[16];
    vkEnumeratePhysicalDevices(w->inst, &n, ph);
    for (uint32_t i = 0; i < n && !w->phys; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(ph[i], &p);
        if (!strcmp(p.deviceName, name))
            w->phys = ph[i];
    }
    if (!w->phys) {
        fprintf(stderr, "migrate: device '%s' not found\n", name);
        return -1;
    }
    uint32_t nq = 16;
    VkQueueFamilyProperties qf[16];
    vkGetPhysicalDeviceQueueFamilyProperties(w->phys, &nq, qf);
    w->qfam = 0;
    for (uint32_t i = 0; i < nq; i++) /* the copy engine, as uvas picks it */
        if ((qf[i].queueFlags & VK_QUEUE_TRANSFER_BIT) &&
            !(qf[i].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT))) {
            w->qfam = i;
            break;
        }
    float prio[2] = {1, 1};
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = w->qfam,
                                   .queueCount = qf[w->qfam].queueCount >= 2 ? 2 : 1,
                                   .pQueuePriorities = prio};
    const char *ext[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                         VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = 2,
                              .ppEnabledExtensionNames = ext};
    VKCHECK(vkCreateDevice(w->phys, &dci, NULL, &w->dev));
    vkGetDeviceQueue(w->dev, w->qfam, 0, &w->q);
    if (qci.queueCount == 2)
        vkGetDeviceQueue(w->dev, w->qfam, 1, &w->q2);

    /* device buffer */
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = len,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VKCHECK(vkCreateBuffer(w->dev, &bci, NULL, &w->dbuf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(w->dev, w->dbuf, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(w->phys, &mp);
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) &&
            (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
            type = i;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .allocationSize = req.size,
                                .memoryTypeIndex = type};
    VKCHECK(vkAllocateMemory(w->dev, &mai, NULL, &w->dmem));
    VKCHECK(vkBindBufferMemory(w->dev, w->dbuf, w->dmem, 0));

    /* imported host buffer over ordinary page-aligned memory */
    w->host = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (w->host == MAP_FAILED)
        return -1;
    memset(w->host, 0x5a, len);
    PFN_vkGetMemoryHostPointerPropertiesEXT hpp =
        (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
            w->dev, "vkGetMemoryHostPointerPropertiesEXT");
    VkMemoryHostPointerPropertiesEXT hp = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    VKCHECK(hpp(w->dev, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT, w->host, &hp));
    VkExternalMemoryBufferCreateInfo ebi = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
        .handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT};
    bci.pNext = &ebi;
    VKCHECK(vkCreateBuffer(w->dev, &bci, NULL, &w->hbuf));
    vkGetBufferMemoryRequirements(w->dev, w->hbuf, &req);
    VkImportMemoryHostPointerInfoEXT imp = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
        .handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
        .pHostPointer = w->host};
    mai = (VkMemoryAllocateInfo){.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                 .pNext = &imp,
                                 .allocationSize = len,
                                 .memoryTypeIndex = (uint32_t)__builtin_ctz(
                                     hp.memoryTypeBits & req.memoryTypeBits)};
    VKCHECK(vkAllocateMemory(w->dev, &mai, NULL, &w->hmem));
    VKCHECK(vkBindBufferMemory(w->dev, w->hbuf, w->hmem, 0));

    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .queueFamilyIndex = w->qfam};
    VKCHECK(vkCreateCommandPool(w->dev, &pci, NULL, &w->pool));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VKCHECK(vkCreateFence(w->dev, &fci, NULL, &w->fence));
    VKCHECK(vkCreateFence(w->dev, &fci, NULL, &w->fence2));
    return 0;
}

static VkCommandBuffer raw_record(struct raw *w, bool to_device, size_t off, size_t len)
{
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = w->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VkCommandBuffer cb;
    vkAllocateCommandBuffers(w->dev, &ai, &cb);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkBeginCommandBuffer(cb, &bi);
    VkBufferCopy r = {off, off, len};
    vkCmdCopyBuffer(cb, to_device ? w->hbuf : w->dbuf, to_device ? w->dbuf : w->hbuf, 1, &r);
    vkEndCommandBuffer(cb);
    return cb;
}

static void raw_submit(VkQueue q, VkCommandBuffer cb, VkFence f)
{
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &cb};
    vkQueueSubmit(q, 1, &si, f);
}

/* One copy of len bytes, recorded, submitted and waited for: ns. halves:
 * split in two over the family's two queues (the hardware's reach with
 * both copy engines; 0 when there is one queue). */
static double raw_copy_q(struct raw *w, bool to_device, size_t len, bool halves)
{
    if (halves && !w->q2)
        return 0;
    uint64_t t0 = bench_now_ns();
    size_t h = halves ? len / 2 : len;
    VkCommandBuffer cb = raw_record(w, to_device, 0, h), cb2 = VK_NULL_HANDLE;
    raw_submit(w->q, cb, w->fence);
    if (halves) {
        cb2 = raw_record(w, to_device, h, len - h);
        raw_submit(w->q2, cb2, w->fence2);
    }
    VkFence f[2] = {w->fence, w->fence2};
    vkWaitForFences(w->dev, halves ? 2 : 1, f, VK_TRUE, UINT64_MAX);
    double ns = (double)(bench_now_ns() - t0);
    vkResetFences(w->dev, halves ? 2 : 1, f);
    vkFreeCommandBuffers(w->dev, w->pool, 1, &cb);
    if (cb2)
        vkFreeCommandBuffers(w->dev, w->pool, 1, &cb2);
    return ns;
}

static double raw_copy(struct raw *w, bool to_device, size_t len)
{
    return raw_copy_q(w, to_device, len, false);
}

static void raw_close(struct raw *w, size_t len)
{
    if (!w->dev)
        return;
    vkDeviceWaitIdle(w->dev);
    vkDestroyFence(w->dev, w->fence, NULL);
    vkDestroyFence(w->dev, w->fence2, NULL);
    vkDestroyCommandPool(w->dev, w->pool, NULL);
    vkDestroyBuffer(w->dev, w->hbuf, NULL);
    vkDestroyBuffer(w->dev, w->dbuf, NULL);
    vkFreeMemory(w->dev, w->hmem, NULL);
    vkFreeMemory(w->dev, w->dmem, NULL);
    munmap(w->host, len);
    vkDestroyDevice(w->dev, NULL);
    vkDestroyInstance(w->inst, NULL);
}

static double gbps(size_t bytes, double ns)
{
    return (double)bytes / ns;
}

static double time_migrate(void *p, size_t len, int to)
{
    uint64_t t0 = bench_now_ns();
    if (uvas_migrate(p, len, to, 0)) {
        fprintf(stderr, "migrate: uvas_migrate: %s\n", uvas_last_error());
        exit(1);
    }
    return (double)(bench_now_ns() - t0);
}

/* Where uvas_migrate's wall time went between two snapshots. */
static void print_split(size_t len, const char *what, const struct uvas_stats *a,
                        const struct uvas_stats *b)
{
    double tot = (double)(b->migrate_ns_total - a->migrate_ns_total);
    double c = (double)(b->migrate_ns_copy - a->migrate_ns_copy);
    double im = (double)(b->migrate_ns_import - a->migrate_ns_import);
    double mp = (double)(b->migrate_ns_map - a->migrate_ns_map);
    if (tot <= 0)
        return;
    printf("  %8zu KiB  uvas migration time, %s: copy %.0f%%, import %.0f%%, page "
           "tables %.0f%%, other %.0f%%\n", len >> 10, what, 100 * c / tot, 100 * im / tot,
           100 * mp / tot, 100 * (tot - c - im - mp) / tot);
}

static void size_tag(char *out, size_t n, size_t len)
{
    if (len >= ((size_t)1 << 30) && !(len & (((size_t)1 << 30) - 1)))
        snprintf(out, n, "%zuG", len >> 30);
    else
        snprintf(out, n, "%zuM", len >> 20);
}

/* The metrics' prefix: "migrate", or "migrate_huge" over huge pages. */
static const char *mprefix = "migrate";

static void bench_metric2(const char *prefix, const char *fmt, double v, const char *tag)
{
    char name[96];
    snprintf(name, sizeof name, "%s.%s", prefix, fmt);
    bench_metric(name, v, tag);
}

#define SMALL_SIZE ((size_t)16 << 20)
#define SMALL_REPS 10

/* One size: returns the ratio of the medians (uvas throughput / raw).
 * *base: the statistics after the last size (the time split is per size). */
static double run_size(struct raw *w, size_t len, int reps, size_t block,
                       struct uvas_stats *base)
{
    /* A migration of a few MiB takes a tenth of a millisecond, short
     * enough for a virtual machine's hiccups to move a median of a few
     * reps from one run to the next (docs/performance.md): small sizes
     * take ten times the reps, which costs milliseconds. */
    if (len <= SMALL_SIZE)
        reps *= SMALL_REPS;
    char *p = uvas_malloc(len);
    if (!p) {
        fprintf(stderr, "migrate: uvas_malloc(%zu): %s\n", len, uvas_last_error());
        exit(1);
    }
    /* The CPU's first touch of every page, as bench/cuda/um-bench.cu's of
     * managed memory: with the first migration below, what a program that
     * writes memory and moves it pays end to end (CUDA's managed pages are
     * its driver's from that touch on, so its prefetch is a bare DMA). */
    uint64_t tw = bench_now_ns();
    for (size_t i = 0; i < len; i += 4096)
        p[i] = (char)i;
    double write_ns = (double)(bench_now_ns() - tw);
    double *ud = calloc((size_t)reps, sizeof(double)), *uh = calloc((size_t)reps, sizeof(double));
    double *rd = calloc((size_t)reps, sizeof(double)), *rh = calloc((size_t)reps, sizeof(double));
    double *r2d = calloc((size_t)reps, sizeof(double)), *r2h = calloc((size_t)reps, sizeof(double));
    /* The first migration of pages the CPU just wrote imports them (the
     * driver pins them) before its copies: what a program moving fresh
     * data once sees, and what CUDA's prefetch of freshly written managed
     * memory is measured as (bench/cuda/um-bench.cu). Kept out of the
     * medians below, reported apart. */
    double first_d = time_migrate(p, len, UVAS_LOC_DEVICE);
    double first_h = time_migrate(p, len, UVAS_LOC_HOST);
    /* Where those went through staging memory, the pinner imports the
     * pages in the gaps between migrations: let it finish before timing,
     * so that neither side's copies meet its imports in the driver. */
    for (int waited = 0; waited < 1000; waited++) {
        struct uvas_stats st;
        uvas_stats_get(&st);
        if (!st.pin_pending)
            break;
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    raw_copy(w, true, len);
    raw_copy(w, false, len);
    struct uvas_stats s0, s1, s2;
    uvas_stats_get(&s0);
    for (int r = 0; r < reps; r++) {
        if (r % 2) {
            ud[r] = time_migrate(p, len, UVAS_LOC_DEVICE);
            uh[r] = time_migrate(p, len, UVAS_LOC_HOST);
            rd[r] = raw_copy(w, true, len);
            rh[r] = raw_copy(w, false, len);
        } else {
            rd[r] = raw_copy(w, true, len);
            rh[r] = raw_copy(w, false, len);
            ud[r] = time_migrate(p, len, UVAS_LOC_DEVICE);
            uh[r] = time_migrate(p, len, UVAS_LOC_HOST);
        }
        r2d[r] = raw_copy_q(w, true, len, true);
        r2h[r] = raw_copy_q(w, false, len, true);
    }
    uvas_stats_get(&s1);
    for (size_t i = 0; i < len; i += 4096)
        if (p[i] != (char)i) {
            fprintf(stderr, "migrate: data changed at offset %zu\n", i);
            exit(1);
        }
    double mud = bench_median(ud, reps), muh = bench_median(uh, reps);
    double mrd = bench_median(rd, reps), mrh = bench_median(rh, reps);
    printf("  %8zu KiB  to device: uvas %6.2f GB/s  raw %6.2f GB/s   to host: uvas %6.2f GB/s  "
           "raw %6.2f GB/s\n", len >> 10, gbps(len, mud), gbps(len, mrd), gbps(len, muh),
           gbps(len, mrh));
    char tag[32];
    size_tag(tag, sizeof tag, len);
    bench_metric2(mprefix, "%s.to_device.uvas_gbs", gbps(len, mud), tag);
    bench_metric2(mprefix, "%s.to_device.raw_gbs", gbps(len, mrd), tag);
    bench_metric2(mprefix, "%s.to_host.uvas_gbs", gbps(len, muh), tag);
    bench_metric2(mprefix, "%s.to_host.raw_gbs", gbps(len, mrh), tag);
    printf("  %8zu KiB  first migration of freshly written pages: to device %6.2f GB/s, back "
           "%6.2f GB/s\n", len >> 10, gbps(len, first_d), gbps(len, first_h));
    bench_metric2(mprefix, "%s.first_to_device.uvas_gbs", gbps(len, first_d), tag);
    bench_metric2(mprefix, "%s.first_to_host.uvas_gbs", gbps(len, first_h), tag);
    printf("  %8zu KiB  written by the CPU, then moved to device: %6.2f GB/s end to end\n",
           len >> 10, gbps(len, write_ns + first_d));
    bench_metric2(mprefix, "%s.write_then_device.uvas_gbs", gbps(len, write_ns + first_d), tag);
    /* The first rep's is the range's second migration to the device: the
     * first unmapping of pages a return mapped, which the kernel's LRU
     * once made twice as dear (docs/migration.md); the median hides it. */
    printf("  %8zu KiB  second migration to device: %6.2f GB/s\n", len >> 10, gbps(len, ud[0]));
    bench_metric2(mprefix, "%s.second_to_device.uvas_gbs", gbps(len, ud[0]), tag);
    if (w->q2) { /* the hardware's reach: bare copies split over both copy queues */
        double m2d = bench_median(r2d, reps), m2h = bench_median(r2h, reps);
        printf("  %8zu KiB  bare DMA split over two copy queues: to device %6.2f GB/s, to host "
               "%6.2f GB/s\n", len >> 10, gbps(len, m2d), gbps(len, m2h));
        bench_metric2(mprefix, "%s.to_device.raw2q_gbs", gbps(len, m2d), tag);
        bench_metric2(mprefix, "%s.to_host.raw2q_gbs", gbps(len, m2h), tag);
    }
    print_split(len, "explicit migrations", &s0, &s1);

    /* Fault-driven: the CPU touches device-resident blocks, one per block. */
    double *fd = calloc((size_t)reps, sizeof(double));
    for (int r = 0; r < reps; r++) {
        time_migrate(p, len, UVAS_LOC_DEVICE);
        uint64_t t0 = bench_now_ns();
        for (size_t i = 0; i < len; i += block)
            ((volatile char *)p)[i]++;
        fd[r] = (double)(bench_now_ns() - t0);
        for (size_t i = 0; i < len; i += block)
            p[i]--;
    }
    double touch = gbps(len, bench_median(fd, reps));
    printf("  %8zu KiB  CPU touching device-resident blocks: %6.2f GB/s\n", len >> 10, touch);
    bench_metric2(mprefix, "%s.cpu_touch.uvas_gbs", touch, tag);
    uvas_free(p);
    uvas_stats_get(&s2);
    print_split(len, "CPU-touch pass", &s1, &s2);
    /* Untouched memory prefetched to the device (cudaMemPrefetchAsync of
     * memory never touched): no copy, a zero fill per block. A fill of
     * 256 MiB takes a fraction of a millisecond, where a GPU whose clocks
     * fell while the CPU worked reads 2-4x slower for its first few: three
     * times the reps, and their median. */
    size_t ureps = 3 * (size_t)reps;
    double *fu = calloc(ureps, sizeof(double));
    for (size_t r = 0; r < ureps; r++) {
        char *q = uvas_malloc(len);
        if (!q) {
            fprintf(stderr, "migrate: uvas_malloc(%zu): %s\n", len, uvas_last_error());
            exit(1);
        }
        fu[r] = time_migrate(q, len, UVAS_LOC_DEVICE);
        uvas_free(q);
    }
    double fresh = gbps(len, bench_median(fu, (int)ureps));
    free(fu);
    printf("  %8zu KiB  untouched blocks to device (zero fills): %6.2f GB/s\n", len >> 10, fresh);
    bench_metric2(mprefix, "%s.untouched_to_device.uvas_gbs", fresh, tag);
    uvas_stats_get(&s2);
    print_split(len, "all at this size", base, &s2);
    *base = s2;
    double ratio = (mrd + mrh) / (mud + muh);
    free(ud), free(uh), free(rd), free(rh), free(fd), free(r2d), free(r2h);
    return ratio;
}

int bench_migrate(int argc, char **argv)
{
    size_t sizes[8] = {(size_t)256 << 20};
    int nsizes = 1;
    int reps = 5;
    int opt;
    optind = 1;
    while ((opt = getopt(argc, argv, "s:r:")) != -1) {
        if (opt == 's') {
            nsizes = 0;
            for (char *t = strtok(optarg, ","); t && nsizes < 8; t = strtok(NULL, ","))
                sizes[nsizes++] = strtoull(t, NULL, 0) << 20;
        } else if (opt == 'r') {
            reps = atoi(optarg);
        } else {
            return 2;
        }
    }
    size_t big = 0;
    for (int i = 0; i < nsizes; i++) {
        if (sizes[i] < ((size_t)2 << 20)) {
            fprintf(stderr, "migrate: every -s size must be >= 2 (MiB)\n");
            return 2;
        }
        if (sizes[i] > big)
            big = sizes[i];
    }
    if (reps < 1 || nsizes < 1) {
        fprintf(stderr, "migrate: need -r >= 1 and -s MiB[,MiB...]\n");
        return 2;
    }
    if (uvas_init(NULL)) {
        fprintf(stderr, "migrate: uvas_init: %s\n", uvas_last_error());
        return 1;
    }
    struct uvas_range_desc d;
    uvas_range(&d);
    /* A host tier of huge pages (UVAS_HUGE_PAGES=1) reports as its own
     * rows, so one guard run can hold both. */
    if (d.host_page > 4096)
        mprefix = "migrate_huge";
    if (!d.device_present) {
        fprintf(stderr, "migrate: no device tier: %s\n", d.device_note);
        return 77;
    }
    printf("migrate: %s (%s), block %zu KiB, host pages %zu KiB, %d reps (%d up to %zu MiB), "
           "medians\n", d.device_name, d.device_kind, d.block_size >> 10, d.host_page >> 10, reps,
           reps * SMALL_REPS, SMALL_SIZE >> 20);
    struct raw w;
    if (raw_open(&w, d.device_name, big)) {
        raw_close(&w, big);
        return 1;
    }
    /* Warm the copy engine and the link first (clocks ramp up under load),
     * so the first size is not measured on a cold device. */
    for (int i = 0; i < 3; i++) {
        raw_copy(&w, true, big);
        raw_copy(&w, false, big);
    }
    struct uvas_stats base;
    uvas_stats_get(&base);
    double small = run_size(&w, (size_t)2 << 20, reps, d.block_size, &base);
    double ratio = 0;
    for (int i = 0; i < nsizes; i++)
        ratio = run_size(&w, sizes[i], reps, d.block_size, &base);
    raw_close(&w, big);
    uvas_finalize();
    printf("migrate ratio uvas/raw at 2 MiB: %.2f\n", small);
    printf("migrate ratio uvas/raw: %.2f\n", ratio);
    return 0;
}
