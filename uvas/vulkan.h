/*
 * The GPU behind the device tier: a Vulkan device chosen at init (a
 * discrete GPU when there is one, else Mesa lavapipe, else none), its
 * transfer queue, its memory types, the extensions the tier relies on, and
 * where it sits in the machine (hwloc).
 */
#ifndef UVAS_VULKAN_H
#define UVAS_VULKAN_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "uvas/atomics.h"

/* VK_KHR_map_memory2 and VK_EXT_map_memory_placed, newer than Debian 12's
 * Vulkan headers (1.3.239). */
#ifndef VK_EXT_map_memory_placed
#define VK_KHR_MAP_MEMORY_2_EXTENSION_NAME "VK_KHR_map_memory2"
#define VK_EXT_MAP_MEMORY_PLACED_EXTENSION_NAME "VK_EXT_map_memory_placed"
#define UVAS_VK_STYPE_MEMORY_MAP_INFO ((VkStructureType)1000271000)
#define UVAS_VK_STYPE_MEMORY_UNMAP_INFO ((VkStructureType)1000271001)
#define UVAS_VK_STYPE_MAP_PLACED_FEATURES ((VkStructureType)1000272000)
#define UVAS_VK_STYPE_MAP_PLACED_PROPERTIES ((VkStructureType)1000272001)
#define UVAS_VK_STYPE_MEMORY_MAP_PLACED_INFO ((VkStructureType)1000272002)
#define UVAS_VK_MEMORY_MAP_PLACED_BIT 0x1u
#define UVAS_VK_MEMORY_UNMAP_RESERVE_BIT 0x1u
typedef struct {
    VkStructureType sType;
    const void *pNext;
    VkFlags flags;
    VkDeviceMemory memory;
    VkDeviceSize offset;
    VkDeviceSize size;
} UvasVkMemoryMapInfo;
typedef struct {
    VkStructureType sType;
    const void *pNext;
    VkFlags flags;
    VkDeviceMemory memory;
} UvasVkMemoryUnmapInfo;
typedef struct {
    VkStructureType sType;
    const void *pNext;
    void *pPlacedAddress;
} UvasVkMemoryMapPlacedInfo;
typedef struct {
    VkStructureType sType;
    void *pNext;
    VkBool32 memoryMapPlaced;
    VkBool32 memoryMapRangePlaced;
    VkBool32 memoryUnmapReserve;
} UvasVkMapPlacedFeatures;
typedef struct {
    VkStructureType sType;
    void *pNext;
    VkDeviceSize minPlacedMemoryMapAlignment;
} UvasVkMapPlacedProperties;
typedef VkResult(VKAPI_PTR *UvasPfnMapMemory2)(VkDevice, const UvasVkMemoryMapInfo *, void **);
typedef VkResult(VKAPI_PTR *UvasPfnUnmapMemory2)(VkDevice, const UvasVkMemoryUnmapInfo *);
#endif

