/*
 * Host pages as a Vulkan buffer, without a copy: the memfd's pages, seen
 * through the controller's alias mapping, imported with
 * VK_EXT_external_memory_host (migrate/import_cache.h keeps them).
 */
#ifndef UVAS_IMPORT_H
#define UVAS_IMPORT_H

#include <stddef.h>
#include <vulkan/vulkan.h>

#include "uvas/vulkan.h"

struct uvas_import {
    VkDeviceMemory mem;
    VkBuffer buf;
    VkDeviceAddress addr; /* for kernels; 0 without */
    void *view;      /* a mapping made for this import, else NULL */
    size_t view_len;
};

/* ptr and len aligned to the device's import alignment. Status. */
int uvas_import_host(struct uvas_vulkan *d, void *ptr, size_t len, struct uvas_import *out);
void uvas_import_release(struct uvas_vulkan *d, struct uvas_import *h);

#endif
