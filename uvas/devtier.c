/* Device tier memory: exported slabs, slots, and the residency LRU. */
#include "uvas/devtier.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "uvas/inject.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"

#define SLAB_BYTES ((size_t)64 << 20)

static int grow(struct uvas_devtier *t);

/* Slab slot `slot` is free (lock held). */
static void put_free(struct uvas_devtier *t, uint32_t slot)
{
    uint32_t i = slot - 1;
    t->free_map[i / 64] |= 1ull << (i % 64);
    t->nfree++;
    if (i / 64 < t->free_lo)
        t->free_lo = i / 64;
}

/* The lowest free slab slot, taken (lock held, nfree > 0). */
static uint32_t take_lowest_free(struct uvas_devtier *t)
{
    uint32_t w = t->free_lo;
    while (!t->free_map[w])
        w++;
    uint32_t b = (uint32_t)__builtin_ctzll(t->free_map[w]);
    t->free_map[w] &= t->free_map[w] - 1;
    t->nfree--;
    t->free_lo = w;
    return w * 64 + b + 1;
}

struct export_call {
    const struct uvas_vulkan *dv;
    VkDeviceMemory mem;
};

static int export_make(void *arg)
{
    const struct export_call *c = arg;
    VkMemoryGetFdInfoKHR gfi = {.sType = VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR,
                                .memory = c->mem,
                                .handleType = c->dv->export_type};
    int fd = -1;
    return c->dv->get_memory_fd(c->dv->dev, &gfi, &fd) == VK_SUCCESS ? fd : -1;
}

/*
 * A descriptor of device memory mem (vkGetMemoryFdKHR), close-on-exec:
 * an exec'd program must not reach device memory. Drivers have no flag to
 * ask for it and lavapipe's descriptors come without it, so a mark made
 * after the call leaves a fork or posix_spawn of another thread in
 * between a copy to exec with: exports are made apart
 * (uvas_os_fd_apart), close-on-exec from their birth, once the first one
 * (probe_export) showed the driver's call keeps no file of its own. -1
 * where the driver refused.
 */
static int export_fd(const struct uvas_devtier *t, VkDeviceMemory mem)
{
    struct export_call c = {&t->dev, mem};
    if (uvas_inject_fail(UVAS_INJ_EXPORT))
        return -1;
    int fd = -1, others;
    if (t->export_apart)
        return uvas_os_fd_apart(export_make, &c, &fd, &others) == UVAS_OK ? fd : -1;
    fd = export_make(&c);
    if (fd >= 0)
        uvas_os_cloexec(fd);
    return fd;
}

/* The tier's first export (the first slab's, inside uvas_init; lock held),
 * made in the process's table: does the driver's call leave a file of its
 * own open there, which a thread's own table would close at its end? If
 * not, later exports are made apart. Another thread's file opened
 * meanwhile reads as the driver's: exports then stay here, as before. */
static int probe_export(struct uvas_devtier *t, VkDeviceMemory mem)
{
    int before = uvas_os_fd_count();
    int fd = export_fd(t, mem);
    if (fd < 0)
        return -1;
    int after = uvas_os_fd_count();
    t->export_probed = true;
    t->export_apart = before >= 0 && after == before + 1;
    return fd;
}

