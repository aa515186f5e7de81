/*
 * The translation table kernels read to turn a uvas address into a device
 * address (include/uvas.glsl mirrors its layout): a header, then one
 * 16-byte entry per block of the range: `idx`, 0 where the block is not
 * reachable now, else the block's index + 1, and `delta`, what to add to
 * a uvas address of the block to get its device address. A kernel reads
 * idx, then delta of entry idx - 1 (so the second read depends on the
 * first), and adds. An entry is set only for a block kernels hold
 * (gpu/hold.c) and the last holder clears it; every change is made under
 * `run`, which a kernel holds while it runs: during a run, the only
 * entries that change are those of blocks it asked for, from none to set.
 *
 * Why two words and not one 64-bit entry: while a kernel runs, entries of
 * blocks it asked for are published under it, and a 64-bit load is not
 * one access everywhere (lavapipe splits some into two 32-bit loads: a
 * half-written entry read as valid sent writes to a wild address). idx is
 * 32 bits, and delta is written before idx is and never changes while idx
 * is set, so any read sees either no translation or a whole one.
 *
 * Host-visible, coherent memory (device-local where the device offers
 * such memory), written by the CPU with plain stores. Bound at set 0,
 * binding 0 of every kernel.
 *
 * Access counters: a u32 per block in device memory, which the first
 * invocation of every workgroup adds 1 to on every UVAS_XLAT_COUNT_PERIOD-th
 * of its accesses to host-resident blocks (delta's UVAS_XLAT_DELTA_HOST;
 * the sample: counts are accesses / (workgroup size x period), which the
 * launcher scales back). Every run copies them to host memory and zeroes them on the
 * device, after the kernel, in the run's own command buffer; the launcher
 * reads the blocks it held from the copy (uvas_xlat_take_count).
 *
 * While a kernel runs, an access that finds no translation asks for its
 * block in a two-level bitmap after the entries (a bit per block, and a
 * bit per word of those) and waits on idx: uvas publishes the translation
 * (the kernel goes on) or gives up on the run's waits (they go to the
 * sink, and the launch decides after the run).
 */
#ifndef UVAS_GPU_XLAT_H
#define UVAS_GPU_XLAT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

#include "uvas/atomics.h"
#include "uvas/vulkan.h"

/* Specialization constants of include/uvas.glsl: the range's base, block
 * shift and block count (ids below glslang's limit of 2048, at its top
 * where a kernel's own are unlikely). */
#define UVAS_XLAT_SPEC_BASE 2032u
#define UVAS_XLAT_SPEC_SHIFT 2033u
#define UVAS_XLAT_SPEC_NBLOCKS 2034u
#define UVAS_XLAT_SPEC_WAITS 2035u

/* The access counters' sample (uvas.glsl): every this many accesses of
 * a workgroup's first invocation. */
#define UVAS_XLAT_COUNT_PERIOD 8u
/* Faulting addresses a run records (the rest are only counted). */
#define UVAS_XLAT_FAULTS 16
/* Entry flags (not read by kernels): the block is host memory, reached
 * through its imported pages. */
#define UVAS_XLAT_HOST 1u
/* In delta, for kernels: the same (they count their accesses to it). */
#define UVAS_XLAT_DELTA_HOST 1u
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
    uint32_t timed_out; /* accesses that stopped waiting on their own */
    uint64_t counts;    /* device address of the access counters, a u32 per block */
    uint32_t my_pe;     /* the launching OpenSHMEM PE, and the job's PEs (shmem.glsl) */
    uint32_t n_pes;
    uint64_t proxy;     /* device address of the request ring (gpu/ring.h); entries
                         * start 16-aligned: none straddles a cache line */
    uint64_t peers;     /* device address of the leases on peers' blocks (shmem.glsl,
                         * transport/pe/lease.h), 0: none */
    uint64_t pad;
    uint64_t fault[UVAS_XLAT_FAULTS];
};
_Static_assert(sizeof(struct uvas_xlat_header) == 96 + 8 * UVAS_XLAT_FAULTS,
               "uvas.glsl's uvas_xlat_entries header is 96 + 8 * UVAS_XLAT_FAULTS bytes");
_Static_assert(sizeof(struct uvas_xlat_header) % 16 == 0,
               "translation entries (16 bytes) start 16-aligned");
_Static_assert(offsetof(struct uvas_xlat_header, counts) == 8 * 7,
               "uvas.glsl reads counts as header[UVAS_XLAT_COUNTS_WORD = 7]");

