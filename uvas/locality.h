/*
 * Putting work near the GPU: the host tier's pages preferably on the GPU's
 * NUMA node (migrations then cross one link, not two), and the migration
 * worker on the GPU's local cores. Where hwloc knows no PCI locality (a
 * VM, lavapipe) or the machine has one NUMA node, nothing is changed.
 */
#ifndef UVAS_LOCALITY_H
#define UVAS_LOCALITY_H

#include <stddef.h>

#include "uvas/vulkan.h"

/* Prefer the device's node for [base, base+size). 1 if applied. */
int uvas_locality_bind_memory(const struct uvas_vulkan *d, void *base, size_t size);
/* Run the calling thread on the device's local cores. 1 if applied. */
int uvas_locality_bind_thread(const struct uvas_vulkan *d);

#endif
