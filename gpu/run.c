/* Launches (kernel.h): hold what the kernels may touch, record and
 * submit them as one run, serve their faults and requests while it runs,
 * then run again with more held or fail. */
#include "gpu/kernel.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "gpu/context.h"
#include "uvas/atomics.h"
#include "uvas/inject.h"
#include "uvas/internal.h"
#include "uvas/os.h"
#include "uvas/span.h"
#include "uvas/status.h"

/* Serving the requests of a running kernel (xlat.run held). */
struct serve {
    struct uvas_hold_set *s;
    size_t nserved;
    size_t *served;        /* blocks marked in uvas_gpu.served, to clear after */
    size_t pending;        /* requests found busy this round */
    uint64_t busy_since;   /* when a request was first found busy, 0: none */
    bool gave_up;
    size_t not_owned;      /* a block asked for that is in no allocation, + 1 */
    int rc;
};

static bool served(size_t bi)
{
    return uvas_gpu.served[bi / 8] & (1u << (bi % 8));
}

static void give_up(struct serve *v)
{
    v->gave_up = true;
    uvas_gpu.xlat.hdr->flags |= UVAS_XLAT_GIVE_UP;
}

/* A block the kernel waits on: held for it (the translation goes out and
 * the kernel goes on), or, if it is in no allocation or cannot be held,
 * every wait of the run ends (the launch then decides). A block another
 * agent has taken is tried again on later polls, for a while. */
static void serve_one(size_t bi, void *arg)
{
    struct serve *v = arg;
    if (v->gave_up || served(bi))
        return;
    bool busy = false;
    int rc = atomic_load_explicit(&uvas_g.bt[bi].owner, memory_order_acquire) == 0
                 ? UVAS_ERR_NOT_OWNED
                 : uvas_hold_block(v->s, &uvas_gpu.xlat, bi, uvas_gpu.d->cqueue_shared, &busy);
    if (busy) {
        v->pending++;
        return;
    }
    uvas_gpu.served[bi / 8] |= (uint8_t)(1u << (bi % 8));
    v->served[v->nserved++] = bi;
    if (rc) {
        if (rc == UVAS_ERR_NOT_OWNED && !v->not_owned)
            v->not_owned = bi + 1;
        else if (rc != UVAS_ERR_NOT_OWNED && !v->rc)
            v->rc = rc;
        give_up(v);
        return;
    }
    atomic_fetch_add_explicit(&uvas_g.ctr.kernel_fault_waits, 1, RLX);
}

/* The PE layer's loan (kernel.h): set at shmem_init and cleared at its
 * finalize, read by runs under xlat.run, which the setter takes too. */
static struct uvas_gpu_pe pe_lent = {.me = 0, .n = 1};
static _Atomic(uvas_ring_serve_fn) proxy;

void uvas_gpu_set_pe(const struct uvas_gpu_pe *pe)
{
    /* Not while a run uses the loan (uvas_gpu.mu, then xlat.run: as everywhere). */
    pthread_mutex_lock(&uvas_gpu.mu);
    bool up = uvas_gpu.up;
    if (up)
        pthread_mutex_lock(&uvas_gpu.xlat.run);
    pe_lent = pe ? *pe : (struct uvas_gpu_pe){.me = 0, .n = 1};
    atomic_store_explicit(&proxy, pe_lent.serve, memory_order_release);
    if (up)
        pthread_mutex_unlock(&uvas_gpu.xlat.run);
    pthread_mutex_unlock(&uvas_gpu.mu);
}

/* Requests are scanned when the fault count moves, and at least this often. */
#define RESCAN_NS 200000ull

/* Wait for the run, serving what it asks for meanwhile (faults, and
 * requests in the ring). The fence is polled, not waited on with a
 * timeout (NVIDIA's driver sleeps tens of milliseconds in a wait for
 * microseconds): spinning for the first 100 us, where most kernels end,
 * then sleeping between polls for 1/256 of the time the run has taken
 * (20 us to 1 ms), so its end is seen at most about 0.4% late (a fixed
 * 1 ms from 10 ms on made a 24 ms run of a queue's backlog end 0.5-0.9 ms
 * late, docs/queues.md); a request served starts that over. Status. */