struct uvas_vulkan {
    VkInstance inst;
    VkPhysicalDevice phys;
    VkDevice dev;
    VkQueue queue;
    uint32_t qfam;
    bool transfer_only;      /* a copy-engine-only queue family */
    pthread_mutex_t qmu;     /* vkQueueSubmit on `queue` (and on cqueue when shared) */
    /* A second queue of a copy-engine-only family (another copy engine):
     * migrations alternate their stages between the two. */
    VkQueue queue2;
    pthread_mutex_t qmu2;
    uint32_t copy_queues;    /* 1 or 2 */
    /* Kernels (gpu/): a compute queue, its own where the device has one. */
    VkQueue cqueue;
    uint32_t cfam;
    bool cqueue_shared;      /* cqueue is `queue`: copies wait behind kernels */
    /* A second queue of the kernels' family where it is not the copy
     * family: zero fills of device memory run there on the GPU's cores,
     * 10-20x faster than on a copy engine (docs/migration.md). NULL: none. */
    VkQueue fqueue;
    /* Kernel runs in flight (gpu/run.c) and fill batches on fqueue in
     * flight (migrate/copy.c): a fill goes to the GPU's cores only while
     * no run is, and a run is submitted only once those fills are done. A
     * kernel that waits (for a fault, or for a flag the CPU sets after a
     * fill) holds the cores the fill would need. */
    _Atomic uint32_t runs, sm_fills;
    uint32_t families[2];    /* qfam, cfam: buffers both use are shared by them */
    uint32_t ctimestamp_bits; /* of cfam: 0, kernels cannot be timed */
    bool kernels;            /* buffer device addresses and 64-bit integers in
                                shaders: uvas pointers can be used by kernels */
    bool f64, atomic_i64, atomic_f32_add, atomic_f64_add;
    uint32_t max_push;       /* push-constant bytes (a kernel's arguments) */
    uint32_t max_groups[3];
    char no_kernels[160];    /* why not, when !kernels */
    int index;               /* in vkEnumeratePhysicalDevices order */
    VkPhysicalDeviceType type;
    char name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    char driver[VK_MAX_DRIVER_NAME_SIZE + VK_MAX_DRIVER_INFO_SIZE + 4];
    VkPhysicalDeviceMemoryProperties mem;
    uint32_t dev_type;       /* memory type index for device blocks */
    VkDeviceSize heap_size;  /* of dev_type's heap */
    /* extensions */
    bool ext_dma_buf;
    bool ext_budget;
    VkExternalMemoryHandleTypeFlagBits export_type; /* dma-buf or opaque fd */
    VkDeviceSize host_import_align;
    /* Placed maps of whole allocations (VK_EXT_map_memory_placed), of
     * host-visible device-local memory: how NVIDIA lets the CPU see a
     * device block at the block's own address. */
    bool placed_map;
    bool exec_props;         /* VK_KHR_pipeline_executable_properties enabled */
    uint32_t map_type;       /* host-visible device-local type */
    VkDeviceSize placed_align;
    UvasPfnMapMemory2 map_memory2;
    UvasPfnUnmapMemory2 unmap_memory2;
    PFN_vkGetMemoryFdKHR get_memory_fd;
    PFN_vkGetMemoryHostPointerPropertiesEXT get_host_ptr_props;
    /* locality */
    int numa_node;           /* -1: unknown */
    char pci[32];            /* bus id, "" when unknown */
    char cpuset[64];         /* hwloc cpuset string of the local CPUs */
};

/* What UVAS_DEVICE asks for. */
#define UVAS_DEV_WANT_AUTO (-1)
#define UVAS_DEV_WANT_NONE (-2)

/*
 * Open the device `want` (an index, AUTO or NONE) with up to copy_queues
 * queues of the copy family (0: two where a copy-engine-only family has
 * them, else one). With AUTO, finding no usable device is not an error:
 * *out is left closed (dev == NULL) and `note` says why. Any other failure
 * is a status with a message.
 */
int uvas_vulkan_open(int want, const char *said, unsigned copy_queues, struct uvas_vulkan *out,
                     char *note, size_t notelen);
void uvas_vulkan_close(struct uvas_vulkan *d);

static inline bool uvas_vulkan_present(const struct uvas_vulkan *d)
{
    return d->dev != VK_NULL_HANDLE;
}

/* "hardware" or "software" (lavapipe and other CPU implementations). */
const char *uvas_vulkan_kind(const struct uvas_vulkan *d);

/* Bytes of device memory the tier may use now (memory budget if the
 * driver reports one, else the heap size). */
VkDeviceSize uvas_vulkan_budget(const struct uvas_vulkan *d);

/*
 * Memory that kernels reach by address (device slabs, imported host
 * pages, gpu/'s tables): buffers get these usage bits and sharing across
 * the transfer and compute families, allocations the device-address flag
 * (chained in front of `next`; the flags info is the caller's storage).
 */
VkBufferUsageFlags uvas_vulkan_addr_usage(const struct uvas_vulkan *d);
void uvas_vulkan_share(const struct uvas_vulkan *d, VkBufferCreateInfo *bci);
const void *uvas_vulkan_addr_alloc(const struct uvas_vulkan *d, VkMemoryAllocateFlagsInfo *fi,
                                   const void *next);
/* A host-visible, coherent memory type among `bits`: preferring one with
 * `also` and without `avoid`, then one without `avoid`, then any
 * (UINT32_MAX: none). The one picker of the floors above (gpu/'s
 * buffers, the staging lanes, the transport's staging buffer). */
uint32_t uvas_vulkan_host_type(const struct uvas_vulkan *d, uint32_t bits,
                               VkMemoryPropertyFlags also, VkMemoryPropertyFlags avoid);
/* A buffer's device address; 0 without kernels. */
VkDeviceAddress uvas_vulkan_address(const struct uvas_vulkan *d, VkBuffer b);

#endif
