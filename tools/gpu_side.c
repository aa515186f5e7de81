/* The GPU's part of a workload (gpu_side.h). */
#include "gpu_side.h"

#include <stdio.h>

#include "uvas.h"
#include "uvas_policy.h"

#ifdef EXP_KERNELS
static const uint32_t touch_spv[] =
#include "touch.spv.h"
    ;
#endif

struct touch_args {
    uint64_t start, end, sum;
    uint32_t value, write;
};

const char *gpu_side_name(enum gpu_side_mode mode)
{
    return mode == GPU_SIDE_COPY ? "copy engine (uvas_device_access)"
                                 : "compute kernels (uvas.glsl)";
}

int gpu_side_open(struct gpu_side *g, enum gpu_side_mode mode, char *err, size_t errlen)
{
    *g = (struct gpu_side){.mode = mode};
    if (mode == GPU_SIDE_COPY)
        return UVAS_OK;
    /* The host heap never moves: the sum is not part of the experiment. */
    if (!(g->sum = uvas_malloc_hint(sizeof *g->sum, UVAS_HINT_HOST))) {
        snprintf(err, errlen, "uvas_malloc_hint(4, HOST): %s", uvas_last_error());
        return UVAS_ERR_NOMEM;
    }
#ifndef EXP_KERNELS
    snprintf(err, errlen, "uvas-exp was built without glslc, so without its kernel: run it "
             "with -g copy, or install glslc and build again");
    gpu_side_close(g);
    return UVAS_ERR_NO_DEVICE;
#else
    int rc = uvas_kernel_load(touch_spv, sizeof touch_spv, "main", &g->k);
    if (rc) {
        snprintf(err, errlen, "uvas_kernel_load(touch): %s: %s (run with -g copy to use the "
                 "copy engine instead)", uvas_strerror(rc), uvas_last_error());
        gpu_side_close(g);
        return rc;
    }
    /* Each invocation strides over the range: enough workgroups to fill a
     * GPU; on a device that runs shaders on the CPU (lavapipe), where
     * every workgroup costs a round of its barrier's coroutines, a few. */
    struct uvas_gpu_info gi;
    VkPhysicalDeviceProperties pp;
    g->max_groups = 2048;
    if (uvas_gpu_info(&gi) == UVAS_OK) {
        vkGetPhysicalDeviceProperties(gi.physical_device, &pp);
        if (pp.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU)
            g->max_groups = 128;
    }
    return UVAS_OK;
#endif
}

int gpu_side_touch(void *arg, void *p, size_t len, int write, unsigned char value, uint32_t *sum,
                   char *err, size_t errlen)
{
    struct gpu_side *g = arg;
    *sum = 0;
    if (g->mode == GPU_SIDE_COPY) {
        int rc = uvas_device_access(p, len, write, value);
        if (rc)
            snprintf(err, errlen, "uvas_device_access(%p, %zu, %s): %s: %s", p, len,
                     write ? "write" : "read", uvas_strerror(rc), uvas_last_error());
        return rc ? -1 : 0;
    }
    if (!len)
        return 0;
    uintptr_t a = (uintptr_t)p;
    uint64_t units = (a + len - (a & ~(uintptr_t)15) + 15) / 16;
    if (units > UINT32_MAX) {
        snprintf(err, errlen, "a GPU access of %zu bytes: the kernel takes up to 64 GiB", len);
        return -1;
    }
    struct touch_args t = {
        .start = a,
        .end = a + len,
        .sum = (uintptr_t)g->sum,
        .value = 0x01010101u * value,
        .write = write != 0,
    };
    *g->sum = 0;
    uint32_t groups = (uint32_t)((units + 255) / 256);
    uint32_t grid[3] = {groups < g->max_groups ? groups : g->max_groups, 1, 1};
    /* The blocks the kernel touches and no others (a launch that scanned
     * its arguments would hold the whole buffer): the policy sees the
     * device touch what it touches, as with a GPU's page faults. */
    uvas_gpu_hold_t *hd = NULL, *hs = NULL;
    int rc = uvas_gpu_hold_range(p, len, &hd);
    if (!rc)
        rc = uvas_gpu_hold_range(g->sum, sizeof *g->sum, &hs);
    if (!rc)
        rc = uvas_kernel_launch(g->k, grid, &t, sizeof t, UVAS_KERNEL_NO_SCAN);
    uvas_gpu_release(hs);
    uvas_gpu_release(hd);
    if (rc) {
        snprintf(err, errlen, "the GPU %s of %zu bytes at %p: %s: %s", write ? "write" : "read",
                 len, p, uvas_strerror(rc), uvas_last_error());
        return -1;
    }
    *sum = write ? 0 : *g->sum;
    return 0;
}

void gpu_side_close(struct gpu_side *g)
{
    uvas_kernel_free(g->k);
    uvas_free(g->sum);
    *g = (struct gpu_side){0};
}
