/*
 * The PE layer's life cycle and synchronisation: bootstrap, the agreement
 * on one range, connections, barrier, quiet, queries (transport/pe/pe.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "gpu/kernel.h"
#include "transport/pe/am.h"
#include "transport/pe/boot.h"
#include "transport/pe/devpeer.h"
#include "transport/pe/job.h"
#include "transport/pe/kernel_proxy.h"
#include "transport/pe/lease.h"
#include "transport/pe/liveness.h"
#include "transport/pe/segment.h"
#include "transport/pe/ucx.h"
#include "transport/pe/window.h"
#include "uvas/config.h"
#include "uvas/gate.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/span.h"
#include "uvas/status.h"

static int up_pid; /* the process the job is up in (uvas_pe_initialized) */

/* What each PE publishes before the first fence. */
struct init_rec {
    int32_t status;
    int32_t pid;
    uint64_t base, size, block;
    char host[64];
    char sock[108];
    char msg[UVAS_MSG_MAX];
    struct uvas_dev_desc dev;
    uint32_t nseg;
    uint64_t seg_key[UVAS_PEER_SEGS], seg_lo[UVAS_PEER_SEGS], seg_size[UVAS_PEER_SEGS];
};

#define SYNC_WORDS 64 /* barrier rounds: log2 of any job size */

static int env_size(const char *name, size_t dflt, size_t *out)
{
    const char *v = getenv(name);
    if (!v || !*v) {
        *out = dflt;
        return UVAS_OK;
    }
    if (uvas_parse_size(v, out))
        return uvas_fail(UVAS_ERR_ENV, "%s='%s' is not a size (e.g. 4096, 64K, 2M)", name, v);
    return UVAS_OK;
}

/* SHMEM_SYMMETRIC_SIZE bounds the range (the host heap and, for blocks that
 * move, their device copies' addresses) unless UVAS_SIZE says otherwise. */
static int options_from_env(struct uvas_options *o)
{
    *o = (struct uvas_options){0};
    const char *s = getenv("SHMEM_SYMMETRIC_SIZE");
    if (s && *s && !getenv("UVAS_SIZE")) {
        size_t host, dev;
        int rc = env_size("SHMEM_SYMMETRIC_SIZE", 0, &host);
        if (rc == UVAS_OK)
            rc = env_size("SHMEM_DEVICE_SYMMETRIC_SIZE", 0, &dev);
        if (rc)
            return rc;
        if (host == 0)
            return uvas_fail(UVAS_ERR_ENV, "SHMEM_SYMMETRIC_SIZE='%s' is 0 bytes: the symmetric "
                             "heap needs room (e.g. 1G), or leave it unset", s);
        /* Checked here, in the names the program set: the sum wrapped, and
         * the range's own check named options.size, which nobody set. */
        if (host > UVAS_MAX_SIZE || dev > UVAS_MAX_SIZE - host)
            return uvas_fail(UVAS_ERR_ENV, "SHMEM_SYMMETRIC_SIZE='%s'%s%s%s is more than the "
                             "range can be (%zu TiB with the device heap's): ask for less", s,
                             dev ? " with SHMEM_DEVICE_SYMMETRIC_SIZE='" : "",
                             dev ? getenv("SHMEM_DEVICE_SYMMETRIC_SIZE") : "", dev ? "'" : "",
                             UVAS_MAX_SIZE >> 40);
        size_t sz = host + dev;
        sz = (sz + UVAS_SIZE_GRAIN - 1) & ~(UVAS_SIZE_GRAIN - 1);
        o->size = sz < UVAS_MIN_SIZE ? UVAS_MIN_SIZE : sz;
    }
    return UVAS_OK;
}

