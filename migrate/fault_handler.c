/*
 * What a fault means, decided for the fault service (fault/service.c reads
 * the events and hands them here; it does not know the policy or the
 * engine). A first touch: the policy places the block and its tier
 * populates it whole. A CPU access to a host block whose pages are not
 * mapped here: map them. A CPU access to a device-resident block: the
 * policy says whether it comes back (with readahead) or is mapped where
 * it is. A write to a read-only host copy: the device copy is dropped.
 * And the process's own munmap and mremap of range memory: the range is
 * mapped again, the data kept.
 *
 * Races: two threads may fault on one block at once. The first handler to
 * set BUSY on the block resolves it; a second message for the block is
 * dropped once it has marked the block (uvas_blk_park), because whoever
 * clears BUSY, or lets go of the last kernel hold, wakes every thread
 * parked in a marked block after publishing its state (and a thread that
 * parks after its page is mapped does not sleep: the kernel re-checks the
 * PTE). Every drop marks: an unmarked block's end need not wake. Pages are
 * mapped without waking, so no thread runs on a block before queries and
 * the allocator see its new residence.
 */
#include "migrate/fault_handler.h"

#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fault/service.h"
#include "migrate/cpuview.h"
#include "migrate/migrate.h"
#include "migrate/policy.h"
#include "migrate/state.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/status.h"
#include "uvas/tier.h"
#include "uvas/uffd.h"

static bool in_range(uintptr_t a);

/* Out of memory or a failed copy: as the kernel does when shmem cannot
 * grow, the faulting thread gets SIGBUS rather than retrying forever. */
static void give_up(size_t bi, uintptr_t addr, uint32_t tid)
{
    uvas_warn("fault at %#lx: %s; sending SIGBUS to thread %u", (unsigned long)addr,
              uvas_last_error(), tid);
    if (tid)
        syscall(SYS_tgkill, getpid(), (pid_t)tid, SIGBUS);
    uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
}

/* The first touch of a block: the policy places it. */
static void first_touch(size_t bi, uintptr_t addr, uint32_t tid)
{
    struct uvas_counters *c = &uvas_g.ctr;
    struct uvas_block *b = &uvas_g.bt[bi];
    uint32_t seen;
    if (!uvas_blk_try_busy(b, UVAS_RES_UNPOPULATED, &seen)) {
        atomic_fetch_add_explicit(&c->faults_spurious, 1, memory_order_relaxed);
        uvas_migrate_park(bi);
        return;
    }
    atomic_fetch_add_explicit(&b->acc[UVAS_AGENT_CPU], 1, memory_order_relaxed);
    if (atomic_load_explicit(&b->owner, memory_order_acquire) == 0)
        atomic_fetch_add_explicit(&c->faults_stray, 1, memory_order_relaxed);
    int res = uvas_policy_place(&uvas_mg.policy, bi, UVAS_AGENT_CPU);
    const struct uvas_tier_ops *t = uvas_tier_of(res);
    int rc = t ? t->populate(bi, addr) : UVAS_ERR_NO_DEVICE;
    if (rc != UVAS_OK && res == UVAS_RES_DEVICE) { /* a touch never fails for want of room */
        res = UVAS_RES_HOST;
        t = &uvas_tier_host;
        rc = t->populate(bi, addr);
    }
    if (rc != UVAS_OK) {
        uvas_blk_publish(b, seen, UVAS_RES_UNPOPULATED);
        give_up(bi, addr, tid);
        return;
    }
    uvas_blk_publish(b, seen, res);
    uvas_stats_block_in(res, 1);
    uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
}

/* A host block whose pages are in the memfd but not mapped here (after an
 * eviction, access sampling, or a write through another mapping): map the
 * whole block. Holding BUSY keeps a migration from unmapping it under us. */
static void map_host(size_t bi)
{
    struct uvas_block *b = &uvas_g.bt[bi];
    uint32_t seen;
    if (!uvas_blk_try_busy(b, UVAS_RES_HOST, &seen)) {
        atomic_fetch_add_explicit(&uvas_g.ctr.faults_spurious, 1, memory_order_relaxed);
        uvas_migrate_park(bi);
        return;
    }
    char *a = uvas_block_addr(bi);
    atomic_fetch_add_explicit(&b->acc[UVAS_AGENT_CPU], 1, memory_order_relaxed); /* sampled */
    bool holes = false;
    uvas_uffd_continue(&uvas_g.uffd, a, uvas_g.block_size, &holes);
    if (holes) /* the user punched it: an import of the old pages is stale */
        atomic_store_explicit(&b->refilled, 1, memory_order_relaxed);
    uvas_blk_unbusy(b, seen);
    uvas_uffd_wake(&uvas_g.uffd, a, uvas_g.block_size);
}

static bool back_on_host(size_t bi)
{
    return uvas_blk_res(atomic_load_explicit(&uvas_g.bt[bi].state, memory_order_acquire)) ==
           UVAS_RES_HOST;
}

