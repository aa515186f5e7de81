/* Buffers of the GPU floor (buffer.h). */
#include "gpu/buffer.h"

#include "uvas.h"
#include "uvas/status.h"

static int make(struct uvas_vulkan *d, VkDeviceSize bytes, uint32_t type,
                VkMemoryPropertyFlags also, VkMemoryPropertyFlags avoid, VkBuffer *buf,
                VkDeviceMemory *mem, const char *what)
{
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = bytes,
                              .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    uvas_vulkan_share(d, &bci);
    if (vkCreateBuffer(d->dev, &bci, NULL, buf) != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot create the %s buffer on '%s'", what, d->name);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d->dev, *buf, &req);
    if (type == UINT32_MAX)
        type = uvas_vulkan_host_type(d, req.memoryTypeBits, also, avoid);
    VkMemoryAllocateFlagsInfo fi;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .pNext = uvas_vulkan_addr_alloc(d, &fi, NULL),
                                .allocationSize = req.size,
                                .memoryTypeIndex = type};
    VkResult r = type == UINT32_MAX || !(req.memoryTypeBits & (1u << type))
                     ? VK_ERROR_FEATURE_NOT_PRESENT
                     : vkAllocateMemory(d->dev, &mai, NULL, mem);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(d->dev, *buf, NULL);
        *buf = VK_NULL_HANDLE;
        return uvas_fail(UVAS_ERR_NOMEM, "cannot allocate %llu bytes for the %s on '%s' "
                         "(VkResult %d)", (unsigned long long)bytes, what, d->name, r);
    }
    vkBindBufferMemory(d->dev, *buf, *mem, 0);
    return UVAS_OK;
}

int uvas_gpu_buffer_make(struct uvas_vulkan *d, VkDeviceSize bytes, uint32_t type,
                         VkMemoryPropertyFlags also, VkBuffer *buf, VkDeviceMemory *mem,
                         const char *what)
{
    return make(d, bytes, type, also, 0, buf, mem, what);
}

int uvas_gpu_buffer_make_host(struct uvas_vulkan *d, VkDeviceSize bytes, VkBuffer *buf,
                              VkDeviceMemory *mem, const char *what)
{
    return make(d, bytes, UINT32_MAX, VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, buf, mem, what);
}
