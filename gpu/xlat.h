/*
 * The translation table kernels read to turn a uvas address into a device
 * address (include/uvas.glsl mirrors its layout): a header, then one
 * 64-bit word per block of the range, 0 where the block is not reachable
 * now, else its delta (what to add to a uvas address of the block to get
 * its device address) plus UVAS_XLAT_WORD_BIAS, UVAS_XLAT_WORD_SET and,
 * for a host-resident block, UVAS_XLAT_WORD_HOST (both addresses are page
 * aligned: the delta's low bits are 0, and the additions set bits). A
 * kernel reads the word once, checks it and adds it and a constant to the
 * address: one three-operand add (uvas.glsl). An entry is set only for a
 * block kernels hold (gpu/hold.c) and the last holder clears it; every
 * change is made under `run`, which a kernel holds while it runs: during a
 * run, the only entries that change are those of blocks it asked for,
 * from none to set.
 *
 * Why the bias and the set bit: a 64-bit load is not one access
 * everywhere (lavapipe splits some into two 32-bit loads: a half-written
 * entry read as valid once sent writes to a wild address). Both halves of
 * a set word are nonzero (the set bit in the low half; the high half is
 * delta + 2^62 over 2^32, and the delta is more than -2^47, device
 * addresses being positive and user addresses below 2^47, so the sum lies
 * between 2^61 and 2^63), and a set word never changes during a run, so a
 * read torn between none and set has a zero half: no translation. (The table was two reads before, an index then a delta
 * addressed by it: the second read waited for the first.)
 *
 * Host-visible, coherent memory (device-local where the device offers
 * such memory), written by the CPU with plain stores. Bound at set 0,
 * binding 0 of every kernel.
 *
 * Access counters: a u32 per block in device memory, which the first
 * invocation of every workgroup adds 1 to on every UVAS_XLAT_COUNT_PERIOD-th
 * of its accesses to host-resident blocks (UVAS_XLAT_WORD_HOST;
 * the sample: counts are accesses / (workgroup size x period), which the
 * launcher scales back). Every run copies them to host memory and zeroes them on the
 * device, after the kernel, in the run's own command buffer; the launcher
 * reads the blocks it held from the copy (uvas_xlat_take_count).
 *
 * Runs: per block, 0, or how many blocks from it on (it included) a run
 * holds at one delta (device-resident, in consecutive slots): a kernel
 * that reads k there addresses the k blocks' bytes by adding the first
 * one's delta, with no entry per access (uvas.glsl's uvas_array). Written
 * before a run for the blocks it holds and zeroed when they are let go
 * (gpu/hold.c), under `run`: a nonzero count a kernel reads is its own
 * run's, over blocks held until it ends.
 *
 * While a kernel runs, an access that finds no translation asks for its
 * block in a two-level bitmap after the entries (a bit per block, and a
 * bit per word of those) and waits on its entry: uvas publishes the
 * translation (the kernel goes on) or gives up on the run's waits (they
 * go to the sink, and the launch decides after the run).
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
#define UVAS_XLAT_SPEC_RUNS 2036u

/* The access counters' sample (uvas.glsl): every this many accesses of
 * a workgroup's first invocation. */
#define UVAS_XLAT_COUNT_PERIOD 8u
/* Faulting addresses a run records (the rest are only counted). */
#define UVAS_XLAT_FAULTS 16
/* In an entry's word: set (a translation); the block is host memory,
 * reached through its imported pages (kernels count their accesses to
 * it); the bias that makes a set word's high half nonzero. */
#define UVAS_XLAT_WORD_SET 2u
#define UVAS_XLAT_WORD_HOST 1u
#define UVAS_XLAT_WORD_BIAS (1ull << 62)
/* Header flags: faulting accesses wait for uvas; uvas gave up on them all. */
#define UVAS_XLAT_WAIT 1u
#define UVAS_XLAT_GIVE_UP 2u
/* In reach[]: the block is host memory; its entry is published. */
#define UVAS_XLAT_REACH_HOST 1u
#define UVAS_XLAT_REACH_OUT 2u
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
    uint64_t runs;      /* device address of the runs, a u32 per block (below) */
    uint64_t fault[UVAS_XLAT_FAULTS];
};
_Static_assert(sizeof(struct uvas_xlat_header) == 96 + 8 * UVAS_XLAT_FAULTS,
               "uvas.glsl's uvas_xlat_entries header is 96 + 8 * UVAS_XLAT_FAULTS bytes");
