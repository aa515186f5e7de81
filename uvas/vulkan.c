/* Vulkan device discovery and selection for the device tier. */
#include "uvas/vulkan.h"

#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uvas.h"
#include "uvas/os.h"
#include "uvas/status.h"

static bool has_ext(const VkExtensionProperties *e, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(e[i].extensionName, name))
            return true;
    return false;
}

static int type_score(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 4;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 3;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 1;
    default: return 0;
    }
}

const char *uvas_vulkan_kind(const struct uvas_vulkan *d)
{
    return d->type == VK_PHYSICAL_DEVICE_TYPE_CPU ? "software" : "hardware";
}

/* Why a physical device cannot back the tier, or NULL if it can. */
struct exts {
    bool dma_buf, budget, pci, placed, atomic_float, exec_props;
};

static const char *unusable(VkPhysicalDevice p, struct exts *x)
{
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(p, NULL, &n, NULL);
    VkExtensionProperties *e = calloc(n ? n : 1, sizeof *e);
    if (!e)
        return "out of memory";
    vkEnumerateDeviceExtensionProperties(p, NULL, &n, e);
    const char *why = NULL;
    if (!has_ext(e, n, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
        why = "no VK_KHR_external_memory_fd (device memory cannot be exported)";
    else if (!has_ext(e, n, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME))
        why = "no VK_EXT_external_memory_host (host pages cannot be copied without staging)";
    x->dma_buf = has_ext(e, n, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME);
    x->budget = has_ext(e, n, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
    x->pci = has_ext(e, n, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
    x->placed = has_ext(e, n, VK_EXT_MAP_MEMORY_PLACED_EXTENSION_NAME) &&
                has_ext(e, n, VK_KHR_MAP_MEMORY_2_EXTENSION_NAME);
    x->atomic_float = has_ext(e, n, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    x->exec_props = has_ext(e, n, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    free(e);
    if (!why) {
        VkPhysicalDeviceVulkan12Features f12 = {
            .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                       .pNext = &f12};
        vkGetPhysicalDeviceFeatures2(p, &f);
        if (!f12.timelineSemaphore)
            why = "no timeline semaphores";
    }
    return why;
}

/* The device's queue families (at most 32, in q): how many. */
static uint32_t families(const struct uvas_vulkan *d, VkQueueFamilyProperties q[32])
{
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &n, NULL);
    if (n > 32)
        n = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(d->phys, &n, q);
    return n;
}

static void pick_queue(struct uvas_vulkan *d, unsigned copy_queues)
{
    VkQueueFamilyProperties q[32];
    uint32_t n = families(d, q);
    const VkQueueFlags gc = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    d->qfam = 0;
    d->copy_queues = 1;
    /* A copy-engine-only family first: migrations then run beside the
     * application's compute work instead of queueing behind it. Where it
     * has two queues, they are two engines' worth of copies in flight (a
     * shared family's second queue goes to the kernels instead). */
    for (uint32_t i = 0; i < n; i++)
        if ((q[i].queueFlags & VK_QUEUE_TRANSFER_BIT) && !(q[i].queueFlags & gc)) {
            d->qfam = i;
            d->transfer_only = true;
            if (q[i].queueCount >= 2 && copy_queues != 1)
                d->copy_queues = 2;
            return;
        }
    for (uint32_t i = 0; i < n; i++)
        if (q[i].queueFlags & (gc | VK_QUEUE_TRANSFER_BIT)) {
            d->qfam = i;
            break;
        }
}

/* The kernels' queue: a compute family without graphics first (NVIDIA's
 * async compute), else any with compute; a second queue of the copies'
 * family if it has one, else that very queue, shared. *index: in cfam. */
static void pick_compute(struct uvas_vulkan *d, uint32_t *index)
{
    VkQueueFamilyProperties q[32];
    uint32_t n = families(d, q);
    uint32_t pick = UINT32_MAX;
    for (uint32_t i = 0; i < n && pick == UINT32_MAX; i++)
        if ((q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && !(q[i].queueFlags & VK_QUEUE_GRAPHICS_BIT))
            pick = i;
    for (uint32_t i = 0; i < n && pick == UINT32_MAX; i++)
        if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
            pick = i;
    d->cfam = pick;
    d->ctimestamp_bits = pick < n ? q[pick].timestampValidBits : 0;
    *index = 0;
    if (pick == d->qfam) {
        d->cqueue_shared = q[pick].queueCount < 2;
        *index = d->cqueue_shared ? 0 : 1;
    }
}

/* Queues of the kernels' family for zero fills (uvas_vulkan.fqueue): one
 * where it has a second queue, 0 where it has not or is the copy family
 * (whose fills stay with the copies). */
static uint32_t fill_queues(const struct uvas_vulkan *d)
{
    VkQueueFamilyProperties q[32];
    uint32_t n = families(d, q);
    return d->cfam < n && d->cfam != d->qfam && q[d->cfam].queueCount >= 2 ? 1 : 0;
}

/* Can kernels use uvas pointers here? They need buffer device addresses
 * and 64-bit integers; the rest (float64, 64-bit and float atomics) is
 * used where present. */
static void probe_kernels(struct uvas_vulkan *d, const struct exts *x,
                          VkPhysicalDeviceFeatures *f10, VkPhysicalDeviceVulkan12Features *f12,
                          VkPhysicalDeviceShaderAtomicFloatFeaturesEXT *af)
{
    VkPhysicalDeviceVulkan12Features g12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT gaf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
    if (x->atomic_float)
        g12.pNext = &gaf;
    VkPhysicalDeviceFeatures2 f = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                   .pNext = &g12};
    vkGetPhysicalDeviceFeatures2(d->phys, &f);
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(d->phys, &p);
    d->max_push = p.limits.maxPushConstantsSize;
    memcpy(d->max_groups, p.limits.maxComputeWorkGroupCount, sizeof d->max_groups);
    if (d->cfam == UINT32_MAX)
        snprintf(d->no_kernels, sizeof d->no_kernels, "'%.64s' has no compute queue", d->name);
    else if (!g12.bufferDeviceAddress)
        snprintf(d->no_kernels, sizeof d->no_kernels,
                 "'%.64s' lacks bufferDeviceAddress (Vulkan 1.2)", d->name);
    else if (!f.features.shaderInt64)
        snprintf(d->no_kernels, sizeof d->no_kernels, "'%.64s' lacks shaderInt64", d->name);
    d->kernels = !d->no_kernels[0];
    if (!d->kernels)
        return;
    f12->bufferDeviceAddress = VK_TRUE;
    f10->shaderInt64 = VK_TRUE;
    f10->shaderFloat64 = f.features.shaderFloat64;
    f12->shaderBufferInt64Atomics = g12.shaderBufferInt64Atomics;
    d->f64 = f10->shaderFloat64;
    d->atomic_i64 = f12->shaderBufferInt64Atomics;
    if (x->atomic_float) {
        af->shaderBufferFloat32AtomicAdd = gaf.shaderBufferFloat32AtomicAdd;
        af->shaderBufferFloat64AtomicAdd = gaf.shaderBufferFloat64AtomicAdd;
        d->atomic_f32_add = af->shaderBufferFloat32AtomicAdd;
        d->atomic_f64_add = af->shaderBufferFloat64AtomicAdd;
        af->shaderBufferFloat32Atomics = gaf.shaderBufferFloat32Atomics;
        af->shaderBufferFloat64Atomics = gaf.shaderBufferFloat64Atomics;
    }
}

/* Device-local memory that can be exported with the chosen handle type;
 * not host-visible when there is a choice, so the BAR stays for explicit
 * CPU mappings. */
static bool pick_memory(struct uvas_vulkan *d)
{
    vkGetPhysicalDeviceMemoryProperties(d->phys, &d->mem);
    VkPhysicalDeviceExternalBufferInfo bi = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO,
        .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
    };
    VkExternalBufferProperties bp = {.sType = VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    d->export_type = 0;
    VkExternalMemoryHandleTypeFlagBits cand[2] = {
        VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT,
        VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT};
    for (int c = d->ext_dma_buf ? 0 : 1; c < 2 && !d->export_type; c++) {
        bi.handleType = cand[c];
        vkGetPhysicalDeviceExternalBufferProperties(d->phys, &bi, &bp);
        if (bp.externalMemoryProperties.externalMemoryFeatures &
            VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT)
            d->export_type = cand[c];
    }
    if (!d->export_type)
        return false;
    int best = -1;
    for (uint32_t i = 0; i < d->mem.memoryTypeCount; i++) {
        VkMemoryPropertyFlags f = d->mem.memoryTypes[i].propertyFlags;
        if (!(f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) || (f & VK_MEMORY_PROPERTY_PROTECTED_BIT))
            continue;
        if (best < 0 || ((d->mem.memoryTypes[best].propertyFlags &
                          VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) &&
                         !(f & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)))
            best = (int)i;
    }
    if (best < 0)
        return false;
    d->dev_type = (uint32_t)best;
    d->heap_size = d->mem.memoryHeaps[d->mem.memoryTypes[best].heapIndex].size;
    return true;
}

static void locate(struct uvas_vulkan *d, bool pci_ext)
{
    d->numa_node = -1;
    if (!pci_ext)
        return;
    VkPhysicalDevicePCIBusInfoPropertiesEXT pci = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &pci};
    vkGetPhysicalDeviceProperties2(d->phys, &p2);
    snprintf(d->pci, sizeof d->pci, "%04x:%02x:%02x.%x", pci.pciDomain, pci.pciBus,
             pci.pciDevice, pci.pciFunction);
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo))
        return;
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if (hwloc_topology_load(topo) == 0) {
        hwloc_obj_t o = hwloc_get_pcidev_by_busid(topo, pci.pciDomain, pci.pciBus,
                                                  pci.pciDevice, pci.pciFunction);
        hwloc_obj_t a = o ? hwloc_get_non_io_ancestor_obj(topo, o) : NULL;
        if (a && a->cpuset)
            hwloc_bitmap_list_snprintf(d->cpuset, sizeof d->cpuset, a->cpuset);
        if (a && a->nodeset && hwloc_bitmap_weight(a->nodeset) == 1)
            d->numa_node = hwloc_bitmap_first(a->nodeset);
    }
    hwloc_topology_destroy(topo);
}

/* Placed maps need the feature, unmap-with-reserve (so the range never
 * has a hole another mmap could take), and host-visible device memory. */
static void probe_placed(struct uvas_vulkan *d, UvasVkMapPlacedFeatures *f)
{
    *f = (UvasVkMapPlacedFeatures){.sType = UVAS_VK_STYPE_MAP_PLACED_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = f};
    vkGetPhysicalDeviceFeatures2(d->phys, &f2);
    UvasVkMapPlacedProperties pp = {.sType = UVAS_VK_STYPE_MAP_PLACED_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &pp};
    vkGetPhysicalDeviceProperties2(d->phys, &p2);
    d->placed_align = pp.minPlacedMemoryMapAlignment;
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                       VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    d->map_type = UINT32_MAX;
    for (uint32_t i = 0; i < d->mem.memoryTypeCount && d->map_type == UINT32_MAX; i++)
        if ((d->mem.memoryTypes[i].propertyFlags & want) == want)
            d->map_type = i;
    d->placed_map = f->memoryMapPlaced && f->memoryUnmapReserve && d->map_type != UINT32_MAX &&
                    d->placed_align <= UVAS_PAGE;
}

static int create_device(struct uvas_vulkan *d, const struct exts *x)
{
    const char *exts[8];
    uint32_t ne = 0;
    exts[ne++] = VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
    exts[ne++] = VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME;
    if (d->export_type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT)
        exts[ne++] = VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME;
    if (x->budget)
        exts[ne++] = VK_EXT_MEMORY_BUDGET_EXTENSION_NAME;
    UvasVkMapPlacedFeatures placed = {.sType = UVAS_VK_STYPE_MAP_PLACED_FEATURES};
    if (x->placed)
        probe_placed(d, &placed);
    if (d->placed_map) {
        exts[ne++] = VK_KHR_MAP_MEMORY_2_EXTENSION_NAME;
        exts[ne++] = VK_EXT_MAP_MEMORY_PLACED_EXTENSION_NAME;
        placed.memoryMapRangePlaced = VK_FALSE; /* not needed: whole allocations */
    }
    uint32_t cindex;
    pick_compute(d, &cindex);
    VkPhysicalDeviceFeatures f10 = {0};
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT af = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT,
        .pNext = d->placed_map ? &placed : NULL};
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .pNext = x->atomic_float ? (void *)&af : af.pNext,
        .timelineSemaphore = VK_TRUE};
    probe_kernels(d, x, &f10, &f12, &af);
    if (d->atomic_f32_add || d->atomic_f64_add)
        exts[ne++] = VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME;
    else
        f12.pNext = af.pNext;
    /* What the compiler made of a kernel (uvas_kernel_stats): enabling it
     * changes nothing until a pipeline asks to capture statistics. */
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR ep = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    if (x->exec_props && d->kernels) {
        VkPhysicalDeviceFeatures2 g = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                       .pNext = &ep};
        vkGetPhysicalDeviceFeatures2(d->phys, &g);
        if (ep.pipelineExecutableInfo) {
            exts[ne++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
            ep.pNext = f12.pNext;
            f12.pNext = &ep;
            d->exec_props = true;
        }
    }
    float prio[2] = {1.0f, 1.0f};
    VkDeviceQueueCreateInfo q[2] = {{.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                     .queueFamilyIndex = d->qfam,
                                     .queueCount = 1,
                                     .pQueuePriorities = prio}};
    uint32_t nq = 1;
    q[0].queueCount = d->copy_queues; /* a transfer-only family: no kernels there */
    if (d->kernels && d->cfam == d->qfam)
        q[0].queueCount = cindex + 1;
    else if (d->kernels)
        q[nq++] = (VkDeviceQueueCreateInfo){.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                            .queueFamilyIndex = d->cfam,
                                            .queueCount = fill_queues(d) + 1,
                                            .pQueuePriorities = prio};
    VkDeviceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .pNext = &f12,
                             .queueCreateInfoCount = nq,
                             .pQueueCreateInfos = q,
                             .enabledExtensionCount = ne,
                             .ppEnabledExtensionNames = exts,
                             .pEnabledFeatures = &f10};
    VkResult r = vkCreateDevice(d->phys, &ci, NULL, &d->dev);
    if (r != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_NO_DEVICE, "vkCreateDevice on '%s' failed (VkResult %d)",
                         d->name, r);
    d->ext_budget = x->budget;
    if (d->placed_map) {
        d->map_memory2 = (UvasPfnMapMemory2)vkGetDeviceProcAddr(d->dev, "vkMapMemory2KHR");
        d->unmap_memory2 = (UvasPfnUnmapMemory2)vkGetDeviceProcAddr(d->dev, "vkUnmapMemory2KHR");
        d->placed_map = d->map_memory2 && d->unmap_memory2;
    }
    vkGetDeviceQueue(d->dev, d->qfam, 0, &d->queue);
    if (d->copy_queues == 2)
        vkGetDeviceQueue(d->dev, d->qfam, 1, &d->queue2);
    pthread_mutex_init(&d->qmu2, NULL);
    if (d->kernels)
        vkGetDeviceQueue(d->dev, d->cfam, cindex, &d->cqueue);
    if (d->kernels && d->cfam != d->qfam && fill_queues(d))
        vkGetDeviceQueue(d->dev, d->cfam, 1, &d->fqueue);
    d->families[0] = d->qfam;
    d->families[1] = d->cfam;
    pthread_mutex_init(&d->qmu, NULL);
    d->get_memory_fd = (PFN_vkGetMemoryFdKHR)vkGetDeviceProcAddr(d->dev, "vkGetMemoryFdKHR");
    d->get_host_ptr_props = (PFN_vkGetMemoryHostPointerPropertiesEXT)vkGetDeviceProcAddr(
        d->dev, "vkGetMemoryHostPointerPropertiesEXT");
    VkPhysicalDeviceExternalMemoryHostPropertiesEXT hp = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &hp};
    vkGetPhysicalDeviceProperties2(d->phys, &p2);
    d->host_import_align = hp.minImportedHostPointerAlignment;
    if (!d->get_memory_fd || !d->get_host_ptr_props)
        return uvas_fail(UVAS_ERR_NO_DEVICE, "'%s' lacks the external memory entry points",
                         d->name);
    return UVAS_OK;
}