int uvas_devtier_open(struct uvas_devtier *t, int want, const char *said, size_t cap_bytes,
                      size_t block_size, unsigned copy_queues, char *note, size_t notelen)
{
    memset(t, 0, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    int rc = uvas_vulkan_open(want, said, copy_queues, &t->dev, note, notelen);
    if (rc || !uvas_vulkan_present(&t->dev))
        return rc;
    /* Leave a tenth of the budget to the application's own allocations. */
    size_t budget = (size_t)uvas_vulkan_budget(&t->dev) / 10 * 9;
    t->cap_bytes = cap_bytes && cap_bytes < budget ? cap_bytes : budget;
    t->slab_bytes = SLAB_BYTES > block_size ? SLAB_BYTES : block_size;
    if (t->cap_bytes < t->slab_bytes) /* a small bound: one slab of exactly that */
        t->slab_bytes = t->cap_bytes / block_size * block_size;
    t->slots_per_slab = (uint32_t)(t->slab_bytes / block_size);
    t->block_size = block_size;
    t->max_slabs = t->slots_per_slab ? (uint32_t)(t->cap_bytes / t->slab_bytes) : 0;
    size_t total = (size_t)t->max_slabs * t->slots_per_slab;
    t->ded_base = (uint32_t)total + 1;
    t->slabs = calloc(t->max_slabs ? t->max_slabs : 1, sizeof *t->slabs);
    t->free_map = calloc(total / 64 + 1, sizeof *t->free_map);
    if (!t->slabs || !t->free_map) {
        uvas_devtier_close(t);
        return uvas_fail(UVAS_ERR_NOMEM, "cannot allocate the device tier's tables");
    }
    /* The first slab now: it also tells whether its fd maps (the CPU view
     * of device blocks). */
    pthread_mutex_lock(&t->mu);
    grow(t);
    pthread_mutex_unlock(&t->mu);
    t->cpu_reads_cached = t->dev.mem.memoryTypes[t->dev.dev_type].propertyFlags &
                          VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    size_t used = strlen(note);
    const char *view = t->fd_mappable ? "fd map" : t->dev.placed_map ? "placed map" : "none";
    snprintf(note + used, notelen - used, ", capacity %zu MiB, CPU view of device blocks: %s%s",
             total * block_size >> 20, view,
             strcmp(view, "none") && !t->cpu_reads_cached
                 ? " (advised only: the CPU reads device memory uncached here)" : "");
    return UVAS_OK;
}

void uvas_devtier_close(struct uvas_devtier *t)
{
    VkDevice d = t->dev.dev;
    if (d)
        vkDeviceWaitIdle(d);
    for (uint32_t i = 0; i < t->nslabs; i++) {
        if (t->slabs[i].fd >= 0)
            close(t->slabs[i].fd);
        vkDestroyBuffer(d, t->slabs[i].buf, NULL);
        vkFreeMemory(d, t->slabs[i].mem, NULL);
    }
    for (uint32_t i = 0; i < t->nded; i++) {
        vkDestroyBuffer(d, t->ded[i].buf, NULL);
        vkFreeMemory(d, t->ded[i].mem, NULL);
    }
    for (uint32_t i = 0; i < t->nfrn; i++) {
        if (!t->frn[i].refs)
            continue;
        if (t->frn[i].fd >= 0)
            close(t->frn[i].fd);
        vkDestroyBuffer(d, t->frn[i].buf, NULL);
        vkFreeMemory(d, t->frn[i].mem, NULL);
    }
    free(t->frn);
    for (uint32_t c = 0; t->fs && c < UVAS_FSLOT_CHUNKS; c++)
        free(t->fs[c]);
    free(t->fs);
    free(t->free_fs);
    free(t->ded);
    free(t->free_ded);
    free(t->slabs);
    free(t->free_map);
    uvas_vulkan_close(&t->dev);
    pthread_mutex_destroy(&t->mu);
    memset(t, 0, sizeof *t);
}

/*
 * Can the CPU map device memory through the exported fd, and where in the
 * file does the memory start? lavapipe's fd is a memfd with a header in
 * front of the memory (Mesa's os_malloc_aligned_fd); rather than trust that
 * layout, write a marker through vkMapMemory and look for it in the file.
 * The offset, or SIZE_MAX if the fd does not map.
 */
static size_t probe_fd_base(struct uvas_devtier *t, const struct uvas_dslab *s)
{
    struct uvas_vulkan *dv = &t->dev;
    size_t base = SIZE_MAX;
    if (!(dv->mem.memoryTypes[dv->dev_type].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
        return base;
    size_t flen = uvas_os_fd_size(s->fd);
    char *f;
    if (flen < t->slab_bytes || uvas_os_map(s->fd, 0, flen, UVAS_OS_READ | UVAS_OS_NOFORK, NULL, (void **)&f))
        return base;
    uint64_t *m = NULL;
    if (vkMapMemory(dv->dev, s->mem, 0, UVAS_PAGE, 0, (void **)&m) == VK_SUCCESS) {
        uint64_t mark[4] = {0x7576617370726f62ull, (uintptr_t)t, (uintptr_t)f, (uint64_t)flen};
        memcpy(m, mark, sizeof mark);
        for (size_t off = 0; off + t->slab_bytes <= flen; off += UVAS_PAGE)
            if (!memcmp(f + off, mark, sizeof mark)) {
                base = off;
                break;
            }
        memset(m, 0, sizeof mark);
        vkUnmapMemory(dv->dev, s->mem);
    }
    uvas_os_unmap(f, flen);
    return base;
}

/* A buffer of bytes over dedicated device memory allocated with `extra`
 * in its chain (an export's info, or an import's), bound: a slab, ours or
 * another process's. VkResult; nothing is left on failure. */
static VkResult slab_buffer(struct uvas_vulkan *dv, VkDeviceSize bytes, void *extra,
                            VkBuffer *buf, VkDeviceMemory *mem)
{
    VkExternalMemoryBufferCreateInfo ebi = {
        .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
        .handleTypes = dv->export_type};
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .pNext = &ebi,
                              .size = bytes,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                       VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                       uvas_vulkan_addr_usage(dv)};
    uvas_vulkan_share(dv, &bci);
    VkResult r = vkCreateBuffer(dv->dev, &bci, NULL, buf);
    if (r != VK_SUCCESS)
        return r;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dv->dev, *buf, &req);
    /* A slab is a dedicated allocation, and its import must say so too. */
    VkMemoryDedicatedAllocateInfo ded = {.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
                                         .pNext = extra,
                                         .buffer = *buf};
    VkMemoryAllocateFlagsInfo fi;
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .pNext = uvas_vulkan_addr_alloc(dv, &fi, &ded),
                                .allocationSize = req.size,
                                .memoryTypeIndex = dv->dev_type};
    r = !(req.memoryTypeBits & (1u << dv->dev_type)) ? VK_ERROR_FEATURE_NOT_PRESENT
        : uvas_inject_fail(UVAS_INJ_DEVICE_ALLOC)    ? VK_ERROR_OUT_OF_DEVICE_MEMORY
                                                     : vkAllocateMemory(dv->dev, &mai, NULL, mem);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(dv->dev, *buf, NULL);
        *buf = VK_NULL_HANDLE;
        return r;
    }
    vkBindBufferMemory(dv->dev, *buf, *mem, 0);
    return VK_SUCCESS;
}

