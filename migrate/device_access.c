/*
 * uvas_device_access: the device touching memory, as a GPU kernel would,
 * for experiments and for the transport layer's device-side operations.
 * A block not on the device "faults" there and the policy decides:
 * migrate it, duplicate it (reads), or serve the access where it is
 * through the host pages. The access itself is a copy-engine read or
 * write, so its cost is real.
 */
#include "migrate/device_access.h"

#include <sched.h>
#include <string.h>

#include "fault/service.h"
#include "migrate/copy.h"
#include "migrate/import_cache.h"
#include "migrate/migrate.h"
#include "migrate/policy.h"
#include "migrate/state.h"
#include "uvas/atomics.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/span.h"
#include "uvas/status.h"
#include "uvas/tier.h"
#include "uvas/uffd.h"

/* A device buffer the accesses read into and write from. */
static struct {
    pthread_mutex_t mu;
    VkBuffer buf;
    VkDeviceMemory mem;
} scratch = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int scratch_get(void)
{
    if (scratch.buf)
        return UVAS_OK;
    struct uvas_vulkan *d = &uvas_g.devtier.dev;
    VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                              .size = uvas_g.block_size,
                              .usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    if (vkCreateBuffer(d->dev, &bci, NULL, &scratch.buf) != VK_SUCCESS)
        return uvas_fail(UVAS_ERR_NOMEM, "cannot create the device access buffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d->dev, scratch.buf, &req);
    VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                .allocationSize = req.size,
                                .memoryTypeIndex = d->dev_type};
    if (!(req.memoryTypeBits & (1u << d->dev_type)) ||
        vkAllocateMemory(d->dev, &mai, NULL, &scratch.mem) != VK_SUCCESS) {
        vkDestroyBuffer(d->dev, scratch.buf, NULL);
        scratch.buf = VK_NULL_HANDLE;
        return uvas_fail(UVAS_ERR_NOMEM, "cannot allocate the device access buffer");
    }
    vkBindBufferMemory(d->dev, scratch.buf, scratch.mem, 0);
    return UVAS_OK;
}

void uvas_device_access_fini(void)
{
    if (!scratch.buf)
        return;
    VkDevice d = uvas_g.devtier.dev.dev;
    vkDestroyBuffer(d, scratch.buf, NULL);
    vkFreeMemory(d, scratch.mem, NULL);
    scratch.buf = VK_NULL_HANDLE;
    scratch.mem = VK_NULL_HANDLE;
}

/* Read or write [off, off+n) of a buffer holding the block. */
static int touch(VkBuffer buf, VkDeviceSize off, size_t n, int write, unsigned char value)
{
    pthread_mutex_lock(&scratch.mu);
    int rc = scratch_get();
    if (rc == UVAS_OK) {
        struct uvas_copy_op ops[2];
        size_t k = 0;
        if (write) {
            ops[k++] = (struct uvas_copy_op){.dst = scratch.buf,
                                             .size = (n + 3) & ~(size_t)3,
                                             .fill = value * 0x01010101u};
            ops[k++] = (struct uvas_copy_op){scratch.buf, 0, buf, off, n, 0};
        } else {
            ops[k++] = (struct uvas_copy_op){buf, off, scratch.buf, 0, n, 0};
        }
        rc = uvas_copier_run(&uvas_mg.copier, ops, k);
    }
    pthread_mutex_unlock(&scratch.mu);
    return rc;
}

static void give_back(size_t bi, uint32_t seen, int res)
{
    bool parked = res == uvas_blk_res(seen) ? uvas_blk_unbusy(&uvas_g.bt[bi], seen)
                                            : uvas_blk_publish(&uvas_g.bt[bi], seen, res);
    /* Only a block a parked fault marked (uvas/block.h): a launch places
     * and takes hundreds, and a wake is a system call. */
    if (parked)
        uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
}