/* A device-resident block back for the CPU with its read-ahead window.
 * The window moves all or nothing, so a failure for a later block (its
 * host pages, say) failed this one too: it is tried again alone before
 * the fault gives up. On failure the engine leaves bi's threads parked:
 * give_up signals before it wakes them. */
static void fault_back(size_t bi, uintptr_t addr, uint32_t tid)
{
    size_t n = uvas_migrate_fault_window(bi);
    int rc = uvas_migrate_fault_back(bi, n);
    if (rc != UVAS_OK && n > 1 && !back_on_host(bi))
        rc = uvas_migrate_fault_back(bi, 1);
    if (rc != UVAS_OK && !back_on_host(bi))
        give_up(bi, addr, tid);
}

static void on_fault(uintptr_t addr, unsigned flags, uint32_t tid)
{
    struct uvas_counters *c = &uvas_g.ctr;
    atomic_fetch_add_explicit(&c->faults, 1, memory_order_relaxed);
    if (!in_range(addr)) {
        /* A mapping the user's mremap moved out of the range, before its
         * event was read: it is being removed; the access is refused. */
        atomic_fetch_add_explicit(&c->faults_stray, 1, memory_order_relaxed);
        uvas_warn("fault at %#lx outside the range (memory moved out of it by mremap); "
                  "sending SIGSEGV to thread %u", (unsigned long)addr, tid);
        if (tid)
            syscall(SYS_tgkill, getpid(), (pid_t)tid, SIGSEGV);
        uvas_uffd_wake(&uvas_g.uffd, (void *)uvas_page_down(addr), UVAS_PAGE);
        return;
    }
    size_t bi = uvas_block_index((void *)addr);
    /* In a transition, or held by kernels: whoever ends it wakes the block. */
    if (uvas_blk_park(&uvas_g.bt[bi])) {
        atomic_fetch_add_explicit(&c->faults_spurious, 1, memory_order_relaxed);
        return;
    }
    uint32_t s = atomic_load_explicit(&uvas_g.bt[bi].state, memory_order_acquire);
    if (flags & UVAS_FAULT_PROTECT) { /* a write to a read-only host copy */
        atomic_fetch_add_explicit(&c->faults_device, 1, memory_order_relaxed);
        uvas_migrate_write_fault(bi);
        return;
    }
    /* Missing and minor faults are told apart by the block's state. */
    switch (uvas_blk_res(s)) {
    case UVAS_RES_UNPOPULATED:
        first_touch(bi, addr, tid);
        break;
    case UVAS_RES_HOST:
        map_host(bi);
        break;
    case UVAS_RES_DEVICE:
        /* The CPU wants a device-resident block: the policy says whether
         * it comes back or is mapped where it is. */
        atomic_fetch_add_explicit(&c->faults_device, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&uvas_g.bt[bi].acc[UVAS_AGENT_CPU], 1, memory_order_relaxed);
        uvas_fault_mm_begin();
        if (!uvas_migrate_cpu_map(bi, flags & UVAS_FAULT_WRITE))
            fault_back(bi, addr, tid);
        uvas_fault_mm_end();
        break;
    }
}

/* ---- process events: the user's munmap and mremap in the range ---------- */

static bool in_range(uintptr_t a)
{
    return a >= (uintptr_t)uvas_g.base && a - (uintptr_t)uvas_g.base < uvas_g.size;
}

/* [a, a+len) clipped to the range, page-aligned; false if empty. */
static bool clip(uintptr_t *a, size_t *len)
{
    uintptr_t b = (uintptr_t)uvas_g.base, e = b + uvas_g.size;
    uintptr_t s = uvas_page_down(*a), t = uvas_page_up(*a + *len);
    if (s < b)
        s = b;
    if (t > e)
        t = e;
    if (s >= t)
        return false;
    *a = s;
    *len = t - s;
    return true;
}

/* Put the memfd mapping back over a hole [a, a+len) that a reservation of
 * ours now holds (not registered: replacing it raises no event). Until it
 * is registered it stays PROT_NONE: an access racing the refill gets
 * SIGSEGV, as it would in the hole, never a page userfaultfd did not see. */
static int map_back(uintptr_t a, size_t len)
{
    void *m;
    /* not inherited by a child, as the range (uvas/range.c) */
    int rc = uvas_os_map(uvas_g.memfd, a - (uintptr_t)uvas_g.base, len,
                         UVAS_OS_NONE | UVAS_OS_FIXED | UVAS_OS_NORESERVE | UVAS_OS_NOFORK,
                         (void *)a, &m);
    if (!rc)
        rc = uvas_uffd_reregister(&uvas_g.uffd, (void *)a, len);
    if (!rc)
        rc = uvas_os_protect((void *)a, len, UVAS_OS_RW);
    if (rc)
        return rc;
    uvas_uffd_wake(&uvas_g.uffd, (void *)a, len);
    return UVAS_OK;
}

