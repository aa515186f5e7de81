/* Import of host pages as a transfer buffer. */
#include "migrate/import.h"

#include "uvas.h"
#include "uvas/inject.h"
#include "uvas/status.h"

int uvas_import_host(struct uvas_vulkan *d, void *ptr, size_t len, struct uvas_import *h)
{
    *h = (struct uvas_import){0};
    const VkExternalMemoryHandleTypeFlagBits ht =
        VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    VkMemoryHostPointerPropertiesEXT props = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT};
    VkResult r = d->get_host_ptr_props(d->dev, ht, ptr, &props);
    if (r != VK_SUCCESS || !props.memoryTypeBits)
        return uvas_fail(UVAS_ERR_SYS, "'%s' cannot import host memory at %p (VkResult %d)",
                         d->name, ptr, r);
    VkExternalMemoryBufferCreateInfo ebi = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO, .handleTypes = ht};
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .pNext = &ebi,
                              .size = len,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       uvas_vulkan_addr_usage(d)};
    uvas_vulkan_share(d, &bci);
    r = vkCreateBuffer(d->dev, &bci, NULL, &h->buf);
    if (r != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_SYS, "vkCreateBuffer over host memory failed (VkResult %d)", r);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d->dev, h->buf, &req);
    uint32_t bits = props.memoryTypeBits & req.memoryTypeBits;
    if (!bits) {
        vkDestroyBuffer(d->dev, h->buf, NULL);
        h->buf = VK_NULL_HANDLE;
        return uvas_fail(UVAS_ERR_SYS, "'%s': no memory type fits imported host memory",
                         d->name);
    }
    VkImportMemoryHostPointerInfoEXT imp = {
        .sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT,
        .handleType = ht,
        .pHostPointer = ptr};
    VkMemoryAllocateFlagsInfo fi;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .pNext = uvas_vulkan_addr_alloc(d, &fi, &imp),
                                .allocationSize = len,
                                .memoryTypeIndex = (uint32_t)__builtin_ctz(bits)};
    r = uvas_inject_fail(UVAS_INJ_MAP) ? VK_ERROR_OUT_OF_HOST_MEMORY
                                       : vkAllocateMemory(d->dev, &mai, NULL, &h->mem);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(d->dev, h->buf, NULL);
        h->buf = VK_NULL_HANDLE;
        return uvas_fail(UVAS_ERR_NOMEM, "importing %zu bytes of host memory into '%s' failed "
                         "(VkResult %d)", len, d->name, r);
    }
    vkBindBufferMemory(d->dev, h->buf, h->mem, 0);
    h->addr = uvas_vulkan_address(d, h->buf);
    return UVAS_OK;
}

void uvas_import_release(struct uvas_vulkan *d, struct uvas_import *h)
{
    if (h->buf)
        vkDestroyBuffer(d->dev, h->buf, NULL);
    if (h->mem)
        vkFreeMemory(d->dev, h->mem, NULL);
    *h = (struct uvas_import){0};
}
