/*
 * The block table: one entry per block of the range, indexed by
 * (addr - base) >> shift. The fault path, queries, the migration engine
 * and peers (through the gates) read it without locks.
 *
 * state word: bits 0-1 residence (enum uvas_residence), bit 2 BUSY (one
 * agent owns the block's transition; whoever clears BUSY wakes faulting
 * threads parked on the block), bits 3-10 how many holders (kernels'
 * launches, uvas_gpu_hold) hold the block (gpu/: while held it cannot be
 * taken, so its translation stays; a slab block's small allocations are
 * held apart, so a count of 15 was reached by 16 holds of 256-byte
 * objects), bit 11 WAITER: a CPU fault parked until the transition or the
 * holds end (set only while BUSY or held; whoever ends them clears it and
 * wakes the block's faults), bits 12-31 a version bumped by every
 * transition so a reader can detect that it raced one.
 */
#ifndef UVAS_BLOCK_H
#define UVAS_BLOCK_H

#include <sched.h>
#include <stdatomic.h>
#include <time.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UVAS_BLK_RES_MASK 0x3u
#define UVAS_BLK_BUSY 0x4u
#define UVAS_BLK_HOLD_ONE 0x8u
#define UVAS_BLK_HOLD_MASK 0x7f8u
#define UVAS_BLK_WAITER 0x800u
#define UVAS_BLK_VERSION_ONE 0x1000u
#define UVAS_BLK_LOW (UVAS_BLK_VERSION_ONE - 1) /* every bit but the version's */

/* What covers a block (kind, lock-free readable). */
enum uvas_blk_kind { UVAS_BK_NONE = 0, UVAS_BK_EXTENT = 1, UVAS_BK_SLAB = 2 };

#define UVAS_BF_FREED_HEAD 0x1u /* was the head of an extent freed since */

#define UVAS_BA_READ_MOSTLY 0x1u /* keep a read-only host copy on the device */
#define UVAS_BA_CPU_MAP 0x2u     /* a CPU access maps the device memory */
#define UVAS_BA_SHARED 0x4u      /* device memory another process maps too (a
                                    shared pool's): it never moves */

struct uvas_block {
    /* Read without locks (fault path, queries). */
    _Atomic uint32_t state;
    _Atomic uint32_t owner;   /* head block index + 1; 0: no allocation */
    _Atomic uint64_t size;    /* extent head: requested bytes */
    _Atomic uint32_t nblocks; /* extent head: blocks in the extent */
    _Atomic uint8_t kind;     /* enum uvas_blk_kind */
    _Atomic uint8_t hints;    /* owner's UVAS_HINT_* bits */
    _Atomic uint8_t heap;     /* owner's enum uvas_heap (policy input) */
    uint8_t flags;            /* UVAS_BF_* (allocator lock) */
    _Atomic uint8_t tier_pref; /* advised preferred residence, 0 none */
    _Atomic uint8_t shadow;   /* DEVICE: the memfd still holds its pages */
    _Atomic uint8_t dup;      /* DEVICE: those pages are a valid copy, mapped
                                 read-only (read-mostly advice) */
    _Atomic uint8_t advice;   /* UVAS_BA_* bits */
    _Atomic uint8_t cpu_mapped; /* DEVICE: the range maps the device memory */
    _Atomic uint8_t refilled; /* HOST: a fault found its memfd pages punched and
                                 mapped new ones (BUSY holder) */
    /* 64 bits: a kernel's sampled counts add billions a minute to a hot
     * block, which a 32-bit count would have to wrap or stop at. */
    _Atomic uint64_t acc[2];  /* accesses seen per agent (enum uvas_agent) */
    _Atomic uint64_t gpu_acc; /* of acc[DEVICE], those kernels counted */
    _Atomic uint32_t moves;   /* migrations between the tiers */
    _Atomic uint32_t writes;  /* tick intervals in which the CPU wrote it */
    _Atomic uint32_t generation; /* allocations it served before: a policy's
                                    per-block memory is stale when it moved */
    _Atomic uint64_t moved_ns; /* CLOCK_MONOTONIC of the last one */
    uint32_t dev_slot;        /* device tier slot (1-based) when DEVICE, else 0 */
    /* Slab bookkeeping (allocator lock); the slot bitmap and sizes live in
     * the slab metadata area, indexed by block. */
    _Atomic uint16_t cls;     /* size class */
    uint16_t pad;
    uint32_t used;            /* live slots */
    uint32_t hw;              /* slots ever handed out: [0, hw) */
    uint32_t next, prev;      /* partial-slab list, block index + 1 */
    uint32_t lru_next, lru_prev; /* device-resident list (device tier lock) */
    void *view_park;          /* where the driver thinks a placed CPU view is */
};

/*
 * The gate (uvas/gate.h): peers of the job access a block's memory
 * directly only while the block's gate is open and they hold a pin on it.
 * A transition closes the gate and waits for the pins to drain before it
 * moves anything; ending the transition opens the gate with the block's
 * new residence.
 */