/* How the program chose device `want`, for a message. */
static const char *said_or(const char *said, int want)
{
    static _Thread_local char b[32];
    if (said && *said)
        return said;
    snprintf(b, sizeof b, "UVAS_DEVICE=%d", want);
    return b;
}

int uvas_vulkan_open(int want, const char *said, unsigned copy_queues, struct uvas_vulkan *d, char *note,
                     size_t notelen)
{
    memset(d, 0, sizeof *d);
    d->numa_node = -1;
    if (want == UVAS_DEV_WANT_NONE) {
        snprintf(note, notelen, "no device tier (UVAS_DEVICE=none)");
        return UVAS_OK;
    }
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "uvas",
                             .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app};
    VkResult r = vkCreateInstance(&ici, NULL, &d->inst);
    if (r != VK_SUCCESS) {
        d->inst = VK_NULL_HANDLE;
        snprintf(note, notelen, "no Vulkan driver could be loaded (vkCreateInstance: %d)", r);
        return want == UVAS_DEV_WANT_AUTO
                   ? UVAS_OK
                   : uvas_fail(UVAS_ERR_NO_DEVICE, "%s: %s", said_or(said, want), note);
    }
    uint32_t n = 0;
    vkEnumeratePhysicalDevices(d->inst, &n, NULL);
    VkPhysicalDevice phys[16];
    if (n > 16)
        n = 16;
    vkEnumeratePhysicalDevices(d->inst, &n, phys);
    if (want >= 0 && (uint32_t)want >= n) {
        vkDestroyInstance(d->inst, NULL);
        d->inst = VK_NULL_HANDLE;
        return uvas_fail(UVAS_ERR_NO_DEVICE, "%s: only %u Vulkan device(s) here",
                         said_or(said, want), n);
    }
    int best = -1, best_score = -1;
    struct exts x[16];
    char why[256] = "no Vulkan device";
    for (uint32_t i = 0; i < n; i++) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(phys[i], &p);
        const char *u = unusable(phys[i], &x[i]);
        if (u) {
            snprintf(why, sizeof why, "'%.200s': %s", p.deviceName, u);
            if (want == (int)i) {
                vkDestroyInstance(d->inst, NULL);
                d->inst = VK_NULL_HANDLE;
                return uvas_fail(UVAS_ERR_NO_DEVICE, "%s: %s", said_or(said, want), why);
            }
            continue;
        }
        int s = want == (int)i ? 100 : type_score(p.deviceType);
        if (s > best_score) {
            best = (int)i;
            best_score = s;
        }
    }
    if (best < 0) {
        vkDestroyInstance(d->inst, NULL);
        d->inst = VK_NULL_HANDLE;
        snprintf(note, notelen, "no usable Vulkan device: %s", why);
        return UVAS_OK;
    }
    d->phys = phys[best];
    d->index = best;
    d->ext_dma_buf = x[best].dma_buf;
    VkPhysicalDeviceDriverProperties drv = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &drv};
    vkGetPhysicalDeviceProperties2(d->phys, &p2);
    d->type = p2.properties.deviceType;
    snprintf(d->name, sizeof d->name, "%s", p2.properties.deviceName);
    snprintf(d->driver, sizeof d->driver, "%.*s %.*s", VK_MAX_DRIVER_NAME_SIZE, drv.driverName,
             VK_MAX_DRIVER_INFO_SIZE, drv.driverInfo);
    pick_queue(d, copy_queues);
    int rc = UVAS_OK;
    if (!pick_memory(d))
        rc = uvas_fail(UVAS_ERR_NO_DEVICE, "'%s' has no exportable device-local memory",
                       d->name);
    else
        rc = create_device(d, &x[best]);
    if (rc) {
        uvas_vulkan_close(d);
        if (want == UVAS_DEV_WANT_AUTO) {
            snprintf(note, notelen, "%s", uvas_last_error());
            return UVAS_OK;
        }
        return rc;
    }
    locate(d, x[best].pci);
    snprintf(note, notelen, "%s (%s, %s), export %s, %s", d->name, uvas_vulkan_kind(d),
             d->driver, d->export_type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
                            ? "dma-buf" : "opaque fd",
             !d->transfer_only ? "shared queue"
             : d->copy_queues == 2 ? "2 transfer-only queues" : "transfer-only queue");
    return UVAS_OK;
}

