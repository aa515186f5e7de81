/*
 * Buffers the GPU floor makes for itself (the translation table, the
 * fault sink, the access counters, the request ring): storage buffers
 * with a device address, in host-visible coherent memory or in a memory
 * type the caller names.
 */
#ifndef UVAS_GPU_BUFFER_H
#define UVAS_GPU_BUFFER_H

#include <vulkan/vulkan.h>

#include "uvas/vulkan.h"

/* A buffer of `bytes` in memory of type `type`, or, with UINT32_MAX,
 * host-visible coherent memory, preferably also with the properties
 * `also` (memory that is not coherent would need flushes and
 * invalidations its users do not make). `what` names it in the error.
 * Status. */
int uvas_gpu_buffer_make(struct uvas_vulkan *d, VkDeviceSize bytes, uint32_t type,
                         VkMemoryPropertyFlags also, VkBuffer *buf, VkDeviceMemory *mem,
                         const char *what);

/* The same in host memory: host-visible coherent, not device-local where
 * the device has both kinds, cached where offered (what the host reads
 * often and the device only writes). Status. */
int uvas_gpu_buffer_make_host(struct uvas_vulkan *d, VkDeviceSize bytes, VkBuffer *buf,
                              VkDeviceMemory *mem, const char *what);

#endif
