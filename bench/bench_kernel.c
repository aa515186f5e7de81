/*
 * uvas-bench kernel: what translating every access costs a kernel. The
 * same triad (c = a + s*b, 4-byte floats; one element per access, and
 * four per vec4 access) runs
 *   - over uvas pointers (include/uvas.glsl) on device-resident blocks,
 *     against the same shader over plain buffer device addresses of
 *     device-local buffers made on the same device;
 *   - over host-resident uvas blocks (UVAS_HINT_HOST: served in place
 *     through their imported pages), against plain buffers in
 *     host-visible system memory: the bus as Vulkan sees it.
 * Kernel time is the device's own clock (timestamps around the dispatch);
 * GB/s counts 12 bytes per element (two reads, one write). The float
 * triad also runs built without the access counters (UVAS_NO_COUNTERS),
 * in the same loop over the same arrays: what counting costs. Also the time a
 * synchronous launch takes beyond the kernel (holds, translations,
 * submission, wait), per launch, and what a fault costs: a kernel whose
 * 64 accesses each reach a device-resident block through a pointer read
 * from memory, its blocks held beforehand (uvas_gpu_hold: no fault),
 * served while the accesses wait, and replayed (UVAS_KERNEL_NO_WAIT |
 * UVAS_KERNEL_IDEMPOTENT); the differences per block.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "uvas.h"
#include "uvas_gpu.h"

#ifndef UVAS_BENCH_KERNELS
int bench_kernel(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "kernel: not built (no glslc when uvas was configured)\n");
    return 2;
}
#else

static const uint32_t triad_spv[] =
#include "triad.spv.h"
    ;
static const uint32_t triad_nocount_spv[] =
#include "triad-nocount.spv.h"
    ;
static const uint32_t triad_raw_spv[] =
#include "triad-raw.spv.h"
    ;
static const uint32_t triad4_spv[] =
#include "triad4.spv.h"
    ;
static const uint32_t triad4_raw_spv[] =
#include "triad4-raw.spv.h"
    ;
static const uint32_t chase_spv[] =
#include "chase.spv.h"
    ;
static const uint32_t triad_array_spv[] =
#include "triad-array.spv.h"
    ;

struct args {
    uint64_t a, b, c;
    float s;
    uint32_t n;
};

#define VK(x)                                                                                \
    do {                                                                                     \
        VkResult r_ = (x);                                                                   \
        if (r_ != VK_SUCCESS) {                                                              \
            fprintf(stderr, "kernel: %s failed (VkResult %d)\n", #x, r_);                    \
            exit(1);                                                                         \
        }                                                                                    \
    } while (0)

/* The raw side: the bench's own buffers, pipeline and queue on uvas's device. */
static struct {
    struct uvas_gpu_info gi;
    VkPhysicalDeviceMemoryProperties mp;
    double ns_per_tick;
    VkQueue q;
    VkCommandPool pool;
    VkCommandBuffer cb;
    VkFence fence;
    VkQueryPool stamps;
    VkPipelineLayout layout;
    VkPipeline pipe[2]; /* scalar, vec4 */
} R;

struct rbuf {
    VkBuffer buf;
    VkDeviceMemory mem;
    VkDeviceAddress addr;
};

static struct rbuf rbuf_make(VkDeviceSize bytes, VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid)
{
    struct rbuf b = {0};
    VkDevice d = R.gi.device;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = bytes,
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    VK(vkCreateBuffer(d, &bci, NULL, &b.buf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d, b.buf, &req);
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < R.mp.memoryTypeCount && type == UINT32_MAX; i++) {
        VkMemoryPropertyFlags f = R.mp.memoryTypes[i].propertyFlags;
        if ((req.memoryTypeBits & (1u << i)) && (f & want) == want && !(f & avoid))
            type = i;
    }
    if (type == UINT32_MAX) {
        fprintf(stderr, "kernel: no memory type with flags %#x without %#x\n", want, avoid);
        exit(1);
    }
    VkMemoryAllocateFlagsInfo fi = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                    .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .pNext = &fi,
                                .allocationSize = req.size,
                                .memoryTypeIndex = type};
    VK(vkAllocateMemory(d, &mai, NULL, &b.mem));
    VK(vkBindBufferMemory(d, b.buf, b.mem, 0));
    VkBufferDeviceAddressInfo ai = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
                                    .buffer = b.buf};
    b.addr = vkGetBufferDeviceAddress(d, &ai);
    return b;
}

