/*
 * Host pages as a Vulkan buffer, without a copy: the memfd's pages, seen
 * through the controller's alias mapping, imported with
 * VK_EXT_external_memory_host (migrate/hostcache.h keeps them).
 */
#ifndef UVAS_HOSTBUF_H
#define UVAS_HOSTBUF_H

#include <stddef.h>
#include <vulkan/vulkan.h>

#include "uvas/device.h"

struct uvas_hostbuf {
    VkDeviceMemory mem;
    VkBuffer buf;
    void *view;      /* a mapping made for this import, else NULL */
    size_t view_len;
};

/* ptr and len aligned to the device's import alignment. Status. */
int uvas_hostbuf_import(struct uvas_device *d, void *ptr, size_t len, struct uvas_hostbuf *out);
void uvas_hostbuf_release(struct uvas_device *d, struct uvas_hostbuf *h);

#endif