void uvas_vulkan_close(struct uvas_vulkan *d)
{
    if (d->dev) {
        vkDestroyDevice(d->dev, NULL);
        pthread_mutex_destroy(&d->qmu);
        pthread_mutex_destroy(&d->qmu2);
    }
    if (d->inst)
        vkDestroyInstance(d->inst, NULL);
    d->dev = VK_NULL_HANDLE;
    d->inst = VK_NULL_HANDLE;
}

VkDeviceSize uvas_vulkan_budget(const struct uvas_vulkan *d)
{
    if (!d->ext_budget)
        return d->heap_size;
    VkPhysicalDeviceMemoryBudgetPropertiesEXT b = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 m = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, .pNext = &b};
    vkGetPhysicalDeviceMemoryProperties2(d->phys, &m);
    return b.heapBudget[d->mem.memoryTypes[d->dev_type].heapIndex];
}

VkBufferUsageFlags uvas_vulkan_addr_usage(const struct uvas_vulkan *d)
{
    return d->kernels ? VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                            VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT
                      : 0;
}

void uvas_vulkan_share(const struct uvas_vulkan *d, VkBufferCreateInfo *bci)
{
    if (!d->kernels || d->cfam == d->qfam) {
        bci->sharingMode = VK_SHARING_MODE_EXCLUSIVE;
        return;
    }
    /* Copies and kernels use the same memory without ownership transfers. */
    bci->sharingMode = VK_SHARING_MODE_CONCURRENT;
    bci->queueFamilyIndexCount = 2;
    bci->pQueueFamilyIndices = d->families;
}

