/* Kernel objects: a SPIR-V module checked and made into a pipeline
 * specialised for this range and device, what its compiler made of it,
 * its end (kernel.h). */
#include "gpu/kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/context.h"
#include "uvas/internal.h"
#include "uvas/status.h"

/* k's pipeline: its module specialised for this range and device (uvas_gpu.mu
 * held, the context up). */
static VkResult make_pipe(const struct uvas_kernel *k, VkPipelineCreateFlags flags,
                          VkPipeline *pipe)
{
    struct {
        uint64_t base;
        uint32_t shift, nblocks;
        VkBool32 waits;
        uint32_t pad;
        uint64_t runs;
    } sv = {(uintptr_t)uvas_g.base, uvas_g.shift, (uint32_t)uvas_g.nblocks,
            uvas_gpu_fault_waits(), 0,
            uvas_gpu.xlat.fixed.runs};
    const VkSpecializationMapEntry me[5] = {
        {UVAS_XLAT_SPEC_BASE, 0, 8}, {UVAS_XLAT_SPEC_SHIFT, 8, 4},
        {UVAS_XLAT_SPEC_NBLOCKS, 12, 4}, {UVAS_XLAT_SPEC_WAITS, 16, 4},
        {UVAS_XLAT_SPEC_RUNS, 24, 8}};
    VkSpecializationInfo spec = {.mapEntryCount = 5,
                                 .pMapEntries = me,
                                 .dataSize = sizeof sv,
                                 .pData = &sv};
    VkComputePipelineCreateInfo ci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .flags = flags,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = k->mod,
                  .pName = k->entry,
                  .pSpecializationInfo = &spec},
        .layout = uvas_gpu.layout};
    return vkCreateComputePipelines(uvas_gpu.d->dev, VK_NULL_HANDLE, 1, &ci, NULL, pipe);
}

int uvas_gpu_kernel_load(const void *spirv, size_t bytes, const char *entry,
                         struct uvas_kernel **out)
{
    if (!out)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_kernel_load: out is NULL");
    *out = NULL;
    if (!entry || !entry[0] || strlen(entry) >= sizeof ((struct uvas_kernel *)0)->entry)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_kernel_load: the entry point's name must be "
                         "1 to %zu characters", sizeof ((struct uvas_kernel *)0)->entry - 1);
    struct uvas_spirv_info info;
    int rc = uvas_spirv_check(spirv, bytes, entry, &info);
    if (rc)
        return rc;
    struct uvas_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return uvas_fail(UVAS_ERR_NOMEM, "uvas_kernel_load: out of memory");
    snprintf(k->entry, sizeof k->entry, "%s", entry);
    k->info = info;
    pthread_mutex_lock(&uvas_gpu.mu);
    rc = uvas_gpu_context_up();
    VkResult r = VK_SUCCESS;
    if (!rc) {
        VkShaderModuleCreateInfo mci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                        .codeSize = bytes,
                                        .pCode = spirv};
        r = vkCreateShaderModule(uvas_gpu.d->dev, &mci, NULL, &k->mod);
        if (!r)
            r = make_pipe(k, 0, &k->pipe);
        if (r) {
            if (k->mod)
                vkDestroyShaderModule(uvas_gpu.d->dev, k->mod, NULL);
            rc = uvas_fail(UVAS_ERR_INVAL, "uvas_kernel_load: '%s' refused the kernel '%s' "
                           "(VkResult %d): does it use a capability the device lacks (64-bit "
                           "or float atomics, float64), or a push-constant block larger than "
                           "%u bytes?", uvas_gpu.d->name, entry, r, uvas_gpu.push);
        }
    }
    if (rc) {
        pthread_mutex_unlock(&uvas_gpu.mu);
        free(k);
        return rc;
    }
    uvas_list_add(&uvas_gpu.kernels, &k->link);
    pthread_mutex_unlock(&uvas_gpu.mu);
    *out = k;
    return UVAS_OK;
}

/* uvas_gpu.mu held. */
static void kernel_down(struct uvas_kernel *k)
{
    if (k->pipe)
        vkDestroyPipeline(uvas_gpu.d->dev, k->pipe, NULL);
    if (k->mod)
        vkDestroyShaderModule(uvas_gpu.d->dev, k->mod, NULL);
    k->pipe = VK_NULL_HANDLE;
    k->mod = VK_NULL_HANDLE;
    uvas_list_del(&k->link);
}

static double stat_value(const VkPipelineExecutableStatisticKHR *st)
{
    switch (st->format) {
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
        return st->value.b32 ? 1.0 : 0.0;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
        return (double)st->value.i64;
    case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
        return (double)st->value.u64;
    default:
        return st->value.f64;
    }
}

/* The statistics come from a second pipeline made of the same module and
 * specialisation with capture asked for: the launches' own pipeline is
 * made without it, since a driver may compile differently (or skip its
 * cache) when asked to capture. */
