/* The kernels' shared context (context.h). */
#include "gpu/context.h"

#include <stdlib.h>
#include <string.h>

#include "gpu/kernel.h"
#include "uvas/internal.h"
#include "uvas/status.h"

struct uvas_gpu_context uvas_gpu = {.mu = PTHREAD_MUTEX_INITIALIZER,
                                    .kernels = UVAS_LIST_INIT(uvas_gpu.kernels),
                                    .holds = UVAS_LIST_INIT(uvas_gpu.holds),
                                    .counted = UVAS_LIST_INIT(uvas_gpu.counted)};

void uvas_gpu_context_down(void)
{
    struct uvas_vulkan *d = uvas_gpu.d;
    if (!d)
        return;
    if (uvas_gpu.fence)
        vkDestroyFence(d->dev, uvas_gpu.fence, NULL);
    if (uvas_gpu.stamps)
        vkDestroyQueryPool(d->dev, uvas_gpu.stamps, NULL);
    uvas_gpu.stamps = VK_NULL_HANDLE;
    if (uvas_gpu.cpool)
        vkDestroyCommandPool(d->dev, uvas_gpu.cpool, NULL);
    if (uvas_gpu.layout)
        vkDestroyPipelineLayout(d->dev, uvas_gpu.layout, NULL);
    if (uvas_gpu.pool)
        vkDestroyDescriptorPool(d->dev, uvas_gpu.pool, NULL);
    if (uvas_gpu.dsl)
        vkDestroyDescriptorSetLayout(d->dev, uvas_gpu.dsl, NULL);
    uvas_ring_fini(&uvas_gpu.ring);
    uvas_xlat_fini(&uvas_gpu.xlat);
    free(uvas_gpu.served);
    free(uvas_gpu.served_list);
    uvas_gpu.served = NULL;
    uvas_gpu.served_list = NULL;
    uvas_gpu.fence = VK_NULL_HANDLE;
    uvas_gpu.cpool = VK_NULL_HANDLE;
    memset(uvas_gpu.cb, 0, sizeof uvas_gpu.cb);
    uvas_gpu.layout = VK_NULL_HANDLE;
    uvas_gpu.pool = VK_NULL_HANDLE;
    uvas_gpu.set = VK_NULL_HANDLE;
    uvas_gpu.dsl = VK_NULL_HANDLE;
    uvas_gpu.d = NULL;
    uvas_gpu.up = false;
}

static int vkfail(const char *what, VkResult r)
{
    uvas_gpu_context_down();
    return uvas_fail(UVAS_ERR_NO_DEVICE, "kernels: %s failed (VkResult %d)", what, r);
}