static int transport_env(void)
{
    const char *t = getenv("UVAS_TRANSPORT");
    if (!t || !*t || !strcasecmp(t, "auto"))
        uvas_job.windows = true;
    else if (!strcasecmp(t, "ucx"))
        uvas_job.windows = false;
    else
        return uvas_fail(UVAS_ERR_ENV, "UVAS_TRANSPORT='%s': use auto (shared windows between "
                         "PEs of a node, UCX between nodes) or ucx (UCX only)", t);
    int rc = env_size("UVAS_DEVMAP_MAX", 4096, &uvas_job.devmap_max);
    if (rc == UVAS_OK)
        rc = env_size("UVAS_UCX_RMA_MIN", SIZE_MAX, &uvas_job.ucx_rma_min);
    /* A peer's globals: gets, and puts from this size up, by cross-memory
     * attach where the kernel allows it; measured against the active
     * message on the H100 machine (docs/transport.md, globals-bench). */
    if (rc == UVAS_OK)
        rc = env_size("UVAS_SEG_CMA_PUT_MIN", 64, &uvas_job.seg_cma_put_min);
    /* A kernel's stores into a peer's host memory go straight there once
     * the run has shown traffic to the block: each lease of host memory is
     * an import of its pages, which costs about what a few dozen requests
     * through the host do on a GPU (docs/kernels.md). */
    const char *lh = getenv("UVAS_LEASE_HOST_AFTER");
    if (rc == UVAS_OK && lh && !strcasecmp(lh, "off"))
        uvas_job.lease_host_after = SIZE_MAX;
    else if (rc == UVAS_OK && (rc = env_size("UVAS_LEASE_HOST_AFTER", 16,
                                             &uvas_job.lease_host_after)))
        rc = uvas_fail(UVAS_ERR_ENV, "UVAS_LEASE_HOST_AFTER='%s': a number of requests (0: "
                       "kernels get peers' host-resident blocks up front), or off", lh);
    const char *c = getenv("UVAS_SEG_CMA");
    if (rc == UVAS_OK && c && *c && strcmp(c, "0") && strcmp(c, "1"))
        rc = uvas_fail(UVAS_ERR_ENV, "UVAS_SEG_CMA='%s': use 1 (peers' globals by cross-memory "
                       "attach where allowed, the default) or 0 (by active message)", c);
    uvas_job.seg_cma = !c || !*c || !strcmp(c, "1");
    return rc;
}

static int agree(const struct init_rec *mine)
{
    char first_err[UVAS_MSG_MAX + 64] = ""; /* "PE n could not start: " + its message */
    int bad = -1;
    for (int r = 0; r < uvas_job.n; r++) {
        struct init_rec rec;
        int rc = r == uvas_job.me ? (rec = *mine, UVAS_OK)
                                  : uvas_boot_get(r, "uvas.init", &rec, sizeof rec);
        if (rc)
            return rc;
        struct uvas_peer *p = &uvas_job.peers[r];
        p->rank = r;
        p->pid = rec.pid;
        pthread_mutex_init(&p->slab_mu, NULL);
        snprintf(p->sock_path, sizeof p->sock_path, "%s", rec.sock);
        p->dev = rec.dev;
        struct uvas_peer_segs *g = &uvas_job.peer_segs[r];
        g->n = rec.nseg <= UVAS_PEER_SEGS ? (int)rec.nseg : 0;
        for (int i = 0; i < g->n; i++) {
            g->key[i] = rec.seg_key[i];
            g->lo[i] = rec.seg_lo[i];
            g->size[i] = rec.seg_size[i];
        }
        rec.msg[sizeof rec.msg - 1] = 0;
        if (bad < 0 && rec.status) {
            bad = r;
            snprintf(first_err, sizeof first_err, "PE %d could not start: %s", r, rec.msg);
        } else if (bad < 0 && (rec.base != mine->base || rec.size != mine->size ||
                               rec.block != mine->block)) {
            bad = r;
            snprintf(first_err, sizeof first_err, "PE %d's range (base %#lx, %lu bytes, "
                     "blocks of %lu) differs from PE %d's (base %#lx, %lu, %lu): give every "
                     "PE the same UVAS_BASE, UVAS_SIZE and UVAS_BLOCK_SIZE", r,
                     (unsigned long)rec.base, (unsigned long)rec.size,
                     (unsigned long)rec.block, uvas_job.me, (unsigned long)mine->base,
                     (unsigned long)mine->size, (unsigned long)mine->block);
        }
        p->same_node = r != uvas_job.me && !strcmp(rec.host, mine->host);
        p->local = uvas_job.windows && p->same_node;
        p->dev_same = rec.dev.present && mine->dev.present &&
                      !memcmp(rec.dev.uuid, mine->dev.uuid, sizeof rec.dev.uuid);
    }
    if (bad >= 0)
        return uvas_fail(UVAS_ERR_ADDR_IN_USE, "%s", first_err);
    return UVAS_OK;
}

