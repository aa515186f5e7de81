/*
 * Gates: how a peer of the job may access a block's memory directly without
 * racing a migration. Two tables, both shared with the PEs of the node:
 *
 *   the residence table, one 64-bit word per block, written by the owner
 *   only: CLOSED while the block is in a transition, else its residence
 *   and, for device memory a peer may write, its slot. Peers map it
 *   read-only, and cannot do otherwise: the memfd is sealed against
 *   writable mappings (F_SEAL_FUTURE_WRITE) before it is handed out, so no
 *   peer can make the owner believe a block is somewhere it is not.
 *
 *   pin tables, one 32-bit counter per block, one table per party that
 *   pins (each local peer has its own, passed only to it; the owner's own
 *   threads have one; peers over UCX share one): a pin says "I am inside
 *   this block's memory".
 *
 * A peer adds a pin, then reads the word: it accesses the memory only if
 * the gate was open, and drops the pin either way. A transition sets
 * CLOSED, then waits until every table's pin on the block is gone, before
 * it unmaps or copies anything. Both sides write one word and then read
 * the other's (Dekker, all sequentially consistent): either the peer sees
 * CLOSED or the owner sees the pin.
 *
 * Quick pins (below) take the counter's place for the accesses that hold
 * one pin for a few instructions: a slot per thread instead of a shared
 * counter, one locked instruction per access instead of two, and none
 * where the kernel offers asymmetric fences (below).
 *
 * word: bit 20 CLOSED, bits 21-22 residence, bit 23 DIRECT (device memory a
 * peer may write: a slab slot, no host duplicate), bits 32-63 device slot.
 */
#ifndef UVAS_GATE_H
#define UVAS_GATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UVAS_GATE_CLOSED (1ull << 20)
#define UVAS_GATE_RES_SHIFT 21
#define UVAS_GATE_DIRECT (1ull << 23)
#define UVAS_GATE_SLOT_SHIFT 32

static inline int uvas_gate_res(uint64_t w)
{
    return (int)((w >> UVAS_GATE_RES_SHIFT) & 3u);
}
static inline uint32_t uvas_gate_slot(uint64_t w)
{
    return (uint32_t)(w >> UVAS_GATE_SLOT_SHIFT);
}
static inline bool uvas_gate_is_open(uint64_t w)
{
    return !(w & UVAS_GATE_CLOSED);
}

/* The residence table: a memfd of nblocks words, mapped writable here and
 * then sealed so nobody can map it writable again. Status. */
int uvas_gate_table_create(size_t nblocks, int *fd, _Atomic uint64_t **out);
void uvas_gate_table_destroy(_Atomic uint64_t *g, size_t nblocks, int fd);
/* Bytes of the residence table and of one pin table (whole pages: the
 * counters, then the slots). */
size_t uvas_gate_table_bytes(void);
size_t uvas_gate_pins_bytes(void);

/* Pin tables: room for ntables parties (the PE layer: one per rank plus
 * one for remote peers); a table is made when first asked for. Status. */
int uvas_gate_pins_setup(unsigned ntables);
void uvas_gate_pins_teardown(void);
/* Table t (made now if it does not exist): its counters and its memfd,
 * which stays the directory's (dup it to keep it). Status. */
int uvas_gate_pins_get(unsigned t, _Atomic uint32_t **pins, int *fd);
/* Pins held on block bi, over every table (diagnostics and tests). */
uint64_t uvas_gate_pins_held(size_t bi);

/*
 * Accesses by other PEs, for the policies (uvas_policy_peer_accesses) and
 * uvas-stat. A party counts its own direct accesses (puts, gets, atomics
 * through the window, its kernels' leases), one per block per call, in
 * the counters after its table's slots (uvas_gate_acc_of): a load and a
 * store, no locked instruction, so two threads of one party counting the
 * same block at once may lose counts, as many as one of them made while
 * the other sat between its load and its store (statistics, as GPUs'
 * access counters are; a reader takes a count that went down as none). What this process serves for a party (its active messages) it
 * counts apart (uvas_gate_count_served, exact). Parties are the pin
 * tables' indices, the PE layer's ranks; the last table, the remote
 * peers', holds in its CPU counters the direct RMA that PEs reached over
 * the network make (ucp RMA, UVAS_UCX_RMA_MIN): each adds one with a
 * posted network atomic, all of them together (uvas_gate_peer_sum).
 */
_Atomic uint32_t *uvas_gate_acc_of(_Atomic uint32_t *pins);
/* The party's kernels' accesses, apart (their leases: the device touches
 * the memory; a call the host makes for a kernel is the host CPU's): the
 * counters after the CPU's. */
_Atomic uint32_t *uvas_gate_acc_kernels_of(_Atomic uint32_t *pins);
static inline void uvas_gate_count(_Atomic uint32_t *acc, size_t bi)
{
    atomic_store_explicit(&acc[bi], atomic_load_explicit(&acc[bi], memory_order_relaxed) + 1,
                          memory_order_relaxed);
}
/* Only where the owner asked for counts (its policy's
 * UVAS_POLICY_TRACK_PEERS or UVAS_PEER_COUNTS): a count on every call is
 * not free (docs/policies.md). The flag shares the slots' first line,
 * which every quick pin reads. */
