/* CPU views of device-resident blocks (see cpuview.h). */
#include "migrate/cpuview.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "migrate/copy.h"
#include "migrate/state.h"
#include "uvas/inject.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"
#include "uvas/uffd.h"

/*
 * Where the driver places a block's view before it is moved over the block
 * (placed maps): a PROT_NONE reservation of the range's size right after
 * the range, block bi's park at the same offset. Moving the view away leaves
 * a hole at its park, and the driver later unmaps "its" mapping there; the
 * park must never be anyone else's in between. A park taken from mmap(NULL)
 * was: another thread's mmap got the hole (found on the H100: the driver's
 * unmap then destroyed that thread's fresh memfd mapping). Holes here, at
 * the low fixed addresses next to the range, are not where the kernel puts
 * mmap(NULL) mappings (top-down from below the stack), and each is
 * reserved again at once.
 */
static pthread_mutex_t park_mu = PTHREAD_MUTEX_INITIALIZER;
static char *park_base;

static void park_reserve(char *park)
{
    void *p;
    uvas_os_reserve(uvas_g.block_size, UVAS_OS_FIXED, park, &p);
}

static char *park_of(size_t bi)
{
    pthread_mutex_lock(&park_mu);
    if (!park_base) {
        char *want = uvas_g.base + uvas_g.size;
        void *p = NULL;
        if (uvas_os_reserve(uvas_g.size, UVAS_OS_NOREPLACE, want, &p)) {
            uvas_fail(UVAS_ERR_NOMEM, "cannot reserve the CPU views' parking area at %p (%zu "
                      "bytes after the range): %s", (void *)want, uvas_g.size,
                      uvas_last_error());
            p = NULL;
        }
        park_base = p;
    }
    char *park = park_base ? park_base + (bi << uvas_g.shift) : NULL;
    pthread_mutex_unlock(&park_mu);
    return park;
}