static int wait_serving(const char *who, struct serve *v)
{
    struct uvas_vulkan *d = uvas_gpu.d;
    uint32_t seen = 0;
    uint64_t t0 = uvas_os_now_ns(), scanned = t0;
    uvas_ring_serve_fn serve = atomic_load_explicit(&proxy, memory_order_acquire);
    for (;;) {
        VkResult r = vkGetFenceStatus(d->dev, uvas_gpu.fence);
        if (r == VK_SUCCESS)
            return UVAS_OK;
        /* The kernel's requests: while it posts them, poll as at the start. */
        unsigned served = uvas_ring_drain(&uvas_gpu.ring, serve);
        if (served) {
            atomic_fetch_add_explicit(&uvas_g.ctr.kernel_requests, served, RLX);
            t0 = uvas_os_now_ns();
        }
        uint64_t ran = uvas_os_now_ns() - t0;
        if (r == VK_NOT_READY && ran > 100000) {
            uint64_t ns = ran / 256;
            struct timespec ts = {0, (long)(ns < 20000 ? 20000 : ns > 1000000 ? 1000000 : ns)};
            nanosleep(&ts, NULL);
        }
        if (r != VK_NOT_READY) {
            give_up(v);
            return uvas_fail(UVAS_ERR_SYS, "kernel %s: waiting for it failed (VkResult "
                             "%d%s)", who, r,
                             r == VK_ERROR_DEVICE_LOST ? ": the device was lost" : "");
        }
        /* A faulting access counts itself before it posts its request,
         * so a scan right after the count can miss the request; with no
         * later fault to change the count it would never be seen. Scan
         * again after a while even when the count stands still. */
        uint32_t nf = uvas_gpu.xlat.hdr->nfaults;
        uint64_t now = uvas_os_now_ns();
        if (v->gave_up || (nf == seen && !v->pending && now - scanned < RESCAN_NS))
            continue;
        seen = nf;
        scanned = now;
        v->pending = 0;
        uvas_xlat_requests(&uvas_gpu.xlat, serve_one, v);
        if (!v->pending) {
            v->busy_since = 0;
        } else if (!v->busy_since) {
            v->busy_since = uvas_os_now_ns();
        } else if (uvas_os_now_ns() - v->busy_since > 20000000ull) {
            /* A transition holds it, maybe waiting for a block this
             * kernel holds: waiting longer could wait for ever. */
            give_up(v);
        }
    }
}

/* After a run: the requests it posted last served (nobody waits for a
 * put), then what the host refused or the kernel could not wait for fails
 * the launch. Status. */
static int ring_end(const char *who)
{
    atomic_fetch_add_explicit(&uvas_g.ctr.kernel_requests,
                              uvas_ring_drain(&uvas_gpu.ring, atomic_load_explicit(&proxy,
                                                                            memory_order_acquire)),
                              RLX);
    volatile struct uvas_ring_header *rh = uvas_gpu.ring.hdr;
    if (uvas_gpu.ring.rc)
        return uvas_fail(uvas_gpu.ring.rc, "kernel %s: %s (the first of %u requests the host "
                         "refused, which did nothing)", who, uvas_gpu.ring.why, rh->refused);
    if (rh->cannot_wait)
        return uvas_fail(UVAS_ERR_INVAL, "kernel %s made %u OpenSHMEM calls that wait for "
                         "an answer (a get or g from memory it does not hold, a fetching "
                         "atomic, wait_until), which '%s' cannot run: it ends shader "
                         "loops early, so a kernel cannot wait there; those calls did "
                         "nothing and returned 0. Run such kernels on a GPU, or make those "
                         "calls from the host (puts and non-fetching atomics work here)",
                         who, rh->cannot_wait, uvas_gpu.d->name);
    if (rh->timed_out)
        return uvas_fail(UVAS_ERR_SYS, "kernel %s: %u of its OpenSHMEM calls found the "
                         "request ring (%u slots) full for longer than '%s' lets a shader "
                         "loop run (it ends loops after 65535 iterations in all, a work-group's "
                         "loops together), and were dropped: post fewer requests per launch "
                         "and work-group on such a device", who, rh->timed_out,
                         UVAS_RING_SLOTS, uvas_gpu.d->name);
    /* Every ticket taken was posted and served, or a request was lost:
     * a device that bounds loops ended the kernel's between its ticket and
     * its post (lavapipe ends a work-group's loops after a budget of
     * iterations, and the rest of the kernel's loop never ran), or a
     * kernel wrote the ring's head itself. */
    uint32_t head = atomic_load_explicit(&rh->head, memory_order_acquire);
    if (head != uvas_gpu.ring.next)
        return uvas_fail(UVAS_ERR_INVAL, "kernel %s: the request ring's head says %u requests "
                         "were made, the host found %u posted: the calls from the first lost "
                         "one on did nothing. Either '%s' ended the kernel's loops early (a "
                         "device where kernels cannot wait bounds them: make fewer calls per "
                         "invocation and launch) or the kernel wrote the ring's header "
                         "(shmem.glsl's)", who, head, uvas_gpu.ring.next, uvas_gpu.d->name);
    return UVAS_OK;
}

