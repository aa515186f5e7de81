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

/* Device memory another process exported (a shared pool's slab), imported
 * into this device: its blocks take slot numbers from UVAS_DEVTIER_FOREIGN0. */
struct uvas_foreign {
    VkDeviceMemory mem;
    VkBuffer buf;
    VkDeviceAddress addr;
    int fd;        /* kept for CPU views where the descriptor maps, else -1 */
    uint32_t refs; /* slots on it, plus one while its importer holds it */
};

struct uvas_fslot {
    uint32_t mem; /* index in frn */
    VkDeviceSize off;
};

#define UVAS_DEVTIER_FOREIGN0 0x80000000u
/* Read without the lock by whoever holds a slot number: so the tables
 * never move (a fixed array, chunks of slots that stay). */
#define UVAS_DEVTIER_MAX_FOREIGN 4096u
#define UVAS_FSLOT_CHUNK 1024u
#define UVAS_FSLOT_CHUNKS 4096u

struct uvas_devtier {
    struct uvas_vulkan dev;
    pthread_mutex_t mu;       /* slots, slabs and the LRU */
    size_t cap_bytes;         /* the most device memory the tier takes */
    size_t slab_bytes;
    uint32_t slots_per_slab;
    struct uvas_dslab *slabs;
    uint32_t nslabs, max_slabs;
    /* Free slab slots, a bit per slot (slot numbers from 1): the lowest
     * free one is handed out, so blocks placed one after another get
     * consecutive slots, and kernels reach a run of them at one delta
     * (gpu/hold.c's runs). free_lo: no free bit below this word. */
    uint64_t *free_map;
    uint32_t nfree, free_lo;
    uint32_t lru_head, lru_tail; /* device-resident blocks, block index + 1 */
    uint64_t retry_ns;        /* the driver refused a slab: no growth before */
    uint32_t refusals;        /* slabs refused in a row (the back-off doubles) */
    bool fd_mappable;         /* the exported slab fd can be mmapped (lavapipe) */
    /* Exports are made apart (uvas_os_fd_apart), close-on-exec from their
     * birth: the first one, made in the process's table, showed that the
     * driver's call keeps no file of its own open (devtier.c). */
    bool export_apart, export_probed;
    bool cpu_reads_cached;    /* the CPU reads device memory through its caches (not
                                 a discrete GPU's BAR: uncached, ~10 MB/s) */
    size_t fd_base;           /* where the memory starts in that file */
    size_t block_size;
    struct uvas_dedicated *ded; /* dedicated allocations, slot numbers from ded_base */
    uint32_t nded, cap_ded, *free_ded, nfree_ded;
    uint32_t ded_base;          /* first dedicated slot number */
    struct uvas_foreign *frn;   /* imported memory (uvas_devtier_import) */
    uint32_t nfrn;
    struct uvas_fslot **fs;     /* foreign slots by chunk, from UVAS_DEVTIER_FOREIGN0 */
    uint32_t nfs, *free_fs, nfree_fs, cap_free_fs;
};

/* Open the device tier; `want` is the UVAS_DEVICE choice (`said`: as the
 * program made it, for messages), cap_bytes the user's bound (0: the
 * device's budget), copy_queues UVAS_COPY_QUEUES (0: the device's choice).
 * No device is not an error. */
int uvas_devtier_open(struct uvas_devtier *t, int want, const char *said, size_t cap_bytes,
                      size_t block_size, unsigned copy_queues, char *note, size_t notelen);
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
/* Blocks the tier can still take without evicting (slabs it may yet
 * grow included). */
size_t uvas_devtier_room_blocks(struct uvas_devtier *t);
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
    return slot >= t->ded_base && slot < UVAS_DEVTIER_FOREIGN0;
}
VkDeviceMemory uvas_devtier_dedicated_memory(const struct uvas_devtier *t, uint32_t slot);

/* A descriptor passed from another process, made ready to import: where
 * slab descriptors are memory files (lavapipe), a new open description of
 * the same file (fd closed), else fd itself. Mesa's import seeks to 0 and
 * reads a header, and a passed descriptor shares its file offset with the
 * owner's and every other importer's: two processes importing one slab
 * at once read at each other's offsets, and an import failed with
 * VK_ERROR_INVALID_EXTERNAL_HANDLE (CI's sanitizer run, Nov 28,
 * docs/reliability.md). */
int uvas_devtier_own_fd(const struct uvas_devtier *t, int fd);

/*
 * Memory another process of the node exported from its device tier (a
 * slab of slab_bytes), imported through fd, which is consumed: *id names
 * it. A slot on it at off (uvas_devtier_foreign_slot) is a block whose
 * memory is that process's; freeing the slot drops the reference, and the
 * memory goes when uvas_devtier_foreign_put has dropped the importer's
 * own. The same device only (the caller compares the deviceUUIDs).
 * fd_base: where the memory starts in the exporter's descriptor (its CPU
 * views map it there), SIZE_MAX if it does not map.
 */
int uvas_devtier_import(struct uvas_devtier *t, int fd, size_t slab_bytes, size_t fd_base,
                        uint32_t *id);
int uvas_devtier_foreign_slot(struct uvas_devtier *t, uint32_t id, VkDeviceSize off,
                              uint32_t *slot);
void uvas_devtier_foreign_put(struct uvas_devtier *t, uint32_t id);
static inline bool uvas_devtier_is_foreign(uint32_t slot)
{
    return slot >= UVAS_DEVTIER_FOREIGN0;
}
/* This device's deviceUUID (VkPhysicalDeviceIDProperties). */
void uvas_devtier_uuid(const struct uvas_devtier *t, uint8_t out[16]);

/* Least-recently-migrated order of device-resident blocks (victims). */
void uvas_devtier_lru_add(struct uvas_devtier *t, size_t bi);
void uvas_devtier_lru_remove(struct uvas_devtier *t, size_t bi);
/* Up to max victim candidates, oldest first; returns how many. */
size_t uvas_devtier_lru_oldest(struct uvas_devtier *t, size_t *out, size_t max);

#endif