/* One more slab (lock held). */
static int grow(struct uvas_devtier *t)
{
    if (t->nslabs == t->max_slabs || (t->refusals && uvas_os_now_ns() < t->retry_ns))
        return UVAS_ERR_NOMEM;
    struct uvas_vulkan *dv = &t->dev;
    struct uvas_dslab s = {.fd = -1};
    VkExportMemoryAllocateInfo exp = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                      .handleTypes = dv->export_type};
    VkResult r = slab_buffer(dv, t->slab_bytes, &exp, &s.buf, &s.mem);
    if (r != VK_SUCCESS)
        goto refused;
    s.addr = uvas_vulkan_address(dv, s.buf);
    /* -1: usable for copies; peers cannot import this slab */
    s.fd = t->export_probed ? export_fd(t, s.mem) : probe_export(t, s.mem);
    /* Peers map every slab at the offset the first one showed. */
    if (s.fd >= 0 && (t->nslabs == 0 || t->fd_mappable)) {
        size_t base = probe_fd_base(t, &s);
        if (t->nslabs == 0) {
            t->fd_mappable = base != SIZE_MAX;
            t->fd_base = t->fd_mappable ? base : 0;
        } else if (base != t->fd_base) {
            uvas_warn("device tier: slab %u's memory starts at byte %zu of its descriptor, "
                      "not %zu like the first's: peers reach its blocks through this PE",
                      t->nslabs, base, t->fd_base);
            close(s.fd);
            s.fd = -1;
        }
    }
    if (t->refusals)
        uvas_warn("device tier: the driver gave a %zu MiB slab again after %u refusals",
                  t->slab_bytes >> 20, t->refusals);
    t->refusals = 0;
    uint32_t base = t->nslabs * t->slots_per_slab;
    t->slabs[t->nslabs++] = s;
    for (uint32_t i = 0; i < t->slots_per_slab; i++)
        put_free(t, base + i + 1);
    return UVAS_OK;
refused:
    /* Out of device memory, perhaps for a while (another process holds
     * it): ask again after a back-off, 1 s doubling to 32 s. */
    t->retry_ns = uvas_os_now_ns() + (1000000000ull << (t->refusals < 5 ? t->refusals : 5));
    if (t->refusals++ == 0)
        uvas_warn("device tier: the driver refused a %zu MiB slab (VkResult %d); the tier "
                  "stays at %zu MiB and asks again later", t->slab_bytes >> 20, r,
                  (size_t)t->nslabs * t->slab_bytes >> 20);
    return UVAS_ERR_NOMEM;
}

