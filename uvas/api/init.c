/*
 * The composition root: uvas_init wires the floors together (the hooks the
 * ground borrows from above, the fault handler, the device tier's
 * operations) and starts them bottom-up; uvas_finalize stops them top-down.
 * The one file that sees every floor (docs/architecture.md).
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fault/service.h"
#include "gpu/kernel.h"
#include "migrate/cpuview.h"
#include "migrate/device_access.h"
#include "migrate/fault_handler.h"
#include "migrate/import_cache.h"
#include "migrate/pinner.h"
#include "migrate/staging.h"
#include "migrate/migrate.h"
#include "migrate/policy.h"
#include "migrate/state.h"
#include "migrate/tick.h"
#include "migrate/tier_device.h"
#include "uvas/alloc.h"
#include "uvas/api/finalize.h"
#include "uvas/api/init.h"
#include "uvas/stat_server.h"
#include "uvas/gate.h"
#include "uvas/inject.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/locality.h"
#include "uvas/range.h"
#include "uvas/rundir.h"
#include "uvas/span.h"
#include "uvas/status.h"
#include "uvas/tier.h"
#include "uvas/uffd.h"

static bool finalizing; /* under uvas_g.lock: init waits for the teardown */
/* Set by uvas_finalize, cleared by uvas_init: after a finalize, allocating
 * does not start uvas again behind the program's back (a thread still
 * allocating then gets UVAS_ERR_NOT_INIT, as every other call does). */
static atomic_bool finalized;

static bool same_config(const struct uvas_config *a, const struct uvas_config *b)
{
    return a->size == b->size && a->base == b->base && a->block_size == b->block_size &&
           a->fault_mode == b->fault_mode && a->fault_threads == b->fault_threads &&
           !strcmp(a->policy, b->policy) && a->flags == b->flags && a->device == b->device &&
           a->device_size == b->device_size;
}

static void teardown(void)
{
    atomic_store(&uvas_g.generation, 0);
    uvas_stat_server_stop();
    uvas_policy_ticker_stop();
    uvas_migrate_async_stop();
    uvas_pinner_stop();
    uvas_fault_service_stop();
    uvas_gpu_fini();
    uvas_device_access_fini();
    uvas_import_cache_fini();
    uvas_staging_fini();
    uvas_copier_fini(&uvas_mg.copier);
    uvas_devtier_close(&uvas_g.devtier);
    uvas_cpuview_fini();
    if (uvas_g.alias)
        uvas_os_unmap(uvas_g.alias, uvas_g.size);
    uvas_g.alias = NULL;

    uvas_uffd_close(&uvas_g.uffd);
    uvas_range_unmap(uvas_g.base, uvas_g.size, uvas_g.memfd);
    uvas_slabs_fini(&uvas_g.slabs);
    uvas_extents_fini(&uvas_g.extents);
    uvas_gate_table_destroy(uvas_g.gates, uvas_g.nblocks, uvas_g.gate_fd);
    uvas_g.gates = NULL;
    uvas_g.gate_fd = -1;
    uvas_block_table_destroy(uvas_g.bt, uvas_g.nblocks);
    uvas_policy_close(&uvas_mg.policy);
    uvas_rundir_release();
    uvas_g.base = NULL;
    uvas_g.memfd = -1;
    uvas_g.bt = NULL;
    memset(&uvas_g.ctr, 0, sizeof uvas_g.ctr);
}