static void teardown(void)
{
    uvas_lease_fini(); /* no run can use them now: gpu/ was told */
    if (uvas_job.peers) {
        for (int r = 0; r < uvas_job.n; r++) {
            uvas_devpeer_release_peer(&uvas_job.peers[r]);
            uvas_window_close(&uvas_job.peers[r]);
        }
    }
    uvas_ucx_stop();
    uvas_window_stop();
    uvas_devpeer_fini();
    uvas_gate_stuck_hook = NULL;
    uvas_gate_pins_teardown();
    uvas_job.own_pins = NULL;
    uvas_job.own_slots = NULL;
    atomic_store(&uvas_job.peers_known, false);
    free(uvas_job.peers);
    uvas_job.peers = NULL;
    free(uvas_job.peer_segs);
    uvas_job.peer_segs = NULL;
    uvas_job.sync = NULL;
}

int uvas_pe_init(int requested, int *provided)
{
    (void)requested;
    uvas_clear_error();
    if (provided)
        *provided = UVAS_PE_THREAD_MULTIPLE;
    if (uvas_job.up)
        return UVAS_OK;
    int rc = transport_env();
    if (rc == UVAS_OK)
        rc = uvas_boot_start();
    if (rc)
        return rc;
    struct init_rec mine = {.pid = getpid()};
    gethostname(mine.host, sizeof mine.host - 1);
    struct uvas_options o;
    rc = options_from_env(&o);
    if (rc == UVAS_OK)
        rc = uvas_init(&o);
    if (rc == UVAS_OK && uvas_job.n > 1 && uvas_g.base != (char *)UVAS_DEFAULT_BASE &&
        !getenv("UVAS_BASE"))
        rc = uvas_fail(UVAS_ERR_ADDR_IN_USE, "the range is not at a fixed base (this build "
                       "lets the kernel choose it): set UVAS_BASE for a job of %d PEs",
                       uvas_job.n);
    /* Pin tables: one per rank (ours for our own threads) and one that
     * remote peers share (uvas/gate.h). */
    if (rc == UVAS_OK && (rc = uvas_gate_pins_setup((unsigned)uvas_job.n + 1)) == UVAS_OK)
        rc = uvas_gate_pins_get((unsigned)uvas_job.me, &uvas_job.own_pins, NULL);
    if (rc == UVAS_OK)
        uvas_job.own_slots = uvas_gate_slots_of(uvas_job.own_pins);
    if (rc == UVAS_OK && uvas_job.pmix)
        rc = uvas_window_serve();
    if (rc == UVAS_OK && uvas_job.pmix && (rc = uvas_ucx_start()) == UVAS_OK)
        rc = uvas_am_init(); /* its handlers, on the worker ucx_start made */
    if (rc == UVAS_OK) {
        mine.base = (uintptr_t)uvas_g.base;
        mine.size = uvas_g.size;
        mine.block = uvas_g.block_size;
        snprintf(mine.sock, sizeof mine.sock, "%s", uvas_job.sock_path);
        uvas_devpeer_describe(&mine.dev);
        int nseg = uvas_seg_count();
        mine.nseg = (uint32_t)(nseg < UVAS_PEER_SEGS ? nseg : UVAS_PEER_SEGS);
        for (uint32_t i = 0; i < mine.nseg; i++)
            uvas_seg_describe((int)i, &mine.seg_key[i], &mine.seg_lo[i], &mine.seg_size[i]);
    } else {
        mine.status = rc;
        snprintf(mine.msg, sizeof mine.msg, "%s", uvas_last_error());
    }
    /* Every PE reaches the fence, failed or not, so none waits for ever. */
    int rc2 = uvas_boot_put("uvas.init", &mine, sizeof mine);
    if (rc2 == UVAS_OK)
        rc2 = uvas_boot_fence(true);
    if (rc2) {
        teardown();
        return rc2;
    }
    /* Each peer on lines of its own (job.h: its first line is the hot one). */
    uvas_job.peers = aligned_alloc(_Alignof(struct uvas_peer),
                                   (size_t)uvas_job.n * sizeof *uvas_job.peers);
    uvas_job.peer_segs = calloc((size_t)uvas_job.n, sizeof *uvas_job.peer_segs);
    if (!uvas_job.peers || !uvas_job.peer_segs) {
        free(uvas_job.peers), free(uvas_job.peer_segs);
        uvas_job.peers = NULL, uvas_job.peer_segs = NULL;
        return uvas_fail(UVAS_ERR_NOMEM, "out of memory for %d peers", uvas_job.n);
    }
    memset(uvas_job.peers, 0, (size_t)uvas_job.n * sizeof *uvas_job.peers);
    int own = rc;
    rc = agree(&mine);
    atomic_store(&uvas_job.peers_known, rc == UVAS_OK && own == UVAS_OK);
    if (rc || own) {
        char keep[UVAS_MSG_MAX];
        snprintf(keep, sizeof keep, "%s", own ? mine.msg : uvas_last_error());
        teardown();
        if (atomic_load(&uvas_g.ready))
            uvas_finalize();
        uvas_boot_stop();
        return uvas_fail(own ? own : rc, "%s", keep);
    }
    if (uvas_job.pmix && (rc = uvas_ucx_connect()))
        goto fail;
    for (int r = 0; r < uvas_job.n; r++)
        if (uvas_job.peers[r].local && (rc = uvas_window_open(&uvas_job.peers[r])))
            goto fail;
    if ((rc = uvas_devpeer_init()))
        goto fail;
    uvas_gate_stuck_hook = uvas_pe_gate_stuck;
    /* The first allocation of every PE: the same address everywhere. */
    uvas_job.sync = uvas_malloc_hint(SYNC_WORDS * sizeof(uint64_t), UVAS_HINT_HOST);
    if (!uvas_job.sync) {
        rc = uvas_fail(UVAS_ERR_NOMEM, "cannot allocate the barrier words: %s",
                       uvas_last_error());
        goto fail;
    }
    memset(uvas_job.sync, 0, SYNC_WORDS * sizeof(uint64_t)); /* placed before peers use it */
    uvas_job.barrier_epoch = 0;
    up_pid = uvas_os_pid();
    uvas_job.up = true;
    if ((rc = uvas_lease_init()))
        goto fail;
    struct uvas_gpu_pe lent = {.me = uvas_job.me,
                               .n = uvas_job.n,
                               .serve = uvas_pe_serve_kernel,
                               .run_begin = uvas_lease_run_begin,
                               .lease = uvas_lease_blocks,
                               .run_end = uvas_lease_run_end};
    uvas_gpu_set_pe(&lent);
    if ((rc = uvas_boot_fence(true)))
        goto fail;
    return UVAS_OK;
fail:;
    char keep[UVAS_MSG_MAX];
    snprintf(keep, sizeof keep, "%s", uvas_last_error());
    uvas_job.up = false;
    uvas_gpu_set_pe(NULL);
    teardown();
    uvas_finalize();
    uvas_boot_stop();
    return uvas_fail(rc, "%s", keep);
}