/* A device-resident block (no host duplicate) taken for a device access
 * that moves nothing: BUSY without closing its gate, so the peers'
 * accesses to its slot, and the leases other PEs' kernels hold on it
 * (transport/pe/lease.h), go on while this PE's kernels run over the
 * same memory. False: take it the usual way. */
static bool take_in_place(struct uvas_block *b, uint32_t *seen)
{
    uint32_t s = atomic_load_explicit(&b->state, ACQ);
    if ((s & UVAS_BLK_BUSY) || uvas_blk_held(s) || uvas_blk_res(s) != UVAS_RES_DEVICE ||
        atomic_load_explicit(&b->dup, RLX))
        return false;
    /* dup changes only in a transition, which BUSY excludes from here on. */
    if (!atomic_compare_exchange_strong_explicit(&b->state, &s, s | UVAS_BLK_BUSY, ACQ_REL, ACQ))
        return false;
    *seen = s;
    return true;
}

/* Untouched block bi, taken (seen), populated at `to` (on the host when
 * the device has no room) and given back. Status: on failure it is given
 * back untouched. */
static int populate(size_t bi, uint32_t seen, int to)
{
    int rc = uvas_tier_of(to)->populate(bi, (uintptr_t)uvas_block_addr(bi));
    if (rc && to == UVAS_RES_DEVICE) {
        to = UVAS_RES_HOST;
        rc = uvas_tier_host.populate(bi, (uintptr_t)uvas_block_addr(bi));
    }
    if (rc) {
        give_back(bi, seen, UVAS_RES_UNPOPULATED);
        return rc;
    }
    give_back(bi, seen, to);
    uvas_stats_block_in(to, 1);
    return UVAS_OK;
}

/* Untouched blocks taken for the device, placed there together; those
 * that found no room (or whose fills failed) go to the host, as one
 * block would. */
static void place_batch(const size_t *bi, const uint32_t *seen, size_t k)
{
    size_t placed = 0;
    if (k)
        (void)uvas_migrate_place_many_on_device(bi, k, true, &placed);
    for (size_t i = 0; i < k; i++) {
        if (i >= placed) {
            (void)populate(bi[i], seen[i], UVAS_RES_HOST);
            continue;
        }
        give_back(bi[i], seen[i], UVAS_RES_DEVICE);
        uvas_stats_block_in(UVAS_RES_DEVICE, 1);
    }
}

/* Host-resident blocks bi[0..k) (sorted) to the device, a run of
 * consecutive ones per call: the engine's stages keep the copy engine
 * busy while it unmaps the next. Failures are left to uvas_device_take,
 * which finds them on the host and says why. */
static void migrate_runs(const size_t *bi, size_t k)
{
    for (size_t i = 0; i < k;) {
        size_t j = i + 1;
        while (j < k && bi[j] == bi[j - 1] + 1)
            j++;
        (void)uvas_migrate_blocks(bi[i], j - i, UVAS_RES_DEVICE, 0);
        i = j;
    }
}

/* Host blocks gathered before the engine is called: its pipeline drains
 * once per call. */
#define PREPARE_MOVES 1024