struct uvas_xlat_entry {
    _Atomic uint32_t idx;   /* 0, or the block's index + 1 */
    uint32_t flags;         /* UVAS_XLAT_HOST */
    _Atomic uint64_t delta; /* device address - uvas address */
};
_Static_assert(sizeof(struct uvas_xlat_entry) == 16, "uvas.glsl's uvas_xlat_entry is 16 bytes");

struct uvas_xlat {
    pthread_mutex_t run;  /* one kernel runs at a time; entries change under it */
    uint64_t *reach;      /* per block, while held: its device address | 1 if host */
    struct uvas_vulkan *dev;
    VkBuffer buf;
    VkDeviceMemory mem;
    VkDeviceSize bytes;
    volatile struct uvas_xlat_header *hdr;
    struct uvas_xlat_entry *entry;
    volatile uint32_t *req0, *req1; /* a bit per block; a bit per req0 word */
    size_t nreq0, nreq1;
    VkBuffer sink;
    VkDeviceMemory sink_mem;
    VkBuffer counts, counts_host;        /* device counters; the run's copy of them */
    VkDeviceMemory counts_mem, counts_host_mem;
    volatile uint32_t *counted;          /* counts_host, mapped */
    bool zero_counts;                    /* the next run zeroes the counters first */
    size_t win_lo, win_hi;               /* the last run's window of counted[] */
};

int uvas_xlat_init(struct uvas_xlat *x, struct uvas_vulkan *d, uintptr_t base, unsigned shift,
                   size_t nblocks);
void uvas_xlat_fini(struct uvas_xlat *x);

/* Before a run: no faults, no requests; faults wait when wait. */
void uvas_xlat_run_begin(struct uvas_xlat *x, bool wait);
/* fn(bi, arg) for every block the running kernel has asked for so far
 * (again on every call: the caller knows which it has served). */
void uvas_xlat_requests(struct uvas_xlat *x, void (*fn)(size_t bi, void *arg), void *arg);

/* Record, after a kernel's dispatch in cb: the counters of blocks
 * [lo, hi] (lo > hi: none) copied for the host, then zeroed for the next
 * run (whose shaders wait for it: the barrier of uvas_xlat_record_begin).
 * A window, not the whole table: a launch costs what it holds, not what
 * the range could hold. A block counted outside the window (one a fault
 * made reachable during the run) is taken by the next run whose window
 * covers it. */
void uvas_xlat_record_counts(struct uvas_xlat *x, VkCommandBuffer cb, size_t lo, size_t hi);
/* Before a dispatch in cb: the last run's zeroing done before shaders count. */
void uvas_xlat_record_begin(struct uvas_xlat *x, VkCommandBuffer cb);
/* Block bi's sampled accesses in the run that ended (its copy
 * complete), taken: a second call returns 0. */
static inline uint32_t uvas_xlat_take_count(struct uvas_xlat *x, size_t bi)
{
    if (bi < x->win_lo || bi > x->win_hi)
        return 0; /* not copied by this run */
    uint32_t c = x->counted[bi];
    if (c)
        x->counted[bi] = 0;
    return c;
}

/* Publish block bi's translation from x->reach (run held). delta goes out
 * before idx (uvas_store_fence: the table may be mapped write-combining);
 * plain stores, as the device is the reader. */
static inline void uvas_xlat_publish(struct uvas_xlat *x, size_t bi, uintptr_t at)
{
    struct uvas_xlat_entry *e = &x->entry[bi];
    uint64_t r = x->reach[bi];
    if (atomic_load_explicit(&e->idx, memory_order_relaxed))
        return; /* published by another holder's run: the same */
    /* Both addresses are page aligned: bit 0 of delta is free to say
     * host-resident to the kernel (uvas.glsl masks it off). */
    atomic_store_explicit(&e->delta, ((r & ~1ull) - at) | (r & 1 ? UVAS_XLAT_DELTA_HOST : 0),
                          memory_order_relaxed);
    e->flags = r & 1 ? UVAS_XLAT_HOST : 0;
    uvas_store_fence();
    atomic_store_explicit(&e->idx, (uint32_t)(bi + 1), memory_order_release);
}

/* No translation for block bi any more (run held; its last holder). */
static inline void uvas_xlat_clear(struct uvas_xlat *x, size_t bi)
{
    atomic_store_explicit(&x->entry[bi].idx, 0, memory_order_release);
    x->reach[bi] = 0;
}


#endif
