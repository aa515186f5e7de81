/* CPU views of device-resident blocks (see cpuview.h). */
#include "migrate/cpuview.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "fault/uffd.h"
#include "migrate/copy.h"
#include "uvas/internal.h"
#include "uvas/status.h"

static bool by_fd(void)
{
    return uvas_g.devtier.fd_mappable;
}

static bool placed(void)
{
    return !by_fd() && uvas_g.devtier.dev.placed_map;
}

const char *uvas_cpuview_method(void)
{
    return by_fd() ? "fd" : placed() ? "placed" : "none";
}

bool uvas_cpuview_available(void)
{
    return by_fd() || placed();
}

/* Placed maps need the block in an allocation of its own: move it from
 * its slab slot to a dedicated one, device to device. */
static int make_dedicated(struct uvas_block *b)
{
    struct uvas_devtier *t = &uvas_g.devtier;
    if (uvas_devtier_is_dedicated(t, b->dev_slot))
        return UVAS_OK;
    uint32_t slot;
    int rc = uvas_devtier_dedicated_alloc(t, &slot);
    if (rc)
        return rc;
    struct uvas_copy_op op = {.size = uvas_g.block_size};
    uvas_devtier_slot_where(t, b->dev_slot, &op.src, &op.src_off, NULL);
    uvas_devtier_slot_where(t, slot, &op.dst, &op.dst_off, NULL);
    rc = uvas_copier_run(&uvas_g.copier, &op, 1);
    if (rc) {
        uvas_devtier_slot_free(t, slot);
        return rc;
    }
    uvas_devtier_slot_free(t, b->dev_slot);
    b->dev_slot = slot;
    return UVAS_OK;
}

int uvas_cpuview_map(size_t bi)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    struct uvas_devtier *t = &uvas_g.devtier;
    char *a = uvas_block_addr(bi);
    if (atomic_load_explicit(&b->cpu_mapped, memory_order_relaxed))
        return UVAS_OK;
    if (by_fd()) {
        int fd;
        VkDeviceSize off;
        uvas_devtier_slot_where(t, b->dev_slot, NULL, &off, &fd);
        if (fd < 0 || mmap(a, uvas_g.block_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                           fd, (off_t)(t->fd_base + off)) == MAP_FAILED)
            return uvas_fail(UVAS_ERR_SYS, "cannot map device block %zu for the CPU: %s", bi,
                             fd < 0 ? "its slab has no fd" : strerror(errno));
    } else if (placed()) {
        int rc = make_dedicated(b);
        if (rc)
            return rc;
        UvasVkMemoryMapPlacedInfo pi = {.sType = UVAS_VK_STYPE_MEMORY_MAP_PLACED_INFO,
                                        .pPlacedAddress = a};
        UvasVkMemoryMapInfo mi = {.sType = UVAS_VK_STYPE_MEMORY_MAP_INFO,
                                  .pNext = &pi,
                                  .flags = UVAS_VK_MEMORY_MAP_PLACED_BIT,
                                  .memory = uvas_devtier_dedicated_memory(t, b->dev_slot),
                                  .offset = 0,
                                  .size = uvas_g.block_size};
        void *got = NULL;
        VkResult r = t->dev.map_memory2(t->dev.dev, &mi, &got);
        if (r != VK_SUCCESS || got != a)
            return uvas_fail(UVAS_ERR_SYS, "placed map of device block %zu failed (VkResult "
                             "%d)", bi, r);
    } else {
        return uvas_fail(UVAS_ERR_NO_DEVICE, "'%s' offers no CPU mapping of device memory",
                         t->dev.name);
    }
    madvise(a, uvas_g.block_size, MADV_DONTFORK);
    atomic_store_explicit(&b->cpu_mapped, 1, memory_order_relaxed);
    return UVAS_OK;
}

int uvas_cpuview_unmap(size_t bi)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    if (!atomic_load_explicit(&b->cpu_mapped, memory_order_relaxed))
        return UVAS_OK;
    char *a = uvas_block_addr(bi);
    if (placed()) {
        /* Reserve, so no other mmap can land in the hole before ours. */
        UvasVkMemoryUnmapInfo ui = {.sType = UVAS_VK_STYPE_MEMORY_UNMAP_INFO,
                                    .flags = UVAS_VK_MEMORY_UNMAP_RESERVE_BIT,
                                    .memory = uvas_devtier_dedicated_memory(&uvas_g.devtier,
                                                                            b->dev_slot)};
        uvas_g.devtier.dev.unmap_memory2(uvas_g.devtier.dev.dev, &ui);
    }
    if (mmap(a, uvas_g.block_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, uvas_g.memfd,
             (off_t)(bi << uvas_g.shift)) == MAP_FAILED)
        return uvas_fail(UVAS_ERR_SYS, "cannot map block %zu of the host tier back: %s", bi,
                         strerror(errno));
    madvise(a, uvas_g.block_size, MADV_DONTFORK);
    int e = uvas_uffd_reregister(&uvas_g.uffd, a, uvas_g.block_size);
    if (e)
        return uvas_fail(UVAS_ERR_SYS, "cannot watch block %zu again: %s", bi, strerror(-e));
    atomic_store_explicit(&b->cpu_mapped, 0, memory_order_relaxed);
    return UVAS_OK;
}