/* userfaultfd if allowed and wanted; otherwise eager placement, said once. */
static int start_fault_path(const struct uvas_config *c)
{
    if (c->fault_mode == UVAS_FAULT_EAGER) {
        uvas_g.fault_mode = UVAS_FAULT_EAGER;
        snprintf(uvas_g.fault_note, sizeof uvas_g.fault_note,
                 "eager placement requested (UVAS_FAULT=eager)");
        return UVAS_OK;
    }
    char note[sizeof uvas_g.fault_note / 2]; /* the longest is ~350 bytes */
    int rc = uvas_uffd_open(&uvas_g.uffd, note, sizeof note);
    if (rc == UVAS_OK) {
        rc = uvas_uffd_register(&uvas_g.uffd, uvas_g.base, uvas_g.size, uvas_g.memfd,
                                c->huge_pages);
        if (rc == UVAS_OK)
            rc = uvas_fault_service_start(uvas_g.uffd.fd, c->fault_threads,
                                          &uvas_migrate_fault_handler);
        if (rc)
            return rc;
        uvas_g.fault_mode = UVAS_FAULT_UFFD;
        snprintf(uvas_g.fault_note, sizeof uvas_g.fault_note, "%s", note);
        return UVAS_OK;
    }
    if (c->fault_mode == UVAS_FAULT_UFFD)
        return uvas_fail(rc, "UVAS_FAULT=uffd but userfaultfd is unavailable: %s", note);
    uvas_g.fault_mode = UVAS_FAULT_EAGER;
    snprintf(uvas_g.fault_note, sizeof uvas_g.fault_note,
             "first-touch placement off, blocks placed at allocation: %s", note);
    uvas_warn("%s", uvas_g.fault_note);
    return UVAS_OK;
}

/* The device tier needs minor faults: they catch CPU accesses to blocks
 * being copied out and to device-resident blocks. */
static int start_device_tier(const struct uvas_config *c)
{
    char *note = uvas_g.device_note;
    size_t len = sizeof uvas_g.device_note;
    if (c->device == UVAS_DEV_WANT_NONE) {
        snprintf(note, len, "no device tier (UVAS_DEVICE=none)");
        return UVAS_OK;
    }
    if (uvas_g.fault_mode != UVAS_FAULT_UFFD || !uvas_g.uffd.has_minor) {
        snprintf(note, len, "no device tier: migration needs userfaultfd with minor faults "
                 "on shmem (%.900s)",
                 uvas_g.fault_mode == UVAS_FAULT_UFFD ? "this kernel lacks them"
                                                      : uvas_g.fault_note);
        return UVAS_OK;
    }
    int rc = uvas_devtier_open(&uvas_g.devtier, c->device, c->device_said, c->device_size,
                               c->block_size, c->copy_queues, note, len);
    if (rc || !uvas_devtier_present(&uvas_g.devtier))
        return rc;
    if (uvas_locality_bind_memory(&uvas_g.devtier.dev, uvas_g.base, uvas_g.size)) {
        size_t used = strlen(note);
        snprintf(note + used, len - used, ", host tier on NUMA node %d",
                 uvas_g.devtier.dev.numa_node);
    }
    if ((rc = uvas_import_cache_init(uvas_g.nblocks)) ||
        (rc = uvas_copier_init(&uvas_mg.copier, &uvas_g.devtier.dev)) ||
        (rc = uvas_migrate_async_start()) || (rc = uvas_pinner_start()))
        return rc;
    /* Staging lanes now, not at the first migration that needs them (30 ms
     * on the H200), nor beside the program's first work (the driver's
     * pinning slowed the copies next to it: docs/migration.md). */
    uvas_staging_prepare();
    return UVAS_OK;
}

/* The host tier mapped again without userfaultfd: the engine's view of
 * host pages (page tables it builds stay) and the transport's, which must
 * read and write host blocks without faulting while it holds a peer's pin. */
static void map_alias(void)
{
    if (uvas_g.size > ((size_t)16 << 40))
        return;
    uvas_g.alias = uvas_os_map_file(uvas_g.memfd, uvas_g.size);
}

static int place_eager(size_t bi)
{
    return uvas_policy_place(&uvas_mg.policy, bi, UVAS_AGENT_CPU);
}

static int device_heap_to_device(size_t first, size_t n)
{
    return uvas_migrate_blocks(first, n, UVAS_RES_DEVICE, UVAS_MIG_WAIT | UVAS_MIG_SM_FILL);
}