int uvas_gpu_kernel_stats(struct uvas_kernel *k, struct uvas_kernel_stat *out, size_t max,
                          size_t *n)
{
    static const char fn[] = "uvas_kernel_stats";
    if (!k || !n || (max && !out))
        return uvas_fail(UVAS_ERR_INVAL, "%s: the kernel, n, or out (with max > 0) is NULL", fn);
    *n = 0;
    pthread_mutex_lock(&uvas_gpu.mu);
    int rc = UVAS_OK;
    if (!uvas_gpu.up || !k->mod)
        rc = uvas_fail(UVAS_ERR_NOT_INIT, "%s: the kernel's device objects are gone "
                       "(uvas_finalize ran since it was loaded)", fn);
    else if (!uvas_gpu.d->exec_props)
        rc = uvas_fail(UVAS_ERR_NO_DEVICE, "%s: '%s' does not report what its compiler made "
                       "of a kernel (no VK_KHR_pipeline_executable_properties)", fn,
                       uvas_gpu.d->name);
    PFN_vkGetPipelineExecutablePropertiesKHR props =
        rc ? NULL : (PFN_vkGetPipelineExecutablePropertiesKHR)vkGetDeviceProcAddr(
                        uvas_gpu.d->dev, "vkGetPipelineExecutablePropertiesKHR");
    PFN_vkGetPipelineExecutableStatisticsKHR stats =
        rc ? NULL : (PFN_vkGetPipelineExecutableStatisticsKHR)vkGetDeviceProcAddr(
                        uvas_gpu.d->dev, "vkGetPipelineExecutableStatisticsKHR");
    if (!rc && (!props || !stats))
        rc = uvas_fail(UVAS_ERR_NO_DEVICE, "%s: '%s' enabled the extension but gave no entry "
                       "points", fn, uvas_gpu.d->name);
    VkPipeline pipe = VK_NULL_HANDLE;
    VkResult r = VK_SUCCESS;
    if (!rc && (r = make_pipe(k, VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR, &pipe)))
        rc = uvas_fail(UVAS_ERR_NO_DEVICE, "%s: '%s' refused the capturing pipeline "
                       "(VkResult %d)", fn, uvas_gpu.d->name, r);
    /* A compute pipeline has one executable; a driver that splits it
     * reports each one's statistics in turn. */
    uint32_t nexe = 0;
    VkPipelineInfoKHR pi = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = pipe};
    if (!rc && (r = props(uvas_gpu.d->dev, &pi, &nexe, NULL)))
        rc = uvas_fail(UVAS_ERR_NO_DEVICE, "%s: vkGetPipelineExecutablePropertiesKHR: "
                       "VkResult %d", fn, r);
    for (uint32_t e = 0; !rc && e < nexe; e++) {
        VkPipelineExecutableInfoKHR ei = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
                                          .pipeline = pipe,
                                          .executableIndex = e};
        uint32_t ns = 0;
        if ((r = stats(uvas_gpu.d->dev, &ei, &ns, NULL))) {
            rc = uvas_fail(UVAS_ERR_NO_DEVICE, "%s: vkGetPipelineExecutableStatisticsKHR: "
                           "VkResult %d", fn, r);
            break;
        }
        VkPipelineExecutableStatisticKHR *st = calloc(ns ? ns : 1, sizeof *st);
        if (!st) {
            rc = uvas_fail(UVAS_ERR_NOMEM, "%s: out of memory", fn);
            break;
        }
        for (uint32_t i = 0; i < ns; i++)
            st[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
        r = stats(uvas_gpu.d->dev, &ei, &ns, st);
        if (r && r != VK_INCOMPLETE) {
            free(st);
            rc = uvas_fail(UVAS_ERR_NO_DEVICE, "%s: vkGetPipelineExecutableStatisticsKHR: "
                           "VkResult %d", fn, r);
            break;
        }
        for (uint32_t i = 0; i < ns; i++, (*n)++) {
            if (*n >= max)
                continue;
            struct uvas_kernel_stat *o = &out[*n];
            snprintf(o->name, sizeof o->name, "%s", st[i].name);
            snprintf(o->description, sizeof o->description, "%s", st[i].description);
            o->value = stat_value(&st[i]);
        }
        free(st);
    }
    if (pipe)
        vkDestroyPipeline(uvas_gpu.d->dev, pipe, NULL);
    pthread_mutex_unlock(&uvas_gpu.mu);
    return rc;
}

void uvas_gpu_kernel_free(struct uvas_kernel *k)
{
    if (!k)
        return;
    pthread_mutex_lock(&uvas_gpu.mu);
    if (k->pipe)
        kernel_down(k);
    pthread_mutex_unlock(&uvas_gpu.mu);
    free(k);
}

/* uvas_gpu.mu held. */
void uvas_gpu_kernels_down(void)
{
    while (!uvas_list_empty(&uvas_gpu.kernels))
        kernel_down(uvas_list_entry(uvas_gpu.kernels.next, struct uvas_kernel, link));
}
