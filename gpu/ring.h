/*
 * The kernels' request ring: how a compute kernel asks the host to do
 * what it cannot do itself (include/shmem.glsl's puts, gets and atomics
 * to other PEs, and its quiet), as NVSHMEM's proxy does for remote
 * traffic. One ring per process, in host-visible coherent memory
 * (device-local where offered, ring.c says why), its device address in
 * the translation table's header (`proxy`); include/shmem.glsl mirrors
 * the layout.
 *
 * A bounded multi-producer ring (Vyukov's): slot i starts with seq = i.
 * An invocation takes ticket t from `head`, waits until its slot's seq is
 * t (free for this lap), writes the request into the same slot of the
 * mailbox and sets the mailbox slot's seq to t + 1 (posted). The host
 * serves tickets in order; it sets the ring slot's seq to t +
 * UVAS_RING_SLOTS (free for the next lap) once done with a request nobody
 * waits for, or to t + 2 (answered: result, status and a get's payload in
 * the ring slot) where the invocation waits for the result, reads it and
 * frees the slot itself. Serving in ticket order is what makes a kernel's
 * quiet (a request like the others) mean every request posted before it
 * is complete.
 *
 * Two buffers because each side must read what the other writes where
 * reading is cheap: the ring (head, seqs, answers) is device-local where
 * the device offers it host-visible, since a kernel on the H100 never saw
 * host stores into host-cached memory while it ran; the mailbox
 * (requests) is host memory, which the host reads from its cache, where a
 * request read from the BAR cost a bus round trip per 8 bytes.
 *
 * The host serves while it waits for the run (gpu/kernel.c) and once more
 * after it, so a launch returns with every request of its kernel done.
 */
#ifndef UVAS_GPU_RING_H
#define UVAS_GPU_RING_H

#include <stdatomic.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "uvas/vulkan.h"

#define UVAS_RING_SLOTS 4096u
#define UVAS_RING_PAYLOAD 448u

/* What an invocation asks for (op); UVAS_RING_WAITS: it waits for the
 * answer and frees the slot. */
enum uvas_ring_op {
    UVAS_RING_PUT = 1,        /* size bytes of payload to addr at pe */
    UVAS_RING_GET = 2,        /* size bytes from addr at pe into payload */
    UVAS_RING_AMO = 3,        /* amo (enum uvas_amo_op) on the size-byte word addr at pe */
    UVAS_RING_PUT_SIGNAL = 4, /* PUT, then signal op amo with value on the u64 at sig */
    UVAS_RING_QUIET = 5,      /* every request before this one complete and visible */
    UVAS_RING_PUT_REF = 6,    /* cmp bytes from this PE's host memory at value to addr at pe:
                               * the host reads the source (waits: the kernel may reuse it
                               * once answered) */
};
#define UVAS_RING_OP_MASK 0xffu
#define UVAS_RING_WAITS 0x100u

struct uvas_ring_req {
    _Atomic uint32_t seq;
    uint32_t op;     /* enum uvas_ring_op | UVAS_RING_WAITS */
    int32_t pe;
    uint32_t size;   /* PUT/GET: bytes (<= UVAS_RING_PAYLOAD); AMO: 4 or 8 */
    uint64_t addr;   /* the symmetric address at pe */
    uint64_t value;  /* AMO operand; PUT_SIGNAL's signal value; PUT_REF's source */
    uint64_t cmp;    /* compare-and-swap's comparand; PUT_REF's length */
    uint64_t result; /* what an AMO fetched */
    uint64_t sig;    /* PUT_SIGNAL: the signal word at pe */
    uint32_t amo;    /* AMO: enum uvas_amo_op; PUT_SIGNAL: the signal's (SET or ADD) */
    uint32_t status; /* 0, or the host refused it (the launch fails, saying why) */
    uint8_t payload[UVAS_RING_PAYLOAD];
};
_Static_assert(sizeof(struct uvas_ring_req) == 512, "shmem.glsl's slot is 512 bytes");

struct uvas_ring_header {
    _Atomic uint32_t head; /* the next ticket */
    uint32_t nslots;
    uint32_t timed_out;    /* waits that ran out (a device that bounds loops) */
    uint32_t refused;      /* requests the host refused */
    uint32_t cannot_wait;  /* calls that need an answer, where kernels cannot wait */
    uint32_t pad;
    uint64_t mail;         /* the mailbox's device address */
    uint32_t reserved[8];
};
_Static_assert(sizeof(struct uvas_ring_header) == 64, "shmem.glsl's ring header is 64 bytes");

/* The host's answer to one request: UVAS_OK, or a status with the
 * thread's message set (the launch reports the first). */
typedef int (*uvas_ring_serve_fn)(struct uvas_ring_req *r);

struct uvas_ring {
    VkBuffer buf, mbuf;
    VkDeviceMemory mem, mmem;
    struct uvas_vulkan *dev;
    volatile struct uvas_ring_header *hdr;
    struct uvas_ring_req *slot;       /* the ring's slots: seqs and answers */
    struct uvas_ring_req *mail;       /* the mailbox's: requests, posted marks */
    uint64_t addr;  /* the ring's device address */
    uint64_t mail_addr; /* the header's `mail` as set at init: kernels can write the
                         * header, so each reset writes it again */
    uint32_t next;  /* the next ticket to serve */
    int rc;         /* the first refusal's status, its message in why */
    char why[320];
};

int uvas_ring_init(struct uvas_ring *g, struct uvas_vulkan *d);
void uvas_ring_fini(struct uvas_ring *g);
/* Before a run (none in flight): every slot free, nothing refused. */
void uvas_ring_reset(struct uvas_ring *g);
/* Serve every request posted in order from the next ticket; serve may be
 * NULL (no PE layer: every request to another PE is refused). Returns the
 * number served. */
unsigned uvas_ring_drain(struct uvas_ring *g, uvas_ring_serve_fn serve);

#endif