/* What each floor lends the one below it, through the ground's hooks. */
static void wire_floors(void)
{
    uvas_alloc_lend(&(struct uvas_alloc_hooks){
        .place = place_eager,
        .to_device = device_heap_to_device,
        .settle = uvas_migrate_async_settle,
        .held = uvas_gpu_holds,
    });
    uvas_tier_host_lend(&(struct uvas_host_tier_hooks){
        .zero = uvas_fault_zero_block,          /* the service threads' parallel fill */
        .before_release = uvas_import_cache_drop,  /* imports pin the pages */
    });
    uvas_tier_device_register(&uvas_tier_device);
}

/* Other PEs' accesses are counted where asked (UVAS_PEER_COUNTS), or for
 * a policy that asks and can act on them: with no device tier nothing
 * moves, and the count costs every window call (docs/policies.md). */
static void count_peers(const struct uvas_config *c)
{
    uvas_gate_counting(c->peer_counts ||
                       ((uvas_policy_tracking(&uvas_mg.policy) & UVAS_POLICY_TRACK_PEERS) &&
                        uvas_devtier_present(&uvas_g.devtier)));
}

static int setup(const struct uvas_config *c)
{
    wire_floors();
    uvas_gate_counting(false); /* count_peers decides, once the device tier is known */
    uvas_g.cfg = *c;
    uvas_g.quiet = c->flags & UVAS_INIT_QUIET;
    uvas_g.block_size = c->block_size;
    uvas_g.shift = (unsigned)__builtin_ctzl(c->block_size);
    uvas_g.size = c->size;
    uvas_g.nblocks = c->size >> uvas_g.shift; /* < 2^32: checked by the config */
    char why[256];
    if (uvas_policy_open(c->policy, &uvas_mg.policy, why, sizeof why))
        return uvas_fail(UVAS_ERR_INVAL, "policy '%s': %s", c->policy, why);
    int rc;
    if ((rc = uvas_block_table_create(uvas_g.nblocks, &uvas_g.bt)) ||
        (rc = uvas_extents_init(&uvas_g.extents, uvas_g.nblocks)) ||
        (rc = uvas_slabs_init(&uvas_g.slabs, c->block_size, uvas_g.nblocks)) ||
        (rc = uvas_gate_table_create(uvas_g.nblocks, &uvas_g.gate_fd, &uvas_g.gates)) ||
        (rc = uvas_range_map(c->base, c->size, c->huge_pages, &uvas_g.memfd, &uvas_g.base)) ||
        (map_alias(), rc = start_fault_path(c)) || (rc = start_device_tier(c)) ||
        (count_peers(c), rc = uvas_policy_ticker_start(&uvas_mg.policy)) ||
        (rc = uvas_stat_server_start()))
        return rc;
    return UVAS_OK;
}

int uvas_init(const struct uvas_options *opts)
{
    uvas_clear_error();
    struct uvas_config c;
    int rc = uvas_config_resolve(opts, uvas_policy_check, &c);
    if (rc)
        return rc;
    pthread_mutex_lock(&uvas_g.lock);
    while (finalizing) { /* another thread's uvas_finalize is tearing down */
        pthread_mutex_unlock(&uvas_g.lock);
        sched_yield();
        pthread_mutex_lock(&uvas_g.lock);
    }
    if (atomic_load(&uvas_g.ready)) {
        rc = same_config(&c, &uvas_g.cfg)
                 ? UVAS_OK
                 : uvas_fail(UVAS_ERR_ALREADY_INIT,
                             "uvas is already initialised with other options (block size "
                             "%zu, size %zu, policy %s): call uvas_finalize first",
                             uvas_g.cfg.block_size, uvas_g.cfg.size, uvas_g.cfg.policy);
        pthread_mutex_unlock(&uvas_g.lock);
        return rc;
    }
    /* UVAS_INJECT before anything that may be made to fail. */
    if ((rc = uvas_inject_from_env())) {
        pthread_mutex_unlock(&uvas_g.lock);
        return rc;
    }
    rc = setup(&c);
    if (rc) {
        char keep[UVAS_MSG_MAX];
        snprintf(keep, sizeof keep, "%s", uvas_last_error());
        teardown();
        uvas_fail(rc, "%s", keep);
    } else {
        atomic_store(&finalized, false);
        atomic_store(&uvas_g.generation, ++uvas_g.ranges_made);
        atomic_store(&uvas_g.ready, true);
    }
    pthread_mutex_unlock(&uvas_g.lock);
    return rc;
}