void uvas_gate_close(struct uvas_block *b);
void uvas_gate_close_batched(struct uvas_block *b); /* uvas/gate.h: batches */
void uvas_gate_open(struct uvas_block *b, uint32_t state);

static inline int uvas_blk_res(uint32_t state)
{
    return (int)(state & UVAS_BLK_RES_MASK);
}

/* Can the block's memory hold anything but zeros? An untouched block
 * cannot, unless it is being populated right now: a fill maps its pages
 * before it publishes, and a thread may already have written to them. */
static inline bool uvas_blk_may_hold_data(uint32_t state)
{
    return uvas_blk_res(state) != 0 /* UVAS_RES_UNPOPULATED */ || (state & UVAS_BLK_BUSY);
}

static inline bool uvas_blk_held(uint32_t state)
{
    return (state & UVAS_BLK_HOLD_MASK) != 0;
}

/* The one way into a transition: state s (not BUSY, not held by a kernel)
 * becomes s | BUSY and the block's gate closes, so peers' direct accesses
 * stop before anything moves. False if the state changed since s was
 * read, or a kernel holds the block. (A device access that moves nothing
 * takes a device-resident block BUSY with its gate open:
 * migrate/device_access.c.) */
static inline bool uvas_blk_mark_busy_(struct uvas_block *b, uint32_t s, bool batched)
{
    if (uvas_blk_held(s))
        return false;
    uint32_t expect = s;
    if (!atomic_compare_exchange_strong_explicit(&b->state, &expect, s | UVAS_BLK_BUSY,
                                                 memory_order_acq_rel, memory_order_acquire))
        return false;
    if (batched)
        uvas_gate_close_batched(b);
    else
        uvas_gate_close(b);
    return true;
}

static inline bool uvas_blk_mark_busy(struct uvas_block *b, uint32_t s)
{
    return uvas_blk_mark_busy_(b, s, false);
}

/* Try to take the block for a transition out of residence `from`. On
 * success *seen holds the pre-transition state. */
static inline bool uvas_blk_try_busy(struct uvas_block *b, int from, uint32_t *seen)
{
    uint32_t s = atomic_load_explicit(&b->state, memory_order_acquire);
    if ((s & UVAS_BLK_BUSY) || uvas_blk_res(s) != from || !uvas_blk_mark_busy(b, s))
        return false;
    *seen = s;
    return true;
}

/* Take the block for a transition, whatever its residence: with wait,
 * yielding while another transition holds it (they take microseconds to
 * milliseconds) and sleeping while kernels hold it (as long as they run);
 * without, false when either does. *seen: the state before. */
static inline bool uvas_blk_take_(struct uvas_block *b, bool wait, uint32_t *seen,
                                  bool batched)
{
    for (unsigned i = 0;; i++) {
        uint32_t s = atomic_load_explicit(&b->state, memory_order_acquire);
        if (!(s & UVAS_BLK_BUSY) && !uvas_blk_held(s)) {
            if (uvas_blk_mark_busy_(b, s, batched)) {
                *seen = s;
                return true;
            }
            continue;
        }
        if (!wait)
            return false;
        if (uvas_blk_held(s) && i > 64) {
            struct timespec ts = {0, 50000};
            nanosleep(&ts, NULL);
        } else {
            sched_yield();
        }
    }
}

static inline bool uvas_blk_take(struct uvas_block *b, bool wait, uint32_t *seen)
{
    return uvas_blk_take_(b, wait, seen, false);
}

/* The same within a batch of closes (uvas_gate_batch_begin): the wait for
 * peers' pins comes at the batch's flush or end, before anything of the
 * block moves. */
static inline bool uvas_blk_take_batched(struct uvas_block *b, bool wait, uint32_t *seen)
{
    return uvas_blk_take_(b, wait, seen, true);
}

/* End a transition: new residence, next version, BUSY cleared. True if a
 * CPU fault parked on the block meanwhile (uvas_blk_park): wake the
 * block's faults then. */
static inline bool uvas_blk_publish(struct uvas_block *b, uint32_t seen, int res)
{
    uint32_t next = ((seen & ~UVAS_BLK_LOW) + UVAS_BLK_VERSION_ONE) | (uint32_t)res;
    /* Open the gate while still holding the block: its fields (device
     * slot, duplicate) are ours to read only until the state is stored. */
    uvas_gate_open(b, next);
    return (atomic_exchange_explicit(&b->state, next, memory_order_acq_rel) &
            UVAS_BLK_WAITER) != 0;
}

/*
 * Within a transition to the host: the residence the block is going to,
 * shown before the transition ends, at the moment its pages are mapped.
 * From then on a thread may read and write them without a fault (one
 * woken for an earlier block of the same migration runs on into this
 * one), and a query after that access must not answer the residence the
 * block is leaving. Only the residence bits change; the BUSY holder
 * still ends the transition (a failure restores the state it took).
 */