/* The context, made on first use (uvas_gpu.mu held). Status. */
int uvas_gpu_context_up(void)
{
    if (uvas_gpu.up)
        return UVAS_OK;
    struct uvas_vulkan *d = &uvas_g.devtier.dev;
    if (!uvas_devtier_present(&uvas_g.devtier))
        return uvas_fail(UVAS_ERR_NO_DEVICE, "kernels need the device tier: %s",
                         uvas_g.device_note);
    if (!d->kernels)
        return uvas_fail(UVAS_ERR_NO_DEVICE, "kernels cannot use uvas pointers here: %s",
                         d->no_kernels);
    uvas_gpu.d = d;
    int rc = uvas_xlat_init(&uvas_gpu.xlat, d, (uintptr_t)uvas_g.base, uvas_g.shift,
                            uvas_g.nblocks);
    if (!rc)
        rc = uvas_ring_init(&uvas_gpu.ring, d);
    if (!rc && (!(uvas_gpu.served = calloc((uvas_g.nblocks + 7) / 8, 1)) ||
                !(uvas_gpu.served_list = malloc(uvas_g.nblocks * sizeof *uvas_gpu.served_list))))
        rc = uvas_fail(UVAS_ERR_NOMEM, "kernels: out of memory");
    if (rc) {
        uvas_gpu_context_down();
        return rc;
    }
    VkDescriptorSetLayoutBinding b = {.binding = 0,
                                      .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .descriptorCount = 1,
                                      .stageFlags = VK_SHADER_STAGE_COMPUTE_BIT};
    VkDescriptorSetLayoutCreateInfo lci = {
        .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
        .bindingCount = 1,
        .pBindings = &b};
    VkResult r = vkCreateDescriptorSetLayout(d->dev, &lci, NULL, &uvas_gpu.dsl);
    if (r)
        return vkfail("vkCreateDescriptorSetLayout", r);
    VkDescriptorPoolSize ps = {.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, .descriptorCount = 1};
    VkDescriptorPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                      .maxSets = 1,
                                      .poolSizeCount = 1,
                                      .pPoolSizes = &ps};
    if ((r = vkCreateDescriptorPool(d->dev, &pci, NULL, &uvas_gpu.pool)))
        return vkfail("vkCreateDescriptorPool", r);
    VkDescriptorSetAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                      .descriptorPool = uvas_gpu.pool,
                                      .descriptorSetCount = 1,
                                      .pSetLayouts = &uvas_gpu.dsl};
    if ((r = vkAllocateDescriptorSets(d->dev, &ai, &uvas_gpu.set)))
        return vkfail("vkAllocateDescriptorSets", r);
    VkDescriptorBufferInfo bi = {.buffer = uvas_gpu.xlat.buf, .offset = 0, .range = VK_WHOLE_SIZE};
    VkWriteDescriptorSet w = {.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                              .dstSet = uvas_gpu.set,
                              .dstBinding = 0,
                              .descriptorCount = 1,
                              .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                              .pBufferInfo = &bi};
    vkUpdateDescriptorSets(d->dev, 1, &w, 0, NULL);
    uvas_gpu.push = d->max_push;
    VkPushConstantRange pr = {.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT,
                              .offset = 0,
                              .size = uvas_gpu.push};
    VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                       .setLayoutCount = 1,
                                       .pSetLayouts = &uvas_gpu.dsl,
                                       .pushConstantRangeCount = 1,
                                       .pPushConstantRanges = &pr};
    if ((r = vkCreatePipelineLayout(d->dev, &plci, NULL, &uvas_gpu.layout)))
        return vkfail("vkCreatePipelineLayout", r);
    VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                   .queueFamilyIndex = d->cfam};
    if ((r = vkCreateCommandPool(d->dev, &cpi, NULL, &uvas_gpu.cpool)))
        return vkfail("vkCreateCommandPool", r);
    VkCommandBufferAllocateInfo cbi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                       .commandPool = uvas_gpu.cpool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                       .commandBufferCount = UVAS_GPU_RUN_CBS};
    if ((r = vkAllocateCommandBuffers(d->dev, &cbi, uvas_gpu.cb)))
        return vkfail("vkAllocateCommandBuffers", r);
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    if ((r = vkCreateFence(d->dev, &fci, NULL, &uvas_gpu.fence)))
        return vkfail("vkCreateFence", r);
    VkPhysicalDeviceProperties pp;
    vkGetPhysicalDeviceProperties(d->phys, &pp);
    VkQueryPoolCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                 .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                 .queryCount = 2};
    if (d->ctimestamp_bits && pp.limits.timestampPeriod > 0 &&
        vkCreateQueryPool(d->dev, &qci, NULL, &uvas_gpu.stamps) == VK_SUCCESS)
        uvas_gpu.ns_per_tick = pp.limits.timestampPeriod;
    uvas_gpu.up = true;
    return UVAS_OK;
}

/* Can a faulting access wait for uvas here? Not where the device ends
 * long-running shader loops: Mesa's llvmpipe (lavapipe) stops every loop
 * of an invocation after 65535 iterations in all, which is no wait at all
 * once the host is busy. There a fault is served after the run (replay)
 * or fails the launch. */
bool uvas_gpu_fault_waits(void)
{
    return uvas_gpu.d->type != VK_PHYSICAL_DEVICE_TYPE_CPU;
}

int uvas_gpu_get_info(struct uvas_gpu_info *out)
{
    if (!out)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_gpu_info: out is NULL");
    pthread_mutex_lock(&uvas_gpu.mu);
    int rc = uvas_gpu_context_up();
    if (!rc)
        *out = (struct uvas_gpu_info){.instance = uvas_gpu.d->inst,
                                      .physical_device = uvas_gpu.d->phys,
                                      .device = uvas_gpu.d->dev,
                                      .queue_family = uvas_gpu.d->cfam,
                                      .xlat_buffer = uvas_gpu.xlat.buf,
                                      .xlat_size = uvas_gpu.xlat.bytes,
                                      .set_layout = uvas_gpu.dsl,
                                      .set = uvas_gpu.set,
                                      .max_args = uvas_gpu.push,
                                      .shared_queue = uvas_gpu.d->cqueue_shared,
                                      .fault_waits = uvas_gpu_fault_waits(),
                                      .host_atomics =
                                          uvas_gpu.d->type == VK_PHYSICAL_DEVICE_TYPE_CPU,
                                      .fault_waits_spec = uvas_gpu_fault_waits(),
                                      .range_base = (uintptr_t)uvas_g.base,
                                      .block_shift = uvas_g.shift,
                                      .nblocks = (uint32_t)uvas_g.nblocks,
                                      .runs_address = uvas_gpu.xlat.fixed.runs};
    pthread_mutex_unlock(&uvas_gpu.mu);
    return rc;
}
