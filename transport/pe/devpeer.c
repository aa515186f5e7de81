/*
 * The device side of transfers: a peer's device slabs imported into this
 * PE's Vulkan device through the descriptors the peer exported (same GPU
 * only: the deviceUUIDs must match), and copies between them, our own
 * slots and host memory. Host memory of any kind takes part through a
 * staging buffer (host-visible, coherent): the source may be the stack,
 * a peer's window or the host alias, none of which is worth importing for
 * one transfer. Where the slab's descriptor maps (lavapipe), the slab is
 * also mapped, so small writes go through the mapping.
 */
#include "transport/pe/devpeer.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "migrate/copy.h"
#include "migrate/state.h"
#include "transport/pe/job.h"
#include "transport/pe/window.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"

static struct {
    pthread_mutex_t mu;
    VkBuffer buf;
    VkDeviceMemory mem;
    char *map;
    size_t size;
    bool ready;
} stage = {.mu = PTHREAD_MUTEX_INITIALIZER};

static bool have_device(void)
{
    return uvas_devtier_present(&uvas_g.devtier);
}

int uvas_devpeer_init(void)
{
    if (!have_device())
        return UVAS_OK;
    struct uvas_vulkan *d = &uvas_g.devtier.dev;
    stage.size = uvas_g.block_size;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = stage.size,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    if (vkCreateBuffer(d->dev, &bci, NULL, &stage.buf) != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot create the transport's staging buffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d->dev, stage.buf, &req);
    uint32_t type = uvas_vulkan_host_type(d, req.memoryTypeBits, 0, 0);
    if (type == UINT32_MAX)
        return uvas_fail(UVAS_ERR_NO_DEVICE, "the device has no host-visible coherent memory "
                         "for staging transfers");
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .allocationSize = req.size,
                                .memoryTypeIndex = type};
    if (vkAllocateMemory(d->dev, &mai, NULL, &stage.mem) != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot allocate %zu bytes of staging memory",
                         stage.size);
    vkBindBufferMemory(d->dev, stage.buf, stage.mem, 0);
    if (vkMapMemory(d->dev, stage.mem, 0, VK_WHOLE_SIZE, 0, (void **)&stage.map) != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_SYS, "cannot map the staging memory");
    stage.ready = true;
    return UVAS_OK;
}

void uvas_devpeer_fini(void)
{
    if (!stage.ready)
        return;
    VkDevice d = uvas_g.devtier.dev.dev;
    vkUnmapMemory(d, stage.mem);
    vkDestroyBuffer(d, stage.buf, NULL);
    vkFreeMemory(d, stage.mem, NULL);
    stage.ready = false;
    stage.map = NULL;
}

void uvas_devpeer_describe(struct uvas_dev_desc *out)
{
    memset(out, 0, sizeof *out);
    if (!have_device())
        return;
    const struct uvas_devtier *t = &uvas_g.devtier;
    out->present = 1;
    out->slab_bytes = t->slab_bytes;
    out->slots_per_slab = t->slots_per_slab;
    out->fd_mappable = t->fd_mappable;
    out->fd_base = t->fd_base;
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &id};
    vkGetPhysicalDeviceProperties2(t->dev.phys, &p2);
    memcpy(out->uuid, id.deviceUUID, sizeof out->uuid);
}

void uvas_devpeer_own_slot(uint32_t slot, struct uvas_devref *out)
{
    VkBuffer b;
    VkDeviceSize off;
    uvas_devtier_slot_where(&uvas_g.devtier, slot, &b, &off, NULL);
    *out = (struct uvas_devref){.buf = b, .off = off};
}

static int import_slab(struct uvas_peer *p, uint32_t i, struct uvas_peer_slab *s)
{
    struct uvas_vulkan *d = &uvas_g.devtier.dev;
    int fd;
    int rc = uvas_window_slab_fd(p, i, &fd);
    if (rc)
        return rc;
    fd = uvas_devtier_own_fd(&uvas_g.devtier, fd);
    if (p->dev.fd_mappable) {
        s->map_len = p->dev.fd_base + p->dev.slab_bytes;
        void *m;
        s->map = uvas_os_map(fd, 0, s->map_len, UVAS_OS_RW | UVAS_OS_NOFORK, NULL, &m) ? NULL : m;
    }
    VkExternalMemoryBufferCreateInfo ebi = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
        .handleTypes = d->export_type};
    /* With a device address where kernels run: a kernel of ours reaches
     * the peer's device-resident blocks it was lent (lease.c). */
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .pNext = &ebi,
                              .size = p->dev.slab_bytes,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       uvas_vulkan_addr_usage(d)};
    uvas_vulkan_share(d, &bci);
    if (vkCreateBuffer(d->dev, &bci, NULL, &s->buf) != VK_SUCCESS) {
        close(fd);
        return uvas_fail(UVAS_ERR_NO_DEVICE, "cannot create a buffer for PE %d's slab %u",
                         p->rank, i);
    }
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d->dev, s->buf, &req);
    /* The slab was a dedicated allocation; an import must say so too. */
    VkImportMemoryFdInfoKHR imp = {.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
                                   .handleType = d->export_type,
                                   .fd = fd};
    VkMemoryDedicatedAllocateInfo ded = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
                                         .pNext = &imp,
                                         .buffer = s->buf};
    VkMemoryAllocateFlagsInfo fi;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .pNext = uvas_vulkan_addr_alloc(d, &fi, &ded),
                                .allocationSize = req.size,
                                .memoryTypeIndex = d->dev_type};
    VkResult vr = vkAllocateMemory(d->dev, &mai, NULL, &s->mem);
    if (vr != VK_SUCCESS) {
        close(fd); /* a failed import leaves the descriptor with us */
        vkDestroyBuffer(d->dev, s->buf, NULL);
        s->buf = VK_NULL_HANDLE;
        return uvas_fail(UVAS_ERR_NO_DEVICE, "importing PE %d's device slab %u failed (VkResult "
                         "%d): its blocks are reached through the owner", p->rank, i, vr);
    }
    vkBindBufferMemory(d->dev, s->buf, s->mem, 0);
    s->addr = uvas_vulkan_address(d, s->buf);
    return UVAS_OK;
}