static void rbuf_free(struct rbuf *b)
{
    vkDestroyBuffer(R.gi.device, b->buf, NULL);
    vkFreeMemory(R.gi.device, b->mem, NULL);
}

static void raw_setup(void)
{
    VkDevice d = R.gi.device;
    vkGetPhysicalDeviceMemoryProperties(R.gi.physical_device, &R.mp);
    VkPhysicalDeviceProperties pp;
    vkGetPhysicalDeviceProperties(R.gi.physical_device, &pp);
    R.ns_per_tick = pp.limits.timestampPeriod;
    /* uvas's kernels use queue 0 of this family only while a launch
     * runs, and the bench launches from this thread alone. */
    vkGetDeviceQueue(d, R.gi.queue_family, 0, &R.q);
    VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = R.gi.queue_family};
    VK(vkCreateCommandPool(d, &cpi, NULL, &R.pool));
    VkCommandBufferAllocateInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = R.pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = 1};
    VK(vkAllocateCommandBuffers(d, &cbi, &R.cb));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK(vkCreateFence(d, &fci, NULL, &R.fence));
    VkQueryPoolCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                 .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                 .queryCount = 2};
    VK(vkCreateQueryPool(d, &qci, NULL, &R.stamps));
    VkPushConstantRange pr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
                              .size = sizeof(struct args)};
    VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                       .pushConstantRangeCount = 1,
                                       .pPushConstantRanges = &pr};
    VK(vkCreatePipelineLayout(d, &plci, NULL, &R.layout));
    for (int v = 0; v < 2; v++) {
        VkShaderModuleCreateInfo mci = {
            .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
            .codeSize = v ? sizeof triad4_raw_spv : sizeof triad_raw_spv,
            .pCode = v ? triad4_raw_spv : triad_raw_spv};
        VkShaderModule mod;
        VK(vkCreateShaderModule(d, &mci, NULL, &mod));
        VkComputePipelineCreateInfo ci = {
            .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
            .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                      .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                      .module = mod,
                      .pName = "main"},
            .layout = R.layout};
        VK(vkCreateComputePipelines(d, VK_NULL_HANDLE, 1, &ci, NULL, &R.pipe[v]));
        vkDestroyShaderModule(d, mod, NULL);
    }
}

static void raw_teardown(void)
{
    VkDevice d = R.gi.device;
    vkDestroyPipeline(d, R.pipe[0], NULL);
    vkDestroyPipeline(d, R.pipe[1], NULL);
    vkDestroyPipelineLayout(d, R.layout, NULL);
    vkDestroyQueryPool(d, R.stamps, NULL);
    vkDestroyFence(d, R.fence, NULL);
    vkDestroyCommandPool(d, R.pool, NULL);
}