struct uvas_gate_slots;
/* Counting in this process's tables from now on (the owner's choice);
 * off with no table made, nothing is held as counted any more. */
void uvas_gate_counting(bool on);
bool uvas_gate_counting_on(void);
void uvas_gate_count_served(unsigned party, size_t bi);
/* Party's accesses of block bi, all of them (its own counts and the
 * served ones), and (kernels, may be NULL) its kernels' part; 0 for a
 * party out of range. */
uint32_t uvas_gate_acc(unsigned party, size_t bi, uint32_t *kernels);
/* Block bi's accesses by the other PEs, for a policy's view (one entry
 * into the tables, none while nothing was ever counted). */
struct uvas_gate_peer_sum {
    uint32_t all;     /* every rank's (its own counts and the served ones)
                         and the network's */
    int top;          /* the rank with the most, -1 when none */
    uint32_t kernels; /* of all, the ranks' kernels' */
    uint32_t network; /* of all, the direct RMA of PEs reached over the
                         network, together (the remote peers' table) */
};
void uvas_gate_peer_sum(size_t bi, struct uvas_gate_peer_sum *out);
/* Blocks [s, s+n) count from 0 again (their allocation was freed). */
void uvas_gate_acc_forget(size_t s, size_t n);
/* Ranks among the parties: all but the last table, the remote peers'
 * (0 without the PE layer). */
unsigned uvas_gate_ranks(void);

/* A pin on a gate, local or in a peer's tables: the word as it was after
 * the pin. The access may go ahead only if uvas_gate_is_open(w); either
 * way the pin must be dropped. */
static inline uint64_t uvas_gate_pin(_Atomic uint32_t *pin, const _Atomic uint64_t *word)
{
    atomic_fetch_add_explicit(pin, 1, memory_order_seq_cst);
    return atomic_load_explicit((_Atomic uint64_t *)word, memory_order_seq_cst);
}
static inline void uvas_gate_unpin(_Atomic uint32_t *pin)
{
    atomic_fetch_sub_explicit(pin, 1, memory_order_release);
}

/*
 * Quick pins. Each pin table ends with UVAS_GATE_SLOTS hazard slots, a
 * cache line each; a thread of the party owns slot k in every table of its
 * party (one index per thread, process-wide) and writes there the block it
 * is inside (index + 1). Taking it is one exchange, a full fence as the
 * counter's add was; dropping it is a plain release store, where the
 * counter needed a second locked instruction. The owner, after closing a
 * gate, waits for every slot below the table's high-water mark to leave
 * the block. A thread's second pin in a table while its slot there is
 * taken, and every pin of a thread without a slot (more than
 * UVAS_GATE_SLOTS threads, or the child of a fork), go to the counter.
 *
 * Why it orders: the pinning thread of (1-based) slot k raises the table's
 * high-water mark to k (an RMW) before its first use of the slot, or reads
 * it with acquire already >= k, then exchanges the slot, then reads the
 * word; the
 * owner closes the word (an RMW), then reads the mark, then the slots. If
 * the owner's mark misses slot k, the thread's word read comes after the
 * close. The mark is written by the party: the owner clamps it.
 *
 * Light slots. The exchange's fence is most of a small put's cost, paid
 * on every access so that the rare transition can see the pin. Where the
 * kernel offers membarrier's global expedited command, the owner pays
 * instead: the slot is taken with a plain store, and a transition that
 * closes a gate peers could be inside (open, and host-resident or direct
 * device memory) while some table has slots in use runs a heavy fence
 * (uvas_os_heavy_fence) between its close and its read of the slots. The
 * fence runs a full barrier on every thread of every process that joined:
 * a pinning thread's slot store before that barrier is visible to the
 * owner's read after it, and its word read after that barrier sees the
 * close (the liburcu and folly asymmetric fence). The owner marks the
 * tables it makes `light` when its process joined; a thread takes a slot
 * with a plain store only where the table is light and its own process
 * joined too. Either may be missing (an older kernel, a seccomp filter): then
 * the exchange, as before. A party that clears or sets the mark in its own
 * table only changes its own protocol: the owner fences by its own
 * knowledge, never by the mark.
 */
#define UVAS_GATE_SLOTS 63

struct uvas_gate_slots {
    _Atomic uint32_t hw;  /* slots [0, hw) have been used */
    /* Bumped by the owner when a transition finds a pin of this party in
     * its way: a party that holds pins for long (leases for its running
     * kernels, transport/pe/lease.c) watches it and lets go of those whose
     * gate is now closed. */
    _Atomic uint32_t want;
    _Atomic uint32_t light; /* the owner fences its closes: slots may be light */
    _Atomic uint32_t count; /* the owner reads accesses: the party counts its own */
    char pad[48];
    struct {
        _Atomic uint64_t block; /* block index + 1 while pinned, else 0 */
        char pad[56];
    } s[UVAS_GATE_SLOTS];
};