int uvas_ensure_init(void)
{
    if (atomic_load_explicit(&uvas_g.ready, memory_order_acquire))
        return UVAS_OK;
    if (atomic_load(&finalized))
        return uvas_fail(UVAS_ERR_NOT_INIT, "uvas was finalized: call uvas_init to use it "
                         "again");
    return uvas_init(NULL);
}

static _Atomic(int (*)(void)) finalize_drain;

void uvas_finalize_lend_drain(int (*drain)(void))
{
    atomic_store(&finalize_drain, drain);
}

int uvas_finalize(void)
{
    uvas_clear_error();
    /* Work enqueued before the finalize runs on the range first: the
     * queues' threads use the public calls, refused once ready is clear. */
    int (*drain)(void) = atomic_load(&finalize_drain);
    int rc = atomic_load(&uvas_g.ready) && drain ? drain() : UVAS_OK;
    if (rc)
        return rc;
    pthread_mutex_lock(&uvas_g.lock);
    if (!atomic_load(&uvas_g.ready)) {
        pthread_mutex_unlock(&uvas_g.lock);
        return uvas_fail(UVAS_ERR_NOT_INIT, "uvas_finalize: uvas is not initialised");
    }
    atomic_store(&uvas_g.ready, false);
    uvas_span_changed(); /* the range goes: no span is live any more */
    atomic_store(&finalized, true);
    finalizing = true;
    pthread_mutex_unlock(&uvas_g.lock);
    /* Calls already in (a migration, an allocation) finish first; new ones
     * get UVAS_ERR_NOT_INIT. They may need the lock, so it is not held. */
    uvas_api_wait_idle();
    pthread_mutex_lock(&uvas_g.lock);
    teardown();
    finalizing = false;
    pthread_mutex_unlock(&uvas_g.lock);
    return UVAS_OK;
}

uint64_t uvas_range_generation(void)
{
    return atomic_load(&uvas_g.generation);
}

int uvas_range(struct uvas_range_desc *d)
{
    uvas_clear_error();
    if (!d)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_range: desc is NULL");
    if (!atomic_load(&uvas_g.ready))
        return uvas_fail(UVAS_ERR_NOT_INIT, "uvas_range: call uvas_init first");
    *d = (struct uvas_range_desc){
        .base = uvas_g.base,
        .size = uvas_g.size,
        .block_size = uvas_g.block_size,
        .fault_mode = uvas_g.fault_mode,
        .fault_threads = uvas_fault_service_threads(),
        .policy = uvas_mg.policy.spec,
        .fault_note = uvas_g.fault_note,
        .device_present = uvas_devtier_present(&uvas_g.devtier),
        .device_name = uvas_devtier_present(&uvas_g.devtier) ? uvas_g.devtier.dev.name : "",
        .device_driver = uvas_devtier_present(&uvas_g.devtier) ? uvas_g.devtier.dev.driver : "",
        .device_kind = uvas_devtier_present(&uvas_g.devtier)
                           ? uvas_vulkan_kind(&uvas_g.devtier.dev) : "none",
        .device_capacity = uvas_devtier_capacity_blocks(&uvas_g.devtier) * uvas_g.block_size,
        .device_note = uvas_g.device_note,
        .device_numa_node = uvas_devtier_present(&uvas_g.devtier)
                                ? uvas_g.devtier.dev.numa_node : -1,
        .device_pci = uvas_g.devtier.dev.pci,
        .device_cpuset = uvas_g.devtier.dev.cpuset,
        .host_page = uvas_g.cfg.huge_pages ? UVAS_HUGE_PAGE : UVAS_PAGE,
    };
    return UVAS_OK;
}