_Static_assert(sizeof(struct uvas_xlat_header) % 16 == 0,
               "translation entries (16 bytes) start 16-aligned");
_Static_assert(offsetof(struct uvas_xlat_header, counts) == 8 * 7,
               "uvas.glsl reads counts as header[UVAS_XLAT_COUNTS_WORD = 7]");
_Static_assert(offsetof(struct uvas_xlat_header, runs) == 8 * 11,
               "uvas.glsl reads runs as header[UVAS_XLAT_RUNS_WORD = 11]");

struct uvas_xlat_entry {
    _Atomic uint64_t word; /* 0, or the delta encoded as above */
};
_Static_assert(sizeof(struct uvas_xlat_entry) == 8, "uvas.glsl's uvas_xlat_entry is 8 bytes");

struct uvas_xlat {
    pthread_mutex_t run;  /* one kernel runs at a time; entries change under it */
    /* Per block, while held: its device address | UVAS_XLAT_REACH_HOST,
     * and UVAS_XLAT_REACH_OUT once its entry is published. The table is
     * device memory the CPU reaches through the BAR, where a read costs
     * about a microsecond: what an entry holds is known from here, never
     * read back (a launch over 384 blocks spent 0.8 ms reading them). */
    uint64_t *reach;
    struct uvas_vulkan *dev;
    VkBuffer buf;
    VkDeviceMemory mem;
    VkDeviceSize bytes;
    volatile struct uvas_xlat_header *hdr;
    struct uvas_xlat_entry *entry;
    volatile uint32_t *req0, *req1; /* a bit per block; a bit per req0 word */
    volatile uint32_t *runs;        /* the runs, in the table's memory */
    uint32_t *runs_now;             /* what runs[] holds: written only where it changes */
    size_t nreq0, nreq1;
    /* The header's fixed fields as set at init, written again at every
     * run's start and read from here: kernels can write the header (it is
     * their memory), and one that wrote these would steer every later run
     * (its faults' sink, its requests' bitmaps) or the host (the runs'
     * address it hands to pipelines). */
    struct uvas_xlat_header fixed;
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

/* Publish block bi's translation from x->reach (run held): one store, as
 * the device is the reader. */
static inline void uvas_xlat_publish(struct uvas_xlat *x, size_t bi, uintptr_t at)
{
    uint64_t r = x->reach[bi];
    if (r & UVAS_XLAT_REACH_OUT)
        return; /* published by another holder's run: the same */
    uint64_t delta = (r & ~(uint64_t)(UVAS_XLAT_REACH_HOST | UVAS_XLAT_REACH_OUT)) - at;
    atomic_store_explicit(&x->entry[bi].word,
                          delta + UVAS_XLAT_WORD_BIAS + UVAS_XLAT_WORD_SET +
                              (r & UVAS_XLAT_REACH_HOST ? UVAS_XLAT_WORD_HOST : 0),
                          memory_order_release);
    x->reach[bi] = r | UVAS_XLAT_REACH_OUT;
}

/* Block bi's run (x->run held): k blocks from it on at its delta, 0 none. */
static inline void uvas_xlat_set_run(struct uvas_xlat *x, size_t bi, uint32_t k)
{
    if (x->runs_now[bi] != k) {
        x->runs[bi] = k;
        x->runs_now[bi] = k;
    }
}

/* No translation for block bi any more (run held; its last holder). */
static inline void uvas_xlat_clear(struct uvas_xlat *x, size_t bi)
{
    atomic_store_explicit(&x->entry[bi].word, 0, memory_order_release);
    x->reach[bi] = 0;
}


#endif