static size_t in_use(const struct uvas_devtier *t);

int uvas_devtier_slot_alloc(struct uvas_devtier *t, uint32_t *slot)
{
    pthread_mutex_lock(&t->mu);
    int rc = in_use(t) >= uvas_devtier_capacity_blocks(t) ? UVAS_ERR_NOMEM
             : t->nfree                                      ? UVAS_OK
                                                             : grow(t);
    if (rc == UVAS_OK)
        *slot = take_lowest_free(t);
    pthread_mutex_unlock(&t->mu);
    return rc;
}

static void foreign_unref(struct uvas_devtier *t, uint32_t id);

static inline struct uvas_fslot *fslot(const struct uvas_devtier *t, uint32_t slot)
{
    uint32_t k = slot - UVAS_DEVTIER_FOREIGN0;
    return &t->fs[k / UVAS_FSLOT_CHUNK][k % UVAS_FSLOT_CHUNK];
}

void uvas_devtier_slot_free(struct uvas_devtier *t, uint32_t slot)
{
    pthread_mutex_lock(&t->mu);
    if (uvas_devtier_is_foreign(slot)) {
        uint32_t k = slot - UVAS_DEVTIER_FOREIGN0;
        foreign_unref(t, fslot(t, slot)->mem);
        t->free_fs[t->nfree_fs++] = k; /* room: at most nfs are ever free */
    } else if (uvas_devtier_is_dedicated(t, slot))
        t->free_ded[t->nfree_ded++] = slot - t->ded_base;
    else
        put_free(t, slot);
    pthread_mutex_unlock(&t->mu);
}

/* Slots in use, slab and dedicated (lock held). */
static size_t in_use(const struct uvas_devtier *t)
{
    return (size_t)t->nslabs * t->slots_per_slab - t->nfree + (t->nded - t->nfree_ded);
}

static int new_dedicated(struct uvas_devtier *t, uint32_t *idx)
{
    struct uvas_vulkan *dv = &t->dev;
    if (t->nded == t->cap_ded) {
        uint32_t cap = t->cap_ded ? 2 * t->cap_ded : 64;
        struct uvas_dedicated *d = realloc(t->ded, cap * sizeof *d);
        uint32_t *f = d ? realloc(t->free_ded, cap * sizeof *f) : NULL;
        if (d)
            t->ded = d;
        if (!f)
            return uvas_fail(UVAS_ERR_NOMEM, "cannot grow the dedicated allocation table");
        t->free_ded = f;
        t->cap_ded = cap;
    }
    struct uvas_dedicated x = {0};
    /* Exportable if the driver lets exportable memory be host-visible
     * (NVIDIA does not: then the block cannot be handed to a peer while
     * the CPU maps it, and the transport goes through the owner). */
    VkResult r = VK_ERROR_FEATURE_NOT_PRESENT;
    for (int exportable = 1; exportable >= 0 && r != VK_SUCCESS; exportable--) {
        VkExternalMemoryBufferCreateInfo ebi = {
            .sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO,
            .handleTypes = dv->export_type};
        VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                                  .pNext = exportable ? &ebi : NULL,
                                  .size = t->block_size,
                                  .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                           VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                           VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                           uvas_vulkan_addr_usage(dv)};
        uvas_vulkan_share(dv, &bci);
        r = vkCreateBuffer(dv->dev, &bci, NULL, &x.buf);
        if (r != VK_SUCCESS)
            continue;
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(dv->dev, x.buf, &req);
        VkExportMemoryAllocateInfo exp = {.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO,
                                          .handleTypes = dv->export_type};
        VkMemoryAllocateFlagsInfo fi;
        VkMemoryDedicatedAllocateInfo dai = {
            .sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO,
            .pNext = uvas_vulkan_addr_alloc(dv, &fi, exportable ? &exp : NULL),
            .buffer = x.buf};
        VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                    .pNext = &dai,
                                    .allocationSize = req.size,
                                    .memoryTypeIndex = dv->map_type};
        r = !(req.memoryTypeBits & (1u << dv->map_type))   ? VK_ERROR_FEATURE_NOT_PRESENT
            : uvas_inject_fail(UVAS_INJ_DEVICE_ALLOC) ? VK_ERROR_OUT_OF_DEVICE_MEMORY
                                                      : vkAllocateMemory(dv->dev, &mai, NULL, &x.mem);
        if (r != VK_SUCCESS)
            vkDestroyBuffer(dv->dev, x.buf, NULL);
        x.exportable = exportable;
    }
    if (r != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_NOMEM, "a CPU-mappable device block could not be allocated "
                         "(VkResult %d)", r);
    vkBindBufferMemory(dv->dev, x.buf, x.mem, 0);
    x.addr = uvas_vulkan_address(dv, x.buf);
    t->ded[t->nded] = x;
    *idx = t->nded++;
    return UVAS_OK;
}

