/*
 * The device tier's memory: Vulkan device-local memory in slabs, each
 * exported as a file descriptor (dma-buf where the driver offers it, the
 * opaque fd otherwise) and bound to one buffer, carved into block-sized
 * slots. Slabs are allocated on demand up to the tier's capacity.
 */
#ifndef UVAS_DEVTIER_H
#define UVAS_DEVTIER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "uvas/vulkan.h"

struct uvas_dslab {
    VkDeviceMemory mem;
    VkBuffer buf;
    VkDeviceAddress addr; /* for kernels; 0 without */
    int fd; /* exported handle; owned here */
};

/* A block-sized allocation of its own, for blocks the CPU maps where only
 * whole allocations can be mapped at a chosen address (NVIDIA). */
struct uvas_dedicated {
    VkDeviceMemory mem;
    VkBuffer buf;
    VkDeviceAddress addr;
    bool exportable;
};

struct uvas_devtier {
    struct uvas_vulkan dev;
    pthread_mutex_t mu;       /* slots, slabs and the LRU */
    size_t cap_bytes;         /* the most device memory the tier takes */
    size_t slab_bytes;
    uint32_t slots_per_slab;
    struct uvas_dslab *slabs;
    uint32_t nslabs, max_slabs;
    uint32_t *free_slots;     /* stack of free slot numbers */
    uint32_t nfree;
    uint32_t lru_head, lru_tail; /* device-resident blocks, block index + 1 */
    uint64_t retry_ns;        /* the driver refused a slab: no growth before */
    uint32_t refusals;        /* slabs refused in a row (the back-off doubles) */
    bool fd_mappable;         /* the exported slab fd can be mmapped (lavapipe) */
    bool cpu_reads_cached;    /* the CPU reads device memory through its caches (not
                                 a discrete GPU's BAR: uncached, ~10 MB/s) */
    size_t fd_base;           /* where the memory starts in that file */
    size_t block_size;
    struct uvas_dedicated *ded; /* dedicated allocations, slot numbers from ded_base */
    uint32_t nded, cap_ded, *free_ded, nfree_ded;
    uint32_t ded_base;          /* first dedicated slot number */
};

/* Open the device tier; `want` is the UVAS_DEVICE choice, cap_bytes the
 * user's bound (0: the device's budget), copy_queues UVAS_COPY_QUEUES (0:
 * the device's choice). No device is not an error. */
int uvas_devtier_open(struct uvas_devtier *t, int want, size_t cap_bytes, size_t block_size,
                      unsigned copy_queues, char *note, size_t notelen);
void uvas_devtier_close(struct uvas_devtier *t);

static inline bool uvas_devtier_present(const struct uvas_devtier *t)
{
    return uvas_vulkan_present(&t->dev);
}

/* A free slot (slot numbers start at 1, 0 means none); UVAS_ERR_NOMEM when
 * the tier is at capacity. */
int uvas_devtier_slot_alloc(struct uvas_devtier *t, uint32_t *slot);
void uvas_devtier_slot_free(struct uvas_devtier *t, uint32_t slot);
/* Where a slot lives: buffer and offset (copies), fd and offset (peers). */
void uvas_devtier_slot_where(const struct uvas_devtier *t, uint32_t slot, VkBuffer *buf,
                             VkDeviceSize *off, int *fd);
size_t uvas_devtier_capacity_blocks(const struct uvas_devtier *t);
/* The device address of a slot's memory (kernels), 0 without. */
VkDeviceAddress uvas_devtier_slot_address(const struct uvas_devtier *t, uint32_t slot);

/*
 * For the transport layer: a descriptor of the device memory holding a
 * slot, to be imported by a peer (VkImportMemoryFdInfoKHR, then the block
 * is at *mem_off in that memory) or, where the fd maps (lavapipe), mmapped
 * at *map_off. The descriptor is the caller's to close. Status.
 */
int uvas_devtier_export(const struct uvas_devtier *t, uint32_t slot, int *fd, uint64_t *mem_off,
                        uint64_t *map_off);

/* A dedicated, CPU-mappable slot (see struct uvas_dedicated). */
int uvas_devtier_dedicated_alloc(struct uvas_devtier *t, uint32_t *slot);
static inline bool uvas_devtier_is_dedicated(const struct uvas_devtier *t, uint32_t slot)
{
    return slot >= t->ded_base;
}
VkDeviceMemory uvas_devtier_dedicated_memory(const struct uvas_devtier *t, uint32_t slot);

/* Least-recently-migrated order of device-resident blocks (victims). */
void uvas_devtier_lru_add(struct uvas_devtier *t, size_t bi);
void uvas_devtier_lru_remove(struct uvas_devtier *t, size_t bi);
/* Up to max victim candidates, oldest first; returns how many. */
size_t uvas_devtier_lru_oldest(struct uvas_devtier *t, size_t *out, size_t max);

#endif