void uvas_device_prepare(const size_t *bi, size_t n, uint8_t *prep)
{
    size_t place[UVAS_PLACE_MAX], move[PREPARE_MOVES], np = 0, nm = 0;
    uint32_t seen[UVAS_PLACE_MAX];
    /* Only what fits without evicting: moved ahead of their holds, the
     * set's blocks would evict each other; past that, each block is held
     * as soon as it is moved (uvas_device_take), as a set larger than the
     * device needs. */
    size_t room = uvas_devtier_room_blocks(&uvas_g.devtier);
    memset(prep, UVAS_PREP_NONE, n);
    for (size_t i = 0; i < n; i++) {
        struct uvas_block *b = &uvas_g.bt[bi[i]];
        uint32_t s = atomic_load_explicit(&b->state, ACQ);
        if ((s & UVAS_BLK_BUSY) || uvas_blk_held(s))
            continue; /* another agent's, or held by a launch: uvas_device_take's */
        int res = uvas_blk_res(s);
        if (res != UVAS_RES_DEVICE && room == 0)
            break;
        atomic_fetch_add_explicit(&b->acc[UVAS_AGENT_DEVICE], 1, RLX);
        prep[i] = UVAS_PREP_COUNTED;
        if (res == UVAS_RES_UNPOPULATED) {
            if (!uvas_blk_take(b, false, &s))
                continue;
            if (uvas_blk_res(s) != UVAS_RES_UNPOPULATED) {
                give_back(bi[i], s, uvas_blk_res(s));
                continue;
            }
            int to = uvas_policy_place(&uvas_mg.policy, bi[i], UVAS_AGENT_DEVICE);
            if (to != UVAS_RES_DEVICE) {
                (void)populate(bi[i], s, to); /* failed: uvas_device_take says why */
                continue;
            }
            place[np] = bi[i];
            seen[np++] = s;
            room--;
            if (np == UVAS_PLACE_MAX) {
                place_batch(place, seen, np);
                np = 0;
            }
        } else if (res == UVAS_RES_HOST) {
            /* As uvas_device_take asks for a launch (which may write). */
            int act = uvas_policy_fault(&uvas_mg.policy, bi[i], UVAS_AGENT_DEVICE, true, true);
            if (act == UVAS_ACTION_REMOTE) {
                prep[i] = UVAS_PREP_REMOTE;
                continue;
            }
            move[nm++] = bi[i];
            room--;
            if (nm == PREPARE_MOVES) { /* the placed ones first: they wait BUSY */
                place_batch(place, seen, np);
                np = 0;
                migrate_runs(move, nm);
                nm = 0;
            }
        }
    }
    place_batch(place, seen, np);
    migrate_runs(move, nm);
}

int uvas_device_take(size_t bi, unsigned how, struct uvas_device_hold *h)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    bool write = how & UVAS_DEV_WRITE, wait = how & UVAS_DEV_WAIT;
    bool in_place = how & UVAS_DEV_IN_PLACE;
    *h = (struct uvas_device_hold){0};
    for (int round = 0; round < 8; round++) {
        /* Moved away again before the device could use it: the CPU wants
         * it as much. Served where it is from the third try on, as UVM
         * maps a thrashing page remotely, rather than chased (a launch
         * while two threads read the same blocks failed, "kept moving",
         * under ASan: tests/gpu/test-gpu-touch-unhold.c). */
        if (round >= 2)
            in_place = true;
        if (!take_in_place(b, &h->seen) && !uvas_blk_take(b, wait, &h->seen)) {
            h->busy = true;
            return UVAS_OK;
        }
        int res = uvas_blk_res(h->seen);
        if (res == UVAS_RES_UNPOPULATED) { /* the device's first touch */
            int rc = populate(bi, h->seen,
                              in_place ? UVAS_RES_HOST
                                       : uvas_policy_place(&uvas_mg.policy, bi,
                                                           UVAS_AGENT_DEVICE));
            if (rc)
                return rc;
            continue;
        }
        if (res == UVAS_RES_DEVICE) {
            if (write && atomic_exchange_explicit(&b->dup, 0, RLX)) {
                /* The host copy goes stale: unmap it so the CPU faults.
                 * Left mapped, the CPU would read it stale: no write. */
                char *a = uvas_block_addr(bi);
                int rc = uvas_os_zap(a, uvas_g.block_size);
                if (rc) {
                    atomic_store_explicit(&b->dup, 1, RLX);
                    give_back(bi, h->seen, res);
                    return rc;
                }
                uvas_uffd_protect(&uvas_g.uffd, a, uvas_g.block_size, false);
            }
            return UVAS_OK;
        }
        /* Host-resident: the policy decides. */
        int act = in_place ? UVAS_ACTION_REMOTE
                           : uvas_policy_fault(&uvas_mg.policy, bi, UVAS_AGENT_DEVICE, write,
                                               true);
        if (act == UVAS_ACTION_REMOTE) {
            h->remote = true;
            atomic_fetch_add_explicit(&uvas_g.ctr.device_remote, 1, RLX);
            return UVAS_OK;
        }
        give_back(bi, h->seen, res);
        if (act == UVAS_ACTION_DUPLICATE)
            atomic_fetch_or_explicit(&b->advice, UVAS_BA_READ_MOSTLY, RLX);
        int rc = uvas_migrate_blocks(bi, 1, UVAS_RES_DEVICE, wait ? UVAS_MIG_WAIT : 0);
        if (rc == UVAS_ERR_NOMEM) { /* no room: served from the host this time */
            if (!uvas_blk_take(b, wait, &h->seen)) {
                h->busy = true;
                return UVAS_OK;
            }
            if (uvas_blk_res(h->seen) == UVAS_RES_HOST) {
                h->remote = true;
                atomic_fetch_add_explicit(&uvas_g.ctr.device_remote, 1, RLX);
                return UVAS_OK;
            }
            give_back(bi, h->seen, uvas_blk_res(h->seen));
        } else if (rc) {
            return rc;
        }
    }
    return uvas_fail(UVAS_ERR_SYS, "block %zu kept moving under a device access", bi);
}