/* Launches run together: consecutive ones with the same flags, one
 * submission and one wait for all (a launch alone pays both). */
struct group {
    const struct uvas_launch *l;
    size_t n;
    unsigned flags;
    char who[160]; /* 'entry', or 'entry' and how many ran with it, for messages */
};

static void group_name(struct group *g)
{
    int w = snprintf(g->who, sizeof g->who, "'%s'", g->l[0].kernel->entry);
    if (g->n > 1 && w > 0 && (size_t)w < sizeof g->who)
        snprintf(g->who + w, sizeof g->who - (size_t)w, " (one of %zu kernels run "
                 "together, the first named)", g->n);
}

/* The compute work of launches [a, b) of a group in cb: each launch's
 * dispatch, and before each but the group's first, the writes of those
 * before it (in this command buffer or one submitted earlier) made
 * visible to it (the order n calls of uvas_kernel_launch would give). */
static void record_dispatches(VkCommandBuffer cb, const struct group *g, size_t a, size_t b)
{
    VkPipeline bound = VK_NULL_HANDLE;
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT,
                          .dstAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT};
    for (size_t i = a; i < b; i++) {
        const struct uvas_launch *l = &g->l[i];
        if (i)
            vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0,
                                 NULL);
        if (l->kernel->pipe != bound) {
            vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, l->kernel->pipe);
            bound = l->kernel->pipe;
        }
        if (l->args_size)
            vkCmdPushConstants(cb, uvas_gpu.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                               (uint32_t)l->args_size, l->args);
        vkCmdDispatch(cb, l->groups[0], l->groups[1], l->groups[2]);
    }
}

/* Where the chunk of a run's launches that starts at a (the k-th) ends. */
static size_t chunk_end(size_t k, size_t a, size_t n)
{
    if (k == UVAS_GPU_RUN_CBS - 1 || n <= 2 * UVAS_GPU_RUN_CHUNK0)
        return n;
    size_t e = a + ((size_t)UVAS_GPU_RUN_CHUNK0 << k);
    return e + UVAS_GPU_RUN_CHUNK0 > n ? n : e; /* no short chunk at the end */
}

/* Record the chunk [a, b) of a group's launches into cb: the run's start
 * in its first chunk, its end (the device's clock, the counters, the
 * kernels' writes made visible) in its last. */
static VkResult record_chunk(VkCommandBuffer cb, const struct group *g,
                             const struct uvas_hold_set *s, size_t a, size_t b)
{
    vkResetCommandBuffer(cb, 0);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    vkBeginCommandBuffer(cb, &bi);
    if (a == 0) {
        if (uvas_gpu.stamps) {
            vkCmdResetQueryPool(cb, uvas_gpu.stamps, 0, 2);
            vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, uvas_gpu.stamps, 0);
        }
        uvas_xlat_record_begin(&uvas_gpu.xlat, cb);
    }
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, uvas_gpu.layout, 0, 1,
                            &uvas_gpu.set, 0, NULL);
    record_dispatches(cb, g, a, b);
    if (b == g->n) {
        if (uvas_gpu.stamps)
            vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, uvas_gpu.stamps, 1);
        size_t lo = SIZE_MAX, hi = 0;
        uvas_hold_span(s, &lo, &hi);
        for (struct uvas_link *l = uvas_gpu.counted.next; l != &uvas_gpu.counted; l = l->next)
            uvas_hold_span(&uvas_list_entry(l, struct uvas_gpu_hold, counted)->set, &lo, &hi);
        uvas_xlat_record_counts(&uvas_gpu.xlat, cb, lo, hi);
        /* The kernels' writes, for the CPU and for copies that follow (a
         * migration of what they wrote, on the transfer queue). */
        VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                              .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                              .dstAccessMask = VK_ACCESS_HOST_READ_BIT |
                                               VK_ACCESS_MEMORY_READ_BIT |
                                               VK_ACCESS_MEMORY_WRITE_BIT};
        vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0,
                             1, &mb, 0, NULL, 0, NULL);
    }
    return vkEndCommandBuffer(cb);
}