static inline void uvas_blk_show(struct uvas_block *b, int res)
{
    uint32_t s = atomic_load_explicit(&b->state, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&b->state, &s,
                                                  (s & ~UVAS_BLK_RES_MASK) | (uint32_t)res,
                                                  memory_order_release, memory_order_relaxed))
        ;
}

/* End a transition that moved nothing (same residence, same version).
 * True if a CPU fault parked meanwhile, as uvas_blk_publish. */
static inline bool uvas_blk_unbusy(struct uvas_block *b, uint32_t seen)
{
    uvas_gate_open(b, seen);
    return (atomic_exchange_explicit(&b->state, seen, memory_order_acq_rel) &
            UVAS_BLK_WAITER) != 0;
}

/*
 * Kernels' holds (gpu/hold.c). The first holder takes the block (BUSY),
 * brings it where the device reaches it, and ends the transition held;
 * later ones add themselves while it is held. The last to let go gets the
 * block BUSY, to undo what the holds kept (the translation), and ends
 * with uvas_blk_unbusy and, if *waiter or that returns true, a wake of
 * the block's faults.
 *
 * The first holder's end of its transition; true if a CPU fault parked
 * meanwhile (wake the block's faults: a thread whose page is not mapped
 * faults again and parks until the holds end). Only then: a launch holds
 * hundreds of blocks, and a wake is a system call.
 */
static inline bool uvas_blk_publish_held(struct uvas_block *b, uint32_t seen, int res)
{
    uint32_t next = res == uvas_blk_res(seen)
                        ? seen
                        : ((seen & ~UVAS_BLK_LOW) + UVAS_BLK_VERSION_ONE) | (uint32_t)res;
    uvas_gate_open(b, next);
    return (atomic_exchange_explicit(&b->state, next | UVAS_BLK_HOLD_ONE,
                                     memory_order_acq_rel) &
            UVAS_BLK_WAITER) != 0;
}

/* One more holder of a held block: UVAS_BLK_HOLD_MORE; UVAS_BLK_HOLD_NOT if
 * it is not held (take it); UVAS_BLK_HOLD_FULL if it has as many holders
 * as the word counts. */
enum { UVAS_BLK_HOLD_NOT, UVAS_BLK_HOLD_MORE, UVAS_BLK_HOLD_FULL };
static inline int uvas_blk_hold_more(struct uvas_block *b)
{
    uint32_t s = atomic_load_explicit(&b->state, memory_order_acquire);
    while (uvas_blk_held(s)) {
        if ((s & UVAS_BLK_HOLD_MASK) == UVAS_BLK_HOLD_MASK)
            return UVAS_BLK_HOLD_FULL;
        if (atomic_compare_exchange_weak_explicit(&b->state, &s, s + UVAS_BLK_HOLD_ONE,
                                                  memory_order_acq_rel, memory_order_acquire))
            return UVAS_BLK_HOLD_MORE;
    }
    return UVAS_BLK_HOLD_NOT;
}

/* Let go of a hold. True for the last holder, which now has the block
 * BUSY (*seen: the state to end with) and must wake its faults if
 * *waiter. */
static inline bool uvas_blk_unhold(struct uvas_block *b, uint32_t *seen, bool *waiter)
{
    uint32_t s = atomic_load_explicit(&b->state, memory_order_acquire);
    for (;;) {
        uint32_t n = s - UVAS_BLK_HOLD_ONE;
        bool last = !uvas_blk_held(n);
        if (last)
            n = (n & ~UVAS_BLK_WAITER) | UVAS_BLK_BUSY;
        if (atomic_compare_exchange_weak_explicit(&b->state, &s, n, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            if (last) {
                *seen = n & ~UVAS_BLK_BUSY;
                *waiter = (s & UVAS_BLK_WAITER) != 0;
            }
            return last;
        }
    }
}

/* A CPU fault on a block in a transition (BUSY) or held by kernels: mark
 * it so that whoever ends the transition, or the last hold, wakes the
 * block's faults. True: parked (the fault's message may be dropped);
 * false: the block is neither now (serve the fault, or wake it: its
 * thread retries the access). */
static inline bool uvas_blk_park(struct uvas_block *b)
{
    uint32_t s = atomic_load_explicit(&b->state, memory_order_acquire);
    while ((s & UVAS_BLK_BUSY) || uvas_blk_held(s)) {
        if ((s & UVAS_BLK_WAITER) ||
            atomic_compare_exchange_weak_explicit(&b->state, &s, s | UVAS_BLK_WAITER,
                                                  memory_order_acq_rel, memory_order_acquire))
            return true;
    }
    return false;
}

/* Map and release the table (NORESERVE: untouched entries cost nothing). */
int uvas_block_table_create(size_t nblocks, struct uvas_block **out);
void uvas_block_table_destroy(struct uvas_block *bt, size_t nblocks);

#endif
