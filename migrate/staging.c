/* Staging lanes (staging.h). */
#include "migrate/staging.h"

#include <pthread.h>
#include <stdint.h>

#include "uvas/atomics.h"
#include "uvas/internal.h"

/* Three stages in flight per migrating thread, and a spare: 64 MiB. */
#define LANES 4
/* A stage: at most eight blocks of at most 2 MiB (UVAS_BLOCK_SIZE). */
#define LANE_MAX ((size_t)16 << 20)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint32_t busy;  /* a bit per lane taken */
static _Atomic int state;      /* 0 not tried, 1 made, -1 none (failed or off) */
static VkBuffer buf;
static VkDeviceMemory mem;
static char *map;

static int make(void)
{
    struct uvas_vulkan *d = &uvas_g.devtier.dev;
    int want = uvas_g.cfg.stage_first;
    /* A CPU device (lavapipe) pins nothing: its imports cost no more
     * (UVAS_STAGE_FIRST=1 stages there too, for the tests). */
    if (want == 0 || !d->dev || (want < 0 && d->type == VK_PHYSICAL_DEVICE_TYPE_CPU))
        return -1;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = LANES * LANE_MAX,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    uvas_vulkan_share(d, &bci);
    if (vkCreateBuffer(d->dev, &bci, NULL, &buf) != VK_SUCCESS)
        return -1;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d->dev, buf, &req);
    /* Host memory the driver pins (a GPU's copy engines read it over the
     * bus), cached for the CPU, which writes and reads it. */
    uint32_t t = uvas_vulkan_host_type(d, req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_CACHED_BIT,
                                       VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size,
                               .memoryTypeIndex = t};
    if (t == UINT32_MAX || vkAllocateMemory(d->dev, &ai, NULL, &mem) != VK_SUCCESS) {
        vkDestroyBuffer(d->dev, buf, NULL);
        return -1;
    }
    void *p;
    if (vkBindBufferMemory(d->dev, buf, mem, 0) != VK_SUCCESS ||
        vkMapMemory(d->dev, mem, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS) {
        vkDestroyBuffer(d->dev, buf, NULL);
        vkFreeMemory(d->dev, mem, NULL);
        return -1;
    }
    map = p;
    return 1;
}

/* Status of the lanes: 1 made, -1 none; a caller meeting them half made
 * waits for their maker (the mutex). */
static int made(void)
{
    int s = atomic_load_explicit(&state, ACQ);
    if (s)
        return s;
    pthread_mutex_lock(&mu);
    s = atomic_load_explicit(&state, RLX);
    if (s == 0) {
        s = make();
        atomic_store_explicit(&state, s, REL);
    }
    pthread_mutex_unlock(&mu);
    return s;
}

void uvas_staging_prepare(void)
{
    (void)made();
}

bool uvas_staging_take(size_t bytes, struct uvas_lane *out)
{
    if (bytes > LANE_MAX || made() < 0)
        return false;
    uint32_t b = atomic_load_explicit(&busy, RLX);
    for (;;) {
        uint32_t free_bits = ~b & ((1u << LANES) - 1);
        if (!free_bits)
            return false;
        uint32_t i = (uint32_t)__builtin_ctz(free_bits);
        if (atomic_compare_exchange_weak_explicit(&busy, &b, b | (1u << i), ACQ_REL, RLX)) {
            *out = (struct uvas_lane){(int)i, map + i * LANE_MAX, buf, i * LANE_MAX};
            return true;
        }
    }
}

void uvas_staging_give(struct uvas_lane *l)
{
    if (l->index >= 0)
        atomic_fetch_and_explicit(&busy, ~(1u << l->index), ACQ_REL);
    l->index = -1;
}

void uvas_staging_fini(void)
{
    pthread_mutex_lock(&mu);
    if (state > 0) {
        struct uvas_vulkan *d = &uvas_g.devtier.dev;
        vkUnmapMemory(d->dev, mem);
        vkDestroyBuffer(d->dev, buf, NULL);
        vkFreeMemory(d->dev, mem, NULL);
    }
    atomic_store_explicit(&state, 0, REL);
    atomic_store_explicit(&busy, 0, REL);
    pthread_mutex_unlock(&mu);
}