int uvas_devpeer_slot(struct uvas_peer *p, uint32_t slot, struct uvas_devref *out)
{
    if (!have_device() || !p->dev_same || !slot || !p->dev.slots_per_slab)
        return UVAS_ERR_NO_DEVICE;
    uint32_t i = (slot - 1) / p->dev.slots_per_slab, k = (slot - 1) % p->dev.slots_per_slab;
    /* The slot is the peer's word: one past any slab a device holds is
     * not followed (nor may the table's growth below wrap). */
    if (i >= (1u << 20))
        return UVAS_ERR_NO_DEVICE;
    pthread_mutex_lock(&p->slab_mu);
    if (i >= p->nslabs) {
        uint32_t n = i + 8;
        struct uvas_peer_slab *ns = realloc(p->slabs, n * sizeof *ns);
        if (!ns) {
            pthread_mutex_unlock(&p->slab_mu);
            return UVAS_ERR_NOMEM;
        }
        memset(ns + p->nslabs, 0, (n - p->nslabs) * sizeof *ns);
        p->slabs = ns;
        p->nslabs = n;
    }
    struct uvas_peer_slab *s = &p->slabs[i];
    if (s->state == 0) {
        int rc = import_slab(p, i, s);
        s->state = rc ? -1 : 1;
        if (rc)
            uvas_warn("%s", uvas_last_error());
    }
    int rc = s->state == 1 ? UVAS_OK : UVAS_ERR_NO_DEVICE;
    if (rc == UVAS_OK) {
        VkDeviceSize off = (VkDeviceSize)k * (p->dev.slab_bytes / p->dev.slots_per_slab);
        *out = (struct uvas_devref){.buf = s->buf, .off = off,
                                    .map = s->map ? s->map + p->dev.fd_base + off : NULL,
                                    .addr = s->addr ? s->addr + off : 0};
    }
    pthread_mutex_unlock(&p->slab_mu);
    return rc;
}

void uvas_devpeer_release_peer(struct uvas_peer *p)
{
    if (!have_device())
        return;
    VkDevice d = uvas_g.devtier.dev.dev;
    for (uint32_t i = 0; i < p->nslabs; i++) {
        struct uvas_peer_slab *s = &p->slabs[i];
        if (s->state == 1) {
            vkDestroyBuffer(d, s->buf, NULL);
            vkFreeMemory(d, s->mem, NULL);
        }
        uvas_os_unmap(s->map, s->map_len);
    }
    free(p->slabs);
    p->slabs = NULL;
    p->nslabs = 0;
}

int uvas_devpeer_write(const struct uvas_devref *dst, size_t off, const void *src, size_t n)
{
    if (!stage.ready)
        return uvas_fail(UVAS_ERR_NO_DEVICE, "no device tier for a device write");
    const char *s = src;
    pthread_mutex_lock(&stage.mu);
    int rc = UVAS_OK;
    for (size_t done = 0; done < n && rc == UVAS_OK;) {
        size_t k = n - done < stage.size ? n - done : stage.size;
        memcpy(stage.map, s + done, k);
        struct uvas_copy_op op = {stage.buf, 0, dst->buf, dst->off + off + done, k, 0};
        rc = uvas_copier_run(&uvas_mg.copier, &op, 1);
        done += k;
    }
    pthread_mutex_unlock(&stage.mu);
    return rc;
}

int uvas_devpeer_read(void *dst, const struct uvas_devref *src, size_t off, size_t n)
{
    if (!stage.ready)
        return uvas_fail(UVAS_ERR_NO_DEVICE, "no device tier for a device read");
    char *d = dst;
    pthread_mutex_lock(&stage.mu);
    int rc = UVAS_OK;
    for (size_t done = 0; done < n && rc == UVAS_OK;) {
        size_t k = n - done < stage.size ? n - done : stage.size;
        struct uvas_copy_op op = {src->buf, src->off + off + done, stage.buf, 0, k, 0};
        rc = uvas_copier_run(&uvas_mg.copier, &op, 1);
        if (rc == UVAS_OK)
            memcpy(d + done, stage.map, k);
        done += k;
    }
    pthread_mutex_unlock(&stage.mu);
    return rc;
}

int uvas_devpeer_copy(const struct uvas_devref *dst, size_t doff, const struct uvas_devref *src,
                      size_t soff, size_t n)
{
    struct uvas_copy_op op = {src->buf, src->off + soff, dst->buf, dst->off + doff, n, 0};
    return uvas_copier_run(&uvas_mg.copier, &op, 1);
}