static VkResult submit_chunk(VkCommandBuffer cb, VkFence fence)
{
    struct uvas_vulkan *d = uvas_gpu.d;
    if (uvas_inject_fail(UVAS_INJ_DMA))
        return VK_ERROR_OUT_OF_DEVICE_MEMORY;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &cb};
    if (d->cqueue_shared)
        pthread_mutex_lock(&d->qmu);
    VkResult r = vkQueueSubmit(d->cqueue, 1, &si, fence);
    if (d->cqueue_shared)
        pthread_mutex_unlock(&d->qmu);
    return r;
}

/* A run in flight keeps zero fills off the GPU's cores (uvas_vulkan.runs):
 * announced first, then the fills already there are waited out (tens of
 * microseconds each), so no kernel of this run waits on cores a fill
 * needs, nor a fill on this run. */
static void run_begin(struct uvas_vulkan *d)
{
    atomic_fetch_add_explicit(&d->runs, 1, SEQ);
    while (atomic_load_explicit(&d->sm_fills, SEQ))
        sched_yield();
}

static void run_end(struct uvas_vulkan *d)
{
    atomic_fetch_sub_explicit(&d->runs, 1, REL);
}

/* Record and submit a group's launches, chunk after chunk; the fence
 * signals after the last. On failure, once what went out has run (the
 * holds must outlast it). Status. */
static int submit_run(const struct group *g, const struct uvas_hold_set *s)
{
    struct uvas_vulkan *d = uvas_gpu.d;
    vkResetFences(d->dev, 1, &uvas_gpu.fence);
    size_t a = 0;
    for (size_t k = 0; a < g->n; k++) {
        size_t b = chunk_end(k, a, g->n);
        const char *what = "recording";
        VkResult r = record_chunk(uvas_gpu.cb[k], g, s, a, b);
        if (!r) {
            what = "vkQueueSubmit";
            r = submit_chunk(uvas_gpu.cb[k], b == g->n ? uvas_gpu.fence : VK_NULL_HANDLE);
        }
        if (r) {
            if (k) { /* chunks [0, k) are on the device */
                if (d->cqueue_shared)
                    pthread_mutex_lock(&d->qmu);
                vkQueueWaitIdle(d->cqueue);
                if (d->cqueue_shared)
                    pthread_mutex_unlock(&d->qmu);
            }
            return uvas_fail(UVAS_ERR_SYS, "kernel %s: %s failed (VkResult %d)%s", g->who,
                             what, r,
                             k ? "; the launches submitted before it ran" : "");
        }
        a = b;
    }
    return UVAS_OK;
}

/* One run of a group with the holds in place (xlat.run held: one run at
 * a time, the header's faults and the command buffers are its): record,
 * submit, wait while serving the kernels' faults. *nfaults, and up to
 * UVAS_XLAT_FAULTS addresses in fault[] of accesses that were not served
 * (0 of them when every fault was). */
