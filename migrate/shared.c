/* Blocks of device memory shared with another process (shared.h). */
#include "migrate/shared.h"

#include "migrate/migrate.h"
#include "uvas/alloc.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/stats.h"
#include "uvas/status.h"
#include "uvas/tier.h"
#include "uvas/uffd.h"

#define RLX memory_order_relaxed

static void done(struct uvas_block *b, uint32_t seen, int res, bool moved)
{
    size_t bi = (size_t)(b - uvas_g.bt);
    if (moved)
        uvas_blk_publish(b, seen, res);
    else
        uvas_blk_unbusy(b, seen);
    uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
}

int uvas_shared_fix(const void *at, size_t n, uint32_t *slots)
{
    size_t first = uvas_block_index(at);
    const struct uvas_devtier *t = &uvas_g.devtier;
    for (size_t i = 0; i < n; i++) {
        size_t bi = first + i;
        struct uvas_block *b = &uvas_g.bt[bi];
        /* Such a block keeps a host copy beside the device one, made again
         * on every way to the device: it cannot stay in one place. */
        if (atomic_load_explicit(&b->advice, RLX) & UVAS_BA_READ_MOSTLY)
            return uvas_fail(UVAS_ERR_INVAL, "the block at %p is advised read-mostly (a host "
                             "copy beside the device one): UVAS_ADVISE_UNSET_READ_MOSTLY before "
                             "sharing it", (void *)uvas_block_addr(bi));
        for (int tries = 0;; tries++) {
            uint32_t seen;
            uvas_blk_take(b, true, &seen);
            uint32_t slot = b->dev_slot;
            bool dev = uvas_blk_res(seen) == UVAS_RES_DEVICE;
            /* In a slab slot of its own process's tier, no host copy
             * beside it that a write would have to collapse. */
            if (dev && slot && !uvas_devtier_is_dedicated(t, slot) &&
                !uvas_devtier_is_foreign(slot) && !atomic_load_explicit(&b->dup, RLX)) {
                atomic_fetch_or_explicit(&b->advice, UVAS_BA_SHARED, RLX);
                /* Never a victim: left among them, it would stand at the
                 * head of the eviction order for good. */
                uvas_devtier_lru_remove(&uvas_g.devtier, bi);
                slots[i] = slot;
                done(b, seen, 0, false);
                break;
            }
            done(b, seen, 0, false);
            if (dev && uvas_devtier_is_foreign(slot))
                return uvas_fail(UVAS_ERR_INVAL, "the block at %p is another process's device "
                                 "memory: only its exporter shares it", (void *)uvas_block_addr(bi));
            if (tries == 3)
                return uvas_fail(UVAS_ERR_NOMEM, "the block at %p did not stay in the device "
                                 "tier's slabs long enough to be shared (the CPU or a policy "
                                 "keeps moving it)", (void *)uvas_block_addr(bi));
            /* A dedicated slot (the CPU's view on this driver) or a copy:
             * by way of the host into a slab slot. */
            int rc = dev ? uvas_migrate_blocks(bi, 1, UVAS_RES_HOST, UVAS_MIG_WAIT) : UVAS_OK;
            if (rc == UVAS_OK)
                rc = uvas_migrate_blocks(bi, 1, UVAS_RES_DEVICE, UVAS_MIG_WAIT);
            if (rc)
                return rc;
        }
    }
    return UVAS_OK;
}

int uvas_shared_adopt(const void *at, size_t n, const uint32_t *slots)
{
    size_t first = uvas_block_index(at);
    const struct uvas_tier_ops *dev = uvas_tier_of(UVAS_RES_DEVICE);
    for (size_t i = 0; i < n; i++) {
        size_t bi = first + i;
        struct uvas_block *b = &uvas_g.bt[bi];
        uint32_t seen;
        uvas_blk_take(b, true, &seen);
        int res = uvas_blk_res(seen);
        /* Whatever it held goes (a fresh allocation: zeros, or pages an
         * eager placement gave it). */
        int rc = uvas_tier_host.release(bi, 1);
        if (rc == UVAS_OK && res == UVAS_RES_DEVICE)
            rc = dev ? dev->release(bi, 1) : UVAS_ERR_NO_DEVICE;
        if (rc) {
            done(b, seen, 0, false);
            for (size_t k = i; k < n; k++)
                uvas_devtier_slot_free(&uvas_g.devtier, slots[k]);
            return rc;
        }
        if (res != UVAS_RES_UNPOPULATED)
            uvas_stats_block_out(res);
        b->dev_slot = slots[i];
        atomic_store_explicit(&b->shadow, 0, RLX);
        atomic_store_explicit(&b->dup, 0, RLX);
        atomic_fetch_or_explicit(&b->advice, UVAS_BA_SHARED, RLX);
        uvas_stats_block_in(UVAS_RES_DEVICE, 0);
        done(b, seen, UVAS_RES_DEVICE, true);
    }
    return UVAS_OK;
}

int uvas_shared_enter(const char *fn)
{
    return uvas_api_enter(fn);
}

void uvas_shared_leave(void)
{
    uvas_api_leave();
}

bool uvas_shared_describe(struct uvas_shared_dev *d)
{
    const struct uvas_devtier *t = &uvas_g.devtier;
    if (!atomic_load(&uvas_g.ready) || !uvas_devtier_present(t))
        return false;
    uvas_devtier_uuid(t, d->uuid);
    d->block_size = uvas_g.block_size;
    d->slab_bytes = t->slab_bytes;
    d->fd_base = t->fd_mappable ? t->fd_base : SIZE_MAX;
    return true;
}

void uvas_shared_where(uint32_t slot, uint32_t *slab, uint64_t *off)
{
    const struct uvas_devtier *t = &uvas_g.devtier;
    *slab = (slot - 1) / t->slots_per_slab;
    *off = (uint64_t)((slot - 1) % t->slots_per_slab) * uvas_g.block_size;
}

int uvas_shared_slab_fd(uint32_t slot, int *fd)
{
    uint64_t mem_off, map_off;
    return uvas_devtier_export(&uvas_g.devtier, slot, fd, &mem_off, &map_off);
}

int uvas_shared_list_fd(const void *list, size_t len, int *fd, const char *fn)
{
    int rc = uvas_os_sealed_copy("uvas pool record", list, len, fd);
    return rc ? uvas_fail(rc, "%s: %s", fn, uvas_last_error()) : UVAS_OK;
}

int uvas_shared_import(int fd, const struct uvas_shared_dev *d, uint32_t *id)
{
    return uvas_devtier_import(&uvas_g.devtier, fd, d->slab_bytes, d->fd_base, id);
}

int uvas_shared_slot(uint32_t id, uint64_t off, uint32_t *slot)
{
    return uvas_devtier_foreign_slot(&uvas_g.devtier, id, off, slot);
}

void uvas_shared_unslot(uint32_t slot)
{
    uvas_devtier_slot_free(&uvas_g.devtier, slot);
}

int uvas_shared_release(void *base)
{
    return uvas_free_import(base);
}

bool uvas_shared_held(const void *p)
{
    return uvas_alloc_held(p);
}

void uvas_shared_unimport(uint32_t id)
{
    uvas_devtier_foreign_put(&uvas_g.devtier, id);
}