/* One raw triad (fill first when fill): kernel ns by the device's clock. */
static double raw_run(const struct rbuf *b, const struct args *a, uint32_t groups, bool fill,
                      int vec4)
{
    VkCommandBuffer cb = R.cb;
    vkResetCommandBuffer(cb, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cb, &bi);
    if (fill) {
        vkCmdFillBuffer(cb, b[0].buf, 0, VK_WHOLE_SIZE, 0x3f800000u); /* 1.0f */
        vkCmdFillBuffer(cb, b[1].buf, 0, VK_WHOLE_SIZE, 0x40000000u); /* 2.0f */
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_SHADER_READ_BIT};
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    }
    vkCmdResetQueryPool(cb, R.stamps, 0, 2);
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, R.stamps, 0);
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, R.pipe[vec4]);
    vkCmdPushConstants(cb, R.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof *a, a);
    vkCmdDispatch(cb, groups, 1, 1);
    vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, R.stamps, 1);
    VK(vkEndCommandBuffer(cb));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &cb};
    VK(vkResetFences(R.gi.device, 1, &R.fence));
    VK(vkQueueSubmit(R.q, 1, &si, R.fence));
    VK(vkWaitForFences(R.gi.device, 1, &R.fence, VK_TRUE, UINT64_MAX));
    uint64_t t[2];
    VK(vkGetQueryPoolResults(R.gi.device, R.stamps, 0, 2, sizeof t, t, sizeof t[0],
                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    return (double)(t[1] - t[0]) * R.ns_per_tick;
}

/* Median kernel GB/s of reps raw runs over buffers of `want` memory. */
/* uvas's triad and its reference, rep by rep in turn (a machine that
 * gets busier slows both alike): median kernel GB/s of each, and the
 * median time a uvas launch took beyond its kernel (us). uvas's arrays
 * are allocated with hints and moved to loc (-1: left); the reference's
 * buffers are of a memory type with want and without avoid. */
struct pair {
    double uvas, raw, over_us;
    double alt; /* the second uvas kernel, if any */
};

/* alt (may be NULL): another build of k's shader, run in the same loop
 * over the same arrays, so that the two see the same machine. */
static struct pair triad_pair(uvas_kernel_t *k, int vec4, size_t n, uint32_t groups, int reps,
                              unsigned hints, int loc, VkMemoryPropertyFlags want,
                              VkMemoryPropertyFlags avoid, uvas_kernel_t *alt)
{
    float *x[3];
    for (int i = 0; i < 3; i++) {
        x[i] = uvas_malloc_hint(n * 4, hints);
        if (!x[i]) {
            fprintf(stderr, "kernel: uvas_malloc_hint(%zu): %s\n", n * 4, uvas_last_error());
            exit(1);
        }
    }
    for (size_t i = 0; i < n; i++) {
        x[0][i] = 1.0f;
        x[1][i] = 2.0f;
    }
    for (int i = 0; loc >= 0 && i < 3; i++)
        if (uvas_migrate(x[i], n * 4, loc, 0)) {
            fprintf(stderr, "kernel: uvas_migrate: %s\n", uvas_last_error());
            exit(1);
        }
    struct rbuf b[3];
    for (int i = 0; i < 3; i++)
        b[i] = rbuf_make(n * 4, want, avoid);
    struct args ra = {b[0].addr, b[1].addr, b[2].addr, 0.5f, (uint32_t)n};
    raw_run(b, &ra, groups, true, vec4);
    struct args ua = {(uintptr_t)x[0], (uintptr_t)x[1], (uintptr_t)x[2], 0.5f, (uint32_t)n};
    uint32_t g[3] = {groups, 1, 1};
    double u[64], r[64], o[64], a[64];
    for (int i = -1; i < reps; i++) {
        if (alt) {
            struct uvas_stats s0, s1;
            uvas_stats_get(&s0);
            if (uvas_kernel_launch(alt, g, &ua, sizeof ua, 0)) {
                fprintf(stderr, "kernel: launch: %s\n", uvas_last_error());
                exit(1);
            }
            uvas_stats_get(&s1);
            if (i >= 0)
                a[i] = 12.0 * (double)n / (double)(s1.kernel_gpu_ns - s0.kernel_gpu_ns);
        }
        struct uvas_stats s0, s1;
        uvas_stats_get(&s0);
        uint64_t t0 = bench_now_ns();
        if (uvas_kernel_launch(k, g, &ua, sizeof ua, 0)) {
            fprintf(stderr, "kernel: launch: %s\n", uvas_last_error());
            exit(1);
        }
        uint64_t t1 = bench_now_ns();
        uvas_stats_get(&s1);
        double ns = (double)(s1.kernel_gpu_ns - s0.kernel_gpu_ns);
        double rns = raw_run(b, &ra, groups, false, vec4);
        if (i >= 0) {
            u[i] = 12.0 * (double)n / ns;
            o[i] = ((double)(t1 - t0) - ns) / 1e3;
            r[i] = 12.0 * (double)n / rns;
        }
    }
    for (size_t i = 0; i < n; i += 4099)
        if (x[2][i] != 2.0f) {
            fprintf(stderr, "kernel: c[%zu] = %g, expected 2\n", i, x[2][i]);
            exit(1);
        }
    for (int i = 0; i < 3; i++) {
        uvas_free(x[i]);
        rbuf_free(&b[i]);
    }
    return (struct pair){bench_median(u, reps), bench_median(r, reps), bench_median(o, reps),
                         alt ? bench_median(a, reps) : 0};
}

/* Median wall time (us) of reps launches of the chase kernel over nt
 * targets with flags; held: the targets held beforehand. */
static double chase_us(uvas_kernel_t *k, uint64_t *table, uint32_t nt, unsigned flags,
                       int reps, bool held)
{
    struct {
        uint64_t table;
        uint32_t n, value;
    } a = {(uintptr_t)table, nt, 7};
    uint32_t g[3] = {(nt + 63) / 64, 1, 1};
    uvas_gpu_hold_t *h = NULL;
    if (held && uvas_gpu_hold((const void *const *)table, nt, &h)) {
        fprintf(stderr, "kernel: uvas_gpu_hold: %s\n", uvas_last_error());
        exit(1);
    }
    double v[64];
    for (int r = -1; r < reps; r++) {
        uint64_t t0 = bench_now_ns();
        if (uvas_kernel_launch(k, g, &a, sizeof a, flags)) {
            fprintf(stderr, "kernel: chase launch: %s\n", uvas_last_error());
            exit(1);
        }
        if (r >= 0)
            v[r] = (double)(bench_now_ns() - t0) / 1e3;
    }
    uvas_gpu_release(h);
    return bench_median(v, reps);
}

static void bench_faults(uvas_kernel_t *k, size_t block, int reps)
{
    enum { NT = 64 };
    uint64_t *table = uvas_malloc(NT * 8);
    for (int i = 0; i < NT; i++) {
        void *t = uvas_malloc(block);
        if (!t || uvas_migrate(t, block, UVAS_LOC_DEVICE, 0)) {
            fprintf(stderr, "kernel: a target: %s\n", uvas_last_error());
            exit(1);
        }
        table[i] = (uintptr_t)t;
    }
    double held = chase_us(k, table, NT, 0, reps, true);
    double replay = chase_us(k, table, NT, UVAS_KERNEL_NO_WAIT | UVAS_KERNEL_IDEMPOTENT, reps,
                             false);
    printf("  faults, %d device-resident blocks reached through pointers in memory: held "
           "beforehand %.0f us, replayed %.0f us (%.1f us/block)", NT, held, replay,
           (replay - held) / NT);
    if (R.gi.fault_waits) {
        double wait = chase_us(k, table, NT, 0, reps, false);
        printf(", served while waiting %.0f us (%.1f us/block)\n", wait, (wait - held) / NT);
        bench_metric("kernel.fault_wait_us_per_block", (wait - held) / NT, NULL);
    } else {
        printf("; faults cannot wait on this device\n");
    }
    bench_metric("kernel.fault_replay_us_per_block", (replay - held) / NT, NULL);
    for (int i = 0; i < NT; i++)
        uvas_free((void *)(uintptr_t)table[i]);
    uvas_free(table);
}

int bench_kernel(int argc, char **argv)
{
    size_t mib = 256;
    int reps = 9;
    int c;
    while ((c = getopt(argc, argv, "s:r:")) != -1)
        switch (c) {
        case 's': mib = strtoull(optarg, NULL, 0); break;
        case 'r': reps = atoi(optarg); break;
        default: return 2;
        }
    if (reps < 1 || reps > 64 || mib < 1) {
        fprintf(stderr, "kernel: need 1 <= -r <= 64 and -s MiB >= 1\n");
        return 2;
    }
    struct uvas_range_desc d;
    if (uvas_init(NULL)) {
        fprintf(stderr, "kernel: uvas_init: %s\n", uvas_last_error());
        return 1;
    }
    uvas_range(&d);
    uvas_kernel_t *k, *k4, *kn, *ka;
    if (uvas_kernel_load(triad_spv, sizeof triad_spv, "main", &k) ||
        uvas_kernel_load(triad4_spv, sizeof triad4_spv, "main", &k4) ||
        uvas_kernel_load(triad_nocount_spv, sizeof triad_nocount_spv, "main", &kn) ||
        uvas_kernel_load(triad_array_spv, sizeof triad_array_spv, "main", &ka) ||
        uvas_gpu_info(&R.gi)) {
        fprintf(stderr, "kernel: %s\n", uvas_last_error());
        return 1;
    }
    raw_setup();
    size_t n = (mib << 20) / 16 * 4; /* whole vec4s */
    /* Enough groups to fill any GPU; each invocation strides. */
    uint32_t groups = (uint32_t)((n / 256 + 3) / 4 < 65535 ? (n / 256 + 3) / 4 : 65535);
    if (groups == 0)
        groups = 1;
    printf("kernel: %s (%s), triad over 3 x %zu MiB, %d reps, medians, device clock\n",
           d.device_name, d.device_kind, mib, reps);
    VkMemoryPropertyFlags sysmem = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
    VkMemoryPropertyFlags notdev = d.device_kind && !strcmp(d.device_kind, "software")
                                       ? 0 : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    const VkMemoryPropertyFlags local = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    struct pair pd = triad_pair(k, 0, n, groups, reps, 0, UVAS_LOC_DEVICE, local, 0, kn);
    struct pair p4 = triad_pair(k4, 1, n, groups, reps, 0, UVAS_LOC_DEVICE, local, 0, NULL);
    struct pair ph = triad_pair(k, 0, n, groups, reps, UVAS_HINT_HOST, -1, sysmem, notdev,
                                NULL);
    /* Through uvas_array (one translation per array, the launch's runs)
     * against the same raw kernel. */
    struct pair pa = triad_pair(ka, 0, n, groups, reps, 0, UVAS_LOC_DEVICE, local, 0, NULL);
    /* The same shader without counters, in the same loop as pd's. */
    struct pair pn = {.uvas = pd.alt, .raw = pd.raw};
    double udev = pd.uvas, rdev = pd.raw, udev4 = p4.uvas, rdev4 = p4.raw;
    double uhost = ph.uvas, rhost = ph.raw, over_dev = pd.over_us, over_host = ph.over_us;
    printf("  device-resident, float: uvas %7.1f GB/s  raw BDA %7.1f GB/s  ratio %.3f\n", udev,
           rdev, udev / rdev);
    printf("  device-resident, vec4:  uvas %7.1f GB/s  raw BDA %7.1f GB/s  ratio %.3f\n", udev4,
           rdev4, udev4 / rdev4);
    printf("  no counters, float:     uvas %7.1f GB/s  raw BDA %7.1f GB/s  ratio %.3f "
           "(counting costs %.1f%%)\n", pn.uvas, pn.raw, pn.uvas / pn.raw,
           100.0 * (1.0 - (udev / rdev) / (pn.uvas / pn.raw)));
    printf("  host-resident, float:   uvas %7.1f GB/s  raw     %7.1f GB/s  ratio %.3f\n", uhost,
           rhost, uhost / rhost);
    printf("  arrays, float:          uvas %7.1f GB/s  raw BDA %7.1f GB/s  ratio %.3f "
           "(uvas_array: a translation per array)\n", pa.uvas, pa.raw, pa.uvas / pa.raw);
    printf("  launch beyond the kernel: %.0f us (device-resident), %.0f us (host-resident), "
           "%zu blocks each\n", over_dev, over_host, 3 * ((n * 4 + d.block_size - 1) / d.block_size));
    bench_metric("kernel.triad.uvas_gbs", udev, NULL);
    bench_metric("kernel.triad.raw_gbs", rdev, NULL);
    bench_metric("kernel.triad4.uvas_gbs", udev4, NULL);
    bench_metric("kernel.triad4.raw_gbs", rdev4, NULL);
    bench_metric("kernel.triad_host.uvas_gbs", uhost, NULL);
    bench_metric("kernel.triad_host.raw_gbs", rhost, NULL);
    bench_metric("kernel.launch_overhead_us", over_dev, NULL);
    bench_metric("kernel.triad_nocount.uvas_gbs", pn.uvas, NULL);
    bench_metric("kernel.triad_nocount.raw_gbs", pn.raw, NULL);
    bench_metric("kernel.triad_array.uvas_gbs", pa.uvas, NULL);
    bench_metric("kernel.triad_array.raw_gbs", pa.raw, NULL);
    uvas_kernel_t *kc;
    if (uvas_kernel_load(chase_spv, sizeof chase_spv, "main", &kc)) {
        fprintf(stderr, "kernel: %s\n", uvas_last_error());
        return 1;
    }
    bench_faults(kc, d.block_size, reps);
    uvas_kernel_free(kc);
    printf("kernel ratio uvas/raw: %.3f\n", udev / rdev);
    uvas_kernel_free(k);
    uvas_kernel_free(k4);
    uvas_kernel_free(kn);
    uvas_kernel_free(ka);
    raw_teardown();
    uvas_finalize();
    return 0;
}
#endif