static int run_once(const struct group *g, struct uvas_hold_set *s, uint32_t *nfaults,
                    uint64_t *fault, const char **why)
{
    struct uvas_vulkan *d = uvas_gpu.d;
    volatile struct uvas_xlat_header *h = uvas_gpu.xlat.hdr;
    bool wait = !(g->flags & UVAS_KERNEL_NO_WAIT) && uvas_gpu_fault_waits();
    uvas_xlat_run_begin(&uvas_gpu.xlat, wait);
    h->my_pe = (uint32_t)pe_lent.me;
    h->n_pes = (uint32_t)pe_lent.n;
    uvas_ring_reset(&uvas_gpu.ring);
    h->proxy = uvas_gpu.ring.addr;
    h->peers = pe_lent.run_begin ? pe_lent.run_begin() : 0;
    if (h->peers && pe_lent.lease) {
        pe_lent.lease(s->want, s->nheld);
        for (struct uvas_link *l = uvas_gpu.counted.next; l != &uvas_gpu.counted; l = l->next) {
            const struct uvas_hold_set *c = &uvas_list_entry(l, struct uvas_gpu_hold, counted)->set;
            pe_lent.lease(c->want, c->nheld);
        }
    }
    run_begin(d);
    int src = submit_run(g, s);
    if (src) {
        run_end(d);
        if (pe_lent.run_end)
            pe_lent.run_end();
        return src;
    }
    atomic_fetch_add_explicit(&uvas_g.ctr.kernel_launches, g->n, RLX);
    atomic_fetch_add_explicit(&uvas_g.ctr.kernel_submissions, 1, RLX);
    struct serve v = {.s = s, .served = uvas_gpu.served_list, .gave_up = !wait};
    int rc = wait_serving(g->who, &v);
    run_end(d);
    for (size_t i = 0; i < v.nserved; i++)
        uvas_gpu.served[v.served[i] / 8] = 0;
    if (!rc && !v.rc)
        rc = ring_end(g->who);
    /* The kernels have finished (or the device is lost): what was lent to
     * them goes back, whatever the outcome. */
    if (pe_lent.run_end)
        pe_lent.run_end();
    if (rc)
        return rc;
    if (v.rc)
        return v.rc;
    uint64_t t[2];
    if (uvas_gpu.stamps &&
        vkGetQueryPoolResults(d->dev, uvas_gpu.stamps, 0, 2, sizeof t, t, sizeof t[0],
                              VK_QUERY_RESULT_64_BIT) == VK_SUCCESS &&
        t[1] > t[0])
        atomic_fetch_add_explicit(&uvas_g.ctr.kernel_gpu_ns,
                                  (uint64_t)((double)(t[1] - t[0]) * uvas_gpu.ns_per_tick), RLX);
    atomic_fetch_add_explicit(&uvas_g.ctr.kernel_faults, h->nfaults, RLX);
    /* The sample: one invocation per workgroup counted, every period-th
     * access (a workgroup size given by specialization constants is not
     * known here: 1). A group's counts are scaled by its first kernel's. */
    const struct uvas_spirv_info *ki = &g->l[0].kernel->info;
    uint64_t wg = (uint64_t)ki->local_size[0] * ki->local_size[1] * ki->local_size[2];
    wg = (wg ? wg : 1) * UVAS_XLAT_COUNT_PERIOD;
    uvas_hold_count(s, &uvas_gpu.xlat, wg);
    /* Blocks held for the user's own work: a kernel launched over them
     * without naming them (UVAS_KERNEL_NO_SCAN) counted there. */
    for (struct uvas_link *l = uvas_gpu.counted.next; l != &uvas_gpu.counted; l = l->next)
        uvas_hold_count(&uvas_list_entry(l, struct uvas_gpu_hold, counted)->set, &uvas_gpu.xlat,
                        wg);
    if (h->timed_out) { /* their accesses went to the sink: as if given up */
        v.gave_up = true;
        *why = "it waited longer than the device lets a loop run";
    } else if (!wait) {
        *why = g->flags & UVAS_KERNEL_NO_WAIT ? "launched with UVAS_KERNEL_NO_WAIT"
                                               : "a kernel cannot wait on this device: it "
                                                 "bounds shader loops";
    } else if (v.gave_up) {
        *why = v.busy_since ? "a transition held the block" : "uvas gave up on the run's waits";
    }
    /* Accesses to no live memory end the launch, named. */
    if (h->stray_claim)
        return uvas_fail(UVAS_ERR_NOT_OWNED, "kernel %s accessed %p, which is outside the "
                         "uvas range; the access went nowhere and the launch failed", g->who,
                         (void *)(uintptr_t)h->stray);
    if (v.not_owned) {
        uintptr_t a = (uintptr_t)uvas_block_addr(v.not_owned - 1);
        for (int i = 0; i < UVAS_XLAT_FAULTS; i++)
            if (h->fault[i] && uvas_block_index((const void *)(uintptr_t)h->fault[i]) ==
                                   v.not_owned - 1)
                a = h->fault[i];
        return uvas_fail(UVAS_ERR_NOT_OWNED, "kernel %s accessed %p, which is in no live uvas "
                         "allocation (freed, or never allocated); the access went nowhere and "
                         "the launch failed", g->who, (void *)a);
    }
    /* Faults whose wait was served are done with; without a give-up,
     * that is all of them. Otherwise the recorded ones whose block was
     * not held (the sink took their accesses) decide. */
    uint32_t m = 0;
    for (int i = 0; i < UVAS_XLAT_FAULTS && v.gave_up; i++) {
        const void *a = (const void *)(uintptr_t)h->fault[i];
        if (a && !(uvas_in_range(a) && uvas_hold_has(s, uvas_block_index(a))))
            fault[m++] = (uintptr_t)a;
    }
    if (v.gave_up && !m && h->nfaults) /* unrecorded ones: name the first */
        fault[m++] = h->fault[0];
    *nfaults = m;
    return UVAS_OK;
}