/* Map the holes in [a, a+len) again; parts mapped meanwhile (uvas's own
 * swaps of CPU views replace mappings in one step and never leave a hole)
 * are left alone. Pages refilled are added to *done. */
static void refill(uintptr_t a, size_t len, size_t *done)
{
    if (!len || uvas_os_all_mapped((void *)a, len))
        return;
    void *r;
    if (uvas_os_reserve(len, UVAS_OS_NOREPLACE, (void *)a, &r)) {
        if (len <= UVAS_PAGE)
            return;
        size_t half = uvas_page_down(len / 2);
        refill(a, half, done);
        refill(a + half, len - half, done);
        return;
    }
    if (map_back(a, len) != UVAS_OK) {
        uvas_warn("cannot map [%#lx, %#lx) of the range again after the user's munmap: %s; "
                  "accesses there get SIGSEGV", (unsigned long)a, (unsigned long)(a + len),
                  uvas_last_error());
        return;
    }
    *done += len;
}

/* Blocks of [a, a+len) whose CPU view of device memory the user unmapped:
 * the view goes the normal way (migrate/cpuview.c puts the memfd mapping
 * back, registered); the next CPU access maps it again. A block in a
 * transition is left to it: every transition away from the device puts
 * the memfd mapping back first. */
static void drop_views(uintptr_t a, size_t len)
{
    size_t first = uvas_block_index((void *)a), last = uvas_block_index((void *)(a + len - 1));
    for (size_t bi = first; bi <= last; bi++) {
        struct uvas_block *b = &uvas_g.bt[bi];
        uint32_t seen;
        if (!atomic_load_explicit(&b->cpu_mapped, memory_order_relaxed) ||
            !uvas_blk_try_busy(b, UVAS_RES_DEVICE, &seen))
            continue;
        /* Only a view with a hole in it: the event may be the one uvas
         * raised itself mapping this view (MAP_FIXED over the range), read
         * after the view was in place and the block published. BUSY keeps
         * views from changing while we look. */
        if (!atomic_load_explicit(&b->cpu_mapped, memory_order_relaxed) ||
            uvas_os_all_mapped(uvas_block_addr(bi), uvas_g.block_size)) {
            uvas_blk_unbusy(b, seen);
            uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
            continue;
        }
        if (uvas_cpuview_unmap(bi) != UVAS_OK)
            uvas_warn("block %zu: %s", bi, uvas_last_error());
        uvas_blk_unbusy(b, seen);
        uvas_uffd_wake(&uvas_g.uffd, uvas_block_addr(bi), uvas_g.block_size);
    }
}

static _Atomic unsigned long holes_refilled, moves_refused;

/* The user unmapped [a, a+len) (or moved it away): map it again. */
static void user_hole(uintptr_t a, size_t len, const char *what)
{
    if (!clip(&a, &len))
        return;
    drop_views(a, len);
    size_t done = 0;
    refill(a, len, &done);
    if (done && atomic_fetch_add(&holes_refilled, 1) < 8)
        uvas_warn("%s [%#lx, %#lx) of the uvas range: mapped again (the data lives in the "
                  "memfd and is kept)", what, (unsigned long)a, (unsigned long)(a + len));
}

/* Remove a mapping of ours that the user's mremap moved to [a, a+len):
 * its registration first, so the unmap raises no event (which this
 * thread would wait on). Threads parked in it are woken and get SIGSEGV. */
static void remove_moved(uintptr_t a, size_t len)
{
    uvas_os_protect((void *)a, len, UVAS_OS_NONE);
    uvas_uffd_unregister(&uvas_g.uffd, (void *)a, len);
    uvas_os_unmap((void *)a, len);
    uvas_uffd_wake(&uvas_g.uffd, (void *)a, len);
}

static void on_unmapped(uintptr_t start, uintptr_t end)
{
    user_hole(start, (size_t)(end - start), "munmap of");
}

static void on_moved(uintptr_t from, uintptr_t to, size_t len)
{
    if (!in_range(from))
        return; /* uvas's own: a CPU view swapped back (migrate/cpuview.c) */
    /* The user moved range memory: refused. Its new place would show
     * the memfd's pages, stale for device-resident blocks. */
    remove_moved(to, len);
    if (atomic_fetch_add(&moves_refused, 1) < 8)
        uvas_warn("mremap of [%#lx, %#lx) of the uvas range to %#lx is not supported: the "
                  "moved mapping was removed, the range mapped again where it was",
                  (unsigned long)from, (unsigned long)(from + len), (unsigned long)to);
    user_hole(from, len, "mremap of");
}

const struct uvas_fault_handler uvas_migrate_fault_handler = {
    .fault = on_fault,
    .unmapped = on_unmapped,
    .moved = on_moved,
};
