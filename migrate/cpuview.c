/* CPU views of device-resident blocks (see cpuview.h). */
#include "migrate/cpuview.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault/uffd.h"
#include "migrate/copy.h"
#include "uvas/inject.h"
#include "uvas/internal.h"
#include "uvas/status.h"

/* mremap(MREMAP_FIXED) as the system call. UCX's memory hooks (libucm,
 * loaded with the transport) patch libc's mremap with a four-argument
 * override that drops the new address, so the libc call would move the
 * mapping somewhere else. */
static void *move_fixed(void *from, size_t len, void *to)
{
    long r = syscall(SYS_mremap, from, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, to);
    return r == -1 ? MAP_FAILED : (void *)r; /* errno set by syscall() */
}

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
    /* Without EVENT_REMAP the way back cannot be made in one step. */
    return uvas_g.uffd.has_remap && (by_fd() || placed());
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
        /* Replacing the (parked) memfd mapping: any access after this sees
         * the device memory, which holds the data. */
        int fd;
        VkDeviceSize off;
        uvas_devtier_slot_where(t, b->dev_slot, NULL, &off, &fd);
        if (fd < 0 || uvas_inject_fail_errno(UVAS_INJ_MAP, ENOMEM) ||
            mmap(a, uvas_g.block_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
                           fd, (off_t)(t->fd_base + off)) == MAP_FAILED)
            return uvas_fail(UVAS_ERR_SYS, "cannot map device block %zu for the CPU: %s", bi,
                             fd < 0 ? "its slab has no fd" : strerror(errno));
    } else if (placed()) {
        /* Placed where the driver will later unmap it (a reservation of
         * ours), then moved over the block: so the way back can replace it
         * in one step, and the driver's unmap hits the reservation. */
        int rc = make_dedicated(b);
        if (rc)
            return rc;
        char *park = mmap(NULL, uvas_g.block_size, PROT_NONE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (park == MAP_FAILED)
            return uvas_fail(UVAS_ERR_NOMEM, "cannot reserve a CPU view: %s", strerror(errno));
        UvasVkMemoryMapPlacedInfo pi = {.sType = UVAS_VK_STYPE_MEMORY_MAP_PLACED_INFO,
                                        .pPlacedAddress = park};
        UvasVkMemoryMapInfo mi = {.sType = UVAS_VK_STYPE_MEMORY_MAP_INFO,
                                  .pNext = &pi,
                                  .flags = UVAS_VK_MEMORY_MAP_PLACED_BIT,
                                  .memory = uvas_devtier_dedicated_memory(t, b->dev_slot),
                                  .offset = 0,
                                  .size = uvas_g.block_size};
        void *got = NULL;
        VkResult r = uvas_inject_fail(UVAS_INJ_MAP) ? VK_ERROR_MEMORY_MAP_FAILED
                                                    : t->dev.map_memory2(t->dev.dev, &mi, &got);
        if (r != VK_SUCCESS || got != park) {
            munmap(park, uvas_g.block_size);
            return uvas_fail(UVAS_ERR_SYS, "placed map of device block %zu failed (VkResult "
                             "%d)", bi, r);
        }
        if (move_fixed(park, uvas_g.block_size, a) == MAP_FAILED) {
            int e = errno;
            UvasVkMemoryUnmapInfo ui = {.sType = UVAS_VK_STYPE_MEMORY_UNMAP_INFO,
                                        .memory = mi.memory};
            t->dev.unmap_memory2(t->dev.dev, &ui);
            munmap(park, uvas_g.block_size);
            return uvas_fail(UVAS_ERR_SYS, "cannot move the device mapping of block %zu: %s",
                             bi, strerror(e));
        }
        /* Keep the driver's address ours until it unmaps it. */
        mmap(park, uvas_g.block_size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE |
             MAP_FIXED_NOREPLACE, -1, 0);
        b->view_park = park;
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
    /*
     * The memfd mapping must come back in one step: mapped, registered and
     * only then moved over the view (mremap keeps the registration with
     * EVENT_REMAP). Mapping it in place and registering after would leave
     * a moment in which a CPU access maps a stale page and writes into
     * it, and the copy back then overwrites that write.
     */
    char *t = uvas_inject_fail_errno(UVAS_INJ_MAP, ENOMEM)
                  ? MAP_FAILED
                  : mmap(NULL, uvas_g.block_size, PROT_READ | PROT_WRITE, MAP_SHARED,
                         uvas_g.memfd, (off_t)(bi << uvas_g.shift));
    if (t == MAP_FAILED)
        return uvas_fail(UVAS_ERR_SYS, "cannot map block %zu of the host tier back: %s", bi,
                         strerror(errno));
    int e = uvas_uffd_reregister(&uvas_g.uffd, t, uvas_g.block_size);
    if (e || move_fixed(t, uvas_g.block_size, a) == MAP_FAILED) {
        int err = e ? -e : errno;
        munmap(t, uvas_g.block_size);
        return uvas_fail(UVAS_ERR_SYS, "cannot put block %zu of the host tier back: %s", bi,
                         strerror(err));
    }
    madvise(a, uvas_g.block_size, MADV_DONTFORK);
    /* The driver's unmap lands in our reservation. (No slot: it was
     * quarantined by an earlier failure here, its memory stays mapped.) */
    if (b->view_park && b->dev_slot) {
        UvasVkMemoryUnmapInfo ui = {.sType = UVAS_VK_STYPE_MEMORY_UNMAP_INFO,
                                    .memory = uvas_devtier_dedicated_memory(&uvas_g.devtier,
                                                                            b->dev_slot)};
        uvas_g.devtier.dev.unmap_memory2(uvas_g.devtier.dev.dev, &ui);
        munmap(b->view_park, uvas_g.block_size);
        b->view_park = NULL;
    }
    atomic_store_explicit(&b->cpu_mapped, 0, memory_order_relaxed);
    return UVAS_OK;
}