bool uvas_pe_initialized(void)
{
    /* Not in a child forked from the PE: it inherited the job's state, but
     * is no PE (its exit must not finalize in the PE's name). */
    return uvas_job.up && up_pid == uvas_os_pid();
}

int uvas_pe_finalize(void)
{
    uvas_clear_error();
    if (!uvas_job.up)
        return uvas_fail(UVAS_ERR_NOT_INIT, "the PE layer is not initialised");
    int rc = uvas_pe_barrier_all();
    /* Leaving the barrier says every PE arrived, not that every PE has
     * left it: one may still wait for our answer to its last atomic, which
     * teardown would cancel with our endpoints. Past a fence, every PE is
     * out of the barrier. */
    if (rc == UVAS_OK)
        rc = uvas_boot_fence(false);
    uvas_job.up = false;
    uvas_gpu_set_pe(NULL);
    teardown();
    uvas_finalize();
    uvas_boot_stop();
    return rc;
}

int uvas_pe_me(void)
{
    return uvas_job.me;
}

int uvas_pe_count(void)
{
    return uvas_job.n;
}

int uvas_pe_sync_all(void)
{
    if (!uvas_job.up)
        return uvas_fail(UVAS_ERR_NOT_INIT, "barrier: call shmem_init first");
    if (uvas_job.n == 1)
        return UVAS_OK;
    /* Dissemination: in round k, signal PE me+2^k, wait for PE me-2^k. */
    pthread_mutex_lock(&uvas_job.barrier_mu);
    uint64_t epoch = ++uvas_job.barrier_epoch;
    int rc = UVAS_OK;
    for (int k = 0, d = 1; d < uvas_job.n && rc == UVAS_OK; k++, d <<= 1) {
        int to = (uvas_job.me + d) % uvas_job.n;
        rc = uvas_pe_amo(UVAS_AMO_ADD, &uvas_job.sync[k], 8, 1, 0, NULL, to);
        for (unsigned i = 0; rc == UVAS_OK &&
                             __atomic_load_n(&uvas_job.sync[k], __ATOMIC_ACQUIRE) < epoch;
             i++)
            uvas_pe_wait_turn(i);
    }
    pthread_mutex_unlock(&uvas_job.barrier_mu);
    return rc;
}