void uvas_cpuview_fini(void)
{
    pthread_mutex_lock(&park_mu);
    uvas_os_unmap(park_base, uvas_g.size);
    park_base = NULL;
    pthread_mutex_unlock(&park_mu);
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

bool uvas_cpuview_in_place(void)
{
    return uvas_g.uffd.has_remap && by_fd();
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
    rc = uvas_copier_run(&uvas_mg.copier, &op, 1);
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
         * the device memory, which holds the data. Mapped elsewhere and
         * kept from children first, then moved over the block: mapped in
         * place, a fork from another thread before its MADV_DONTFORK gave
         * the child the parent's device memory at the range's address,
         * where its writes landed in the parent's data
         * (test-fork-view-race). */
        int fd;
        VkDeviceSize off;
        uvas_devtier_slot_where(t, b->dev_slot, NULL, &off, &fd);
        void *got;
        if (fd < 0 || uvas_inject_fail(UVAS_INJ_MAP) ||
            uvas_os_map(fd, t->fd_base + off, uvas_g.block_size, UVAS_OS_RW | UVAS_OS_NOFORK,
                        NULL, &got))
            return uvas_fail(UVAS_ERR_SYS, "cannot map device block %zu for the CPU: %s", bi,
                             fd < 0 ? "its slab has no fd" : uvas_last_error());
        if (uvas_os_move(got, uvas_g.block_size, a)) {
            char why[UVAS_MSG_MAX];
            snprintf(why, sizeof why, "%s", uvas_last_error());
            uvas_os_unmap(got, uvas_g.block_size);
            return uvas_fail(UVAS_ERR_SYS, "cannot map device block %zu for the CPU: %s", bi,
                             why);
        }
    } else if (placed()) {
        /* Placed where the driver will later unmap it (a reservation of
         * ours), then moved over the block: so the way back can replace it
         * in one step, and the driver's unmap hits the reservation. */
        int rc = make_dedicated(b);
        if (rc)
            return rc;
        char *park = park_of(bi);
        if (!park)
            return UVAS_ERR_NOMEM; /* the message is park_of's */
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
            if (r == VK_SUCCESS) { /* mapped, but not where asked */
                UvasVkMemoryUnmapInfo ui = {.sType = UVAS_VK_STYPE_MEMORY_UNMAP_INFO,
                                            .memory = mi.memory};
                t->dev.unmap_memory2(t->dev.dev, &ui);
            }
            park_reserve(park);
            return uvas_fail(UVAS_ERR_SYS, "placed map of device block %zu failed (VkResult "
                             "%d%s)", bi, r, r == VK_SUCCESS ? ", at another address" : "");
        }
        uvas_os_nofork(park, uvas_g.block_size); /* before it is at the block's address */
        if (uvas_os_move(park, uvas_g.block_size, a)) {
            char why[UVAS_MSG_MAX], from[200], to[200];
            snprintf(why, sizeof why, "%s", uvas_last_error());
            uvas_os_layout(park, uvas_g.block_size, from, sizeof from);
            uvas_os_layout(a, uvas_g.block_size, to, sizeof to);
            UvasVkMemoryUnmapInfo ui = {.sType = UVAS_VK_STYPE_MEMORY_UNMAP_INFO,
                                        .memory = mi.memory};
            t->dev.unmap_memory2(t->dev.dev, &ui);
            park_reserve(park);
            return uvas_fail(UVAS_ERR_SYS, "cannot move the device mapping of block %zu: %s "
                             "(from %s; to %s)", bi, why, from, to);
        }
        park_reserve(park); /* the hole the move left: the driver will unmap there */
        b->view_park = park;
    } else {
        return uvas_fail(UVAS_ERR_NO_DEVICE, "'%s' offers no CPU mapping of device memory",
                         t->dev.name);
    }
    uvas_os_nofork(a, uvas_g.block_size);
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
    void *t;
    if (uvas_inject_fail(UVAS_INJ_MAP))
        return uvas_fail(UVAS_ERR_SYS, "cannot map block %zu of the host tier back: injected "
                         "failure", bi);
    if (uvas_os_map(uvas_g.memfd, bi << uvas_g.shift, uvas_g.block_size,
                    UVAS_OS_RW | UVAS_OS_NORESERVE | UVAS_OS_NOFORK, NULL, &t))
        return uvas_fail(UVAS_ERR_SYS, "cannot map block %zu of the host tier back: %s", bi,
                         uvas_last_error());
    int e = uvas_uffd_reregister(&uvas_g.uffd, t, uvas_g.block_size);
    if (e || uvas_os_move(t, uvas_g.block_size, a)) {
        char why[UVAS_MSG_MAX];
        snprintf(why, sizeof why, "%s", uvas_last_error());
        char from[200], to[200];
        uvas_os_layout(t, uvas_g.block_size, from, sizeof from);
        uvas_os_layout(a, uvas_g.block_size, to, sizeof to);
        uvas_os_unmap(t, uvas_g.block_size);
        return uvas_fail(UVAS_ERR_SYS, "cannot put block %zu of the host tier back: %s%s "
                         "(from %s; to %s)", bi, e ? "registering it: " : "", why, from, to);
    }
    uvas_os_nofork(a, uvas_g.block_size);
    /* The driver's unmap lands in our reservation. (No slot: it was
     * quarantined by an earlier failure here, its memory stays mapped.) */
    if (b->view_park && b->dev_slot) {
        UvasVkMemoryUnmapInfo ui = {.sType = UVAS_VK_STYPE_MEMORY_UNMAP_INFO,
                                    .memory = uvas_devtier_dedicated_memory(&uvas_g.devtier,
                                                                            b->dev_slot)};
        uvas_g.devtier.dev.unmap_memory2(uvas_g.devtier.dev.dev, &ui);
        park_reserve(b->view_park);
        b->view_park = NULL;
    }
    atomic_store_explicit(&b->cpu_mapped, 0, memory_order_relaxed);
    return UVAS_OK;
}