const void *uvas_vulkan_addr_alloc(const struct uvas_vulkan *d, VkMemoryAllocateFlagsInfo *fi,
                                   const void *next)
{
    if (!d->kernels)
        return next;
    *fi = (VkMemoryAllocateFlagsInfo){.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO,
                                      .pNext = next,
                                      .flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT};
    return fi;
}

VkDeviceAddress uvas_vulkan_address(const struct uvas_vulkan *d, VkBuffer b)
{
    if (!d->kernels || !b)
        return 0;
    VkBufferDeviceAddressInfo ai = {.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO,
                                    .buffer = b};
    return vkGetBufferDeviceAddress(d->dev, &ai);
}

uint32_t uvas_vulkan_host_type(const struct uvas_vulkan *d, uint32_t bits,
                               VkMemoryPropertyFlags also, VkMemoryPropertyFlags avoid)
{
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                       VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkMemoryPropertyFlags want[4] = {host | also, host, host | also, host};
    for (int w = 0; w < 4; w++)
        for (uint32_t i = 0; i < d->mem.memoryTypeCount; i++) {
            VkMemoryPropertyFlags f = d->mem.memoryTypes[i].propertyFlags;
            if ((bits & (1u << i)) && (f & want[w]) == want[w] && (w >= 2 || !(f & avoid)))
                return i;
        }
    return UINT32_MAX;
}