void uvas_pe_wait_turn(unsigned turn)
{
    if (uvas_job.worker)
        uvas_ucx_poll(turn);
    else
        sched_yield();
    if ((turn & 0xffff) == 0xffff)
        uvas_pe_check_alive();
}

int uvas_pe_barrier_all(void)
{
    int rc = uvas_pe_quiet();
    return rc ? rc : uvas_pe_sync_all();
}

void *uvas_pe_ptr(const void *dest, int pe)
{
    if (!uvas_job.up || pe < 0 || pe >= uvas_job.n || !uvas_in_range(dest))
        return NULL;
    if (pe == uvas_job.me)
        return (void *)dest;
    struct uvas_peer *p = &uvas_job.peers[pe];
    return p->win ? p->win + ((const char *)dest - uvas_g.base) : NULL;
}

int uvas_pe_residence(const void *addr, int pe)
{
    int rc = uvas_pe_check("shmemx_residence", addr, 1, pe);
    if (rc)
        return rc;
    if (!uvas_in_range(addr))
        return UVAS_RES_HOST; /* a global: the program's data never moves */
    if (pe == uvas_job.me) {
        struct uvas_ptr_info info;
        rc = uvas_query(addr, &info);
        return rc ? rc : info.residence;
    }
    struct uvas_peer *p = &uvas_job.peers[pe];
    if (p->gates)
        return uvas_gate_res(atomic_load_explicit(&p->gates[uvas_block_index(addr)],
                                                  memory_order_acquire));
    int res;
    rc = uvas_am_residence(pe, addr, &res);
    return rc ? rc : res;
}

int uvas_pe_stats_get(struct uvas_pe_stats *st)
{
    if (!st)
        return uvas_fail(UVAS_ERR_INVAL, "uvas_pe_stats_get: NULL");
    memset(st, 0, sizeof *st);
    uvas_path_sum(st->ops, st->bytes);
    st->am_served = atomic_load(&uvas_job.am_served);
    st->gate_waits = uvas_gate_waits();
    return UVAS_OK;
}

const char *uvas_pe_path_name(int path)
{
    static const char *const names[UVAS_PATH_COUNT] = {
        "local", "cpu-cpu", "cpu-gpu", "gpu-cpu", "gpu-gpu", "device-map", "active-message",
        "ucx-rma", "cma"};
    return path >= 0 && path < UVAS_PATH_COUNT ? names[path] : "?";
}
