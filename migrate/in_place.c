/* Transitions that move no data (migrate.h): a read-mostly block's
 * device copy dropped, a write fault's protection lifted, the CPU's view
 * of device memory mapped or unmapped in place, a fault parked for the
 * block's holder to wake, a block's device slot given back. */
#include "migrate/migrate.h"

#include "migrate/cpuview.h"
#include "migrate/policy.h"
#include "migrate/state.h"
#include "migrate/transition.h"
#include "uvas/atomics.h"
#include "uvas/status.h"

/* A duplicated block keeps its host copy only: no data moves. */
void uvas_migrate_collapse_taken(size_t bi, uint32_t seen)
{
    uvas_migrate_drop_device(bi, 1); /* lifts the protection too */
    uvas_blk_publish(&uvas_g.bt[bi], seen, UVAS_RES_HOST);
    uvas_stats_block_out(UVAS_RES_DEVICE);
    uvas_stats_block_in(UVAS_RES_HOST, 0);
    uvas_migrate_wake(bi);
}

void uvas_migrate_park(size_t bi)
{
    if (!uvas_blk_park(&uvas_g.bt[bi]))
        uvas_migrate_wake(bi);
}

int uvas_migrate_collapse(size_t first, size_t n)
{
    for (size_t i = first; i < first + n; i++) {
        struct uvas_block *b = &uvas_g.bt[i];
        uint32_t seen;
        if (!uvas_blk_take(b, true, &seen))
            continue;
        if (uvas_blk_res(seen) == UVAS_RES_DEVICE && atomic_load_explicit(&b->dup, RLX))
            uvas_migrate_collapse_taken(i, seen);
        else
            uvas_migrate_untake(b, seen);
    }
    return UVAS_OK;
}

void uvas_migrate_write_fault(size_t bi)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    uint32_t seen;
    if (!uvas_blk_take(b, false, &seen)) {
        uvas_migrate_park(bi); /* in a transition: its end wakes the writer */
        return;
    }
    if (uvas_blk_res(seen) == UVAS_RES_DEVICE && atomic_load_explicit(&b->dup, RLX)) {
        uvas_migrate_collapse_taken(bi, seen);
        return;
    }
    /* Otherwise the protection is the policy's write tracking (armed by
     * the tick): count the write and let the block be written freely
     * until the next tick re-arms it. */
    atomic_fetch_add_explicit(&b->writes, 1, RLX);
    uvas_uffd_protect(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size, false);
    uvas_migrate_untake(b, seen);
}

bool uvas_migrate_cpu_map(size_t bi, bool write)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    /* Where the CPU reads device memory uncached (a discrete GPU's BAR:
     * some 10 MB/s against GB/s for a migration), a view only where the
     * user advised one; a policy's "remote" migrates, as CUDA's does on
     * such machines. */
    uint8_t advice = atomic_load_explicit(&b->advice, RLX);
    bool can = uvas_cpuview_available() &&
               (uvas_g.devtier.cpu_reads_cached || (advice & UVAS_BA_CPU_MAP));
    /* Shared device memory cannot move: a view in place, where the slab's
     * descriptor maps, or nothing (migrate_blocks then says why). */
    if (advice & UVAS_BA_SHARED) {
        if (!uvas_cpuview_in_place())
            return false;
    } else if (uvas_policy_fault(&uvas_mg.policy, bi, UVAS_AGENT_CPU, write, can) !=
               UVAS_ACTION_REMOTE) {
        return false;
    }
    uint32_t seen;
    if (!uvas_blk_take(b, false, &seen)) {
        uvas_migrate_park(bi); /* in a transition: its end wakes the thread */
        return true;
    }
    if (uvas_blk_res(seen) != UVAS_RES_DEVICE) {
        uvas_migrate_untake(b, seen);
        return true;
    }
    /* A duplicated block's host pages are a valid copy: the CPU uses them
     * (the caller collapses the block to the host). A view would send CPU
     * writes to the device copy, which unsetting read-mostly then drops as
     * the side that did not ask: the writes reverted (hot-cold's access
     * sampling had unmapped the host pages, so the CPU faulted here). */
    if (atomic_load_explicit(&b->dup, RLX)) {
        uvas_migrate_untake(b, seen);
        return false;
    }
    if (uvas_cpuview_map(bi) != UVAS_OK) {
        uvas_warn("%s; migrating the block instead", uvas_last_error());
        /* Not woken here: the caller migrates the block back next and wakes
         * its threads when that ends (or whoever holds it then does). Woken
         * now, the faulting thread would fault again and another service
         * thread map the view after all (seen under load). */
        uvas_blk_unbusy(b, seen);
        return false;
    }
    uvas_blk_publish(b, seen, UVAS_RES_DEVICE);
    uvas_migrate_wake(bi);
    return true;
}

int uvas_migrate_cpu_unmap(size_t first, size_t n)
{
    int rc = UVAS_OK;
    for (size_t i = first; i < first + n; i++) {
        struct uvas_block *b = &uvas_g.bt[i];
        uint32_t seen;
        if (!atomic_load_explicit(&b->cpu_mapped, RLX) || !uvas_blk_take(b, true, &seen))
            continue;
        int r = uvas_cpuview_unmap(i);
        if (r && !rc)
            rc = r;
        uvas_blk_publish(b, seen, uvas_blk_res(seen));
        uvas_migrate_wake(i);
    }
    return rc;
}

int uvas_migrate_drop_device(size_t bi, size_t n)
{
    int rc = UVAS_OK;
    for (size_t i = bi; i < bi + n; i++) {
        struct uvas_block *b = &uvas_g.bt[i];
        if (!b->dev_slot)
            continue;
        uvas_devtier_lru_remove(&uvas_g.devtier, i);
        /* The view goes before the memory it maps. If it cannot, the slot
         * must never hold another block: the range still reaches it. */
        if (uvas_cpuview_unmap(i) != UVAS_OK) {
            atomic_fetch_add_explicit(&uvas_g.ctr.slots_quarantined, 1, RLX);
            if (rc == UVAS_OK)
                rc = uvas_fail(UVAS_ERR_SYS, "%s; device slot %u is kept out of use",
                               uvas_last_error(), b->dev_slot);
        } else {
            uvas_devtier_slot_free(&uvas_g.devtier, b->dev_slot);
        }
        b->dev_slot = 0;
        atomic_store_explicit(&b->shadow, 0, RLX);
        if (atomic_exchange_explicit(&b->dup, 0, RLX))
            uvas_uffd_protect(&uvas_g.uffd, uvas_block_addr(i), uvas_g.block_size, false);
    }
    return rc;
}