int uvas_devtier_dedicated_alloc(struct uvas_devtier *t, uint32_t *slot)
{
    pthread_mutex_lock(&t->mu);
    int rc = UVAS_OK;
    uint32_t idx = 0;
    if (t->nfree_ded)
        idx = t->free_ded[--t->nfree_ded];
    else if (in_use(t) >= uvas_devtier_capacity_blocks(t))
        rc = uvas_fail(UVAS_ERR_NOMEM, "the device tier is at capacity");
    else
        rc = new_dedicated(t, &idx);
    if (rc == UVAS_OK)
        *slot = t->ded_base + idx;
    pthread_mutex_unlock(&t->mu);
    return rc;
}

VkDeviceMemory uvas_devtier_dedicated_memory(const struct uvas_devtier *t, uint32_t slot)
{
    return t->ded[slot - t->ded_base].mem;
}

VkDeviceAddress uvas_devtier_slot_address(const struct uvas_devtier *t, uint32_t slot)
{
    if (uvas_devtier_is_foreign(slot)) {
        const struct uvas_fslot *f = fslot(t, slot);
        return t->frn[f->mem].addr ? t->frn[f->mem].addr + f->off : 0;
    }
    if (uvas_devtier_is_dedicated(t, slot))
        return t->ded[slot - t->ded_base].addr;
    uint32_t i = (slot - 1) / t->slots_per_slab, k = (slot - 1) % t->slots_per_slab;
    return t->slabs[i].addr
               ? t->slabs[i].addr + (VkDeviceAddress)k * (t->slab_bytes / t->slots_per_slab)
               : 0;
}

void uvas_devtier_slot_where(const struct uvas_devtier *t, uint32_t slot, VkBuffer *buf,
                             VkDeviceSize *off, int *fd)
{
    if (uvas_devtier_is_foreign(slot)) {
        const struct uvas_fslot *f = fslot(t, slot);
        if (buf)
            *buf = t->frn[f->mem].buf;
        if (off)
            *off = f->off;
        if (fd)
            *fd = t->frn[f->mem].fd;
        return;
    }
    if (uvas_devtier_is_dedicated(t, slot)) {
        if (buf)
            *buf = t->ded[slot - t->ded_base].buf;
        if (off)
            *off = 0;
        if (fd)
            *fd = -1;
        return;
    }
    uint32_t i = (slot - 1) / t->slots_per_slab, k = (slot - 1) % t->slots_per_slab;
    if (buf)
        *buf = t->slabs[i].buf;
    if (off)
        *off = (VkDeviceSize)k * (t->slab_bytes / t->slots_per_slab);
    if (fd)
        *fd = t->slabs[i].fd;
}

size_t uvas_devtier_capacity_blocks(const struct uvas_devtier *t)
{
    return (size_t)t->max_slabs * t->slots_per_slab;
}

size_t uvas_devtier_room_blocks(struct uvas_devtier *t)
{
    pthread_mutex_lock(&t->mu);
    size_t cap = uvas_devtier_capacity_blocks(t), used = in_use(t);
    pthread_mutex_unlock(&t->mu);
    return used < cap ? cap - used : 0;
}

void uvas_devtier_lru_add(struct uvas_devtier *t, size_t bi)
{
    pthread_mutex_lock(&t->mu);
    struct uvas_block *b = &uvas_g.bt[bi];
    b->lru_next = 0;
    b->lru_prev = t->lru_tail;
    if (t->lru_tail)
        uvas_g.bt[t->lru_tail - 1].lru_next = (uint32_t)bi + 1;
    else
        t->lru_head = (uint32_t)bi + 1;
    t->lru_tail = (uint32_t)bi + 1;
    pthread_mutex_unlock(&t->mu);
}