void uvas_device_give_back(size_t bi, const struct uvas_device_hold *h)
{
    give_back(bi, h->seen, uvas_blk_res(h->seen));
}

/* The device touches [off, off+n) of block bi. */
static int access_block(size_t bi, size_t off, size_t n, int write, unsigned char value)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    atomic_fetch_add_explicit(&b->acc[UVAS_AGENT_DEVICE], 1, RLX);
    atomic_fetch_add_explicit(&uvas_g.ctr.device_touches, 1, RLX);
    struct uvas_device_hold h;
    int rc = uvas_device_take(bi, (write ? UVAS_DEV_WRITE : 0) | UVAS_DEV_WAIT, &h);
    if (rc)
        return rc;
    if (h.remote) {
        VkBuffer hb;
        VkDeviceSize ho;
        struct uvas_import tmp;
        rc = uvas_import_cache_get(bi, &hb, &ho, &tmp);
        if (rc == UVAS_OK)
            rc = touch(hb, ho + off, n, write, value);
        uvas_import_cache_put(&tmp);
    } else {
        VkBuffer sb;
        VkDeviceSize so;
        uvas_devtier_slot_where(&uvas_g.devtier, b->dev_slot, &sb, &so, NULL);
        rc = touch(sb, so + off, n, write, value);
    }
    uvas_device_give_back(bi, &h);
    return rc;
}

static int device_access_entered(void *ptr, size_t len, int write, unsigned char value)
{
    uvas_clear_error();
    struct uvas_ptr_info info;
    int src = uvas_span_check(ptr, len, "uvas_device_access", &info);
    if (src)
        return src;
    if (!uvas_devtier_present(&uvas_g.devtier))
        return uvas_fail(UVAS_ERR_NO_DEVICE, "uvas_device_access: %s", uvas_g.device_note);
    char *p = ptr, *end = p + len;
    while (p < end) {
        size_t bi = uvas_block_index(p);
        size_t off = (size_t)(p - uvas_block_addr(bi));
        size_t n = uvas_g.block_size - off;
        if (n > (size_t)(end - p))
            n = (size_t)(end - p);
        int rc = access_block(bi, off, n, write, value);
        if (rc)
            return rc;
        p += n;
    }
    return UVAS_OK;
}

int uvas_device_access(void *ptr, size_t len, int write, unsigned char value)
{
    int entered = uvas_api_enter("uvas_device_access");
    if (entered)
        return entered;
    int rc = device_access_entered(ptr, len, write, value);
    uvas_api_leave();
    return rc;
}
