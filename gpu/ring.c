/* The kernels' request ring, host side (ring.h). */
#include "gpu/ring.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "gpu/buffer.h"
#include "uvas/atomics.h"
#include "uvas.h"
#include "uvas/status.h"

int uvas_ring_init(struct uvas_ring *g, struct uvas_vulkan *d)
{
    memset(g, 0, sizeof *g);
    VkDeviceSize slots = UVAS_RING_SLOTS * (VkDeviceSize)sizeof(struct uvas_ring_req);
    VkDeviceSize bytes = sizeof(struct uvas_ring_header) + slots;
    /* The ring device-local where the device offers it host-visible (as
     * the translation table), the mailbox in host memory (ring.h). */
    int rc = uvas_gpu_buffer_make(d, bytes, UINT32_MAX, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                  &g->buf, &g->mem, "kernels' request ring");
    if (rc)
        return rc;
    g->dev = d;
    /* The mailbox only where asked for (UVAS_RING_MAILBOX=1): once in
     * about 16 runs of test-gpu-shmem-rma on 4 PEs the H100 served a put
     * whose data was not yet all in the mailbox (a GPU's stores to host
     * memory need not arrive in order; docs/gpu-shmem-plan.md). Without
     * it requests are written into the ring itself, which the host reads
     * through the BAR, slower and ordered. */
    const char *e = getenv("UVAS_RING_MAILBOX");
    bool mailbox = e && !strcmp(e, "1");
    if (mailbox &&
        (rc = uvas_gpu_buffer_make_host(d, slots, &g->mbuf, &g->mmem, "kernels' mailbox"))) {
        uvas_ring_fini(g);
        return rc;
    }
    void *p, *m = NULL;
    if (vkMapMemory(d->dev, g->mem, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS) {
        uvas_ring_fini(g);
        return uvas_fail(UVAS_ERR_NOMEM, "cannot map the kernels' request ring on '%s'",
                         d->name);
    }
    g->hdr = p;
    if (mailbox && vkMapMemory(d->dev, g->mmem, 0, VK_WHOLE_SIZE, 0, &m) != VK_SUCCESS) {
        uvas_ring_fini(g);
        return uvas_fail(UVAS_ERR_NOMEM, "cannot map the kernels' mailbox on '%s'", d->name);
    }
    memset(p, 0, bytes);
    g->slot = (struct uvas_ring_req *)((char *)p + sizeof(struct uvas_ring_header));
    g->addr = uvas_vulkan_address(d, g->buf);
    if (mailbox) {
        memset(m, 0, slots);
        g->mail = m;
        g->mail_addr = uvas_vulkan_address(d, g->mbuf);
    } else { /* the ring's own slots: a request's posted mark is its seq */
        g->mail = g->slot;
        g->mail_addr = g->addr + sizeof(struct uvas_ring_header);
    }
    g->hdr->head = UVAS_RING_SLOTS; /* every slot to its first lap */
    uvas_ring_reset(g);
    return UVAS_OK;
}

void uvas_ring_fini(struct uvas_ring *g)
{
    struct uvas_vulkan *d = g->dev;
    if (d && g->hdr)
        vkUnmapMemory(d->dev, g->mem);
    if (d && g->mbuf && g->mail)
        vkUnmapMemory(d->dev, g->mmem);
    if (d && g->buf)
        vkDestroyBuffer(d->dev, g->buf, NULL);
    if (d && g->mbuf)
        vkDestroyBuffer(d->dev, g->mbuf, NULL);
    if (d && g->mem)
        vkFreeMemory(d->dev, g->mem, NULL);
    if (d && g->mmem)
        vkFreeMemory(d->dev, g->mmem, NULL);
    memset(g, 0, sizeof *g);
}

void uvas_ring_reset(struct uvas_ring *g)
{
    /* Only the slots the last run used (a launch without requests costs
     * nothing here): init set them all. */
    uint32_t used = atomic_load_explicit(&g->hdr->head, memory_order_relaxed);
    if (used > UVAS_RING_SLOTS)
        used = UVAS_RING_SLOTS;
    /* A mailbox slot's posted mark is ticket + 1, and tickets start at 0
     * each run: the last run's marks go. */
    for (uint32_t i = 0; i < used; i++) {
        atomic_store_explicit(&g->slot[i].seq, i, memory_order_relaxed);
        if (g->mail != g->slot)
            atomic_store_explicit(&g->mail[i].seq, 0, memory_order_relaxed);
    }
    g->hdr->nslots = UVAS_RING_SLOTS;
    g->hdr->mail = g->mail_addr;
    g->hdr->timed_out = 0;
    g->hdr->refused = 0;
    g->hdr->cannot_wait = 0;
    g->next = 0;
    g->rc = 0;
    g->why[0] = 0;
    /* The slots before the head: a kernel reads seq after taking a ticket. */
    atomic_store_explicit(&g->hdr->head, 0, memory_order_release);
}

static const char *op_name(const struct uvas_ring_req *r)
{
    switch (r->op & UVAS_RING_OP_MASK) {
    case UVAS_RING_PUT: return "a put";
    case UVAS_RING_GET: return "a get";
    case UVAS_RING_AMO: return "an atomic";
    case UVAS_RING_PUT_SIGNAL: return "a put with signal";
    case UVAS_RING_QUIET: return "a quiet";
    case UVAS_RING_PUT_REF: return "a put";
    default: return "an unknown request";
    }
}

/* A get's payload bytes (n rounded up to 8) into the ring, 8 at a time:
 * the ring may be device memory mapped through the BAR, write-combining,
 * where a copy's string instructions make a bus transaction per byte. */
static void payload_out(uint8_t *dst, const uint8_t *src, size_t n)
{
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w;
        memcpy(&w, src + i, 8);
        *(volatile uint64_t *)(void *)(dst + i) = w;
    }
}