void uvas_devtier_lru_remove(struct uvas_devtier *t, size_t bi)
{
    pthread_mutex_lock(&t->mu);
    struct uvas_block *b = &uvas_g.bt[bi];
    if (b->lru_prev)
        uvas_g.bt[b->lru_prev - 1].lru_next = b->lru_next;
    else if (t->lru_head == bi + 1)
        t->lru_head = b->lru_next;
    if (b->lru_next)
        uvas_g.bt[b->lru_next - 1].lru_prev = b->lru_prev;
    else if (t->lru_tail == bi + 1)
        t->lru_tail = b->lru_prev;
    b->lru_next = b->lru_prev = 0;
    pthread_mutex_unlock(&t->mu);
}

size_t uvas_devtier_lru_oldest(struct uvas_devtier *t, size_t *out, size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&t->mu);
    for (uint32_t b = t->lru_head; b && n < max; b = uvas_g.bt[b - 1].lru_next)
        out[n++] = b - 1;
    pthread_mutex_unlock(&t->mu);
    return n;
}

int uvas_devtier_export(const struct uvas_devtier *t, uint32_t slot, int *fd, uint64_t *mem_off,
                        uint64_t *map_off)
{
    VkDeviceSize off = 0;
    int sfd = -1;
    if (uvas_devtier_is_foreign(slot))
        return uvas_fail(UVAS_ERR_NO_DEVICE, "this block is another process's device memory "
                         "(an imported pool allocation): only its exporter shares it");
    uvas_devtier_slot_where(t, slot, NULL, &off, &sfd);
    if (uvas_devtier_is_dedicated(t, slot)) {
        if (!t->ded[slot - t->ded_base].exportable)
            return uvas_fail(UVAS_ERR_NO_DEVICE, "this block is mapped for the CPU in memory "
                             "the driver cannot export");
        *fd = export_fd(t, uvas_devtier_dedicated_memory(t, slot));
        if (*fd < 0)
            return uvas_fail(UVAS_ERR_SYS, "cannot export a dedicated device block");
    } else {
        if (sfd < 0)
            return uvas_fail(UVAS_ERR_SYS, "the device slab holding slot %u has no exportable "
                             "descriptor", slot);
        int rc = uvas_os_dup(sfd, fd);
        if (rc)
            return rc;
    }
    *mem_off = off;
    *map_off = t->fd_mappable ? t->fd_base + off : UINT64_MAX;
    return UVAS_OK;
}

/* ---- memory of another process ---------------------------------------------- */

/* Lock held. The memory goes with its last reference. */
static void foreign_unref(struct uvas_devtier *t, uint32_t id)
{
    struct uvas_foreign *f = &t->frn[id];
    if (--f->refs)
        return;
    /* Work that used it was waited for: a slot is freed only by a block's
     * release or migration, which no kernel or copy holding it survives. */
    if (f->fd >= 0)
        close(f->fd);
    vkDestroyBuffer(t->dev.dev, f->buf, NULL);
    vkFreeMemory(t->dev.dev, f->mem, NULL);
    *f = (struct uvas_foreign){.fd = -1};
}

int uvas_devtier_own_fd(const struct uvas_devtier *t, int fd)
{
    int own = t->fd_mappable ? uvas_os_reopen(fd) : -1;
    if (own < 0)
        return fd;
    close(fd);
    return own;
}

