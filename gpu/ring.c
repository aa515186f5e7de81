/* The kernels' request ring, host side (ring.h). */
#include "gpu/ring.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

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
    if ((rc = uvas_gpu_buffer_make_host(d, slots, &g->mbuf, &g->mmem, "kernels' mailbox"))) {
        uvas_ring_fini(g);
        return rc;
    }
    void *p, *m;
    if (vkMapMemory(d->dev, g->mem, 0, VK_WHOLE_SIZE, 0, &p) != VK_SUCCESS) {
        uvas_ring_fini(g);
        return uvas_fail(UVAS_ERR_NOMEM, "cannot map the kernels' request ring on '%s'",
                         d->name);
    }
    g->hdr = p;
    if (vkMapMemory(d->dev, g->mmem, 0, VK_WHOLE_SIZE, 0, &m) != VK_SUCCESS) {
        uvas_ring_fini(g);
        return uvas_fail(UVAS_ERR_NOMEM, "cannot map the kernels' mailbox on '%s'", d->name);
    }
    g->mail = m;
    memset(p, 0, bytes);
    memset(m, 0, slots);
    g->slot = (struct uvas_ring_req *)((char *)p + sizeof(struct uvas_ring_header));
    g->addr = uvas_vulkan_address(d, g->buf);
    g->hdr->mail = uvas_vulkan_address(d, g->mbuf);
    g->hdr->head = UVAS_RING_SLOTS; /* every slot to its first lap */
    uvas_ring_reset(g);
    return UVAS_OK;
}

void uvas_ring_fini(struct uvas_ring *g)
{
    struct uvas_vulkan *d = g->dev;
    if (d && g->hdr)
        vkUnmapMemory(d->dev, g->mem);
    if (d && g->mail)
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
        atomic_store_explicit(&g->mail[i].seq, 0, memory_order_relaxed);
    }
    g->hdr->nslots = UVAS_RING_SLOTS;
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

/* The request in a mailbox slot (host memory, the device's writes
 * visible once the posted mark is), out of it. */
static void request_in(struct uvas_ring_req *q, const struct uvas_ring_req *m)
{
    memcpy(q, m, offsetof(struct uvas_ring_req, payload));
    q->result = 0;
    q->status = 0;
    uint32_t op = q->op & UVAS_RING_OP_MASK;
    if ((op == UVAS_RING_PUT || op == UVAS_RING_PUT_SIGNAL) && q->size <= UVAS_RING_PAYLOAD)
        memcpy(q->payload, m->payload, q->size);
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
        request_in(&q, m);
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