/* After a run with faults: the allocations they name join the set (the
 * group runs again, every kernel of it: they all said they may) or the
 * launch fails. Status. */
static int take_faults(const struct group *g, struct uvas_hold_set *s, uint32_t n,
                       const uint64_t *fault, const char *why)
{
    char *base;
    size_t size;
    /* An access to no live memory fails the launch, whatever came first. */
    for (uint32_t i = 0; i < n; i++) {
        const void *p = (const void *)(uintptr_t)fault[i];
        if (!uvas_span_alloc(p, &base, &size))
            return uvas_fail(UVAS_ERR_NOT_OWNED, "kernel %s accessed %p, which is %s; the "
                             "access went nowhere and the launch failed", g->who, p,
                             uvas_in_range(p) ? "in no live uvas allocation (freed, or never "
                                                "allocated)"
                                              : "outside the uvas range");
    }
    const void *p0 = (const void *)(uintptr_t)fault[0];
    if (!(g->flags & UVAS_KERNEL_IDEMPOTENT))
        return uvas_fail(UVAS_ERR_INVAL, "kernel %s accessed %p, in an allocation its "
                         "arguments did not name, and it was not made reachable while the "
                         "kernel ran (%s); the access went nowhere and the launch failed: pass "
                         "the pointer as an argument, or launch with UVAS_KERNEL_IDEMPOTENT so "
                         "uvas may run the kernel again with that memory reachable", g->who,
                         p0, why);
    size_t before = s->nwant;
    for (uint32_t i = 0; i < n; i++) {
        int rc = UVAS_OK;
        uvas_hold_want_alloc(s, (const void *)(uintptr_t)fault[i], &rc);
        if (rc)
            return rc;
    }
    if (s->nwant == before)
        return uvas_fail(UVAS_ERR_SYS, "kernel %s faulted on %p, which it holds", g->who, p0);
    atomic_fetch_add_explicit(&uvas_g.ctr.kernel_replays, 1, RLX);
    return UVAS_OK;
}

static int check_launch(const char *fn, const struct uvas_launch *l)
{
    struct uvas_kernel *k = l->kernel;
    if (!k)
        return uvas_fail(UVAS_ERR_INVAL, "%s: k is NULL (no kernel)", fn);
    if (!k->pipe)
        return uvas_fail(UVAS_ERR_NOT_INIT, "%s: kernel '%s' was loaded before uvas_finalize; "
                         "load it again", fn, k->entry);
    for (int i = 0; i < 3; i++)
        if (l->groups[i] == 0 || l->groups[i] > uvas_gpu.d->max_groups[i])
            return uvas_fail(UVAS_ERR_INVAL, "%s: groups[%d] = %u; the device takes 1 to %u",
                             fn, i, l->groups[i], uvas_gpu.d->max_groups[i]);
    if (l->args_size > uvas_gpu.push || l->args_size % 4 || (l->args_size && !l->args))
        return uvas_fail(UVAS_ERR_INVAL, "%s: %zu bytes of arguments%s; the device takes a "
                         "multiple of 4 up to %u bytes (its push-constant limit): pass larger "
                         "data through a uvas allocation", fn, l->args_size,
                         l->args_size && !l->args ? " at NULL" : "", uvas_gpu.push);
    const unsigned known = UVAS_KERNEL_NO_SCAN | UVAS_KERNEL_IDEMPOTENT | UVAS_KERNEL_NO_WAIT;
    if (l->flags & ~known)
        return uvas_fail(UVAS_ERR_INVAL, "%s: unknown flags %#x", fn, l->flags & ~known);
    return UVAS_OK;
}