/* The kernels' counters beside a table's CPU counters (acc as
 * uvas_gate_acc_of gives it). */
_Atomic uint32_t *uvas_gate_kernels_beside(_Atomic uint32_t *acc);

/* A party's count of its CPU's access to block bi, where the owner reads
 * them (uvas_gate_count, above). */
static inline void uvas_gate_count_if(const struct uvas_gate_slots *t, _Atomic uint32_t *acc,
                                      size_t bi)
{
    if (__builtin_expect(atomic_load_explicit(&t->count, memory_order_relaxed) != 0, 0))
        uvas_gate_count(acc, bi);
}

/* The same for an access the party's kernels make themselves (a lease). */
static inline void uvas_gate_count_kernels_if(const struct uvas_gate_slots *t,
                                              _Atomic uint32_t *acc, size_t bi)
{
    if (__builtin_expect(atomic_load_explicit(&t->count, memory_order_relaxed) != 0, 0))
        uvas_gate_count(uvas_gate_kernels_beside(acc), bi);
}

/* The slots of a pin table (table as uvas_gate_pins_get or a peer's
 * window gives it). */
struct uvas_gate_slots *uvas_gate_slots_of(_Atomic uint32_t *pins);

/* This thread's slot, 1-based: 0 before its first quick pin, -1 when it
 * has none. */
extern __thread int uvas_gate_slot_mine __attribute__((tls_model("initial-exec")));
/* This process joined the heavy fences (set before its first slot). */
extern _Atomic bool uvas_gate_joined;
int uvas_gate_slot_claim(void);
void uvas_gate_slots_raise(struct uvas_gate_slots *t, uint32_t hw);

struct uvas_gate_quick {
    _Atomic uint64_t *slot;  /* the slot held, or NULL: */
    _Atomic uint32_t *ctr;   /* the counter held */
};

/* A quick pin on block bi of a gate table, in the party's table (slots
 * and counters): the word as it was after the pin, as uvas_gate_pin. */
static inline uint64_t uvas_gate_pin_quick(struct uvas_gate_slots *t, _Atomic uint32_t *pins,
                                           size_t bi, const _Atomic uint64_t *word,
                                           struct uvas_gate_quick *q)
{
    int k = uvas_gate_slot_mine;
    if (__builtin_expect(k == 0, 0))
        k = uvas_gate_slot_claim();
    /* A slot already in use here (a second pin in the same table, as a
     * transfer within one PE's memory takes) leaves this one to the
     * counter. Only this thread writes it: the plain read is exact. */
    if (__builtin_expect(k > 0, 1) &&
        !atomic_load_explicit(&t->s[k - 1].block, memory_order_relaxed)) {
        if (__builtin_expect(atomic_load_explicit(&t->hw, memory_order_acquire) < (uint32_t)k, 0))
            uvas_gate_slots_raise(t, (uint32_t)k);
        q->slot = &t->s[k - 1].block;
        q->ctr = NULL;
        if (atomic_load_explicit(&uvas_gate_joined, memory_order_relaxed) &&
            atomic_load_explicit(&t->light, memory_order_relaxed)) {
            /* The owner's heavy fence orders the store before the read. */
            atomic_store_explicit(q->slot, (uint64_t)bi + 1, memory_order_relaxed);
            atomic_signal_fence(memory_order_seq_cst);
            return atomic_load_explicit((_Atomic uint64_t *)word, memory_order_acquire);
        }
        atomic_exchange_explicit(q->slot, (uint64_t)bi + 1, memory_order_seq_cst);
        return atomic_load_explicit((_Atomic uint64_t *)word, memory_order_seq_cst);
    }
    q->slot = NULL;
    q->ctr = &pins[bi];
    return uvas_gate_pin(q->ctr, word);
}

static inline void uvas_gate_unpin_quick(struct uvas_gate_quick *q)
{
    if (q->slot)
        atomic_store_explicit(q->slot, 0, memory_order_release);
    else
        uvas_gate_unpin(q->ctr);
}

/* Called when a transition has waited long for the pins of table t (a dead
 * peer?); the transport installs a check that ends the job if that peer is
 * gone. */
extern void (*uvas_gate_stuck_hook)(size_t block, unsigned table, double seconds);
/* Transitions that had to wait for pins (statistics). */
uint64_t uvas_gate_waits(void);
/* Closes that ran a heavy fence for light slots (statistics). */
uint64_t uvas_gate_heavy_fences(void);

/* Many gates closed at once (a migration's run): between begin and end,
 * this thread's batched closes (uvas_blk_take_batched) leave their wait
 * for pins to the end (or to a flush), which runs one heavy fence for all
 * of them. Nothing of a block closed so may be moved or copied before
 * then: flush first. Batches do not nest. */
void uvas_gate_batch_begin(void);
void uvas_gate_batch_flush(void);
void uvas_gate_batch_end(void);

#endif