#if defined(__x86_64__)
/* n bytes (a multiple of 16, from a 16-byte aligned address) of
 * write-combining memory by streaming loads: the first of a 64-byte
 * line's four loads reads the whole line across the bus, the others come
 * from the load's buffer, where ordinary loads are a bus round trip each
 * (a request's fields cost more than serving it: docs/kernels.md). The
 * fence first: streaming loads pass earlier loads (the seq that said the
 * slot is posted) and may find an older copy of the line in that buffer. */
__attribute__((target("sse4.1"))) static void bar_read_sse41(void *dst, const volatile void *src,
                                                             size_t n)
{
    _mm_mfence();
    for (size_t i = 0; i < n; i += 16) {
        __m128i x = _mm_stream_load_si128((__m128i *)(uintptr_t)((const volatile char *)src + i));
        _mm_storeu_si128((__m128i *)(void *)((char *)dst + i), x);
    }
}
#endif

/* n bytes as bar_read_sse41 says, or 8 bytes a read where it cannot. */
static void bar_read(void *dst, const volatile void *src, size_t n)
{
#if defined(__x86_64__)
    static _Atomic int sse41 = -1; /* (launching threads may race to set it: same value) */
    int has = atomic_load_explicit(&sse41, RLX);
    if (has < 0) {
        has = __builtin_cpu_supports("sse4.1") ? 1 : 0;
        atomic_store_explicit(&sse41, has, RLX);
    }
    if (has) {
        bar_read_sse41(dst, src, n);
        return;
    }
#endif
    const volatile char *s = src;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t w = *(const volatile uint64_t *)(const volatile void *)(s + i);
        memcpy((char *)dst + i, &w, 8);
    }
}

/* The request in a slot, out of it: from the mailbox (host memory) with
 * plain copies; from the ring (maybe device memory through the BAR,
 * uncached or write-combining, where a copy's string instructions read a
 * byte per bus round trip) by bar_read. */
static void request_in(struct uvas_ring_req *q, const struct uvas_ring_req *m, bool bar)
{
    if (!bar)
        memcpy(q, m, offsetof(struct uvas_ring_req, payload));
    else
        bar_read(q, m, offsetof(struct uvas_ring_req, payload));
    q->result = 0;
    q->status = 0;
    uint32_t op = q->op & UVAS_RING_OP_MASK;
    if ((op == UVAS_RING_PUT || op == UVAS_RING_PUT_SIGNAL) && q->size <= UVAS_RING_PAYLOAD) {
        if (!bar)
            memcpy(q->payload, m->payload, q->size);
        else
            bar_read(q->payload, m->payload, (q->size + 15u) & ~15u);
    }
}

unsigned uvas_ring_drain(struct uvas_ring *g, uvas_ring_serve_fn serve)
{
    unsigned n = 0;
    struct uvas_ring_req q; /* the request, out of the ring */
    for (;;) {
        uint32_t t = g->next;
        struct uvas_ring_req *slot = &g->slot[t % UVAS_RING_SLOTS], *r = &q;
        struct uvas_ring_req *m = &g->mail[t % UVAS_RING_SLOTS];
        /* Acquire: the invocation filled the slot before it posted it. */
        if (atomic_load_explicit(&m->seq, memory_order_acquire) != t + 1)
            return n;
        request_in(&q, m, m == slot);
        uint32_t op = q.op & UVAS_RING_OP_MASK;
        int rc;
        if (r->size > UVAS_RING_PAYLOAD && (r->op & UVAS_RING_OP_MASK) != UVAS_RING_AMO)
            rc = uvas_fail(UVAS_ERR_INVAL, "%u bytes in one request (at most %u)", r->size,
                           UVAS_RING_PAYLOAD);
        else if (!serve)
            rc = uvas_fail(UVAS_ERR_NOT_INIT, "this program is no OpenSHMEM PE: call "
                           "shmem_init before launching kernels that put, get or update "
                           "memory through shmem.glsl");
        else
            rc = serve(r);
        if (!rc && op == UVAS_RING_GET)
            payload_out(slot->payload, q.payload, q.size);
        slot->result = q.result;
        slot->status = rc ? 1u : 0u;
        if (rc) {
            g->hdr->refused++;
            if (!g->rc) {
                g->rc = rc;
                snprintf(g->why, sizeof g->why, "%s to PE %d at %p: %s", op_name(r), r->pe,
                         (void *)(uintptr_t)r->addr, uvas_last_error());
            }
        }
        /* The answer before the slot says so: a release store, after a
         * store fence, as the ring may be mapped write-combining (whose
         * stores x86 does not keep in order: a kernel read a get's answer
         * as 0 on the H100). */
        uvas_store_fence();
        atomic_store_explicit(&slot->seq, q.op & UVAS_RING_WAITS ? t + 2 : t + UVAS_RING_SLOTS,
                              memory_order_release);
        g->next = t + 1;
        n++;
    }
}