/* The allocations the arguments point into: 8-byte-aligned values. */
static int scan_args(struct uvas_hold_set *s, const void *args, size_t args_size)
{
    for (size_t o = 0; o + 8 <= args_size; o += 8) {
        uint64_t v;
        memcpy(&v, (const char *)args + o, 8);
        int rc;
        if (uvas_hold_want_alloc(s, (const void *)(uintptr_t)v, &rc) && rc)
            return rc;
    }
    return UVAS_OK;
}

/* Hold what the group's kernels may touch, run them, and again with
 * more held while faults ask for it. Status. */
static int launch_group(struct group *g)
{
    group_name(g);
    struct uvas_hold_set s = {0};
    int rc = UVAS_OK;
    for (size_t i = 0; i < g->n && !rc; i++)
        if (!(g->l[i].flags & UVAS_KERNEL_NO_SCAN))
            rc = scan_args(&s, g->l[i].args, g->l[i].args_size);
    /* Each replay adds an allocation: it ends. */
    while (!rc && !(rc = uvas_hold_all(&s, &uvas_gpu.xlat))) {
        uint32_t n = 0;
        uint64_t fault[UVAS_XLAT_FAULTS];
        const char *why = "it was not served";
        pthread_mutex_lock(&uvas_gpu.xlat.run);
        uvas_hold_publish(&s, &uvas_gpu.xlat);
        rc = run_once(g, &s, &n, fault, &why);
        /* Translations change only between runs (and, during one, for the
         * blocks it asks for): a kernel sees every translation it reads
         * stay for its whole run. */
        uvas_hold_release(&s, &uvas_gpu.xlat);
        pthread_mutex_unlock(&uvas_gpu.xlat.run);
        if (rc || !n)
            break;
        rc = take_faults(g, &s, n, fault, why);
    }
    uvas_hold_free(&s); /* nothing held: each run let go, a failed hold too */
    return rc;
}

/* At most this many launches go to the device in one run. */
#define GROUP_MAX 1024

int uvas_gpu_kernel_launch_batch(const struct uvas_launch *l, size_t n, const char *fn)
{
    if (n && !l)
        return uvas_fail(UVAS_ERR_INVAL, "%s: the launches are NULL", fn);
    size_t i = 0;
    while (i < n) {
        struct group g = {.l = l + i, .flags = l[i].flags};
        int bad = UVAS_OK;
        while (i + g.n < n && g.n < GROUP_MAX && l[i + g.n].flags == g.flags &&
               !(bad = check_launch(fn, &l[i + g.n])))
            g.n++;
        if (g.n) {
            int rc = launch_group(&g);
            if (rc)
                return rc;
            i += g.n;
        }
        if (bad) { /* its message again: the run may have set others since */
            check_launch(fn, &l[i]);
            return n > 1 ? uvas_fail(bad, "%s (launch %zu of the %zu; those before it ran)",
                                     uvas_last_error(), i, n)
                         : bad;
        }
    }
    return UVAS_OK;
}

int uvas_gpu_kernel_launch(struct uvas_kernel *k, const uint32_t groups[3], const void *args,
                           size_t args_size, unsigned flags)
{
    static const char fn[] = "uvas_kernel_launch";
    if (!groups)
        return uvas_fail(UVAS_ERR_INVAL, "%s: groups is NULL", fn);
    struct uvas_launch l = {.kernel = k,
                            .groups = {groups[0], groups[1], groups[2]},
                            .args = args,
                            .args_size = args_size,
                            .flags = flags};
    return uvas_gpu_kernel_launch_batch(&l, 1, fn);
}
