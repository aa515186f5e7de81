/*
 * The translation table kernels read to turn a uvas address into a device
 * address (include/uvas.glsl mirrors its layout): a header, then one
 * 64-bit entry per block of the range, 0 where the block is not reachable
 * now, else what to add to a uvas address of the block to get its device
 * address, with bit 0 set (valid) and bit 1 for host memory: a kernel's
 * translation is one table read, one mask and one add. An entry is written only for a block kernels hold (gpu/hold.c), so
 * it cannot change under a running kernel; the last holder clears it.
 *
 * Host-visible, coherent memory (device-local where the device offers
 * such memory), written by the CPU with plain stores. Bound at set 0,
 * binding 0 of every kernel.
 *
 * While a kernel runs, an access that finds no translation asks for its
 * block in a two-level bitmap after the entries (a bit per block, and a
 * bit per word of those) and waits on the entry: uvas publishes the
 * translation (the kernel goes on) or gives up on the run's waits (they
 * go to the sink, and the launch decides after the run).
 */
#ifndef UVAS_GPU_XLAT_H
#define UVAS_GPU_XLAT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "uvas/vulkan.h"

/* Specialization constants of include/uvas.glsl: the range's base, block
 * shift and block count (ids below glslang's limit of 2048, at its top
 * where a kernel's own are unlikely). */
#define UVAS_XLAT_SPEC_BASE 2032u
#define UVAS_XLAT_SPEC_SHIFT 2033u
#define UVAS_XLAT_SPEC_NBLOCKS 2034u

/* Faulting addresses a run records (the rest are only counted). */
#define UVAS_XLAT_FAULTS 16
/* Entry bits: a translation is there; the block is host memory, reached
 * through its imported pages. */
#define UVAS_XLAT_VALID 1ull
#define UVAS_XLAT_HOST 2ull
#define UVAS_XLAT_BITS 3ull
/* Header flags: faulting accesses wait for uvas; uvas gave up on them all. */
#define UVAS_XLAT_WAIT 1u
#define UVAS_XLAT_GIVE_UP 2u
/* The sink: where accesses that found no translation go (any offset below). */
#define UVAS_XLAT_SINK_BYTES 4096

struct uvas_xlat_header {
    uint64_t base;      /* the range's first address */
    uint32_t shift;     /* log2 of the block size */
    uint32_t nblocks;
    uint64_t sink;      /* device address of the sink */
    uint32_t nfaults;   /* accesses without a translation this run */
    uint32_t flags;     /* UVAS_XLAT_WAIT, UVAS_XLAT_GIVE_UP */
    uint64_t req;       /* device address of the request bitmaps */
    uint64_t stray;     /* an access outside the range, if stray_claim */
    uint32_t stray_claim;
    uint32_t pad;
    uint64_t fault[UVAS_XLAT_FAULTS];
};
_Static_assert(sizeof(struct uvas_xlat_header) == 56 + 8 * UVAS_XLAT_FAULTS,
               "uvas.glsl's uvas_xlat_entries header is 56 + 8 * UVAS_XLAT_FAULTS bytes");

struct uvas_xlat {
    struct uvas_vulkan *dev;
    VkBuffer buf;
    VkDeviceMemory mem;
    VkDeviceSize bytes;
    volatile struct uvas_xlat_header *hdr;
    _Atomic uint64_t *entry;
    volatile uint32_t *req0, *req1; /* a bit per block; a bit per req0 word */
    size_t nreq0, nreq1;
    VkBuffer sink;
    VkDeviceMemory sink_mem;
};

int uvas_xlat_init(struct uvas_xlat *x, struct uvas_vulkan *d, uintptr_t base, unsigned shift,
                   size_t nblocks);
void uvas_xlat_fini(struct uvas_xlat *x);

/* Before a run: no faults, no requests; faults wait when wait. */
void uvas_xlat_run_begin(struct uvas_xlat *x, bool wait);
/* fn(bi, arg) for every block the running kernel has asked for so far
 * (again on every call: the caller knows which it has served). */
void uvas_xlat_requests(struct uvas_xlat *x, void (*fn)(size_t bi, void *arg), void *arg);

/* Block bi (at uvas address `at`) is at device address dev (host: its
 * imported pages); dev 0 clears the entry. */
static inline void uvas_xlat_set(struct uvas_xlat *x, size_t bi, uintptr_t at, uint64_t dev,
                                 bool host)
{
    uint64_t e = dev ? (dev - at) | UVAS_XLAT_VALID | (host ? UVAS_XLAT_HOST : 0) : 0;
    atomic_store_explicit(&x->entry[bi], e, memory_order_release);
}


#endif