int uvas_devtier_import(struct uvas_devtier *t, int fd, size_t slab_bytes, size_t fd_base,
                        uint32_t *id)
{
    struct uvas_vulkan *d = &t->dev;
    struct uvas_foreign f = {.fd = -1};
    fd = uvas_devtier_own_fd(t, fd);
    /* The greeting's sizes are the exporter's word: a descriptor shorter
     * than they say would have the driver read, and a CPU view of the
     * last blocks fault (SIGBUS), past its end. Where the file says its
     * size (memfds, dma-bufs), it must hold the slab. */
    size_t have = uvas_os_fd_size(fd);
    size_t need = (t->fd_mappable && fd_base == t->fd_base ? fd_base : 0) + slab_bytes;
    if ((have || (t->fd_mappable && fd_base == t->fd_base)) && have < need) {
        close(fd);
        return uvas_fail(UVAS_ERR_INVAL, "the exporter's slab descriptor holds %zu bytes, where "
                         "its slabs of %zu bytes need %zu: not a slab of the exporter's",
                         have, slab_bytes, need);
    }
    /* Vulkan owns fd once imported; a CPU view needs a descriptor of its
     * own, at the offset this device's own slabs show. */
    if (t->fd_mappable && fd_base == t->fd_base && uvas_os_dup(fd, &f.fd) != UVAS_OK)
        f.fd = -1;
    VkImportMemoryFdInfoKHR imp = {.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR,
                                   .handleType = d->export_type,
                                   .fd = fd};
    VkResult r = slab_buffer(d, slab_bytes, &imp, &f.buf, &f.mem);
    if (r != VK_SUCCESS) {
        close(fd); /* a failed import leaves the descriptor with us */
        if (f.fd >= 0)
            close(f.fd);
        return uvas_fail(UVAS_ERR_NO_DEVICE, "importing another process's device memory "
                         "failed (VkResult %d)", r);
    }
    f.addr = uvas_vulkan_address(d, f.buf);
    f.refs = 1;
    pthread_mutex_lock(&t->mu);
    if (!t->frn)
        t->frn = calloc(UVAS_DEVTIER_MAX_FOREIGN, sizeof *t->frn);
    uint32_t i = 0;
    while (t->frn && i < t->nfrn && t->frn[i].refs)
        i++;
    if (!t->frn || i == UVAS_DEVTIER_MAX_FOREIGN) {
        pthread_mutex_unlock(&t->mu);
        if (f.fd >= 0)
            close(f.fd);
        vkDestroyBuffer(d->dev, f.buf, NULL);
        vkFreeMemory(d->dev, f.mem, NULL);
        return uvas_fail(UVAS_ERR_NOMEM, "%s", t->frn ? "this process holds the most device "
                         "slabs of other processes it can (4096)" : "no memory for the table of "
                         "imported device memory");
    }
    t->frn[i] = f;
    if (i == t->nfrn)
        t->nfrn++;
    *id = i;
    pthread_mutex_unlock(&t->mu);
    return UVAS_OK;
}

int uvas_devtier_foreign_slot(struct uvas_devtier *t, uint32_t id, VkDeviceSize off,
                              uint32_t *slot)
{
    pthread_mutex_lock(&t->mu);
    uint32_t k;
    if (t->nfree_fs) {
        k = t->free_fs[--t->nfree_fs];
    } else {
        k = t->nfs;
        uint32_t c = k / UVAS_FSLOT_CHUNK;
        if (!t->fs)
            t->fs = calloc(UVAS_FSLOT_CHUNKS, sizeof *t->fs);
        if (t->fs && c < UVAS_FSLOT_CHUNKS && !t->fs[c])
            t->fs[c] = calloc(UVAS_FSLOT_CHUNK, sizeof **t->fs);
        if (t->nfs == t->cap_free_fs) {
            uint32_t cap = t->cap_free_fs ? 2 * t->cap_free_fs : UVAS_FSLOT_CHUNK;
            uint32_t *fr = realloc(t->free_fs, cap * sizeof *fr);
            if (fr) {
                t->free_fs = fr;
                t->cap_free_fs = cap;
            }
        }
        if (!t->fs || c >= UVAS_FSLOT_CHUNKS || !t->fs[c] || t->nfs == t->cap_free_fs) {
            pthread_mutex_unlock(&t->mu);
            return uvas_fail(UVAS_ERR_NOMEM, "cannot grow the table of imported blocks");
        }
        t->nfs++;
    }
    struct uvas_fslot *fp = &t->fs[k / UVAS_FSLOT_CHUNK][k % UVAS_FSLOT_CHUNK];
    *fp = (struct uvas_fslot){.mem = id, .off = off};
    t->frn[id].refs++;
    *slot = UVAS_DEVTIER_FOREIGN0 + k;
    pthread_mutex_unlock(&t->mu);
    return UVAS_OK;
}

void uvas_devtier_foreign_put(struct uvas_devtier *t, uint32_t id)
{
    pthread_mutex_lock(&t->mu);
    foreign_unref(t, id);
    pthread_mutex_unlock(&t->mu);
}

void uvas_devtier_uuid(const struct uvas_devtier *t, uint8_t out[16])
{
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2,
                                      .pNext = &id};
    vkGetPhysicalDeviceProperties2(t->dev.phys, &p2);
    memcpy(out, id.deviceUUID, 16);
}
